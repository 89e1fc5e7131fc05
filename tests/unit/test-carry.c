/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-carry.c - the recorder's carry (recorder/carry.h): which threads a rotation carries
 * into the next file, in what state, with what callchain and payload, fed in the drain's
 * order (one CPU's ring after the other: not in time order).
 *
 * carry.c asks /proc whether a thread still lives, so the threads here are real ones: 1 (init),
 * 2 (kthreadd) and this process; DEAD is a tid no kernel hands out (pid_max is at most 2^22).
 * Times are ns; the file starts at 10000.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/reader.h"
#include "common/stack_table.h"
#include "common/wct.h"
#include "common/writer.h"
#include "recorder/carry.h"

#define DEAD 0x7ffffffu

static char path[] = "/tmp/test-carry.XXXXXX";
static struct wc_carry *c;
static struct seen {
	struct wc_rec_carried r;
	uint64_t ips[8];
	uint32_t nr;
	uint8_t payload[64];
	uint32_t size;
} got[8];
static size_t ngot;

static void setup(void)
{
	c = wc_carry_new();
	cr_assert_not_null(c);
}

static void teardown(void)
{
	wc_carry_free(c);
	unlink(path);
}

TestSuite(carry, .init = setup, .fini = teardown);

/* As the recorder rotates: wc_carry_check() (unless @no_check: it was called before), then
 * the carried records written into a new file starting at @start_ns, and read back into got[]
 * (their STACK and PAYLOAD records resolved).  Return: the count wc_carry_write() gave. */
static size_t write_read(bool no_check, uint64_t start_ns)
{
	struct wc_stack_table *stacks = wc_stack_table_new(0), *payloads = wc_stack_table_new(0);
	const struct wc_rec_header *h;
	static uint8_t defs[16][128]; /* records by id: stacks (0..7), payloads (8..15) */
	struct wc_reader *rd;
	struct wc_writer *w;
	size_t n = 0;
	int fd;

	strcpy(path, "/tmp/test-carry.XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	w = wc_writer_new(fd, NULL);
	cr_assert_not_null(w);
	if (!no_check)
		wc_carry_check(c);
	cr_assert_eq(wc_carry_write(c, w, stacks, payloads, start_ns, &n), 0);
	cr_assert_eq(wc_writer_close(w, 20000, 0), 0);
	wc_writer_free(w);
	close(fd);
	wc_stack_table_free(stacks);
	wc_stack_table_free(payloads);

	rd = wc_reader_open(path);
	cr_assert_not_null(rd);
	ngot = 0;
	while (wc_reader_next(rd, &h)) {
		if (h->type == WC_REC_STACK) {
			const struct wc_rec_stack *s = (const void *)h;

			cr_assert_lt(s->id, 8);
			memcpy(defs[s->id], h, h->size < 128 ? h->size : 128);
		} else if (h->type == WC_REC_PAYLOAD) {
			const struct wc_rec_payload *p = (const void *)h;

			cr_assert_lt(p->id, 8);
			memcpy(defs[8 + p->id], h, h->size < 128 ? h->size : 128);
		} else if (h->type == WC_REC_CARRIED) {
			struct seen *g = &got[ngot++];
			const struct wc_rec_stack *s;
			const struct wc_rec_payload *p;

			memset(g, 0, sizeof(*g));
			memcpy(&g->r, h, sizeof(g->r));
			if (g->r.stack_id) {
				s = (const void *)defs[g->r.stack_id];
				g->nr = s->nr;
				memcpy(g->ips, s->ips, s->nr * 8);
			}
			if (g->r.payload_id) {
				p = (const void *)defs[8 + g->r.payload_id];
				g->size = p->size;
				memcpy(g->payload, p->data, p->size);
			}
		}
	}
	cr_expect_eq(wc_reader_state(rd), WC_READER_CLEAN);
	wc_reader_free(rd);
	return n;
}

static size_t write_and_read(void)
{
	return write_read(false, 10000);
}

/*
 * Thread 1 switched out on CPU 0 at 1000 with ips {11, 12} and payload "one", its switch-in of
 * 900 drained after (another CPU's ring): off-CPU since 1000.  Thread 2 out at 1500, in at
 * 2000 on CPU 1 drained first: on CPU 1 since 2000.  Thread DEAD out at 1200: not in /proc,
 * not carried.  This process out at 1300, then its EXIT: not carried.
 *   2 records, in tid order: 1 off since 1000 (CPU 0, its ips and payload, event 7); 2 on
 *   CPU 1 since 2000 (no stack, no payload, event 0); each at the file's start, 10000.
 */
Test(carry, off_and_on_in_drain_order)
{
	const uint64_t ips[] = { 11, 12 };
	uint8_t pay[16] = "one";

	cr_assert_eq(wc_carry_out(c, 1, 1, 0, 7, 1000, ips, 2, pay, sizeof(pay)), 0);
	cr_assert_eq(wc_carry_in(c, 1, 1, 1, 900), 0);
	cr_assert_eq(wc_carry_in(c, 2, 0, 1, 2000), 0);
	cr_assert_eq(wc_carry_out(c, 2, 2, 0, 7, 1500, ips, 1, pay, 8), 0);
	cr_assert_eq(wc_carry_out(c, DEAD, DEAD, 0, 7, 1200, ips, 2, pay, 8), 0);
	cr_assert_eq(
		wc_carry_out(c, (uint32_t)getpid(), (uint32_t)getpid(), 1, 7, 1300, ips, 2, pay, 8),
		0);
	wc_carry_exit(c, (uint32_t)getpid(), 1400);

	cr_assert_eq(write_and_read(), 2);
	cr_assert_eq(ngot, 2);
	cr_expect_eq(got[0].r.tid, 1);
	cr_expect_eq(got[0].r.flags, 0);
	cr_expect_eq(got[0].r.since_ns, 1000);
	cr_expect_eq(got[0].r.time_ns, 10000);
	cr_expect_eq(got[0].r.cpu, 0);
	cr_expect_eq(got[0].r.event_id, 7);
	cr_expect_eq(got[0].nr, 2);
	cr_expect(got[0].ips[0] == 11 && got[0].ips[1] == 12);
	cr_expect_eq(got[0].size, sizeof(pay));
	cr_expect_str_eq((const char *)got[0].payload, "one");
	cr_expect_eq(got[1].r.tid, 2);
	cr_expect_eq(got[1].r.flags, WC_CARRIED_ON_CPU);
	cr_expect_eq(got[1].r.since_ns, 2000);
	cr_expect_eq(got[1].r.cpu, 1);
	cr_expect_eq(got[1].r.stack_id, WC_STACK_NONE);
	cr_expect_eq(got[1].r.payload_id, WC_PAYLOAD_NONE);
	cr_expect_eq(got[1].r.event_id, 0);
}

/*
 * Two threads whose last switch-in was on CPU 0: 1 at 3000, 2 at 3500 (1's switch-out was
 * lost).  Only the later, 2, runs there: 1 is not carried on-CPU.
 * Then, at the next rotation with no event between: 2 is carried again (still running), and
 * a switch-out of an earlier time than the kept one changes nothing.
 */
Test(carry, one_on_cpu_per_cpu_and_again)
{
	uint8_t pay[8] = "x";

	cr_assert_eq(wc_carry_in(c, 1, 1, 0, 3000), 0);
	cr_assert_eq(wc_carry_in(c, 2, 2, 0, 3500), 0);
	cr_assert_eq(write_and_read(), 1);
	cr_expect_eq(got[0].r.tid, 2);
	cr_expect_eq(got[0].r.flags, WC_CARRIED_ON_CPU);
	cr_expect_eq(got[0].r.since_ns, 3500);

	cr_assert_eq(wc_carry_out(c, 2, 2, 0, 7, 3400, NULL, 0, pay, 8), 0);
	cr_assert_eq(write_and_read(), 1);
	cr_expect_eq(got[0].r.tid, 2);
	cr_expect_eq(got[0].r.flags, WC_CARRIED_ON_CPU);
	cr_expect_eq(got[0].r.since_ns, 3500);
}

/*
 * A thread off-CPU at a rotation is carried at every later one until it comes back: thread 1
 * out at 1000 (no callchain), carried; carried again; then in at 12000 on CPU 0: carried as
 * running there since 12000.  The idle task (tid 0) is never carried.
 */
Test(carry, sleeper_carried_until_it_runs)
{
	uint8_t pay[8] = "s";

	cr_assert_eq(wc_carry_out(c, 0, 0, 0, 7, 900, NULL, 0, pay, 8), 0);
	cr_assert_eq(wc_carry_out(c, 1, 1, 1, 7, 1000, NULL, 0, pay, 8), 0);
	cr_assert_eq(write_and_read(), 1);
	cr_expect_eq(got[0].r.tid, 1);
	cr_expect_eq(got[0].r.stack_id, WC_STACK_NONE);
	cr_expect_neq(got[0].r.payload_id, WC_PAYLOAD_NONE);
	cr_assert_eq(write_and_read(), 1);
	cr_expect_eq(got[0].r.since_ns, 1000);
	cr_assert_eq(wc_carry_in(c, 1, 1, 0, 12000), 0);
	cr_assert_eq(write_and_read(), 1);
	cr_expect_eq(got[0].r.flags, WC_CARRIED_ON_CPU);
	cr_expect_eq(got[0].r.since_ns, 12000);
}

/*
 * /proc is asked before the file's last drain (wc_carry_check()), not when the records are
 * written: a child process off-CPU (out at 1000) that exits between the two is carried (its
 * EXIT comes in the next file's events); asked again once it is gone, it is not.
 */
Test(carry, proc_asked_before_the_drain)
{
	uint8_t pay[8] = "c";
	pid_t child = fork();

	cr_assert_geq(child, 0);
	if (!child) {
		pause();
		_exit(0);
	}
	cr_assert_eq(wc_carry_out(c, (uint32_t)child, (uint32_t)child, 0, 7, 1000, NULL, 0, pay, 8),
		     0);
	wc_carry_check(c);
	kill(child, SIGKILL);
	cr_assert_eq(waitpid(child, NULL, 0), child);
	cr_assert_eq(write_read(true, 10000), 1);
	cr_expect_eq(got[0].r.tid, (uint32_t)child);
	cr_expect_eq(write_and_read(), 0);
}

/*
 * A running thread is carried only when its switch-in is its CPU's last: thread 1 in on CPU 0
 * at 1000, then the idle task in there at 2000 (1's switch-out lost): not carried.  Thread 2 in
 * on CPU 1 at 1000, then a LOST record of CPU 1 at 1500: not carried.  This process's thread
 * in on CPU 2 at 1000, nothing after: carried, running.
 */
Test(carry, running_only_when_last_on_its_cpu)
{
	cr_assert_eq(wc_carry_in(c, 1, 1, 0, 1000), 0);
	cr_assert_eq(wc_carry_in(c, 0, 0, 0, 2000), 0);
	cr_assert_eq(wc_carry_in(c, 2, 2, 1, 1000), 0);
	cr_assert_eq(wc_carry_lost(c, 1, 1500), 0);
	cr_assert_eq(wc_carry_in(c, (uint32_t)getpid(), (uint32_t)getpid(), 2, 1000), 0);
	cr_assert_eq(write_and_read(), 1);
	cr_expect_eq(got[0].r.tid, (uint32_t)getpid());
	cr_expect_eq(got[0].r.flags, WC_CARRIED_ON_CPU);
	cr_expect_eq(got[0].r.cpu, 2);
}

/*
 * EXIT records in the drain's order: thread 1's EXIT at 500 drained before its switch-out at
 * 400 (another CPU's ring): not carried.  Thread 2 switched in on CPU 1 at 900, an EXIT of
 * its tid at 800 drained after (the thread before, of the same tid): carried, running.  The
 * exiting task's last switch (tid -1) is no thread.
 */
Test(carry, exits_in_drain_order)
{
	uint8_t pay[8] = "e";

	cr_assert_eq(wc_carry_exit(c, 1, 500), 0);
	cr_assert_eq(wc_carry_out(c, 1, 1, 0, 7, 400, NULL, 0, pay, 8), 0);
	cr_assert_eq(wc_carry_in(c, 2, 2, 1, 900), 0);
	cr_assert_eq(wc_carry_exit(c, 2, 800), 0);
	cr_assert_eq(wc_carry_out(c, UINT32_MAX, UINT32_MAX, 0, 7, 450, NULL, 0, pay, 8), 0);
	cr_assert_eq(write_and_read(), 1);
	cr_expect_eq(got[0].r.tid, 2);
	cr_expect_eq(got[0].r.flags, WC_CARRIED_ON_CPU);
}

/* Without a start on the events' clock (0: no use_clockid), the records' time is the latest
 * time seen: thread 1 off since 1000, thread 2 in at 4000. */
Test(carry, start_unknown_takes_the_latest_time)
{
	uint8_t pay[8] = "t";

	cr_assert_eq(wc_carry_out(c, 1, 1, 0, 7, 1000, NULL, 0, pay, 8), 0);
	cr_assert_eq(wc_carry_in(c, 2, 2, 1, 4000), 0);
	cr_assert_eq(write_read(false, 0), 2);
	cr_expect_eq(got[0].r.time_ns, 4000);
	cr_expect_eq(got[1].r.time_ns, 4000);
}

/*
 * A thread woken and not yet run at the seam: thread 1 out on CPU 0 at 1000, woken at 1500
 * on CPU 1 by thread 2 (process 2) with its ips {21, 22, 23} and payload "wk" (event 9); an
 * earlier wakeup of it (1400), drained after, is ignored.
 *   2 records: thread 1 off since 1000; then the wakeup: WC_CARRIED_WAKEUP, since 1500, the
 *   waker's tid, pid and CPU, event 9, its ips and payload.
 */
Test(carry, woken_not_run_carries_its_wakeup)
{
	const uint64_t ips[] = { 11, 12 }, wips[] = { 21, 22, 23 };
	uint8_t pay[8] = "one", wpay[8] = "wk", old[8] = "old";

	cr_assert_eq(wc_carry_out(c, 1, 1, 0, 7, 1000, ips, 2, pay, sizeof(pay)), 0);
	cr_assert_eq(wc_carry_wake(c, 1, false, 2, 2, 1, 9, 1500, wips, 3, wpay, 8), 0);
	cr_assert_eq(wc_carry_wake(c, 1, false, 2, 2, 0, 9, 1400, NULL, 0, old, 8), 0);
	cr_assert_eq(write_and_read(), 2);
	cr_expect_eq(got[0].r.tid, 1);
	cr_expect_eq(got[0].r.flags, 0);
	cr_expect_eq(got[0].r.since_ns, 1000);
	cr_expect_eq(got[1].r.flags, WC_CARRIED_WAKEUP);
	cr_expect_eq(got[1].r.since_ns, 1500);
	cr_expect_eq(got[1].r.time_ns, 10000);
	cr_expect_eq(got[1].r.tid, 2);
	cr_expect_eq(got[1].r.pid, 2);
	cr_expect_eq(got[1].r.cpu, 1);
	cr_expect_eq(got[1].r.event_id, 9);
	cr_expect_eq(got[1].nr, 3);
	cr_expect_eq(got[1].ips[2], 23);
	cr_expect_str_eq((const char *)got[1].payload, "wk");
}

/*
 * A wakeup the thread has run since is not carried: thread 1 out at 1000, woken at 1100, in
 * at 1200 and out again at 1300 (off since 1300: no wakeup); thread 2 out at 1000, woken at
 * 1100, in on CPU 3 at 1200 (on CPU 3: no wakeup).
 */
Test(carry, wakeup_then_run_not_carried)
{
	uint8_t pay[8] = "p";

	cr_assert_eq(wc_carry_out(c, 1, 1, 0, 7, 1000, NULL, 0, pay, 8), 0);
	cr_assert_eq(wc_carry_wake(c, 1, false, 2, 2, 0, 9, 1100, NULL, 0, pay, 8), 0);
	cr_assert_eq(wc_carry_in(c, 1, 1, 0, 1200), 0);
	cr_assert_eq(wc_carry_out(c, 1, 1, 0, 7, 1300, NULL, 0, pay, 8), 0);
	cr_assert_eq(wc_carry_out(c, 2, 2, 0, 7, 1000, NULL, 0, pay, 8), 0);
	cr_assert_eq(wc_carry_wake(c, 2, false, 1, 1, 0, 9, 1100, NULL, 0, pay, 8), 0);
	cr_assert_eq(wc_carry_in(c, 2, 2, 3, 1200), 0);
	cr_assert_eq(write_and_read(), 2);
	cr_expect_eq(got[0].r.tid, 1);
	cr_expect_eq(got[0].r.flags, 0);
	cr_expect_eq(got[0].r.since_ns, 1300);
	cr_expect_eq(got[1].r.tid, 2);
	cr_expect_eq(got[1].r.flags, WC_CARRIED_ON_CPU);
}

/*
 * A new task not run yet: this process's sched_wakeup_new at 1500 by thread 1 on CPU 0: its
 * wakeup alone, carried.  DEAD's (no such thread) is not; thread 2's, switched in at 1600 on
 * CPU 3 since, gives its on-CPU record only.
 */
Test(carry, new_task_not_run_carries_its_wakeup_new)
{
	uint8_t pay[8] = "n";
	uint32_t me = (uint32_t)getpid();

	cr_assert_eq(wc_carry_wake(c, me, true, 1, 1, 0, 10, 1500, NULL, 0, pay, 8), 0);
	cr_assert_eq(wc_carry_wake(c, DEAD, true, 1, 1, 0, 10, 1500, NULL, 0, pay, 8), 0);
	cr_assert_eq(wc_carry_wake(c, 2, true, 1, 1, 0, 10, 1550, NULL, 0, pay, 8), 0);
	cr_assert_eq(wc_carry_in(c, 2, 2, 3, 1600), 0);
	cr_assert_eq(write_and_read(), 2);
	cr_expect_eq(got[0].r.tid, 2);
	cr_expect_eq(got[0].r.flags, WC_CARRIED_ON_CPU);
	cr_expect_eq(got[1].r.flags, WC_CARRIED_WAKEUP);
	cr_expect_eq(got[1].r.tid, 1);
	cr_expect_eq(got[1].r.event_id, 10);
	cr_expect_eq(got[1].r.since_ns, 1500);
}

/*
 * Woken on its way out: thread 1 in at 900, woken at 950 (still on its CPU), out at 1000:
 * off since 1000, and that wakeup after it (one recording takes it, provisionally).
 */
Test(carry, woken_on_its_way_out_carried)
{
	uint8_t pay[8] = "w";

	cr_assert_eq(wc_carry_in(c, 1, 1, 0, 900), 0);
	cr_assert_eq(wc_carry_wake(c, 1, false, 2, 2, 1, 9, 950, NULL, 0, pay, 8), 0);
	cr_assert_eq(wc_carry_out(c, 1, 1, 0, 7, 1000, NULL, 0, pay, 8), 0);
	cr_assert_eq(write_and_read(), 2);
	cr_expect_eq(got[0].r.flags, 0);
	cr_expect_eq(got[0].r.since_ns, 1000);
	cr_expect_eq(got[1].r.flags, WC_CARRIED_WAKEUP);
	cr_expect_eq(got[1].r.since_ns, 950);
}

/*
 * A tid taken again: this process's tid exited at 10, its last switch-out at 11; a new task
 * of the same tid woken by its sched_wakeup_new at 20 and not run: the wakeup alone, not the
 * old thread's switch-out.
 */
Test(carry, tid_taken_again_carries_the_new_task_only)
{
	uint8_t pay[8] = "x";
	uint32_t me = (uint32_t)getpid();

	cr_assert_eq(wc_carry_exit(c, me, 10), 0);
	cr_assert_eq(wc_carry_out(c, me, me, 0, 7, 11, NULL, 0, pay, 8), 0);
	cr_assert_eq(wc_carry_wake(c, me, true, 1, 1, 0, 10, 20, NULL, 0, pay, 8), 0);
	cr_assert_eq(write_and_read(), 1);
	cr_expect_eq(got[0].r.flags, WC_CARRIED_WAKEUP);
	cr_expect_eq(got[0].r.since_ns, 20);
}

/*
 * A per-task recording (wc_carry_targets_only()): its wakeup events are every task's.  Thread
 * 2 (a target: its switch-out at 1000) woken at 1500 by 5: carried.  Thread 1 (no event of
 * its own) woken at 1500: not.  This process's sched_wakeup_new by thread 2 (a target):
 * carried; thread 1's by 5 (not one): not.
 */
Test(carry, per_task_targets_only)
{
	uint8_t pay[8] = "t";
	uint32_t me = (uint32_t)getpid();

	wc_carry_targets_only(c);
	cr_assert_eq(wc_carry_out(c, 2, 2, 0, 7, 1000, NULL, 0, pay, 8), 0);
	cr_assert_eq(wc_carry_wake(c, 2, false, 5, 5, 1, 9, 1500, NULL, 0, pay, 8), 0);
	cr_assert_eq(wc_carry_wake(c, 1, false, 5, 5, 1, 9, 1500, NULL, 0, pay, 8), 0);
	cr_assert_eq(wc_carry_wake(c, me, true, 2, 2, 0, 10, 1600, NULL, 0, pay, 8), 0);
	cr_assert_eq(wc_carry_wake(c, 1, true, 5, 5, 0, 10, 1600, NULL, 0, pay, 8), 0);
	cr_assert_eq(write_and_read(), 3);
	cr_expect_eq(got[0].r.tid, 2);
	cr_expect_eq(got[0].r.flags, 0);
	cr_expect_eq(got[1].r.flags, WC_CARRIED_WAKEUP);
	cr_expect_eq(got[1].r.tid, 5);
	cr_expect_eq(got[2].r.flags, WC_CARRIED_WAKEUP);
	cr_expect_eq(got[2].r.tid, 2);
}
