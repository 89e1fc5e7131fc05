/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd-hist.c - `wcanalyze hist`: log2 histograms of off-CPU interval lengths, run-queue
 * latency and on-CPU run lengths, as BCC's cpudist -O, runqlat and cpudist print them
 * (hist.h; man/wcanalyze-hist.1).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/cli/cli.h"
#include "analyzer/reports/hist.h"

static const char usage[] =
	"usage: wcanalyze hist [options] FILE...   log2 histograms, as BCC cpudist and runqlat\n"
	"  --kind off|runq|on     off-CPU interval lengths (cpudist -O, the default), run-queue\n"
	"                         latency (runqlat) or on-CPU run lengths (cpudist)\n"
	"  -P, --per-process      a histogram per process ID\n"
	"  -L, --per-thread       a histogram per thread ID\n"
	"  --unit us|ms|ns        value unit (default us)\n"
	"  --json                 the buckets as JSON\n"
	"  -p PID[,...]  -t TID[,...]  --comm NAME    threads to keep\n"
	"  --all-tasks            all threads, not only the recording's COMMAND or -p target\n"
	"  --time START,END       values ending in this window, seconds from the start\n"
	"  --state S,D,R,...      intervals (runs for --kind on) ended by these switch-out states\n"
	"  -m, --min-block US     --kind off: intervals at least this long\n"
	"  -M, --max-block US     --kind off: intervals at most this long\n" WC_CLI_HELP_MEMORY;

enum { O_KIND = 300, O_UNIT, O_JSON };

static const struct option longopts[] = {
	{ "kind", required_argument, NULL, O_KIND }, { "per-process", no_argument, NULL, 'P' },
	{ "per-thread", no_argument, NULL, 'L' },    { "unit", required_argument, NULL, O_UNIT },
	{ "json", no_argument, NULL, O_JSON },	     { 0 },
};

struct hist_args {
	struct wc_hist_opts o;
	bool per_process, per_thread, json;
};

static int handle(void *ctx, int opt, const char *arg)
{
	struct hist_args *x = ctx;

	switch (opt) {
	case O_KIND:
		if (!strcmp(arg, "off"))
			x->o.kind = WC_HIST_OFF;
		else if (!strcmp(arg, "runq"))
			x->o.kind = WC_HIST_RUNQ;
		else if (!strcmp(arg, "on"))
			x->o.kind = WC_HIST_ON;
		else
			return wc_cli_bad("--kind is off, runq or on", arg);
		return 0;
	case 'P':
		x->per_process = true;
		return 0;
	case 'L':
		x->per_thread = true;
		return 0;
	case O_UNIT:
		return wc_cli_unit(arg, &x->o.unit);
	case O_JSON:
		x->json = true;
		return 0;
	}
	return WC_EXIT_USAGE;
}

/* Warnings on what the trace cannot give: no switches at all, or no wakeups for runq. */
static void warn_missing(const struct wc_analysis *a, enum wc_hist_kind kind)
{
	const struct wc_analysis_facts *fa = wc_analysis_facts(a);

	if (!fa->have_switch)
		fprintf(stderr,
			"wcanalyze: warning: %s: no sched_switch events (recorded with "
			"--no-sched?): no intervals nor runs to count\n",
			wc_analysis_path(a));
	else if (kind == WC_HIST_RUNQ && !fa->have_wakeup)
		fprintf(stderr,
			"wcanalyze: warning: %s: no wakeup events: only the latencies of "
			"preempted tasks are counted\n",
			wc_analysis_path(a));
	if (fa->format_errors)
		fprintf(stderr,
			"wcanalyze: warning: %s: %" PRIu64 " tracepoint formats left out: "
			"%s\n",
			wc_analysis_path(a), fa->format_errors, fa->format_error);
}

int wc_cmd_hist(int argc, char **argv)
{
	struct hist_args x = { 0 };
	struct wc_cli_extra extra = { longopts, "PL", handle, &x };
	struct wc_cli_session s = { 0 };
	struct wc_hist *h;
	struct wc_cli c;
	int ret = wc_cli_parse(&c, argc, argv, WC_CLI_FILTER | WC_CLI_OFFCPU | WC_CLI_FILES, &extra,
			       usage);

	if (ret >= 0)
		return ret;
	if (x.per_process && x.per_thread)
		return wc_cli_bad("-P and -L exclude each other", "-P -L");
	if (x.o.kind != WC_HIST_OFF && (c.prof.filter.min_block_ns || c.prof.filter.max_block_ns))
		return wc_cli_bad("-m and -M go with --kind off only",
				  x.o.kind == WC_HIST_ON ? "--kind on" : "--kind runq");
	if (c.nfiles > 1 && x.json) /* one JSON document each would not make one */
		return wc_cli_bad("--json takes one FILE", c.files[1]);
	if (c.nfiles > 1)
		return wc_cli_each_file(&c, argc, argv, wc_cmd_hist);
	x.o.per = x.per_process ? WC_HIST_PROCESS : x.per_thread ? WC_HIST_THREAD : WC_HIST_ALL;
	x.o.filter = c.prof.filter;
	h = wc_hist_new(&x.o);
	if (!h) {
		fprintf(stderr, "wcanalyze: out of memory\n");
		return WC_EXIT_BAD_FILE;
	}
	ret = wc_cli_run(&s, &c, wc_hist_consumer(h));
	if (ret < 0) {
		int err = x.json ? wc_hist_write_json(h, s.a, stdout)
				 : wc_hist_write_text(h, s.a, stdout);

		if (err) {
			fprintf(stderr, "wcanalyze: writing the output: %s\n", strerror(-err));
			ret = WC_EXIT_BAD_FILE;
		} else {
			s.counts_shown = true; /* lost events and edge cases are in the output */
			warn_missing(s.a, x.o.kind);
		}
	}
	ret = wc_cli_end(&s, ret);
	wc_hist_free(h);
	return ret;
}
