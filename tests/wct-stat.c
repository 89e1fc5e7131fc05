/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wct-stat - facts about a trace file for the end-to-end test scripts, one "key value" per
 * line: ending, records by type, events by name, lost, the comm of every thread seen, and
 * the tids seen in events of each comm with their pid ("thread TID COMM tracepoints N samples N
 * pid PID", the pid of its last event), events per CPU, the time stamps (ns) of each CPU's
 * first and last sched_switch ("switch_span CPU FIRST LAST"), the least and the most delay_ns
 * of its SWITCH_IN records ("switch_in.delay_ns MIN MAX") and their count per thread
 * ("switch_in.tid TID N"), the clock id and the NOTEs, and per comm the user part of the
 * callchains of its sched_switch events: "switch_stack COMM N MEAN_USER_FRAMES TRUNCATED" (N
 * events with a callchain; the frames not counting markers; TRUNCATED: how many end in a
 * marker: WC_CONTEXT_TRUNCATED or WC_CONTEXT_UNWIND_FAILED, cut short either way), and the
 * sched_switch records of each thread switched out ("switch_out TID PID N", the record's tid: the
 * prev task; tid 0 the idle task).
 * A test aid, not a product: wcanalyze info is that.
 * With MAPNAME, also the user frames that fall inside a mapping whose file name ends with
 * MAPNAME, as "frame COMM KIND 0xFILEOFFSET" (KIND switch, wake or sample; each distinct line
 * once), and that mapping's recorded build-id as "buildid MAPNAME HEX": of the target process
 * only when the trace names one (the target_pid NOTE), as a system-wide trace holds the
 * mappings of other processes of the same program (another test's, another build's).
 * With --ksyms, only the KSYM records, as "ksym 0xSTART 0xEND NAME [MODULE]", and the kernel
 * addresses of every callchain, as "kip 0xADDR" (once per callchain that holds them).
 * With --runtime, the sched_stat_runtime events and the samples, one line each (print_runtime()).
 * With --sched, the scheduler events, one line each, as the file holds them (print_sched():
 * a SWITCH_IN's line ends with its delay_ns).
 * usage: wct-stat FILE [MAPNAME]
 *        wct-stat --ksyms FILE
 *        wct-stat --runtime FILE
 *        wct-stat --sched FILE
 */
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/reader.h"
#include "common/rectypes.h"

#define MAX_TIDS   65536
#define MAX_MAPS   64
#define MAX_CPUS   4096
#define MAX_FRAMES 4096

struct map {
	uint32_t pid;
	uint64_t addr, len, pgoff;
};

static struct map maps[MAX_MAPS];
static int nmaps;
static long target_pid = -1; /* the target_pid NOTE, once seen */
static uint64_t **stacks;    /* by id: nr, then the ips */
static size_t nstacks;
static char frames[MAX_FRAMES][64];
static int nframes;

#define MAX_COMMS 256
static struct {
	char comm[16];
	uint64_t n, frames, truncated;
} depth[MAX_COMMS];

/* Count the user part of a sched_switch's callchain under its comm (switch_stack lines). */
static void count_depth(uint32_t stack_id, const char *comm)
{
	const uint64_t *st = stack_id < nstacks ? stacks[stack_id] : NULL;
	int user = 0, d;

	if (!st)
		return;
	for (d = 0; d < MAX_COMMS && depth[d].comm[0] && strcmp(depth[d].comm, comm); d++)
		;
	if (d == MAX_COMMS)
		return;
	snprintf(depth[d].comm, sizeof(depth[d].comm), "%s", comm);
	depth[d].n++;
	for (uint64_t i = 1; i <= st[0]; i++) {
		if (WC_CONTEXT_IS_END(st[i])) /* [truncated] or [unwind failed] */
			depth[d].truncated++;
		else if (st[i] >= (uint64_t)PERF_CONTEXT_MAX)
			user = st[i] == (uint64_t)PERF_CONTEXT_USER;
		else
			depth[d].frames += user;
	}
}

static void keep_map(const struct wc_rec_mmap *m, const char *mapname)
{
	size_t n = strlen(m->filename), k = strlen(mapname);

	if (n < k || strcmp(m->filename + n - k, mapname) != 0 || nmaps == MAX_MAPS ||
	    (target_pid >= 0 && m->pid != (uint32_t)target_pid))
		return;
	maps[nmaps++] = (struct map){ m->pid, m->addr, m->len, m->pgoff };
	printf("buildid %s ", mapname);
	for (int i = 0; i < m->build_id_size && i < WC_BUILD_ID_MAX; i++)
		printf("%02x", m->build_id[i]);
	printf("\n");
}

/* Room for slot @id in the array *@p of *@n slots of @elem bytes, the new ones zeroed
 * (common/grow.h).  Return: false when out of memory, the array unchanged. */
static bool slot_room(void **p, size_t *n, size_t id, size_t elem)
{
	size_t had = *n;

	if (wc_grow(p, n, id + 1, elem))
		return false;
	memset((char *)*p + had * elem, 0, (*n - had) * elem);
	return true;
}

static void keep_stack(const struct wc_rec_stack *st)
{
	uint64_t *copy;

	if (!slot_room((void **)&stacks, &nstacks, st->id, sizeof(*stacks)))
		return;
	copy = malloc((st->nr + 1) * sizeof(uint64_t));
	if (!copy)
		return;
	copy[0] = st->nr;
	memcpy(copy + 1, st->ips, st->nr * sizeof(uint64_t));
	stacks[st->id] = copy;
}

/* Print the user frames of stack_id that fall in a kept mapping of pid, each line once. */
static void print_frames(uint32_t stack_id, uint32_t pid, const char *comm, const char *kind)
{
	const uint64_t *st = stack_id < nstacks ? stacks[stack_id] : NULL;
	int user = 0;

	for (uint64_t i = 1; st && i <= st[0]; i++) {
		uint64_t ip = st[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			user = ip == (uint64_t)PERF_CONTEXT_USER;
			continue;
		}
		for (int m = 0; user && m < nmaps; m++) {
			char line[64];
			int seen = 0;

			if (maps[m].pid != pid || ip < maps[m].addr ||
			    ip >= maps[m].addr + maps[m].len)
				continue;
			snprintf(line, sizeof(line), "%.15s %s 0x%llx", comm, kind,
				 (unsigned long long)(ip - maps[m].addr + maps[m].pgoff));
			for (int f = 0; f < nframes && !seen; f++)
				seen = strcmp(frames[f], line) == 0;
			if (!seen && nframes < MAX_FRAMES) {
				strcpy(frames[nframes++], line);
				printf("frame %s\n", line);
			}
		}
	}
}

/* wct-stat --ksyms FILE.  Return: the exit status. */
static int print_ksyms(const char *path)
{
	struct wc_reader *r = wc_reader_open(path);
	const struct wc_rec_header *h;
	int clean;

	if (!r) {
		perror(path);
		return 1;
	}
	while (wc_reader_next(r, &h)) {
		if (h->type == WC_REC_KSYM) {
			const struct wc_rec_ksym *k = (const void *)h;
			const char *mod = k->strings + strlen(k->strings) + 1;

			printf("ksym 0x%llx 0x%llx %s%s%s%s\n", (unsigned long long)k->start,
			       (unsigned long long)k->end, k->strings, *mod ? " [" : "", mod,
			       *mod ? "]" : "");
		} else if (h->type == WC_REC_STACK) {
			const struct wc_rec_stack *st = (const void *)h;
			int kernel = 1;

			for (uint32_t i = 0; i < st->nr; i++) {
				if (st->ips[i] >= (uint64_t)PERF_CONTEXT_MAX)
					kernel = st->ips[i] == (uint64_t)PERF_CONTEXT_KERNEL;
				else if (kernel)
					printf("kip 0x%llx\n", (unsigned long long)st->ips[i]);
			}
		}
	}
	clean = wc_reader_state(r) == WC_READER_CLEAN;
	wc_reader_free(r);
	return clean ? 0 : 1;
}

/* The offset of field @name in format @text ("field:TYPE NAME;\toffset:N;"), or -1. */
static int field_offset(const char *text, const char *name)
{
	char pat[80];
	const char *f;

	snprintf(pat, sizeof(pat), " %s;", name);
	f = strstr(text, pat);
	f = f ? strstr(f, "offset:") : NULL;
	return f ? atoi(f + 7) : -1;
}

/*
 * wct-stat --runtime FILE: the sched_stat_runtime events kept (TP_INLINE), as "runtime TIME
 * CPU PID NS" (the time, the CPU, the pid field: the thread charged, and the runtime field: ns
 * added to its CPU time), and the samples, as "sample TIME CPU TID", in the file's order.
 * Return: the exit status.
 */
static int print_runtime(const char *path)
{
	struct wc_reader *r = wc_reader_open(path);
	const struct wc_rec_header *h;
	int pid_at = -1, rt_at = -1, clean;
	uint32_t id = UINT32_MAX;

	if (!r) {
		perror(path);
		return 1;
	}
	while (wc_reader_next(r, &h)) {
		if (h->type == WC_REC_TP_FORMAT) {
			const struct wc_rec_tp_format *f = (const void *)h;
			const char *text = f->data + f->system_len;

			if (strstr(text, "name: sched_stat_runtime")) {
				pid_at = field_offset(text, "pid");
				rt_at = field_offset(text, "runtime");
			}
		} else if (h->type == WC_REC_EVENT_ATTR) {
			const struct wc_rec_event_attr *e = (const void *)h;

			if (e->kind == WC_EVENT_RUNTIME)
				id = e->event_id;
		} else if (h->type == WC_REC_TP_INLINE) {
			const struct wc_rec_tp_inline *t = (const void *)h;
			uint64_t ns;
			int32_t pid;

			if (t->event_id != id || pid_at < 0 || rt_at < 0 ||
			    t->size < (unsigned)rt_at + 8 || t->size < (unsigned)pid_at + 4)
				continue;
			memcpy(&pid, t->data + pid_at, 4);
			memcpy(&ns, t->data + rt_at, 8);
			printf("runtime %llu %u %d %llu\n", (unsigned long long)t->time_ns, t->cpu,
			       pid, (unsigned long long)ns);
		} else if (h->type == WC_REC_SAMPLE) {
			const struct wc_rec_sample *smp = (const void *)h;

			printf("sample %llu %u %u\n", (unsigned long long)smp->time_ns, smp->cpu,
			       smp->tid);
		}
	}
	clean = wc_reader_state(r) == WC_READER_CLEAN;
	wc_reader_free(r);
	return clean ? 0 : 1;
}

/* The PAYLOAD records, by id: each one's size (u16), then its bytes (keep_payload()). */
static uint8_t **payloads;
static size_t npayloads;

static void keep_payload(const struct wc_rec_payload *p)
{
	uint8_t *copy;

	if (!slot_room((void **)&payloads, &npayloads, p->id, sizeof(*payloads)))
		return;
	copy = malloc(p->size + 2u);
	if (!copy)
		return;
	memcpy(copy, &p->size, 2);
	memcpy(copy + 2, p->data, p->size);
	free(payloads[p->id]);
	payloads[p->id] = copy;
}

/* The pid field at @at of payload @id (the task woken), or -1. */
static int32_t payload_pid(uint32_t id, int at)
{
	const uint8_t *p = id < npayloads ? payloads[id] : NULL;
	uint16_t size;
	int32_t pid;

	if (!p || at < 0)
		return -1;
	memcpy(&size, p, 2);
	if (size < (unsigned)at + 4)
		return -1;
	memcpy(&pid, p + 2 + at, 4);
	return pid;
}

/*
 * wct-stat --sched FILE: every scheduler record in the file's order, duplicates included:
 * "switch TIME CPU TID PID" (a sched_switch: TID is the task switched out), "WAKE TIME CPU
 * TID PID WOKEN" (WAKE waking, wakeup or wakeup_new: TID the task it fired in, WOKEN the pid
 * field, the task woken), "switch_in TIME CPU TID PID DELAY_NS" (a SWITCH_IN record: TID switched
 * in), "carried TIME CPU TID PID on|off|wake SINCE" (a CARRIED record: wake, a wakeup's, TID
 * the waker) and "lost TIME CPU N" (a LOST record).  Return: the exit status.
 */
static int print_sched(const char *path)
{
	static const char *const wake_names[] = { [WC_EVENT_WAKEUP] = "wakeup",
						  [WC_EVENT_WAKING] = "waking",
						  [WC_EVENT_WAKEUP_NEW] = "wakeup_new" };
	struct wc_reader *r = wc_reader_open(path);
	const struct wc_rec_header *h;
	uint32_t kind_of[256] = { 0 };
	int pid_at[WC_EVENT_WAKEUP_NEW + 1] = { -1, -1, -1, -1, -1, -1 }, clean;

	if (!r) {
		perror(path);
		return 1;
	}
	while (wc_reader_next(r, &h)) {
		if (h->type == WC_REC_TP_FORMAT) {
			const struct wc_rec_tp_format *f = (const void *)h;
			const char *text = f->data + f->system_len;

			for (int k = WC_EVENT_WAKEUP; k <= WC_EVENT_WAKEUP_NEW; k++) {
				char name[40];

				snprintf(name, sizeof(name), "name: sched_%s\n", wake_names[k]);
				if (strstr(text, name))
					pid_at[k] = field_offset(text, "pid");
			}
		} else if (h->type == WC_REC_EVENT_ATTR) {
			const struct wc_rec_event_attr *e = (const void *)h;

			if (e->event_id < 256)
				kind_of[e->event_id] = e->kind;
		} else if (h->type == WC_REC_PAYLOAD) {
			keep_payload((const void *)h);
		} else if (h->type == WC_REC_TRACEPOINT) {
			const struct wc_rec_tracepoint *t = (const void *)h;
			uint32_t k = kind_of[t->event_id & 255];

			if (k == WC_EVENT_SWITCH)
				printf("switch %llu %u %u %u\n", (unsigned long long)t->time_ns,
				       t->cpu, t->tid, t->pid);
			else if (k >= WC_EVENT_WAKEUP && k <= WC_EVENT_WAKEUP_NEW)
				printf("%s %llu %u %u %u %d\n", wake_names[k],
				       (unsigned long long)t->time_ns, t->cpu, t->tid, t->pid,
				       payload_pid(t->payload_id, pid_at[k]));
		} else if (h->type == WC_REC_SWITCH_IN) {
			const struct wc_rec_switch_in *x = (const void *)h;

			printf("switch_in %llu %u %u %u %u\n", (unsigned long long)x->time_ns,
			       x->cpu, x->tid, x->pid, x->delay_ns);
		} else if (h->type == WC_REC_LOST) {
			const struct wc_rec_lost *x = (const void *)h;

			printf("lost %llu %u %llu\n", (unsigned long long)x->time_ns, x->cpu,
			       (unsigned long long)x->count);
		} else if (h->type == WC_REC_CARRIED) {
			const struct wc_rec_carried *x = (const void *)h;

			printf("carried %llu %u %u %u %s %llu\n", (unsigned long long)x->time_ns,
			       x->cpu, x->tid, x->pid,
			       x->flags & WC_CARRIED_WAKEUP   ? "wake"
			       : x->flags & WC_CARRIED_ON_CPU ? "on"
							      : "off",
			       (unsigned long long)x->since_ns);
		}
	}
	clean = wc_reader_state(r) == WC_READER_CLEAN;
	wc_reader_free(r);
	for (size_t i = 0; i < npayloads; i++)
		free(payloads[i]);
	free(payloads);
	return clean ? 0 : 1;
}

int main(int argc, char **argv)
{
	static char comm_of[MAX_TIDS][16];
	static uint64_t tp_of_tid[MAX_TIDS], samples_of_tid[MAX_TIDS], events_of_cpu[MAX_CPUS];
	static uint64_t first_switch[MAX_CPUS], last_switch[MAX_CPUS];
	static uint64_t switches_of_tid[MAX_TIDS];
	static uint64_t switch_ins_of_tid[MAX_TIDS];
	static uint32_t pid_of_tid[MAX_TIDS];
	char names[16][64] = { { 0 } };
	uint64_t counts[WC_REC_TYPE_COUNT] = { 0 }, by_event[16] = { 0 }, lost = 0;
	uint64_t in_delay_min = UINT64_MAX, in_delay_max = 0;
	const struct wc_rec_header *h;
	struct wc_reader *r;

	const char *mapname = argc == 3 ? argv[2] : NULL;

	if (argc == 3 && !strcmp(argv[1], "--ksyms"))
		return print_ksyms(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--runtime"))
		return print_runtime(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--sched"))
		return print_sched(argv[2]);
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: wct-stat FILE [MAPNAME]\n       wct-stat --ksyms FILE\n"
				"       wct-stat --runtime FILE\n       wct-stat --sched FILE\n");
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
			if (t->tid < MAX_TIDS) {
				tp_of_tid[t->tid]++;
				pid_of_tid[t->tid] = t->pid;
			}
			if (t->cpu < MAX_CPUS)
				events_of_cpu[t->cpu]++;
			if (t->cpu < MAX_CPUS && t->event_id < 16 &&
			    strstr(names[t->event_id], "sched_switch")) {
				if (!first_switch[t->cpu] || t->time_ns < first_switch[t->cpu])
					first_switch[t->cpu] = t->time_ns;
				if (t->time_ns > last_switch[t->cpu])
					last_switch[t->cpu] = t->time_ns;
				if (t->tid < MAX_TIDS)
					switches_of_tid[t->tid]++;
				if (t->tid < MAX_TIDS && t->stack_id)
					count_depth(t->stack_id,
						    comm_of[t->tid][0] ? comm_of[t->tid] : "?");
			}
			if (mapname && t->event_id < 16 && t->tid < MAX_TIDS)
				print_frames(t->stack_id, t->pid, comm_of[t->tid],
					     strstr(names[t->event_id], "switch") ? "switch"
										  : "wake");
			break;
		}
		case WC_REC_SWITCH_IN: {
			const struct wc_rec_switch_in *x = (const void *)h;

			if (x->delay_ns < in_delay_min)
				in_delay_min = x->delay_ns;
			if (x->delay_ns > in_delay_max)
				in_delay_max = x->delay_ns;
			if (x->tid < MAX_TIDS)
				switch_ins_of_tid[x->tid]++;
			break;
		}
		case WC_REC_TP_INLINE: {
			const struct wc_rec_tp_inline *t = (const void *)h;

			if (t->event_id < 16)
				by_event[t->event_id]++;
			if (t->cpu < MAX_CPUS)
				events_of_cpu[t->cpu]++;
			break;
		}
		case WC_REC_SAMPLE: {
			const struct wc_rec_sample *s = (const void *)h;

			if (s->event_id < 16)
				by_event[s->event_id]++;
			if (s->tid < MAX_TIDS) {
				samples_of_tid[s->tid]++;
				pid_of_tid[s->tid] = s->pid;
			}
			if (s->cpu < MAX_CPUS)
				events_of_cpu[s->cpu]++;
			if (mapname && s->tid < MAX_TIDS)
				print_frames(s->stack_id, s->pid, comm_of[s->tid], "sample");
			break;
		}
		case WC_REC_MMAP:
			if (mapname)
				keep_map((const void *)h, mapname);
			break;
		case WC_REC_STACK:
			keep_stack((const void *)h);
			break;
		case WC_REC_NOTE: {
			const struct wc_rec_note *n = (const void *)h;

			printf("note.%s %s\n", n->data, n->data + n->key_len);
			if (!strcmp((const char *)n->data, "target_pid"))
				target_pid = strtol((const char *)n->data + n->key_len, NULL, 10);
			break;
		}
		case WC_REC_CLOCK:
			printf("clockid %d\n", ((const struct wc_rec_clock *)h)->clockid);
			break;
		case WC_REC_LOST:
			lost += ((const struct wc_rec_lost *)h)->count;
			break;
		}
	}
	printf("ending %s\n", wc_reader_state_name(wc_reader_state(r)));
	if (*wc_reader_error(r))
		printf("error %s\n", wc_reader_error(r));
	for (int t = 1; t < WC_REC_TYPE_COUNT; t++)
		printf("records.%s %llu\n", wc_rec_type_name(t) ? wc_rec_type_name(t) : "?",
		       (unsigned long long)counts[t]);
	for (int e = 0; e < 16; e++)
		if (names[e][0])
			printf("events.%s %llu\n", names[e], (unsigned long long)by_event[e]);
	printf("lost %llu\n", (unsigned long long)lost);
	if (counts[WC_REC_SWITCH_IN])
		printf("switch_in.delay_ns %llu %llu\n", (unsigned long long)in_delay_min,
		       (unsigned long long)in_delay_max);
	for (int c = 0; c < MAX_CPUS; c++)
		if (events_of_cpu[c])
			printf("cpu.%d %llu\n", c, (unsigned long long)events_of_cpu[c]);
	for (int c = 0; c < MAX_CPUS; c++)
		if (first_switch[c])
			printf("switch_span %d %llu %llu\n", c, (unsigned long long)first_switch[c],
			       (unsigned long long)last_switch[c]);
	for (int t = 0; t < MAX_TIDS; t++)
		if (comm_of[t][0] && (tp_of_tid[t] || samples_of_tid[t]))
			printf("thread %d %s tracepoints %llu samples %llu pid %u\n", t, comm_of[t],
			       (unsigned long long)tp_of_tid[t],
			       (unsigned long long)samples_of_tid[t], pid_of_tid[t]);
	for (int t = 0; t < MAX_TIDS; t++)
		if (switches_of_tid[t])
			printf("switch_out %d %u %llu\n", t, pid_of_tid[t],
			       (unsigned long long)switches_of_tid[t]);
	for (int d = 0; d < MAX_COMMS && depth[d].comm[0]; d++)
		printf("switch_stack %s %llu %.2f %llu\n", depth[d].comm,
		       (unsigned long long)depth[d].n, (double)depth[d].frames / (double)depth[d].n,
		       (unsigned long long)depth[d].truncated);
	for (int t = 0; t < MAX_TIDS; t++)
		if (switch_ins_of_tid[t])
			printf("switch_in.tid %d %llu\n", t,
			       (unsigned long long)switch_ins_of_tid[t]);
	int clean = wc_reader_state(r) == WC_READER_CLEAN;

	wc_reader_free(r);
	for (size_t i = 0; i < nstacks; i++)
		free(stacks[i]);
	free(stacks);
	return clean ? 0 : 1;
}
