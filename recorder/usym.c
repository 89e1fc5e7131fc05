/* SPDX-License-Identifier: GPL-2.0-or-later */
/* usym.c - USYM records of the user functions callchains refer to (see usym.h). */
#include "recorder/usym.h"

#include <errno.h>
#include <gelf.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <zstd.h>

#include "analyzer/symbols/dwinline.h"
#include "analyzer/symbols/elfsym.h"
#include "common/grow.h"
#include "common/map64.h"
#include "common/usym-pack.h"

#define NAMES_LEVEL 9	       /* zstd level of the names: 0.12 ms per kB (20 names) */
#define PACK_NAMES  (1u << 20) /* bytes of names past which a packed record ends */

/* A mapped file, by build-id; its symbols read on first use. */
struct ufile {
	char *path; /* as the first mapping of it names it, owned */
	uint8_t id[WC_BUILD_ID_MAX];
	uint8_t id_len;
	uint8_t source;		/* enum wc_usym_source, once read */
	struct wc_elfsym *es;	/* NULL until read */
	struct wc_dwinline *dw; /* its DWARF, once opened (dw_tried), when it has one */
	bool dw_tried;
	bool defined;		 /* its build-id is in a packed record: later ones say ref */
	uint32_t ref;		 /* its number in the packed records, once defined */
	struct wc_map64 written; /* depth << 56 | file offset of a start -> 1: record out */
};

/* A range to write in the next packed record: [start, end) of a function (depth 0) or an
 * inlined call of file files[file]; start == end == 0 and name NULL: the file's source alone. */
struct uent {
	uint64_t start, end; /* file offsets */
	const char *name;    /* borrowed from the file's symbols or DWARF */
	uint32_t file;
	uint16_t depth;
};

/* One executable mapping of a file, in some process. */
struct umap {
	uint64_t start, end, pgoff; /* addresses [start, end); file offset of start */
	size_t file;		    /* index in files */
};

struct wc_usym_writer {
	struct ufile *files;
	size_t nfiles, files_cap;
	struct umap *maps;
	size_t nmaps, maps_cap, nsorted; /* maps[0, nsorted) sorted by start, no duplicate */
	uint64_t max_len;		 /* bytes of the longest mapping */
	struct wc_map64 seen;		 /* user address -> maps_added when it was queued */
	uint64_t maps_added;		 /* mappings kept so far, duplicates included */
	uint64_t *pending;		 /* addresses seen since the last flush */
	size_t npending, pending_cap;
	uint64_t *inl; /* file << 44 | offset: inlined calls to write at the end */
	size_t ninl, inl_cap;
	struct wc_map64 inl_seen; /* the same keys, queued once */
	struct uent *out;	  /* ranges for the next packed record */
	size_t nout, out_cap;
	ZSTD_CCtx *zc;		     /* NULL until the first names frame */
	struct wc_usym_history hist; /* names written so far: the prefix of the next frame */
	uint32_t nrefs;		     /* build-ids defined in the packed records so far */
	struct wc_usym_stats st;
};

struct wc_usym_writer *wc_usym_writer_new(void)
{
	struct wc_usym_writer *uw = calloc(1, sizeof(*uw));

	if (uw && (wc_map64_init(&uw->seen) || wc_map64_init(&uw->inl_seen))) {
		wc_map64_fini(&uw->seen);
		free(uw);
		uw = NULL;
	}
	if (!uw)
		errno = ENOMEM;
	return uw;
}

void wc_usym_writer_free(struct wc_usym_writer *uw)
{
	if (!uw)
		return;
	for (size_t i = 0; i < uw->nfiles; i++) {
		free(uw->files[i].path);
		wc_elfsym_free(uw->files[i].es);
		wc_dwinline_free(uw->files[i].dw);
		wc_map64_fini(&uw->files[i].written);
	}
	free(uw->files);
	free(uw->maps);
	free(uw->pending);
	free(uw->inl);
	free(uw->out);
	ZSTD_freeCCtx(uw->zc);
	wc_usym_history_fini(&uw->hist);
	wc_map64_fini(&uw->seen);
	wc_map64_fini(&uw->inl_seen);
	free(uw);
}

