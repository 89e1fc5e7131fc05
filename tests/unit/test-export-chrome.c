/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-export-chrome.c - `wcanalyze export --format chrome` (export-chrome.c) over the
 * hand-built trace of export-trace.h: the trace-event document text for text, each value
 * worked out by hand below; then the documents through the trace-event structure check of
 * testdata/export/check-chrome.py with /usr/bin/python3 (skipped with the reason when it is
 * not there); then the command (cmd-export.c, both formats): its options, output file and
 * exit statuses.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/core/analysis.h"
#include "analyzer/cli/cli.h"
#include "analyzer/output/export.h"
#include "export-trace.h"
#include "trace-util.h"

TestSuite(chrome, .init = et_init, .fini = et_fini);
TestSuite(validate, .init = et_init, .fini = et_fini);
TestSuite(export_cmd, .init = et_init, .fini = et_fini);

/* The Chrome document of the trace with @o; its slice count in *@nslices. */
static char *chrome_text(const struct wc_chrome_opts *o, uint64_t *nslices)
{
	char oerr[256]; /* why wc_analysis_open() failed */
	struct wc_analysis *an;
	struct wc_chrome *c;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	c = wc_chrome_new(o, f);
	cr_assert_not_null(c);
	an = wc_analysis_open(et_tr.path, oerr, sizeof(oerr));
	cr_assert_not_null(an, "%s", oerr);
	cr_assert_eq(wc_analysis_run(an, wc_chrome_consumer(c)), 0, "%s", wc_analysis_error(an));
	cr_assert_eq(wc_chrome_finish(c), 0);
	if (nslices)
		*nslices = wc_chrome_slices(c);
	wc_chrome_free(c);
	wc_analysis_close(an);
	fclose(f);
	return text;
}

/* The events part of a document: up to the end of traceEvents (the rest names the file). */
static char *events_of(char *doc)
{
	char *end = strstr(doc, "\n],\n\"otherData\":{");

	cr_assert_not_null(end, "no end of traceEvents in:\n%s", doc);
	end[2] = 0;
	return doc;
}

#define RUN(ts, dur, tid, cpu)                                                                     \
	"{\"ph\":\"X\",\"ts\":" ts ",\"dur\":" dur ",\"pid\":100,\"tid\":" tid                     \
	",\"name\":\"Running\",\"cat\":\"on-cpu\",\"args\":{\"cpu\":" cpu "}}"
#define OFF(ts, dur, tid, name, args)                                                              \
	"{\"ph\":\"X\",\"ts\":" ts ",\"dur\":" dur ",\"pid\":100,\"tid\":" tid ",\"name\":\"" name \
	"\",\"cat\":\"off-cpu\",\"args\":{" args "}}"
#define META(what, tid, name)                                                                      \
	"{\"ph\":\"M\",\"name\":\"" what "\",\"pid\":100,\"tid\":" tid                             \
	",\"args\":{\"name\":\"" name "\"}}"
#define K1J   "[\"__schedule\"]"
#define K2J   "[\"__schedule\",\"schedule\"]"
#define K3J   "[\"__schedule\",\"schedule\",\"do_poll\"]"
#define WKJ   "[\"do_poll\",\"entry_SYSCALL_64\",\"[unknown]\"]"
#define WAKER "\"waker_tid\":300,\"waker\":\"waker\""
#define NAMES                                                                                      \
	META("process_name", "100", "app")                                                         \
	",\n" META("thread_name", "100", "app") ",\n" META(                                        \
		"thread_name", "101", "worker") ",\n" META("thread_name", "102", "worker")

/*
 * All of it, in the order the replay closes runs (at the switch-out) and intervals (at the
 * switch-in); ts from 1.0 ms, in us:
 *   B ran 2.0-2.5 on CPU 1; A ran 1.0-3.0 on CPU 0; A preempted 3.0-3.25 (stack K2, back on
 *   CPU 0); B's S interval: blocked 2.5-3.2 (K1, woken by W with WK), runnable 3.2-3.3 (the
 *   stacks on the first slice only); B ran 3.3-3.6; A ran 3.25-4.0; B's D interval: 3.6-4.1
 *   (K3), runnable 4.1-4.4; N's wait for its first run 4.5-4.7, woken new by W with no
 *   stack, no blocked part; N ran 4.7-4.9; B ran 4.4-5.0.
 * Then the names of the threads with slices, in the order the replay met them, and the
 * process's, that of its leader A.
 */
