/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd-export.c - `wcanalyze export`: the wall-clock profile for speedscope or pprof, or the
 * threads' timelines as Chrome trace-event JSON for Perfetto UI and chrome://tracing
 * (export.h, output.h, man/wcanalyze-export.1).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/cli/cli.h"
#include "analyzer/cli/outfile.h"
#include "analyzer/output/export.h"
#include "analyzer/output/output.h"
#include "analyzer/reports/profile.h"

/* Above this many slices, Perfetto UI and chrome://tracing get slow: say so. */
#define MANY_SLICES 1000000
/*
 * Above this many bytes of JSON, a browser does not load it: chrome://tracing reads at most
 * 256 MiB (catapult's trace-viewer, issue 627: one JavaScript string), and Perfetto UI, which
 * runs in the page's memory too, crashed on a 900 MB JSON trace (perfetto issue 99).  Past
 * it the warning says which window would fit.
 */
#define BROWSER_MAX_BYTES (256ull << 20)
#define BROWSER_FIT	  0.75 /* of BROWSER_MAX_BYTES: the window suggested, with room to spare */

enum { O_FORMAT = 512, O_FLEET };

/* The usage's head; then a line per row of the output table (output.h), then usage[]. */
static const char usage_head[] =
	"usage: wcanalyze export --format FORMAT [-o FILE] [options] FILE...\n";
static const char usage[] =
	"  --format chrome        per-thread timelines of runs and off-CPU intervals, as Chrome\n"
	"                         trace-event JSON for Perfetto UI and chrome://tracing\n"
	"  -o, --output FILE      write to FILE (default: stdout; \"-\" is stdout)\n"
	"  -p PID[,...]  -t TID[,...]  --comm NAME    threads to keep\n"
	"  --all-tasks            all threads, not only the recording's COMMAND or -p target\n"
	"  --time START,END       seconds from the recording's start (either may be empty)\n"
	"  --state S,D,R,...      off-CPU intervals with these switch-out states only\n"
	"  -m, --min-block US     off-CPU intervals at least this long\n"
	"  -M, --max-block US     off-CPU intervals at most this long\n"
	"  -U, --user-stacks-only  -K, --kernel-stacks-only\n"
	"  --annotate             kernel frames get the _[k] suffix\n"
	"  --per-thread           key the folded lines by comm-TID (chrome, speedscope: always)\n"
	"  profile formats (all but chrome) only:\n"
	"  --mode off|on|wall     off-CPU, on-CPU, or both (default wall)\n"
	"  -d, --delimiter        a \"-\" frame between user and kernel frames\n"
	"  --unit us|ms|ns        weight unit (default us; pprof: always ns)\n"
	"  --no-calibrate         on-CPU time from sample periods, not from exact run time\n"
	"  --fleet                pprof: no pid and tid labels (one series per comm and state)\n"
	"  --per-file             with several files, stacks keyed by file name first\n" WC_CLI_HELP_SYMBOLS
		WC_CLI_HELP_MEMORY;

struct args {
	bool chrome;
	const struct wc_output_ops *ops; /* a profile format */
	const char *output;
	bool fleet;
};

/* "--format is folded, svg, speedscope or chrome": the rows of the output table, and chrome. */
static const char *formats(void)
{
	static char buf[512];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "--format is");

	for (size_t i = 0; wc_outputs[i] && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " %s,", wc_outputs[i]->name);
	if (n < sizeof(buf))
		snprintf(buf + n - 1, sizeof(buf) - n + 1, " or chrome");
	return buf;
}

static int handle(void *ctx, int opt, const char *arg)
{
	struct args *x = ctx;

	if (opt == 'o') {
		x->output = arg;
		return 0;
	}
	if (opt == O_FLEET) {
		x->fleet = true;
		return 0;
	}
	x->chrome = !strcmp(arg, "chrome");
	x->ops = x->chrome ? NULL : wc_output_find(arg);
	if (!x->chrome && !x->ops)
		return wc_cli_bad(formats(), arg);
	return 0;
}

