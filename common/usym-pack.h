/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * usym-pack.h - what the writer (recorder/usym.c) and the reader (analyzer/symbols/usyms.c) of
 * packed USYM records (common/wct.h, since 1.10) share: LEB128 numbers (also protobuf's
 * varints, analyzer/output/pb.c), and the names of a file's earlier packed records that a
 * record's names frame is compressed against.
 */
#ifndef WC_COMMON_USYM_PACK_H
#define WC_COMMON_USYM_PACK_H

#include <stddef.h>
#include <stdint.h>

#define WC_ULEB_MAX 10 /* bytes of the longest LEB128 of a u64 */

/** wc_uleb_put() - write @v at @p, which has room for WC_ULEB_MAX bytes.  Return: bytes written */
size_t wc_uleb_put(uint8_t *p, uint64_t v);

/**
 * wc_uleb_get() - read one number from *@p, not past @end, and move *@p past it
 * Return: 0, or -EINVAL (cut short by @end, or longer than WC_ULEB_MAX bytes, or above
 * UINT64_MAX), *@p then unchanged.
 */
int wc_uleb_get(const uint8_t **p, const uint8_t *end, uint64_t *v);

/*
 * The names of a file's packed records so far, end to end, of which only the last
 * WC_USYM_PREFIX_MAX bytes are kept.  Zeroed is empty.
 */
struct wc_usym_history {
	char *p;
	size_t len, cap; /* bytes */
};

/** wc_usym_history_add() - append @n bytes of names.  Return: 0 or -ENOMEM (then unchanged) */
int wc_usym_history_add(struct wc_usym_history *h, const char *names, size_t n);

/**
 * wc_usym_history_prefix() - the prefix the next names frame is compressed with: the last
 * WC_USYM_PREFIX_MAX bytes of the names so far, or all of them
 * @len: set to its bytes (0: none)
 * Return: it, borrowed until the next add or fini; NULL when empty.
 */
const char *wc_usym_history_prefix(const struct wc_usym_history *h, size_t *len);

/** wc_usym_history_fini() - free its bytes; it is empty again */
void wc_usym_history_fini(struct wc_usym_history *h);

#endif /* WC_COMMON_USYM_PACK_H */