/* The index of the file of build-id id, added when new.  Return: it, or SIZE_MAX (ENOMEM). */
static size_t file_index(struct wc_usym_writer *uw, const uint8_t *id, uint8_t id_len,
			 const char *path)
{
	struct ufile *f;

	for (size_t i = uw->nfiles; i-- > 0;)
		if (uw->files[i].id_len == id_len && !memcmp(uw->files[i].id, id, id_len))
			return i;
	if (wc_grow((void **)&uw->files, &uw->files_cap, uw->nfiles + 1, sizeof(*uw->files)))
		return SIZE_MAX;
	f = &uw->files[uw->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path || wc_map64_init(&f->written)) {
		free(f->path);
		return SIZE_MAX;
	}
	memcpy(f->id, id, id_len);
	f->id_len = id_len;
	return uw->nfiles++;
}

/* Keep the mapping of an MMAP record.  Return: 0 or -ENOMEM. */
static int keep_map(struct wc_usym_writer *uw, const struct wc_rec_header *rec)
{
	const struct wc_rec_mmap *m = (const void *)rec;
	size_t file;

	if (rec->size <= sizeof(*m) || !(m->prot & PROT_EXEC) || m->filename[0] != '/' ||
	    !m->build_id_size || m->build_id_size > WC_BUILD_ID_MAX || !m->len ||
	    !memchr(m->filename, '\0', rec->size - sizeof(*m)))
		return 0;
	file = file_index(uw, m->build_id, m->build_id_size, m->filename);
	if (file == SIZE_MAX ||
	    wc_grow((void **)&uw->maps, &uw->maps_cap, uw->nmaps + 1, sizeof(*uw->maps)))
		return -ENOMEM;
	uw->maps[uw->nmaps++] = (struct umap){ m->addr, m->addr + m->len, m->pgoff, file };
	uw->maps_added++;
	if (m->len > uw->max_len)
		uw->max_len = m->len;
	return 0;
}

int wc_usym_writer_record(void *ctx, struct wc_writer *w, const struct wc_rec_header *rec)
{
	if (rec->type == WC_REC_MMAP)
		return keep_map(ctx, rec);
	return wc_usym_writer_flush(ctx, w);
}

int wc_usym_writer_stack(struct wc_usym_writer *uw, const uint64_t *ips, uint32_t nr)
{
	uint64_t context = PERF_CONTEXT_KERNEL;

	for (uint32_t i = 0; i < nr; i++) {
		uint64_t *queued_at;
		int inserted;

		if (ips[i] >= (uint64_t)PERF_CONTEXT_MAX) {
			context = ips[i];
			continue;
		}
		if (context != PERF_CONTEXT_USER || ips[i] == WC_MAP64_EMPTY)
			continue;
		queued_at = wc_map64_put(&uw->seen, ips[i], uw->maps_added, &inserted);
		if (!queued_at)
			return -ENOMEM;
		/* again only when mappings came since: another process's file may hold it now */
		if (!inserted && *queued_at == uw->maps_added)
			continue;
		*queued_at = uw->maps_added;
		if (wc_grow((void **)&uw->pending, &uw->pending_cap, uw->npending + 1,
			    sizeof(*uw->pending)))
			return -ENOMEM;
		uw->pending[uw->npending++] = ips[i];
	}
	return 0;
}

static int map_cmp(const void *pa, const void *pb)
{
	const struct umap *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	if (a->pgoff != b->pgoff)
		return a->pgoff < b->pgoff ? -1 : 1;
	return a->file < b->file ? -1 : a->file > b->file;
}

/* Sort the mappings by start and drop duplicates (the same file at the same place). */
static void sort_maps(struct wc_usym_writer *uw)
{
	size_t n = 0;

	if (uw->nsorted == uw->nmaps)
		return;
	qsort(uw->maps, uw->nmaps, sizeof(*uw->maps), map_cmp);
	for (size_t i = 0; i < uw->nmaps; i++)
		if (!n || map_cmp(&uw->maps[n - 1], &uw->maps[i]))
			uw->maps[n++] = uw->maps[i];
	uw->nmaps = uw->nsorted = n;
}

/* Queue [start, end) of file index file, of depth (0: a function; > 0: an inlined call), for
 * the next packed record (name NULL: the file's source alone).  Return: 0 or -ENOMEM. */
static int queue_usym(struct wc_usym_writer *uw, size_t file, uint64_t start, uint64_t end,
		      uint16_t depth, const char *name)
{
	if (name && strlen(name) >= WC_USYM_NAME_MAX) /* no use in a report: not written */
		return 0;
	if (wc_grow((void **)&uw->out, &uw->out_cap, uw->nout + 1, sizeof(*uw->out)))
		return -ENOMEM;
	uw->out[uw->nout++] = (struct uent){ start, end, name, (uint32_t)file, depth };
	return 0;
}

