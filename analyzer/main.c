/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wcanalyze - replay a wcrec trace into off-CPU intervals and a wall-clock profile.
 * See man/wcanalyze.1.  Exit status: 0; 1 the file cannot be read or is corrupt, or the
 * analysis failed; 2 a bad option; 3 the output is complete up to where the file was cut.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/analysis.h"
#include "analyzer/info.h"
#include "analyzer/profile.h"
#include "analyzer/symbolize.h"

#define MAX_IDS 4096
#define MAX_DEBUG_DIRS 16

enum { EXIT_BAD_FILE = 1, EXIT_USAGE = 2, EXIT_TRUNCATED = 3 };

static const char usage[] =
	"usage: wcanalyze info FILE          what the trace holds (also: wcanalyze FILE)\n"
	"       wcanalyze folded [options] FILE   folded stacks of the wall-clock profile\n"
	"options of folded:\n"
	"  -p PID[,...]  -t TID[,...]  --comm NAME    threads to keep\n"
	"  --all-tasks            all threads, not only the recording's COMMAND or -p target\n"
	"  --time START,END       seconds from the recording's start (either may be empty)\n"
	"  --state S,D,R,...      off-CPU intervals with these switch-out states only\n"
	"  -m, --min-block US     off-CPU intervals at least this long\n"
	"  -M, --max-block US     off-CPU intervals at most this long\n"
	"  --mode off|on|wall     off-CPU, on-CPU, or both (default wall)\n"
	"  -U, --user-stacks-only  -K, --kernel-stacks-only\n"
	"  --per-thread           key stacks by comm-tid instead of comm\n"
	"  -d, --delimiter        a \"-\" frame between user and kernel frames\n"
	"  --annotate             kernel frames get the _[k] suffix\n"
	"  --unit us|ms|ns        value unit (default us)\n"
	"  --no-calibrate         on-CPU time from sample periods, not from exact run time\n"
	"  --symfs DIR            look for recorded files under DIR\n"
	"  --debug-dir DIR        look for debug files (DIR/.build-id/xx/yyyy.debug) in DIR\n"
	"  -h, --help\n";

static int bad(const char *what, const char *arg)
{
	fprintf(stderr, "wcanalyze: %s: %s (see wcanalyze --help)\n", what, arg);
	return EXIT_USAGE;
}

