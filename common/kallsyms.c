/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kallsyms.c - parse /proc/kallsyms text into a sorted array of functions (see kallsyms.h).
 *
 * One pass over the text fills an array of entries (address, type, name and module offsets)
 * and copies the names into one buffer; module names are interned through a small hash
 * table.  The array is sorted by address, one entry is kept per address, and each function's
 * end is set from the entry after it.  Functions added one by one (wc_kallsyms_add()) wait in
 * a small sorted tail, merged into the array when it fills; a lookup searches both.
 */
#include "common/kallsyms.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"

#define NO_NAME	   WC_STRBUF_FAIL /* also: a bound, not a function */
#define PAGE_BYTES 4096u

/* A symbol as read from one line. */
struct ent {
	uint64_t addr;
	uint32_t name;	 /* offset in names; NO_NAME for a bound (not a function) */
	uint32_t module; /* offset in names of the module's name; 0 ("") for the kernel image */
	uint32_t line;	 /* line number: the last tie-break, so that the result is stable */
	char type;	 /* 't', 'T', 'W', ... */
};

/* A function, as looked up. */
struct ksym {
	uint64_t start;
	uint64_t end;	    /* first address past the function */
	const char *name;   /* in names, or in an arena block */
	const char *module; /* likewise; "" for the kernel image */
};

/* Names of added functions: blocks that never move, so that names handed out stay valid. */
struct arena {
	struct arena *next;
	size_t used, cap; /* bytes of data */
	char data[];
};

#define TAIL_MAX 64 /* added functions kept apart, sorted, before they are merged into syms */

struct wc_kallsyms {
	struct ksym *syms; /* sorted by start; ranges do not overlap */
	size_t nsyms;
	struct ksym tail[TAIL_MAX]; /* added since the last merge: sorted, not overlapping syms */
	size_t ntail;
	char *names; /* NUL-terminated strings; names[0] is "" */
	struct arena *arena;
	bool restricted;
};

/* Module names, interned: open addressing over offsets in a strbuf (0: empty slot). */
struct modtab {
	uint32_t *slots;
	size_t nslots, nused; /* nslots a power of two */
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3u;
	return h;
}

/* The offset of module name s[0..n) in b, added to b and t when new.  Return: NO_NAME: ENOMEM */
static uint32_t modtab_intern(struct modtab *t, struct wc_strbuf *b, const char *s, size_t n)
{
	size_t i;

	if (2 * (t->nused + 1) > t->nslots) {
		size_t nslots = t->nslots ? 2 * t->nslots : 64;
		uint32_t *slots = calloc(nslots, sizeof(*slots));

		if (!slots)
			return NO_NAME;
		for (size_t j = 0; j < t->nslots; j++) {
			uint32_t off = t->slots[j];

			if (!off)
				continue;
			i = hash_bytes(b->p + off, strlen(b->p + off)) & (nslots - 1);
			while (slots[i])
				i = (i + 1) & (nslots - 1);
			slots[i] = off;
		}
		free(t->slots);
		t->slots = slots;
		t->nslots = nslots;
	}
	for (i = hash_bytes(s, n) & (t->nslots - 1); t->slots[i]; i = (i + 1) & (t->nslots - 1)) {
		const char *m = b->p + t->slots[i];

		if (!strncmp(m, s, n) && !m[n])
			return t->slots[i];
	}
	t->slots[i] = wc_strbuf_add(b, s, n);
	if (t->slots[i] == NO_NAME) {
		t->slots[i] = 0;
		return NO_NAME;
	}
	t->nused++;
	return t->slots[i];
}

static bool is_function(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W' || type == 'N';
}

