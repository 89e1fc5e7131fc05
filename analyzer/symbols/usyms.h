/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * usyms.h - the USYM records of a trace (common/wct.h): per build-id, the user functions the
 * recorder named, looked up by file offset when the local file cannot name a frame.
 *
 * Records that cannot be used are counted and skipped, the rest kept: a name that overruns
 * its record or is not terminated, a build-id of 0 or more than WC_BUILD_ID_MAX bytes, an end
 * not above the start, a function overlapping another of the same build-id (the first one
 * read is kept), an inlined call overlapping another of the same build-id and depth, a depth
 * above WC_INLINE_MAX_DEPTH.  A packed record (format 1.10) is read whole or skipped as one
 * bad record: names that do not decompress against the earlier packed records' names, groups
 * cut short or that do not agree with its counts and names, a names_len above count times
 * WC_USYM_NAME_MAX or past the reader's bound on all names decompressed; in a record read, a
 * range of no size or with a name of WC_USYM_NAME_MAX bytes or more counts as one more.
 */
#ifndef WC_ANALYZER_USYMS_H
#define WC_ANALYZER_USYMS_H

#include <stddef.h>
#include <stdint.h>

#include "common/wct.h"

struct wc_usyms;

/** wc_usyms_new() - an empty table.  Return: it, or NULL (ENOMEM). */
struct wc_usyms *wc_usyms_new(void);

/** wc_usyms_free() - free it and its names; NULL is a no-op */
void wc_usyms_free(struct wc_usyms *u);

/**
 * wc_usyms_add() - keep one USYM record
 * @r: the record, @r->h.size bytes, borrowed for the call
 * Return: 0 (a bad record is counted, not kept), or -ENOMEM.
 */
int wc_usyms_add(struct wc_usyms *u, const struct wc_rec_usym *r);

/**
 * wc_usyms_lookup() - the function of build-id @id (@id_len bytes) at file offset @off
 * Return: its name, borrowed until wc_usyms_free(), or NULL.  Sorts the build-id's functions
 * on first use after an add.
 */
const char *wc_usyms_lookup(struct wc_usyms *u, const uint8_t *id, size_t id_len, uint64_t off);

/**
 * wc_usyms_inlines() - the inlined calls of build-id @id (@id_len bytes) whose code holds file
 * offset @off (the records of depth 1 and more), innermost (deepest) first
 * @names: set to their names, borrowed until wc_usyms_free(); at most @max
 * Return: how many.
 */
size_t wc_usyms_inlines(struct wc_usyms *u, const uint8_t *id, size_t id_len, uint64_t off,
			const char **names, size_t max);

/**
 * wc_usyms_source() - where the recorder read build-id @id's functions from
 * Return: an enum wc_usym_source, or -1 when the trace has no USYM record of it.
 */
int wc_usyms_source(const struct wc_usyms *u, const uint8_t *id, size_t id_len);

/** wc_usyms_source_text() - Return: a static word for @source ("symtab", "debug file") */
const char *wc_usyms_source_text(int source);

/** wc_usyms_bad() - Return: records counted as bad and skipped */
uint64_t wc_usyms_bad(const struct wc_usyms *u);

/** wc_usyms_count() - Return: functions kept */
size_t wc_usyms_count(const struct wc_usyms *u);

#endif /* WC_ANALYZER_USYMS_H */