/* The usage: its head, the rows of the output table, the rest. */
static const char *full_usage(void)
{
	static char buf[4096];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "%s", usage_head);

	for (size_t i = 0; wc_outputs[i] && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "  --format %-14s%s\n",
				      wc_outputs[i]->name, wc_outputs[i]->help);
	if (n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - n, "%s", usage);
	return buf;
}

/* The options of the stacks group that only the speedscope profile has; 0 or exit 2. */
static int chrome_options(const struct wc_profile_opts *o)
{
	const char *bad = o->mode != WC_MODE_WALL ? "--mode"
			  : o->delimiter	  ? "-d/--delimiter"
			  : o->unit != WC_UNIT_US ? "--unit"
			  : o->no_calibrate	  ? "--no-calibrate"
						  : NULL;

	return bad ? wc_cli_bad("this option is for --format speedscope only", bad) : 0;
}

/* @o set for the wishes of output row @ops. */
static void row_options(struct wc_profile_opts *o, const struct wc_output_ops *ops)
{
	o->per_thread = o->per_thread || ops->per_thread; /* speedscope: a profile per thread */
	o->annotate = o->annotate || (ops->annotate && !o->user_only);
	o->split_threads = ops->split; /* pprof: a thread's pid and tid labels */
	if (ops->ns)
		o->unit = WC_UNIT_NS;
}

/* The profile of several files (wc_cli_profile_files()) in format @ops on @out; *@written:
 * whether the document was written whole.  Return: -1 (all read), or the exit status. */
static int profile_files(struct wc_cli *c, const struct args *x, FILE *out, bool *empty,
			 bool *written)
{
	struct wc_out_args args = { .out = out, .fleet = x->fleet };
	struct wc_out_result res = { 0 };
	int ret;

	row_options(&c->prof, x->ops);
	ret = wc_cli_profile_files(c, false, x->ops, &args, &res, written);
	*empty = *written && !res.lines;
	return *written && ret == WC_EXIT_OK ? -1 : ret;
}

/* The profile in format @ops (a row of the output table) on @out. */
static int profile(struct wc_cli *c, struct wc_cli_session *s, const struct args *x, FILE *out,
		   bool *empty)
{
	const struct wc_output_ops *ops = x->ops;
	struct wc_profile_opts o = c->prof;
	struct wc_out_args args = { .out = out, .file = c->file, .prof = &o, .fleet = x->fleet };
	struct wc_out_result res = { 0 };
	struct wc_profile *p;
	int ret;

	row_options(&o, ops);
	p = wc_profile_new(&o);
	if (!p) {
		fprintf(stderr, "wcanalyze: out of memory\n");
		return WC_EXIT_BAD_FILE;
	}
	ret = wc_cli_run(s, c, wc_profile_consumer(p));
	if (ret < 0) {
		int err;

		args.a = s->a; /* opened by wc_cli_run() */
		err = wc_output_run(ops, &args, p, s->sym, &res);

		if (err) {
			fprintf(stderr, "wcanalyze: writing the output: %s\n", strerror(-err));
			ret = WC_EXIT_BAD_FILE;
		} else {
			wc_cli_profile_notes(s, p, c->file, stderr);
		}
		*empty = !res.lines;
	}
	wc_profile_free(p);
	return ret;
}

/*
 * After the chrome export @ch of @bytes (0: unknown, the output not a regular file): warn
 * when a browser will not load it, with a --time window from the export's start that holds
 * BROWSER_FIT of the limit (its slices counted by time, at the export's bytes a slice), or,
 * the size unknown, when the slices are many.
 */
