/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-threads.c - `wcanalyze threads`: per thread, where its wall-clock time went (threads.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/cli/cli.h"
#include "analyzer/reports/threads.h"

static const char usage[] =
	"usage: wcanalyze threads [options] FILE...   per-thread wall-clock breakdown\n" WC_CLI_HELP_FILTER
	"  --unit ms|us|ns        unit of the table's times (default ms)\n"
	"  --sort wall|on|off|sleep|runq|tid\n"
	"                         order of the rows (default wall: lifetime, largest first)\n"
	"  --json                 one JSON object, times in ns (schema: man wcanalyze-threads)\n" WC_CLI_HELP_SYMBOLS
		WC_CLI_HELP_MEMORY;

enum { O_JSON = 512, O_UNIT, O_SORT };

struct opts {
	bool json;
	enum wc_unit unit;
	enum wc_threads_sort sort;
};

static int option(void *ctx, int opt, const char *arg)
{
	struct opts *o = ctx;

	if (opt == O_JSON) {
		o->json = true;
		return 0;
	}
	if (opt == O_SORT)
		return wc_threads_sort_parse(arg, &o->sort)
			       ? wc_cli_bad("--sort is wall, on, off, sleep, runq or tid", arg)
			       : 0;
	return wc_cli_unit(arg, &o->unit);
}

int wc_cmd_threads(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, O_JSON },
		{ "unit", required_argument, NULL, O_UNIT },
		{ "sort", required_argument, NULL, O_SORT },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .unit = WC_UNIT_MS };
	const struct wc_cli_extra x = { longopts, NULL, option, &o };
	/* the report prints the counts, and a row for each thread of a target, asleep or not */
	struct wc_cli_session s = { .counts_shown = true,
				    .targets_shown = true,
				    .stat_shown = true };
	struct wc_threads_opts to;
	struct wc_threads *t;
	struct wc_cli c;
	int ret = wc_cli_parse(&c, argc, argv, WC_CLI_FILTER | WC_CLI_SYMBOLS | WC_CLI_FILES, &x,
			       usage);

	if (ret >= 0)
		return ret;
	if (c.nfiles > 1 && o.json) /* one JSON document each would not make one */
		return wc_cli_bad("--json takes one FILE", c.files[1]);
	if (c.nfiles > 1)
		return wc_cli_each_file(&c, argc, argv, wc_cmd_threads);
	to = (struct wc_threads_opts){ .filter = c.prof.filter, .unit = o.unit, .sort = o.sort };
	t = wc_threads_new(&to);
	if (!t) {
		fprintf(stderr, "wcanalyze: out of memory\n");
		return WC_EXIT_BAD_FILE;
	}
	ret = wc_cli_run(&s, &c, wc_threads_consumer(t));
	if (ret < 0) {
		int err = o.json ? wc_threads_write_json(t, s.a, s.sym, stdout)
				 : wc_threads_write_text(t, s.a, s.sym, stdout);

		if (err) {
			fprintf(stderr, "wcanalyze: writing the output: %s\n", strerror(-err));
			ret = WC_EXIT_BAD_FILE;
		}
	}
	ret = wc_cli_end(&s, ret);
	wc_threads_free(t);
	return ret;
}