Test(chrome, all_slices)
{
	struct wc_chrome_opts o = { 0 };
	uint64_t n = 0;
	char *got;

	et_write_trace(0);
	got = events_of(chrome_text(&o, &n));
	cr_expect_str_eq(got,
			 "{\"traceEvents\":[\n" RUN("1000.000", "500.000", "101", "1") ",\n" RUN(
				 "0.000", "2000.000", "100", "0") ",\n" OFF("2000.000", "250.000",
									    "100", "Preempted R",
									    "\"state\":\"R\",\"stack\":" K2J ",\"cpu\":0") ",\n" OFF("1500.000", "700.000", "101", "Sleeping S", "\"state\":\"S\",\"stack\":" K1J "," WAKER ",\"waker_stack\":" WKJ) ",\n" OFF("2200.000", "100.000", "101", "Runnable", "\"state\":\"S\"," WAKER ",\"cpu\":1") ",\n" RUN("2300.000", "300.000", "101", "1") ",\n" RUN("2250.000", "750.000", "100", "0") ",\n" OFF("2600.000",
																																																						    "500.000",
																																																						    "101",
																																																						    "Uninterruptible D",
																																																						    "\"state\":\"D\",\"stack\":" K3J
																																																						    "," WAKER ",\"waker_stack\":" WKJ) ",\n" OFF("3100.000",
																																																												 "300.000",
																																																												 "101",
																																																												 "Runnable",
																																																												 "\"state\":\"D\"," WAKER ",\"cpu\":1") ",\n" OFF("3500.000", "200.000", "102", "Runnable", "\"state\":\"R\"," WAKER ",\"cpu\":0") ",\n" RUN("3700.000",
																																																																													     "200.000",
																																																																													     "102",
																																																																													     "0") ",\n" RUN("3400.000",
																																																																															    "600.000",
																																																																															    "101",
																																																																															    "1") ",\n" NAMES
																																																																																 "\n]",
			 "got:\n%s", got);
	cr_expect_eq(n, 12);
	free(got);
}

/*
 * otherData: the trace, the host and kernel of the HOST record, and ts 0 on the wall clock:
 * the CLOCK record pairs clock 1 ns with 1700000000.000000000 s (2023-11-14 22:13:20 UTC),
 * so the first event, at 1000000 ns, is 999999 ns later: .000999 in us.
 */
Test(chrome, other_data)
{
	struct wc_chrome_opts o = { 0 };
	char *got, want[512];

	et_write_trace(0);
	got = chrome_text(&o, NULL);
	snprintf(want, sizeof(want),
		 "\n],\n\"otherData\":{\"exporter\":\"wcanalyze " PACKAGE_VERSION "\","
		 "\"trace\":\"%s\",\"host\":\"testhost\",\"kernel\":\"6.18.44\","
		 "\"ts_zero_utc\":\"2023-11-14T22:13:20.000999Z\","
		 "\"ts_unit\":\"microseconds from the recording's first event\"}}\n",
		 et_tr.path);
	cr_expect(strstr(got, want) != NULL, "got:\n%s\nwanted the end:\n%s", got, want);
	cr_expect_eq(strlen(strstr(got, "\n],\n\"otherData\"")), strlen(want));
	free(got);
}

/*
 * --time 0.0025,0.0035: the window 3.5-4.5 ms, ts still from 1.0 ms.  Cut to it: B's run
 * 3.3-3.6 to 3.5-3.6; A's run 3.25-4.0 to 3.5-4.0; B's D interval whole (3.6-4.1, 4.1-4.4);
 * B's last run 4.4-5.0 to 4.4-4.5.  N's wait 4.5-4.7 has nothing left inside; the rest is
 * before 3.5.  Only A and B have slices, so only they are named.
 */