static void warn_size(const struct wc_cli *c, const struct wc_cli_session *s,
		      const struct wc_chrome *ch, uint64_t bytes)
{
	const char *v = getenv("WCANALYZE_BROWSER_MAX_BYTES"); /* a test hook */
	uint64_t slices = wc_chrome_slices(ch);
	uint64_t max = v && strtoull(v, NULL, 10) ? strtoull(v, NULL, 10) : BROWSER_MAX_BYTES;
	const struct wc_filter *f = &c->prof.filter;
	double start = 0, end, fit;

	if (!bytes) {
		if (slices > MANY_SLICES)
			fprintf(stderr,
				"wcanalyze: warning: %llu slices: Perfetto UI and chrome://tracing "
				"may be slow to load them or run out of memory; --time START,END "
				"exports a window\n",
				(unsigned long long)slices);
		return;
	}
	if (bytes <= max)
		return;
	end = (double)(wc_analysis_end_ns(s->a) - wc_analysis_facts(s->a)->start_ns) / 1e9;
	if (f->have_time) {
		start = f->start_s;
		if (f->end_s > start && f->end_s < end) /* 0: --time START, (to the end) */
			end = f->end_s;
	}
	/* the slices that fit, at this export's bytes a slice, counted from the window's start */
	fit = wc_chrome_window_end(
		      ch, start, end,
		      (uint64_t)((double)max * BROWSER_FIT * (double)slices / (double)bytes)) -
	      start;
	fprintf(stderr,
		"wcanalyze: warning: %s: %.0f MB of JSON, more than a browser loads "
		"(chrome://tracing reads at most 256 MiB, Perfetto UI fails well before 1 GB); "
		"export a window of "
		"about %.6g s, e.g. --time %.6g,%.6g, or fewer threads (-p, -t, --comm)\n",
		c->file, (double)bytes / 1e6, fit, start, start + fit);
}

/* The chrome export's options, from the shared groups of @c. */
static struct wc_chrome_opts chrome_opts(const struct wc_cli *c)
{
	return (struct wc_chrome_opts){
		.filter = c->prof.filter,
		.user_only = c->prof.user_only,
		.kernel_only = c->prof.kernel_only,
		.annotate = c->prof.annotate,
	};
}

static int chrome(struct wc_cli *c, struct wc_cli_session *s, FILE *out, bool *empty)
{
	struct wc_chrome_opts o = chrome_opts(c);
	struct wc_chrome *ch = wc_chrome_new(&o, out);
	int ret;

	if (!ch) {
		fprintf(stderr, "wcanalyze: out of memory\n");
		return WC_EXIT_BAD_FILE;
	}
	ret = wc_cli_run(s, c, wc_chrome_consumer(ch));
	if (ret < 0) {
		int err = wc_chrome_finish(ch);

		if (err) {
			fprintf(stderr, "wcanalyze: writing the output: %s\n", strerror(-err));
			ret = WC_EXIT_BAD_FILE;
		}
		if (!err) {
			struct stat sb;
			off_t size;

			fflush(out);
			size = !fstat(fileno(out), &sb) && S_ISREG(sb.st_mode) ? ftello(out) : -1;
			warn_size(c, s, ch, size > 0 ? (uint64_t)size : 0);
		}
		*empty = !wc_chrome_slices(ch);
	}
	wc_chrome_free(ch);
	return ret;
}

/*
 * The timelines of several FILEs in one chrome document, each file replayed in turn (its own
 * --time window), placed after the first by their wall clocks; with --per-file, each file's
 * threads apart (pids and tids raised by 10,000,000 a file: Linux's pid_max is at most 2^22)
 * and its processes named after it; *@written: whether the document was written whole.
 * Return: -1 when all were read, else the exit status.
 */
