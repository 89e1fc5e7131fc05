/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tasks.c - see tasks.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "analyzer/core/tasks.h"

/* A new address space of @pid, a copy of address space @copy (0: empty).  Return: index. */
static int new_aspace(struct wc_tasks *t, uint32_t pid, size_t copy)
{
	struct wc_aspace *a, *from;

	if (wc_grow((void **)&t->aspaces, &t->aspaces_cap, t->naspaces + 1, sizeof(*t->aspaces)))
		return -ENOMEM;
	a = &t->aspaces[t->naspaces];
	from = &t->aspaces[copy]; /* after the growth: the array may have moved */
	memset(a, 0, sizeof(*a));
	a->pid = pid;
	if (copy && from->nmaps) {
		a->maps = malloc(from->nmaps * sizeof(*a->maps));
		if (!a->maps)
			return -ENOMEM;
		memcpy(a->maps, from->maps, from->nmaps * sizeof(*a->maps));
		a->nmaps = a->cap = from->nmaps;
	}
	return (int)t->naspaces++;
}

int wc_tasks_init(struct wc_tasks *t)
{
	memset(t, 0, sizeof(*t));
	if (wc_map64_init(&t->by_tid) || wc_map64_init(&t->by_pid) ||
	    wc_map64_init(&t->dso_by_hash) || new_aspace(t, 0, 0) < 0 ||
	    wc_grow((void **)&t->threads, &t->threads_cap, 1, sizeof(*t->threads))) {
		wc_tasks_fini(t);
		return -ENOMEM;
	}
	memset(&t->threads[0], 0, sizeof(t->threads[0]));
	t->nthreads = 1;
	return 0;
}

void wc_tasks_fini(struct wc_tasks *t)
{
	for (size_t i = 0; i < t->naspaces; i++)
		free(t->aspaces[i].maps);
	for (size_t i = 0; i < t->ndsos; i++)
		free(t->dsos[i].path);
	free(t->aspaces);
	free(t->dsos);
	free(t->threads);
	free(t->target_pids);
	wc_map64_fini(&t->by_tid);
	wc_map64_fini(&t->by_pid);
	wc_map64_fini(&t->dso_by_hash);
	memset(t, 0, sizeof(*t));
}

static bool is_target_pid(const struct wc_tasks *t, uint32_t pid)
{
	for (size_t i = 0; i < t->ntarget_pids; i++)
		if (t->target_pids[i] == pid)
			return true;
	return false;
}

int wc_tasks_add_target(struct wc_tasks *t, uint32_t pid)
{
	size_t cap = t->ntarget_pids;

	if (is_target_pid(t, pid))
		return 0;
	if (wc_grow((void **)&t->target_pids, &cap, t->ntarget_pids + 1, sizeof(uint32_t)))
		return -ENOMEM;
	t->target_pids[t->ntarget_pids++] = pid;
	return 0;
}

/* The current address space of process @pid, created empty when new.  Return: index or 0. */
static uint32_t aspace_of(struct wc_tasks *t, uint32_t pid)
{
	uint64_t *v;
	int idx;

	if (!pid)
		return 0;
	v = wc_map64_get(&t->by_pid, pid);
	if (v)
		return (uint32_t)*v;
	idx = new_aspace(t, pid, 0);
	if (idx < 0 || !wc_map64_put(&t->by_pid, pid, (uint64_t)idx, NULL))
		return 0;
	return (uint32_t)idx;
}

static struct wc_thread *new_thread(struct wc_tasks *t, uint32_t tid, uint32_t pid,
				    uint64_t time_ns)
{
	struct wc_thread *th;
	uint64_t *slot;

	if (wc_grow((void **)&t->threads, &t->threads_cap, t->nthreads + 1, sizeof(*t->threads)))
		return NULL;
	slot = wc_map64_put(&t->by_tid, tid, 0, NULL);
	if (!slot)
		return NULL;
	*slot = t->nthreads;
	th = &t->threads[t->nthreads++];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	th->pid = pid;
	th->first_ns = time_ns;
	if (pid) {
		th->aspace = aspace_of(t, pid);
		th->target = is_target_pid(t, pid);
	}
	return th;
}

struct wc_thread *wc_tasks_find(const struct wc_tasks *t, uint32_t tid)
{
	uint64_t *v = wc_map64_get(&t->by_tid, tid);

