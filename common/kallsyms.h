/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kallsyms.h - kernel symbols: parsed from the text of /proc/kallsyms (wcrec's snapshot, and
 * the WC_REC_KALLSYMS record of files written before format 1.2), or built up from the
 * functions of KSYM records; address to function lookups in either.
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

/* One function: [start, end).  Names are borrowed from the table, valid until it is freed. */
struct wc_ksym {
	uint64_t start, end; /* end: the first address past the function */
	const char *name;
	const char *module; /* "ext4", "bpf", or "" for the kernel image */
};

/**
 * wc_kallsyms_new() - parse the text of /proc/kallsyms
 * @text: the text; need not be NUL-terminated, and it ends at its first NUL if it has one
 *        (the record's text_len counts the terminating NUL); copied from as needed, so it may
 *        be freed when this returns
 * @len:  bytes of @text
 *
 * Lines that do not parse are skipped, as are ARM mapping symbols ("$x", "$d").  About 5 MB
 * and 120k lines take some 15 ms.  (NULL, 0) gives an empty table, to wc_kallsyms_add() to.
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
 * wc_kallsyms_find() - the function an address is in, whole
 * @k:    symbols
 * @addr: kernel address
 * @out:  set to the function when one is found; may be NULL
 *
 * Return: the function's index, or SIZE_MAX when @addr is in none (as wc_kallsyms_lookup()).
 * In a table nothing was added to, the index is the function's rank by address, below
 * wc_kallsyms_count(), so that a caller can keep a bitmap of functions (wcrec's KSYM records).
 */
size_t wc_kallsyms_find(const struct wc_kallsyms *k, uint64_t addr, struct wc_ksym *out);

/**
 * wc_kallsyms_add() - add one function, as a KSYM record gives it
 * @k:      symbols: an empty table (wc_kallsyms_new(NULL, 0)) or one added to before
 * @start:  first address
 * @end:    first address past it; above @start
 * @name:   its name, not empty; copied
 * @module: its module, "" for the kernel image; copied
 *
 * Lookups may go on between adds: a recording's functions arrive as its callchains need them.
 * Adding the same function again is a no-op.  The table is no longer "restricted" once a
 * function was added.  Each add costs O(log n) plus, every 64 adds, one O(n) merge.
 *
 * Return: 0; -EINVAL when @end <= @start or @name is empty; -EEXIST when the range overlaps
 * another function's (the table is unchanged); -ENOMEM.
 */
int wc_kallsyms_add(struct wc_kallsyms *k, uint64_t start, uint64_t end, const char *name,
		    const char *module);

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
