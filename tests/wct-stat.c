/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wct-stat - facts about a trace file for the end-to-end test scripts, one "key value" per
 * line: ending, records by type, events by name, lost, the comm of every thread seen, and
 * the tids seen in events of each comm.  A test aid, not a product: wcanalyze info is that.
 * usage: wct-stat FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/reader.h"

#define MAX_TIDS 65536

static const char *const type_names[WC_REC_TYPE_COUNT] = {
	[WC_REC_HOST] = "host",		[WC_REC_CLOCK] = "clock",
	[WC_REC_EVENT_ATTR] = "event_attr", [WC_REC_TP_FORMAT] = "tp_format",
	[WC_REC_KALLSYMS] = "kallsyms",	[WC_REC_COMM] = "comm",
	[WC_REC_FORK] = "fork",		[WC_REC_EXIT] = "exit",
	[WC_REC_MMAP] = "mmap",		[WC_REC_STACK] = "stack",
	[WC_REC_TRACEPOINT] = "tracepoint", [WC_REC_SAMPLE] = "sample",
	[WC_REC_LOST] = "lost",		[WC_REC_ROUND] = "round",
	[WC_REC_THROTTLE] = "throttle",	[WC_REC_TRAILER] = "trailer",
	[WC_REC_NOTE] = "note",		[WC_REC_PAYLOAD] = "payload",
};

int main(int argc, char **argv)
{
	static char comm_of[MAX_TIDS][16];
	static uint64_t tp_of_tid[MAX_TIDS], samples_of_tid[MAX_TIDS];
	char names[16][64] = { { 0 } };
	uint64_t counts[WC_REC_TYPE_COUNT] = { 0 }, by_event[16] = { 0 }, lost = 0;
	const struct wc_rec_header *h;
	struct wc_reader *r;

	if (argc != 2) {
		fprintf(stderr, "usage: wct-stat FILE\n");
		return 2;
	}
	r = wc_reader_open(argv[1]);
	if (!r) {
		perror(argv[1]);
		return 1;
	}
	while (wc_reader_next(r, &h)) {
		counts[h->type]++;
		switch (h->type) {
		case WC_REC_EVENT_ATTR: {
			const struct wc_rec_event_attr *e = (const void *)h;

			if (e->event_id < 16)
				snprintf(names[e->event_id], 64, "%s",
					 (const char *)e->data + e->attr_size);
			break;
		}
		case WC_REC_COMM: {
			const struct wc_rec_comm *c = (const void *)h;

			if (c->tid < MAX_TIDS)
				memcpy(comm_of[c->tid], c->comm, 15);
			break;
		}
		case WC_REC_TRACEPOINT: {
			const struct wc_rec_tracepoint *t = (const void *)h;

			if (t->event_id < 16)
				by_event[t->event_id]++;
			if (t->tid < MAX_TIDS)
				tp_of_tid[t->tid]++;
			break;
		}
		case WC_REC_SAMPLE: {
			const struct wc_rec_sample *s = (const void *)h;

			if (s->tid < MAX_TIDS)
				samples_of_tid[s->tid]++;
			break;
		}
		case WC_REC_LOST:
			lost += ((const struct wc_rec_lost *)h)->count;
			break;
		}
	}
	printf("ending %s\n", wc_reader_state_name(wc_reader_state(r)));
	if (*wc_reader_error(r))
		printf("error %s\n", wc_reader_error(r));
	for (int t = 1; t < WC_REC_TYPE_COUNT; t++)
		printf("records.%s %llu\n", type_names[t] ? type_names[t] : "?",
		       (unsigned long long)counts[t]);
	for (int e = 0; e < 16; e++)
		if (names[e][0])
			printf("events.%s %llu\n", names[e], (unsigned long long)by_event[e]);
	printf("lost %llu\n", (unsigned long long)lost);
	for (int t = 0; t < MAX_TIDS; t++)
		if (comm_of[t][0] && (tp_of_tid[t] || samples_of_tid[t]))
			printf("thread %d %s tracepoints %llu samples %llu\n", t, comm_of[t],
			       (unsigned long long)tp_of_tid[t],
			       (unsigned long long)samples_of_tid[t]);
	int clean = wc_reader_state(r) == WC_READER_CLEAN;

	wc_reader_free(r);
	return clean ? 0 : 1;
}
