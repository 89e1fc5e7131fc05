/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * seam.c - what a rotation (wcrec --rotate) needs of the events: the threads' state carried
 * into the next file (recorder/carry.h), and the rings spilled to memory while the recorder
 * closes one file and opens the next, so that the events of that time are not lost.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "recorder/carry.h"
#include "recorder/events-priv.h"

int wc_events_carry_on(struct wc_events *ev)
{
	if (!ev->carry) {
		ev->carry = wc_carry_new();
		if (ev->carry && ev->per_task)
			wc_carry_targets_only(ev->carry);
	}
	return ev->carry ? 0 : -ENOMEM;
}

void wc_events_carry_check(struct wc_events *ev)
{
	if (ev->carry)
		wc_carry_check(ev->carry);
}

int wc_events_write_carried(struct wc_events *ev, struct wc_writer *w, uint64_t start_ns, size_t *n)
{
	*n = 0;
	return ev->carry ? wc_carry_write(ev->carry, w, ev->stacks, ev->payloads, start_ns, n) : 0;
}

/*
 * Move what ring @r holds into its spill buffer, whole records (the kernel publishes data_head
 * at record boundaries), and hand the ring's room back to the kernel.  Past WC_SPILL_MAX bytes
 * spilled, nothing more: the ring fills, and the kernel counts what it loses, as without.
 */
static void spill_ring(struct ring *r)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail, n = head - tail, off = tail & (r->size - 1);

	if (!n || n > r->size || r->spill_len + n > WC_SPILL_MAX)
		return;
	if (r->spill_len + n > r->spill_cap) {
		size_t cap = r->spill_cap ? r->spill_cap : r->size;
		uint8_t *b;

		while (cap < r->spill_len + n)
			cap *= 2;
		b = realloc(r->spill, cap);
		if (!b)
			return;
		r->spill = b;
		r->spill_cap = cap;
	}
	if (off + n > r->size) {
		memcpy(r->spill + r->spill_len, r->data + off, r->size - off);
		memcpy(r->spill + r->spill_len + (r->size - off), r->data, n - (r->size - off));
	} else {
		memcpy(r->spill + r->spill_len, r->data + off, n);
	}
	r->spill_len += n;
	/* release: done reading the bytes below head before the kernel may reuse them */
	__atomic_store_n(&r->meta->data_tail, head, __ATOMIC_RELEASE);
}

/* The spilling thread: every ring every 2 ms until told to stop. */
static void *spill_main(void *arg)
{
	struct wc_events *ev = arg;
	const struct timespec pause = { 0, 2000000 };
	sigset_t all;

	/* the recorder's signals (SIGINT, SIGTERM, SIGCHLD) are the main thread's to take */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	/* a higher weight than the threads it records: on a busy machine this thread went 120 ms
	 * without a CPU at nice 0 (the rings filled); where wcrec may not (not root), it stays */
	setpriority(PRIO_PROCESS, 0, -10);

	while (!__atomic_load_n(&ev->spill_stop, __ATOMIC_ACQUIRE)) {
		for (int c = 0; c < ev->ncpus; c++)
			spill_ring(&ev->rings[c]);
		nanosleep(&pause, NULL);
	}
	return NULL;
}

int wc_events_spill_start(struct wc_events *ev)
{
	int err;

	if (ev->spilling)
		return 0;
	__atomic_store_n(&ev->spill_stop, 0, __ATOMIC_RELEASE);
	err = pthread_create(&ev->spill_thread, NULL, spill_main, ev);
	ev->spilling = !err;
	return -err;
}

void wc_events_spill_stop(struct wc_events *ev)
{
	if (!ev->spilling)
		return;
	__atomic_store_n(&ev->spill_stop, 1, __ATOMIC_RELEASE);
	pthread_join(ev->spill_thread, NULL);
	ev->spilling = false;
}

int wc_events_drain_spill(struct wc_events *ev, struct ring *r, struct wc_writer *w, int self_pid,
			  uint64_t until_ns, struct wc_drain_stats *st)
{
	size_t at = 0, k = 0;
	int err = 0, cut = 0;

	while (!err && r->spill_len - at >= sizeof(struct perf_event_header)) {
		const struct perf_event_header *h;

		/* writing out 200 ms of spilled events takes a while (mending their user stacks):
		 * the rings, meanwhile, spilled after them (one run lost 914 events without); not
		 * in a rotation's last drain, which takes what comes before its time only */
		if (!until_ns && !(++k % 256))
			for (int c = 0; c < ev->ncpus; c++)
				spill_ring(&ev->rings[c]);
		h = (const void *)(r->spill + at); /* spill_ring() may move the buffer */
		if (h->size < sizeof(*h) || h->size > r->spill_len - at)
			break; /* cannot happen: whole records were copied */
		if (wc_events_after(ev, h, until_ns)) {
			cut = 1; /* the next file's: kept, at the front */
			break;
		}
		err = wc_events_on_record(ev, r, w, h, self_pid, st);
		at += h->size;
	}
	if (cut) {
		memmove(r->spill, r->spill + at, r->spill_len - at);
		r->spill_len -= at;
		return err ? err : 1;
	}
	r->spill_len = 0;
	if (r->spill_cap > 4 * r->size) { /* a long rotation's: not kept for the next */
		free(r->spill);
		r->spill = NULL;
		r->spill_cap = 0;
	}
	return err;
}
