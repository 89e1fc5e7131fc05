/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source-perf-unwind.c - the user stacks of a perf.data recorded with --call-graph dwarf: each
 * sample's user registers and copy of the top of its user stack (PERF_SAMPLE_REGS_USER,
 * PERF_SAMPLE_STACK_USER) unwound by the project's CFI unwinder (recorder/unwind.h: libdwfl over
 * .eh_frame, as wcrec -g dwarf does while recording), its modules reported from the file's own
 * MMAP/MMAP2 records rather than from /proc (as perf's util/unwind-libdw.c reports a thread's
 * maps: dwfl_report_elf() of the file at the map's start less its offset).
 *
 * A module's file is the local file at the path the map names, and only if its build-id is
 * the one the recording gave that path (the MMAP2 record's, where the attr asked for it, or the
 * BUILD_ID feature's); a file of another build-id is refused and counted.  A path the
 * recording gave no build-id (perf record -B) is used unchecked, and counted.
 *
 * The callchain of such a sample is the kernel's part (perf records dwarf callchains with
 * exclude_callchain_user) and then the unwound frames, ended by a marker where the unwind did
 * not reach the outermost frame (wc_unwind_mend() with whole = true).
 */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/core/source-perf.h"
#include "common/grow.h"
#include "common/map64.h"
#include "recorder/unwind.h"

#define BID_MAX 20 /* bytes of a build-id kept */

/* An executable file mapping of a process, as the recording gave it. */
struct xmap {
	uint32_t pid;
	uint64_t base; /* where the file's offset 0 is: start - pgoff */
	uint64_t time_ns;
	char *path;
};

/* A path's build-id, as the recording gave it, and what the local file was found to be. */
struct bid {
	char *path;
	uint8_t id[BID_MAX], len;
	int8_t local; /* 0 not checked yet, 1 the same, -1 another or unreadable, 2 none to
		       * check it by (counted) */
};

struct pd_unwind {
	struct wc_unwind *u;
	struct xmap *maps;
	size_t nmaps, maps_cap;
	struct bid *bids;
	size_t nbids, bids_cap;
	struct wc_map64 exec_ns;		      /* pid -> time of its last exec */
	char *symfs;				      /* --symfs: the files under it; NULL */
	char path[4096];			      /* a file's path under symfs */
	uint64_t out[WC_UNWIND_MAX_FRAMES + 2 + 512]; /* the callchain made of the last sample */
};

static struct bid *bid_of(struct pd_unwind *w, const char *path)
{
	for (size_t i = 0; i < w->nbids; i++)
		if (!strcmp(w->bids[i].path, path))
			return &w->bids[i];
	return NULL;
}

/* The recording gave @path the build-id @id of @len bytes (0: none, to be counted once if
 * none comes; the first one given is kept). */
static int add_bid(struct pd_unwind *w, const char *path, const uint8_t *id, size_t len)
{
	struct bid *b = bid_of(w, path);

	if (b && !b->len && len) { /* a build-id after all */
		b->len = (uint8_t)(len < BID_MAX ? len : BID_MAX);
		memcpy(b->id, id, b->len);
		b->local = 0;
		return 0;
	}
	if (b)
		return 0;
	if (wc_grow((void **)&w->bids, &w->bids_cap, w->nbids + 1, sizeof(*w->bids)))
		return -ENOMEM;
	b = &w->bids[w->nbids];
	*b = (struct bid){ .path = strdup(path), .len = (uint8_t)(len < BID_MAX ? len : BID_MAX) };
	if (!b->path)
		return -ENOMEM;
	memcpy(b->id, id, b->len);
	w->nbids++;
	return 0;
}

/* Where recorded file @path is read: under --symfs (in w->path, until the next call), or at
 * @path; NULL when that is too long. */
static const char *local_path(struct pd_unwind *w, const char *path)
{
	if (!w->symfs)
		return path;
	if ((size_t)snprintf(w->path, sizeof(w->path), "%s%s", w->symfs, path) >= sizeof(w->path))
		return NULL;
	return w->path;
}

/* Is the local file at @path the one the recording saw?  1 yes, 0 unknown (no build-id
 * recorded), -1 no (another build-id, not readable, or not a regular file). */
static int check_file(struct pd_unwind *w, struct pd *p, const char *path)
{
	struct bid *b = bid_of(w, path);
	const void *id = NULL;
	struct stat st;
	ssize_t n = -1;
	Elf *elf;
	int fd;

	const char *local = local_path(w, path);

	/* a regular file only: a path of a damaged file may name a FIFO, a device */
	if (!local || stat(local, &st) || !S_ISREG(st.st_mode))
		return -1;
	if (!b || !b->len) {
		if (b && !b->local) {
			b->local = 2; /* counted once a file */
			p->unwind_unchecked++;
		}
		return 0;
	}
	if (!b->local) {
		fd = open(local, O_RDONLY | O_CLOEXEC);
		elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
		if (elf)
			n = dwelf_elf_gnu_build_id(elf, &id);
		b->local = n >= b->len && !memcmp(id, b->id, b->len) ? 1 : -1;
		elf_end(elf);
		if (fd >= 0)
			close(fd);
		if (b->local < 0)
			p->unwind_refused++;
	}
	return b->local;
}

int pd_set_symfs(void *priv, const char *dir)
{
	struct pd *p = priv;
	int err = pd_unwind_init(p);

	if (err)
		return err;
	free(p->uw->symfs);
	p->uw->symfs = dir ? strdup(dir) : NULL;
	return dir && !p->uw->symfs ? -ENOMEM : 0;
}

/* wc_unwind_report_fn: @pid's executable file mappings, each file at each base once. */
static int report(void *ctx, Dwfl *dwfl, uint32_t pid, uint64_t time_ns)
{
	struct pd *p = ctx;
	struct pd_unwind *w = p->uw;
	const struct xmap *mine[256]; /* the process's, reported so far */
	size_t n = 0;

	(void)time_ns;
	for (size_t i = 0; i < w->nmaps && n < sizeof(mine) / sizeof(mine[0]); i++) {
		const struct xmap *m = &w->maps[i];
		bool seen = false;

		if (m->pid != pid)
			continue;
		for (size_t j = 0; j < n && !seen; j++)
			seen = mine[j]->base == m->base && !strcmp(mine[j]->path, m->path);
		if (seen || check_file(w, p, m->path) < 0)
			continue;
		if (dwfl_report_elf(dwfl, strrchr(m->path, '/') + 1, local_path(w, m->path), -1,
				    m->base, false))
			mine[n++] = m;
	}
	return n ? 0 : -1;
}

int pd_unwind_init(struct pd *p)
{
	if (p->uw)
		return 0;
	if (!(p->uw = calloc(1, sizeof(*p->uw))))
		return -ENOMEM;
	if (wc_map64_init(&p->uw->exec_ns)) {
		free(p->uw);
		p->uw = NULL;
		return -ENOMEM;
	}
	return 0;
}

int pd_unwind_start(struct pd *p)
{
	int err = pd_unwind_init(p);

	if (!err && !p->uw->u && !(p->uw->u = wc_unwind_new_reporting(report, p)))
		err = -ENOMEM;
	return err;
}

void pd_unwind_free(struct pd *p)
{
	struct pd_unwind *w = p->uw;

	if (!w)
		return;
	wc_unwind_free(w->u);
	for (size_t i = 0; i < w->nmaps; i++)
		free(w->maps[i].path);
	for (size_t i = 0; i < w->nbids; i++)
		free(w->bids[i].path);
	free(w->maps);
	free(w->bids);
	wc_map64_fini(&w->exec_ns);
	free(w->symfs);
	free(w);
	p->uw = NULL;
}

int pd_unwind_build_ids(struct pd *p, const uint8_t *d, uint64_t len)
{
	const uint8_t *end = d + len;
	int err = pd_unwind_init(p);

	/* perf_record_header_build_id (tools/perf/util/header.c, perf_header__read_build_ids):
	 * header, s32 pid, u8 build_id[24] (its size in byte 20 when misc has 1 << 15), name */
	while (!err && end - d >= 8 + 4 + 24) {
		uint16_t misc, size;
		size_t n, idlen;

		memcpy(&misc, d + 4, 2);
		memcpy(&size, d + 6, 2);
		if (size < 8 + 4 + 24 + 1 || size > end - d)
			break;
		idlen = misc & (1u << 15) ? d[12 + 20] : 20;
		n = strnlen((const char *)d + 36, size - 36u);
		if (n < size - 36u && d[36] == '/')
			err = add_bid(p->uw, (const char *)d + 36, d + 12, idlen > 20 ? 20 : idlen);
		d += size;
	}
	return err;
}

int pd_unwind_mmap(struct pd *p, uint32_t pid, uint64_t addr, uint64_t pgoff, const char *path,
		   const uint8_t *build_id, size_t build_id_len, uint64_t time_ns)
{
	struct pd_unwind *w = p->uw;
	int err;

	uint64_t *exec_ns;

	if (!w || !w->u || path[0] != '/')
		return 0;
	/* a map of the image before an exec read after the exec: the records of one round come
	 * CPU by CPU, not in time order (taskset -c 0 CMD from CPU 1: taskset's maps in CPU 1's
	 * buffer after CMD's exec in CPU 0's; reported with CMD's, they broke its unwinding) */
	exec_ns = wc_map64_get(&w->exec_ns, pid);
	if (exec_ns && time_ns && time_ns < *exec_ns)
		return 0;
	err = add_bid(w, path, build_id, build_id_len);
	if (err || wc_grow((void **)&w->maps, &w->maps_cap, w->nmaps + 1, sizeof(*w->maps)))
		return -ENOMEM;
	w->maps[w->nmaps] = (struct xmap){
		.pid = pid, .base = addr - pgoff, .time_ns = time_ns, .path = strdup(path)
	};
	if (!w->maps[w->nmaps].path)
		return -ENOMEM;
	w->nmaps++;
	/* a session opened before it does not have it: the next one will */
	wc_unwind_forget(w->u, pid, time_ns);
	return 0;
}

int pd_unwind_fork(struct pd *p, uint32_t pid, uint32_t ppid)
{
	struct pd_unwind *w = p->uw;
	size_t n;

	if (!w || !w->u || pid == ppid)
		return 0;
	n = w->nmaps;
	for (size_t i = 0; i < n; i++) { /* the child has its parent's mappings */
		if (w->maps[i].pid != ppid)
			continue;
		if (wc_grow((void **)&w->maps, &w->maps_cap, w->nmaps + 1, sizeof(*w->maps)))
			return -ENOMEM;
		w->maps[w->nmaps] = w->maps[i];
		w->maps[w->nmaps].pid = pid;
		if (!(w->maps[w->nmaps].path = strdup(w->maps[i].path)))
			return -ENOMEM;
		w->nmaps++;
	}
	return 0;
}

void pd_unwind_exec(struct pd *p, uint32_t pid, uint64_t time_ns)
{
	struct pd_unwind *w = p->uw;
	uint64_t *exec_ns;
	size_t k = 0;

	if (!w || !w->u)
		return;
	/* the old image's mappings are gone; those of the new one read already stay */
	for (size_t i = 0; i < w->nmaps; i++) {
		if (w->maps[i].pid == pid && (!time_ns || w->maps[i].time_ns < time_ns))
			free(w->maps[i].path);
		else
			w->maps[k++] = w->maps[i];
	}
	w->nmaps = k;
	exec_ns = wc_map64_put(&w->exec_ns, pid, time_ns, NULL);
	if (exec_ns && time_ns > *exec_ns)
		*exec_ns = time_ns;
	wc_unwind_forget(w->u, pid, time_ns);
}

void pd_unwind_round(struct pd *p)
{
	if (p->uw && p->uw->u)
		wc_unwind_end_round(p->uw->u);
}

int pd_unwind_sample(struct pd *p, const struct perf_event_attr *attr, struct pd_sample *s)
{
	struct pd_unwind *w = p->uw;
	uint64_t mask = attr->sample_regs_user, kernel[512];
	struct wc_unwind_sample smp = { .pid = s->pid, .tid = s->tid, .time_ns = s->time_ns };
	uint32_t nr = s->nr < 512 ? (uint32_t)s->nr : 512, out_nr = 0;
	enum wc_unwind_result r;

	if (!w || !w->u || !s->regs || !s->ustack_size || !s->pid || s->pid == UINT32_MAX)
		return 0;
	/* bp, sp, ip: bits 6, 7, 8 (PERF_REG_X86_*), each at its rank among the mask's bits */
	for (int i = 0; i < 3; i++) {
		int bit = 6 + i;

		if (!(mask >> bit & 1))
			return 0;
		smp.regs[i] =
			pd_u64(s->regs + 8 * __builtin_popcountll(mask & ((1ull << bit) - 1)));
	}
	smp.stack = s->ustack;
	smp.size = s->ustack_dyn < s->ustack_size ? s->ustack_dyn : s->ustack_size;
	for (uint32_t i = 0; i < nr; i++)
		kernel[i] = pd_u64(s->ips + 8 * i);
	r = wc_unwind_mend(w->u, &smp, kernel, nr, true, w->out, &out_nr);
	p->unwind_results[r < PD_UNWIND_RESULTS ? r : 0]++;
	s->ips = (const uint8_t *)w->out;
	s->nr = out_nr;
	return 0;
}
