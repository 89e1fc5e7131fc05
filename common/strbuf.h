/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * strbuf.h - a growing buffer of NUL-terminated strings, handed out as u32 offsets, so that
 * tables of names (kallsyms, ELF symbols) keep 4 bytes per name instead of a pointer.
 */
#ifndef WC_COMMON_STRBUF_H
#define WC_COMMON_STRBUF_H

#include <stddef.h>
#include <stdint.h>

#define WC_STRBUF_FAIL UINT32_MAX /* wc_strbuf_add(): out of memory, or past 4 GiB */

struct wc_strbuf {
	char *p;	 /* owned by the caller: free(p) */
	size_t len, cap; /* bytes */
};

/**
 * wc_strbuf_add() - append s[0..n) and a NUL
 *
 * The buffer may move: offsets stay valid, pointers into it do not.
 * Return: the string's offset, or WC_STRBUF_FAIL when out of memory or when the buffer would
 * pass 4 GiB.
 */
uint32_t wc_strbuf_add(struct wc_strbuf *b, const char *s, size_t n);

#endif /* WC_COMMON_STRBUF_H */
