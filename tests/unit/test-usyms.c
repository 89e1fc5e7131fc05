/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-usyms.c - the analyzer's table of USYM records (analyzer/symbols/usyms.h): lookups by
 * build-id and file offset, and bad records counted and skipped, the rest kept: a name that
 * overruns its record or is not terminated, a build-id of 0 or 21 bytes, an end not above the
 * start, a function overlapping another; a build-id no record has.  Packed records (1.10):
 * their groups and names, raw or a zstd frame against the earlier names; cut short, damaged,
 * or compressed against names the reader has not seen: counted and skipped; LEB128 numbers.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "analyzer/symbols/usyms.h"
#include "common/usym-pack.h"

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

Test(usyms_pack, uleb)
{
	static const uint64_t v[] = { 0, 1, 127, 128, 300, 1ull << 35, UINT64_MAX };
	uint8_t buf[WC_ULEB_MAX + 1];
	const uint8_t *p;
	uint64_t x;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t n = wc_uleb_put(buf, v[i]);

		p = buf;
		cr_assert_eq(wc_uleb_get(&p, buf + n, &x), 0);
		cr_assert_eq(x, v[i]);
		cr_assert_eq(p, buf + n);
		p = buf; /* cut short: refused, nothing consumed */
		cr_assert_eq(wc_uleb_get(&p, buf + n - 1, &x), -EINVAL);
		cr_assert_eq(p, buf);
	}
	memset(buf, 0x80, sizeof(buf)); /* 11 bytes */
	buf[WC_ULEB_MAX] = 0;
	p = buf;
	cr_assert_eq(wc_uleb_get(&p, buf + sizeof(buf), &x), -EINVAL);
	memset(buf, 0xff, WC_ULEB_MAX - 1); /* bits above 63 */
	buf[WC_ULEB_MAX - 1] = 2;
	p = buf;
	cr_assert_eq(wc_uleb_get(&p, buf + WC_ULEB_MAX, &x), -EINVAL);
}

/* A packed record being built: its groups and names. */
struct pk {
	uint8_t g[1024];
	size_t glen;
	char nm[3 * WC_USYM_NAME_MAX];
	size_t nlen;
	uint32_t groups, count;
};

/* A group of build-id id (number 0 for id_a, 1 for id_b), defining it. */
static void pk_group(struct pk *p, const uint8_t *id, uint8_t id_len, uint8_t depth, uint64_t n)
{
	p->glen += wc_uleb_put(p->g + p->glen, (uint64_t)(id == id_b) << 1 | 1);
	p->g[p->glen++] = id_len;
	memcpy(p->g + p->glen, id, id_len);
	p->glen += id_len;
	p->g[p->glen++] = WC_USYM_SYMTAB;
	p->g[p->glen++] = depth;
	p->glen += wc_uleb_put(p->g + p->glen, n);
	p->groups++;
}

/* A group of the build-id of number k, as defined before. */
static void pk_ref(struct pk *p, uint64_t k, uint8_t depth, uint64_t n)
{
	p->glen += wc_uleb_put(p->g + p->glen, k << 1);
	p->g[p->glen++] = depth;
	p->glen += wc_uleb_put(p->g + p->glen, n);
	p->groups++;
}

static void pk_range(struct pk *p, uint64_t delta, uint64_t size, const char *name)
{
	p->glen += wc_uleb_put(p->g + p->glen, delta);
	p->glen += wc_uleb_put(p->g + p->glen, size);
	memcpy(p->nm + p->nlen, name, strlen(name) + 1);
	p->nlen += strlen(name) + 1;
	p->count++;
}

/* The record of p, its names as they are (prefix NULL) or compressed against prefix[0, plen);
 * free() it. */
static struct wc_rec_usym_pack *pk_rec(const struct pk *p, const char *prefix, size_t plen)
{
	size_t bound = ZSTD_compressBound(p->nlen), zlen = 0;
	uint32_t size = WC_ALIGN8((uint32_t)(sizeof(struct wc_rec_usym_pack) + p->glen + bound));
	struct wc_rec_usym_pack *r = calloc(1, size < 56 ? 56 : size);

