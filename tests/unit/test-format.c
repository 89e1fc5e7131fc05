/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-format.c - every record type round-trips; headers and trailers are checked. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/reader.h"
#include "common/rectypes.h"
#include "common/writer.h"
#include "trace-util.h"

static struct tu_trace trace;

static void fini(void)
{
	tu_trace_free(&trace);
}

TestSuite(format, .fini = fini);

/* Read the whole file; check each record against the copy; return the count. */
static size_t read_all(const char *path, uint8_t **expect, size_t nexpect,
		       enum wc_reader_state want)
{
	struct wc_reader *r = wc_reader_open(path);
	const struct wc_rec_header *h;
	size_t n = 0;

	cr_assert_not_null(r);
	while (wc_reader_next(r, &h)) {
		if (h->type == WC_REC_TRAILER)
			continue;
		cr_assert_lt(n, nexpect, "more records than written");
		cr_assert_eq(h->size, ((struct wc_rec_header *)expect[n])->size, "record %zu size",
			     n);
		cr_assert_arr_eq(h, expect[n], h->size, "record %zu (type %u) differs", n, h->type);
		n++;
	}
	cr_assert_eq(wc_reader_state(r), want, "state %s: %s",
		     wc_reader_state_name(wc_reader_state(r)), wc_reader_error(r));
	wc_reader_free(r);
	return n;
}

Test(format, every_type_round_trips)
{
	cr_assert_eq(tu_write_trace(&trace, tu_ntypes * 3, 0, 1, NULL), 0);
	cr_assert_eq(read_all(trace.path, trace.recs, trace.nrec, WC_READER_CLEAN), trace.nrec);
}

Test(format, round_trips_across_many_frames)
{
	/* one frame per 5 records: the time base restarts in each frame */
	cr_assert_eq(tu_write_trace(&trace, 500, 5, 1, NULL), 0);
	cr_assert_eq(read_all(trace.path, trace.recs, trace.nrec, WC_READER_CLEAN), trace.nrec);
}

Test(format, small_frames_by_size)
{
	struct wc_writer_opts o = { .frame_bytes = 300 };

	cr_assert_eq(tu_write_trace(&trace, 400, 0, 1, &o), 0);
	cr_assert_eq(read_all(trace.path, trace.recs, trace.nrec, WC_READER_CLEAN), trace.nrec);
}

Test(format, times_are_absolute_and_stored_as_deltas)
{
	struct wc_rec_sample s = { .h = { sizeof(s), WC_REC_SAMPLE, WC_REC_F_TIME } };
	uint64_t times[] = { 5000, 4000, 1ull << 62, 7, 0, UINT64_MAX };
	const struct wc_rec_header *h;
	struct wc_reader *r;
	size_t i = 0;
	int fd;

	strcpy(trace.path, "/tmp/wct-test-XXXXXX");
	fd = mkstemp(trace.path);
	struct wc_writer *w = wc_writer_new(fd, NULL);
	cr_assert_not_null(w);
	for (size_t k = 0; k < 6; k++) {
		s.time_ns = times[k];
		cr_assert_eq(wc_writer_add(w, &s), 0);
	}
	cr_assert_eq(wc_writer_close(w, 10, 0), 0);
	wc_writer_free(w);
	close(fd);

	/* on disk the second record holds 4000 - 5000, not 4000: look at raw content */
	r = wc_reader_open(trace.path);
	cr_assert_not_null(r);
	while (wc_reader_next(r, &h)) {
		if (h->type == WC_REC_SAMPLE)
			cr_assert_eq(((const struct wc_rec_sample *)h)->time_ns, times[i++]);
		else
			cr_assert_eq(((const struct wc_rec_trailer *)h)->time_ns, 10);
	}
	cr_assert_eq(i, 6);
	cr_assert_eq(wc_reader_state(r), WC_READER_CLEAN, "%s", wc_reader_error(r));
	wc_reader_free(r);
}

