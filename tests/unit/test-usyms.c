/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-usyms.c - the analyzer's table of USYM records (analyzer/symbols/usyms.h): lookups by
 * build-id and file offset, and bad records counted and skipped, the rest kept: a name that
 * overruns its record or is not terminated, a build-id of 0 or 21 bytes, an end not above the
 * start, a function overlapping another; a build-id no record has.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/symbols/usyms.h"

static const uint8_t id_a[20] = { 0xaa, 1, 2, 3 }, id_b[20] = { 0xbb, 1, 2, 3 };

/* A record of [start, end) named name, for build-id id; free() it. */
static struct wc_rec_usym *rec(const uint8_t *id, uint8_t id_len, uint64_t start, uint64_t end,
			       const char *name)
{
	size_t n = strlen(name) + 1;
	uint32_t size = WC_ALIGN8((uint32_t)(sizeof(struct wc_rec_usym) + n));
	struct wc_rec_usym *r = calloc(1, size);

	cr_assert(r);
	r->h = (struct wc_rec_header){ .size = size, .type = WC_REC_USYM };
	r->start = start;
	r->end = end;
	r->build_id_size = id_len;
	r->source = WC_USYM_DEBUG;
	r->name_len = (uint32_t)n;
	memcpy(r->build_id, id, id_len < 20 ? id_len : 20); /* @id holds 20 bytes at most */
	memcpy(r->name, name, n);
	return r;
}

static void add(struct wc_usyms *u, struct wc_rec_usym *r)
{
	cr_assert_eq(wc_usyms_add(u, r), 0);
	free(r);
}

Test(usyms, lookup_and_source)
{
	struct wc_usyms *u = wc_usyms_new();

	add(u, rec(id_a, 20, 0, 0, ""));
	add(u, rec(id_a, 20, 0x2000, 0x2100, "second"));
	add(u, rec(id_a, 20, 0x1000, 0x1080, "first"));
	add(u, rec(id_b, 20, 0x1000, 0x1010, "other"));
	cr_assert_str_eq(wc_usyms_lookup(u, id_a, 20, 0x1000), "first");
	cr_assert_str_eq(wc_usyms_lookup(u, id_a, 20, 0x107f), "first");
	cr_assert_null(wc_usyms_lookup(u, id_a, 20, 0x1080));
	cr_assert_str_eq(wc_usyms_lookup(u, id_a, 20, 0x20ff), "second");
	cr_assert_str_eq(wc_usyms_lookup(u, id_b, 20, 0x1001), "other");
	cr_assert_null(wc_usyms_lookup(u, id_a, 20, 0xfff));
	/* ids that differ by trailing zero bytes match */
	cr_assert_str_eq(wc_usyms_lookup(u, id_a, 4, 0x1000), "first");
	cr_assert_eq(wc_usyms_source(u, id_a, 20), WC_USYM_DEBUG);
	cr_assert_eq(wc_usyms_count(u), 3);
	cr_assert_eq(wc_usyms_bad(u), 0);
	wc_usyms_free(u);
}

Test(usyms, bad_records_skipped)
{
	static const uint8_t unknown[20] = { 0xcc };
	struct wc_usyms *u = wc_usyms_new();
	struct wc_rec_usym *r;

	add(u, rec(id_a, 20, 0x1000, 0x1100, "kept"));
	add(u, rec(id_a, 20, 0x10f0, 0x1200, "overlaps")); /* dropped at the first lookup */
	add(u, rec(id_a, 0, 0x3000, 0x3100, "no build-id"));
	add(u, rec(id_a, 21, 0x3000, 0x3100, "build-id too long"));
	add(u, rec(id_a, 20, 0x3100, 0x3000, "backwards"));
	r = rec(id_a, 20, 0x4000, 0x4100, "long");
	r->name_len = 4096; /* longer than its record */
	add(u, r);
	r = rec(id_a, 20, 0x5000, 0x5100, "unterminated");
	r->name_len = 4; /* "unte", no NUL */
	add(u, r);
	add(u, rec(id_a, 20, 0x6000, 0x6100, "after"));
	cr_assert_str_eq(wc_usyms_lookup(u, id_a, 20, 0x1100 - 1), "kept");
	cr_assert_null(wc_usyms_lookup(u, id_a, 20, 0x1150));
	cr_assert_null(wc_usyms_lookup(u, id_a, 20, 0x4010));
	cr_assert_null(wc_usyms_lookup(u, id_a, 20, 0x5010));
	cr_assert_str_eq(wc_usyms_lookup(u, id_a, 20, 0x6000), "after");
	cr_assert_null(wc_usyms_lookup(u, unknown, 20, 0x1000));
	cr_assert_eq(wc_usyms_source(u, unknown, 20), -1);
	cr_assert_eq(wc_usyms_bad(u), 6);
	cr_assert_eq(wc_usyms_count(u), 2);
	wc_usyms_free(u);
}

