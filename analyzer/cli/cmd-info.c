/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-info.c - `wcanalyze info FILE`: what the trace holds (info.h). */
#include <stdio.h>
#include <string.h>

#include "analyzer/cli/cli.h"
#include "analyzer/reports/info.h"

static const char usage[] =
	"usage: wcanalyze info [--max-memory SIZE] FILE   (also: wcanalyze FILE)\n";

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
	s.paths = &c.paths;
	wc_info_consumer(&acc, &consumer);
	ret = wc_cli_replay(&s, c.file, &consumer);
	if (ret >= 0)
		return wc_cli_end(&s, ret);
	s.sym = wc_analysis_symbolizer(s.a); /* for the skid line; NULL (out of memory): none */
	return wc_cli_end(&s, wc_info_write(s.a, &acc, s.sym, stdout) ? WC_EXIT_BAD_FILE : -1);
}
