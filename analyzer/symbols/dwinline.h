/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwinline.h - the inlined calls at an address, from a file's DWARF (.debug_info), as perf's
 * `--inline` and addr2line -i give them.
 *
 * A function the compiler inlined has no symbol of its own: the frame of its caller holds its
 * code, and only the DWARF says so, by a DW_TAG_inlined_subroutine scope (with the ranges of
 * code it covers and, through DW_AT_abstract_origin, the inlined function's name) nested in
 * the DW_TAG_subprogram of the function the symbol names, one scope per level of inlining.
 * Read with libdw (elfutils): dwarf_addrdie() finds the compilation unit (each one's ranges
 * are searched when the file has no .debug_aranges); the unit's DIE tree is walked once, on
 * its first lookup, for the pieces of code of every inlined call in it and their depth; a
 * lookup then takes, at each depth, the piece that holds the address (the scopes that
 * eu-addr2line -i and perf's inline lookups find with dwarf_getscopes(), one walk each).
 *
 * The file is the one a struct wc_elfsym read its symbols from (wc_elfsym_file(): the mapped
 * file, or its debug file), addresses are its ELF virtual addresses (wc_elfsym_vaddr()).
 * Names are DW_AT_name, unqualified and not demangled (a C++ method's name without its class,
 * as addr2line -i without -C prints the DWARF's).  A file with no .debug_info has no inlined
 * calls.
 */
#ifndef WC_ANALYZER_DWINLINE_H
#define WC_ANALYZER_DWINLINE_H

#include <stddef.h>
#include <stdint.h>

struct wc_dwinline;

/* One inlined call: the inlined function, and the piece of its code holding the address. */
struct wc_inline_frame {
	const char *name; /* borrowed, valid until wc_dwinline_free() */
	uint64_t lo, hi;  /* [lo, hi): ELF virtual addresses */
};

/* Levels of inlining at one address looked at; deeper ones are dropped (WC_USYM_MAX_DEPTH). */
#define WC_INLINE_MAX_DEPTH 16

/**
 * wc_dwinline_open() - open @path's DWARF for inline lookups; the file stays open (one file
 * descriptor) until wc_dwinline_free()
 * Return: the object, or NULL with errno: ENODATA (no .debug_info, or not an ELF file),
 * ENOMEM, or open(2)'s.
 */
struct wc_dwinline *wc_dwinline_open(const char *path);

/** wc_dwinline_free() - close the file and free the names handed out; NULL is a no-op */
void wc_dwinline_free(struct wc_dwinline *d);

/**
 * wc_dwinline_lookup() - the inlined calls whose code holds virtual address @vaddr
 * @out: set to them, innermost first (the inlined function at @vaddr, then the one it was
 *       inlined into, ...), at most @max; the function the symbol names is not among them
 * Return: how many (0: none, no DWARF for @vaddr, or ENOMEM).  Scopes whose name cannot be
 * read are left out.
 */
size_t wc_dwinline_lookup(struct wc_dwinline *d, uint64_t vaddr, struct wc_inline_frame *out,
			  size_t max);

#endif /* WC_ANALYZER_DWINLINE_H */