	return v ? &t->threads[*v] : NULL;
}

struct wc_thread *wc_tasks_thread(struct wc_tasks *t, uint32_t tid, uint32_t pid, uint64_t time_ns)
{
	struct wc_thread *th = wc_tasks_find(t, tid);

	if (!th)
		return new_thread(t, tid, pid, time_ns);
	if (pid && !th->pid) {
		th->pid = pid;
		th->aspace = aspace_of(t, pid);
		th->target = th->target || is_target_pid(t, pid);
	}
	return th;
}

static uint32_t dso_of(struct wc_tasks *t, const struct wc_rec_mmap *m, const char *name)
{
	uint64_t h = 1469598103934665603ull;
	uint64_t *v;

	for (const char *c = name; *c; c++)
		h = (h ^ (uint8_t)*c) * 1099511628211ull;
	for (int i = 0; i < m->build_id_size && i < WC_BUILD_ID_MAX; i++)
		h = (h ^ m->build_id[i]) * 1099511628211ull;
	h &= ~0ull >> 1;
	/* a hash collision between two files only costs a second entry with the same hash:
	 * look further by probing h+1, h+2, ... */
	for (;; h = (h + 1) & (~0ull >> 1)) {
		v = wc_map64_get(&t->dso_by_hash, h);
		if (!v)
			break;
		const struct wc_dso *d = &t->dsos[*v - 1];

		if (strcmp(d->path, name) == 0 && d->build_id_len == m->build_id_size &&
		    memcmp(d->build_id, m->build_id, d->build_id_len) == 0)
			return (uint32_t)(*v - 1);
	}
	if (wc_grow((void **)&t->dsos, &t->dsos_cap, t->ndsos + 1, sizeof(*t->dsos)))
		return UINT32_MAX;
	struct wc_dso *d = &t->dsos[t->ndsos];

	memset(d, 0, sizeof(*d));
	d->path = strdup(name);
	if (!d->path || !wc_map64_put(&t->dso_by_hash, h, t->ndsos + 1, NULL)) {
		free(d->path);
		return UINT32_MAX;
	}
	d->build_id_len = m->build_id_size <= WC_BUILD_ID_MAX ? m->build_id_size : 0;
	memcpy(d->build_id, m->build_id, d->build_id_len);
	return (uint32_t)t->ndsos++;
}

/* Insert [start, end) into @a, cutting away what it overlaps, as a new mmap replaces. */
static int insert_map(struct wc_aspace *a, struct wc_map m)
{
	size_t i = 0, j, n = 0;
	struct wc_map out[2];

	while (i < a->nmaps && a->maps[i].end <= m.start)
		i++;
	/* maps i .. j-1 overlap m */
	for (j = i; j < a->nmaps && a->maps[j].start < m.end; j++)
		;
	if (i < j && a->maps[i].start < m.start) {
		out[n] = a->maps[i];
		out[n++].end = m.start;
	}
	if (i < j && a->maps[j - 1].end > m.end) {
		out[n] = a->maps[j - 1];
		out[n].pgoff += m.end - out[n].start;
		out[n++].start = m.end;
	}
	size_t new_n = a->nmaps - (j - i) + 1 + n;

	if (new_n > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		void *p;

		while (cap < new_n)
			cap *= 2;
		p = realloc(a->maps, cap * sizeof(*a->maps));
		if (!p)
			return -ENOMEM;
		a->maps = p;
		a->cap = cap;
	}
	memmove(a->maps + i + 1 + n, a->maps + j, (a->nmaps - j) * sizeof(*a->maps));
	if (n && out[0].end == m.start) {
		a->maps[i] = out[0];
		a->maps[i + 1] = m;
		if (n == 2)
			a->maps[i + 2] = out[1];
	} else {
		a->maps[i] = m;
		if (n)
			a->maps[i + 1] = out[0];
	}
	a->nmaps = new_n;
	return 0;
}