static int chrome_files(struct wc_cli *c, FILE *out, bool *empty, bool *written)
{
	struct wc_chrome_opts o = chrome_opts(c);
	struct wc_chrome *ch = wc_chrome_new(&o, out);
	int worst = WC_EXIT_OK, err = ch ? 0 : -ENOMEM;
	char label[256];

	for (int i = 0; i < c->nfiles && !err; i++) {
		struct wc_cli_session s = { 0 };
		int ret;

		c->file = c->files[i];
		err = wc_chrome_next_file(
			ch, c->per_file ? (uint32_t)i * 10000000u : 0,
			c->per_file ? wc_cli_file_label(c, i, label, sizeof(label)) : NULL);
		if (err)
			break;
		ret = wc_cli_run(&s, c, wc_chrome_consumer(ch));
		if (ret < 0)
			err = wc_chrome_next_file(ch, 0, NULL); /* its names, while s.a lives */
		worst = wc_cli_worse(worst, wc_cli_end(&s, ret));
	}
	c->file = c->files[0];
	if (!err)
		err = wc_chrome_finish(ch);
	if (!err && wc_chrome_misplaced(ch))
		fprintf(stderr,
			"wcanalyze: warning: %llu of the files began before the first or have no "
			"wall clock: put at its start (give the files in time order)\n",
			(unsigned long long)wc_chrome_misplaced(ch));
	*empty = ch && !wc_chrome_slices(ch);
	*written = !err;
	wc_chrome_free(ch);
	if (err) {
		fprintf(stderr, "wcanalyze: writing the output: %s\n", strerror(-err));
		return WC_EXIT_BAD_FILE;
	}
	return worst == WC_EXIT_OK ? -1 : worst;
}

int wc_cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, O_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "fleet", no_argument, NULL, O_FLEET },
		{ NULL, 0, NULL, 0 },
	};
	struct args x = { 0 };
	const struct wc_cli_extra extra = { longopts, "o:", handle, &x };
	struct wc_cli_session s = { 0 };
	struct wc_outfile out;
	bool empty = false, written = false;
	struct wc_cli c;
	int ret = wc_cli_parse(&c, argc, argv, WC_CLI_PROFILE | WC_CLI_FILES | WC_CLI_PER_FILE,
			       &extra, full_usage());
	int err;

	if (ret >= 0)
		return ret;
	if (!x.chrome && !x.ops) {
		fprintf(stderr, "wcanalyze: export: --format speedscope, pprof or chrome is "
				"needed (see wcanalyze export --help)\n");
		return WC_EXIT_USAGE;
	}
	if (x.chrome && (ret = chrome_options(&c.prof)) != 0)
		return ret;
	if (x.ops == &wc_output_pprof && c.prof.unit != WC_UNIT_US)
		return wc_cli_bad("not with --format pprof, whose values are nanoseconds",
				  "--unit");
	if (x.fleet && x.ops != &wc_output_pprof)
		return wc_cli_bad("this option is for --format pprof only", "--fleet");
	ret = wc_cli_output_ok(x.output);
	if (ret)
		return ret;
	if (x.ops == &wc_output_pprof && (!x.output || !strcmp(x.output, "-")) &&
	    isatty(STDOUT_FILENO)) { /* as gzip does */
		fprintf(stderr, "wcanalyze: export: --format pprof writes gzip data, not for a "
				"terminal: -o FILE, or a pipe\n");
		return WC_EXIT_USAGE;
	}
	err = wc_outfile_open(&out, x.output);
	if (err) {
		fprintf(stderr, "wcanalyze: %s: %s\n", x.output, strerror(-err));
		return WC_EXIT_BAD_FILE;
	}
	if (x.ops && (c.nfiles > 1 || c.per_file))
		ret = profile_files(&c, &x, out.f, &empty, &written);
	else if (c.nfiles > 1 || c.per_file)
		ret = chrome_files(&c, out.f, &empty, &written);
	else
		ret = x.ops ? profile(&c, &s, &x, out.f, &empty) : chrome(&c, &s, out.f, &empty);
	if (ret < 0 && empty)
		fprintf(stderr,
			"wcanalyze: warning: %s: nothing to export: no run, interval or "
			"sample passed the filters\n",
			c.nfiles > 1 ? "the FILEs" : c.file);
	ret = wc_cli_end(&s, ret);
	/* several files: the others' document is kept when one could not be read */
	written = written || ret == WC_EXIT_OK || ret == WC_EXIT_TRUNCATED;
	err = wc_outfile_close(&out, written);
	if (err && written) {
		fprintf(stderr, "wcanalyze: %s: %s\n", x.output ? x.output : "stdout",
			strerror(-err));
		ret = WC_EXIT_BAD_FILE;
	}
	return ret;
}
