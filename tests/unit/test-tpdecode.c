/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-tpdecode.c - sched payloads decoded from the format texts of several kernel eras
 * (testdata/formats, found through $srcdir), built here at the offsets each format text
 * gives, plus a live sched_switch captured through perf_event_open(2) on this machine.
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

static struct wc_tpdecode *d;
static char *texts[64]; /* format texts read or made by the current test */
static size_t ntexts;

static void fini(void)
{
	wc_tpdecode_free(d);
	d = NULL;
	for (size_t i = 0; i < ntexts; i++)
		free(texts[i]);
	ntexts = 0;
}

TestSuite(tpdecode, .fini = fini);

/* Keep @text until fini(). */
static char *keep(char *text)
{
	cr_assert_lt(ntexts, sizeof(texts) / sizeof(texts[0]));
	texts[ntexts++] = text;
	return text;
}

/* ---- format texts and payloads built from them ---- */

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = calloc(1, 1 << 16);
	cr_assert_not_null(buf);
	n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* testdata/formats/DIR/EVENT.format, kept until fini(). */
static const char *format(const char *dir, const char *event)
{
	const char *srcdir = getenv("srcdir");
	char path[512];
	char *text;

	snprintf(path, sizeof(path), "%s/testdata/formats/%s/%s.format", srcdir ? srcdir : ".",
		 dir, event);
	text = read_file(path);
	cr_assert_not_null(text, "cannot read %s (set srcdir)", path);
	return keep(text);
}

/* A copy of @text with every @from replaced by @to (at least one), kept until fini(). */
static const char *edit(const char *text, const char *from, const char *to)
{
	size_t n = 0, lf = strlen(from), lt = strlen(to);
	char *out, *o;

	for (const char *at = strstr(text, from); at; at = strstr(at + lf, from))
		n++;
	cr_assert_gt(n, 0, "no \"%s\" in the format", from);
	out = o = calloc(1, strlen(text) + n * lt + 1);
	cr_assert_not_null(out);
	for (const char *at; (at = strstr(text, from)); text = at + lf) {
		memcpy(o, text, (size_t)(at - text));
		o += at - text;
		memcpy(o, to, lt);
		o += lt;
	}
	strcpy(o, text);
	return keep(out);
}

/* @text with field @from renamed @to, in its declaration and in the print fmt. */
static const char *rename_field(const char *text, const char *from, const char *to)
{
	char a[64], b[64];

	snprintf(a, sizeof(a), " %s;", from);
	snprintf(b, sizeof(b), " %s;", to);
	text = edit(text, a, b);
	snprintf(a, sizeof(a), "REC->%s", from);
	snprintf(b, sizeof(b), "REC->%s", to);
	return strstr(text, a) ? edit(text, a, b) : text;
}

/* Offset and size of field @name, read from the format text by hand (not libtraceevent). */
static void field_pos(const char *text, const char *name, unsigned *off, unsigned *size)
{
	for (const char *line = text; *line;) {
		const char *eol = strchr(line, '\n'), *f = strstr(line, "field:");
		const char *semi, *stop, *start;

		if (!eol)
			eol = line + strlen(line);
		semi = f ? strchr(f, ';') : NULL;
		if (f && semi && semi < eol) {
			stop = semi;
			if (stop[-1] == ']')
				while (stop > f && *stop != '[')
					stop--;
			for (start = stop; start > f && start[-1] != ' '; start--)
				;
			if ((size_t)(stop - start) == strlen(name) &&
			    !strncmp(start, name, strlen(name))) {
				const char *at = strstr(semi, "offset:");

				cr_assert_eq(sscanf(at, "offset:%u;%*[ \t]size:%u", off, size), 2);
				return;
			}
		}
		line = *eol ? eol + 1 : eol;
	}
	cr_assert_fail("no field %s in the format", name);
}

static bool has_field(const char *text, const char *name)
{
	char pat[64];

	snprintf(pat, sizeof(pat), " %s;", name);
	return strstr(text, pat) != NULL;
}

/* Bytes the record layout spans: the end of its last field. */
static size_t record_bytes(const char *text)
{
	size_t end = 0;

	for (const char *p = strstr(text, "offset:"); p; p = strstr(p + 1, "offset:")) {
		unsigned off, size;

		cr_assert_eq(sscanf(p, "offset:%u;%*[ \t]size:%u", &off, &size), 2);
		if (off + size > end)
			end = off + size;
	}
	return end;
}

