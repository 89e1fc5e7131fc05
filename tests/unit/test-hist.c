/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-hist.c - `wcanalyze hist` (hist.h, cmd-hist.c): the log2 slot and BCC's
 * print_log2_hist layout; the three kinds, -P/-L, units, filters and JSON over one
 * hand-built trace whose every interval and run is worked out below; the command's exit
 * statuses on good, cut, corrupt files and bad options.
 *
 * The expected outputs are in $srcdir/testdata/hist/ ("@FILE@" stands for the trace's path).
 * Their histogram rows are the slot counts worked out here, in the layout of libbpf-tools'
 * print_log2_hist() (trace_helpers.c: "%10lld -> %-10lld : %-8d |" and a bar of
 * count * 40 / max stars); the printer itself was compared byte for byte with BCC's own
 * function compiled on the side, over 40000 random count vectors.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/core/analysis.h"
#include "analyzer/cli/cli.h"
#include "analyzer/reports/hist.h"
#include "sched-trace.h"
#include "trace-util.h"

/* ---- the log2 slot and the printer ---- */

/* floor(log2(v)), 0 for 0: bits.bpf.h log2l() maps 0 and 1 to slot 0, 2-3 to 1, 4-7 to 2 */
Test(log2, slot)
{
	cr_expect_eq(wc_hist_slot(0), 0);
	cr_expect_eq(wc_hist_slot(1), 0);
	cr_expect_eq(wc_hist_slot(2), 1);
	cr_expect_eq(wc_hist_slot(3), 1);
	cr_expect_eq(wc_hist_slot(4), 2);
	cr_expect_eq(wc_hist_slot(7), 2);
	cr_expect_eq(wc_hist_slot(8), 3);
	cr_expect_eq(wc_hist_slot(1023), 9);
	cr_expect_eq(wc_hist_slot(1024), 10);
	cr_expect_eq(wc_hist_slot(0xffffffffull), 31);	/* log2l's low word */
	cr_expect_eq(wc_hist_slot(0x100000000ull), 32); /* log2(hi) + 32 */
	cr_expect_eq(wc_hist_slot(0x1ffffffffull), 32);
	cr_expect_eq(wc_hist_slot(1ull << 63), 63);
	cr_expect_eq(wc_hist_slot(~0ull), 63);
}

static char *print(const uint64_t *vals, int n, const char *type)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	cr_assert_eq(wc_hist_print_log2(f, vals, n, type), 0);
	fclose(f);
	return text;
}

/* print_log2_hist() returns before its header when every slot is 0 */
Test(log2, all_zero_prints_nothing)
{
	uint64_t v[WC_HIST_SLOTS] = { 0 };
	char *text = print(v, WC_HIST_SLOTS, "usecs");

	cr_expect_str_eq(text, "");
	free(text);
}

/*
 * Counts 1, 0, 4, 2 in slots 0-3: the rows stop at slot 3, the last non-zero one; the bars
 * are 1 * 40 / 4 = 10, 0, 40 and 2 * 40 / 4 = 20 stars; slot 0 prints as 0 -> 1.
 */
Test(log2, narrow)
{
	uint64_t v[WC_HIST_SLOTS] = { 1, 0, 4, 2 };
	char *text = print(v, WC_HIST_SLOTS, "msecs");

	/* clang-format off */
	cr_expect_str_eq(text,
		"     msecs               : count    distribution\n"
		"         0 -> 1          : 1        |**********                              |\n"
		"         2 -> 3          : 0        |                                        |\n"
		"         4 -> 7          : 4        |****************************************|\n"
		"         8 -> 15         : 2        |********************                    |\n");
	/* clang-format on */
	free(text);
}

/*
 * A count in slot 33 (2^33 -> 2^34 - 1): past 32 slots print_log2_hist widens the bounds to
 * 20 characters, the label to 29 after 15 spaces, and halves the bar to 20 stars.  Counts 3
 * in slot 0 and 1 in slot 33: bars of 20 and 1 * 20 / 3 = 6 stars.  Expected in
 * testdata/hist/wide.txt.
 */
static char *read_golden(const char *name, const char *path);

Test(log2, wide_past_32_slots)
{
	uint64_t v[WC_HIST_SLOTS] = { [0] = 3, [33] = 1 };
	char *text = print(v, WC_HIST_SLOTS, "usecs");
	char *want = read_golden("wide.txt", "");

	cr_expect_str_eq(text, want, "got:\n%s", text);
	free(text);
	free(want);
}

