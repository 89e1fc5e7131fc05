/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-tpdecode.c - sched payloads decoded from the format texts of several kernel eras
 * (testdata/formats, found through $srcdir), built here at the offsets each format text
 * gives, plus a live sched_switch captured through perf_event_open(2) on this machine.
 * (test-tpdecode-errors.c: missing fields and formats, short payloads, damaged formats.)
 *
 * Payloads sit at the end of exactly-sized heap blocks, so that AddressSanitizer catches a
 * read past the end.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "analyzer/core/tpdecode.h"
#include "common/wct.h"
#include "tests/unit/tpdecode-util.h"

TestSuite(tpdecode, .fini = tpdecode_fini);

/* ---- the state letter, per era ---- */

Test(tpdecode, state_6_18)
{
	const char *text = switch_of("linux-6.18");

	expect_state(text, 0x0, "R", 'R', true); /* runnable, not preempted: still run-queue */
	expect_state(text, 0x1, "S", 'S', false);
	expect_state(text, 0x2, "D", 'D', false);
	expect_state(text, 0x4, "T", 'T', false);
	expect_state(text, 0x8, "t", 't', false);
	expect_state(text, 0x10, "X", 'X', false);
	expect_state(text, 0x20, "Z", 'Z', false);
	expect_state(text, 0x40, "P", 'P', false);
	expect_state(text, 0x80, "I", 'I', false);
	expect_state(text, 0x100, "R+", 'R', true); /* perf 6.1 shows 'W' here */
	expect_state(text, 0x1, "S", 'S', false);   /* again, from the cache */
	expect_state(text, 0x100, "R+", 'R', true);
}

/*
 * Captured from Debian's kernels booted by tests/vm-matrix.sh: 6.1 and 6.12 cloud lay
 * sched_switch out as 6.18 does; 6.1 PREEMPT_RT adds common_preempt_lazy_count after the
 * common fields, which moves every sched field 4 bytes down (prev_state at 40).  Under RT a
 * task blocked on a sleeping spinlock (TASK_RTLOCK_WAIT) is reported as D.
 */
static void expect_6x_states(const char *text)
{
	expect_state(text, 0x0, "R", 'R', true);
	expect_state(text, 0x1, "S", 'S', false);
	expect_state(text, 0x2, "D", 'D', false);
	expect_state(text, 0x4, "T", 'T', false);
	expect_state(text, 0x8, "t", 't', false);
	expect_state(text, 0x10, "X", 'X', false);
	expect_state(text, 0x20, "Z", 'Z', false);
	expect_state(text, 0x40, "P", 'P', false);
	expect_state(text, 0x80, "I", 'I', false);
	expect_state(text, 0x100, "R+", 'R', true);
}

Test(tpdecode, state_6_1)
{
	const char *text = switch_of("linux-6.1");
	unsigned off, size;

	field_pos(text, "prev_state", &off, &size);
	cr_assert_eq(off, 32);
	cr_assert_eq(size, 8);
	expect_6x_states(text);
}

Test(tpdecode, state_6_1_rt_fields_after_the_lazy_count)
{
	const char *text = switch_of("linux-6.1-rt");
	unsigned off, size;
	struct wc_switch sw;

	cr_assert(has_field(text, "common_preempt_lazy_count"));
	field_pos(text, "prev_state", &off, &size);
	cr_assert_eq(off, 40);
	cr_assert_eq(size, 8);
	expect_6x_states(text);
	sw = switch_with(text, 0x2);
	cr_expect_eq(sw.prev_tid, 100);
	cr_expect_eq(sw.next_tid, 200);
}

Test(tpdecode, state_6_12)
{
	const char *text = switch_of("linux-6.12");

	expect_6x_states(text);
}

Test(tpdecode, state_4_14)
{
	const char *text = switch_of("linux-4.14");

	expect_state(text, 0x0, "R", 'R', true);
	expect_state(text, 0x1, "S", 'S', false);
	expect_state(text, 0x2, "D", 'D', false);
	expect_state(text, 0x80, "I", 'I', false);
	expect_state(text, 0x100, "R+", 'R', true);
}

