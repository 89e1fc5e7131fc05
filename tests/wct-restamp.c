/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wct-restamp - a test aid for the side-by-side tests with perf: pair each scheduler event of
 * a .wct file with the same firing of the tracepoint in perf's recording of the same run, say
 * how far apart the two time stamps are, and write a copy of the trace that carries perf's.
 *
 * Why: two consumers of one tracepoint time-stamp it one after the other.  The kernel calls
 * the perf events of a tracepoint in list order, newest first, and each event's time stamp is
 * read when its own output begins, so every consumer that sits between the two in that list
 * (another recorder taking callchains, a test running alongside) delays the later one's stamp
 * by its own work: microseconds, differently for each kind of event.  A quantity such as a
 * sch delay (switch-in minus wakeup) then differs between the two tools by the difference of
 * two such delays, summed over every interval.  With perf's stamps on our events, wcanalyze
 * and perf compute from the same times, and any difference left is the analysis's.
 *
 * PERF-EVENTS is one line per event, from `perf script --ns -F cpu,time,event,trace`
 * rewritten by the test as "CPU TIME_NS NAME A B": NAME sched_switch (A prev_pid, B next_pid),
 * sched_waking, sched_wakeup or sched_wakeup_new (A pid, B 0), sched_stat_runtime (A pid,
 * B runtime in ns).  Per CPU, an event of the trace pairs with the event of perf's after the
 * last one paired that has the same NAME, A and B and the time stamp nearest ours, within
 * 2 ms, on the side of ours where perf's stamps fall (the same pids can recur within that:
 * the nearest on that side is the same firing; see pair()); an event with none keeps its own
 * stamp and is counted as unpaired.  Events of a name perf did not record
 * at all keep their stamps and are not counted.
 *
 * Output on stdout: "paired N", "unpaired N", "offset_ns MIN P50 P99 MAX" (perf's stamp
 * minus ours, over the paired events) and "unpaired_event CPU TIME_NS NAME A B" for each
 * unpaired one.  Exit 0, 1 on an unreadable input, 2 on bad usage.
 * With --drop-unpaired, OUT leaves the unpaired events out (those of a name perf recorded):
 * both files then hold the same firings, for a test of the two readers (perfdata-live.sh;
 * perf's event misses, rarely, a firing ours records, with no LOST record).
 * usage: wct-restamp [--drop-unpaired] IN.wct PERF-EVENTS OUT.wct
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/core/tpdecode.h"
#include "common/reader.h"
#include "common/writer.h"

#define MAX_CPUS  1024
#define WINDOW_NS 2000000ll

struct ev {
	int cpu;
	long long time_ns, new_ns;
	char name[24];
	long long a, b;
	int paired;
	size_t next_same; /* ours: index of the next event of the same CPU, NAME, A and B; or n */
};

struct evs {
	struct ev *v;
	size_t n, cap;
};

static int push(struct evs *e, const struct ev *x)
{
	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 4096;
		struct ev *v = realloc(e->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		e->v = v;
		e->cap = cap;
	}
	e->v[e->n++] = *x;
	return 0;
}

static int read_perf(const char *path, struct evs *out)
{
	FILE *f = fopen(path, "r");
	char line[256];
	struct ev x = { 0 };

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%d %lld %23s %lld %lld", &x.cpu, &x.time_ns, x.name, &x.a,
			   &x.b) == 5 &&
		    x.cpu >= 0 && x.cpu < MAX_CPUS && push(out, &x) < 0)
			break;
	fclose(f);
	return 0;
}

/* The scheduler events of the trace, in file order; the decoder is set up on the way. */
struct trace {
	struct wc_tpdecode *dec;
	const char *name_of[65536];
	int role_of[65536], bound[65536]; /* bound on first use: TP_FORMATs may come later */
	uint8_t *payload[1 << 20];
	uint16_t payload_size[1 << 20];
};