/*
 * Slot 32 is the last of the narrow layout (print_log2_hist tests idx_max <= 32): its bounds
 * 2^32 and 2^33 - 1 fill their 10 characters, and the bar is still 40 wide.
 */
Test(log2, slot_32_still_narrow)
{
	uint64_t v[WC_HIST_SLOTS] = { [32] = 1 };
	char *text = print(v, WC_HIST_SLOTS, "usecs");

	cr_expect(strncmp(text, "     usecs               : count    distribution\n", 48) == 0,
		  "got:\n%s", text);
	cr_expect(strstr(text, "\n4294967296 -> 8589934591 : 1        "
			       "|****************************************|\n") != NULL,
		  "got:\n%s", text);
	free(text);
}

/* slot 63 holds the largest values: 2^63 (19 digits, so one space of the 20) to 2^64 - 1 */
Test(log2, last_slot)
{
	uint64_t v[WC_HIST_SLOTS] = { [63] = 1 };
	char *text = print(v, WC_HIST_SLOTS, "nsecs");
	const char *last = strrchr(text, '\n');

	cr_assert_not_null(last);
	while (last > text && last[-1] != '\n')
		last--;
	cr_expect_str_eq(last, " 9223372036854775808 -> 18446744073709551615 : 1        "
			       "|********************|\n");
	free(text);
}

/* ---- the hand-built trace ---- */

/*
 * Process 100 "app" (threads 100 "app", 101 "app-new", 102 "app-io") and process 200 "db";
 * W = 300 only gives context to wakeups.  Times in us (the trace has ns: one of them is
 * 2101.999 us).  CPU 0 unless said:
 *
 *   1000     idle -> 100 (its first event: start unknown)
 *   1100     100 out S                                 run 100: 1000-1100 = 100
 *   1200 c1  idle -> 102 (first event: start unknown)
 *   1300 c1  102 out S                                 run 102: 1200-1300 = 100
 *   1400     W wakes 102, target CPU 1, idle then
 *   1600     W wakes 100
 *   1610     idle -> 100           100: off 1100-1610 = 510, runq 1600-1610 = 10
 *   1650     100 out R+ -> 200 (200's first event)     run 100: 1610-1650 = 40
 *   1700     200 out D -> 100      100 preempted: off 1650-1700 = 50, runq = 50 (whole)
 *                                                      run 200: 1650-1700 = 50
 *   1702     W wakes 200
 *   1900 c1  102 out S again: no switch-in traced; woken at 1400 onto idle CPU 1, so the
 *            switch-in is inferred at 1400: off 1300-1400 = 100 (inferred), runq not
 *            measured (left out); run 1400-1900 = 500 (after an inferred switch-in)
 *   2000     100 out S -> 200      200: off 1700-2000 = 300, runq 1702-2000 = 298
 *                                                      run 100: 1700-2000 = 300
 *   2100     fork of 101 (pid 100), comm "app-new", sched_wakeup_new of 101
 *   2101.999 200 out S -> 101      101's first wait: not an off-CPU interval (no switch-out,
 *                                  left out of off); runq 2100-2101.999 = 1.999 -> 1 (BCC
 *                                  truncates ns / 1000): slot 0
 *                                                      run 200: 2000-2101.999 = 101.999 -> 101
 *   2500     101 out S                                 run 101: 2101.999-2500 = 398.001 -> 398
 *   2600     W wakes 100
 *   2700     idle -> 100           100: off 2000-2700 = 700, runq 2600-2700 = 100
 *   3000     100 out S -> 200      200: no wakeup since 2101.999: off 898.001 -> 898, runq
 *                                  not measured (left out)    run 100: 2700-3000 = 300
 *   3500     200 out S                                 run 200: 3000-3500 = 500
 *   end 4000: 100, 101, 102 and 200 are off-CPU (4 open); 3 first events were switch-ins.
 *
 * Slots (floor log2 of the us): 40, 50 -> 5; 100, 101 -> 6; 298, 300, 398, 500, 510 -> 8;
 * 700, 898 -> 9; 10 -> 3; 1 -> 0.
 *   off  (all):  50, 100, 300, 510, 700, 898     -> {5:1, 6:1, 8:2, 9:2}, 1 inferred, 1 new
 *   runq (all):  1, 10, 50, 100, 298             -> {0:1, 3:1, 5:1, 6:1, 8:1}
 *   on   (all):  100, 40, 300, 300 (100); 100, 500 (102); 50, 101, 500 (200); 398 (101)
 *                                                -> {5:2, 6:3, 8:5}, 1 inferred
 */
