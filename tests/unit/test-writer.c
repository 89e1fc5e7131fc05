/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-writer.c - write errors reach the caller; frames are flushed by size, time and demand. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/reader.h"
#include "common/stack_table.h"
#include "common/writer.h"
#include "trace-util.h"

static char path[64];

static void fini(void)
{
	if (path[0])
		unlink(path);
	path[0] = 0;
}

TestSuite(writer, .fini = fini);

static int new_file(void)
{
	strcpy(path, "/tmp/wct-writer-XXXXXX");
	return mkstemp(path);
}

Test(writer, header_write_error_is_returned)
{
	int fd = open("/dev/full", O_WRONLY);

	cr_assert_geq(fd, 0);
	cr_assert_null(wc_writer_new(fd, NULL));
	cr_assert_eq(errno, ENOSPC);
	close(fd);
}

Test(writer, frame_write_error_is_returned_and_sticky)
{
	static uint64_t buf[65536 / 8];
	int fd = new_file();
	struct wc_writer *w = wc_writer_new(fd, NULL);

	cr_assert_not_null(w);
	/* from now on the descriptor writes to /dev/full */
	int full = open("/dev/full", O_WRONLY);
	cr_assert_eq(dup2(full, fd), fd);
	close(full);
	tu_make_record(buf, WC_REC_SAMPLE, 1);
	cr_assert_eq(wc_writer_add(w, buf), 0, "staged, nothing written yet");
	cr_assert_eq(wc_writer_flush(w), -ENOSPC);
	cr_assert_eq(wc_writer_add(w, buf), -ENOSPC);
	cr_assert_eq(wc_writer_close(w, 0, 0), -ENOSPC);
	wc_writer_free(w);
	close(fd);
}

Test(writer, closed_descriptor_gives_ebadf)
{
	static uint64_t buf[65536 / 8];
	int fd = new_file();
	struct wc_writer *w = wc_writer_new(fd, NULL);

	close(fd);
	tu_make_record(buf, WC_REC_ROUND, 1);
	cr_assert_eq(wc_writer_add(w, buf), 0);
	cr_assert_eq(wc_writer_close(w, 0, 0), -EBADF);
	wc_writer_free(w);
}

Test(writer, malformed_records_are_refused)
{
	int fd = new_file();
	struct wc_writer *w = wc_writer_new(fd, NULL);
	struct wc_rec_header h = { .size = 12, .type = WC_REC_ROUND };

	cr_assert_eq(wc_writer_add(w, &h), -EINVAL, "size not a multiple of 8");
	h.size = 8;
	h.type = 0;
	cr_assert_eq(wc_writer_add(w, &h), -EINVAL, "type 0");
	h.type = WC_REC_SAMPLE;
	h.flags = WC_REC_F_TIME;
	cr_assert_eq(wc_writer_add(w, &h), -EINVAL, "timed record without room for the time");
	wc_writer_free(w);
	close(fd);
}

Test(writer, bad_level_is_refused)
{
	struct wc_writer_opts o = { .level = 99 };
	int fd = new_file();

	cr_assert_null(wc_writer_new(fd, &o));
	cr_assert_eq(errno, EINVAL);
	close(fd);
}

static uint64_t file_size(int fd)
{
	return (uint64_t)lseek(fd, 0, SEEK_END);
}

Test(writer, flushes_a_frame_once_the_interval_has_passed)
{
	struct wc_writer_opts o = { .flush_interval_ms = 100 };
	struct timespec pause = { 0, 150 * 1000000 };
	static uint64_t buf[65536 / 8];
	int fd = new_file();
	struct wc_writer *w = wc_writer_new(fd, &o);

	tu_make_record(buf, WC_REC_SAMPLE, 1);
	cr_assert_eq(wc_writer_add(w, buf), 0);
	cr_assert_eq(wc_writer_tick(w), 0);
	cr_assert_eq(file_size(fd), sizeof(struct wc_file_header), "nothing before the interval");
	nanosleep(&pause, NULL);
	cr_assert_eq(wc_writer_tick(w), 0);
	cr_assert_gt(file_size(fd), sizeof(struct wc_file_header), "a frame after the interval");
	wc_writer_free(w);
	close(fd);

	/* what was flushed is readable, and the file says it was not closed */
	struct wc_reader *r = wc_reader_open(path);
	const struct wc_rec_header *h;

	cr_assert_eq(wc_reader_next(r, &h), 1);
	cr_assert_arr_eq(h, buf, sizeof(struct wc_rec_sample));
	cr_assert_eq(wc_reader_next(r, &h), 0);
	cr_assert_eq(wc_reader_state(r), WC_READER_TRUNCATED);
	cr_assert_not_null(strstr(wc_reader_error(r), "without a trailer"));
	wc_reader_free(r);
}

