/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dwinline.c - inlined calls from a file's DWARF (see dwinline.h). */
#include "analyzer/symbols/dwinline.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

struct wc_dwinline {
	int fd;
	Dwarf *dbg;
};

struct wc_dwinline *wc_dwinline_open(const char *path)
{
	struct wc_dwinline *d = calloc(1, sizeof(*d));
	int err;

	if (!d)
		return NULL;
	d->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (d->fd < 0) {
		err = errno;
		free(d);
		errno = err;
		return NULL;
	}
	d->dbg = dwarf_begin(d->fd, DWARF_C_READ);
	if (!d->dbg) {
		close(d->fd);
		free(d);
		errno = ENODATA;
		return NULL;
	}
	return d;
}

void wc_dwinline_free(struct wc_dwinline *d)
{
	if (!d)
		return;
	dwarf_end(d->dbg);
	close(d->fd);
	free(d);
}

/* The compilation unit holding vaddr: by .debug_aranges, else by each unit's ranges. */
static bool unit_of(Dwarf *dbg, uint64_t vaddr, Dwarf_Die *cudie)
{
	Dwarf_CU *cu = NULL, *next;
	uint8_t type;

	if (dwarf_addrdie(dbg, vaddr, cudie))
		return true;
	while (dwarf_get_units(dbg, cu, &next, NULL, &type, cudie, NULL) == 0) {
		cu = next;
		if ((type == DW_UT_compile || type == DW_UT_partial) &&
		    dwarf_haspc(cudie, vaddr) > 0)
			return true;
	}
	return false;
}

/* The piece [lo, hi) of die's code that holds vaddr.  Return: whether one does. */
static bool piece_of(Dwarf_Die *die, uint64_t vaddr, uint64_t *lo, uint64_t *hi)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0)
		if (vaddr >= start && vaddr < end) {
			*lo = start;
			*hi = end;
			return true;
		}
	return false;
}

size_t wc_dwinline_lookup(struct wc_dwinline *d, uint64_t vaddr, struct wc_inline_frame *out,
			  size_t max)
{
	Dwarf_Die cudie, *scopes = NULL, *path = NULL;
	int nscopes, npath = 0, i;
	size_t n = 0;

	if (!d || !unit_of(d->dbg, vaddr, &cudie))
		return 0;
	/*
	 * scopes[0] is the innermost; past an inlined instance come the scopes of its abstract
	 * definition, not of the code it was inlined into: the innermost inlined instance's own
	 * ancestors, by dwarf_getscopes_die(), are that (as eu-addr2line -i walks them)
	 */
	nscopes = dwarf_getscopes(&cudie, vaddr, &scopes);
	for (i = 0; i < nscopes && dwarf_tag(&scopes[i]) != DW_TAG_subprogram; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine) {
			npath = dwarf_getscopes_die(&scopes[i], &path);
			break;
		}
	for (i = 0; i < npath && n < max && n < WC_INLINE_MAX_DEPTH; i++) {
		int tag = dwarf_tag(&path[i]);
		struct wc_inline_frame f;

		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine) /* a lexical block */
			continue;
		/* the name through DW_AT_abstract_origin */
		f.name = dwarf_diename(&path[i]);
		if (f.name && piece_of(&path[i], vaddr, &f.lo, &f.hi))
			out[n++] = f;
	}
	free(path);
	free(scopes);
	return n;
}
