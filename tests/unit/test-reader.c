/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-reader.c - the reader on damaged files: cut at every byte, and random byte flips.
 * It must deliver exactly what survives, say how the file ended and where, and never crash
 * or loop.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/reader.h"
#include "trace-util.h"

static struct tu_trace trace;
static char copy[64];

static void fini(void)
{
	tu_trace_free(&trace);
	if (copy[0])
		unlink(copy);
	copy[0] = 0;
}

TestSuite(reader, .fini = fini);

struct outcome {
	size_t n; /* records delivered, trailer excluded, identical to the originals */
	bool trailer;
	bool all_match;	   /* every delivered record equals the original at its index */
	size_t first_diff; /* index of the first that did not */
	enum wc_reader_state state;
	char error[320];
	uint64_t error_offset;
};

static void read_outcome(const char *path, struct outcome *o)
{
	struct wc_reader *r = wc_reader_open(path);
	const struct wc_rec_header *h;

	memset(o, 0, sizeof(*o));
	o->all_match = true;
	cr_assert_not_null(r);
	while (wc_reader_next(r, &h)) {
		cr_assert_lt(o->n, trace.nrec * 4 + 8, "reader does not stop");
		if (h->type == WC_REC_TRAILER) {
			o->trailer = true;
			continue;
		}
		if (o->all_match && (o->n >= trace.nrec ||
				     h->size != ((struct wc_rec_header *)trace.recs[o->n])->size ||
				     memcmp(h, trace.recs[o->n], h->size))) {
			o->all_match = false;
			o->first_diff = o->n;
		}
		o->n++;
	}
	o->state = wc_reader_state(r);
	strcpy(o->error, wc_reader_error(r));
	o->error_offset = wc_reader_error_offset(r);
	wc_reader_free(r);
}

/* Cut the trace at every byte offset and check what the reader delivers. */
static void cut_everywhere(size_t nrec, size_t flush_every)
{
	struct outcome o;
	size_t prev_n = 0;

	cr_assert_eq(tu_write_trace(&trace, nrec, flush_every, 1, NULL), 0);
	for (uint64_t k = 0; k <= trace.file_size; k++) {
		size_t complete = 0, possible = 0;

		cr_assert_eq(tu_copy_prefix(trace.path, k, copy), 0);
		read_outcome(copy, &o);
		unlink(copy);
		for (size_t i = 0; i < trace.nrec; i++) {
			if (trace.frame_end[i] <= k)
				complete++;
			if (trace.frame_start[i] < k)
				possible++;
		}
		cr_assert(o.all_match, "cut at %lu: record %zu is not the one written", k,
			  o.first_diff);
		cr_assert_geq(o.n, complete, "cut at %lu: %zu records, %zu complete frames' worth",
			      k, o.n, complete);
		cr_assert_leq(o.n, possible, "cut at %lu: %zu records from %zu frames begun", k,
			      o.n, possible);
		cr_assert_geq(o.n, prev_n, "cut at %lu: fewer records than a shorter cut", k);
		prev_n = o.n;
		if (k == trace.file_size) {
			cr_assert_eq(o.state, WC_READER_CLEAN, "whole file: %s", o.error);
			cr_assert(o.trailer);
			cr_assert_eq(o.n, trace.nrec);
		} else if (k == 0) { /* an empty file is not a trace */
			cr_assert_eq(o.state, WC_READER_CORRUPT, "cut at 0: %s, %s",
				     wc_reader_state_name(o.state), o.error);
		} else {
			cr_assert_eq(o.state, WC_READER_TRUNCATED, "cut at %lu: %s, %s", k,
				     wc_reader_state_name(o.state), o.error);
			cr_assert_not_null(strstr(o.error, "byte"), "cut at %lu: \"%s\"", k,
					   o.error);
			cr_assert_leq(o.error_offset, k);
		}
		/* at a frame boundary, exactly the records of the frames before it */
		for (size_t i = 0; i < trace.nrec; i++) {
			if (trace.frame_start[i] == k && (i == 0 || trace.frame_end[i - 1] == k))
				cr_assert_eq(o.n, i,
					     "cut at frame boundary %lu: %zu records, want %zu", k,
					     o.n, i);
		}
	}
}

Test(reader, cut_at_every_byte_one_record_per_frame)
{
	cut_everywhere(48, 1);
}

Test(reader, cut_at_every_byte_several_records_per_frame)
{
	cut_everywhere(120, 7);
}

/* xorshift64*: the flips are the same on every run */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

Test(reader, random_byte_flips_are_reported_never_crash, .timeout = 600)
{
	const int flips = 3000;
	uint64_t seed = 0x5eed5eed12345ull;
	int fd, clean = 0, bad = 0;
	struct outcome o;

	cr_assert_eq(tu_write_trace(&trace, 200, 9, 1, NULL), 0);
	cr_assert_eq(tu_copy_prefix(trace.path, trace.file_size, copy), 0);
	fd = open(copy, O_RDWR);
	cr_assert_geq(fd, 0);
	for (int i = 0; i < flips; i++) {
		uint64_t off = rnd(&seed) % trace.file_size;
		uint8_t byte, flipped;

		cr_assert_eq(pread(fd, &byte, 1, (off_t)off), 1);
		flipped = byte ^ (uint8_t)(1 + rnd(&seed) % 255);
		cr_assert_eq(pwrite(fd, &flipped, 1, (off_t)off), 1);
		read_outcome(copy, &o);
		cr_assert_eq(pwrite(fd, &byte, 1, (off_t)off), 1);

		/* the frames before the damaged one are delivered intact */
		size_t before = 0;

		while (before < trace.nrec && trace.frame_end[before] <= off)
			before++;
		if (o.state == WC_READER_CLEAN) {
			/* a flip zstd and the reader cannot see must have changed nothing */
			cr_assert(o.all_match && o.n == trace.nrec && o.trailer,
				  "flip at %lu: clean but records differ (%zu of %zu)", off, o.n,
				  trace.nrec);
			clean++;
			continue;
		}
		bad++;
		cr_assert(o.state == WC_READER_CORRUPT || o.state == WC_READER_TRUNCATED ||
				  o.state == WC_READER_UNSUPPORTED,
			  "flip at %lu: state %s", off, wc_reader_state_name(o.state));
		cr_assert_not_null(strstr(o.error, "byte"), "flip at %lu: \"%s\"", off, o.error);
		cr_assert_leq(o.error_offset, trace.file_size);
		cr_assert_geq(o.n, before, "flip at %lu: %zu records, %zu before the damage", off,
			      o.n, before);
		cr_assert(o.all_match || o.first_diff >= before,
			  "flip at %lu: record %zu before the damage differs", off, o.first_diff);
	}
	close(fd);
	cr_log_info("%d flips: %d reported, %d harmless", flips, bad, clean);
	cr_assert_gt(bad, flips * 9 / 10, "most flips must be caught: %d of %d", bad, flips);
}