Test(writer, frames_stay_within_the_size_asked)
{
	struct wc_writer_opts o = { .frame_bytes = 4096 };
	struct wc_writer_stats st;
	static uint64_t buf[65536 / 8];
	int fd = new_file();
	struct wc_writer *w = wc_writer_new(fd, &o);

	for (uint32_t i = 0; i < 1000; i++) {
		tu_make_record(buf, WC_REC_SAMPLE, i);
		cr_assert_eq(wc_writer_add(w, buf), 0);
	}
	cr_assert_eq(wc_writer_close(w, 1, 0), 0);
	wc_writer_stats(w, &st);
	/* 1000 samples of 48 bytes and the trailer, at most 4096 bytes a frame */
	cr_assert_geq(st.frames, (1000 * 48 + 4095) / 4096);
	cr_assert_eq(st.records, 1001);
	cr_assert_eq(st.counts[WC_REC_SAMPLE], 1000);
	cr_assert_eq(st.bytes_written, file_size(fd));
	wc_writer_free(w);
	close(fd);
}

Test(writer, a_record_larger_than_a_frame_gets_a_frame_of_its_own)
{
	struct wc_writer_opts o = { .frame_bytes = 4096 };
	size_t big = 1u << 20;
	struct wc_rec_kallsyms *k = calloc(1, big);
	int fd = new_file();
	struct wc_writer *w = wc_writer_new(fd, &o);
	const struct wc_rec_header *h;

	memset(k->text, 'a', big - sizeof(*k) - 1);
	k->h = (struct wc_rec_header){ (uint32_t)big, WC_REC_KALLSYMS, 0 };
	k->text_len = (uint32_t)(big - sizeof(*k));
	cr_assert_eq(wc_writer_add(w, k), 0);
	cr_assert_eq(wc_writer_close(w, 1, 0), 0);
	wc_writer_free(w);
	close(fd);

	struct wc_reader *r = wc_reader_open(path);
	cr_assert_eq(wc_reader_next(r, &h), 1);
	cr_assert_eq(h->size, big);
	cr_assert_arr_eq(h, k, big);
	cr_assert_eq(wc_reader_next(r, &h), 1);
	cr_assert_eq(h->type, WC_REC_TRAILER);
	cr_assert_eq(wc_reader_next(r, &h), 0);
	cr_assert_eq(wc_reader_state(r), WC_READER_CLEAN, "%s", wc_reader_error(r));
	wc_reader_free(r);
	free(k);
}

Test(writer, stacks_are_written_once)
{
	uint64_t a[] = { 0xfffffffffffffe00ull, 0xffffffff81000010ull, 0xffffffff81000020ull };
	uint64_t b[] = { 0xfffffffffffffe00ull, 0xffffffff81000010ull };
	struct wc_stack_table *t = wc_stack_table_new(0);
	struct wc_writer_stats st;
	uint32_t ia, ib, ia2;
	int fd = new_file();
	struct wc_writer *w = wc_writer_new(fd, NULL);

	cr_assert_eq(wc_writer_stack(w, t, a, 3, &ia), 0);
	cr_assert_eq(wc_writer_stack(w, t, b, 2, &ib), 0);
	cr_assert_eq(wc_writer_stack(w, t, a, 3, &ia2), 0);
	cr_assert_eq(ia, ia2);
	cr_assert_neq(ia, ib);
	wc_writer_stats(w, &st);
	cr_assert_eq(st.counts[WC_REC_STACK], 2);
	cr_assert_eq(wc_writer_close(w, 1, 0), 0);
	wc_writer_free(w);
	wc_stack_table_free(t);
	close(fd);

	struct wc_reader *r = wc_reader_open(path);
	const struct wc_rec_header *h;
	const struct wc_rec_stack *s;

	cr_assert_eq(wc_reader_next(r, &h), 1);
	s = (const void *)h;
	cr_assert_eq(s->id, ia);
	cr_assert_eq(s->nr, 3);
	cr_assert_arr_eq(s->ips, a, sizeof(a));
	wc_reader_free(r);
}

/*
 * A write that fails part-way (the file size limit here, ENOSPC in real life) leaves a frame's
 * head in the file: bytes_written counts it, so a recorder's summary gives the file's size.
 */
Test(writer, bytes_written_counts_a_partial_frame)
{
	static uint64_t buf[65536 / 8];
	struct rlimit old, lim;
	struct wc_writer_stats st;
	int fd = new_file(), err = 0;
	struct wc_writer *w = wc_writer_new(fd, NULL);

	cr_assert_not_null(w);
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 100000;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	/* STACK records of distinct random-looking ips: zstd cannot shrink them much */
	for (uint32_t seq = 1; !err && seq < 100000; seq++) {
		struct wc_rec_stack *s = (void *)buf;

		s->h = (struct wc_rec_header){ sizeof(*s) + 512 * 8, WC_REC_STACK, 0 };
		s->id = seq;
		s->nr = 512;
		for (int i = 0; i < 512; i++)
			s->ips[i] = (seq * 6364136223846793005ull + (uint64_t)i) *
				    1442695040888963407ull;
		err = wc_writer_add(w, s);
		if (!err && seq % 8 == 0)
			err = wc_writer_flush(w);
	}
	setrlimit(RLIMIT_FSIZE, &old);
	cr_assert_eq(err, -EFBIG);
	wc_writer_stats(w, &st);
	cr_assert_eq(st.bytes_written, file_size(fd), "%llu counted, %llu in the file",
		     (unsigned long long)st.bytes_written, (unsigned long long)file_size(fd));
	cr_assert_eq(file_size(fd), 100000, "the write stopped at the limit");
	wc_writer_free(w);
	close(fd);
}
