/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-info.c - `wcanalyze info FILE`: what the trace holds (info.h). */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/cli/cli.h"
#include "analyzer/reports/info-symbols.h"
#include "analyzer/reports/info.h"

static const char usage[] =
	"usage: wcanalyze info [--symbols [--symfs DIR] [--debug-dir DIR]] [--max-memory SIZE] FILE\n"
	"       (also: wcanalyze FILE)\n";

static const struct option longopts[] = {
	{ "symbols", no_argument, NULL, 'Y' },
	{ 0 },
};

static int handle(void *ctx, int opt, const char *arg)
{
	(void)arg;
	*(bool *)ctx = opt == 'Y';
	return 0;
}

int wc_cmd_info(int argc, char **argv)
{
	struct wc_cli_session s = { .counts_shown = true, .stat_shown = true };
	struct wc_info_acc acc = { 0 };
	struct wc_analysis_consumer consumer;
	struct wc_cli c;
	bool symbols = false;
	const struct wc_cli_extra extra = { longopts, NULL, handle, &symbols };
	int ret = wc_cli_parse(&c, argc, argv, WC_CLI_SYMBOLS, &extra, usage);

	if (ret >= 0)
		return ret;
	s.max_memory = c.max_memory;
	s.paths = &c.paths;
	wc_info_consumer(&acc, &consumer);
	ret = wc_cli_replay(&s, c.file, &consumer);
	if (ret >= 0)
		return wc_cli_end(&s, ret);
	s.sym = wc_analysis_symbolizer(s.a); /* for the skid line; NULL (out of memory): none */
	ret = wc_info_write(s.a, &acc, s.sym, stdout) ? WC_EXIT_BAD_FILE : -1;
	if (ret < 0 && symbols && s.sym &&
	    wc_info_symbols_write(wc_analysis_tasks(s.a), wc_analysis_replay(s.a), s.sym, stdout) ==
		    -ENOMEM)
		ret = WC_EXIT_BAD_FILE;
	return wc_cli_end(&s, ret);
}