Test(format, unknown_types_are_skipped_by_size)
{
	static uint64_t buf[65536 / 8];
	const struct wc_rec_header *h;
	struct wc_reader *r;
	size_t n = 0;
	int fd;

	strcpy(trace.path, "/tmp/wct-test-XXXXXX");
	fd = mkstemp(trace.path);
	struct wc_writer *w = wc_writer_new(fd, NULL);
	for (uint32_t i = 0; i < 20; i++) {
		/* types 200 and 201 are from the future; they carry times that move the base */
		uint16_t type = i % 3 ? (uint16_t)(200 + i % 2) : WC_REC_SAMPLE;

		tu_make_record(buf, type, i);
		cr_assert_eq(wc_writer_add(w, buf), 0);
	}
	cr_assert_eq(wc_writer_close(w, 1, 0), 0);
	wc_writer_free(w);
	close(fd);

	r = wc_reader_open(trace.path);
	while (wc_reader_next(r, &h)) {
		if (h->type == WC_REC_SAMPLE) {
			tu_make_record(buf, WC_REC_SAMPLE, (uint32_t)n * 3);
			cr_assert_arr_eq(h, buf, sizeof(struct wc_rec_sample));
			n++;
		}
		cr_assert_lt(h->type, WC_REC_TYPE_COUNT);
	}
	cr_assert_eq(n, 7);
	cr_assert_eq(wc_reader_skipped(r), 13);
	cr_assert_eq(wc_reader_state(r), WC_READER_CLEAN, "%s", wc_reader_error(r));
	wc_reader_free(r);
}

/* Overwrite len bytes at off in the file. */
static void patch(const char *path, off_t off, const void *bytes, size_t len)
{
	int fd = open(path, O_WRONLY);

	cr_assert_geq(fd, 0);
	cr_assert_eq(pwrite(fd, bytes, len, off), (ssize_t)len);
	close(fd);
}

static void expect_header_failure(enum wc_reader_state want, const char *words)
{
	const struct wc_rec_header *h;
	struct wc_reader *r = wc_reader_open(trace.path);

	cr_assert_not_null(r);
	cr_assert_eq(wc_reader_next(r, &h), 0, "no record from a bad header");
	cr_assert_eq(wc_reader_state(r), want, "state %s: %s",
		     wc_reader_state_name(wc_reader_state(r)), wc_reader_error(r));
	cr_assert_not_null(strstr(wc_reader_error(r), words), "error \"%s\" lacks \"%s\"",
			   wc_reader_error(r), words);
	wc_reader_free(r);
}

Test(format, bad_magic_is_corrupt_at_byte_0)
{
	cr_assert_eq(tu_write_trace(&trace, 10, 0, 1, NULL), 0);
	patch(trace.path, 0, "PERFILE2", 8);
	expect_header_failure(WC_READER_CORRUPT, "bad magic at byte 0");
}

Test(format, other_major_version_is_unsupported)
{
	uint16_t v = 2;
	char want[32];

	cr_assert_eq(tu_write_trace(&trace, 10, 0, 1, NULL), 0);
	patch(trace.path, 12, &v, 2);

	snprintf(want, sizeof(want), "version 2.%d", WC_FILE_VERSION_MINOR); /* minor as written */
	expect_header_failure(WC_READER_UNSUPPORTED, want);
}

Test(format, unknown_incompat_feature_is_unsupported)
{
	uint64_t f = 1u << 5;

	cr_assert_eq(tu_write_trace(&trace, 10, 0, 1, NULL), 0);
	patch(trace.path, 32, &f, 8);
	expect_header_failure(WC_READER_UNSUPPORTED, "features 0x20");
}

Test(format, unknown_compat_feature_and_newer_minor_are_read)
{
	uint64_t f = 1u << 9;
	uint16_t minor = 7;

	cr_assert_eq(tu_write_trace(&trace, 30, 0, 1, NULL), 0);
	patch(trace.path, 24, &f, 8);
	patch(trace.path, 14, &minor, 2);
	cr_assert_eq(read_all(trace.path, trace.recs, trace.nrec, WC_READER_CLEAN), trace.nrec);
}

Test(format, byte_swapped_file_is_refused)
{
	uint32_t swapped = 0x04030201;

	cr_assert_eq(tu_write_trace(&trace, 10, 0, 1, NULL), 0);
	patch(trace.path, 8, &swapped, 4);
	expect_header_failure(WC_READER_CORRUPT, "byte-order");
}