static void decode(struct trace *t, int id, const void *data, size_t size, struct ev *x)
{
	struct wc_switch sw;
	struct wc_wakeup wk;
	struct wc_runtime rt;

	if (!t->name_of[id] || strncmp(t->name_of[id], "sched:", 6) != 0)
		return;
	if (!t->bound[id]++)
		wc_tpdecode_bind(t->dec, (uint16_t)id, t->name_of[id], t->role_of[id]);
	snprintf(x->name, sizeof(x->name), "%s", t->name_of[id] + 6);
	if (!wc_tpdecode_decode_switch(t->dec, id, data, size, &sw)) {
		x->a = sw.prev_tid;
		x->b = sw.next_tid;
	} else if (!wc_tpdecode_decode_wakeup(t->dec, id, data, size, &wk)) {
		x->a = wk.tid;
	} else if (!wc_tpdecode_decode_runtime(t->dec, id, data, size, &rt)) {
		x->a = rt.tid;
		x->b = (long long)rt.runtime_ns;
	} else {
		x->name[0] = 0;
	}
}

static int read_trace(const char *path, struct trace *t, struct evs *out)
{
	struct wc_reader *r = wc_reader_open(path);
	const struct wc_rec_header *h;

	if (!r)
		return -errno;
	while (wc_reader_next(r, &h)) {
		struct ev x = { .a = 0, .b = 0 };

		if (h->type == WC_REC_TP_FORMAT) {
			const struct wc_rec_tp_format *f = (const void *)h;

			wc_tpdecode_add_format(t->dec, f->data, f->data + f->system_len);
		} else if (h->type == WC_REC_EVENT_ATTR) {
			const struct wc_rec_event_attr *e = (const void *)h;
			const char *name = (const char *)e->data + e->attr_size;
			int role = wc_tpdecode_role_of_kind(e->kind);

			if (e->event_id < 65536 && role) {
				t->name_of[e->event_id] = strdup(name);
				t->role_of[e->event_id] = role;
			}
		} else if (h->type == WC_REC_PAYLOAD) {
			const struct wc_rec_payload *p = (const void *)h;

			if (p->id < (1u << 20) && !t->payload[p->id]) {
				t->payload[p->id] = malloc(p->size);
				if (t->payload[p->id])
					memcpy(t->payload[p->id], p->data, p->size);
				t->payload_size[p->id] = p->size;
			}
		} else if (h->type == WC_REC_TRACEPOINT) {
			const struct wc_rec_tracepoint *e = (const void *)h;

			x.cpu = (int)e->cpu;
			x.time_ns = x.new_ns = (long long)e->time_ns;
			if (e->payload_id < (1u << 20) && t->payload[e->payload_id])
				decode(t, e->event_id, t->payload[e->payload_id],
				       t->payload_size[e->payload_id], &x);
			if (push(out, &x) < 0)
				break;
		} else if (h->type == WC_REC_TP_INLINE) {
			const struct wc_rec_tp_inline *e = (const void *)h;

			x.cpu = (int)e->cpu;
			x.time_ns = x.new_ns = (long long)e->time_ns;
			decode(t, e->event_id, e->data, e->size, &x);
			if (push(out, &x) < 0)
				break;
		}
	}
	wc_reader_free(r);
	return 0;
}

/* Whether perf recorded any event of that name. */
static int perf_has(const struct evs *perf, const char *name)
{
	static char names[16][24];
	static int n = -1;

	if (n < 0)
		for (size_t j = n = 0; j < perf->n; j++) {
			int k = 0;

			while (k < n && strcmp(names[k], perf->v[j].name))
				k++;
			if (k == n && n < 16)
				snprintf(names[n++], sizeof(names[0]), "%s", perf->v[j].name);
		}
	for (int k = 0; k < n; k++)
		if (!strcmp(names[k], name))
			return 1;
	return 0;
}

static int same_key(const struct ev *x, const struct ev *y)
{
	return x->cpu == y->cpu && x->a == y->a && x->b == y->b && !strcmp(x->name, y->name);
}

