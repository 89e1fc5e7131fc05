/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-export.c - the JSON writer (json.h), and `wcanalyze export` (export.h, cmd-export.c)
 * over a hand-built trace: the speedscope document and the Chrome trace-event document,
 * text for text, each value worked out by hand below; then the same documents through
 * speedscope's published JSON schema and a Chrome trace-event structure check, with
 * /usr/bin/python3 (skipped with the reason when these are not available); then the
 * command's options, output file and exit statuses.
 *
 * The trace (times in ms; the first event is at 1.0 ms, so ts = time - 1.0 ms):
 * process 100: A = 100 "app", B = 101 "worker", N = 102 "worker" (forked at 4.5 ms);
 * W = 300 "waker" only gives context to the wakeups.  Kernel symbols: __schedule at
 * 0x...100, schedule 0x...200, do_poll 0x...300, entry_SYSCALL_64 0x...400, so that the
 * switch-out stacks, leaf first, are K1 = [__schedule], K2 = [__schedule, schedule],
 * K3 = [__schedule, schedule, do_poll]; the waker's stack WK is [do_poll, entry_SYSCALL_64]
 * in the kernel and one user frame, [unknown] (no maps); the sample stacks are
 * S1 = [do_poll, entry_SYSCALL_64] and S2 = [entry_SYSCALL_64].
 *
 *   1.0  CPU 0: idle -> A (A's first event)     1.5  sample of A, S1
 *   2.0  CPU 1: idle -> B (B's first event)
 *   2.5  CPU 1: B out S, K1                      B ran 2.0-2.5 on CPU 1
 *   3.0  CPU 0: A out R+ (preempted), K2         A ran 1.0-3.0 on CPU 0
 *   3.2  W wakes B (target CPU 1), WK            B blocked S 2.5-3.2
 *   3.25 CPU 0: idle -> A                        A preempted 3.0-3.25
 *   3.3  CPU 1: idle -> B                        B runnable 3.2-3.3
 *   3.6  CPU 1: B out D, K3                      B ran 3.3-3.6
 *   4.0  CPU 0: A out S, K1 (never woken: open)  A ran 3.25-4.0
 *   4.1  W wakes B, WK                           B blocked D 3.6-4.1
 *   4.4  CPU 1: idle -> B                        B runnable 4.1-4.4
 *   4.5  fork of N, W wakes N new (target CPU 0) 4.6  sample of B, S2
 *   4.7  CPU 0: idle -> N                        N runnable 4.5-4.7 (its first run)
 *   4.9  CPU 0: N out S, no stack (open)         N ran 4.7-4.9
 *   5.0  CPU 1: B out S, K1 (open)               B ran 4.4-5.0;  trailer at 6.0
 *
 * Each thread's time is covered from its first event to its last switch-out: A 1.0-4.0 =
 * 2000 + 250 + 750 us; B 2.0-5.0 = 500 + 700 + 100 + 300 + 500 + 300 + 600 us; N 4.5-4.9 =
 * 200 + 200 us.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyzer/analysis.h"
#include "analyzer/cli.h"
#include "analyzer/export.h"
#include "analyzer/json.h"
#include "analyzer/profile.h"
#include "analyzer/symbolize.h"
#include "sched-trace.h"
#include "trace-util.h"

#define A 100
#define B 101
#define N 102
#define W 300
#define MS 1000000ull

static struct st_trace tr;
static bool rename_b; /* write_trace(): B names itself "renamed" at 3.4 ms */

static void init(void)
{
	if (st_begin(&tr)) {
		st_remove(&tr);
		cr_assert_fail("cannot write the metadata: no testdata/formats/linux-6.18 under "
			       "srcdir=%s?", getenv("srcdir") ? getenv("srcdir") : ".");
	}
}

static void fini(void)
{
	st_remove(&tr);
}

TestSuite(json);
TestSuite(speedscope, .init = init, .fini = fini);
TestSuite(chrome, .init = init, .fini = fini);
TestSuite(validate, .init = init, .fini = fini);
TestSuite(export_cmd, .init = init, .fini = fini);

/* ---- the JSON writer ---- */

/* What @fn writes through a writer on a memory stream, and wc_json_finish()'s return. */
static char *json_text(void (*fn)(struct wc_json *j), int *ret)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct wc_json j;

	cr_assert_not_null(f);
	wc_json_init(&j, f);
	fn(&j);
	*ret = wc_json_finish(&j);
	fclose(f);
	return text;
}

static void expect_json(void (*fn)(struct wc_json *j), int want_ret, const char *want)
{
	int ret;
	char *got = json_text(fn, &ret);

	cr_expect_eq(ret, want_ret, "finish returned %d", ret);
	if (want)
		cr_expect_str_eq(got, want, "got %s, wanted %s", got, want);
	free(got);
}

static void strings(struct wc_json *j)
{
	wc_json_array(j);
	wc_json_str(j, "plain ascii");
	wc_json_str(j, "q\"b\\s/");                   /* RFC 8259: " and \ escaped, / not */
	wc_json_str(j, "\b\f\n\r\t\x01\x1f");         /* short escapes, else \u00XX */
	wc_json_str(j, "\x7f caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5"); /* DEL é € U+1F525 */
	wc_json_strn(j, "a\0b", 3);                  /* NUL inside */
	wc_json_end(j);
}

/* The escapes of RFC 8259 section 7; well-formed UTF-8 as it is. */
Test(json, escapes)
{
	expect_json(strings, 0,
		    "[\"plain ascii\",\"q\\\"b\\\\s/\",\"\\b\\f\\n\\r\\t\\u0001\\u001f\","
		    "\"\x7f caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5\",\"a\\u0000b\"]\n");
}

static void bad_utf8(struct wc_json *j)
{
	wc_json_array(j);
	wc_json_str(j, "a\xff" "b");            /* never a UTF-8 byte */
	wc_json_str(j, "\xc0\x80");             /* overlong NUL: C0 cannot lead */
	wc_json_str(j, "\xed\xa0\x80");         /* a surrogate, U+D800 */
	wc_json_str(j, "\xe2\x82");             /* cut short at the end */
	wc_json_str(j, "\xf4\x90\x80\x80");     /* above U+10FFFF */
	wc_json_str(j, "\x80x");                /* a continuation byte alone */
	wc_json_end(j);
}

/*
 * A byte that does not start a well-formed sequence becomes U+FFFD and the next byte is
 * looked at afresh: C0 80 is two replacements, ED A0 80 three (ED takes 80..9F only), E2 82
 * at the end two, F4 90 80 80 four (F4 takes 80..8F only).
 */
Test(json, invalid_utf8_replaced)
{
#define R "\\ufffd"
	expect_json(bad_utf8, 0,
		    "[\"a" R "b\",\"" R R "\",\"" R R R "\",\"" R R "\",\"" R R R R "\",\"" R
		    "x\"]\n");
#undef R
}

static void nesting(struct wc_json *j)
{
	wc_json_object(j);
	wc_json_key(j, "a");
	wc_json_array(j);
	wc_json_u64(j, 1);
	wc_json_i64(j, -2);
	wc_json_object(j);
	wc_json_key(j, "b");
	wc_json_null(j);
	wc_json_end(j);
	wc_json_array(j);
	wc_json_end(j);
	wc_json_end(j);
	wc_json_newline(j);
	wc_json_key(j, "c");
	wc_json_bool(j, true);
	wc_json_key(j, "d");
	wc_json_raw(j, "[7,8]", 5);
	wc_json_newline(j);
	wc_json_end(j);
}

/* Commas between members and items only; a line break comes after the comma. */
Test(json, nesting_and_commas)
{
	expect_json(nesting, 0, "{\"a\":[1,-2,{\"b\":null},[]],\n\"c\":true,\"d\":[7,8]\n}\n");
}

static void numbers(struct wc_json *j)
{
	wc_json_array(j);
	wc_json_fixed(j, 1234567, 3);
	wc_json_fixed(j, 5, 3);
	wc_json_fixed(j, -1500, 3);
	wc_json_fixed(j, 42, 0);
	wc_json_fixed(j, INT64_MIN, 3);
	wc_json_u64(j, UINT64_MAX);
	wc_json_double(j, 0.5);
	wc_json_double(j, 0.0 / 0.0);
	wc_json_end(j);
}

/* fixed: exact decimals (INT64_MIN without overflow); NaN, which JSON cannot write, null */
Test(json, numbers)
{
	expect_json(numbers, 0,
		    "[1234.567,0.005,-1.500,42,-9223372036854775.808,18446744073709551615,0.5,"
		    "null]\n");
}

static int misuse_case;

/* One misuse of the writer per case: a member without its key, an array left open, one
 * end too many, two documents, a key in an array, nesting deeper than the maximum. */
static void misuse(struct wc_json *j)
{
	switch (misuse_case) {
	case 0:
		wc_json_object(j);
		wc_json_u64(j, 1);
		wc_json_end(j);
		break;
	case 1:
		wc_json_array(j);
		break;
	case 2:
		wc_json_array(j);
		wc_json_end(j);
		wc_json_end(j);
		break;
	case 3:
		wc_json_u64(j, 1);
		wc_json_u64(j, 2);
		break;
	case 4:
		wc_json_array(j);
		wc_json_key(j, "k");
		wc_json_end(j);
		break;
	default:
		for (int i = 0; i <= WC_JSON_MAX_DEPTH; i++)
			wc_json_array(j);
		for (int i = 0; i <= WC_JSON_MAX_DEPTH; i++)
			wc_json_end(j);
	}
}

/* Misuse is remembered and reported by wc_json_finish(). */
Test(json, misuse_is_einval)
{
	for (misuse_case = 0; misuse_case < 6; misuse_case++)
		expect_json(misuse, -EINVAL, NULL);
}

/* A stream that cannot be written: -EIO at the end (/dev/full fails every write). */
Test(json, write_error_is_eio)
{
	FILE *f = fopen("/dev/full", "w");
	struct wc_json j;

	if (!f)
		cr_skip_test("no /dev/full here");
	wc_json_init(&j, f);
	wc_json_array(&j);
	for (int i = 0; i < 10000; i++)
		wc_json_str(&j, "fill the stdio buffer so that a write happens before the end");
	wc_json_end(&j);
	cr_expect_eq(wc_json_finish(&j), -EIO);
	fclose(f);
}

/* ---- the hand-built trace ---- */

/* A KALLSYMS record with the four functions named above, before any event. */
static void kallsyms(void)
{
	static const char text[] = "ffffffff81000000 T _stext\n"
				   "ffffffff81000100 T __schedule\n"
				   "ffffffff81000200 T schedule\n"
				   "ffffffff81000300 T do_poll\n"
				   "ffffffff81000400 T entry_SYSCALL_64\n"
				   "ffffffff81000500 D some_data\n";
	static uint64_t buf[64];
	struct wc_rec_kallsyms *k = (void *)buf;

	memset(buf, 0, sizeof(buf));
	k->h.type = WC_REC_KALLSYMS;
	k->text_len = sizeof(text);
	memcpy(k->text, text, sizeof(text));
	k->h.size = WC_ALIGN8(sizeof(*k) + sizeof(text));
	cr_assert_eq(wc_writer_add(tr.w, buf), 0);
}

/* The trace of the comment at the top; @cut_at: flush a frame after the events until then. */
static uint64_t write_trace(uint64_t cut_at)
{
	uint64_t wk_ips[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000310, 0xffffffff81000410,
			      PERF_CONTEXT_USER, 0x400000 };
	uint64_t s1_ips[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000320, 0xffffffff81000420 };
	uint64_t s2_ips[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000430 };
	const char *b = rename_b ? "renamed" : "worker";
	uint32_t k1, k2, k3, wk, s1, s2;
	uint64_t frame1 = 0;

	kallsyms();
	k1 = st_kstack(&tr, 1);
	k2 = st_kstack(&tr, 2);
	k3 = st_kstack(&tr, 3);
	wk = st_stack(&tr, wk_ips, 5);
	s1 = st_stack(&tr, s1_ips, 3);
	s2 = st_stack(&tr, s2_ips, 2);
	st_set_pid(&tr, B, A);
	st_set_pid(&tr, N, A);
	st_comm(&tr, 1 * MS, A, A, "app");
	st_comm(&tr, 1 * MS, A, B, "worker");
	st_comm(&tr, 1 * MS, W, W, "waker");
	st_switch(&tr, 1 * MS, 0, 0, "swapper/0", 0, A, "app", 0);
	st_sample(&tr, 1500000, 0, A, s1, 500000);
	st_switch(&tr, 2 * MS, 1, 0, "swapper/1", 0, B, "worker", 0);
	st_switch(&tr, 2500000, 1, B, "worker", ST_S, 0, "swapper/1", k1);
	st_switch(&tr, 3 * MS, 0, A, "app", ST_RPLUS, 0, "swapper/0", k2);
	st_round(&tr);
	if (cut_at)
		frame1 = st_flush(&tr);
	st_wake(&tr, 3200000, 1, W, B, "worker", 1, wk);
	st_switch(&tr, 3250000, 0, 0, "swapper/0", 0, A, "app", 0);
	st_switch(&tr, 3300000, 1, 0, "swapper/1", 0, B, "worker", 0);
	if (rename_b)
		st_comm(&tr, 3400000, A, B, b);
	st_switch(&tr, 3600000, 1, B, b, ST_D, 0, "swapper/1", k3);
	st_switch(&tr, 4 * MS, 0, A, "app", ST_S, 0, "swapper/0", k1);
	st_wake(&tr, 4100000, 0, W, B, b, 1, wk);
	st_switch(&tr, 4400000, 1, 0, "swapper/1", 0, B, b, 0);
	st_task(&tr, WC_REC_FORK, 4500000, A, A, N, A);
	st_comm(&tr, 4500000, A, N, "worker");
	st_wake_new(&tr, 4500000, 0, W, N, "worker", 0);
	st_sample(&tr, 4600000, 1, B, s2, 500000);
	st_switch(&tr, 4700000, 0, 0, "swapper/0", 0, N, "worker", 0);
	st_switch(&tr, 4900000, 0, N, "worker", ST_S, 0, "swapper/0", 0);
	st_switch(&tr, 5 * MS, 1, B, b, ST_S, 0, "swapper/1", k1);
	st_round(&tr);
	cr_assert_eq(st_end(&tr, true, 6 * MS), 0);
	return frame1;
}

/* ---- speedscope ---- */

/* The speedscope document of the trace with @o (per_thread is set as the command does). */
static char *speedscope_text(struct wc_profile_opts o, size_t *nprofiles)
{
	struct wc_analysis an;
	const struct wc_replay_meta *m;
	struct wc_symbolizer *sym;
	struct wc_profile *p;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	o.per_thread = true;
	p = wc_profile_new(&o);
	cr_assert_not_null(p);
	cr_assert_eq(wc_analysis_open(&an, tr.path), 0, "%s", an.error);
	cr_assert_eq(wc_analysis_run(&an, wc_profile_consumer(p)), 0, "%s", an.error);
	cr_assert_eq(an.start_ns, 1 * MS);
	m = wc_replay_meta(an.replay);
	sym = wc_symbolizer_new(&an.tasks, m->kallsyms, m->kallsyms_len, NULL);
	cr_assert_not_null(sym);
	f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	cr_assert_eq(wc_speedscope_write(p, &an, sym, o.unit, "t.wct", f, nprofiles), 0);
	fclose(f);
	wc_symbolizer_free(sym);
	wc_profile_free(p);
	wc_analysis_close(&an);
	return text;
}

#define SS_HEAD                                                                             \
	"{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"name\":\"t.wct\"," \
	"\"exporter\":\"wcanalyze@" PACKAGE_VERSION "\",\"activeProfileIndex\":0,\n"

/*
 * The wall-clock profile in us, per thread (as folded --per-thread, whose lines are sorted
 * as strings, root first):
 *   app-100;entry_SYSCALL_64;do_poll 2750         A's run time 2000 + 750, all to its one
 *                                                 sample S1
 *   app-100;schedule;__schedule;[off-cpu R] 250   preempted 3.0-3.25 under K2
 *   worker-101;__schedule;[off-cpu S] 700         blocked 2.5-3.2 under K1
 *   worker-101;__schedule;[runqueue] 100          3.2-3.3
 *   worker-101;do_poll;schedule;__schedule;[off-cpu D] 500   3.6-4.1 under K3
 *   worker-101;do_poll;schedule;__schedule;[runqueue] 300    4.1-4.4
 *   worker-101;entry_SYSCALL_64 1400              B's run time 500 + 300 + 600, sample S2
 *   worker-102;[on-cpu unsampled] 200             N ran 4.7-4.9, never sampled
 *   worker-102;[unknown];[runqueue] 200           its wait for its first run, no stack
 * Frames numbered as they first appear in that order: entry_SYSCALL_64 0, do_poll 1,
 * schedule 2, __schedule 3, [off-cpu R] 4, [off-cpu S] 5, [runqueue] 6, [off-cpu D] 7,
 * [on-cpu unsampled] 8, [unknown] 9.  One profile per thread, the key's frame left out,
 * endValue the sum of its weights: 3000, 3000 and 400 us, each thread's covered time.
 */
Test(speedscope, wall_profile_per_thread)
{
	size_t n = 0;
	char *got;

	write_trace(0);
	got = speedscope_text((struct wc_profile_opts){ .mode = WC_MODE_WALL }, &n);
	cr_expect_str_eq(
		got,
		SS_HEAD
		"\"shared\":{\"frames\":[\n"
		"{\"name\":\"entry_SYSCALL_64\"},\n{\"name\":\"do_poll\"},\n"
		"{\"name\":\"schedule\"},\n{\"name\":\"__schedule\"},\n"
		"{\"name\":\"[off-cpu R]\"},\n{\"name\":\"[off-cpu S]\"},\n"
		"{\"name\":\"[runqueue]\"},\n{\"name\":\"[off-cpu D]\"},\n"
		"{\"name\":\"[on-cpu unsampled]\"},\n{\"name\":\"[unknown]\"}]},\n"
		"\"profiles\":[\n"
		"{\"type\":\"sampled\",\"name\":\"app-100 (pid 100)\",\"unit\":\"microseconds\","
		"\"startValue\":0,\"endValue\":3000,\"samples\":[\n[0,1],\n[2,3,4]],\n"
		"\"weights\":[2750,250]},\n"
		"{\"type\":\"sampled\",\"name\":\"worker-101 (pid 100)\",\"unit\":\"microseconds\","
		"\"startValue\":0,\"endValue\":3000,\"samples\":[\n[3,5],\n[3,6],\n[1,2,3,7],\n"
		"[1,2,3,6],\n[0]],\n\"weights\":[700,100,500,300,1400]},\n"
		"{\"type\":\"sampled\",\"name\":\"worker-102 (pid 100)\",\"unit\":\"microseconds\","
		"\"startValue\":0,\"endValue\":400,\"samples\":[\n[8],\n[9,6]],\n"
		"\"weights\":[200,200]}]}\n",
		"got:\n%s", got);
	cr_expect_eq(n, 3);
	free(got);
}

/*
 * --mode off --unit ns, B only (-t 101): the whole intervals under their stacks, no
 * synthetic leaf: 2.5-3.3 under K1 = 800000 ns, 3.6-4.4 under K3 = 800000 ns; frames
 * __schedule 0, do_poll 1, schedule 2; unit "nanoseconds".
 */
Test(speedscope, off_mode_in_ns)
{
	static const uint32_t tids[] = { B };
	struct wc_profile_opts o = { .mode = WC_MODE_OFF, .unit = WC_UNIT_NS,
				     .filter = { .tids = tids, .ntids = 1 } };
	char *got;

	write_trace(0);
	got = speedscope_text(o, NULL);
	cr_expect_str_eq(got,
			 SS_HEAD "\"shared\":{\"frames\":[\n"
				 "{\"name\":\"__schedule\"},\n{\"name\":\"do_poll\"},\n"
				 "{\"name\":\"schedule\"}]},\n"
				 "\"profiles\":[\n"
				 "{\"type\":\"sampled\",\"name\":\"worker-101 (pid 100)\","
				 "\"unit\":\"nanoseconds\",\"startValue\":0,\"endValue\":1600000,"
				 "\"samples\":[\n[0],\n[1,2,0]],\n\"weights\":[800000,800000]}]}\n",
			 "got:\n%s", got);
	free(got);
}

/* A thread whose comm changes is one profile, named after its last comm: the lines of
 * B before its prctl name "renamed" at 3.4 ms (its S interval, under "worker") and after
 * (its D interval and on-CPU time, under "renamed") are in the one profile of tid 101. */
Test(speedscope, comm_change_one_profile)
{
	static const uint32_t tids[] = { B };
	struct wc_profile_opts o = { .mode = WC_MODE_OFF, .filter = { .tids = tids, .ntids = 1 } };
	char *got;

	rename_b = true;
	write_trace(0);
	got = speedscope_text(o, NULL);
	cr_expect(strstr(got, "\"name\":\"renamed-101 (pid 100)\"") != NULL, "got:\n%s", got);
	cr_expect(strstr(got, "\"weights\":[800,800]") != NULL, "got:\n%s", got);
	cr_expect(strstr(got, "worker") == NULL, "got:\n%s", got);
	free(got);
}

/* Nothing passes the filters: a valid document with no profiles. */
Test(speedscope, empty)
{
	static const uint32_t tids[] = { 999 };
	size_t n = 1;
	char *got;

	write_trace(0);
	got = speedscope_text((struct wc_profile_opts){ .filter = { .tids = tids, .ntids = 1 } },
			      &n);
	cr_expect_str_eq(got, SS_HEAD "\"shared\":{\"frames\":[]},\n\"profiles\":[]}\n");
	cr_expect_eq(n, 0);
	free(got);
}

/* ---- Chrome trace events ---- */

/* The Chrome document of the trace with @o; its slice count in *@nslices. */
static char *chrome_text(const struct wc_chrome_opts *o, uint64_t *nslices)
{
	struct wc_analysis an;
	struct wc_chrome *c;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	c = wc_chrome_new(o, f);
	cr_assert_not_null(c);
	cr_assert_eq(wc_analysis_open(&an, tr.path), 0, "%s", an.error);
	cr_assert_eq(wc_analysis_run(&an, wc_chrome_consumer(c)), 0, "%s", an.error);
	cr_assert_eq(wc_chrome_finish(c), 0);
	if (nslices)
		*nslices = wc_chrome_slices(c);
	wc_chrome_free(c);
	wc_analysis_close(&an);
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

#define RUN(ts, dur, tid, cpu)                                                              \
	"{\"ph\":\"X\",\"ts\":" ts ",\"dur\":" dur ",\"pid\":100,\"tid\":" tid                  \
	",\"name\":\"Running\",\"cat\":\"on-cpu\",\"args\":{\"cpu\":" cpu "}}"
#define OFF(ts, dur, tid, name, args)                                                       \
	"{\"ph\":\"X\",\"ts\":" ts ",\"dur\":" dur ",\"pid\":100,\"tid\":" tid ",\"name\":\""   \
	name "\",\"cat\":\"off-cpu\",\"args\":{" args "}}"
#define META(what, tid, name)                                                               \
	"{\"ph\":\"M\",\"name\":\"" what "\",\"pid\":100,\"tid\":" tid ",\"args\":{\"name\":\"" \
	name "\"}}"
#define K1J "[\"__schedule\"]"
#define K2J "[\"__schedule\",\"schedule\"]"
#define K3J "[\"__schedule\",\"schedule\",\"do_poll\"]"
#define WKJ "[\"do_poll\",\"entry_SYSCALL_64\",\"[unknown]\"]"
#define WAKER "\"waker_tid\":300,\"waker\":\"waker\""
#define NAMES                                                                               \
	META("process_name", "100", "app") ",\n" META("thread_name", "100", "app") ",\n"    \
	META("thread_name", "101", "worker") ",\n" META("thread_name", "102", "worker")

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

	write_trace(0);
	got = events_of(chrome_text(&o, &n));
	cr_expect_str_eq(
		got,
		"{\"traceEvents\":[\n" RUN("1000.000", "500.000", "101", "1") ",\n"
		RUN("0.000", "2000.000", "100", "0") ",\n"
		OFF("2000.000", "250.000", "100", "Preempted R",
		    "\"state\":\"R\",\"stack\":" K2J ",\"cpu\":0") ",\n"
		OFF("1500.000", "700.000", "101", "Sleeping S",
		    "\"state\":\"S\",\"stack\":" K1J "," WAKER ",\"waker_stack\":" WKJ) ",\n"
		OFF("2200.000", "100.000", "101", "Runnable",
		    "\"state\":\"S\"," WAKER ",\"cpu\":1") ",\n"
		RUN("2300.000", "300.000", "101", "1") ",\n"
		RUN("2250.000", "750.000", "100", "0") ",\n"
		OFF("2600.000", "500.000", "101", "Uninterruptible D",
		    "\"state\":\"D\",\"stack\":" K3J "," WAKER ",\"waker_stack\":" WKJ) ",\n"
		OFF("3100.000", "300.000", "101", "Runnable",
		    "\"state\":\"D\"," WAKER ",\"cpu\":1") ",\n"
		OFF("3500.000", "200.000", "102", "Runnable",
		    "\"state\":\"R\"," WAKER ",\"cpu\":0") ",\n"
		RUN("3700.000", "200.000", "102", "0") ",\n"
		RUN("3400.000", "600.000", "101", "1") ",\n" NAMES "\n]",
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

	write_trace(0);
	got = chrome_text(&o, NULL);
	snprintf(want, sizeof(want),
		 "\n],\n\"otherData\":{\"exporter\":\"wcanalyze " PACKAGE_VERSION "\","
		 "\"trace\":\"%s\",\"host\":\"testhost\",\"kernel\":\"6.18.44\","
		 "\"ts_zero_utc\":\"2023-11-14T22:13:20.000999Z\","
		 "\"ts_unit\":\"microseconds from the recording's first event\"}}\n",
		 tr.path);
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
	struct wc_chrome_opts o = { .filter = { .have_time = true, .start_s = 0.0025,
						.end_s = 0.0035 } };
	uint64_t n = 0;
	char *got;

	write_trace(0);
	got = events_of(chrome_text(&o, &n));
	cr_expect_str_eq(
		got,
		"{\"traceEvents\":[\n" RUN("2500.000", "100.000", "101", "1") ",\n"
		RUN("2500.000", "500.000", "100", "0") ",\n"
		OFF("2600.000", "500.000", "101", "Uninterruptible D",
		    "\"state\":\"D\",\"stack\":" K3J "," WAKER ",\"waker_stack\":" WKJ) ",\n"
		OFF("3100.000", "300.000", "101", "Runnable",
		    "\"state\":\"D\"," WAKER ",\"cpu\":1") ",\n"
		RUN("3400.000", "100.000", "101", "1") ",\n"
		META("process_name", "100", "app") ",\n" META("thread_name", "100", "app") ",\n"
		META("thread_name", "101", "worker") "\n]",
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

	write_trace(0);
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
	cr_expect_str_eq(got,
			 "{\"traceEvents\":[\n"
			 OFF("3500.000", "200.000", "102", "Runnable",
			     "\"state\":\"R\"," WAKER ",\"cpu\":0") ",\n"
			 RUN("3700.000", "200.000", "102", "0") ",\n"
			 META("process_name", "100", "app") ",\n"
			 META("thread_name", "102", "worker") "\n]",
			 "got:\n%s", got);
	free(got);
}

/* -K leaves the user frames out of the stacks, -U the kernel frames; --annotate marks the
 * kernel frames _[k] as folded does. */
Test(chrome, stack_frames)
{
	struct wc_chrome_opts o = { .kernel_only = true };
	char *got;

	write_trace(0);
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
	st_comm(&tr, 1 * MS, A, A, "app");
	st_switch(&tr, 1 * MS, 0, 0, "swapper/0", 0, A, "app", 0);
	st_switch(&tr, 2749005, 0, A, "app", ST_S, 0, "swapper/0", 0);
	st_wake(&tr, 2755676, 1, W, A, "app", 0, 0);
	st_switch(&tr, 2800000, 0, 0, "swapper/0", 0, A, "app", 0);
	st_switch(&tr, 3 * MS, 0, A, "app", ST_S, 0, "swapper/0", 0);
	st_round(&tr);
	cr_assert_eq(st_end(&tr, true, 4 * MS), 0);
}

#define FP_EVENTS                                                                           \
	"{\"traceEvents\":[\n" RUN("0.000", "1749.005", "100", "0") ",\n"                   \
	OFF("1749.005", "6.670999999999822", "100", "Sleeping S",                          \
	    "\"state\":\"S\",\"waker_tid\":300,\"waker\":\"[unknown]\"") ",\n"            \
	OFF("1755.676", "44.324", "100", "Runnable",                                       \
	    "\"state\":\"S\",\"waker_tid\":300,\"waker\":\"[unknown]\",\"cpu\":0") ",\n"  \
	RUN("1800.000", "200.000", "100", "0") ",\n" META("process_name", "100", "app") ",\n" \
	META("thread_name", "100", "app") "\n]"

Test(chrome, durations_add_up_in_floating_point)
{
	struct wc_chrome_opts o = { 0 };
	char *got;

	write_fp_trace();
	got = events_of(chrome_text(&o, NULL));
	cr_expect_str_eq(got, FP_EVENTS, "got:\n%s", got);
	free(got);
}

/* No slice: the document still parses, with an empty traceEvents. */
Test(chrome, empty)
{
	static const uint32_t tids[] = { 999 };
	struct wc_chrome_opts o = { .filter = { .tids = tids, .ntids = 1 } };
	uint64_t n = 1;
	char *got;

	write_trace(0);
	got = events_of(chrome_text(&o, &n));
	cr_expect_str_eq(got, "{\"traceEvents\":[\n]");
	cr_expect_eq(n, 0);
	free(got);
}

/* ---- the documents through speedscope's schema and a trace-event structure check ---- */

/* Run @cmd with sh; its output (stdout and stderr) in @out; its exit status. */
static int run(const char *cmd, char *out, size_t size)
{
	FILE *p = popen(cmd, "r");
	size_t n = 0;
	int st;

	cr_assert_not_null(p);
	while (n + 1 < size && fgets(out + n, (int)(size - n), p))
		n += strlen(out + n);
	out[n] = 0;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static const char *srcdir(void)
{
	return getenv("srcdir") ? getenv("srcdir") : ".";
}

/* /usr/bin/python3 on testdata/export/SCRIPT ARGS (@fmt, printf-style); its exit status,
 * its output in @out (8 KiB). */
static int py(char *out, const char *fmt, ...)
{
	char args[4096], cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s/testdata/export/%s 2>&1", srcdir(), args);
	return run(cmd, out, 8192);
}

/* @text into a new temporary file whose name goes into @path (char[64]). */
static void save(const char *text, char *path)
{
	int fd;

	strcpy(path, "/tmp/wc-export-XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* Replace the first @from in @s by @to, of the same length. */
static void patch(char *s, const char *from, const char *to)
{
	char *at = strstr(s, from);

	cr_assert_not_null(at, "no %s to patch", from);
	cr_assert_eq(strlen(from), strlen(to));
	memcpy(at, to, strlen(to));
}

/*
 * The speedscope documents above, validated against speedscope's published schema by
 * testdata/export/validate-speedscope.py (which also checks the importer's needs: as many
 * weights as samples, frame indices in range, endValue - startValue the sum of the
 * weights); and two broken ones that must fail it: a unit the schema does not know, a
 * weight missing.
 */
Test(validate, speedscope_schema)
{
	static const uint32_t none[] = { 999 };
	char schema[4096], out[8192], f1[64], f2[64], f3[64], bad1[64], bad2[64];
	char *text;

	if (run("sh \"$srcdir\"/testdata/export/speedscope-schema.sh 2>&1", schema,
		sizeof(schema)) != 0)
		cr_skip_test("%s", schema);
	schema[strcspn(schema, "\n")] = 0;
	write_trace(0);
	text = speedscope_text((struct wc_profile_opts){ .mode = WC_MODE_WALL }, NULL);
	save(text, f1);
	patch(text, "\"microseconds\"", "\"furlongs\"xxxx");
	patch(text, "\"furlongs\"xxxx", "\"furlongs\"    ");
	save(text, bad1);
	free(text);
	text = speedscope_text((struct wc_profile_opts){ .mode = WC_MODE_OFF, .unit = WC_UNIT_NS },
			       NULL);
	save(text, f2);
	patch(text, "\"weights\":[800000,", "\"weights\":[       ");
	save(text, bad2);
	free(text);
	text = speedscope_text((struct wc_profile_opts){ .filter = { .tids = none, .ntids = 1 } },
			       NULL);
	save(text, f3);
	free(text);
	cr_expect_eq(py(out, "validate-speedscope.py %s %s %s %s", schema, f1, f2, f3), 0, "%s",
		     out);
	cr_expect_eq(py(out, "validate-speedscope.py %s %s", schema, bad1), 1,
		     "a unit of furlongs passed: %s", out);
	cr_expect_eq(py(out, "validate-speedscope.py %s %s", schema, bad2), 1,
		     "a missing weight passed: %s", out);
	unlink(f1);
	unlink(f2);
	unlink(f3);
	unlink(bad1);
	unlink(bad2);
}

/*
 * The Chrome documents above through testdata/export/check-chrome.py --tile: well-formed
 * events, names for every thread and process, no overlap, and each thread's slices tiling
 * its time with no gap (worked out at the top: A 0-3000 us, B 1000-4000, N 3500-3900; in the
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
	write_trace(0);
	text = chrome_text(&o, NULL);
	save(text, f1);
	patch(text, "\"dur\":250.000", "\"dur\":251.000");
	save(text, bad1);
	patch(text, "\"dur\":251.000", "\"dur\":250.000");
	patch(text, "\"thread_name\",\"pid\":100,\"tid\":102",
	      "\"thread_name\",\"pid\":100,\"tid\":103");
	save(text, bad2);
	free(text);
	o.filter = (struct wc_filter){ .have_time = true, .start_s = 0.0025, .end_s = 0.0035 };
	text = chrome_text(&o, NULL);
	save(text, f2);
	free(text);
	cr_expect_eq(py(out, "check-chrome.py --tile --summary %s", f1), 0, "%s", out);
	/* per thread: pid tid name running off-CPU span slices gaps first last, in ns */
	cr_expect(strstr(out, "100 100 app 2750000 250000 3000000 3 0 0 3000000\n"
			      "100 101 worker 1400000 1600000 3000000 7 0 1000000 4000000\n"
			      "100 102 worker 200000 200000 400000 2 0 3500000 3900000\n") != NULL,
		  "%s", out);
	cr_expect_eq(py(out, "check-chrome.py --tile %s", f2), 0, "%s", out);
	cr_expect_eq(py(out, "check-chrome.py %s", bad1), 1, "an overlap passed: %s", out);
	cr_expect(strstr(out, "overlaps") != NULL, "%s", out);
	cr_expect_eq(py(out, "check-chrome.py %s", bad2), 1, "a thread without a name passed: %s",
		     out);
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
	save(text, f1);
	patch(text, "6.670999999999822", "6.671            ");
	save(text, bad);
	free(text);
	cr_expect_eq(py(out, "check-chrome.py --tile %s", f1), 0, "%s", out);
	cr_expect_eq(py(out, "check-chrome.py --tile %s", bad), 1, "nested slices passed: %s", out);
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

/* Both formats to -o FILE: exit 0, the document there, no temporary file left. */
Test(export_cmd, formats_to_file)
{
	char dir[] = "/tmp/wc-export-cmd-XXXXXX", out[128];
	char *text;

	write_trace(0);
	cr_assert_not_null(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/out.json", dir);
	cr_expect_eq(cmd("--format", "chrome", "-o", out, tr.path, NULL), 0);
	text = slurp(out);
	cr_expect(strncmp(text, "{\"traceEvents\":[\n", 17) == 0, "%s", text);
	cr_expect(strstr(text, "\"otherData\"") != NULL);
	free(text);
	cr_expect_eq(cmd("--format=speedscope", "--unit", "ms", "--output", out, tr.path, NULL), 0);
	text = slurp(out);
	cr_expect(strncmp(text, "{\"$schema\":", 11) == 0, "%s", text);
	cr_expect(strstr(text, "\"unit\":\"milliseconds\"") != NULL, "%s", text);
	free(text);
	cr_expect_eq(others_in(dir), 0);
	unlink(out);
	rmdir(dir);
}

/* Usage errors exit 2 before anything is written; --per-thread is accepted by both. */
Test(export_cmd, usage_errors)
{
	write_trace(0);
	cr_expect_eq(cmd(tr.path, NULL), WC_EXIT_USAGE);                           /* no --format */
	cr_expect_eq(cmd("--format", "svg", tr.path, NULL), WC_EXIT_USAGE);
	cr_expect_eq(cmd("--format", "chrome", "--unit", "ms", tr.path, NULL), WC_EXIT_USAGE);
	cr_expect_eq(cmd("--format", "chrome", "--mode", "off", tr.path, NULL), WC_EXIT_USAGE);
	cr_expect_eq(cmd("--format", "chrome", "-d", tr.path, NULL), WC_EXIT_USAGE);
	cr_expect_eq(cmd("--format", "chrome", "--no-calibrate", tr.path, NULL), WC_EXIT_USAGE);
	cr_expect_eq(cmd("--format", "chrome", "--time", "2,1", tr.path, NULL), WC_EXIT_USAGE);
	cr_expect_eq(cmd("--format", "chrome", NULL), WC_EXIT_USAGE);              /* no FILE */
	cr_expect_eq(cmd("--format", "chrome", "-o", NULL), WC_EXIT_USAGE);        /* no -o arg */
	cr_expect_eq(cmd("--format", "chrome", "--per-thread", "-o", "/dev/null", tr.path, NULL),
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

	write_trace(0);
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
	cr_expect_eq(cmd("--format", "chrome", "-o", "/nonexistent/dir/x.json", tr.path, NULL),
		     WC_EXIT_BAD_FILE);
	if (!access("/dev/full", W_OK))
		cr_expect_eq(cmd("--format", "chrome", "-o", "/dev/full", tr.path, NULL),
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

	frame1 = write_trace(1);
	cr_assert_eq(stat(tr.path, &sb), 0);
	cr_assert_gt((uint64_t)sb.st_size, frame1 + 16);
	cr_assert_eq(tu_copy_prefix(tr.path, frame1 + ((uint64_t)sb.st_size - frame1) / 2, cut),
		     0);
	cr_assert_not_null(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/out.json", dir);
	cr_expect_eq(cmd("--format", "chrome", "-o", out, cut, NULL), WC_EXIT_TRUNCATED);
	text = slurp(out);
	cr_expect(strstr(text, RUN("1000.000", "500.000", "101", "1") ",\n"
				   RUN("0.000", "2000.000", "100", "0") ",\n") != NULL,
		  "%s", text);
	cr_expect(strstr(text, "Preempted") == NULL, "%s", text);
	cr_expect_eq(text[strlen(text) - 2], '}');
	free(text);
	unlink(cut);
	unlink(out);
	rmdir(dir);
}