	cr_assert(r);
	memcpy(r->data, p->g, p->glen);
	if (prefix) {
		ZSTD_CCtx *zc = ZSTD_createCCtx();

		cr_assert(zc);
		ZSTD_CCtx_setParameter(zc, ZSTD_c_checksumFlag, 1);
		if (plen)
			ZSTD_CCtx_refPrefix(zc, prefix, plen);
		zlen = ZSTD_compress2(zc, r->data + p->glen, bound, p->nm, p->nlen);
		cr_assert(!ZSTD_isError(zlen));
		ZSTD_freeCCtx(zc);
	} else {
		memcpy(r->data + p->glen, p->nm, p->nlen);
	}
	size = WC_ALIGN8((uint32_t)(sizeof(*r) + p->glen + (zlen ? zlen : p->nlen)));
	r->h = (struct wc_rec_header){ .size = size < 56 ? 56 : size,
				       .type = WC_REC_USYM,
				       .flags = WC_USYM_F_PACKED };
	r->count = p->count;
	r->groups = p->groups;
	r->groups_len = (uint32_t)p->glen;
	r->names_len = (uint32_t)p->nlen;
	r->names_zlen = (uint32_t)zlen;
	return r;
}

static void add_pack(struct wc_usyms *u, struct wc_rec_usym_pack *r)
{
	cr_assert_eq(wc_usyms_add(u, (const void *)r), 0);
	free(r);
}

Test(usyms_pack, groups_and_names)
{
	struct wc_usyms *u = wc_usyms_new();
	const char *n[WC_USYM_MAX_DEPTH];
	struct pk a = { 0 }, b = { 0 };

	pk_group(&a, id_a, 20, 0, 2);
	pk_range(&a, 0x1000, 0x100, "f");   /* [0x1000, 0x1100) */
	pk_range(&a, 0x1000, 0x80, "g");    /* [0x2000, 0x2080) */
	pk_ref(&a, 0, 1, 1);		    /* the calls inlined into f: id_a's number */
	pk_range(&a, 0x1010, 0x20, "in_f"); /* [0x1010, 0x1030) */
	pk_group(&a, id_b, 20, 0, 0);	    /* id_b's source alone */
	add_pack(u, pk_rec(&a, NULL, 0));
	/* the next record's names against the first's, as the recorder writes them */
	pk_group(&b, id_b, 8, 0, 1);
	pk_range(&b, 0x400, 0x10, "f_of_b");
	add_pack(u, pk_rec(&b, a.nm, a.nlen));
	cr_assert_str_eq(wc_usyms_lookup(u, id_a, 20, 0x10ff), "f");
	cr_assert_null(wc_usyms_lookup(u, id_a, 20, 0x1100));
	cr_assert_str_eq(wc_usyms_lookup(u, id_a, 20, 0x2000), "g");
	cr_assert_str_eq(wc_usyms_lookup(u, id_b, 20, 0x40f), "f_of_b");
	cr_assert_eq(wc_usyms_inlines(u, id_a, 20, 0x1020, n, WC_USYM_MAX_DEPTH), 1);
	cr_assert_str_eq(n[0], "in_f");
	cr_assert_eq(wc_usyms_source(u, id_b, 20), WC_USYM_SYMTAB);
	cr_assert_eq(wc_usyms_count(u), 3);
	cr_assert_eq(wc_usyms_bad(u), 0);
	wc_usyms_free(u);
}

/* A record of two functions of id_a at 0x1000 and 0x2000, named f and g. */
static void pk_two(struct pk *p)
{
	pk_group(p, id_a, 20, 0, 2);
	pk_range(p, 0x1000, 0x100, "f");
	pk_range(p, 0x1000, 0x80, "g");
}

