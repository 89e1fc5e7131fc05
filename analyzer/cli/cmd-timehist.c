/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd-timehist.c - `wcanalyze timehist`: perf sched timehist's event log and summaries
 * (timehist.h), with perf's options (tools/perf/builtin-sched.c, cmd_sched) where they apply.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/cli/cli.h"
#include "analyzer/reports/timehist.h"

static const char usage[] =
	"usage: wcanalyze timehist [options] FILE...   perf sched timehist's event log\n"
	"  -w, --wakeups          a row per wakeup (awakened: comm[tid])\n"
	"  -M, --migrations       a row per migration (recorded with wcrec --migrations)\n"
	"  -n, --next             the task switched in\n"
	"  -V, --cpu-visual       a column per CPU\n"
	"  --state                the switch-out state; with -s/-S the wait-time summary\n"
	"  -I, --idle-hist        switches to and from idle only; idle time per task that left\n"
	"  -s, --summary          the summary only\n"
	"  -S, --with-summary     the rows, then the summary\n"
	"  -G, --no-callchain     no callchain on the rows (also --no-call-graph)\n"
	"  -g, --call-graph       the switch-out callchain on each row (the default)\n"
	"  --max-stack N          frames of it shown (default 5)\n" WC_CLI_HELP_FILTER
		WC_CLI_HELP_SYMBOLS WC_CLI_HELP_MEMORY;

enum { O_STATE = 512, O_MAX_STACK, O_NO_CALLCHAIN };

static const struct option longopts[] = {
	{ "wakeups", no_argument, NULL, 'w' },
	{ "migrations", no_argument, NULL, 'M' },
	{ "next", no_argument, NULL, 'n' },
	{ "cpu-visual", no_argument, NULL, 'V' },
	{ "idle-hist", no_argument, NULL, 'I' },
	{ "summary", no_argument, NULL, 's' },
	{ "with-summary", no_argument, NULL, 'S' },
	{ "call-graph", no_argument, NULL, 'g' },
	{ "no-callchain", no_argument, NULL, 'G' },
	{ "no-call-graph", no_argument, NULL, O_NO_CALLCHAIN },
	{ "hide-call-graph", no_argument, NULL, O_NO_CALLCHAIN },
	{ "max-stack", required_argument, NULL, O_MAX_STACK },
	{ "state", no_argument, NULL, O_STATE },
	{ NULL, 0, NULL, 0 },
};

struct opts {
	struct wc_timehist_opts o;
	bool summary_only, with_summary;
};

static int handle(void *ctx, int opt, const char *arg)
{
	struct opts *x = ctx;
	char *end;
	unsigned long v;

	switch (opt) {
	case 'w':
		x->o.wakeups = true;
		break;
	case 'M':
		x->o.migrations = true;
		break;
	case 'n':
		x->o.next = true;
		break;
	case 'V':
		x->o.cpu_visual = true;
		break;
	case 'I':
		x->o.idle_hist = true;
		break;
	case 's':
		x->summary_only = true;
		break;
	case 'S':
		x->with_summary = true;
		break;
	case 'g':
		x->o.callchain = true;
		break;
	case 'G':
	case O_NO_CALLCHAIN:
		x->o.callchain = false;
		break;
	case O_STATE:
		x->o.state = true;
		break;
	case O_MAX_STACK:
		errno = 0;
		v = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || arg[0] == '-' || v > 1024)
			return wc_cli_bad("--max-stack wants a number of frames, 0 to 1024", arg);
		x->o.max_stack = (unsigned)v;
		break;
	default:
		return WC_EXIT_USAGE;
	}
	return 0;
}

int wc_cmd_timehist(int argc, char **argv)
{
	struct opts x = { .o = { .callchain = true, .max_stack = 5 } };
	const struct wc_cli_extra extra = {
		.longopts = longopts,
		.shortopts = "wMnVIsSgG",
		.handle = handle,
		.ctx = &x,
	};
	struct wc_cli_session s = { 0 };
	enum wc_reader_state st;
	struct wc_timehist *th;
	struct wc_cli c;
	int ret, err;

	ret = wc_cli_parse(&c, argc, argv, WC_CLI_FILTER | WC_CLI_SYMBOLS | WC_CLI_FILES, &extra,
			   usage);
	if (ret >= 0)
		return ret;
	if (x.summary_only && (x.o.wakeups || x.o.next)) /* as perf: rows only they print */
		return wc_cli_bad("-s shows no rows: it excludes", x.o.wakeups ? "-w" : "-n");
	if (c.nfiles > 1)
		return wc_cli_each_file(&c, argc, argv, wc_cmd_timehist);
	x.o.filter = c.prof.filter;
	x.o.events = !x.summary_only;
	x.o.summary = x.summary_only || x.with_summary;
	th = wc_timehist_new(&x.o, stdout);
	if (!th) {
		fprintf(stderr, "wcanalyze: out of memory\n");
		return WC_EXIT_BAD_FILE;
	}
	s.max_memory = c.max_memory;
	s.paths = &c.paths;
	ret = wc_cli_open(&s, c.file);
	if (ret >= 0) {
		wc_timehist_free(th);
		return ret;
	}
	s.counts_shown = true; /* the footer line holds them */
	wc_cli_progress(&s, true);
	err = wc_analysis_run(s.a, wc_timehist_consumer(th));
	wc_cli_progress(&s, false);
	st = wc_replay_stats(wc_analysis_replay(s.a))->state;
	ret = -1;
	if (st != WC_READER_OK && st != WC_READER_CLEAN && st != WC_READER_TRUNCATED) {
		wc_timehist_flush(th); /* the rows before the damage; wc_cli_end() says where */
	} else if (err == -ENOENT && !wc_analysis_facts(s.a)->have_switch) {
		fprintf(stderr,
			"wcanalyze: %s: no sched_switch events (recorded with wcrec --no-sched?): "
			"timehist has nothing to show\n",
			c.file);
		if (st != WC_READER_TRUNCATED)
			ret = WC_EXIT_BAD_FILE;
	} else if (err) {
		fprintf(stderr, "wcanalyze: %s\n",
			err == -EIO		    ? "writing the output: Input/output error"
			: wc_analysis_error(s.a)[0] ? wc_analysis_error(s.a)
						    : strerror(-err));
		ret = WC_EXIT_BAD_FILE;
	} else {
		err = wc_timehist_finish(th, s.a);
		if (err) {
			fprintf(stderr, "wcanalyze: writing the output: %s\n", strerror(-err));
			ret = WC_EXIT_BAD_FILE;
		}
		if (x.o.migrations && !wc_analysis_facts(s.a)->have_migrate)
			fprintf(stderr,
				"wcanalyze: warning: %s: no sched_migrate_task events: -M "
				"shows nothing (record with wcrec --migrations)\n",
				c.file);
		s.sym = wc_analysis_symbolizer_made(
			s.a); /* wc_cli_end() warns of the symbol files it could not use */
	}
	ret = wc_cli_end(&s, ret);
	wc_timehist_free(th);
	return ret;
}