Test(tpdecode, state_4_14_i386_has_a_4_byte_prev_state)
{
	const char *text = switch_of("linux-4.14-i386");
	unsigned off, size;

	field_pos(text, "prev_state", &off, &size);
	cr_assert_eq(size, 4);
	expect_state(text, 0x100, "R+", 'R', true);
	expect_state(text, 0x2, "D", 'D', false);
	expect_state(text, 0x80, "I", 'I', false);
}

Test(tpdecode, state_3_10)
{
	const char *text = switch_of("linux-3.10");

	expect_state(text, 0, "R", 'R', true);
	expect_state(text, 1024, "R+", 'R', true); /* TASK_STATE_MAX */
	expect_state(text, 1, "S", 'S', false);
	expect_state(text, 2, "D", 'D', false);
	expect_state(text, 130, "D|K", 'D', false); /* TASK_KILLABLE */
	expect_state(text, 256, "W", 'W', false);
	expect_state(text, 512, "P", 'P', false);
}

Test(tpdecode, state_3_0_published_capture)
{
	const char *text = switch_of("linux-3.0");

	expect_state(text, 0, "R", 'R', true); /* no '+' yet: a preempted task shows R */
	expect_state(text, 1, "S", 'S', false);
	expect_state(text, 2, "D", 'D', false);
	expect_state(text, 16, "Z", 'Z', false); /* 16 was Z before 4.14, X after */
	expect_state(text, 64, "x", 'x', false);
}

Test(tpdecode, state_2_6_32)
{
	const char *text = switch_of("linux-2.6.32");

	expect_state(text, 0, "R", 'R', true);
	expect_state(text, 1, "S", 'S', false);
	expect_state(text, 2, "D", 'D', false);
	expect_state(text, 130, "D|W", 'D', false); /* 128 was TASK_WAKING's W here */
	expect_state(text, 0x1000, "0x1000", '?', false);
}

Test(tpdecode, state_print_fmt_with_plain_number)
{
	const char *text = format("linux-6.18", "sched_switch");
	const char *pf = strstr(text, "print fmt:");
	char *plain;

	/* A print fmt that prints prev_state as a number: no letter, the text is kept. */
	plain = calloc(1, strlen(text) + 128);
	cr_assert_not_null(plain);
	memcpy(plain, text, (size_t)(pf - text));
	strcat(plain, "print fmt: \"prev_comm=%s prev_pid=%d prev_state=%ld next_pid=%d\", "
		      "REC->prev_comm, REC->prev_pid, REC->prev_state, REC->next_pid\n");
	keep(plain);
	d = wc_tpdecode_new();
	cr_assert_not_null(d);
	add(plain);
	tp_bind(1, "sched:sched_switch", WC_TP_SWITCH);
	expect_state(plain, 2, "2", '?', false);
}

Test(tpdecode, state_unknown_print_helper_keeps_the_fields)
{
	const char *text = edit(format("linux-6.18", "sched_switch"), "__print_flags(",
				"__print_no_such_helper(");

	d = wc_tpdecode_new();
	cr_assert_not_null(d);
	add(text);
	tp_bind(1, "sched:sched_switch", WC_TP_SWITCH);
	expect_state(text, 1, "?", '?', false); /* tids, comms and prios checked inside */
}

/* The 6.18 sched_switch text with one more print fmt argument, @arg, printed with @conv. */
static const char *with_arg(const char *conv, const char *arg)
{
	const char *text = format("linux-6.18", "sched_switch");
	char *out = calloc(1, strlen(text) + strlen(conv) + strlen(arg) + 16);

	cr_assert_not_null(out);
	strcpy(out, text);
	out[strlen(out) - 1] = '\0'; /* the final newline */
	strcat(out, ", ");
	strcat(out, arg);
	strcat(out, "\n");
	return edit(keep(out), "next_prio=%d\"", conv);
}

