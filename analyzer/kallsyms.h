/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kallsyms.h - kernel symbols from the text of /proc/kallsyms, as stored in a trace's
 * WC_REC_KALLSYMS record, and address to function lookups in them.
 *
 * Lines read "ffffffff81000000 T _stext", and "ffffffffc0a01000 t foo\t[module]" for module
 * (and BPF, ftrace trampoline) symbols.  Functions are the symbols of types t T w W, and N
 * (which perf also keeps: Rust functions of some kernels show up as N).  Other symbols (data,
 * rodata, bss) are never a lookup's answer, but they end the function before them, so that
 * an address past the code of a function is not reported as inside it.
 *
 * Each function runs from its address to the next symbol's address, as in perf
 * (tools/perf/util/symbol.c, symbols__fixup_end()); when the next symbol belongs to another
 * module (or the kernel), and for the last symbol, it stops at the end of the page after the
 * one it starts in.  At one address only one function is kept, chosen as perf does: global
 * over weak over local, fewer leading underscores, the longer name.
 */
#ifndef WC_ANALYZER_KALLSYMS_H
#define WC_ANALYZER_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wc_kallsyms;

/**
 * wc_kallsyms_new() - parse the text of /proc/kallsyms
 * @text: the text; need not be NUL-terminated, and it ends at its first NUL if it has one
 *        (the record's text_len counts the terminating NUL); copied from as needed, so it may
 *        be freed when this returns
 * @len:  bytes of @text
 *
 * Lines that do not parse are skipped, as are ARM mapping symbols ("$x", "$d").  About 5 MB
 * and 120k lines take some 15 ms.
 *
 * Return: the symbols, to free with wc_kallsyms_free(); or NULL with errno set: ENOMEM, or
 * EFBIG when @len is 4 GiB or more.
 */
struct wc_kallsyms *wc_kallsyms_new(const char *text, size_t len);

/** wc_kallsyms_free() - free the symbols, and the names lookups handed out; NULL is a no-op */
void wc_kallsyms_free(struct wc_kallsyms *k);

/**
 * wc_kallsyms_restricted() - were the addresses hidden?
 *
 * Return: true when no symbol had a non-zero address: kptr_restrict hid them from the
 * recorder (or the text held no symbol at all).  Every lookup then fails.
 */
bool wc_kallsyms_restricted(const struct wc_kallsyms *k);

/** wc_kallsyms_count() - Return: the number of functions kept, after duplicates are dropped */
size_t wc_kallsyms_count(const struct wc_kallsyms *k);

/**
 * wc_kallsyms_lookup() - the function an address is in
 * @k:          symbols
 * @addr:       kernel address
 * @offset_out: set to the bytes from the function's start to @addr; may be NULL
 * @module_out: set to the module's name ("ext4", "bpf"), or "" for the kernel image; borrowed,
 *              valid until wc_kallsyms_free(); may be NULL
 *
 * A binary search.  Nothing is written through the out pointers when the lookup fails.
 *
 * Return: the function's name, borrowed, valid until wc_kallsyms_free(); or NULL when @addr is
 * in no function (before the first, past the end of the last, in data) or the addresses were
 * restricted.
 */
const char *wc_kallsyms_lookup(const struct wc_kallsyms *k, uint64_t addr, uint64_t *offset_out,
			       const char **module_out);

#endif /* WC_ANALYZER_KALLSYMS_H */