#define US 1000ull
#define W  300

static struct st_trace tr;

static void init(void)
{
	if (st_begin(&tr)) {
		st_remove(&tr);
		cr_assert_fail("cannot write the metadata: no testdata/formats/linux-6.18 under "
			       "srcdir=%s?",
			       getenv("srcdir") ? getenv("srcdir") : ".");
	}
}

static void fini(void)
{
	st_remove(&tr);
}

/* the events up to 2000 us (the first frame of the cut-trace test) */
static void write_first_part(void)
{
	st_set_pid(&tr, 101, 100);
	st_set_pid(&tr, 102, 100);
	st_switch(&tr, 1000 * US, 0, 0, "swapper/0", 0, 100, "app", 0);
	st_switch(&tr, 1100 * US, 0, 100, "app", ST_S, 0, "swapper/0", 0);
	st_switch(&tr, 1200 * US, 1, 0, "swapper/1", 0, 102, "app-io", 0);
	st_switch(&tr, 1300 * US, 1, 102, "app-io", ST_S, 0, "swapper/1", 0);
	st_wake(&tr, 1400 * US, 0, W, 102, "app-io", 1, 0);
	st_wake(&tr, 1600 * US, 0, W, 100, "app", 0, 0);
	st_switch(&tr, 1610 * US, 0, 0, "swapper/0", 0, 100, "app", 0);
	st_switch(&tr, 1650 * US, 0, 100, "app", ST_RPLUS, 200, "db", 0);
	st_switch(&tr, 1700 * US, 0, 200, "db", ST_D, 100, "app", 0);
	st_wake(&tr, 1702 * US, 1, W, 200, "db", 0, 0);
	st_switch(&tr, 1900 * US, 1, 102, "app-io", ST_S, 0, "swapper/1", 0);
	st_switch(&tr, 2000 * US, 0, 100, "app", ST_S, 200, "db", 0);
}

static void write_second_part(void)
{
	st_task(&tr, WC_REC_FORK, 2100 * US, 100, 100, 101, 100);
	st_comm(&tr, 2100 * US, 100, 101, "app-new");
	st_wake_new(&tr, 2100 * US, 1, W, 101, "app-new", 0);
	st_switch(&tr, 2101999, 0, 200, "db", ST_S, 101, "app-new", 0);
	st_switch(&tr, 2500 * US, 0, 101, "app-new", ST_S, 0, "swapper/0", 0);
	st_wake(&tr, 2600 * US, 1, W, 100, "app", 0, 0);
	st_switch(&tr, 2700 * US, 0, 0, "swapper/0", 0, 100, "app", 0);
	st_switch(&tr, 3000 * US, 0, 100, "app", ST_S, 200, "db", 0);
	st_switch(&tr, 3500 * US, 0, 200, "db", ST_S, 0, "swapper/0", 0);
}

static void write_trace(void)
{
	write_first_part();
	write_second_part();
	st_round(&tr);
	cr_assert_eq(st_end(&tr, true, 4000 * US), 0);
}

/* $srcdir/testdata/hist/@name with "@FILE@" replaced by @path (to free). */
static char *read_golden(const char *name, const char *path)
{
	const char *srcdir = getenv("srcdir");
	char file[4096], *text, *out, *at;
	size_t len = 0, cap = 1 << 16;
	FILE *f;

	snprintf(file, sizeof(file), "%s/testdata/hist/%s", srcdir ? srcdir : ".", name);
	f = fopen(file, "r");
	cr_assert_not_null(f, "%s: %s", file, strerror(errno));
	text = calloc(1, cap);
	cr_assert_not_null(text);
	len = fread(text, 1, cap - 1, f);
	fclose(f);
	text[len] = 0;
	out = calloc(1, len + strlen(path) * 4 + 1);
	cr_assert_not_null(out);
	char *o = out;

	for (const char *s = text; *s;) {
		at = strstr(s, "@FILE@");
		if (!at) {
			strcpy(o, s);
			break;
		}
		memcpy(o, s, (size_t)(at - s));
		o += at - s;
		strcpy(o, path);
		o += strlen(path);
		s = at + 6;
	}
	free(text);
	return out;
}

