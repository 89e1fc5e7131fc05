/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-source-perf.c - the perf.data source on files built here byte by byte: one cpu-clock
 * event (type SOFTWARE), a synthesized COMM (time 0) and two samples with callchains between
 * FINISHED_ROUNDs.  Attrs of another size than ours read the same; COMPRESSED and COMPRESSED2
 * records cut at places that are not record boundaries give the records of the plain file; a
 * byte-swapped file is refused with its reason; a file cut at any byte ends without a crash.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "analyzer/core/source.h"

#define ST                                                                                         \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |           \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define ID 777u

struct bytes {
	uint8_t p[16384];
	size_t len;
};

static char path[64];
static struct bytes data, z, plain, got, file; /* static: 16 KiB each */

static void init(void)
{
	data.len = z.len = plain.len = got.len = file.len = 0;
}

static void fini(void)
{
	if (path[0])
		unlink(path);
	path[0] = 0;
}

TestSuite(source_perf, .init = init, .fini = fini);

static void put(struct bytes *b, const void *d, size_t n)
{
	cr_assert_leq(b->len + n, sizeof(b->p));
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void put64(struct bytes *b, uint64_t v)
{
	put(b, &v, 8);
}

static void header(struct bytes *b, uint32_t type, uint16_t misc, uint16_t size)
{
	struct perf_event_header h = { type, misc, size };

	put(b, &h, sizeof(h));
}

/* The data section: a synthesized COMM, two samples, FINISHED_ROUNDs. */
static void records(struct bytes *d)
{
	char comm[16] = "worker";

	header(d, PERF_RECORD_COMM, 0, 8 + 8 + 16 + 40);
	put64(d, (uint64_t)42 << 32 | 41); /* pid 41, tid 42 */
	put(d, comm, 16);
	for (int i = 0; i < 5; i++) /* the trailer: tid, time 0, cpu, identifier */
		put64(d, i == 4 ? ID : 0);
	for (int k = 0; k < 2; k++) {
		header(d, PERF_RECORD_SAMPLE, 0, 8 + 8 * 5 + 8 * 4);
		put64(d, ID);
		put64(d, (uint64_t)42 << 32 | 41);
		put64(d, 1000000 + 1000 * (uint64_t)k); /* time */
		put64(d, 1);				/* cpu 1 */
		put64(d, 250000);			/* period, ns */
		put64(d, 3);				/* callchain */
		put64(d, PERF_CONTEXT_USER);
		put64(d, 0x401000 + (uint64_t)k);
		put64(d, 0x402000);
		header(d, 68, 0, 8); /* FINISHED_ROUND */
	}
}

/* A file: header, attrs of @attr_size bytes (plus their ids section), data @d, no features. */
static void write_file(const struct bytes *d, size_t attr_size, const char *magic)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_CPU_CLOCK,
				     .sample_type = ST,
				     .sample_id_all = 1 };
	uint8_t attr[256] = { 0 };
	uint64_t attrs_off = 104, ids_off = attrs_off + attr_size + 16, data_off = ids_off + 8;
	struct bytes *f = &file;
	FILE *out;

	f->len = 0;
	a.size = (uint32_t)attr_size;
	memcpy(attr, &a, attr_size < sizeof(a) ? attr_size : sizeof(a));
	put(f, magic, 8);
	put64(f, 104);
	put64(f, attr_size + 16);
	put64(f, attrs_off);
	put64(f, attr_size + 16);
	put64(f, data_off);
	put64(f, d->len);
	for (int i = 0; i < 6; i++) /* event types, features */
		put64(f, 0);
	put(f, attr, attr_size);
	put64(f, ids_off);
	put64(f, 8);
	put64(f, ID);
	put(f, d->p, d->len);
	snprintf(path, sizeof(path), "/tmp/test-source-perf.%d", (int)getpid());
	out = fopen(path, "w");
	cr_assert_not_null(out);
	cr_assert_eq(fwrite(f->p, 1, f->len, out), f->len);
	fclose(out);
}

/* The records of the file at path, concatenated into @out; Return: the source's state. */
static enum wc_reader_state read_all(struct bytes *out)
{
	const struct wc_rec_header *h;
	struct wc_source *s = wc_source_open(path);
	enum wc_reader_state st;

	cr_assert_not_null(s, "%s", strerror(errno));
	cr_expect_str_eq(wc_source_name(s), "perf.data");
	out->len = 0;
	while (wc_source_next(s, &h))
		if (h->type != WC_REC_NOTE)
			put(out, h, h->size);
	st = wc_source_state(s);
	if (st != WC_READER_CLEAN)
		cr_log_warn("%s", wc_source_error(s));
	wc_source_free(s);
	return st;
}