static void put(uint8_t *buf, const char *text, const char *name, uint64_t v)
{
	unsigned off, size;

	field_pos(text, name, &off, &size);
	cr_assert(size == 1 || size == 2 || size == 4 || size == 8);
	memcpy(buf + off, &v, size); /* little-endian host */
}

static void put_comm(uint8_t *buf, const char *text, const char *name, const char *comm)
{
	unsigned off, size;

	field_pos(text, name, &off, &size);
	memset(buf + off, 0, size);
	memcpy(buf + off, comm, strlen(comm) < size ? strlen(comm) : size);
}

/* An all-zero payload of the record's size, common_type set. */
static uint8_t *payload(const char *text, size_t *size)
{
	uint8_t *buf;
	unsigned id;

	*size = record_bytes(text);
	buf = calloc(1, *size);
	cr_assert_not_null(buf);
	cr_assert_eq(sscanf(strstr(text, "ID: "), "ID: %u", &id), 1);
	put(buf, text, "common_type", id);
	put(buf, text, "common_pid", 4242);
	return buf;
}

/* ---- decoder set-up ---- */

static void add(const char *text)
{
	int ret = wc_tpdecode_add_format(d, "sched", text);

	cr_assert_eq(ret, 0, "add_format: %d %s", ret, wc_tpdecode_error(d));
}

static void bind(uint16_t id, const char *name, enum wc_tp_role role)
{
	int ret = wc_tpdecode_bind(d, id, name, role);

	cr_assert_eq(ret, 0, "bind %s: %d %s", name, ret, wc_tpdecode_error(d));
}

/* A decoder holding the sched_switch format of @dir, bound to event id 1. */
static const char *switch_of(const char *dir)
{
	const char *text = format(dir, "sched_switch");

	d = wc_tpdecode_new();
	cr_assert_not_null(d);
	add(text);
	bind(1, "sched:sched_switch", WC_TP_SWITCH);
	return text;
}

/* Decode a switch of pid 100 "worker" to 200 "next" with @raw as prev_state. */
static struct wc_switch switch_with(const char *text, uint64_t raw)
{
	struct wc_switch sw;
	size_t size;
	uint8_t *buf = payload(text, &size);
	int ret;

	put_comm(buf, text, "prev_comm", "worker");
	put(buf, text, "prev_pid", 100);
	put(buf, text, "prev_prio", 120);
	put(buf, text, "prev_state", raw);
	put_comm(buf, text, "next_comm", "next");
	put(buf, text, "next_pid", 200);
	put(buf, text, "next_prio", 98);
	memset(&sw, 0x5a, sizeof(sw));
	ret = wc_tpdecode_decode_switch(d, 1, buf, size, &sw);
	cr_assert_eq(ret, 0, "decode: %d %s", ret, wc_tpdecode_error(d));
	free(buf);
	cr_assert_eq(sw.prev_tid, 100);
	cr_assert_eq(sw.next_tid, 200);
	cr_assert_eq(sw.prev_prio, 120);
	cr_assert_eq(sw.next_prio, 98);
	cr_assert_str_eq(sw.prev_comm, "worker");
	cr_assert_str_eq(sw.next_comm, "next");
	cr_assert_eq(sw.prev_state_raw, raw);
	return sw;
}

static void expect_state(const char *text, uint64_t raw, const char *state_text, char state,
			 bool preempted)
{
	struct wc_switch sw = switch_with(text, raw);

	cr_expect_str_eq(sw.state_text, state_text, "raw %#llx", (unsigned long long)raw);
	cr_expect_eq(sw.state, state, "raw %#llx: state %c", (unsigned long long)raw, sw.state);
	cr_expect_eq(sw.preempted, preempted, "raw %#llx", (unsigned long long)raw);
}

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
	expect_state(text, 0x1, "S", 'S', false);  /* again, from the cache */
	expect_state(text, 0x100, "R+", 'R', true);
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
	bind(1, "sched:sched_switch", WC_TP_SWITCH);
	expect_state(plain, 2, "2", '?', false);
}

Test(tpdecode, state_unknown_print_helper_keeps_the_fields)
{
	const char *text = edit(format("linux-6.18", "sched_switch"), "__print_flags(",
				"__print_no_such_helper(");

	d = wc_tpdecode_new();
	cr_assert_not_null(d);
	add(text);
	bind(1, "sched:sched_switch", WC_TP_SWITCH);
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
		bind(1, "sched:sched_switch", WC_TP_SWITCH);
		expect_state(text, 1, "?", '?', false);
		fini();
	}
	/* __get_str() is safe (libtraceevent checks the locator): still rendered */
	{
		const char *text = with_arg("next_prio=%d x=%s\"", "__get_str(prev_state)");

		d = wc_tpdecode_new();
		cr_assert_not_null(d);
		add(text);
		bind(1, "sched:sched_switch", WC_TP_SWITCH);
		expect_state(text, 1, "S", 'S', false);
		expect_state(text, 0xffff0001, "S", 'S', false); /* a locator far outside */
	}
}