/* The report of the trace at @path with @o, text or JSON (to free); its counts in @n. */
static char *report(const char *path, const struct wc_hist_opts *o, bool json,
		    struct wc_hist_counts *n)
{
	char oerr[256]; /* why wc_analysis_open() failed */
	struct wc_analysis *an;
	struct wc_hist *h = wc_hist_new(o);
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	cr_assert_not_null(h);
	an = wc_analysis_open(path, oerr, sizeof(oerr));
	cr_assert_not_null(an, "%s", oerr);
	cr_assert_eq(wc_analysis_run(an, wc_hist_consumer(h)), 0, "%s", wc_analysis_error(an));
	cr_assert_eq(wc_analysis_facts(an)->start_ns, 1000 * US);
	f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	cr_assert_eq(json ? wc_hist_write_json(h, an, f) : wc_hist_write_text(h, an, f), 0);
	fclose(f);
	if (n)
		*n = *wc_hist_counts(h);
	wc_hist_free(h);
	wc_analysis_close(an);
	return text;
}

static void expect_report(const struct wc_hist_opts *o, bool json, const char *golden)
{
	char *got = report(tr.path, o, json, NULL);
	char *want = read_golden(golden, tr.path);

	cr_expect_str_eq(got, want, "%s: got:\n%s\nwanted:\n%s", golden, got, want);
	free(got);
	free(want);
}

static void expect_counts(const struct wc_hist_opts *o, uint64_t counted, uint64_t inferred,
			  uint64_t no_wakeup, uint64_t new_task)
{
	struct wc_hist_counts n;

	free(report(tr.path, o, false, &n));
	cr_expect_eq(n.counted, counted, "counted %lu", (unsigned long)n.counted);
	cr_expect_eq(n.inferred, inferred, "inferred %lu", (unsigned long)n.inferred);
	cr_expect_eq(n.no_wakeup, no_wakeup, "no_wakeup %lu", (unsigned long)n.no_wakeup);
	cr_expect_eq(n.new_task, new_task, "new_task %lu", (unsigned long)n.new_task);
}

TestSuite(hist, .init = init, .fini = fini);

/*
 * off, all threads: {5:1, 6:1, 8:2, 9:2}, bars 20, 20, 40, 40; 6 counted, 1 of them closed by
 * the inferred switch-in, 101's first wait left out; the trace's counts: 3 first events
 * were switch-ins, 4 threads off-CPU at the end, nothing lost.
 */
Test(hist, off_all)
{
	struct wc_hist_opts o = { .kind = WC_HIST_OFF };

	write_trace();
	expect_report(&o, false, "off.txt");
	expect_counts(&o, 6, 1, 0, 1);
}

/*
 * off -P: process 100 (threads 100, 102; 101 has no off-CPU interval) has 50, 100, 510, 700
 * -> {5, 6, 8, 9: 1 each}; its first histogram entry was made by thread 100 (at 1610, before
 * 102's inferred interval was seen at 1900), so it is named "app".  Process 200: 300, 898 ->
 * {8:1, 9:1}.  By increasing PID.
 */
Test(hist, off_per_process)
{
	struct wc_hist_opts o = { .kind = WC_HIST_OFF, .per = WC_HIST_PROCESS };

	write_trace();
	expect_report(&o, false, "off-P.txt");
}

/*
 * runq -L: 100 "app" 10, 50, 100 -> {3, 5, 6}; 101 "app-new" 1 -> {0:1}; 200 "db" 298 ->
 * {8:1}; 102's only interval was closed by an inferred switch-in and 200's second had no
 * wakeup: both left out.  5 counted, one a new task's first wait.
 */
Test(hist, runq_per_thread)
{
	struct wc_hist_opts o = { .kind = WC_HIST_RUNQ, .per = WC_HIST_THREAD };

	write_trace();
	expect_report(&o, false, "runq-L.txt");
	expect_counts(&o, 5, 1, 1, 1);
}

/* the same as JSON: the rows' bounds and counts, and sum_ns per thread: 100: 10 + 50 + 100
 * = 160 us; 101: 1999 ns; 200: 298 us */
Test(hist, runq_per_thread_json)
{
	struct wc_hist_opts o = { .kind = WC_HIST_RUNQ, .per = WC_HIST_THREAD };

	write_trace();
	expect_report(&o, true, "runq-L.json");
}