Test(usyms_pack, bad_records_skipped)
{
	static const char hist[] = "f\0g\0f\0g\0empty\0kept\0skipped\0deep\0first\0overlaps";
	struct wc_usyms *u = wc_usyms_new();
	struct wc_rec_usym_pack *r;
	struct pk p = { 0 }, q = { 0 };
	char long_name[200] = "";
	uint32_t seed = 1;

	pk_two(&p);
	r = pk_rec(&p, NULL, 0); /* groups cut short */
	r->groups_len -= 2;
	add_pack(u, r);
	r = pk_rec(&p, NULL, 0); /* more ranges than it says */
	r->count = 1;
	add_pack(u, r);
	r = pk_rec(&p, NULL, 0); /* names longer than the record */
	r->names_len = 4096;
	add_pack(u, r);
	r = pk_rec(&p, NULL, 0); /* names not terminated */
	r->names_len--;
	add_pack(u, r);
	r = pk_rec(&p, NULL, 0);
	r->reserved0 = 1;
	add_pack(u, r);
	r = pk_rec(&p, "", 0); /* a damaged names frame */
	r->data[r->groups_len + r->names_zlen - 1] ^= 0xff;
	add_pack(u, r);
	memset(&q, 0, sizeof(q)); /* compressed against names the reader has not seen */
	pk_group(&q, id_a, 20, 0, 1);
	for (size_t i = 0; i + 1 < sizeof(long_name); i++) { /* unlike itself: uses the prefix */
		seed = seed * 1103515245u + 12345u;
		long_name[i] = (char)('a' + (seed >> 16) % 26);
	}
	pk_range(&q, 0x1000, 0x100, long_name);
	add_pack(u, pk_rec(&q, long_name, sizeof(long_name)));
	cr_assert_eq(wc_usyms_bad(u), 7);
	cr_assert_eq(wc_usyms_count(u), 0);
	/* a range of no size: the record's others kept; a group of depth 17: the record skipped */
	memset(&q, 0, sizeof(q));
	pk_group(&q, id_b, 20, 0, 2);
	pk_range(&q, 0x1000, 0, "empty");
	pk_range(&q, 0x1000, 0x10, "kept");
	add_pack(u, pk_rec(&q, NULL, 0));
	memset(&q, 0, sizeof(q));
	pk_group(&q, id_b, 20, 0, 1);
	pk_range(&q, 0x3000, 0x10, "skipped");
	pk_group(&q, id_b, 20, WC_USYM_MAX_DEPTH + 1, 1);
	pk_range(&q, 0x1000, 0x10, "deep");
	add_pack(u, pk_rec(&q, NULL, 0));
	cr_assert_str_eq(wc_usyms_lookup(u, id_b, 20, 0x2000), "kept");
	cr_assert_null(wc_usyms_lookup(u, id_b, 20, 0x3000));
	cr_assert_eq(wc_usyms_bad(u), 9);
	/* overlapping ranges in a record: the first kept, as of plain records */
	memset(&q, 0, sizeof(q));
	pk_group(&q, id_a, 20, 0, 2);
	pk_range(&q, 0x3000, 0x100, "first");
	pk_range(&q, 0x80, 0x100, "overlaps");
	add_pack(u, pk_rec(&q, NULL, 0));
	cr_assert_str_eq(wc_usyms_lookup(u, id_a, 20, 0x3090), "first");
	cr_assert_eq(wc_usyms_bad(u), 10);
	/* the names so far are those of the records whose names were read, bad groups or not:
	 * a record compressed against them is read */
	memset(&p, 0, sizeof(p));
	pk_group(&p, id_a, 20, 0, 1);
	pk_range(&p, 0x5000, 0x10, "last");
	add_pack(u, pk_rec(&p, hist, sizeof(hist)));
	cr_assert_str_eq(wc_usyms_lookup(u, id_a, 20, 0x5000), "last");
	cr_assert_eq(wc_usyms_bad(u), 10);
	wc_usyms_free(u);
}