Test(format, empty_file_is_not_a_trace)
{
	strcpy(trace.path, "/tmp/wct-test-XXXXXX");
	close(mkstemp(trace.path));
	expect_header_failure(WC_READER_CORRUPT, "not a wcrec trace file (empty)");
}

/* Under 64 bytes: a trace cut inside its header begins with the magic; a text does not. */
Test(format, short_file_is_not_a_trace_unless_it_begins_like_one)
{
	int fd;

	strcpy(trace.path, "/tmp/wct-test-XXXXXX");
	fd = mkstemp(trace.path);
	cr_assert_eq(write(fd, "hello\n", 6), 6);
	close(fd);
	expect_header_failure(WC_READER_CORRUPT, "bad magic at byte 0, 6 bytes");
	fd = open(trace.path, O_WRONLY | O_TRUNC);
	cr_assert_eq(write(fd, WC_FILE_MAGIC, 5), 5);
	close(fd);
	expect_header_failure(WC_READER_TRUNCATED,
			      "file ends at byte 5, inside the 64-byte header");
}

Test(format, trailer_totals_must_agree)
{
	/* a forged trailer claiming one stack record too many */
	struct {
		struct wc_rec_trailer t;
		uint64_t counts[WC_REC_TYPE_COUNT];
	} tr = { 0 };
	static uint64_t buf[65536 / 8];
	int fd;

	strcpy(trace.path, "/tmp/wct-test-XXXXXX");
	fd = mkstemp(trace.path);
	struct wc_writer *w = wc_writer_new(fd, NULL);
	uint32_t size = tu_make_record(buf, WC_REC_STACK, 3);

	cr_assert_eq(wc_writer_add(w, buf), 0);
	tr.t.h = (struct wc_rec_header){ sizeof(tr), WC_REC_TRAILER, WC_REC_F_TIME };
	tr.t.ncounts = WC_REC_TYPE_COUNT;
	tr.t.bytes_uncompressed = size;
	tr.counts[WC_REC_STACK] = 2;
	cr_assert_eq(wc_writer_add(w, &tr), 0);
	cr_assert_eq(wc_writer_flush(w), 0);
	wc_writer_free(w);
	close(fd);
	cr_assert_eq(read_all(trace.path, (uint8_t *[]){ (uint8_t *)buf }, 1, WC_READER_CORRUPT),
		     1);
}

Test(format, data_after_the_trailer_is_corrupt)
{
	static uint64_t buf[65536 / 8];
	int fd;

	strcpy(trace.path, "/tmp/wct-test-XXXXXX");
	fd = mkstemp(trace.path);
	struct wc_writer *w = wc_writer_new(fd, NULL);
	tu_make_record(buf, WC_REC_ROUND, 0);
	cr_assert_eq(wc_writer_add(w, buf), 0);
	cr_assert_eq(wc_writer_close(w, 5, 0), 0);
	cr_assert_eq(wc_writer_add(w, buf), 0); /* a writer misused: a frame after the trailer */
	cr_assert_eq(wc_writer_flush(w), 0);
	wc_writer_free(w);
	close(fd);
	cr_assert_eq(read_all(trace.path, (uint8_t *[]){ (uint8_t *)buf }, 1, WC_READER_CORRUPT),
		     1);
}

Test(format, unclosed_file_is_truncated)
{
	cr_assert_eq(tu_write_trace(&trace, 40, 0, 0, NULL), 0);
	cr_assert_eq(read_all(trace.path, trace.recs, trace.nrec, WC_READER_TRUNCATED), trace.nrec);
}

Test(format, missing_file_fails_with_errno)
{
	cr_assert_null(wc_reader_open("/nonexistent/x.wct"));
	cr_assert_eq(errno, ENOENT);
}

/*
 * Write tu_make_record(type, seq), then the same record as spoil() leaves it, to a new file in
 * trace.path; open it and read the first.  Return: the reader, at the spoiled record.
 */
static struct wc_reader *good_then_spoiled(uint16_t type, uint32_t seq, void (*spoil)(void *))
{
	static uint64_t buf[65536 / 8];
	const struct wc_rec_header *h;
	struct wc_reader *r;
	int fd;