/* on, all threads: {5:2, 6:3, 8:5}, bars 16, 24, 40; 10 runs, one after the inferred
 * switch-in (102's 1400-1900) */
Test(hist, on_all)
{
	struct wc_hist_opts o = { .kind = WC_HIST_ON };

	write_trace();
	expect_report(&o, false, "on.txt");
	expect_counts(&o, 10, 1, 0, 0);
}

/*
 * on --state R -P: only runs that ended in a preemption, as libbpf-tools cpudist counts
 * them: 100's 1610-1650 (40 us, slot 5).
 */
Test(hist, on_ended_by_preemption)
{
	struct wc_hist_opts o = { .kind = WC_HIST_ON,
				  .per = WC_HIST_PROCESS,
				  .filter.states = "R" };

	write_trace();
	expect_report(&o, false, "on-R-P.txt");
	expect_counts(&o, 1, 0, 0, 0);
}

/* --unit ms: every off-CPU interval is under 1 ms, so 6 in slot 0 ("msecs") */
Test(hist, off_ms)
{
	struct wc_hist_opts o = { .kind = WC_HIST_OFF, .unit = WC_UNIT_MS };

	write_trace();
	expect_report(&o, false, "off-ms.txt");
}

/*
 * --unit ns, runq: 1999 -> slot 10 (1024-2047), 10000 -> 13 (8192-16383), 50000 -> 15
 * (32768-65535), 100000 -> 16 (65536-131071), 298000 -> 18 (262144-524287).
 */
Test(hist, runq_ns)
{
	struct wc_hist_opts o = { .kind = WC_HIST_RUNQ, .unit = WC_UNIT_NS };

	write_trace();
	expect_report(&o, false, "runq-ns.txt");
}

/*
 * --time 0.9,2 (seconds from the first event at 1 ms): values that end in [1.9, 3.0) ms.
 * off: 200's 1700-2000 (300) and 100's 2000-2700 (700) end inside; 101's first wait ends at
 * 2101.999 (left out as new); 200's 2101.999-3000 ends at 3.0 ms, outside (the end is
 * excluded): 2 counted, no inferred one (102's ended at 1.4 ms).
 */
Test(hist, time_window_by_end)
{
	struct wc_hist_opts o = { .kind = WC_HIST_OFF,
				  .filter = {
					  .have_time = true, .start_s = 0.0009, .end_s = 0.002 } };

	write_trace();
	expect_counts(&o, 2, 0, 0, 1);
	expect_report(&o, false, "off-time.txt");
}

/*
 * -m 300 -M 700 (us), off: of 50, 100, 300, 510, 700, 898 the bounds keep 300, 510 and 700
 * (inclusive) -> {8:2, 9:1}; the new task's 1.999 us wait is under the minimum, so it is not
 * counted as left out either.
 */
Test(hist, min_max_block)
{
	struct wc_hist_opts o = {
		.kind = WC_HIST_OFF,
		.filter = { .min_block_ns = 300 * US, .max_block_ns = 700 * US },
	};
	struct wc_hist_counts n;
	char *text;

	write_trace();
	expect_counts(&o, 3, 0, 0, 0);
	text = report(tr.path, &o, false, &n);
	cr_expect(strstr(text, "       256 -> 511        : 2        |*****************"
			       "***********************|\n"
			       "       512 -> 1023       : 1        |********************"
			       "                    |\n"),
		  "got:\n%s", text);
	free(text);
}

/* --state D, runq: only 200's D interval (298 us); the no-wakeup and the inferred ones are S */
Test(hist, runq_state_d)
{
	struct wc_hist_opts o = { .kind = WC_HIST_RUNQ, .filter.states = "D" };

	write_trace();
	expect_counts(&o, 1, 0, 0, 0);
}

/* -p 200 -L, off: thread 200 alone: 300, 898 */
Test(hist, pid_filter)
{
	uint32_t pid = 200;
	struct wc_hist_opts o = { .kind = WC_HIST_OFF,
				  .per = WC_HIST_THREAD,
				  .filter = { .pids = &pid, .npids = 1 } };
	char *text;

	write_trace();
	expect_counts(&o, 2, 0, 0, 0);
	text = report(tr.path, &o, false, NULL);
	cr_expect(strstr(text, "\n\ntid = 200 db\n     usecs") != NULL, "got:\n%s", text);
	cr_expect(strstr(text, "tid = 100") == NULL, "got:\n%s", text);
	free(text);
}