/* "1,2,3" into ids[]; return the count or -1. */
static int parse_ids(const char *s, uint32_t *ids, int max)
{
	int n = 0;

	while (*s) {
		char *end;
		unsigned long v = strtoul(s, &end, 10);

		if (end == s || v > UINT32_MAX || n == max || *s == '-')
			return -1;
		ids[n++] = (uint32_t)v;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return n;
}

static int parse_double(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return end != s && *end == 0 && *v >= 0 ? 0 : -1;
}

/* The end of an analysis: a warning and exit 3 for a cut file, exit 1 for a damaged one. */
static int file_status(const struct wc_analysis *a)
{
	const struct wc_replay_stats *st = wc_replay_stats(a->replay);

	switch (st->state) {
	case WC_READER_CLEAN:
		return 0;
	case WC_READER_TRUNCATED:
		fprintf(stderr,
			"wcanalyze: warning: %s: the trace is cut at byte %llu (%s): analysed up to "
			"there\n",
			a->path, (unsigned long long)st->error_offset, wc_replay_error(a->replay));
		return EXIT_TRUNCATED;
	default:
		fprintf(stderr, "wcanalyze: %s\n", wc_replay_error(a->replay));
		return EXIT_BAD_FILE;
	}
}

static int cmd_info(int argc, char **argv)
{
	struct wc_analysis a;
	int err, ret;

	if (argc != 1)
		return bad("info takes one FILE", argc ? argv[1] : "none");
	if (wc_analysis_open(&a, argv[0])) {
		fprintf(stderr, "wcanalyze: %s\n", a.error);
		return EXIT_BAD_FILE;
	}
	err = wc_analysis_run(&a, NULL);
	if (err) {
		fprintf(stderr, "wcanalyze: %s\n", a.error[0] ? a.error : strerror(-err));
		wc_analysis_close(&a);
		return EXIT_BAD_FILE;
	}
	ret = wc_info_write(&a, stdout) ? EXIT_BAD_FILE : 0;
	if (!ret)
		ret = file_status(&a);
	wc_analysis_close(&a);
	return ret;
}

static int cmd_folded(int argc, char **argv)
{
	enum {
		O_COMM = 256, O_TIME, O_STATE, O_MODE, O_PER_THREAD, O_ANNOTATE, O_UNIT,
		O_NO_CALIBRATE, O_SYMFS, O_DEBUG_DIR, O_ALL_TASKS
	};
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "comm", required_argument, NULL, O_COMM },
		{ "all-tasks", no_argument, NULL, O_ALL_TASKS },
		{ "time", required_argument, NULL, O_TIME },
		{ "state", required_argument, NULL, O_STATE },
		{ "min-block", required_argument, NULL, 'm' },
		{ "max-block", required_argument, NULL, 'M' },
		{ "mode", required_argument, NULL, O_MODE },
		{ "user-stacks-only", no_argument, NULL, 'U' },
		{ "kernel-stacks-only", no_argument, NULL, 'K' },
		{ "per-thread", no_argument, NULL, O_PER_THREAD },
		{ "delimiter", no_argument, NULL, 'd' },
		{ "annotate", no_argument, NULL, O_ANNOTATE },
		{ "unit", required_argument, NULL, O_UNIT },
		{ "no-calibrate", no_argument, NULL, O_NO_CALIBRATE },
		{ "symfs", required_argument, NULL, O_SYMFS },
		{ "debug-dir", required_argument, NULL, O_DEBUG_DIR },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static uint32_t pids[MAX_IDS], tids[MAX_IDS];
	const char *debug_dirs[MAX_DEBUG_DIRS];
	struct wc_symbol_paths paths = { .debug_dirs = debug_dirs };
	struct wc_profile_opts o = { 0 };
	char states[64] = "";
	struct wc_profile *p = NULL;
	struct wc_symbolizer *sym = NULL;
	struct wc_analysis a;
	double v;
	int c, n, err, ret = EXIT_BAD_FILE;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:t:m:M:UKdh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if ((n = parse_ids(optarg, pids, MAX_IDS)) <= 0)
				return bad("bad PID list", optarg);
			o.filter.pids = pids;
			o.filter.npids = (size_t)n;
			break;
		case 't':
			if ((n = parse_ids(optarg, tids, MAX_IDS)) <= 0)
				return bad("bad TID list", optarg);
			o.filter.tids = tids;
			o.filter.ntids = (size_t)n;
			break;
		case O_COMM:
			o.filter.comm = optarg;
			break;
		case O_ALL_TASKS:
			o.filter.all_tasks = true;
			break;
		case O_TIME: {
			char *comma = strchr(optarg, ',');
			char start[64] = "", end[64] = "";

			if (!comma || comma - optarg >= 64 || strlen(comma + 1) >= 64)
				return bad("--time wants START,END in seconds", optarg);
			memcpy(start, optarg, (size_t)(comma - optarg));
			strcpy(end, comma + 1);
			o.filter.have_time = true;
			if ((start[0] && parse_double(start, &o.filter.start_s)) ||
			    (end[0] && parse_double(end, &o.filter.end_s)) ||
			    (end[0] && o.filter.end_s <= o.filter.start_s))
				return bad("--time wants START,END in seconds, START < END", optarg);
			break;
		}
		case O_STATE:
			n = 0;
			for (const char *s = optarg; *s; s++) {
				if (*s == ',')
					continue;
				if ((s[1] && s[1] != ',') || n == 63 || !((*s >= 'A' && *s <= 'Z') ||
									  (*s >= 'a' && *s <= 'z')))
					return bad("--state wants letters such as S,D,R", optarg);
				states[n++] = *s;
			}
			if (!n)
				return bad("--state wants letters such as S,D,R", optarg);
			o.filter.states = states;
			break;
		case 'm':
		case 'M':
			if (parse_double(optarg, &v))
				return bad(c == 'm' ? "bad --min-block" : "bad --max-block", optarg);
			if (c == 'm')
				o.filter.min_block_ns = (uint64_t)(v * 1000);
			else
				o.filter.max_block_ns = (uint64_t)(v * 1000);
			break;
		case O_MODE:
			if (!strcmp(optarg, "wall"))
				o.mode = WC_MODE_WALL;
			else if (!strcmp(optarg, "off"))
				o.mode = WC_MODE_OFF;
			else if (!strcmp(optarg, "on"))
				o.mode = WC_MODE_ON;
			else
				return bad("--mode is off, on or wall", optarg);
			break;
		case 'U':
			o.user_only = true;
			break;
		case 'K':
			o.kernel_only = true;
			break;
		case O_PER_THREAD:
			o.per_thread = true;
			break;
		case 'd':
			o.delimiter = true;
			break;
		case O_ANNOTATE:
			o.annotate = true;
			break;
		case O_UNIT:
			if (!strcmp(optarg, "us"))
				o.unit = WC_UNIT_US;
			else if (!strcmp(optarg, "ms"))
				o.unit = WC_UNIT_MS;
			else if (!strcmp(optarg, "ns"))
				o.unit = WC_UNIT_NS;
			else
				return bad("--unit is us, ms or ns", optarg);
			break;
		case O_NO_CALIBRATE:
			o.no_calibrate = true;
			break;
		case O_SYMFS:
			paths.symfs = optarg;
			break;
		case O_DEBUG_DIR:
			if (paths.ndebug_dirs == MAX_DEBUG_DIRS)
				return bad("too many --debug-dir", optarg);
			debug_dirs[paths.ndebug_dirs++] = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			return EXIT_USAGE;
		}
	}
	if (o.user_only && o.kernel_only)
		return bad("-U and -K exclude each other", "-U -K");
	if (o.filter.max_block_ns && o.filter.max_block_ns < o.filter.min_block_ns)
		return bad("--max-block is below --min-block", "");
	if (argc - optind != 1)
		return bad("folded takes one FILE", argc - optind ? argv[optind + 1] : "none");
	if (wc_analysis_open(&a, argv[optind])) {
		fprintf(stderr, "wcanalyze: %s\n", a.error);
		return EXIT_BAD_FILE;
	}
	p = wc_profile_new(&o);
	if (!p) {
		fprintf(stderr, "wcanalyze: out of memory\n");
		goto out;
	}
	err = wc_analysis_run(&a, wc_profile_consumer(p));
	if (err) {
		fprintf(stderr, "wcanalyze: %s\n", a.error[0] ? a.error : strerror(-err));
		goto out;
	}
	if (wc_replay_stats(a.replay)->state != WC_READER_CLEAN &&
	    wc_replay_stats(a.replay)->state != WC_READER_TRUNCATED) {
		ret = file_status(&a);
		goto out;
	}
	const struct wc_replay_meta *m = wc_replay_meta(a.replay);

	sym = wc_symbolizer_new(&a.tasks, m->kallsyms, m->kallsyms_len, &paths);
	if (!sym) {
		fprintf(stderr, "wcanalyze: out of memory\n");
		goto out;
	}
	err = wc_profile_write_folded(p, &a, sym, stdout);
	if (err) {
		fprintf(stderr, "wcanalyze: writing the output: %s\n", strerror(-err));
		goto out;
	}
	wc_symbolizer_warn(sym, stderr, "wcanalyze: warning");
	wc_info_warn_counts(&a, stderr);
	ret = file_status(&a);
out:
	wc_symbolizer_free(sym);
	wc_profile_free(p);
	wc_analysis_close(&a);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return bad("no subcommand or FILE", "none");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "info"))
		return cmd_info(argc - 2, argv + 2);
	if (!strcmp(argv[1], "folded"))
		return cmd_folded(argc - 1, argv + 1);
	if (argc == 2 && argv[1][0] != '-')
		return cmd_info(1, argv + 1);
	return bad("unknown subcommand", argv[1]);
}