	strcpy(trace.path, "/tmp/wct-test-XXXXXX");
	fd = mkstemp(trace.path);
	struct wc_writer *w = wc_writer_new(fd, NULL);
	tu_make_record(buf, type, seq);
	cr_assert_eq(wc_writer_add(w, buf), 0);
	spoil(buf);
	cr_assert_eq(wc_writer_add(w, buf), 0);
	cr_assert_eq(wc_writer_close(w, 5, 0), 0);
	wc_writer_free(w);
	close(fd);
	r = wc_reader_open(trace.path);
	cr_assert_not_null(r);
	cr_assert_eq(wc_reader_next(r, &h), 1, "the good record is read");
	cr_assert_eq(h->type, type);
	return r;
}

static void inline_one_byte_past(void *rec)
{
	struct wc_rec_tp_inline *x = rec; /* 32 + 37 bytes in 72 */

	x->size = (uint16_t)(x->h.size - sizeof(*x) + 1);
}

/* An inline payload longer than its record is corrupt, named by type and offset. */
Test(format, inline_payload_overrunning_its_record_is_corrupt)
{
	struct wc_reader *r = good_then_spoiled(WC_REC_TP_INLINE, 1, inline_one_byte_past);
	const struct wc_rec_header *h;

	cr_assert_eq(wc_reader_next(r, &h), 0, "the bad record is not delivered");
	cr_assert_eq(wc_reader_state(r), WC_READER_CORRUPT);
	cr_assert_not_null(strstr(wc_reader_error(r), "corrupt record of type 19"), "%s",
			   wc_reader_error(r));
	cr_assert_not_null(strstr(wc_reader_error(r), "overruns"), "%s", wc_reader_error(r));
	wc_reader_free(r);
}

static void ksym_end_at_start(void *rec)
{
	struct wc_rec_ksym *x = rec;

	x->end = x->start;
}

static void ksym_strings_past_the_record(void *rec)
{
	struct wc_rec_ksym *x = rec;

	x->strings_len = x->h.size - (uint32_t)sizeof(*x) + 8;
}

static void ksym_no_module_string(void *rec)
{
	struct wc_rec_ksym *x = rec;

	x->strings_len = sizeof("vfs_read"); /* the name's NUL ends the strings */
}

static void ksym_empty_name(void *rec)
{
	struct wc_rec_ksym *x = rec;

	memmove(x->strings, x->strings + 8, 2); /* "", "" */
	x->strings_len = 2;
}

/* A way to spoil a record, what it is, and what the reader's error must say of it. */
struct spoil {
	const char *what, *why;
	void (*spoil)(void *);
};

/* Each of the @n @cases, applied to record @seq (of @type) of a good trace, makes the reader
 * stop there as corrupt, naming the type and the case's reason. */
static void expect_corrupt(unsigned type, unsigned seq, const struct spoil *cases, size_t n)
{
	char type_text[64];

	snprintf(type_text, sizeof(type_text), "corrupt record of type %u", type);
	for (size_t c = 0; c < n; c++) {
		struct wc_reader *r = good_then_spoiled(type, seq, cases[c].spoil);
		const struct wc_rec_header *h;

		cr_assert_eq(wc_reader_next(r, &h), 0, "%s: the bad record is not delivered",
			     cases[c].what);
		cr_assert_eq(wc_reader_state(r), WC_READER_CORRUPT, "%s", cases[c].what);
		cr_assert_not_null(strstr(wc_reader_error(r), type_text), "%s: %s", cases[c].what,
				   wc_reader_error(r));
		cr_assert_not_null(strstr(wc_reader_error(r), cases[c].why), "%s: %s",
				   cases[c].what, wc_reader_error(r));
		wc_reader_free(r);
		unlink(trace.path);
	}
	trace.path[0] = '\0';
}

/* KSYM records with a bad range or bad strings are corrupt, each with its reason. */
Test(format, bad_kernel_symbols_are_corrupt)
{
	static const struct spoil cases[] = {
		{ "end at start", "not after its start", ksym_end_at_start },
		{ "strings past the record", "overrun", ksym_strings_past_the_record },
		{ "no module string", "without a module string", ksym_no_module_string },
		{ "empty name", "without a name", ksym_empty_name },
	};

	/* seq 2: "vfs_read", "" */
	expect_corrupt(WC_REC_KSYM, 2, cases, sizeof(cases) / sizeof(cases[0]));
}