/*
 * A thread whose process is never named (no fork record, no switch-out): 400, new, woken
 * at 1 ms and switched in at 1.5 ms, runs to the end.  runq -P keys it by its TID, and names
 * it by the comm of its wakeup: "pid = 400 lone", 500 us -> slot 8.
 */
Test(hist, unknown_pid_is_tid)
{
	struct wc_hist_opts o = { .kind = WC_HIST_RUNQ, .per = WC_HIST_PROCESS };
	char *text;

	st_wake_new(&tr, 1000 * US, 1, W, 400, "lone", 0);
	st_switch(&tr, 1500 * US, 0, 0, "swapper/0", 0, 400, "lone", 0);
	cr_assert_eq(st_end(&tr, true, 2000 * US), 0);
	text = report(tr.path, &o, false, NULL);
	cr_expect(strstr(text, "\n\npid = 400 lone\n     usecs               : count    "
			       "distribution\n") != NULL,
		  "got:\n%s", text);
	cr_expect(strstr(text, "\n       256 -> 511        : 1        |*******") != NULL,
		  "got:\n%s", text);
	free(text);
}

/* ---- the command: output, exit statuses ---- */

static void init_cmd(void)
{
	init();
	cr_redirect_stdout();
	cr_redirect_stderr();
}

TestSuite(cmd, .init = init_cmd, .fini = fini);

static int run_cmd(int argc, const char **argv)
{
	int ret = wc_cmd_hist(argc, (char **)argv);

	fflush(stdout);
	fflush(stderr);
	return ret;
}

/* stderr, as redirected, holds @what */
static void expect_stderr_has(const char *what)
{
	FILE *f = cr_get_redirected_stderr();
	char buf[4096];
	size_t n;

	cr_assert_not_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	cr_expect(strstr(buf, what) != NULL, "stderr lacks \"%s\": %s", what, buf);
}

/* `wcanalyze hist FILE`: the off report of test off_all, exit 0, nothing on stderr */
Test(cmd, default_is_off)
{
	const char *argv[] = { "hist", tr.path, NULL };
	char *want;

	write_trace();
	cr_assert_eq(run_cmd(2, argv), WC_EXIT_OK);
	want = read_golden("off.txt", tr.path);
	cr_expect_stdout_eq_str(want);
	cr_expect_stderr_eq_str("");
	free(want);
}

/*
 * A trace cut in its second frame: frame 1 (the events up to 2000 us) is analysed, exit 3
 * with the warning.  Off-CPU intervals closed by then: 100's 510 and 50, 102's inferred 100,
 * 200's 300 -> {5:1, 6:1, 8:2}, 4 counted, 1 inferred; at the cut 100 (out at 2000) and 102
 * (out at 1900) are off-CPU: 2 open; 3 first events were switch-ins, as in the whole trace.
 */
Test(cmd, cut_trace_exit_3)
{
	char cut[64] = "";
	const char *argv[] = { "hist", cut, NULL };
	uint64_t frame1_end;
	struct stat sb;
	char *want;
	int ret;

	write_first_part();
	st_round(&tr);
	frame1_end = st_flush(&tr);
	write_second_part();
	cr_assert_eq(st_end(&tr, true, 4000 * US), 0);
	cr_assert_eq(stat(tr.path, &sb), 0);
	cr_assert_gt((uint64_t)sb.st_size, frame1_end + 16);
	cr_assert_eq(
		tu_copy_prefix(tr.path, frame1_end + ((uint64_t)sb.st_size - frame1_end) / 2, cut),
		0);
	ret = run_cmd(2, argv);
	unlink(cut);
	cr_expect_eq(ret, WC_EXIT_TRUNCATED);
	want = read_golden("off-cut.txt", cut);
	cr_expect_stdout_eq_str(want);
	expect_stderr_has("the trace is cut at byte");
	free(want);
}