/* Helpers libtraceevent would read past the record for are never rendered. */
Test(tpdecode, render_only_safe_print_fmts)
{
	static const char *const unsafe[] = {
		"__print_hex(REC->prev_comm, 100000)",
		"__print_array(REC->prev_comm, 1000, 8)",
		"__get_cpumask(nope)",
	};

	for (size_t i = 0; i < sizeof(unsafe) / sizeof(unsafe[0]); i++) {
		const char *text = with_arg("next_prio=%d x=%s\"", unsafe[i]);

		d = wc_tpdecode_new();
		cr_assert_not_null(d);
		add(text);
		tp_bind(1, "sched:sched_switch", WC_TP_SWITCH);
		expect_state(text, 1, "?", '?', false);
		tpdecode_fini();
	}
	/* __get_str() is safe (libtraceevent checks the locator): still rendered */
	{
		const char *text = with_arg("next_prio=%d x=%s\"", "__get_str(prev_state)");

		d = wc_tpdecode_new();
		cr_assert_not_null(d);
		add(text);
		tp_bind(1, "sched:sched_switch", WC_TP_SWITCH);
		expect_state(text, 1, "S", 'S', false);
		expect_state(text, 0xffff0001, "S", 'S', false); /* a locator far outside */
	}
}

/* Print fmts libtraceevent 1.7 crashes on, or divides by zero for: refused when added. */
Test(tpdecode, refuse_dangerous_print_fmts)
{
	static const char *const bad[] = {
		"sizeof(int)",	     /* use after free in the parser */
		"REC->next_pid / 0", /* evaluated when printed */
		"REC->next_pid % 0",
		"REC->nope", /* NULL field in __print_flags() */
		"\"x\".",    /* a string followed by '.' */
		"REC->next_pid;",
		"1 ? 2 : char REC->next_pid", /* NULL dereference in the parser */
		"char REC->next_pid",	      /* a cast without its parentheses */
		"(unsigned REC->next_pid)",
	};

	d = wc_tpdecode_new();
	cr_assert_not_null(d);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *text = with_arg("next_prio=%d x=%d\"", bad[i]);

		cr_assert_eq(wc_tpdecode_add_format(d, "sched", text), -EINVAL, "%s", bad[i]);
		cr_assert(wc_tpdecode_error(d)[0]);
	}
	{
		const char *text = edit(format("linux-6.18", "sched_switch"),
					"__print_flags(REC->prev_state", "__print_flags(REC->nope");

		cr_assert_eq(wc_tpdecode_add_format(d, "sched", text), -EINVAL);
		cr_assert_str_eq(wc_tpdecode_error(d), "sched:sched_switch: the print fmt reads "
						       "REC->nope, which is not a field");
	}
}

Test(tpdecode, many_distinct_states_past_the_cache)
{
	const char *text = switch_of("linux-6.18");

	for (uint64_t i = 0; i < 5000; i++) {
		struct wc_switch sw = switch_with(text, 2 | i << 16); /* masked: always D */

		cr_assert_eq(sw.state, 'D');
		cr_assert_str_eq(sw.state_text, "D");
	}
	expect_state(text, 0x100, "R+", 'R', true);
}

/* ---- wakeups and migrations ---- */

static struct wc_wakeup wakeup_of(const char *dir, const char *event, uint16_t id)
{
	const char *text = format(dir, event);
	char name[64];
	struct wc_wakeup wk;
	size_t size;
	uint8_t *buf;
	int ret;

