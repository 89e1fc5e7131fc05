/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * usym.h - the USYM records of a recording (common/wct.h, man/wcrec-trace.5): the user
 * functions its callchains refer to, named by wcrec from the files mapped on the recording
 * host, so that the trace is analysed anywhere without them.
 *
 * Each distinct user address of a new callchain is kept (wc_usym_writer_stack()) and
 * resolved once, before the frame that holds it is written (wc_usym_writer_flush(), a
 * wc_writer_flush_hook), against every executable file mapping the recording saw
 * (wc_usym_writer_mmap()) that holds it: a callchain does not say its process, and an address
 * resolved against another process's file costs a record, never a wrong name, as the
 * analyzer looks a frame up by its own mapping's build-id.  Only files with a build-id are
 * read.  Symbols come from analyzer/symbols/elfsym.c, as the analyzer reads a local file
 * (.symtab, else a debug file: /usr/lib/debug/.build-id/xx/yyyy.debug, /usr/lib/debug/PATH.debug,
 * PATH.debug beside the file as objcopy --add-gnu-debuglink names it; else .dynsym), so that a
 * frame gets the same name either way.
 * The records are packed (common/wct.h, format 1.10): each call of wc_usym_writer_flush() or
 * _inlines() that has new functions or inlined calls writes them in one record, their names
 * a zstd frame (level 9) against the names written before: 0.12 ms per kB of names (about 20).
 */
#ifndef WC_RECORDER_USYM_H
#define WC_RECORDER_USYM_H

#include <stddef.h>
#include <stdint.h>

#include "common/wct.h"
#include "common/writer.h"

struct wc_usym_writer;

/** wc_usym_writer_new() - Return: a writer with nothing seen, or NULL (ENOMEM) */
struct wc_usym_writer *wc_usym_writer_new(void);

/** wc_usym_writer_free() - free it, its files' symbols too; NULL is a no-op */
void wc_usym_writer_free(struct wc_usym_writer *uw);

/**
 * wc_usym_writer_record() - a wc_writer_record_hook for WC_REC_MMAP and WC_REC_ROUND: keep an
 * executable file mapping with a build-id (others are ignored); before a ROUND, resolve the
 * round's new addresses as wc_usym_writer_flush() does, so that the USYM records of a round's
 * callchains come before its end, as a reader that names frames while it reads (wcanalyze
 * timehist) needs (a mapping may be drained from another CPU's ring after a callchain that
 * lies in it: a callchain's addresses are not resolved at once)
 * Return: 0, -ENOMEM, or the writer's error.
 */
int wc_usym_writer_record(void *ctx, struct wc_writer *w, const struct wc_rec_header *rec);

#define WC_USYM_WRITER_TYPES (1ull << WC_REC_MMAP | 1ull << WC_REC_ROUND)

/**
 * wc_usym_writer_stack() - keep the user addresses of a new callchain (leaf first, with
 * perf's context markers; those after PERF_CONTEXT_USER) not seen before, or not since a
 * mapping was added (a non-PIE program exec'd later has its code where another's was)
 * Return: 0 or -ENOMEM.
 */
int wc_usym_writer_stack(struct wc_usym_writer *uw, const uint64_t *ips, uint32_t nr);

/**
 * wc_usym_writer_flush() - a wc_writer_flush_hook: resolve the addresses kept since the last
 * call and write, in one packed USYM record, the functions they are in not written before
 * (and, once per build-id, where its symbols came from)
 * Return: 0, -ENOMEM or the writer's error.
 */
int wc_usym_writer_flush(void *ctx, struct wc_writer *w);

/**
 * wc_usym_writer_inlines() - at the end of a file: write, in one packed USYM record, the calls
 * inlined at the addresses resolved since the last call (depth > 0, common/wct.h), from the
 * DWARF of the file each function was named from, read then.  Not at each flush: reading a
 * file's DWARF (libc's debug file) takes tens of ms, which at a flush, in the drain, let the
 * rings overflow under load (CI YD: wcrec -- wcdemo lost events while 2 CPUs were busy).  A
 * SIGKILLed file has the functions, not their inlined calls.
 * Return: 0, -ENOMEM or the writer's error.
 */
int wc_usym_writer_inlines(struct wc_usym_writer *uw, struct wc_writer *w);

/* What a recording's USYM records cost, for wcrec -v. */
struct wc_usym_stats {
	uint64_t addresses; /* user addresses resolved (again after new mappings) */
	uint64_t named;	    /* ... in a function of a mapped file */
	uint64_t records;   /* USYM records written (packed: common/wct.h) */
	uint64_t entries;   /* functions and inlined calls in them */
	uint64_t bytes;	    /* their bytes, uncompressed (the names' zstd frames as they are) */
	uint64_t files;	    /* build-ids read */
	uint64_t ns; /* time in wc_usym_writer_flush() and _inlines(), ns (CLOCK_MONOTONIC) */
};

/** wc_usym_writer_stats() - figures so far */
void wc_usym_writer_stats(const struct wc_usym_writer *uw, struct wc_usym_stats *st);

#endif /* WC_RECORDER_USYM_H */
