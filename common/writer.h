/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * writer.h - stream records into a trace file (man/wcrec-trace.5).
 *
 * Records are staged in memory and compressed into one zstd frame (with content checksum)
 * when the frame is full (frame_bytes of records), when the caller flushes, or when
 * flush_interval_ms has passed since the last frame: checked on each wc_writer_tick() and
 * every 1024th wc_writer_add(), on CLOCK_MONOTONIC_COARSE.  A caller whose events may stop
 * (a recorder's poll loop) calls wc_writer_tick() at least every flush_interval_ms.
 * A frame holds whole records only, so a file cut anywhere still yields every record of
 * its complete frames.
 */
#ifndef WC_WRITER_H
#define WC_WRITER_H

#include <stdint.h>

#include "wct.h"

struct wc_writer;
struct wc_stack_table;

struct wc_writer_opts {
	int level;		    /* zstd level, 1..19 (ZSTD_maxCLevel() allowed); 0 = 3 */
	uint32_t flush_interval_ms; /* 0 = 1000 */
	uint32_t frame_bytes;	    /* uncompressed bytes per frame, 0 = 4 MiB, at most 4 MiB */
};

/**
 * wc_writer_new() - start a trace file on an open file descriptor
 * @fd:   where to write, positioned at the start of the file; the caller keeps it open
 *        until wc_writer_free() and then closes it
 * @opts: NULL for the defaults
 *
 * Writes the file header at once.
 *
 * Return: the writer, or NULL with errno set (EINVAL for a bad level, ENOMEM, or the error of
 * write(2): ENOSPC, EIO, ...).
 */
struct wc_writer *wc_writer_new(int fd, const struct wc_writer_opts *opts);

/**
 * wc_writer_add() - append one record
 * @w:   writer
 * @rec: a record: its header's size (bytes, a multiple of 8, at least 8, at most
 *       WC_REC_MAX_BYTES) covers the whole record.  If WC_REC_F_TIME is in its flags, the
 *       u64 after the header is an absolute time in ns; the writer stores it delta-encoded.
 *       The record is copied; the caller keeps ownership.
 *
 * Return: 0, -EINVAL for a malformed record, or the first write error (-ENOSPC, -EIO, ...).
 * After a write error every call returns that error again.
 */
int wc_writer_add(struct wc_writer *w, const void *rec);

/**
 * wc_writer_stack() - store a callchain once and get its id
 * @w:     writer the STACK record goes to when the callchain is new
 * @table: the file's stack table
 * @ips:   nr addresses, leaf first, perf context markers included
 * @id:    set to the stack id (never WC_STACK_NONE)
 *
 * Return: 0, -EINVAL for a callchain longer than a record holds, or the error of
 * wc_stack_table_add(), the stack hook or wc_writer_add().  Once an id was handed out whose STACK
 * record could not be written, the writer keeps failing with that error, so no event refers to it.
 */
int wc_writer_stack(struct wc_writer *w, struct wc_stack_table *table, const uint64_t *ips,
		    uint32_t nr, uint32_t *id);

/*
 * wc_writer_stack_hook - called by wc_writer_stack() with a callchain seen for the first time,
 * before its STACK record is written (its ips and nr as given).  It may add records to the
 * writer, which then come before the STACK record.  Return: 0, or a negative errno that
 * wc_writer_stack() returns, and that stops the file (the id was handed out).
 */
typedef int (*wc_writer_stack_hook)(void *ctx, struct wc_writer *w, const uint64_t *ips,
				    uint32_t nr);

/**
 * wc_writer_set_stack_hook() - call @fn, with @ctx, for each new callchain (NULL: none)
 *
 * wcrec writes the KSYM records of a callchain's kernel functions this way.
 */
void wc_writer_set_stack_hook(struct wc_writer *w, wc_writer_stack_hook fn, void *ctx);

/*
 * wc_writer_record_hook - called by wc_writer_add() with each record of the types it was set
 * for, before that record is staged.  It may add records (of other types), which then come
 * before it.  Return: 0, or a negative errno that wc_writer_add() returns and that stops the
 * file, as a write error does.
 */
typedef int (*wc_writer_record_hook)(void *ctx, struct wc_writer *w,
				     const struct wc_rec_header *rec);

/**
 * wc_writer_set_record_hook() - call @fn, with @ctx, for each record whose type's bit
 * (1 << type, types below 64) is in @types (NULL: none)
 *
 * wcrec learns of the mapped files from the MMAP records, and writes the USYM records of a
 * round's new user addresses before its ROUND record, this way.
 */
void wc_writer_set_record_hook(struct wc_writer *w, uint64_t types, wc_writer_record_hook fn,
			       void *ctx);

/*
 * wc_writer_flush_hook - called by wc_writer_flush() before a frame with records is compressed
 * (not by wc_writer_close(), and not again while it runs).  It may add records, which go into
 * that frame (or, when it fills, the next).  Return: 0 or a negative errno, which stops the
 * file as a write error does.
 */
typedef int (*wc_writer_flush_hook)(void *ctx, struct wc_writer *w);

/**
 * wc_writer_set_flush_hook() - call @fn, with @ctx, before each frame is written (NULL: none)
 *
 * wcrec writes the USYM records of the user functions of the frame's callchains this way.
 */
void wc_writer_set_flush_hook(struct wc_writer *w, wc_writer_flush_hook fn, void *ctx);

/**
 * wc_writer_payload() - store a tracepoint payload once and get its id
 * @w:        writer the PAYLOAD record goes to when the payload is new
 * @table:    the file's payload table (a wc_stack_table of its own)
 * @event_id: EVENT_ATTR the payload belongs to
 * @data:     size bytes, at most WC_PAYLOAD_MAX_BYTES
 * @id:       set to the payload id (WC_PAYLOAD_NONE when size is 0)
 *
 * Return: 0, -EINVAL when size is too large, or the error of wc_stack_table_add() or
 * wc_writer_add().
 */
int wc_writer_payload(struct wc_writer *w, struct wc_stack_table *table, uint16_t event_id,
		      const void *data, uint32_t size, uint32_t *id);

#define WC_PAYLOAD_MAX_BYTES 65528u

/**
 * wc_writer_flush() - end the current frame and write it out
 *
 * Return: 0 or the write error.
 */
int wc_writer_flush(struct wc_writer *w);

/**
 * wc_writer_tick() - flush if flush_interval_ms has passed since the last frame
 *
 * Call it from an event loop that may go quiet; wc_writer_add() checks the same.
 * Return: 0 or the write error.
 */
int wc_writer_tick(struct wc_writer *w);

/**
 * wc_writer_close() - write the trailer and the last frame
 * @end_time_ns: end of the recording, ns on the recording clock
 * @flags:       WC_TRAILER_*
 *
 * The file is complete afterwards (not fsync'ed).  Only wc_writer_free() may follow.
 * Return: 0 or the write error.
 */
int wc_writer_close(struct wc_writer *w, uint64_t end_time_ns, uint32_t flags);

struct wc_writer_stats {
	uint64_t records;		    /* records added, trailer included */
	uint64_t counts[WC_REC_TYPE_COUNT]; /* records added by type */
	uint64_t bytes_uncompressed;	    /* record bytes added */
	uint64_t bytes_written;		    /* bytes written to the file, header included, and the
					     * part of a frame whose write failed (ENOSPC) */
	uint64_t frames;		    /* frames written */
};

/** wc_writer_stats() - figures so far; bytes_written is what reached the file. */
void wc_writer_stats(const struct wc_writer *w, struct wc_writer_stats *stats);

/** wc_writer_free() - free the writer without writing anything more; NULL is a no-op. */
void wc_writer_free(struct wc_writer *w);

#endif /* WC_WRITER_H */