static void image_one_byte_past(void *rec)
{
	struct wc_rec_image *x = rec;

	x->image_len = x->h.size - (uint32_t)sizeof(*x) - x->name_len + 1;
}

static void image_name_len_huge(void *rec)
{
	struct wc_rec_image *x = rec;

	x->name_len = UINT32_MAX; /* name_len + image_len wraps in 32 bits */
}

static void image_name_unterminated(void *rec)
{
	struct wc_rec_image *x = rec;

	x->data[x->name_len - 1] = ']';
}

static void image_name_empty(void *rec)
{
	struct wc_rec_image *x = rec;

	x->name_len = 1;
	x->data[0] = '\0';
}

static void image_name_nul_inside(void *rec)
{
	struct wc_rec_image *x = rec;

	x->data[2] = '\0'; /* "[v" NUL "so]" NUL */
}

/* IMAGE records whose name or image lie outside the record are corrupt, each with its reason. */
Test(format, bad_images_are_corrupt)
{
	static const struct spoil cases[] = {
		{ "image one byte past the record", "overrun the record", image_one_byte_past },
		{ "huge name length", "overrun the record", image_name_len_huge },
		{ "name without its NUL", "not a NUL-terminated string", image_name_unterminated },
		{ "empty name", "not a NUL-terminated string", image_name_empty },
		{ "NUL inside the name", "not a NUL-terminated string", image_name_nul_inside },
	};

	/* seq 3: "[vdso]" and 103 bytes */
	expect_corrupt(WC_REC_IMAGE, 3, cases, sizeof(cases) / sizeof(cases[0]));
}

/* A whole IMAGE record is read back as written: name, then the image's bytes. */
Test(format, image_round_trip)
{
	struct wc_reader *r = good_then_spoiled(WC_REC_IMAGE, 3, image_one_byte_past);
	const struct wc_rec_header *h = NULL;

	wc_reader_free(r);
	r = wc_reader_open(trace.path);
	cr_assert_eq(wc_reader_next(r, &h), 1);
	const struct wc_rec_image *x = (const void *)h;

	cr_assert_eq(x->name_len, 7);
	cr_assert_str_eq((const char *)x->data, "[vdso]");
	cr_assert_eq(x->image_len, 103);
	cr_assert_eq(x->h.size, WC_ALIGN8(16 + 7 + 103));
	for (uint32_t i = 0; i < x->image_len; i++)
		cr_assert_eq(x->data[7 + i], (uint8_t)(3 + i), "byte %u", i);
	wc_reader_free(r);
}

/* The table of record types: a row for every type, the classes consistent. */
Test(format, every_record_type_has_a_row)
{
	cr_assert_null(wc_rec_type_name(0));
	cr_assert_null(wc_rec_type_name(WC_REC_TYPE_COUNT));
	cr_assert_eq(wc_rec_type_flags(WC_REC_TYPE_COUNT), 0);
	for (uint32_t t = 1; t < WC_REC_TYPE_COUNT; t++) {
		const struct wc_rec_type_info *x = &wc_rec_types[t];

		cr_assert_not_null(x->name, "type %u", t);
		cr_expect_geq(x->min_size, sizeof(struct wc_rec_header), "%s", x->name);
		if (x->flags & WC_RECT_TIMED)
			cr_expect_geq(x->min_size, 16u, "%s: header and time", x->name);
		if (x->flags & WC_RECT_QUEUED)
			cr_expect(x->flags & WC_RECT_TIMED, "%s: queued by its time", x->name);
		cr_expect(!(x->flags & WC_RECT_QUEUED) || !(x->flags & WC_RECT_METADATA), "%s",
			  x->name);
	}
	cr_expect_str_eq(wc_rec_type_name(WC_REC_SWITCH_IN), "switch_in");
	cr_expect_eq(wc_rec_type_flags(WC_REC_TRAILER), WC_RECT_TIMED);
}