Test(chrome, time_window)
{
	struct wc_chrome_opts o = {
		.filter = { .have_time = true, .start_s = 0.0025, .end_s = 0.0035 }
	};
	uint64_t n = 0;
	char *got;

	et_write_trace(0);
	got = events_of(chrome_text(&o, &n));
	cr_expect_str_eq(
		got,
		"{\"traceEvents\":[\n" RUN("2500.000", "100.000", "101", "1") ",\n" RUN("2500.000", "500.000", "100", "0") ",\n" OFF(
			"2600.000", "500.000", "101", "Uninterruptible D",
			"\"state\":\"D\",\"stack\":" K3J "," WAKER
			",\"waker_stack\":" WKJ) ",\n" OFF("3100.000", "300.000", "101", "Runnable",
							   "\"state\":\"D\"," WAKER
							   ",\"cpu\":1") ",\n" RUN("3400.000",
										   "100.000", "101",
										   "1") ",\n" META("process_name",
												   "100",
												   "app") ",\n" META("thread_name",
														     "100",
														     "app") ",\n" META("thread_name",
																       "101",
																       "worker") "\n]",
		"got:\n%s", got);
	cr_expect_eq(n, 5);
	free(got);
}

/*
 * The off-CPU filters choose intervals, never runs (6 runs: A 2, B 3, N 1):
 *   --state D: B's D interval, 2 slices: 8;
 *   -m 600 us: the intervals of 600 us or more, B's S (800) and D (800), 4 slices: 10;
 *   -M 250 us: A's preempted 250 and N's wait 200, 1 slice each: 8;
 *   -t 102: N only, its wait and its run: 2, named with its process (leader A's name).
 */
Test(chrome, filters)
{
	static const uint32_t tids[] = { N };
	struct wc_chrome_opts o = { .filter = { .states = "D" } };
	uint64_t n = 0;
	char *got;

	et_write_trace(0);
	got = chrome_text(&o, &n);
	cr_expect_eq(n, 8);
	cr_expect(strstr(got, "Sleeping") == NULL && strstr(got, "Preempted") == NULL);
	free(got);
	o = (struct wc_chrome_opts){ .filter = { .min_block_ns = 600000 } };
	free(chrome_text(&o, &n));
	cr_expect_eq(n, 10);
	o = (struct wc_chrome_opts){ .filter = { .max_block_ns = 250000 } };
	free(chrome_text(&o, &n));
	cr_expect_eq(n, 8);
	o = (struct wc_chrome_opts){ .filter = { .tids = tids, .ntids = 1 } };
	got = events_of(chrome_text(&o, &n));
	cr_expect_str_eq(
		got,
		"{\"traceEvents\":[\n" OFF(
			"3500.000", "200.000", "102", "Runnable",
			"\"state\":\"R\"," WAKER
			",\"cpu\":0") ",\n" RUN("3700.000", "200.000", "102",
						"0") ",\n" META("process_name", "100",
								"app") ",\n" META("thread_name",
										  "102",
										  "worker") "\n]",
		"got:\n%s", got);
	free(got);
}

/* -K leaves the user frames out of the stacks, -U the kernel frames; --annotate marks the
 * kernel frames _[k] as folded does. */
Test(chrome, stack_frames)
{
	struct wc_chrome_opts o = { .kernel_only = true };
	char *got;

	et_write_trace(0);
	got = chrome_text(&o, NULL);
	cr_expect(strstr(got, "\"waker_stack\":[\"do_poll\",\"entry_SYSCALL_64\"]}") != NULL,
		  "got:\n%s", got);
	cr_expect(strstr(got, "[unknown]") == NULL);
	free(got);
	o = (struct wc_chrome_opts){ .user_only = true };
	got = chrome_text(&o, NULL);
	cr_expect(strstr(got, "\"stack\":[]," WAKER ",\"waker_stack\":[\"[unknown]\"]}") != NULL,
		  "got:\n%s", got);
	cr_expect(strstr(got, "schedule") == NULL);
	free(got);
	o = (struct wc_chrome_opts){ .annotate = true };
	got = chrome_text(&o, NULL);
	cr_expect(strstr(got, "\"stack\":[\"__schedule_[k]\",\"schedule_[k]\"]") != NULL,
		  "got:\n%s", got);
	cr_expect(strstr(got, "\"[unknown]\"]") != NULL); /* user frames are not marked */
	free(got);
}

