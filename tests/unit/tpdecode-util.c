/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpdecode-util.c - see tpdecode-util.h. */
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

struct wc_tpdecode *d;
char *texts[64]; /* format texts read or made by the current test */
size_t ntexts;

void tpdecode_fini(void)
{
	wc_tpdecode_free(d);
	d = NULL;
	for (size_t i = 0; i < ntexts; i++)
		free(texts[i]);
	ntexts = 0;
}

/* Keep @text until tpdecode_fini(). */
char *keep(char *text)
{
	cr_assert_lt(ntexts, sizeof(texts) / sizeof(texts[0]));
	texts[ntexts++] = text;
	return text;
}

/* ---- format texts and payloads built from them ---- */

char *read_file(const char *path)
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

/* testdata/formats/DIR/EVENT.format, kept until tpdecode_fini(). */
const char *format(const char *dir, const char *event)
{
	const char *srcdir = getenv("srcdir");
	char path[512];
	char *text;

	snprintf(path, sizeof(path), "%s/testdata/formats/%s/%s.format", srcdir ? srcdir : ".", dir,
		 event);
	text = read_file(path);
	cr_assert_not_null(text, "cannot read %s (set srcdir)", path);
	return keep(text);
}

/* A copy of @text with every @from replaced by @to (at least one), kept until tpdecode_fini(). */
const char *edit(const char *text, const char *from, const char *to)
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
const char *rename_field(const char *text, const char *from, const char *to)
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
void field_pos(const char *text, const char *name, unsigned *off, unsigned *size)
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

bool has_field(const char *text, const char *name)
{
	char pat[64];

	snprintf(pat, sizeof(pat), " %s;", name);
	return strstr(text, pat) != NULL;
}

/* Bytes the record layout spans: the end of its last field. */
size_t record_bytes(const char *text)
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

void put(uint8_t *buf, const char *text, const char *name, uint64_t v)
{
	unsigned off, size;

	field_pos(text, name, &off, &size);
	cr_assert(size == 1 || size == 2 || size == 4 || size == 8);
	memcpy(buf + off, &v, size); /* little-endian host */
}

void put_comm(uint8_t *buf, const char *text, const char *name, const char *comm)
{
	unsigned off, size;

	field_pos(text, name, &off, &size);
	memset(buf + off, 0, size);
	memcpy(buf + off, comm, strlen(comm) < size ? strlen(comm) : size);
}

/* An all-zero payload of the record's size, common_type set. */
uint8_t *payload(const char *text, size_t *size)
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

void add(const char *text)
{
	int ret = wc_tpdecode_add_format(d, "sched", text);

	cr_assert_eq(ret, 0, "add_format: %d %s", ret, wc_tpdecode_error(d));
}

void tp_bind(uint16_t id, const char *name, enum wc_tp_role role)
{
	int ret = wc_tpdecode_bind(d, id, name, role);

	cr_assert_eq(ret, 0, "bind %s: %d %s", name, ret, wc_tpdecode_error(d));
}

/* A decoder holding the sched_switch format of @dir, bound to event id 1. */
const char *switch_of(const char *dir)
{
	const char *text = format(dir, "sched_switch");

	d = wc_tpdecode_new();
	cr_assert_not_null(d);
	add(text);
	tp_bind(1, "sched:sched_switch", WC_TP_SWITCH);
	return text;
}

/* Decode a switch of pid 100 "worker" to 200 "next" with @raw as prev_state. */
struct wc_switch switch_with(const char *text, uint64_t raw)
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

void expect_state(const char *text, uint64_t raw, const char *state_text, char state,
		  bool preempted)
{
	struct wc_switch sw = switch_with(text, raw);

	cr_expect_str_eq(sw.state_text, state_text, "raw %#llx", (unsigned long long)raw);
	cr_expect_eq(sw.state, state, "raw %#llx: state %c", (unsigned long long)raw, sw.state);
	cr_expect_eq(sw.preempted, preempted, "raw %#llx", (unsigned long long)raw);
}