/* A growing byte string. */
struct bytes {
	uint8_t *p;
	size_t len, cap;
};

/* Make room for n more bytes in b.  Return: 0 or -ENOMEM. */
static int bytes_room(struct bytes *b, size_t n)
{
	return wc_grow((void **)&b->p, &b->cap, b->len + n, 1);
}

static int uent_cmp(const void *pa, const void *pb)
{
	const struct uent *a = pa, *b = pb;

	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/*
 * Append to g the group of out[i, j) (one file and depth, by start; a source-only entry adds
 * no range), and their names to nm.  Return: the ranges, or -ENOMEM.
 */
static long put_group(struct wc_usym_writer *uw, size_t i, size_t j, struct bytes *g,
		      struct bytes *nm)
{
	struct ufile *f = &uw->files[uw->out[i].file];
	uint64_t prev = 0;
	long n = 0;

	for (size_t k = i; k < j; k++)
		n += uw->out[k].name != NULL;
	if (bytes_room(g, 3 + f->id_len + 2 * WC_ULEB_MAX))
		return -ENOMEM;
	if (f->defined) { /* the build-id by its number */
		g->len += wc_uleb_put(g->p + g->len, (uint64_t)f->ref << 1);
	} else { /* its number, and the build-id and source it stands for from here on */
		f->defined = true;
		f->ref = uw->nrefs++;
		g->len += wc_uleb_put(g->p + g->len, (uint64_t)f->ref << 1 | 1);
		g->p[g->len++] = f->id_len;
		memcpy(g->p + g->len, f->id, f->id_len);
		g->len += f->id_len;
		g->p[g->len++] = f->source;
	}
	g->p[g->len++] = (uint8_t)uw->out[i].depth;
	g->len += wc_uleb_put(g->p + g->len, (uint64_t)n);
	for (size_t k = i; k < j; k++) {
		const struct uent *e = &uw->out[k];
		size_t name_len;

		if (!e->name)
			continue;
		name_len = strlen(e->name) + 1;
		if (bytes_room(g, 2 * WC_ULEB_MAX) || bytes_room(nm, name_len))
			return -ENOMEM;
		g->len += wc_uleb_put(g->p + g->len, e->start - prev);
		g->len += wc_uleb_put(g->p + g->len, e->end - e->start);
		prev = e->start;
		memcpy(nm->p + nm->len, e->name, name_len);
		nm->len += name_len;
	}
	return n;
}

/*
 * Compress names nm against the names written before (common/wct.h) into z.
 * Return: the frame's bytes; 0 when it would not be shorter (the names go as they are).
 */
static size_t compress_names(struct wc_usym_writer *uw, const struct bytes *nm, struct bytes *z)
{
	size_t bound = ZSTD_compressBound(nm->len), n, plen;
	const char *prefix = wc_usym_history_prefix(&uw->hist, &plen);

	if (!uw->zc && !(uw->zc = ZSTD_createCCtx()))
		return 0;
	if (bytes_room(z, bound) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(uw->zc, ZSTD_c_compressionLevel, NAMES_LEVEL)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(uw->zc, ZSTD_c_checksumFlag, 1)) ||
	    (prefix && ZSTD_isError(ZSTD_CCtx_refPrefix(uw->zc, prefix, plen))))
		return 0;
	n = ZSTD_compress2(uw->zc, z->p, bound, nm->p, nm->len);
	if (ZSTD_isError(n) || n >= nm->len) {
		ZSTD_CCtx_reset(uw->zc, ZSTD_reset_session_and_parameters);
		return 0;
	}
	return n;
}

/* Write the packed record of groups g (ngroups, count ranges) and names nm.
 * Return: 0, -ENOMEM or the writer's error. */
