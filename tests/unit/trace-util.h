/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace-util.h - build deterministic records and traces for the format tests. */
#ifndef WC_TESTS_TRACE_UTIL_H
#define WC_TESTS_TRACE_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "common/wct.h"
#include "common/writer.h"

/* Record types tu_make_record() builds, each with content that depends on seq. */
extern const uint16_t tu_types[];
extern const size_t tu_ntypes;

/**
 * tu_make_record() - build a record of one type into buf (at least 64 KiB, 8-aligned)
 * @seq: varies sizes, times and contents
 *
 * Timed records get time 1000000 + seq * 1234567 (ns).
 * Return: the record's size in bytes.
 */
uint32_t tu_make_record(void *buf, uint16_t type, uint32_t seq);

/* What tu_write_trace() wrote. */
struct tu_trace {
	char path[64];
	size_t nrec;	       /* records before the trailer */
	uint8_t **recs;	       /* copies, absolute times */
	uint64_t *frame_end;   /* file offset after the frame holding record i */
	uint64_t *frame_start; /* file offset where that frame starts */
	uint64_t file_size;
};

/**
 * tu_write_trace() - write nrec records (types cycling through tu_types) and a trailer to a
 * new temporary file, flushing a frame every flush_every records (0: never by hand).
 * @close_it: write the trailer
 * Return: 0 or -errno.
 */
int tu_write_trace(struct tu_trace *t, size_t nrec, size_t flush_every, int close_it,
		   const struct wc_writer_opts *opts);

/** tu_trace_free() - unlink the file and free the copies */
void tu_trace_free(struct tu_trace *t);

/** tu_copy_file() - copy the first len bytes of src to a new temporary file dst (char[64]) */
int tu_copy_prefix(const char *src, uint64_t len, char *dst);

#endif