/*
 * Durations that add up in floating point: A in at 1.0 ms (ts 0), out S at ts 1749.005 us,
 * woken at 1755.676, in at 1800, out S at 2000.  As doubles (Python: 1749.005 + 6.671 >
 * 1755.676), the decimal duration of the sleep would end after the next slice's start, so
 * it is written as 1755.676 - 1749.005 in doubles, 6.670999999999822, whose sum with
 * 1749.005 is 1755.676 exactly; the others add up as decimals (Python: 0 + 1749.005 ==
 * 1749.005, 1755.676 + 44.324 == 1800.0).
 */
static void write_fp_trace(void)
{
	st_comm(&et_tr, 1 * MS, A, A, "app");
	st_switch(&et_tr, 1 * MS, 0, 0, "swapper/0", 0, A, "app", 0);
	st_switch(&et_tr, 2749005, 0, A, "app", ST_S, 0, "swapper/0", 0);
	st_wake(&et_tr, 2755676, 1, W, A, "app", 0, 0);
	st_switch(&et_tr, 2800000, 0, 0, "swapper/0", 0, A, "app", 0);
	st_switch(&et_tr, 3 * MS, 0, A, "app", ST_S, 0, "swapper/0", 0);
	st_round(&et_tr);
	cr_assert_eq(st_end(&et_tr, true, 4 * MS), 0);
}

#define FP_EVENTS                                                                                                                                                                                           \
	"{\"traceEvents\":[\n" RUN("0.000", "1749.005", "100", "0") ",\n" OFF("1749.005", "6.670999999999822", "100", "Sleeping S", "\"state\":\"S\",\"waker_tid\":300,\"waker\":\"[unknown]\"") ",\n" OFF( \
		"1755.676", "44.324", "100", "Runnable",                                                                                                                                                    \
		"\"state\":\"S\",\"waker_tid\":300,\"waker\":\"[unknown]\",\"cpu\":0") ",\n" RUN("1800.000",                                                                                                \
												 "200.000",                                                                                                 \
												 "100",                                                                                                     \
												 "0") ",\n" META("process_name",                                                                            \
														 "100",                                                                                     \
														 "app") ",\n" META("thread_name",                                                           \
																   "100",                                                                   \
																   "app") "\n]"

Test(chrome, durations_add_up_in_floating_point)
{
	struct wc_chrome_opts o = { 0 };
	char *got;

	write_fp_trace();
	got = events_of(chrome_text(&o, NULL));
	cr_expect_str_eq(got, FP_EVENTS, "got:\n%s", got);
	free(got);
}

/*
 * wc_chrome_window_end() over slices by start time: app runs 1-2 ms, 3-4 ms, ... 19-20 ms
 * (10 runs, the off-CPU interval between two of them a slice too, 19 slices from the first
 * event at 1 ms), and once more 2^50 ns later (some 13 days: a crafted time stamp, whose
 * steps must not take memory by the 10 ms).  The windows hold at most the slices asked for.
 */