static int write_pack(struct wc_usym_writer *uw, struct wc_writer *w, const struct bytes *g,
		      uint32_t ngroups, uint32_t count, const struct bytes *nm)
{
	struct bytes z = { NULL, 0, 0 };
	size_t zlen = compress_names(uw, nm, &z);
	size_t body = g->len + (zlen ? zlen : nm->len);
	struct wc_rec_usym_pack *r;
	uint32_t size;
	int err = -ENOMEM;

	if (body > WC_REC_MAX_BYTES - sizeof(*r) || nm->len > WC_USYM_NAMES_MAX) {
		err = -E2BIG; /* not from write_queued(), which ends records at PACK_NAMES */
		goto out_free;
	}
	/* as long as a plain record at least, which is what a reader before 1.10 checks */
	size = WC_ALIGN8((uint32_t)(sizeof(*r) + body));
	if (size < sizeof(struct wc_rec_usym))
		size = sizeof(struct wc_rec_usym);
	r = calloc(1, size);
	if (!r)
		goto out_free;
	*r = (struct wc_rec_usym_pack){
		.h = { .size = size, .type = WC_REC_USYM, .flags = WC_USYM_F_PACKED },
		.count = count,
		.groups = ngroups,
		.groups_len = (uint32_t)g->len,
		.names_len = (uint32_t)nm->len,
		.names_zlen = (uint32_t)zlen,
	};
	if (g->len)
		memcpy(r->data, g->p, g->len);
	if (nm->len)
		memcpy(r->data + g->len, zlen ? (const void *)z.p : nm->p, zlen ? zlen : nm->len);
	err = wc_usym_history_add(&uw->hist, (const char *)nm->p, nm->len);
	if (!err)
		err = wc_writer_add(w, r);
	free(r);
	uw->st.records++;
	uw->st.bytes += size;
out_free:
	free(z.p);
	return err;
}

/* The end of the group that starts at out[i]: the ranges of the same file and depth after it,
 * as long as the group's names stay below PACK_NAMES bytes. */
static size_t group_end(const struct wc_usym_writer *uw, size_t i)
{
	const struct uent *e = &uw->out[i];
	size_t j = i + 1, names = e->name ? strlen(e->name) + 1 : 0;

	for (; j < uw->nout && uw->out[j].file == e->file && uw->out[j].depth == e->depth; j++) {
		names += uw->out[j].name ? strlen(uw->out[j].name) + 1 : 0;
		if (names >= PACK_NAMES)
			break;
	}
	return j;
}

/* Write the ranges queued, in one packed record, or more when their names reach PACK_NAMES
 * bytes.  Return: 0, -ENOMEM or the writer's error. */
static int write_queued(struct wc_usym_writer *uw, struct wc_writer *w)
{
	struct bytes g = { NULL, 0, 0 }, nm = { NULL, 0, 0 };
	uint32_t ngroups = 0, count = 0;
	int err = 0;

	if (!uw->nout)
		return 0;
	qsort(uw->out, uw->nout, sizeof(*uw->out), uent_cmp);
	for (size_t i = 0, j; !err && i < uw->nout; i = j) {
		long n;

		j = group_end(uw, i);
		n = put_group(uw, i, j, &g, &nm);
		if (n < 0) {
			err = (int)n;
			break;
		}
		ngroups++;
		count += (uint32_t)n;
		uw->st.entries += (uint64_t)n;
		if (j < uw->nout && nm.len < PACK_NAMES)
			continue;
		err = write_pack(uw, w, &g, ngroups, count, &nm);
		g.len = nm.len = 0;
		ngroups = count = 0;
	}
	uw->nout = 0;
	free(g.p);
	free(nm.p);
	return err;
}

/* Read the symbols of file index file, and queue the group that says where from.
 * Return: 0 or -ENOMEM. */
static int open_file(struct wc_usym_writer *uw, size_t file)
{
	struct ufile *f = &uw->files[file];
	const char *from;

	f->es = wc_elfsym_open(f->path, f->id, f->id_len, NULL);
	if (!f->es)
		return -ENOMEM;
	uw->st.files++;
	switch (wc_elfsym_status(f->es)) {
	case WC_ELFSYM_OK:
		from = wc_elfsym_file(f->es);
		f->source = strcmp(from, f->path)	   ? WC_USYM_DEBUG
			    : wc_elfsym_dynsym_only(f->es) ? WC_USYM_DYNSYM
							   : WC_USYM_SYMTAB;
		break;
	case WC_ELFSYM_MISMATCH:
		f->source = WC_USYM_MISMATCH;
		break;
	default:
		f->source = WC_USYM_NONE;
	}
	return queue_usym(uw, file, 0, 0, 0, NULL);
}

/*
 * Queue the inlined calls at file offset off of file index file (the byte before a return
 * address: its call; wcanalyze looks them up so), each piece of code once.
 * Return: 0 or -ENOMEM.
 */