/* A record of an inlined call of depth d: as rec(). */
static struct wc_rec_usym *inl(const uint8_t *id, uint64_t start, uint64_t end, uint16_t d,
			       const char *name)
{
	struct wc_rec_usym *r = rec(id, 20, start, end, name);

	r->depth = d;
	return r;
}

Test(usyms, inlined_calls_innermost_first)
{
	struct wc_usyms *u = wc_usyms_new();
	const char *n[WC_USYM_MAX_DEPTH];

	add(u, rec(id_a, 20, 0x1000, 0x1100, "f"));
	add(u, inl(id_a, 0x1010, 0x1040, 1, "outer"));
	add(u, inl(id_a, 0x1020, 0x1030, 2, "inner"));
	add(u, inl(id_a, 0x1050, 0x1060, 1, "other"));
	/* the function itself is no inlined call, and the depth-1 pieces do not hide it */
	cr_assert_str_eq(wc_usyms_lookup(u, id_a, 20, 0x1025), "f");
	cr_assert_eq(wc_usyms_count(u), 1);
	cr_assert_eq(wc_usyms_inlines(u, id_a, 20, 0x1025, n, WC_USYM_MAX_DEPTH), 2);
	cr_assert_str_eq(n[0], "inner");
	cr_assert_str_eq(n[1], "outer");
	cr_assert_eq(wc_usyms_inlines(u, id_a, 20, 0x1030, n, WC_USYM_MAX_DEPTH), 1);
	cr_assert_str_eq(n[0], "outer");
	cr_assert_eq(wc_usyms_inlines(u, id_a, 20, 0x1055, n, WC_USYM_MAX_DEPTH), 1);
	cr_assert_str_eq(n[0], "other");
	cr_assert_eq(wc_usyms_inlines(u, id_a, 20, 0x1045, n, WC_USYM_MAX_DEPTH), 0);
	cr_assert_eq(wc_usyms_inlines(u, id_a, 20, 0x1025, n, 1), 1); /* at most max */
	cr_assert_str_eq(n[0], "inner");
	cr_assert_eq(wc_usyms_inlines(u, id_b, 20, 0x1025, n, WC_USYM_MAX_DEPTH), 0);
	cr_assert_eq(wc_usyms_bad(u), 0);
	wc_usyms_free(u);
}

Test(usyms, bad_inlined_calls_skipped)
{
	struct wc_usyms *u = wc_usyms_new();
	const char *n[WC_USYM_MAX_DEPTH];

	add(u, rec(id_a, 20, 0x1000, 0x1100, "f"));
	add(u, inl(id_a, 0x1010, 0x1040, 1, "kept"));
	add(u, inl(id_a, 0x1030, 0x1050, 1, "overlaps kept"));		  /* bad */
	add(u, inl(id_a, 0x1020, 0x1020, 2, "empty"));			  /* bad */
	add(u, inl(id_a, 0, 0, 1, "no range"));				  /* bad */
	add(u, inl(id_a, 0x1020, 0x1030, WC_USYM_MAX_DEPTH + 1, "deep")); /* bad */
	add(u, inl(id_a, 0x1020, 0x1030, WC_USYM_MAX_DEPTH, "deepest"));
	cr_assert_eq(wc_usyms_inlines(u, id_a, 20, 0x1025, n, WC_USYM_MAX_DEPTH), 2);
	cr_assert_str_eq(n[0], "deepest");
	cr_assert_str_eq(n[1], "kept");
	cr_assert_eq(wc_usyms_bad(u), 4);
	cr_assert_str_eq(wc_usyms_lookup(u, id_a, 20, 0x1045), "f");
	wc_usyms_free(u);
}