	if (!d)
		d = wc_tpdecode_new();
	cr_assert_not_null(d);
	add(text);
	snprintf(name, sizeof(name), "sched:%s", event);
	tp_bind(id, name, WC_TP_WAKEUP);
	buf = payload(text, &size);
	put_comm(buf, text, "comm", "a-very-long-comm-name");
	put(buf, text, "pid", 31337);
	put(buf, text, "prio", 139);
	if (has_field(text, "success"))
		put(buf, text, "success", 0);
	if (has_field(text, "target_cpu"))
		put(buf, text, "target_cpu", 3);
	memset(&wk, 0x5a, sizeof(wk));
	ret = wc_tpdecode_decode_wakeup(d, id, buf, size, &wk);
	cr_assert_eq(ret, 0, "decode: %d %s", ret, wc_tpdecode_error(d));
	free(buf);
	cr_assert_eq(wk.tid, 31337);
	cr_assert_eq(wk.prio, 139);
	cr_assert_str_eq(wk.comm, "a-very-long-comm"); /* 16 characters, as the kernel keeps */
	return wk;
}

Test(tpdecode, wakeup_layouts)
{
	struct wc_wakeup wk;

	wk = wakeup_of("linux-2.6.32", "sched_wakeup", 1);
	cr_expect_eq(wk.success, 0);
	cr_expect_eq(wk.target_cpu, 3);
	wk = wakeup_of("linux-2.6.32", "sched_wakeup_new", 2);
	cr_expect_eq(wk.success, 0);
	tpdecode_fini();

	wk = wakeup_of("linux-3.0", "sched_wakeup", 1);
	cr_expect_eq(wk.success, 0);
	cr_expect_eq(wk.target_cpu, 3);
	tpdecode_fini();

	wk = wakeup_of("linux-3.10", "sched_wakeup", 1);
	cr_expect_eq(wk.target_cpu, 3);
	tpdecode_fini();

	wk = wakeup_of("linux-4.14", "sched_waking", 1);
	cr_expect_eq(wk.success, 0); /* the field is there (the kernel wrote 1) */
	cr_expect_eq(wk.target_cpu, 3);
	wk = wakeup_of("linux-4.14", "sched_wakeup", 2);
	wk = wakeup_of("linux-4.14", "sched_wakeup_new", 3);
	tpdecode_fini();

	wk = wakeup_of("linux-6.18", "sched_waking", 7);
	cr_expect_eq(wk.success, 1, "no success field: 1");
	cr_expect_eq(wk.target_cpu, 3);
	wk = wakeup_of("linux-6.18", "sched_wakeup", 8);
	wk = wakeup_of("linux-6.18", "sched_wakeup_new", 9);
	cr_expect_eq(wk.target_cpu, 3);
}

Test(tpdecode, wakeup_without_target_cpu_is_minus_one)
{
	const char *text =
		rename_field(format("linux-6.18", "sched_waking"), "target_cpu", "cpu_x");
	struct wc_wakeup wk;
	size_t size;
	uint8_t *buf = payload(text, &size);

	d = wc_tpdecode_new();
	cr_assert_not_null(d);
	cr_assert_eq(wc_tpdecode_add_format(d, "sched", text), 0, "%s", wc_tpdecode_error(d));
	tp_bind(3, "sched:sched_waking", WC_TP_WAKEUP);
	put(buf, text, "pid", 7);
	cr_assert_eq(wc_tpdecode_decode_wakeup(d, 3, buf, size, &wk), 0);
	free(buf);
	cr_expect_eq(wk.tid, 7);
	cr_expect_eq(wk.target_cpu, -1);
	cr_expect_eq(wk.success, 1);
	cr_expect_str_eq(wk.comm, "");
}