static int queue_inlines(struct wc_usym_writer *uw, size_t file, uint64_t off)
{
	struct ufile *f = &uw->files[file];
	struct wc_inline_frame fr[WC_INLINE_MAX_DEPTH];
	uint64_t vaddr, start, end;
	size_t n;

	if (!wc_elfsym_vaddr(f->es, off, &vaddr))
		return 0;
	n = wc_dwinline_lookup(f->dw, vaddr, fr, WC_INLINE_MAX_DEPTH);
	for (size_t i = 0; i < n; i++) { /* fr[0] the innermost: of depth n */
		uint16_t depth = (uint16_t)(n - i);
		int inserted, err;

		if (!wc_elfsym_file_offset(f->es, fr[i].lo, &start) ||
		    !wc_elfsym_file_offset(f->es, fr[i].hi - 1, &end))
			continue;
		if (!wc_map64_put(&f->written, (uint64_t)depth << 56 | start, 1, &inserted))
			return -ENOMEM;
		if (inserted && (err = queue_usym(uw, file, start, end + 1, depth, fr[i].name)))
			return err;
	}
	return 0;
}

/* Keep file offset off of file uw->files[file] for wc_usym_writer_inlines(), once.
 * Return: 0 or -ENOMEM. */
static int queue_inline(struct wc_usym_writer *uw, size_t file, uint64_t off)
{
	uint64_t key = (uint64_t)file << 44 | (off & ((1ull << 44) - 1));
	int inserted;

	if (!wc_map64_put(&uw->inl_seen, key, 1, &inserted))
		return -ENOMEM;
	if (!inserted)
		return 0;
	if (wc_grow((void **)&uw->inl, &uw->inl_cap, uw->ninl + 1, sizeof(*uw->inl)))
		return -ENOMEM;
	uw->inl[uw->ninl++] = key;
	return 0;
}

/* Name addr in each mapping that holds it, queueing the functions.  Return: 0 or -ENOMEM. */
static int resolve(struct wc_usym_writer *uw, uint64_t addr)
{
	size_t lo = 0, hi = uw->nsorted;
	bool named = false;

	while (lo < hi) { /* past the last mapping starting at or before addr */
		size_t mid = lo + (hi - lo) / 2;

		if (uw->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* mappings of other processes overlap: each one starting within max_len before addr */
	for (size_t i = lo; i-- > 0 && addr - uw->maps[i].start < uw->max_len;) {
		const struct umap *m = &uw->maps[i];
		struct ufile *f = &uw->files[m->file];
		uint64_t off = addr - m->start + m->pgoff, start, end;
		const char *name;
		int inserted, err;

		if (addr >= m->end)
			continue;
		if (!f->es && (err = open_file(uw, m->file)))
			return err;
		name = wc_elfsym_lookup_range(f->es, off, &start, &end);
		if (!name)
			continue;
		named = true;
		if (!wc_map64_put(&f->written, start, 1, &inserted))
			return -ENOMEM;
		if (inserted && (err = queue_usym(uw, m->file, start, end, 0, name)))
			return err;
		if ((f->source == WC_USYM_SYMTAB || f->source == WC_USYM_DEBUG) && off > start &&
		    (err = queue_inline(uw, m->file, off - 1)))
			return err;
	}
	uw->st.named += named;
	return 0;
}

int wc_usym_writer_flush(void *ctx, struct wc_writer *w)
{
	struct wc_usym_writer *uw = ctx;
	struct timespec t0, t1;
	int err = 0;

	if (!uw->npending)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	elf_version(EV_CURRENT);
	sort_maps(uw);
	for (size_t i = 0; !err && i < uw->npending; i++)
		err = resolve(uw, uw->pending[i]);
	uw->st.addresses += uw->npending;
	uw->npending = 0;
	if (!err)
		err = write_queued(uw, w);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	uw->st.ns += (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000ll + (t1.tv_nsec - t0.tv_nsec));
	return err;
}

int wc_usym_writer_inlines(struct wc_usym_writer *uw, struct wc_writer *w)
{
	struct timespec t0, t1;
	int err = 0;

	if (!uw->ninl)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; !err && i < uw->ninl; i++) {
		size_t file = uw->inl[i] >> 44;
		struct ufile *f = &uw->files[file];

		if (!f->dw_tried) { /* NULL: no DWARF, no inlined calls */
			f->dw_tried = true;
			f->dw = wc_dwinline_open(wc_elfsym_file(f->es));
		}
		if (f->dw)
			err = queue_inlines(uw, file, uw->inl[i] & ((1ull << 44) - 1));
	}
	uw->ninl = 0;
	if (!err)
		err = write_queued(uw, w);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	uw->st.ns += (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000ll + (t1.tv_nsec - t0.tv_nsec));
	return err;
}

void wc_usym_writer_stats(const struct wc_usym_writer *uw, struct wc_usym_stats *st)
{
	*st = uw->st;
}
