/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reader.h - read a trace file (man/wcrec-trace.5) record by record.
 *
 * The reader decompresses one whole frame, which zstd verifies against its checksum, before
 * it hands out any record of it; only the last frame of a truncated file is delivered
 * unverified, up to its last complete record.  Every record handed out has been checked
 * for size and for the internal lengths of the types this version knows, so a consumer may
 * index within them without further checks; records of unknown types are skipped by size.
 */
#ifndef WC_READER_H
#define WC_READER_H

#include <stdint.h>

#include "wct.h"

struct wc_reader;

/* How the reading ended, or WC_READER_OK while records may follow. */
enum wc_reader_state {
	WC_READER_OK = 0,
	WC_READER_CLEAN,       /* the trailer was read and agrees with what came before it */
	WC_READER_TRUNCATED,   /* the file ends early: mid-frame, or before the trailer */
	WC_READER_CORRUPT,     /* bad magic, impossible record, zstd error, ... */
	WC_READER_UNSUPPORTED, /* another major version, or unknown incompatible features */
	WC_READER_IO_ERROR,    /* read(2) failed */
};

/**
 * wc_reader_open() - open a trace file and read its header
 * @path: the file
 *
 * A damaged or foreign header is not an error here: the reader opens, and the first
 * wc_reader_next() returns 0 with the state telling why.
 *
 * Return: the reader, or NULL with errno set (from open(2)/fstat(2), or ENOMEM).
 */
struct wc_reader *wc_reader_open(const char *path);

/**
 * wc_reader_open_fd() - as wc_reader_open(), on the file open at @fd, its offset at 0 (the
 * offsets in errors count from there); the reader owns @fd from the call on (closed by
 * wc_reader_free(), or here when NULL is returned).
 * Return: the reader, or NULL with errno set (from fstat(2), EISDIR, or ENOMEM).
 */
struct wc_reader *wc_reader_open_fd(int fd);

/**
 * wc_reader_next() - the next record
 * @rec: set to the record, borrowed: valid until the next call of wc_reader_next() or
 *       wc_reader_free().  A timed record (WC_REC_F_TIME) holds its absolute time in ns.
 *
 * Return: 1 with *rec set, or 0 at the end, whose reason wc_reader_state() gives.
 */
int wc_reader_next(struct wc_reader *r, const struct wc_rec_header **rec);

/** wc_reader_state() - WC_READER_OK, or how the reading ended */
enum wc_reader_state wc_reader_state(const struct wc_reader *r);

/**
 * wc_reader_error() - one line on why the reading ended early, naming the byte offset
 *
 * Return: a string owned by the reader ("" while the state is OK or CLEAN).
 */
const char *wc_reader_error(const struct wc_reader *r);

/**
 * wc_reader_error_offset() - file offset in bytes where the damage or the cut was found:
 * the start of the frame holding a bad record, the input position at a zstd error, the file
 * size when it ends early.
 */
uint64_t wc_reader_error_offset(const struct wc_reader *r);

/** wc_reader_header() - the file header (valid once wc_reader_open() returned) */
const struct wc_file_header *wc_reader_header(const struct wc_reader *r);

/** wc_reader_offset() - compressed bytes consumed so far, for progress */
uint64_t wc_reader_offset(const struct wc_reader *r);

/** wc_reader_file_size() - the file's size in bytes when opened */
uint64_t wc_reader_file_size(const struct wc_reader *r);

/** wc_reader_skipped() - records of unknown types skipped so far */
uint64_t wc_reader_skipped(const struct wc_reader *r);

/*
 * The most a file may decompress to, all frames together: WC_READER_MAX_EXPANSION times its
 * size, and at least WC_READER_MIN_DECOMPRESSED bytes.  wcrec's traces decompress to 3-16
 * times their size at its default zstd level 3 (16 for wcdemo's repeated ping-pong, 6.5 for a
 * busy host); a file past the bound is a zstd bomb, refused as corrupt.
 */
#define WC_READER_MAX_EXPANSION	   256u
#define WC_READER_MIN_DECOMPRESSED (32ull << 20)

/**
 * wc_reader_decompressed_limit() - the bound above for a file of @file_size bytes
 * Return: bytes.
 */
uint64_t wc_reader_decompressed_limit(uint64_t file_size);

/** wc_reader_free() - close the file and free the reader; NULL is a no-op */
void wc_reader_free(struct wc_reader *r);

/** wc_reader_state_name() - "ok", "clean", "truncated", "corrupt", ... */
const char *wc_reader_state_name(enum wc_reader_state state);

#endif /* WC_READER_H */