Test(chrome, window_end)
{
	char oerr[256]; /* why wc_analysis_open() failed */
	struct wc_chrome_opts o = { 0 };
	struct wc_analysis *an;
	struct wc_chrome *c;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	uint64_t far = 1ull << 50;
	double e;

	st_comm(&et_tr, 1 * MS, A, A, "app");
	for (int i = 0; i < 10; i++) {
		st_switch(&et_tr, (1 + 2 * i) * MS, 0, 0, "swapper/0", 0, A, "app", 0);
		st_switch(&et_tr, (2 + 2 * i) * MS, 0, A, "app", ST_S, 0, "swapper/0", 0);
	}
	st_switch(&et_tr, far, 0, 0, "swapper/0", 0, A, "app", 0);
	st_switch(&et_tr, far + MS, 0, A, "app", ST_S, 0, "swapper/0", 0);
	st_round(&et_tr);
	cr_assert_eq(st_end(&et_tr, true, far + 2 * MS), 0);
	cr_assert_not_null(f);
	c = wc_chrome_new(&o, f);
	cr_assert_not_null(c);
	an = wc_analysis_open(et_tr.path, oerr, sizeof(oerr));
	cr_assert_not_null(an, "%s", oerr);
	cr_assert_eq(wc_analysis_run(an, wc_chrome_consumer(c)), 0, "%s", wc_analysis_error(an));
	cr_assert_eq(wc_chrome_finish(c), 0);
	/* steps of 2^50 / 65536 ns (about 17 s, a power-of-two multiple of 10 ms): the first
	 * holds every slice but the far ones */
	e = wc_chrome_window_end(c, 0, (double)far / 1e9, 5);
	cr_expect_gt(e, 0, "a window after its start: %f", e);
	cr_expect_lt(e, 40, "the first step alone, 17 to 34 s: %f", e);
	e = wc_chrome_window_end(c, 0, (double)far / 1e9, 1000);
	cr_expect_gt(e, (double)far / 1e9, "every slice: past the last: %f", e);
	wc_chrome_free(c);
	wc_analysis_close(an);
	fclose(f);
	free(text);
}

/* No slice: the document still parses, with an empty traceEvents. */
Test(chrome, empty)
{
	static const uint32_t tids[] = { 999 };
	struct wc_chrome_opts o = { .filter = { .tids = tids, .ntids = 1 } };
	uint64_t n = 1;
	char *got;

	et_write_trace(0);
	got = events_of(chrome_text(&o, &n));
	cr_expect_str_eq(got, "{\"traceEvents\":[\n]");
	cr_expect_eq(n, 0);
	free(got);
}

/* ---- through the trace-event structure check ---- */

/*
 * The Chrome documents above through testdata/export/check-chrome.py --tile: well-formed
 * events, names for every thread and process, no overlap, and each thread's slices tiling
 * its time with no gap (worked out in export-trace.h: A 0-3000 us, B 1000-4000, N 3500-3900; in the
 * window, A 2500-3000 and B 2500-3500).  Then two broken ones that must fail it: A's
 * preempted slice 1 us too long (it overlaps A's next run), a thread without its name.
 */
Test(validate, chrome_structure)
{
	struct wc_chrome_opts o = { 0 };
	char out[8192], f1[64], f2[64], bad1[64], bad2[64];
	char *text;

	if (access("/usr/bin/python3", X_OK))
		cr_skip_test("no /usr/bin/python3");
	et_write_trace(0);
	text = chrome_text(&o, NULL);
	et_save(text, f1);
	et_patch(text, "\"dur\":250.000", "\"dur\":251.000");
	et_save(text, bad1);
	et_patch(text, "\"dur\":251.000", "\"dur\":250.000");
	et_patch(text, "\"thread_name\",\"pid\":100,\"tid\":102",
		 "\"thread_name\",\"pid\":100,\"tid\":103");
	et_save(text, bad2);
	free(text);
	o.filter = (struct wc_filter){ .have_time = true, .start_s = 0.0025, .end_s = 0.0035 };
	text = chrome_text(&o, NULL);
	et_save(text, f2);
	free(text);
	cr_expect_eq(et_py(out, "check-chrome.py --tile --summary %s", f1), 0, "%s", out);
	/* per thread: pid tid name running off-CPU span slices gaps first last, in ns */
	cr_expect(strstr(out, "100 100 app 2750000 250000 3000000 3 0 0 3000000\n"
			      "100 101 worker 1400000 1600000 3000000 7 0 1000000 4000000\n"
			      "100 102 worker 200000 200000 400000 2 0 3500000 3900000\n") != NULL,
		  "%s", out);
	cr_expect_eq(et_py(out, "check-chrome.py --tile %s", f2), 0, "%s", out);
	cr_expect_eq(et_py(out, "check-chrome.py %s", bad1), 1, "an overlap passed: %s", out);
	cr_expect(strstr(out, "overlaps") != NULL, "%s", out);
	cr_expect_eq(et_py(out, "check-chrome.py %s", bad2), 1,
		     "a thread without a name passed: %s", out);
	unlink(f1);
	unlink(f2);
	unlink(bad1);
	unlink(bad2);
}