Test(source_perf, attrs_of_another_size_read_the_same)
{
	struct bytes *small = &plain, *large = &got;
	const struct wc_rec_sample *x = NULL;
	const struct wc_rec_comm *c = NULL;

	records(&data);
	write_file(&data, PERF_ATTR_SIZE_VER0, "PERFILE2");
	cr_assert_eq(read_all(small), WC_READER_CLEAN);
	write_file(&data, sizeof(struct perf_event_attr) + 16, "PERFILE2"); /* a newer perf's */
	cr_assert_eq(read_all(large), WC_READER_CLEAN);
	for (size_t at = 0, size; at < large->len; at += size) {
		const struct wc_rec_header *h = (const void *)(large->p + at);

		size = h->size;

		if (h->type == WC_REC_SAMPLE && !x)
			x = (const void *)h;
		if (h->type == WC_REC_COMM)
			c = (const void *)h;
		if (h->type == WC_REC_EVENT_ATTR) /* the attr bytes differ in size: skip them */
			memset(small->p + at, 0, size), memset(large->p + at, 0, size);
	}
	cr_expect_eq(small->len, large->len);
	cr_expect_eq(memcmp(small->p, large->p, small->len), 0);
	cr_assert_not_null(x);
	cr_expect_eq(x->tid, 42);
	cr_expect_eq(x->pid, 41);
	cr_expect_eq(x->cpu, 1);
	cr_expect_eq(x->time_ns, 1000000);
	cr_expect_eq(x->period, 250000);
	cr_expect_eq(x->stack_id, 1);
	cr_assert_not_null(c);
	cr_expect_eq(c->time_ns, 1000000, "the synthesized COMM takes the first event's time");
	cr_expect(c->flags & WC_TASK_SYNTH);
	cr_expect_str_eq(c->comm, "worker");
}

Test(source_perf, compressed_records_cut_anywhere_give_the_plain_records)
{
	ZSTD_CStream *cs = ZSTD_createCStream();

	records(&data);
	write_file(&data, sizeof(struct perf_event_attr), "PERFILE2");
	cr_assert_eq(read_all(&plain), WC_READER_CLEAN);
	ZSTD_initCStream(cs, 3);
	for (size_t at = 0; at < data.len; at += 37) { /* 37: never a record boundary here */
		uint8_t buf[512];
		ZSTD_inBuffer in = { data.p + at, data.len - at < 37 ? data.len - at : 37, 0 };
		ZSTD_outBuffer out = { buf, sizeof(buf), 0 };

		cr_assert(!ZSTD_isError(ZSTD_compressStream(cs, &out, &in)));
		cr_assert(!ZSTD_isError(ZSTD_flushStream(cs, &out)));
		cr_assert_eq(in.pos, in.size);
		if (at % 2) { /* COMPRESSED: the zstd bytes fill it, its size unaligned */
			header(&z, 81, 0, (uint16_t)(8 + out.pos));
			put(&z, buf, out.pos);
			continue;
		}
		/* COMPRESSED2: u64 data_size, then the zstd bytes, then padding to 8 */
		size_t start = z.len, size = (16 + out.pos + 7) & ~(size_t)7;

		header(&z, 83, 0, (uint16_t)size);
		put64(&z, out.pos);
		put(&z, buf, out.pos);
		while (z.len < start + size)
			z.p[z.len++] = 0xee;
	}
	ZSTD_freeCStream(cs);
	write_file(&z, sizeof(struct perf_event_attr), "PERFILE2");
	cr_assert_eq(read_all(&got), WC_READER_CLEAN);
	cr_expect_eq(got.len, plain.len);
	cr_expect_eq(memcmp(got.p, plain.p, plain.len), 0);
}

Test(source_perf, a_byte_swapped_file_is_refused_with_its_reason)
{
	const struct wc_rec_header *h;
	struct wc_source *s;

	records(&data);
	write_file(&data, sizeof(struct perf_event_attr), "2ELIFREP");
	s = wc_source_open(path);
	cr_assert_not_null(s);
	while (wc_source_next(s, &h))
		;
	cr_expect_eq(wc_source_state(s), WC_READER_UNSUPPORTED);
	cr_expect_not_null(strstr(wc_source_error(s), "other byte order"), "%s",
			   wc_source_error(s));
	wc_source_free(s);
}

Test(source_perf, a_file_cut_at_any_byte_says_so)
{
	struct bytes *whole = &file;
	size_t bad = 0, first = 0;
	FILE *f;

	records(&data);
	write_file(&data, sizeof(struct perf_event_attr), "PERFILE2");
	f = fopen(path, "r");
	cr_assert_not_null(f);
	whole->len = fread(whole->p, 1, sizeof(whole->p), f);
	fclose(f);
	for (size_t cut = 0; cut < whole->len; cut++) {
		const struct wc_rec_header *h;
		struct wc_source *s;

		f = fopen(path, "w");
		fwrite(whole->p, 1, cut, f);
		fclose(f);
		s = wc_source_open(path);
		while (s && wc_source_next(s, &h))
			;
		/* one assertion at the end: Criterion reports each one to its runner */
		if ((!s || wc_source_state(s) == WC_READER_CLEAN || !wc_source_error(s)[0]) &&
		    !bad++)
			first = cut;
		wc_source_free(s);
	}
	cr_expect_eq(bad, 0, "%zu cuts read as whole files, the first at byte %zu", bad, first);
}