static size_t key_hash(const struct ev *x, size_t mask)
{
	unsigned long long h = (unsigned long long)x->cpu * 0x9e3779b97f4a7c15ull;

	h ^= (unsigned long long)x->a * 0xc2b2ae3d27d4eb4full;
	h ^= (unsigned long long)x->b * 0x165667b19e3779f9ull;
	for (const char *c = x->name; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
	return (size_t)(h ^ h >> 29) & mask;
}

/* Fill next_same, from the end, with an open-addressed table of each key's latest index. */
static int link_same(struct evs *ours)
{
	size_t cap = 1024, *slot;

	while (cap < 2 * ours->n)
		cap *= 2;
	slot = malloc(cap * sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (size_t k = 0; k < cap; k++)
		slot[k] = ours->n;
	for (size_t i = ours->n; i-- > 0;) {
		struct ev *o = &ours->v[i];
		size_t k = key_hash(o, cap - 1);

		o->next_same = ours->n;
		if (!o->name[0])
			continue;
		while (slot[k] < ours->n && !same_key(&ours->v[slot[k]], o))
			k = (k + 1) & (cap - 1);
		o->next_same = slot[k];
		slot[k] = i;
	}
	free(slot);
	return 0;
}

/* One pass of the pairing, CPU by CPU, in order; see the comment at the top.  SIDE 0: the
 * nearest candidate; SIDE 1 (or -1): the nearest whose stamp is at or after (before) ours,
 * the nearest on the other side only where there is none.  A candidate is left to our next
 * event of the same key where it lies nearer that one, on its side: the firing of ours perf's
 * event missed then stays unpaired, where taking the next one's partner would move every later
 * pairing of that key on by one (a cascade of 7 in a mutex ping-pong, tried with one switch
 * taken out of perf's).  Nearness is of the stamps alone: the offset differs by kind and by
 * the work on the event (0.5 us at a switch after idle, 10 us at one with a user callchain),
 * and one median for all paired one switch with the same switch 20 us later. */
static void pair_pass(struct evs *ours, const struct evs *perf, int side)
{
	static size_t next[MAX_CPUS];

	memset(next, 0, sizeof(next));
	for (size_t i = 0; i < ours->n; i++) {
		struct ev *o = &ours->v[i];

		o->paired = 0;
		if (!o->name[0] || o->cpu < 0 || o->cpu >= MAX_CPUS)
			continue;
		size_t best = perf->n;
		long long best_d = 0;

		for (size_t j = next[o->cpu]; j < perf->n; j++) {
			const struct ev *p = &perf->v[j];
			long long d = llabs(p->time_ns - o->time_ns);

			if (p->cpu != o->cpu || p->time_ns < o->time_ns - WINDOW_NS)
				continue;
			if (p->time_ns > o->time_ns + WINDOW_NS)
				break;
			if (strcmp(p->name, o->name) || p->a != o->a || p->b != o->b)
				continue;
			/* the wrong side: only where none is right */
			if (side && (p->time_ns - o->time_ns) * side < 0)
				d += 2 * WINDOW_NS + 1;
			if (best == perf->n || d < best_d) {
				best = j;
				best_d = d;
			}
		}
		if (best < perf->n && o->next_same < ours->n) {
			const struct ev *y = &ours->v[o->next_same];

			long long dy = perf->v[best].time_ns - y->time_ns;

			if ((!side || dy * side >= 0) && llabs(dy) < best_d)
				best = perf->n;
		}
		if (best < perf->n) {
			o->new_ns = perf->v[best].time_ns;
			o->paired = 1;
			next[o->cpu] = best + 1;
		}
	}
}

static int cmp_ll(const void *a, const void *b);

/*
 * Pair; events of a name perf did not record are left out (name cleared).  Two passes: the
 * first pairs each event with the nearest; its median offset says which consumer the kernel
 * calls first (the one started last: its stamp is the earlier, every time); the second then
 * pairs each event with the nearest on that side.  Nearest alone mis-pairs where the offset
 * is large and the same switch recurs within it (CI XD: at the start of a redis recording, ours
 * 101 us before perf's firing and 61 us after the one before it, a switch of the same pair).
 */
static void pair(struct evs *ours, const struct evs *perf)
{
	long long *off = malloc((ours->n + 1) * sizeof(*off));
	size_t n = 0;
	int side = 0;

	for (size_t i = 0; i < ours->n; i++)
		if (ours->v[i].name[0] && !perf_has(perf, ours->v[i].name))
			ours->v[i].name[0] = 0;
	if (link_same(ours) < 0)
		for (size_t i = 0; i < ours->n; i++)
			ours->v[i].next_same = ours->n;
	pair_pass(ours, perf, 0);
	for (size_t i = 0; off && i < ours->n; i++)
		if (ours->v[i].paired)
			off[n++] = ours->v[i].new_ns - ours->v[i].time_ns;
	if (n) {
		qsort(off, n, sizeof(*off), cmp_ll);
		side = off[n / 2] >= 0 ? 1 : -1;
	}
	free(off);
	if (side)
		pair_pass(ours, perf, side);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static void report(const struct evs *ours)
{
	long long *off = malloc((ours->n + 1) * sizeof(*off));
	size_t n = 0, unpaired = 0;

	for (size_t i = 0; i < ours->n; i++) {
		const struct ev *o = &ours->v[i];

		if (!o->name[0])
			continue;
		if (o->paired) {
			if (off)
				off[n] = o->new_ns - o->time_ns;
			n++;
		} else {
			unpaired++;
			printf("unpaired_event %d %lld %s %lld %lld\n", o->cpu, o->time_ns, o->name,
			       o->a, o->b);
		}
	}
	printf("paired %zu\nunpaired %zu\n", n, unpaired);
	if (off && n) {
		qsort(off, n, sizeof(*off), cmp_ll);
		printf("offset_ns %lld %lld %lld %lld\n", off[0], off[n / 2], off[n * 99 / 100],
		       off[n - 1]);
	}
	free(off);
}

/* Copy IN to OUT record by record, with the new stamps, the unpaired events left out where
 * DROP; the writer writes its own trailer. */
static int rewrite(const char *in, const char *out, const struct evs *ours, int drop)
{
	struct wc_reader *r = wc_reader_open(in);
	const struct wc_rec_header *h;
	uint64_t end_ns = 0;
	uint32_t flags = 0;
	size_t k = 0;
	int fd, err = 0;
	struct wc_writer *w;

	if (!r)
		return -errno;
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	w = fd < 0 ? NULL : wc_writer_new(fd, NULL);
	while (w && !err && wc_reader_next(r, &h)) {
		if (h->type == WC_REC_TRAILER) {
			end_ns = ((const struct wc_rec_trailer *)h)->time_ns;
			flags = ((const struct wc_rec_trailer *)h)->flags;
		} else if ((h->type == WC_REC_TRACEPOINT || h->type == WC_REC_TP_INLINE) &&
			   k < ours->n) {
			const struct ev *o = &ours->v[k++];
			uint8_t *copy;

			if (drop && o->name[0] && !o->paired)
				continue;
			copy = malloc(h->size);

			if (!copy)
				return -ENOMEM;
			memcpy(copy, h, h->size);
			memcpy(copy + sizeof(*h), &o->new_ns, sizeof(uint64_t));
			err = wc_writer_add(w, copy);
			free(copy);
		} else {
			err = wc_writer_add(w, h);
		}
	}
	if (w && !err)
		err = wc_writer_close(w, end_ns, flags);
	wc_writer_free(w);
	if (fd >= 0)
		close(fd);
	wc_reader_free(r);
	return fd < 0 ? -errno : err;
}

int main(int argc, char **argv)
{
	static struct trace t;
	struct evs ours = { 0 }, perf = { 0 };
	int err, drop = argc > 1 && !strcmp(argv[1], "--drop-unpaired");

	argc -= drop;
	argv += drop;
	if (argc != 4) {
		fprintf(stderr,
			"usage: wct-restamp [--drop-unpaired] IN.wct PERF-EVENTS OUT.wct\n");
		return 2;
	}
	t.dec = wc_tpdecode_new();
	if (!t.dec || read_perf(argv[2], &perf) < 0 || read_trace(argv[1], &t, &ours) < 0) {
		fprintf(stderr, "wct-restamp: cannot read %s or %s\n", argv[1], argv[2]);
		return 1;
	}
	pair(&ours, &perf);
	report(&ours);
	err = rewrite(argv[1], argv[3], &ours, drop);
	free(ours.v);
	free(perf.v);
	for (size_t i = 0; i < sizeof(t.payload) / sizeof(t.payload[0]); i++)
		free(t.payload[i]);
	for (size_t i = 0; i < sizeof(t.name_of) / sizeof(t.name_of[0]); i++)
		free((char *)t.name_of[i]);
	wc_tpdecode_free(t.dec);
	if (err) {
		fprintf(stderr, "wct-restamp: %s: %s\n", argv[3], strerror(-err));
		return 1;
	}
	return 0;
}