/* Print fmts libtraceevent 1.7 crashes on, or divides by zero for: refused when added. */
Test(tpdecode, refuse_dangerous_print_fmts)
{
	static const char *const bad[] = {
		"sizeof(int)",       /* use after free in the parser */
		"REC->next_pid / 0", /* evaluated when printed */
		"REC->next_pid % 0",
		"REC->nope",         /* NULL field in __print_flags() */
		"\"x\".",            /* a string followed by '.' */
		"REC->next_pid;",
		"1 ? 2 : char REC->next_pid", /* NULL dereference in the parser */
		"char REC->next_pid", /* a cast without its parentheses */
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
		const char *text =
			edit(format("linux-6.18", "sched_switch"), "__print_flags(REC->prev_state",
			     "__print_flags(REC->nope");

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
	bind(id, name, WC_TP_WAKEUP);
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
	fini();

	wk = wakeup_of("linux-3.0", "sched_wakeup", 1);
	cr_expect_eq(wk.success, 0);
	cr_expect_eq(wk.target_cpu, 3);
	fini();

	wk = wakeup_of("linux-3.10", "sched_wakeup", 1);
	cr_expect_eq(wk.target_cpu, 3);
	fini();

	wk = wakeup_of("linux-4.14", "sched_waking", 1);
	cr_expect_eq(wk.success, 0); /* the field is there (the kernel wrote 1) */
	cr_expect_eq(wk.target_cpu, 3);
	wk = wakeup_of("linux-4.14", "sched_wakeup", 2);
	wk = wakeup_of("linux-4.14", "sched_wakeup_new", 3);
	fini();

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
	bind(3, "sched:sched_waking", WC_TP_WAKEUP);
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
	bind(1, "sched:sched_wakeup", WC_TP_WAKEUP);
	buf = payload(old, &size);
	put(buf, old, "target_cpu", 0xffffffffu); /* int, no "signed:": -1 */
	put(buf, old, "prio", 120);
	cr_assert_eq(wc_tpdecode_decode_wakeup(d, 1, buf, size, &wk), 0);
	free(buf);
	cr_expect_eq(wk.target_cpu, -1);
	cr_expect_eq(wk.prio, 120);

	add(small);
	bind(2, "sched:sched_waking", WC_TP_WAKEUP);
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
	bind(5, "sched:sched_migrate_task", WC_TP_MIGRATE);
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
	bind(5, "sched:sched_migrate_task", WC_TP_MIGRATE);
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

/* ---- errors ---- */

Test(tpdecode, missing_field_is_named)
{
	const char *text =
		rename_field(format("linux-6.18", "sched_switch"), "prev_state", "prev_st");

	d = wc_tpdecode_new();
	cr_assert_not_null(d);
	add(text);
	cr_assert_eq(wc_tpdecode_bind(d, 1, "sched:sched_switch", WC_TP_SWITCH), -EINVAL);
	cr_assert_str_eq(wc_tpdecode_error(d), "sched:sched_switch: no field prev_state");
	cr_assert_eq(wc_tpdecode_decode_switch(d, 1, "", 0, &(struct wc_switch){ 0 }), -ENOENT);

	text = rename_field(format("linux-4.14", "sched_wakeup"), "pid", "tgid");
	add(text);
	cr_assert_eq(wc_tpdecode_bind(d, 2, "sched:sched_wakeup", WC_TP_WAKEUP), -EINVAL);
	cr_assert_str_eq(wc_tpdecode_error(d), "sched:sched_wakeup: no field pid");
}

Test(tpdecode, field_of_the_wrong_shape)
{
	const char *text = edit(format("linux-6.18", "sched_switch"),
				"int prev_prio;\toffset:28;\tsize:4",
				"int prev_prio;\toffset:28;\tsize:3");

	d = wc_tpdecode_new();
	cr_assert_not_null(d);
	add(text);
	cr_assert_eq(wc_tpdecode_bind(d, 1, "sched:sched_switch", WC_TP_SWITCH), -EINVAL);
	cr_expect(strstr(wc_tpdecode_error(d), "sched:sched_switch: field prev_prio"), "%s",
		  wc_tpdecode_error(d));
}

Test(tpdecode, missing_format)
{
	d = wc_tpdecode_new();
	cr_assert_not_null(d);
	add(format("linux-6.18", "sched_waking"));
	cr_assert_eq(wc_tpdecode_bind(d, 1, "sched:sched_switch", WC_TP_SWITCH), -ENOENT);
	cr_assert_str_eq(wc_tpdecode_error(d), "sched:sched_switch: no format");
	cr_assert_eq(wc_tpdecode_bind(d, 1, "sched_switch", WC_TP_SWITCH), -EINVAL);
	cr_assert_eq(wc_tpdecode_bind(d, 1, "sched:", WC_TP_SWITCH), -EINVAL);
	cr_assert_eq(wc_tpdecode_bind(d, 1, NULL, WC_TP_SWITCH), -EINVAL);
	cr_assert_eq(wc_tpdecode_bind(d, 1, "sched:sched_waking", (enum wc_tp_role)9), -EINVAL);
}

Test(tpdecode, short_payload_every_length)
{
	const char *text = switch_of("linux-6.18");
	size_t full;
	uint8_t *good = payload(text, &full);
	struct wc_switch sw;

	put(good, text, "prev_state", 1);
	for (size_t n = 0; n < 56 + 8; n++) {
		uint8_t *buf = malloc(n ? n : 1);
		int ret;

		cr_assert_not_null(buf);
		memcpy(buf, good, n < full ? n : full);
		ret = wc_tpdecode_decode_switch(d, 1, buf, n, &sw);
		free(buf);
		if (n < full) {
			cr_assert_eq(ret, -EINVAL, "length %zu", n);
			cr_assert(strstr(wc_tpdecode_error(d), "sched:sched_switch: payload of"));
		} else {
			cr_assert_eq(ret, 0, "length %zu", n);
		}
	}
	cr_assert_eq(wc_tpdecode_decode_switch(d, 1, NULL, 100, &sw), -EINVAL);
	cr_assert_eq(wc_tpdecode_decode_switch(d, 1, good, 35, &sw), -EINVAL);
	cr_assert_str_eq(wc_tpdecode_error(d), "sched:sched_switch: payload of 35 bytes ends "
					       "before field prev_state (bytes 32 to 40)");
	free(good);
}

Test(tpdecode, unknown_id_and_wrong_role)
{
	const char *text = switch_of("linux-6.18");
	size_t size;
	uint8_t *buf = payload(text, &size);
	struct wc_wakeup wk;
	struct wc_switch sw;

	cr_assert_eq(wc_tpdecode_decode_switch(d, 2, buf, size, &sw), -ENOENT);
	cr_assert_str_eq(wc_tpdecode_error(d), "event id 2 is not bound");
	cr_assert_eq(wc_tpdecode_decode_switch(d, 65535, buf, size, &sw), -ENOENT);
	cr_assert_eq(wc_tpdecode_decode_wakeup(d, 1, buf, size, &wk), -EINVAL);
	cr_assert(strstr(wc_tpdecode_error(d), "sched:sched_switch"), "%s", wc_tpdecode_error(d));
	cr_assert_eq(wc_tpdecode_bind(d, 1, "sched:sched_switch", WC_TP_SWITCH), -EEXIST);
	bind(65535, "sched:sched_switch", WC_TP_SWITCH); /* two ids, one event: fine */
	cr_assert_eq(wc_tpdecode_decode_switch(d, 65535, buf, size, &sw), 0);
	free(buf);
}

Test(tpdecode, formats_added_twice)
{
	const char *sw = format("linux-6.18", "sched_switch");

	d = wc_tpdecode_new();
	cr_assert_not_null(d);
	add(sw);
	cr_assert_eq(wc_tpdecode_add_format(d, "sched", sw), -EEXIST);
	cr_assert(strstr(wc_tpdecode_error(d), "sched:sched_switch"));
	/* Another event under an ID already taken. */
	cr_assert_eq(wc_tpdecode_add_format(d, "sched", edit(sw, "name: sched_switch", "name: x")),
		     -EEXIST);
	cr_assert(strstr(wc_tpdecode_error(d), "ID 372"), "%s", wc_tpdecode_error(d));
	/* The same name in another system is another event, given another ID. */
	cr_assert_eq(wc_tpdecode_add_format(d, "other", edit(sw, "ID: 372", "ID: 9999")), 0);
	cr_assert_eq(wc_tpdecode_role_of_kind(WC_EVENT_SWITCH), WC_TP_SWITCH);
	cr_assert_eq(wc_tpdecode_role_of_kind(WC_EVENT_WAKING), WC_TP_WAKEUP);
	cr_assert_eq(wc_tpdecode_role_of_kind(WC_EVENT_WAKEUP_NEW), WC_TP_WAKEUP);
	cr_assert_eq(wc_tpdecode_role_of_kind(WC_EVENT_MIGRATE), WC_TP_MIGRATE);
	cr_assert_eq(wc_tpdecode_role_of_kind(WC_EVENT_SAMPLE), 0);
}

Test(tpdecode, garbage_formats)
{
	static const char *const junk[] = {
		"",
		"hello world",
		"name: x\nID: abc\n",
		"name: x\nID: 5\nformat:\n\tfield:int;\n",
		"name:\n",
		"\xff\xfe",
		"name: z\nID: 7\nformat:\n\tfield:int a;\toffset:-8;\tsize:4;\n\nprint fmt: \"\"\n",
		/* valid layout, absurd field: may be added, refused at bind */
		"name: y\nID: 6\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\n\n"
		"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
		"\tfield:int pid;\toffset:4294967295;\tsize:99999999;\tsigned:1;\n"
		"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
		"\nprint fmt: \"%d\", REC->pid\n",
	};

	d = wc_tpdecode_new();
	cr_assert_not_null(d);
	cr_assert_eq(wc_tpdecode_add_format(d, "sched", NULL), -EINVAL);
	cr_assert_eq(wc_tpdecode_add_format(d, NULL, "name: x\n"), -EINVAL);
	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		int ret = wc_tpdecode_add_format(d, "sched", junk[i]);

		cr_assert(ret == -EINVAL || ret == 0, "junk %zu: %d", i, ret);
		cr_assert(ret == 0 || wc_tpdecode_error(d)[0], "junk %zu has no error text", i);
	}
	/* The last one parses; its field is refused at bind. */
	cr_assert_eq(wc_tpdecode_bind(d, 1, "sched:y", WC_TP_WAKEUP), -EINVAL);
	cr_assert_str_eq(wc_tpdecode_error(d),
			 "sched:y: field pid has an impossible offset or size");
}

/* Every prefix of a real format: refused or accepted, never a crash or an over-read. */
Test(tpdecode, truncated_formats)
{
	const char *text = format("linux-6.18", "sched_switch");
	size_t len = strlen(text), size;
	uint8_t *buf = payload(text, &size);

	for (size_t n = 0; n < len; n++) {
		char *cut = strndup(text, n);
		struct wc_switch sw;
		int ret;

		cr_assert_not_null(cut);
		d = wc_tpdecode_new();
		cr_assert_not_null(d);
		ret = wc_tpdecode_add_format(d, "sched", cut);
		cr_assert(ret == 0 || ret == -EINVAL, "prefix %zu: %d", n, ret);
		if (!ret && !wc_tpdecode_bind(d, 1, "sched:sched_switch", WC_TP_SWITCH)) {
			ret = wc_tpdecode_decode_switch(d, 1, buf, size, &sw);
			cr_assert(ret == 0 || ret == -EINVAL, "prefix %zu: %d", n, ret);
		}
		wc_tpdecode_free(d);
		d = NULL;
		free(cut);
	}
	free(buf);
}

/* Random byte changes in a format text, then random payloads. */
Test(tpdecode, mutated_formats)
{
	const char *text = format("linux-6.18", "sched_switch");
	size_t len = strlen(text);
	unsigned seed = 12345;

	for (int round = 0; round < 300; round++) {
		char *m = strdup(text);
		uint8_t buf[80];
		struct wc_switch sw;

		cr_assert_not_null(m);
		for (int k = 0; k < 1 + round % 4; k++)
			m[rand_r(&seed) % len] = " 0123456789;:[]abc\t\n"[rand_r(&seed) % 20];
		d = wc_tpdecode_new();
		cr_assert_not_null(d);
		if (!wc_tpdecode_add_format(d, "sched", m) &&
		    !wc_tpdecode_bind(d, 1, "sched:sched_switch", WC_TP_SWITCH)) {
			for (int p = 0; p < 20; p++) {
				size_t n = (size_t)rand_r(&seed) % sizeof(buf);
				uint8_t *pl = malloc(n ? n : 1);

				cr_assert_not_null(pl);
				for (size_t i = 0; i < n; i++)
					pl[i] = (uint8_t)rand_r(&seed);
				(void)wc_tpdecode_decode_switch(d, 1, pl, n, &sw);
				free(pl);
			}
		}
		wc_tpdecode_free(d);
		d = NULL;
		free(m);
	}
}

Test(tpdecode, free_null)
{
	wc_tpdecode_free(NULL);
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
	bind(1, "sched:sched_switch", WC_TP_SWITCH);
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
