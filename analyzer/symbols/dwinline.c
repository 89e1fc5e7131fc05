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

#include "common/grow.h"
#include "common/map64.h"

/* A piece of an inlined call's code. */
struct piece {
	uint64_t lo, hi; /* [lo, hi): virtual addresses */
	const char *name;
	uint32_t depth; /* 1: inlined into a function, d + 1: into a call of depth d */
};

/* The inlined calls of one compilation unit, read once. */
struct unit {
	struct piece *v;
	size_t n, cap;
};

struct wc_dwinline {
	int fd;
	Dwarf *dbg;
	struct wc_map64 unit_of; /* unit DIE offset -> index in units */
	struct unit *units;
	size_t nunits, units_cap;
};

struct wc_dwinline *wc_dwinline_open(const char *path)
{
	struct wc_dwinline *d = calloc(1, sizeof(*d));
	int err;

	if (!d || wc_map64_init(&d->unit_of)) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	d->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (d->fd < 0) {
		err = errno;
		wc_map64_fini(&d->unit_of);
		free(d);
		errno = err;
		return NULL;
	}
	d->dbg = dwarf_begin(d->fd, DWARF_C_READ);
	if (!d->dbg) {
		close(d->fd);
		wc_map64_fini(&d->unit_of);
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
	for (size_t i = 0; i < d->nunits; i++)
		free(d->units[i].v);
	free(d->units);
	wc_map64_fini(&d->unit_of);
	dwarf_end(d->dbg);
	close(d->fd);
	free(d);
}

/* The compilation unit holding vaddr: by .debug_aranges, else by each unit's ranges. */
static bool unit_die(Dwarf *dbg, uint64_t vaddr, Dwarf_Die *cudie)
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

/* Whether a DIE of this tag may hold code, or scopes that do. */
static bool holds_code(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_module:
		return true;
	}
	return false;
}

/*
 * Add the pieces of the inlined calls under die (their depth: depth + 1 for one directly
 * under it) to u, walking the DIE tree once.  A function (DW_TAG_subprogram) starts again at
 * depth 0: an inlined call in it is inlined into it.  Abstract instances (the DW_AT_inline
 * definitions) have no code, and add nothing.  Return: 0 or -ENOMEM.
 */
static int add_pieces(struct unit *u, Dwarf_Die *die, uint32_t depth)
{
	Dwarf_Die child;

	if (dwarf_child(die, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);
		uint32_t d = tag == DW_TAG_subprogram ? 0 : depth;

		if (!holds_code(tag))
			continue;
		if (tag == DW_TAG_inlined_subroutine) {
			const char *name = dwarf_diename(&child); /* through the abstract origin */
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;

			d = depth + 1;
			while (name && d <= WC_INLINE_MAX_DEPTH &&
			       (off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
				if (lo >= hi)
					continue;
				if (wc_grow((void **)&u->v, &u->cap, u->n + 1, sizeof(*u->v)))
					return -ENOMEM;
				u->v[u->n++] = (struct piece){ lo, hi, name, d };
			}
		}
		if (add_pieces(u, &child, d))
			return -ENOMEM;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/* The index of the unit cudie, read on first use.  Return: it, or NULL (ENOMEM). */
static struct unit *unit_of(struct wc_dwinline *d, Dwarf_Die *cudie)
{
	uint64_t key = dwarf_dieoffset(cudie), *v = wc_map64_get(&d->unit_of, key);
	struct unit *u;

	if (v)
		return &d->units[*v];
	if (wc_grow((void **)&d->units, &d->units_cap, d->nunits + 1, sizeof(*d->units)))
		return NULL;
	u = &d->units[d->nunits];
	*u = (struct unit){ 0 };
	if (add_pieces(u, cudie, 0) || !wc_map64_put(&d->unit_of, key, d->nunits, NULL)) {
		free(u->v);
		return NULL;
	}
	d->nunits++;
	return u;
}

size_t wc_dwinline_lookup(struct wc_dwinline *d, uint64_t vaddr, struct wc_inline_frame *out,
			  size_t max)
{
	const struct piece *at[WC_INLINE_MAX_DEPTH + 1] = { 0 };
	uint32_t deepest = 0;
	Dwarf_Die cudie;
	struct unit *u;
	size_t n = 0;

	if (!d || !unit_die(d->dbg, vaddr, &cudie) || !(u = unit_of(d, &cudie)))
		return 0;
	/* the pieces holding vaddr nest, one per depth; the first one read of a depth is kept */
	for (size_t i = 0; i < u->n; i++) {
		const struct piece *p = &u->v[i];

		if (vaddr < p->lo || vaddr >= p->hi || at[p->depth])
			continue;
		at[p->depth] = p;
		if (p->depth > deepest)
			deepest = p->depth;
	}
	for (uint32_t k = deepest; k > 0 && n < max; k--) /* innermost first */
		if (at[k])
			out[n++] = (struct wc_inline_frame){ at[k]->name, at[k]->lo, at[k]->hi };
	return n;
}
