/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source.h - the input seam: where the replay's records come from.
 *
 * In:   a file, or "-": stdin.  wc_source_open() reads its first 8 bytes and takes the source
 *       whose magic they are, from the one table in source.c; a file no row claims goes to the
 *       first row, the .wct source, whose error then says what the file is not.  A pipe's
 *       magic is read from it, so only a source with open_stream() reads a pipe.
 * Out:  records in the wct record model (common/wct.h: struct wc_rec_*, one class each in
 *       common/rectypes.c), checked as wc_reader checks them: no shorter than their type's
 *       least size, internal lengths within the record, a timed one with WC_REC_F_TIME and
 *       its absolute time in ns.  STACK and PAYLOAD records define their ids (dense from 1)
 *       before an event names them; metadata comes before the events it describes; a ROUND
 *       promises that no later event is older than the newest one before the previous ROUND
 *       (reorder.h); a TRAILER, if any, is last.  How the input ended is one of the reader's
 *       states (enum wc_reader_state), with one line of error and its byte offset.
 * Owns: the source owns its file and each record it hands out, borrowed until the next
 *       next() or free(); the replay (replay.h) owns the source and copies what it keeps:
 *       reordering, ids, metadata and counts are the replay's, not a source's.
 *
 * Adding an input source is one file defining a struct wc_source_ops and one row (its
 * magic) in source.c's table.
 */
#ifndef WC_ANALYZER_SOURCE_H
#define WC_ANALYZER_SOURCE_H

#include <stdint.h>

#include "common/reader.h"
#include "common/wct.h"

#define WC_SOURCE_MAGIC_LEN 8 /* bytes at offset 0 that choose the source */

/* One input format.  @priv is what open() returned. */
struct wc_source_ops {
	const char *name; /* "wct" */
	/* take @fd (at offset 0; closed by free(), or before NULL is returned); NULL, errno set */
	void *(*open)(int fd);
	/* optional: take @fd, a stream (a pipe) whose first @magic bytes source.c read */
	void *(*open_stream)(int fd, const char *magic);
	/* 1 with *rec set (borrowed until the next call), or 0 at the end: see state() */
	int (*next)(void *priv, const struct wc_rec_header **rec);
	enum wc_reader_state (*state)(const void *priv);
	const char *(*error)(const void *priv);	    /* "" while OK or CLEAN */
	uint64_t (*error_offset)(const void *priv); /* bytes */
	uint64_t (*offset)(const void *priv);	    /* input bytes consumed so far, for progress */
	uint64_t (*size)(const void *priv);	    /* the file's size in bytes */
	/* optional: the recorded files under @dir (NULL: at their paths), before the first
	 * next(): for a source that reads them while replaying (perf.data's dwarf stacks) */
	int (*set_symfs)(void *priv, const char *dir);
	void (*free)(void *priv);
};

/* The sources, each in its own file (source-wct.c, ...); their magics are in source.c. */
extern const struct wc_source_ops wc_source_wct;
extern const struct wc_source_ops wc_source_perf; /* source-perf.c: perf.data */

struct wc_source;

/**
 * wc_source_open() - open @path ("-": stdin) and choose its source by its magic
 *
 * A damaged or foreign file is not an error here: the source opens, and its first
 * wc_source_next() returns 0 with the state and error telling why.
 * Return: the source, or NULL with errno set (that of open(2), read(2) or fstat(2), EISDIR,
 * ENOMEM; ESPIPE: a pipe whose source cannot read a stream, or shorter than a magic).
 */
struct wc_source *wc_source_open(const char *path);

/**
 * wc_source_next() - the next record
 * @rec: set to the record, borrowed: valid until the next call or wc_source_free()
 * Return: 1 with *@rec set, or 0 at the end, whose reason wc_source_state() gives.
 */
int wc_source_next(struct wc_source *s, const struct wc_rec_header **rec);

/* wc_source_state() - WC_READER_OK while records may follow, else how the input ended. */
enum wc_reader_state wc_source_state(const struct wc_source *s);

/* wc_source_error() - one line on why the input ended early, owned by the source, or "". */
const char *wc_source_error(const struct wc_source *s);

/* wc_source_error_offset() - where in the file the cut or the damage is, in bytes. */
uint64_t wc_source_error_offset(const struct wc_source *s);

/* wc_source_offset() - input bytes consumed so far, for progress. */
uint64_t wc_source_offset(const struct wc_source *s);

/* wc_source_size() - the file's size in bytes when opened. */
uint64_t wc_source_size(const struct wc_source *s);

/* wc_source_name() - the chosen source's name ("wct"), static. */
const char *wc_source_name(const struct wc_source *s);

/**
 * wc_source_set_symfs() - before the first record: look for the files the recording names
 * under @dir (wcanalyze --symfs, as perf's), NULL at their own paths; a source that reads no
 * such file ignores it.  Return: 0 or -ENOMEM.
 */
int wc_source_set_symfs(struct wc_source *s, const char *dir);

/* wc_source_free() - close the file and free the source; NULL is a no-op. */
void wc_source_free(struct wc_source *s);

#endif /* WC_ANALYZER_SOURCE_H */
