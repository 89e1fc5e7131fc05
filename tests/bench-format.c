/*
 * bench-format.c - throughput of the trace writer and reader, and bytes per event, on a
 * realistic event mix: 60% sched_switch with 20-frame callchains drawn from 500 distinct
 * ones, 30% sched_waking without callchain, 10% cpu-clock samples with callchains.
 *
 * The events come from a small scheduler simulation, so that they hang together as on a
 * real machine: 64 threads in 8 processes on 2 CPUs; a running thread wakes a partner
 * (sched_waking, placed on an idle CPU when there is one), then blocks (S) or is preempted
 * (R); a CPU switches to the head of its run queue or to idle (swapper, tid 0).  Time
 * advances 200-2000 ns per event, uniformly at random: about a million events per second.
 * Prints figures; never fails on them.
 *
 * usage: bench-format [EVENTS [ZSTD_LEVEL]]   (default 5000000 events, level 3)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/reader.h"
#include "common/stack_table.h"
#include "common/writer.h"

#define NTHREADS 64
#define NSTACKS	 500
#define DEPTH	 20
#define NCPUS	 2
#define IDLE	 (-1)

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}

/* a skewed choice in [0, n): hot items first, as real profiles are */
static uint32_t skewed(uint32_t n)
{
	uint64_t a = rnd() % n, b = rnd() % n;

	return (uint32_t)(a < b ? a : b);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The sched_switch payload of Linux 6.x, common fields first (64 bytes). */
struct switch_payload {
	uint16_t common_type;
	uint8_t common_flags, common_preempt_count;
	int32_t common_pid;
	char prev_comm[16];
	int32_t prev_pid, prev_prio;
	int64_t prev_state;
	char next_comm[16];
	int32_t next_pid, next_prio;
};

/* sched_waking (36 bytes) */
struct waking_payload {
	uint16_t common_type;
	uint8_t common_flags, common_preempt_count;
	int32_t common_pid;
	char comm[16];
	int32_t pid, prio, target_cpu;
};

struct thread {
	int32_t tid, pid;
	char comm[16];
	uint32_t stacks[8]; /* where it blocks, and where it runs */
	int runnable;	    /* queued or running */
};

static struct thread threads[NTHREADS];
static int running[NCPUS];
static int rq[NCPUS][NTHREADS], rq_len[NCPUS];

static int rq_pop(int cpu)
{
	int t;

	if (!rq_len[cpu])
		return IDLE;
	t = rq[cpu][0];
	memmove(rq[cpu], rq[cpu] + 1, (size_t)--rq_len[cpu] * sizeof(int));
	return t;
}

int main(int argc, char **argv)
{
	uint64_t nevents = argc > 1 ? strtoull(argv[1], NULL, 0) : 5000000;
	int level = argc > 2 ? atoi(argv[2]) : 3;
	static uint64_t stacks[NSTACKS][DEPTH + 2];
	uint64_t t_ns = 1000000000ull, nsw = 0, nwk = 0, nsm = 0;
	struct wc_writer_opts opts = { .level = level };
	char path[] = "/tmp/wct-bench-XXXXXX";
	struct {
		struct wc_rec_tracepoint r;
	} tp;
	struct wc_rec_sample sm = { .h = { sizeof(sm), WC_REC_SAMPLE, WC_REC_F_TIME } };
	struct wc_rec_header round = { sizeof(round), WC_REC_ROUND, 0 };
	struct wc_writer_stats ws;
	double t0, t_write, t_read = 1e9;
	uint64_t nread = 0;
	static volatile uint64_t checksum;
	int fd;

	/* 500 callchains: kernel part (context marker, 8 frames) then user part (12 frames) */
	for (int s = 0; s < NSTACKS; s++) {
		stacks[s][0] = (uint64_t)-128; /* PERF_CONTEXT_KERNEL */
		for (int k = 1; k <= 8; k++)
			stacks[s][k] =
				0xffffffff81000000ull + (uint64_t)(s % 40) * 0x1000 + k * 0x40;
		stacks[s][9] = (uint64_t)-512; /* PERF_CONTEXT_USER */
		for (int k = 10; k < DEPTH + 2; k++)
			stacks[s][k] = 0x5555550000ull + (uint64_t)s * 0x340 + k * 0x10;
	}
	for (int i = 0; i < NTHREADS; i++) {
		threads[i].tid = 4000 + i;
		threads[i].pid = 4000 + (i / 8) * 8;
		snprintf(threads[i].comm, 16, "worker-%d", i / 8);
		for (int k = 0; k < 8; k++)
			threads[i].stacks[k] = (uint32_t)((i * 8 + k) % NSTACKS);
	}
	for (int c = 0; c < NCPUS; c++) {
		running[c] = c;
		threads[c].runnable = 1;
	}

	fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	struct wc_writer *w = wc_writer_new(fd, &opts);
	struct wc_stack_table *table = wc_stack_table_new(0);
	struct wc_stack_table *payloads = wc_stack_table_new(0);

	if (!w || !table || !payloads) {
		perror("writer");
		return 1;
	}
	memset(&tp, 0, sizeof(tp));
	t0 = now();
	for (uint64_t e = 0; nsw + nwk + nsm < nevents; e++) {
		uint32_t cpu = (uint32_t)(rnd() % NCPUS), roll = (uint32_t)(rnd() % 100), id;
		int curi = running[cpu];
		struct thread *cur = curi == IDLE ? NULL : &threads[curi];
		union {
			struct switch_payload sw;
			struct waking_payload wk;
		} p;
		uint32_t psize;
		int err = 0;

		t_ns += 200 + rnd() % 1800;
		memset(&p, 0, sizeof(p));
		if (cur && roll < 18) { /* a CPU sample of the running thread */
			err = wc_writer_stack(w, table, stacks[cur->stacks[skewed(8)]], DEPTH + 2,
					      &id);
			sm.time_ns = t_ns;
			sm.cpu = cpu;
			sm.pid = (uint32_t)cur->pid;
			sm.tid = (uint32_t)cur->tid;
			sm.stack_id = id;
			sm.period = 10101010;
			if (!err)
				err = wc_writer_add(w, &sm);
			nsm++;
			goto next;
		}
		if ((cur && roll < 30) || (!cur && !rq_len[cpu])) {
			/* the running thread wakes a sleeping partner; on an idle CPU, an interrupt
			 * wakes anyone */
			int wi = cur ? (curi / 8) * 8 + (int)skewed(8) : (int)skewed(NTHREADS);
			int target = (int)cpu;

			if (threads[wi].runnable)
				wi = (int)(rnd() % NTHREADS);
			if (threads[wi].runnable)
				goto next;
			for (int c = 0; c < NCPUS; c++)
				if (running[c] == IDLE)
					target = c;
			threads[wi].runnable = 1;
			rq[target][rq_len[target]++] = wi;
			p.wk.common_type = 320;
			p.wk.common_pid = cur ? cur->tid : 0;
			memcpy(p.wk.comm, threads[wi].comm, 16);
			p.wk.pid = threads[wi].tid;
			p.wk.prio = 120;
			p.wk.target_cpu = target;
			psize = sizeof(p.wk);
			tp.r.event_id = 2;
			tp.r.stack_id = WC_STACK_NONE;
			nwk++;
		} else { /* a switch: block, preempt, or leave idle */
			int nexti = rq_pop((int)cpu);
			uint32_t s = cur ? cur->stacks[skewed(8)] : 0;

			err = wc_writer_stack(w, table, stacks[s], DEPTH + 2, &id);
			p.sw.common_type = 316;
			p.sw.common_pid = cur ? cur->tid : 0;
			snprintf(p.sw.prev_comm, 16, "%s", cur ? cur->comm : "swapper/0");
			p.sw.prev_pid = cur ? cur->tid : 0;
			p.sw.prev_prio = 120;
			if (cur && rq_len[cpu] && rnd() % 4 == 0) { /* preempted: stays runnable */
				p.sw.prev_state = 0x100;
				rq[cpu][rq_len[cpu]++] = curi;
			} else if (cur) {
				p.sw.prev_state = 1;
				cur->runnable = 0;
			}
			snprintf(p.sw.next_comm, 16, "%s",
				 nexti == IDLE ? "swapper/0" : threads[nexti].comm);
			p.sw.next_pid = nexti == IDLE ? 0 : threads[nexti].tid;
			p.sw.next_prio = 120;
			psize = sizeof(p.sw);
			tp.r.event_id = 1;
			tp.r.stack_id = cur ? id : WC_STACK_NONE;
			running[cpu] = nexti;
			nsw++;
		}
		if (!err)
			err = wc_writer_payload(w, payloads, tp.r.event_id, &p, psize, &id);
		tp.r.h = (struct wc_rec_header){ sizeof(tp.r), WC_REC_TRACEPOINT, WC_REC_F_TIME };
		tp.r.payload_id = id;
		tp.r.time_ns = t_ns;
		tp.r.cpu = cpu;
		tp.r.pid = cur ? (uint32_t)cur->pid : 0;
		tp.r.tid = cur ? (uint32_t)cur->tid : 0;
		if (!err)
			err = wc_writer_add(w, &tp);
	next:
		if (!err && e % 1024 == 1023)
			err = wc_writer_add(w, &round);
		if (err) {
			fprintf(stderr, "bench-format: write failed: %s\n", strerror(-err));
			return 1;
		}
	}
	if (wc_writer_close(w, t_ns, 0)) {
		fprintf(stderr, "bench-format: close failed\n");
		return 1;
	}
	t_write = now() - t0;
	wc_writer_stats(w, &ws);
	wc_writer_free(w);
	wc_stack_table_free(table);
	wc_stack_table_free(payloads);
	close(fd);

	for (int run = 0; run < 3; run++) {
		struct wc_reader *r = wc_reader_open(path);
		const struct wc_rec_header *h;
		uint64_t n = 0, sum = 0;
		double t;

		t0 = now();
		while (wc_reader_next(r, &h)) {
			n++;
			sum += h->type;
		}
		t = now() - t0;
		if (wc_reader_state(r) != WC_READER_CLEAN) {
			fprintf(stderr, "bench-format: read back: %s\n", wc_reader_error(r));
			return 1;
		}
		wc_reader_free(r);
		if (t < t_read)
			t_read = t;
		nread = n;
		checksum = sum; /* a use of every record, so the loop is not optimized away */
		(void)checksum;
	}
	unlink(path);

	nevents = nsw + nwk + nsm;
	printf("events: %llu (switch %.0f%%, waking %.0f%%, sample %.0f%%); records %llu (stacks "
	       "%llu, payloads %llu, rounds %llu)\n",
	       (unsigned long long)nevents, 100.0 * nsw / nevents, 100.0 * nwk / nevents,
	       100.0 * nsm / nevents, (unsigned long long)ws.records,
	       (unsigned long long)ws.counts[WC_REC_STACK],
	       (unsigned long long)ws.counts[WC_REC_PAYLOAD],
	       (unsigned long long)ws.counts[WC_REC_ROUND]);
	printf("zstd level %d: %.1f MB of records -> %.2f MB file, %.2fx\n", level,
	       ws.bytes_uncompressed / 1e6, ws.bytes_written / 1e6,
	       (double)ws.bytes_uncompressed / ws.bytes_written);
	printf("bytes per event: %.2f (goal < 8)\n", (double)ws.bytes_written / nevents);
	printf("writer: %.2f M records/s, %.0f MB/s of records, %.2f s\n",
	       ws.records / t_write / 1e6, ws.bytes_uncompressed / t_write / 1e6, t_write);
	printf("reader: %.2f M records/s (goal >= 10), %.0f MB/s of records, %.0f MB/s of file, "
	       "%.3f s (best of 3)\n",
	       nread / t_read / 1e6, ws.bytes_uncompressed / t_read / 1e6,
	       ws.bytes_written / t_read / 1e6, t_read);
	return 0;
}
