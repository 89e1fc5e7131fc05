/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-threads.c - `wcanalyze threads`: per thread, where its wall-clock time went (threads.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/cli.h"
#include "analyzer/threads.h"

static const char usage[] =
	"usage: wcanalyze threads [options] FILE   per-thread wall-clock breakdown\n"
	WC_CLI_HELP_FILTER
	"  --unit ms|us|ns        unit of the table's times (default ms)\n"
	"  --json                 one JSON object, times in ns (schema: man wcanalyze-threads)\n"
	WC_CLI_HELP_SYMBOLS WC_CLI_HELP_MEMORY;

enum { O_JSON = 512, O_UNIT };

struct opts {
	bool json;
	enum wc_unit unit;
};

static int option(void *ctx, int opt, const char *arg)
{
	struct opts *o = ctx;

	if (opt == O_JSON) {
		o->json = true;
		return 0;
	}
	if (!strcmp(arg, "ms"))
		o->unit = WC_UNIT_MS;
	else if (!strcmp(arg, "us"))
		o->unit = WC_UNIT_US;
	else if (!strcmp(arg, "ns"))
		o->unit = WC_UNIT_NS;
	else
		return wc_cli_bad("--unit is ms, us or ns", arg);
	return 0;
}

int wc_cmd_threads(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, O_JSON },
		{ "unit", required_argument, NULL, O_UNIT },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .unit = WC_UNIT_MS };
	const struct wc_cli_extra x = { longopts, NULL, option, &o };
	struct wc_cli_session s = { .counts_shown = true }; /* the report prints them */
	struct wc_threads_opts to;
	struct wc_threads *t;
	struct wc_cli c;
	int ret = wc_cli_parse(&c, argc, argv, WC_CLI_FILTER | WC_CLI_SYMBOLS, &x, usage);

	if (ret >= 0)
		return ret;
	to = (struct wc_threads_opts){ .filter = c.prof.filter, .unit = o.unit };
	t = wc_threads_new(&to);
	if (!t) {
		fprintf(stderr, "wcanalyze: out of memory\n");
		return WC_EXIT_BAD_FILE;
	}
	ret = wc_cli_run(&s, &c, wc_threads_consumer(t));
	if (ret < 0) {
		int err = o.json ? wc_threads_write_json(t, &s.a, s.sym, stdout)
				 : wc_threads_write_text(t, &s.a, s.sym, stdout);

		if (err) {
			fprintf(stderr, "wcanalyze: writing the output: %s\n", strerror(-err));
			ret = WC_EXIT_BAD_FILE;
		}
	}
	ret = wc_cli_end(&s, ret);
	wc_threads_free(t);
	return ret;
}
