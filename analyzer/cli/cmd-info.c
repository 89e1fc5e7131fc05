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
	"usage: wcanalyze info [--symbols [--symfs DIR] [--debug-dir DIR]] [--max-memory SIZE] FILE...\n"
	"       wcanalyze info --span FILE   the recording's start and end, Unix seconds\n"
	"       (also: wcanalyze FILE)\n";

static const struct option longopts[] = {
	{ "symbols", no_argument, NULL, 'Y' },
	{ "span", no_argument, NULL, 'S' },
	{ 0 },
};

/* --symbols, --span */
struct info_opts {
	bool symbols, span;
};

static int handle(void *ctx, int opt, const char *arg)
{
	struct info_opts *io = ctx;

	(void)arg;
	if (opt == 'Y')
		io->symbols = true;
	else
		io->span = true;
	return 0;
}

int wc_cmd_info(int argc, char **argv)
{
	struct wc_cli_session s = { .counts_shown = true, .stat_shown = true };
	struct wc_info_acc acc = { 0 };
	struct wc_analysis_consumer consumer;
	struct wc_cli c;
	struct info_opts io = { false, false };
	const struct wc_cli_extra extra = { longopts, NULL, handle, &io };
	int ret = wc_cli_parse(&c, argc, argv, WC_CLI_SYMBOLS | WC_CLI_FILES, &extra, usage);

	if (ret >= 0)
		return ret;
	if (c.nfiles > 1)
		return wc_cli_each_file(&c, argc, argv, wc_cmd_info);
	s.max_memory = c.max_memory;
	s.paths = &c.paths;
	wc_info_consumer(&acc, &consumer);
	ret = wc_cli_replay(&s, c.file, &consumer);
	if (ret >= 0)
		return wc_cli_end(&s, ret);
	if (io.span) {
		s.counts_shown = true;
		if (wc_info_span_write(s.a, stdout)) {
			fprintf(stderr,
				"wcanalyze: %s: the trace does not map its clock to wall time\n",
				c.file);
			return wc_cli_end(&s, WC_EXIT_BAD_FILE);
		}
		return wc_cli_end(&s, -1);
	}
	s.sym = wc_analysis_symbolizer(s.a); /* for the skid line; NULL (out of memory): none */
	ret = wc_info_write(s.a, &acc, s.sym, stdout) ? WC_EXIT_BAD_FILE : -1;
	if (ret < 0 && io.symbols && s.sym &&
	    wc_info_symbols_write(wc_analysis_tasks(s.a), wc_analysis_replay(s.a), s.sym, stdout) ==
		    -ENOMEM)
		ret = WC_EXIT_BAD_FILE;
	return wc_cli_end(&s, ret);
}
