/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-info.c - `wcanalyze info FILE`: what the trace holds (info.h). */
#include <stdio.h>
#include <string.h>

#include "analyzer/cli.h"
#include "analyzer/info.h"

static const char usage[] = "usage: wcanalyze info [--max-memory SIZE] FILE   (also: wcanalyze FILE)\n";

int wc_cmd_info(int argc, char **argv)
{
	struct wc_cli_session s = { .counts_shown = true };
	struct wc_info_acc acc = { 0 };
	struct wc_analysis_consumer consumer;
	struct wc_cli c;
	int ret = wc_cli_parse(&c, argc, argv, 0, NULL, usage);

	if (ret >= 0)
		return ret;
	s.max_memory = c.max_memory;
	wc_info_consumer(&acc, &consumer);
	ret = wc_cli_replay(&s, c.file, &consumer);
	if (ret >= 0)
		return wc_cli_end(&s, ret);
	{ /* kernel names for the skid line; without them (out of memory) it is left out */
		const struct wc_replay_meta *m = wc_replay_meta(s.a.replay);

		s.sym = wc_symbolizer_new(&s.a.tasks, m->kallsyms, m->kallsyms_len, m->ksyms,
					  &c.paths);
	}
	return wc_cli_end(&s, wc_info_write(&s.a, &acc, s.sym, stdout) ? WC_EXIT_BAD_FILE : -1);
}