/* A frame damaged in the middle of the file: exit 1, nothing on stdout, one line on stderr. */
Test(cmd, corrupt_trace_exit_1)
{
	const char *argv[] = { "hist", tr.path, NULL };
	uint64_t frame1_end;
	char junk[16];
	int fd;

	write_first_part();
	st_round(&tr);
	frame1_end = st_flush(&tr);
	write_second_part();
	cr_assert_eq(st_end(&tr, true, 4000 * US), 0);
	memset(junk, 0x5a, sizeof(junk));
	fd = open(tr.path, O_WRONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pwrite(fd, junk, sizeof(junk), (off_t)frame1_end + 24), (ssize_t)sizeof(junk));
	close(fd);
	cr_expect_eq(run_cmd(2, argv), WC_EXIT_BAD_FILE);
	cr_expect_stdout_eq_str("");
	expect_stderr_has("corrupt");
}

Test(cmd, missing_file_exit_1)
{
	const char *argv[] = { "hist", "/nonexistent/x.wct", NULL };

	cr_expect_eq(run_cmd(2, argv), WC_EXIT_BAD_FILE);
	cr_expect_stdout_eq_str("");
	cr_expect_stderr_eq_str("wcanalyze: /nonexistent/x.wct: No such file or directory\n");
}

/* bad options: exit 2 before the file is read, one line naming the option */
Test(cmd, bad_options_exit_2)
{
	const char *kind[] = { "hist", "--kind", "cpu", "x.wct", NULL };
	const char *both[] = { "hist", "-P", "-L", "x.wct", NULL };
	const char *minb[] = { "hist", "--kind", "runq", "-m", "5", "x.wct", NULL };
	const char *unit[] = { "hist", "--unit", "s", "x.wct", NULL };
	const char *nofile[] = { "hist", "--kind", "on", NULL };

	cr_expect_eq(run_cmd(4, kind), WC_EXIT_USAGE);
	cr_expect_eq(run_cmd(4, both), WC_EXIT_USAGE);
	cr_expect_eq(run_cmd(6, minb), WC_EXIT_USAGE);
	cr_expect_eq(run_cmd(4, unit), WC_EXIT_USAGE);
	cr_expect_eq(run_cmd(3, nofile), WC_EXIT_USAGE);
	cr_expect_stdout_eq_str("");
	cr_expect_stderr_eq_str(
		"wcanalyze: --kind is off, runq or on: cpu (see wcanalyze --help)\n"
		"wcanalyze: -P and -L exclude each other: -P -L (see wcanalyze --help)\n"
		"wcanalyze: -m and -M go with --kind off only: --kind runq (see wcanalyze --help)\n"
		"wcanalyze: --unit is us, ms or ns: s (see wcanalyze --help)\n"
		"wcanalyze: no FILE given: hist (see wcanalyze --help)\n");
}

/* A comm cut mid-character (the kernel keeps 15 bytes of it), or with a quote, a tab and a
 * byte that is no UTF-8, still gives valid JSON: each stray byte as U+FFFD (json.h), the
 * character before the cut kept, the quote and tab escaped. */
Test(hist, json_comm_not_utf8)
{
	struct wc_hist_opts o = { .kind = WC_HIST_OFF, .per = WC_HIST_THREAD };
	static const char cut[] = "q\"t\tx\xc3\xa9\xe2\x82"; /* ..., then "€" cut after 2 of 3 */
	static const char bad[] = "y\xff\x80z";
	char *got;

	st_switch(&tr, 1000 * US, 0, 0, "swapper/0", 0, 70, cut, 0);
	st_switch(&tr, 1100 * US, 0, 70, cut, ST_S, 71, bad, 0);
	st_wake(&tr, 1200 * US, 1, W, 70, cut, 0, 0);
	st_switch(&tr, 1300 * US, 0, 71, bad, ST_S, 70, cut, 0);
	st_wake(&tr, 1350 * US, 1, W, 71, bad, 0, 0);
	st_switch(&tr, 1400 * US, 0, 70, cut, ST_S, 71, bad, 0);
	st_round(&tr);
	cr_assert_eq(st_end(&tr, true, 2000 * US), 0);
	got = report(tr.path, &o, true, NULL);
	cr_expect_not_null(strstr(got, "\"comm\": \"q\\\"t\\tx\xc3\xa9\\ufffd\\ufffd\""), "%s",
			   got);
	cr_expect_not_null(strstr(got, "\"comm\": \"y\\ufffd\\ufffdz\""), "%s", got);
	for (const unsigned char *p = (const unsigned char *)got; *p; p++)
		cr_expect(*p != 0xff && *p != 0x80 && *p != '\t', "a raw byte 0x%02x", *p);
	free(got);
}
