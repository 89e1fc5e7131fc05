/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flamegraph-browser.c - writes the hand-built trace of tests/flamegraph-browser.sh to FILE:
 * a trace with a known wall-clock profile and named kernel frames (a KALLSYMS record), so
 * that the browser test can check widths, zoom and search against numbers worked out by
 * hand.  Usage: flamegraph-browser FILE   ($srcdir must hold testdata/formats).
 *
 * With --stacks N (the 100k-stacks check and the benchmark) it writes instead one thread
 * "bench" with N samples of N distinct kernel stacks, and with --depth D one thread "deep"
 * whose samples are 4 in 5 under one D-frame stack (see synthetic() below).
 *
 * Kernel symbols, 0x100 apart from 0xffffffff81000000: entry_SYSCALL_64, do_syscall_64,
 * ksys_read, ksys_write, schedule, io_schedule, compute_crc, memcpy_orig.  Callchains (leaf
 * first): CRC = compute_crc < ksys_read < do_syscall_64 < entry_SYSCALL_64, CPY = memcpy_orig
 * < ksys_write < ..., RD = schedule < ksys_read < ..., IO = io_schedule < ksys_write < ....
 *
 *   app 100, CPU 0 (times in ms):
 *     1.0 in (first event)     samples CRC @1.5, CRC @2.0, CPY @2.5
 *     3.0 out S, RD            run 1.0-3.0 = 2000 us
 *     3.4 woken                blocked 400 us  [off-cpu S]
 *     3.5 in                   sch delay 100 us [runqueue]    samples CRC @4.0, CPY @5.0
 *     5.5 out D, IO            run 3.5-5.5 = 2000 us
 *     6.0 woken                blocked 500 us  [off-cpu D]
 *     6.1 in                   sch delay 100 us [runqueue]    sample CPY @6.5
 *     7.1 out S, RD            run 6.1-7.1 = 1000 us; open at the end (not counted)
 *   run time 5000 us over 6 samples, 3 each: CRC 2500 us, CPY 2500 us.
 *   logger 200, CPU 1: in at 2.0, out S at 2.7, no sample: "[on-cpu unsampled]" 700 us.
 *   Total 5000 + 1100 + 700 = 6800 us.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/wct.h"
#include "tests/unit/sched-trace.h"

#define KBASE 0xffffffff81000000ull

static const char *const syms[] = {
	"entry_SYSCALL_64", "do_syscall_64", "ksys_read",   "ksys_write",
	"schedule",	    "io_schedule",   "compute_crc", "memcpy_orig",
};
enum { ENTRY, SYSCALL, READ, WRITE, SCHED, IOSCHED, CRC, CPY, NSYMS };

static uint64_t ip(int sym)
{
	return KBASE + 0x100 * (uint64_t)sym + 0x10;
}

/* A KALLSYMS record naming syms[] (and an end marker after the last). */
static int kallsyms(struct st_trace *t)
{
	static uint64_t rec[1024];
	struct wc_rec_kallsyms *k = (void *)rec;
	size_t room = sizeof(rec) - sizeof(*k), len = 0;

	memset(rec, 0, sizeof(rec));
	for (int i = 0; i <= NSYMS; i++)
		len += (size_t)snprintf(k->text + len, room - len, "%llx T %s\n",
					(unsigned long long)(KBASE + 0x100 * (uint64_t)i),
					i < NSYMS ? syms[i] : "_etext");
	k->h.type = WC_REC_KALLSYMS;
	k->text_len = (uint32_t)len + 1;
	k->h.size = WC_ALIGN8((uint32_t)(sizeof(*k) + k->text_len));
	return wc_writer_add(t->w, rec);
}

static uint32_t chain(struct st_trace *t, int leaf, int syscall)
{
	uint64_t ips[] = { PERF_CONTEXT_KERNEL, ip(leaf), ip(syscall), ip(SYSCALL), ip(ENTRY) };

	return st_stack(t, ips, 5);
}

static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
	char buf[65536];
	size_t n;
	int err = 0;

	if (!out) {
		if (in)
			fclose(in);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			err = -1;
	if (ferror(in))
		err = -1;
	fclose(in);
	return fclose(out) || err ? -1 : 0;
}

/* KALLSYMS of the synthetic traces: kfunc_0 ... kfunc_999, 0x100 apart. */
static int many_kallsyms(struct st_trace *t)
{
	static uint64_t rec[65536 / 8];
	struct wc_rec_kallsyms *k = (void *)rec;
	size_t room = sizeof(rec) - sizeof(*k), len = 0;

	memset(rec, 0, sizeof(rec));
	for (int i = 0; i <= 1000; i++)
		len += (size_t)snprintf(k->text + len, room - len, "%llx T %s%d\n",
					(unsigned long long)(KBASE + 0x100 * (uint64_t)i),
					i < 1000 ? "kfunc_" : "_etext", i);
	k->h.type = WC_REC_KALLSYMS;
	k->text_len = (uint32_t)len + 1;
	k->h.size = WC_ALIGN8((uint32_t)(sizeof(*k) + k->text_len));
	return wc_writer_add(t->w, rec);
}

/*
 * --stacks N: thread "bench" 100 runs from 1 ms for N * 10 us, sampled every 10 us, sample
 * i under its own stack, root first: kfunc_0; kfunc_1; kfunc_(2 + i % 50);
 * kfunc_(52 + i / 50 % 40); kfunc_(92 + i / 2000 % 50) (distinct for i < 100000), then i % 8
 * more frames.  Each stack gets 10 us: N lines, N * 10 us.
 * --depth D: thread "deep" 100 runs 1.0-3.0 ms, 5 samples: 4 under kfunc_0; kfunc_1; then
 * D - 2 frames kfunc_(100 + k % 900) (1600 us), 1 under kfunc_0; kfunc_1 (400 us).
 */