int wc_tasks_record(struct wc_tasks *t, const struct wc_rec_header *h)
{
	switch (h->type) {
	case WC_REC_COMM: {
		const struct wc_rec_comm *c = (const void *)h;
		struct wc_thread *th = wc_tasks_thread(t, c->tid, c->pid, c->time_ns);

		if (!th)
			return -ENOMEM;
		if (c->flags & WC_COMM_EXEC) {
			int idx = new_aspace(t, c->pid, 0);

			if (idx < 0 || !wc_map64_put(&t->by_pid, c->pid, 0, NULL))
				return -ENOMEM;
			*wc_map64_get(&t->by_pid, c->pid) = (uint64_t)idx;
			th->aspace = (uint32_t)idx;
			t->execs++;
		}
		memcpy(th->comm, c->comm, 16);
		th->comm[16] = 0;
		/* a zombie (Z) or a dead task (X) in /proc is not alive */
		if ((c->flags & WC_TASK_SYNTH) && !th->forked && !th->exited && c->state != 'Z' &&
		    c->state != 'X') {
			bool letter = (c->state >= 'A' && c->state <= 'Z') ||
				      (c->state >= 'a' && c->state <= 'z');

			th->at_start = true;
			th->start_state = letter ? c->state : 0;
			/* a process leader's parent, as perf's synthesized FORK gives it
			 * (synthetic-events.c: PPid for the leader; its process, which the pid
			 * tells already, for another thread) */
			if (h->size >= sizeof(struct wc_rec_comm_proc) && c->tid == c->pid &&
			    letter) {
				th->ppid = ((const struct wc_rec_comm_proc *)c)->ppid;
				th->ppid_known = true; /* 0 too: init's and kthreadd's */
			}
		}
		break;
	}
	case WC_REC_FORK: {
		const struct wc_rec_task *f = (const void *)h;
		struct wc_thread *parent = wc_tasks_find(t, f->ptid);
		bool target = (parent && parent->target) || is_target_pid(t, f->ppid);
		char comm[17] = "";
		struct wc_thread *th;

		if (parent)
			memcpy(comm, parent->comm, sizeof(comm));
		t->forks++;
		if (f->pid == f->tid) { /* a new process: its own copy of the parent's maps */
			uint64_t *pa = wc_map64_get(&t->by_pid, f->ppid);
			int idx = new_aspace(t, f->pid, pa ? (size_t)*pa : 0);

			if (idx < 0 || !wc_map64_put(&t->by_pid, f->pid, 0, NULL))
				return -ENOMEM;
			*wc_map64_get(&t->by_pid, f->pid) = (uint64_t)idx;
			if (target && wc_tasks_add_target(t, f->pid))
				return -ENOMEM;
		}
		th = new_thread(t, f->tid, f->pid, f->time_ns); /* a reused tid starts afresh */
		if (!th)
			return -ENOMEM;
		memcpy(th->comm, comm, sizeof(comm));
		th->target = th->target || target;
		th->ppid = f->ppid;
		th->ppid_known = true;
		th->forked = true;
		break;
	}
	case WC_REC_EXIT: {
		const struct wc_rec_task *e = (const void *)h;
		struct wc_thread *th = wc_tasks_find(t, e->tid);

		t->exits++;
		if (th && !th->exited) { /* the recorder's own EXIT may follow the kernel's */
			th->exited = true;
			th->last_ns = e->time_ns;
		}
		break;
	}
	case WC_REC_MMAP: {
		const struct wc_rec_mmap *m = (const void *)h;
		size_t name_max = m->h.size - sizeof(*m);
		char name[4097];
		size_t n = strnlen(m->filename, name_max < 4096 ? name_max : 4096);
		uint32_t as, dso;

		memcpy(name, m->filename, n);
		name[n] = 0;
		if (!m->len || m->addr + m->len < m->addr)
			break;
		as = aspace_of(t, m->pid);
		if (!as)
			break;
		dso = dso_of(t, m, name);
		if (dso == UINT32_MAX)
			return -ENOMEM;
		t->mmaps++;
		return insert_map(&t->aspaces[as],
				  (struct wc_map){ m->addr, m->addr + m->len, m->pgoff, dso });
	}
	}
	return 0;
}

const struct wc_map *wc_tasks_lookup_map(const struct wc_tasks *t, uint32_t aspace, uint64_t addr)
{
	const struct wc_aspace *a;
	size_t lo = 0, hi;

	if (aspace >= t->naspaces)
		return NULL;
	a = &t->aspaces[aspace];
	hi = a->nmaps;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (a->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < a->nmaps && a->maps[lo].start <= addr)
		return &a->maps[lo];
	return NULL;
}