/*
 * The trace of durations_add_up_in_floating_point passes; with the sleep's duration written
 * as the decimal 6.671 (padded to the same length), exact in ns but past the next slice's
 * start as doubles, it fails: viewers would draw the next slice nested in it.
 */
Test(validate, chrome_floating_point)
{
	struct wc_chrome_opts o = { 0 };
	char out[8192], f1[64], bad[64];
	char *text;

	if (access("/usr/bin/python3", X_OK))
		cr_skip_test("no /usr/bin/python3");
	write_fp_trace();
	text = chrome_text(&o, NULL);
	et_save(text, f1);
	et_patch(text, "6.670999999999822", "6.671            ");
	et_save(text, bad);
	free(text);
	cr_expect_eq(et_py(out, "check-chrome.py --tile %s", f1), 0, "%s", out);
	cr_expect_eq(et_py(out, "check-chrome.py --tile %s", bad), 1, "nested slices passed: %s",
		     out);
	cr_expect(strstr(out, "drawn nested") != NULL, "%s", out);
	unlink(f1);
	unlink(bad);
}

/* ---- the command ---- */

static int cmd(const char *a0, ...)
{
	char *argv[32] = { (char *)"export" };
	int argc = 1;
	va_list ap;

	va_start(ap, a0);
	for (const char *a = a0; a && argc < 31; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	return wc_cmd_export(argc, argv);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = calloc(1, 1 << 20);

	cr_assert_not_null(f, "%s missing", path);
	cr_assert_not_null(text);
	cr_assert_lt(fread(text, 1, (1 << 20) - 1, f), (size_t)(1 << 20) - 1);
	fclose(f);
	return text;
}

/* Files in @dir besides out.json: a temporary file left over. */
static int others_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    strcmp(e->d_name, "out.json"))
			n++;
	closedir(d);
	return n;
}