static void synthetic(struct st_trace *t, long nstacks, long depth)
{
	static uint64_t ips[8192];
	uint64_t time = 1000000, period;
	uint32_t id;

	st_comm(t, time, 100, 100, nstacks ? "bench" : "deep");
	st_switch(t, time, 0, 0, "swapper/0", 0, 100, nstacks ? "bench" : "deep", 0);
	for (long i = 0; i < (nstacks ? nstacks : 5); i++) {
		uint32_t n = 0, d;

		ips[n++] = PERF_CONTEXT_KERNEL;
		if (nstacks) {
			d = (uint32_t)(i % 8);
			for (uint32_t k = d; k-- > 0;)
				ips[n++] = KBASE + 0x100 * (uint64_t)(142 + (i * 7 + k) % 800) + 8;
			ips[n++] = KBASE + 0x100 * (uint64_t)(92 + i / 2000 % 50) + 8;
			ips[n++] = KBASE + 0x100 * (uint64_t)(52 + i / 50 % 40) + 8;
			ips[n++] = KBASE + 0x100 * (uint64_t)(2 + i % 50) + 8;
		} else if (i < 4) {
			for (long k = depth - 2; k-- > 0;)
				ips[n++] = KBASE + 0x100 * (uint64_t)(100 + k % 900) + 8;
		}
		ips[n++] = KBASE + 0x100 + 8;
		ips[n++] = KBASE + 8;
		id = st_stack(t, ips, n);
		period = nstacks ? 10000 : 400000;
		time += period;
		st_sample(t, time - period / 2, 0, 100, id, period);
		if (i % 1000 == 999)
			st_round(t);
	}
	st_switch(t, time, 0, 100, nstacks ? "bench" : "deep", ST_S, 0, "swapper/0", 0);
	st_round(t);
}

int main(int argc, char **argv)
{
	long nstacks = 0, depth = 0;
	struct st_trace t;
	uint32_t crc, cpy, rd, io;
	int err;

	if (argc == 4 && strcmp(argv[1], "--stacks") == 0)
		nstacks = strtol(argv[2], NULL, 10);
	else if (argc == 4 && strcmp(argv[1], "--depth") == 0)
		depth = strtol(argv[2], NULL, 10);
	if (argc != 2 && !(nstacks > 0 && nstacks <= 100000) && !(depth >= 3 && depth <= 8000)) {
		fprintf(stderr, "usage: flamegraph-browser [--stacks N (<= 100000) | --depth D "
				"(3 to 8000)] FILE\n");
		return 2;
	}
	err = st_begin(&t);
	if (!err)
		err = nstacks || depth ? many_kallsyms(&t) : kallsyms(&t);
	if (err) {
		fprintf(stderr, "flamegraph-browser: cannot write the trace (%s; srcdir=%s)\n",
			strerror(-err), getenv("srcdir") ? getenv("srcdir") : ".");
		st_remove(&t);
		return 1;
	}
	if (nstacks || depth) {
		synthetic(&t, nstacks, depth);
		err = st_end(&t, true, 1000000 + (uint64_t)(nstacks ? nstacks * 10000 : 2000000));
		goto out;
	}
	crc = chain(&t, CRC, READ);
	cpy = chain(&t, CPY, WRITE);
	rd = chain(&t, SCHED, READ);
	io = chain(&t, IOSCHED, WRITE);
	st_comm(&t, 1000000, 100, 100, "app");
	st_comm(&t, 1000000, 200, 200, "logger");
	st_switch(&t, 1000000, 0, 0, "swapper/0", 0, 100, "app", 0);
	st_sample(&t, 1500000, 0, 100, crc, 500000);
	st_sample(&t, 2000000, 0, 100, crc, 500000);
	st_switch(&t, 2000000, 1, 0, "swapper/1", 0, 200, "logger", 0);
	st_sample(&t, 2500000, 0, 100, cpy, 500000);
	st_switch(&t, 2700000, 1, 200, "logger", ST_S, 0, "swapper/1", 0);
	st_switch(&t, 3000000, 0, 100, "app", ST_S, 0, "swapper/0", rd);
	st_wake(&t, 3400000, 1, 300, 100, "app", 0, 0);
	st_switch(&t, 3500000, 0, 0, "swapper/0", 0, 100, "app", 0);
	st_sample(&t, 4000000, 0, 100, crc, 500000);
	st_sample(&t, 5000000, 0, 100, cpy, 500000);
	st_switch(&t, 5500000, 0, 100, "app", ST_D, 0, "swapper/0", io);
	st_wake(&t, 6000000, 1, 300, 100, "app", 0, 0);
	st_switch(&t, 6100000, 0, 0, "swapper/0", 0, 100, "app", 0);
	st_sample(&t, 6500000, 0, 100, cpy, 500000);
	st_switch(&t, 7100000, 0, 100, "app", ST_S, 0, "swapper/0", rd);
	st_round(&t);
	err = st_end(&t, true, 8000000);
out:
	if (!err)
		err = copy_file(t.path, argv[argc - 1]);
	st_remove(&t);
	if (err) {
		fprintf(stderr, "flamegraph-browser: cannot write %s\n", argv[argc - 1]);
		return 1;
	}
	return 0;
}