Test(usyms_pack, long_names_skipped)
{
	struct wc_usyms *u = wc_usyms_new();
	static struct pk p; /* names of 4 KiB and more: larger than the stack should hold */
	char *name = malloc(WC_USYM_NAME_MAX + 1);
	struct wc_rec_usym_pack *r;

	cr_assert(name);
	memset(name, 'x', WC_USYM_NAME_MAX);
	name[WC_USYM_NAME_MAX - 1] = '\0'; /* 4095 bytes and its NUL: the longest kept */
	pk_group(&p, id_a, 20, 0, 1);
	pk_range(&p, 0x1000, 0x10, name);
	add_pack(u, pk_rec(&p, NULL, 0));
	cr_assert_eq(strlen(wc_usyms_lookup(u, id_a, 20, 0x1000)), WC_USYM_NAME_MAX - 1);
	memset(&p, 0, sizeof(p));
	name[WC_USYM_NAME_MAX - 1] = 'x';
	name[WC_USYM_NAME_MAX] = '\0'; /* one byte more than any name: more than one may say */
	pk_group(&p, id_a, 20, 0, 1);
	pk_range(&p, 0x2000, 0x10, name);
	r = pk_rec(&p, NULL, 0);
	add_pack(u, r);
	cr_assert_null(wc_usyms_lookup(u, id_a, 20, 0x2000));
	cr_assert_eq(wc_usyms_bad(u), 1);
	memset(&p, 0, sizeof(p)); /* the same beside a short one: that range alone skipped */
	pk_group(&p, id_a, 20, 0, 2);
	pk_range(&p, 0x2000, 0x10, name);
	pk_range(&p, 0x1000, 0x10, "short");
	add_pack(u, pk_rec(&p, NULL, 0));
	cr_assert_null(wc_usyms_lookup(u, id_a, 20, 0x2000));
	cr_assert_str_eq(wc_usyms_lookup(u, id_a, 20, 0x3000), "short");
	cr_assert_eq(wc_usyms_bad(u), 2);
	free(name);
	wc_usyms_free(u);
}

Test(usyms_pack, build_id_numbers)
{
	struct wc_usyms *u = wc_usyms_new();
	struct pk p = { 0 };

	pk_ref(&p, 0, 0, 1); /* a number not defined yet */
	pk_range(&p, 0x1000, 0x10, "undefined");
	add_pack(u, pk_rec(&p, NULL, 0));
	cr_assert_eq(wc_usyms_bad(u), 1);
	memset(&p, 0, sizeof(p)); /* defined, then used in the same record and in the next */
	pk_group(&p, id_a, 20, 0, 1);
	pk_range(&p, 0x1000, 0x10, "f");
	pk_ref(&p, 0, 1, 1);
	pk_range(&p, 0x1004, 0x4, "in_f");
	add_pack(u, pk_rec(&p, NULL, 0));
	memset(&p, 0, sizeof(p));
	pk_ref(&p, 0, 0, 1);
	pk_range(&p, 0x2000, 0x10, "g");
	add_pack(u, pk_rec(&p, NULL, 0));
	cr_assert_str_eq(wc_usyms_lookup(u, id_a, 20, 0x1000), "f");
	cr_assert_str_eq(wc_usyms_lookup(u, id_a, 20, 0x2000), "g");
	cr_assert_eq(wc_usyms_bad(u), 1);
	memset(&p, 0, sizeof(p)); /* number 0 defined again as another build-id: skipped */
	p.glen += wc_uleb_put(p.g, 1);
	p.g[p.glen++] = 20;
	memcpy(p.g + p.glen, id_b, 20);
	p.glen += 20;
	p.g[p.glen++] = WC_USYM_SYMTAB;
	p.g[p.glen++] = 0;
	p.glen += wc_uleb_put(p.g + p.glen, 1);
	p.groups++;
	pk_range(&p, 0x3000, 0x10, "not id_a's");
	add_pack(u, pk_rec(&p, NULL, 0));
	cr_assert_null(wc_usyms_lookup(u, id_a, 20, 0x3000));
	cr_assert_null(wc_usyms_lookup(u, id_b, 20, 0x3000));
	cr_assert_eq(wc_usyms_bad(u), 2);
	memset(&p, 0, sizeof(p)); /* a number past WC_USYM_REFS_MAX */
	p.glen += wc_uleb_put(p.g, (uint64_t)WC_USYM_REFS_MAX << 1 | 1);
	p.g[p.glen++] = 20;
	memcpy(p.g + p.glen, id_b, 20);
	p.glen += 20;
	p.g[p.glen++] = WC_USYM_SYMTAB;
	p.g[p.glen++] = 0;
	p.glen += wc_uleb_put(p.g + p.glen, 0);
	p.groups++;
	add_pack(u, pk_rec(&p, NULL, 0));
	cr_assert_eq(wc_usyms_bad(u), 3);
	cr_assert_eq(wc_usyms_source(u, id_b, 20), -1);
	wc_usyms_free(u);
}