/* Absolute and undefined symbols are no addresses in the kernel's text or data. */
static bool is_ignored(char type)
{
	return type == 'a' || type == 'A' || type == 'U';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static unsigned underscores(const char *s)
{
	unsigned n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * Which of two functions at one address to keep, as perf's choose_best_symbol(): not weak,
 * then global, then fewer leading underscores, then the longer name, then not a "SyS" syscall
 * alias; then the first in the text.  Return: < 0 to keep a, > 0 to keep b.
 */
static int rank_cmp(const struct ent *a, const struct ent *b, const char *names)
{
	const char *na = names + a->name, *nb = names + b->name;
	bool aw = a->type == 'w' || a->type == 'W', bw = b->type == 'w' || b->type == 'W';
	bool ag = a->type >= 'A' && a->type <= 'Z', bg = b->type >= 'A' && b->type <= 'Z';
	bool asys, bsys;
	size_t la, lb;

	if (aw != bw)
		return aw ? 1 : -1;
	if (ag != bg)
		return ag ? -1 : 1;
	if (underscores(na) != underscores(nb))
		return underscores(na) < underscores(nb) ? -1 : 1;
	la = strlen(na);
	lb = strlen(nb);
	if (la != lb)
		return la > lb ? -1 : 1;
	asys = !strncmp(na, "SyS", 3) || !strncmp(na, "compat_SyS", 10);
	bsys = !strncmp(nb, "SyS", 3) || !strncmp(nb, "compat_SyS", 10);
	if (asys != bsys)
		return asys ? 1 : -1;
	return a->line < b->line ? -1 : 1;
}

static int ent_cmp(const void *pa, const void *pb)
{
	const struct ent *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

/* perf's end for a symbol with nothing known after it: the end of the page after its own */
static uint64_t page_end(uint64_t start)
{
	if (start > UINT64_MAX - 2 * PAGE_BYTES)
		return UINT64_MAX;
	return ((start + PAGE_BYTES - 1) & ~(uint64_t)(PAGE_BYTES - 1)) + PAGE_BYTES;
}

/*
 * Parse one line, [p, nl), into e, interning its name and module.
 * Return: 1 when e holds a symbol to keep, 0 to skip the line, -ENOMEM.
 */
static int parse_line(const char *p, const char *nl, struct ent *e, struct wc_strbuf *names,
		      struct modtab *mods, bool *nonzero)
{
	const char *name, *mod = NULL;
	size_t name_len, mod_len = 0;
	unsigned ndigits = 0;
	int v;

	e->addr = 0;
	for (; p < nl && (v = hexval(*p)) >= 0; p++) {
		if (++ndigits > 16)
			return 0;
		e->addr = e->addr << 4 | (uint64_t)v;
	}
	if (!ndigits || nl - p < 4 || p[0] != ' ' || p[2] != ' ')
		return 0;
	e->type = p[1];
	name = p += 3;
	while (p < nl && *p != '\t' && *p != ' ' && *p != '\r')
		p++;
	name_len = (size_t)(p - name);
	if (!name_len || *name == '$' || is_ignored(e->type))
		return 0;
	*nonzero = *nonzero || e->addr;
	while (p < nl && (*p == '\t' || *p == ' '))
		p++;
	if (p < nl && *p == '[') {
		const char *close = memchr(p, ']', (size_t)(nl - p));

		if (close) {
			mod = p + 1;
			mod_len = (size_t)(close - mod);
		}
	}
	e->module = 0;
	if (mod_len) {
		e->module = modtab_intern(mods, names, mod, mod_len);
		if (e->module == NO_NAME)
			return -ENOMEM;
	}
	e->name = NO_NAME;
	if (is_function(e->type)) {
		e->name = wc_strbuf_add(names, name, name_len);
		if (e->name == NO_NAME)
			return -ENOMEM;
	}
	return 1;
}

/*
 * Sort ents, keep one entry per address, and fill k->syms with the functions and their ends.
 * Return: 0 or -ENOMEM.
 */
static int build(struct wc_kallsyms *k, struct ent *ents, size_t n)
{
	size_t m = 0, nfunc = 0;

	qsort(ents, n, sizeof(*ents), ent_cmp);
	for (size_t i = 0; i < n;) {
		size_t best = i, j;

		for (j = i + 1; j < n && ents[j].addr == ents[i].addr; j++) {
			if (ents[j].name == NO_NAME)
				continue;
			if (ents[best].name == NO_NAME ||
			    rank_cmp(&ents[j], &ents[best], k->names) < 0)
				best = j;
		}
		nfunc += ents[best].name != NO_NAME;
		ents[m++] = ents[best];
		i = j;
	}
	if (!nfunc)
		return 0;
	k->syms = malloc(nfunc * sizeof(*k->syms));
	if (!k->syms)
		return -ENOMEM;
	/*
	 *   foo      bar              baz [mod]
	 *   |--------|----------------|-----------|          end = next start; across a module
	 *   start    next start       start       page end   change, and last: page_end()
	 */
	for (size_t i = 0; i < m; i++) {
		struct ksym *s = &k->syms[k->nsyms];

		if (ents[i].name == NO_NAME)
			continue;
		s->start = ents[i].addr;
		s->name = k->names + ents[i].name;
		s->module = k->names + ents[i].module;
		s->end = page_end(s->start);
		if (i + 1 < m &&
		    (ents[i + 1].module == ents[i].module || ents[i + 1].addr < s->end))
			s->end = ents[i + 1].addr;
		k->nsyms++;
	}
	return 0;
}

struct wc_kallsyms *wc_kallsyms_new(const char *text, size_t len)
{
	struct wc_strbuf names = { NULL, 0, 0 };
	struct modtab mods = { NULL, 0, 0 };
	struct wc_kallsyms *k;
	struct ent *ents = NULL;
	const char *p, *end, *nl;
	size_t nlines = 1, n = 0;
	bool nonzero = false;
	int err = -ENOMEM;

	if (len >= UINT32_MAX) {
		errno = EFBIG;
		return NULL;
	}
	if (!text) {
		text = "";
		len = 0;
	}
	end = memchr(text, '\0', len);
	if (!end)
		end = text + len;
	for (p = text; p < end && (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1)
		nlines++;
	k = calloc(1, sizeof(*k));
	ents = malloc(nlines * sizeof(*ents));
	if (!k || !ents || wc_strbuf_add(&names, "", 0) == NO_NAME)
		goto out_free;
	for (p = text; p < end; p = nl + 1) {
		int ret;

		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		ret = parse_line(p, nl, &ents[n], &names, &mods, &nonzero);
		if (ret < 0)
			goto out_free;
		ents[n].line = (uint32_t)n;
		n += (size_t)ret;
	}
	k->restricted = !nonzero;
	if (!k->restricted) {
		k->names = names.p;
		names.p = NULL;
	}
	err = k->restricted ? 0 : build(k, ents, n);
out_free:
	free(ents);
	free(mods.slots);
	free(names.p);
	if (err) {
		wc_kallsyms_free(k);
		errno = -err;
		return NULL;
	}
	return k;
}

void wc_kallsyms_free(struct wc_kallsyms *k)
{
	if (!k)
		return;
	while (k->arena) {
		struct arena *next = k->arena->next;

		free(k->arena);
		k->arena = next;
	}
	free(k->syms);
	free(k->names);
	free(k);
}

bool wc_kallsyms_restricted(const struct wc_kallsyms *k)
{
	return k->restricted;
}

size_t wc_kallsyms_count(const struct wc_kallsyms *k)
{
	return k->nsyms + k->ntail;
}

/* The number of functions in s[0..n) that start at or before addr (s sorted by start). */
static size_t upto(const struct ksym *s, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t wc_kallsyms_find(const struct wc_kallsyms *k, uint64_t addr, struct wc_ksym *out)
{
	size_t i = upto(k->syms, k->nsyms, addr), j = upto(k->tail, k->ntail, addr), idx;
	const struct ksym *s;

	/* the last function starting at or before addr, of either array */
	if (j && (!i || k->tail[j - 1].start > k->syms[i - 1].start)) {
		idx = k->nsyms + j - 1;
		s = &k->tail[j - 1];
	} else if (i) {
		idx = i - 1;
		s = &k->syms[i - 1];
	} else {
		return SIZE_MAX;
	}
	if (addr >= s->end)
		return SIZE_MAX;
	if (out)
		*out = (struct wc_ksym){ s->start, s->end, s->name, s->module };
	return idx;
}

const char *wc_kallsyms_lookup(const struct wc_kallsyms *k, uint64_t addr, uint64_t *offset_out,
			       const char **module_out)
{
	struct wc_ksym f;

	if (wc_kallsyms_find(k, addr, &f) == SIZE_MAX)
		return NULL;
	if (offset_out)
		*offset_out = addr - f.start;
	if (module_out)
		*module_out = f.module;
	return f.name;
}

/* A copy of s in k's arena.  Return: the copy, or NULL when out of memory. */
static const char *arena_dup(struct wc_kallsyms *k, const char *s)
{
	size_t n = strlen(s) + 1;
	struct arena *a = k->arena;
	char *p;

	if (!a || a->cap - a->used < n) {
		size_t cap = n > 65536 - sizeof(*a) ? n : 65536 - sizeof(*a);

		a = malloc(sizeof(*a) + cap);
		if (!a)
			return NULL;
		a->next = k->arena;
		a->used = 0;
		a->cap = cap;
		k->arena = a;
	}
	p = memcpy(a->data + a->used, s, n);
	a->used += n;
	return p;
}

/* Does [start, end) overlap a function of s[0..n)?  *same: it is that very function. */
static bool overlaps(const struct ksym *s, size_t n, uint64_t start, uint64_t end, const char *name,
		     bool *same)
{
	size_t i = upto(s, n, start);

	if (i && s[i - 1].end > start) {
		*same = s[i - 1].start == start && s[i - 1].end == end &&
			!strcmp(s[i - 1].name, name);
		return true;
	}
	return i < n && s[i].start < end;
}

/* Merge the tail into syms.  Return: 0 or -ENOMEM. */
static int merge_tail(struct wc_kallsyms *k)
{
	struct ksym *syms = realloc(k->syms, (k->nsyms + k->ntail) * sizeof(*syms));
	size_t i = k->nsyms, j = k->ntail, o = k->nsyms + k->ntail;

	if (!syms)
		return -ENOMEM;
	k->syms = syms;
	while (j) /* from the back: the larger start goes last */
		syms[--o] =
			i && syms[i - 1].start > k->tail[j - 1].start ? syms[--i] : k->tail[--j];
	k->nsyms += k->ntail;
	k->ntail = 0;
	return 0;
}

int wc_kallsyms_add(struct wc_kallsyms *k, uint64_t start, uint64_t end, const char *name,
		    const char *module)
{
	bool same = false;
	struct ksym s;
	size_t j;

	if (end <= start || !name || !*name)
		return -EINVAL;
	if (overlaps(k->syms, k->nsyms, start, end, name, &same) ||
	    overlaps(k->tail, k->ntail, start, end, name, &same))
		return same ? 0 : -EEXIST;
	if (k->ntail == TAIL_MAX && merge_tail(k))
		return -ENOMEM;
	s = (struct ksym){ start, end, arena_dup(k, name), arena_dup(k, module ? module : "") };
	if (!s.name || !s.module)
		return -ENOMEM;
	j = upto(k->tail, k->ntail, start);
	memmove(&k->tail[j + 1], &k->tail[j], (k->ntail - j) * sizeof(*k->tail));
	k->tail[j] = s;
	k->ntail++;
	k->restricted = false;
	return 0;
}