/* Sign and size as the format gives them, guessed from the type before "signed:" existed. */
Test(tpdecode, field_sizes_and_signs)
{
	const char *old = format("linux-2.6.32", "sched_wakeup");
	const char *small = edit(format("linux-6.18", "sched_waking"),
				 "int prio;\toffset:28;\tsize:4;\tsigned:1;",
				 "short prio;\toffset:28;\tsize:2;\tsigned:1;");
	struct wc_wakeup wk;
	size_t size;
	uint8_t *buf;

	d = wc_tpdecode_new();
	cr_assert_not_null(d);
	add(old);
	tp_bind(1, "sched:sched_wakeup", WC_TP_WAKEUP);
	buf = payload(old, &size);
	put(buf, old, "target_cpu", 0xffffffffu); /* int, no "signed:": -1 */
	put(buf, old, "prio", 120);
	cr_assert_eq(wc_tpdecode_decode_wakeup(d, 1, buf, size, &wk), 0);
	free(buf);
	cr_expect_eq(wk.target_cpu, -1);
	cr_expect_eq(wk.prio, 120);

	add(small);
	tp_bind(2, "sched:sched_waking", WC_TP_WAKEUP);
	buf = payload(small, &size);
	put(buf, small, "prio", 0xfffd); /* a 2-byte signed field: -3 */
	put(buf, small, "pid", 0x7fffffff);
	cr_assert_eq(wc_tpdecode_decode_wakeup(d, 2, buf, size, &wk), 0);
	free(buf);
	cr_expect_eq(wk.prio, -3);
	cr_expect_eq(wk.tid, 0x7fffffff);
}

Test(tpdecode, migrate_fixed_comm_3_0)
{
	const char *text = format("linux-3.0", "sched_migrate_task");
	struct wc_migrate mg;
	size_t size;
	uint8_t *buf = payload(text, &size);

	d = wc_tpdecode_new();
	cr_assert_not_null(d);
	add(text);
	tp_bind(5, "sched:sched_migrate_task", WC_TP_MIGRATE);
	put_comm(buf, text, "comm", "mover");
	put(buf, text, "pid", 99);
	put(buf, text, "prio", 120);
	put(buf, text, "orig_cpu", 1);
	put(buf, text, "dest_cpu", 2);
	cr_assert_eq(wc_tpdecode_decode_migrate(d, 5, buf, size, &mg), 0, "%s",
		     wc_tpdecode_error(d));
	free(buf);
	cr_expect_eq(mg.tid, 99);
	cr_expect_eq(mg.prio, 120);
	cr_expect_eq(mg.orig_cpu, 1);
	cr_expect_eq(mg.dest_cpu, 2);
	cr_expect_str_eq(mg.comm, "mover");
}

/* 6.18 keeps the migrating task's comm as a __data_loc string after the fixed fields. */
Test(tpdecode, migrate_data_loc_comm_6_18)
{
	const char *text = format("linux-6.18", "sched_migrate_task");
	struct wc_migrate mg;
	size_t fixed = record_bytes(text), size = fixed + 8;
	uint8_t *buf = calloc(1, size);
	char err[256];

	cr_assert_not_null(buf);
	d = wc_tpdecode_new();
	cr_assert_not_null(d);
	add(text);
	tp_bind(5, "sched:sched_migrate_task", WC_TP_MIGRATE);
	memcpy(buf + fixed, "kworker", 8);
	put(buf, text, "comm", (uint64_t)8 << 16 | fixed);
	put(buf, text, "pid", 12);
	put(buf, text, "prio", 100);
	put(buf, text, "orig_cpu", 0);
	put(buf, text, "dest_cpu", 1);
	cr_assert_eq(wc_tpdecode_decode_migrate(d, 5, buf, size, &mg), 0, "%s",
		     wc_tpdecode_error(d));
	cr_expect_str_eq(mg.comm, "kworker");
	cr_expect_eq(mg.tid, 12);
	cr_expect_eq(mg.dest_cpu, 1);

	/* A locator pointing past the payload: refused, nothing read. */
	put(buf, text, "comm", (uint64_t)9 << 16 | fixed);
	cr_assert_eq(wc_tpdecode_decode_migrate(d, 5, buf, size, &mg), -EINVAL);
	snprintf(err, sizeof(err), "%s", wc_tpdecode_error(d));
	cr_expect(strstr(err, "sched:sched_migrate_task") && strstr(err, "comm"), "%s", err);
	put(buf, text, "comm", (uint64_t)0xffffu << 16 | 0xffffu);
	cr_assert_eq(wc_tpdecode_decode_migrate(d, 5, buf, size, &mg), -EINVAL);
	free(buf);
}

