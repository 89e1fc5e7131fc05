/* SPDX-License-Identifier: GPL-2.0-or-later */
/* info-symbols.c - `wcanalyze info --symbols` (see info-symbols.h). */
#include "analyzer/reports/info-symbols.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/core/callchain.h"
#include "common/map64.h"

struct counts {
	uint64_t frames, named; /* distinct addresses in the file, and named by a function */
};

/* Count ip once for each file that some address space maps it from. */
static int count_ip(const struct wc_tasks *t, struct wc_symbolizer *sym, struct wc_map64 *done,
		    struct counts *c, uint64_t ip)
{
	for (size_t as = 1; as < t->naspaces; as++) {
		const struct wc_map *m = wc_tasks_lookup_map(t, (uint32_t)as, ip);
		const char *name, *base;
		int inserted;

		if (!m)
			continue;
		/* ip < 2^48 for user space: the file index above it keeps the key unique */
		if (!wc_map64_put(done, (uint64_t)m->dso << 48 ^ ip, 1, &inserted))
			return -ENOMEM;
		if (!inserted)
			continue;
		name = wc_symbolizer_user(sym, (uint32_t)as, ip);
		if (!name)
			return -ENOMEM;
		base = strrchr(t->dsos[m->dso].path, '/');
		base = base ? base + 1 : t->dsos[m->dso].path;
		c[m->dso].frames++;
		/* the fallback name is "FILE+0xOFFSET" (symbolize.h) */
		c[m->dso].named += !(!strncmp(name, base, strlen(base)) &&
				     !strncmp(name + strlen(base), "+0x", 3));
	}
	return 0;
}

static void print_line(const struct wc_tasks *t, struct wc_symbolizer *sym, uint32_t dso,
		       const struct counts *c, FILE *out)
{
	const struct wc_dso *d = &t->dsos[dso];
	char id[2 * WC_BUILD_ID_MAX + 1] = "-", src[4400];

	for (size_t i = 0; i < d->build_id_len; i++)
		sprintf(id + 2 * i, "%02x", d->build_id[i]);
	fprintf(out, "%s: build-id %s, %llu of %llu frame addresses named, from %s\n", d->path, id,
		(unsigned long long)c->named, (unsigned long long)c->frames,
		wc_symbolizer_source(sym, dso, src, sizeof(src)) ? src : "?");
}

int wc_info_symbols_write(const struct wc_tasks *t, const struct wc_replay *r,
			  struct wc_symbolizer *sym, FILE *out)
{
	struct counts *c = calloc(t->ndsos + 1, sizeof(*c));
	uint32_t n = wc_replay_stack_ids(r);
	struct wc_map64 done;
	int err = 0;

	if (!c || wc_map64_init(&done)) {
		free(c);
		return -ENOMEM;
	}
	for (uint32_t id = 1; !err && id < n; id++) {
		const uint64_t *ips;
		struct wc_callchain cc;
		uint32_t nr;

		ips = wc_replay_stack(r, id, &nr);
		if (!ips)
			continue;
		wc_callchain_split(ips, nr, &cc);
		for (uint32_t i = 0; !err && i < cc.nuser; i++)
			if (!WC_CONTEXT_IS_END(cc.user[i]))
				err = count_ip(t, sym, &done, c, cc.user[i]);
	}
	fprintf(out, "user symbols, per mapped file with frames:\n");
	for (uint32_t dso = 0; !err && dso < t->ndsos; dso++)
		if (c[dso].frames)
			print_line(t, sym, dso, &c[dso], out);
	wc_map64_fini(&done);
	free(c);
	return err;
}