/* The formats to -o FILE: exit 0, the document there, no temporary file left. */
Test(export_cmd, formats_to_file)
{
	char dir[] = "/tmp/wc-export-cmd-XXXXXX", out[128];
	char *text;

	et_write_trace(0);
	cr_assert_not_null(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/out.json", dir);
	cr_expect_eq(cmd("--format", "chrome", "-o", out, et_tr.path, NULL), 0);
	text = slurp(out);
	cr_expect(strncmp(text, "{\"traceEvents\":[\n", 17) == 0, "%s", text);
	cr_expect(strstr(text, "\"otherData\"") != NULL);
	free(text);
	cr_expect_eq(cmd("--format=speedscope", "--unit", "ms", "--output", out, et_tr.path, NULL),
		     0);
	text = slurp(out);
	cr_expect(strncmp(text, "{\"$schema\":", 11) == 0, "%s", text);
	cr_expect(strstr(text, "\"unit\":\"milliseconds\"") != NULL, "%s", text);
	free(text);
	cr_expect_eq(cmd("--format", "pprof", "--fleet", "-o", out, et_tr.path, NULL), 0);
	text = slurp(out);
	cr_expect(text[0] == '\x1f' && text[1] == '\x8b', "not gzip"); /* RFC 1952's magic */
	free(text);
	cr_expect_eq(others_in(dir), 0);
	unlink(out);
	rmdir(dir);
}

/* Usage errors exit 2 before anything is written; --per-thread is accepted by both. */
Test(export_cmd, usage_errors)
{
	et_write_trace(0);
	cr_expect_eq(cmd(et_tr.path, NULL), WC_EXIT_USAGE); /* no --format */
	cr_expect_eq(cmd("--format", "perf", et_tr.path, NULL), WC_EXIT_USAGE);
	cr_expect_eq(cmd("--format", "pprof", "--unit", "ms", et_tr.path, NULL), WC_EXIT_USAGE);
	cr_expect_eq(cmd("--format", "speedscope", "--fleet", et_tr.path, NULL), WC_EXIT_USAGE);
	cr_expect_eq(cmd("--format", "chrome", "--fleet", et_tr.path, NULL), WC_EXIT_USAGE);
	cr_expect_eq(cmd("--format", "chrome", "--unit", "ms", et_tr.path, NULL), WC_EXIT_USAGE);
	cr_expect_eq(cmd("--format", "chrome", "--mode", "off", et_tr.path, NULL), WC_EXIT_USAGE);
	cr_expect_eq(cmd("--format", "chrome", "-d", et_tr.path, NULL), WC_EXIT_USAGE);
	cr_expect_eq(cmd("--format", "chrome", "--no-calibrate", et_tr.path, NULL), WC_EXIT_USAGE);
	cr_expect_eq(cmd("--format", "chrome", "--time", "2,1", et_tr.path, NULL), WC_EXIT_USAGE);
	cr_expect_eq(cmd("--format", "chrome", NULL), WC_EXIT_USAGE);	    /* no FILE */
	cr_expect_eq(cmd("--format", "chrome", "-o", NULL), WC_EXIT_USAGE); /* no -o arg */
	cr_expect_eq(cmd("--format", "chrome", "--per-thread", "-o", "/dev/null", et_tr.path, NULL),
		     WC_EXIT_OK);
}

/*
 * A trace that cannot be read, or an output that cannot be written: exit 1, and an existing
 * output file keeps its old content.
 */
Test(export_cmd, failures_keep_old_output)
{
	char dir[] = "/tmp/wc-export-cmd-XXXXXX", out[128];
	char *text;
	FILE *f;

	et_write_trace(0);
	cr_assert_not_null(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/out.json", dir);
	f = fopen(out, "w");
	cr_assert_not_null(f);
	fputs("old\n", f);
	fclose(f);
	cr_expect_eq(cmd("--format", "chrome", "-o", out, "/nonexistent/t.wct", NULL),
		     WC_EXIT_BAD_FILE);
	cr_expect_eq(cmd("--format", "speedscope", "-o", out, "/nonexistent/t.wct", NULL),
		     WC_EXIT_BAD_FILE);
	text = slurp(out);
	cr_expect_str_eq(text, "old\n");
	free(text);
	cr_expect_eq(others_in(dir), 0);
	cr_expect_eq(cmd("--format", "chrome", "-o", "/nonexistent/dir/x.json", et_tr.path, NULL),
		     WC_EXIT_BAD_FILE);
	if (!access("/dev/full", W_OK))
		cr_expect_eq(cmd("--format", "chrome", "-o", "/dev/full", et_tr.path, NULL),
			     WC_EXIT_BAD_FILE);
	unlink(out);
	rmdir(dir);
}

/*
 * A trace cut in its second frame (after the events up to 3.0 ms): exit 3, and the export
 * of what is before the cut: B's run 2.0-2.5 and A's run 1.0-3.0, a complete document.
 */
Test(export_cmd, truncated_trace_exit_3)
{
	char dir[] = "/tmp/wc-export-cmd-XXXXXX", out[128], cut[64];
	uint64_t frame1;
	struct stat sb;
	char *text;

	frame1 = et_write_trace(1);
	cr_assert_eq(stat(et_tr.path, &sb), 0);
	cr_assert_gt((uint64_t)sb.st_size, frame1 + 16);
	cr_assert_eq(tu_copy_prefix(et_tr.path, frame1 + ((uint64_t)sb.st_size - frame1) / 2, cut),
		     0);
	cr_assert_not_null(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/out.json", dir);
	cr_expect_eq(cmd("--format", "chrome", "-o", out, cut, NULL), WC_EXIT_TRUNCATED);
	text = slurp(out);
	cr_expect(strstr(text, RUN("1000.000", "500.000", "101",
				   "1") ",\n" RUN("0.000", "2000.000", "100", "0") ",\n") != NULL,
		  "%s", text);
	cr_expect(strstr(text, "Preempted") == NULL, "%s", text);
	cr_expect_eq(text[strlen(text) - 2], '}');
	free(text);
	unlink(cut);
	unlink(out);
	rmdir(dir);
}