/* ---- this machine: its tracefs format, and a sched_switch the kernel writes ---- */

static char *tracefs_file(const char *event, const char *file)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[256];

	for (size_t i = 0; i < 2; i++) {
		char *text;

		snprintf(path, sizeof(path), "%s/events/sched/%s/%s", roots[i], event, file);
		text = read_file(path);
		if (text)
			return text;
	}
	return NULL;
}

Test(tpdecode, live_sched_switch)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	char *text = tracefs_file("sched_switch", "format");
	char *id = tracefs_file("sched_switch", "id");
	char comm[17] = "";
	size_t pages = 1 + 16, page = (size_t)sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *meta;
	uint64_t head, tail;
	int fd, found = 0;
	pid_t tid = (pid_t)syscall(SYS_gettid);

	if (!text || !id) {
		free(text);
		free(id);
		cr_skip_test("tracefs is not readable here (mount it, or run as root)");
	}
	keep(text);
	keep(id);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = strtoull(id, NULL, 10);
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_RAW;
	attr.disabled = 1;
	attr.exclude_kernel = 0;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		cr_skip_test("perf_event_open(sched:sched_switch): %s", strerror(errno));
	meta = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	cr_assert_neq(meta, MAP_FAILED);

	d = wc_tpdecode_new();
	cr_assert_not_null(d);
	add(text);
	tp_bind(1, "sched:sched_switch", WC_TP_SWITCH);
	prctl(PR_GET_NAME, comm);

	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < 3; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 2000000 }, NULL);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);

	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	tail = meta->data_tail;
	while (tail < head) {
		uint8_t *ring = (uint8_t *)meta + meta->data_offset;
		uint64_t size = meta->data_size;
		struct perf_event_header h;
		uint8_t rec[4096];

		for (size_t i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = ring[(tail + i) % size];
		cr_assert(h.size >= sizeof(h) && h.size <= sizeof(rec));
		for (size_t i = 0; i < h.size; i++)
			rec[i] = ring[(tail + i) % size];
		tail += h.size;
		if (h.type == PERF_RECORD_SAMPLE) {
			uint32_t raw_size;
			struct wc_switch sw;
			int ret;

			memcpy(&raw_size, rec + sizeof(h), 4);
			ret = wc_tpdecode_decode_switch(d, 1, rec + sizeof(h) + 4, raw_size, &sw);
			cr_assert_eq(ret, 0, "%s", wc_tpdecode_error(d));
			cr_log_info("live: %s/%d -> %s/%d state %s raw %#llx", sw.prev_comm,
				    sw.prev_tid, sw.next_comm, sw.next_tid, sw.state_text,
				    (unsigned long long)sw.prev_state_raw);
			if (sw.prev_tid == tid) {
				cr_expect_str_eq(sw.prev_comm, comm);
				/* nanosleep: switched out sleeping, unless preempted first */
				cr_expect(sw.state == 'S' || sw.preempted, "state %s",
					  sw.state_text);
				found += sw.state == 'S';
			}
		}
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	munmap(meta, pages * page);
	close(fd);
	cr_expect_geq(found, 1, "no sched_switch of this thread going to sleep was seen");
}

Test(tpdecode, wakeups_6_1_6_1_rt_6_12)
{
	static const char *const dirs[] = { "linux-6.1", "linux-6.1-rt", "linux-6.12" };
	struct wc_wakeup wk;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		wk = wakeup_of(dirs[i], "sched_waking", 7);
		cr_expect_eq(wk.success, 1, "%s: no success field: 1", dirs[i]);
		cr_expect_eq(wk.target_cpu, 3, "%s", dirs[i]);
		wk = wakeup_of(dirs[i], "sched_wakeup", 8);
		cr_expect_eq(wk.target_cpu, 3, "%s", dirs[i]);
		wk = wakeup_of(dirs[i], "sched_wakeup_new", 9);
		cr_expect_eq(wk.target_cpu, 3, "%s", dirs[i]);
		tpdecode_fini();
	}
}
