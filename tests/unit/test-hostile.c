/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-hostile.c - crafted traces whose zstd frames are valid but whose records lie: each
 * one field changed in an otherwise real-looking trace (tests/unit/sched-trace.c), as the
 * structure-aware fuzzer of issue 14 found them.  The analysis ends with an error naming the
 * field, or counts the record and goes on; it never crashes or takes memory by the number a
 * record states.
 */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "analyzer/core/analysis.h"
#include "common/error.h"
#include "sched-trace.h"

static struct st_trace tr;
static struct wc_analysis a;
static bool opened;

static void init(void)
{
	opened = false;
	if (st_begin(&tr)) {
		st_remove(&tr);
		cr_assert_fail("cannot write the metadata: no testdata/formats/linux-6.18?");
	}
}

static void fini(void)
{
	if (opened)
		wc_analysis_close(&a);
	st_remove(&tr);
}

TestSuite(hostile, .init = init, .fini = fini);

/* Close the trace and run the analysis with no consumer.  Return: wc_analysis_run()'s. */
static int analyse(void)
{
	cr_assert_eq(st_end(&tr, true, 100000), 0);
	cr_assert_eq(wc_analysis_open(&a, tr.path), 0, "%s", a.error);
	opened = true;
	return wc_analysis_run(&a, NULL);
}

static long max_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* A sched_switch's payload named by a sched_waking event: a bad reference, counted. */
Test(hostile, payload_of_another_event)
{
	struct wc_rec_tracepoint x = { .h = { sizeof(x), WC_REC_TRACEPOINT, WC_REC_F_TIME } };

	st_switch(&tr, 1000, 0, 0, "swapper/0", 0, 42, "a", 0);
	x.time_ns = 2000;
	x.payload_id = 1; /* the switch's, defined for ST_EV_SWITCH */
	x.tid = x.pid = 42;
	x.event_id = ST_EV_WAKING;
	cr_assert_eq(wc_writer_add(tr.w, &x), 0);
	st_switch(&tr, 3000, 0, 42, "a", ST_S, 0, "swapper/0", 0);
	cr_assert_eq(analyse(), 0, "%s", a.error);
	cr_assert_eq(wc_replay_stats(a.replay)->bad_refs, 1);
	cr_assert_eq(a.decode_errors, 0);
}

/* A STACK record with an id far past those defined: refused, the memory not taken. */
Test(hostile, stack_id_out_of_sequence)
{
	struct {
		struct wc_rec_stack s;
		uint64_t ips[2];
	} rec = { .s = { .h = { sizeof(rec), WC_REC_STACK, 0 }, .id = 150000000, .nr = 2 },
		  .ips = { 1, 2 } };
	long before = max_rss_kb();

	st_switch(&tr, 1000, 0, 0, "swapper/0", 0, 42, "a", st_kstack(&tr, 3));
	cr_assert_eq(wc_writer_add(tr.w, &rec), 0);
	cr_assert_eq(analyse(), -WC_ECORRUPT);
	cr_assert_not_null(strstr(a.error, "STACK record"), "%s", a.error);
	cr_assert_not_null(strstr(a.error, "id 150000000 out of sequence"), "%s", a.error);
	cr_assert_not_null(strstr(a.error, "byte "), "%s", a.error);
	cr_assert_lt(max_rss_kb() - before, 64 * 1024, "took %ld kB", max_rss_kb() - before);
}

/* A PAYLOAD id past the next one: refused likewise. */
Test(hostile, payload_id_out_of_sequence)
{
	struct {
		struct wc_rec_payload p;
		uint8_t data[8];
	} rec = { .p = { .h = { sizeof(rec), WC_REC_PAYLOAD, 0 },
			 .id = 0x10000000,
			 .event_id = ST_EV_SWITCH,
			 .size = 8 } };

	st_switch(&tr, 1000, 0, 0, "swapper/0", 0, 42, "a", 0);
	cr_assert_eq(wc_writer_add(tr.w, &rec), 0);
	cr_assert_eq(analyse(), -WC_ECORRUPT);
	cr_assert_not_null(strstr(a.error, "PAYLOAD record"), "%s", a.error);
	cr_assert_not_null(strstr(a.error, "id 268435456 out of sequence (ids are dense from 1, "
					   "and 1 are defined before it)"),
			   "%s", a.error);
}

/* A STACK id defined again: refused (an id is never reused, wcrec-trace(5)). */
Test(hostile, stack_id_defined_again)
{
	struct {
		struct wc_rec_stack s;
		uint64_t ips[1];
	} rec = { .s = { .h = { sizeof(rec), WC_REC_STACK, 0 }, .id = 1, .nr = 1 }, .ips = { 7 } };

	st_switch(&tr, 1000, 0, 0, "swapper/0", 0, 42, "a", st_kstack(&tr, 3));
	cr_assert_eq(wc_writer_add(tr.w, &rec), 0);
	cr_assert_eq(analyse(), -WC_ECORRUPT);
	cr_assert_not_null(strstr(a.error, "corrupt STACK record"), "%s", a.error);
	cr_assert_not_null(strstr(a.error, "id 1 defined again"), "%s", a.error);
}

/*
 * A PAYLOAD id defined again for the same event, after a switch that names it: the switch is
 * still queued when the second definition is read, so it would be decoded from the new bytes.
 * Refused rather than decoded from what the event never carried.
 */
Test(hostile, payload_id_defined_again)
{
	struct {
		struct wc_rec_payload p;
		uint8_t data[8];
	} rec = { .p = { .h = { sizeof(rec), WC_REC_PAYLOAD, 0 },
			 .id = 1,
			 .event_id = ST_EV_SWITCH,
			 .size = 8 } };

	st_switch(&tr, 1000, 0, 0, "swapper/0", 0, 42, "a", 0);
	cr_assert_eq(wc_writer_add(tr.w, &rec), 0);
	cr_assert_eq(analyse(), -WC_ECORRUPT);
	cr_assert_not_null(strstr(a.error, "corrupt PAYLOAD record"), "%s", a.error);
	cr_assert_not_null(strstr(a.error, "id 1 defined again"), "%s", a.error);
}

/* A HOST record claiming 10 M CPUs: refused before any per-CPU table is sized by it. */
Test(hostile, host_cpus_past_linux)
{
	struct {
		struct wc_rec_host h;
		char s[8];
	} host = { .h = { .h = { sizeof(host), WC_REC_HOST, 0 },
			  .ncpus_online = 2,
			  .ncpus_configured = 10000000,
			  .page_size = 4096,
			  .strings_len = 8 } };

	cr_assert_eq(wc_writer_add(tr.w, &host), 0);
	st_switch(&tr, 1000, 0, 0, "swapper/0", 0, 42, "a", 0);
	cr_assert_eq(analyse(), -WC_ECORRUPT);
	cr_assert_not_null(strstr(a.error, "corrupt HOST record: 10000000 CPUs configured"), "%s",
			   a.error);
	cr_assert_not_null(strstr(a.error, "8192"), "%s", a.error);
}

/*
 * A zstd bomb: 48 MiB of zeros in records of an unknown type, which compress to some KB.
 * The reader stops at WC_READER_MIN_DECOMPRESSED (the file being small), as corrupt, before
 * the memory is taken.
 */
Test(hostile, zstd_bomb)
{
	const uint32_t body = 1u << 20;
	struct wc_rec_header *big = calloc(1, body);
	long before = max_rss_kb();
	struct stat st;

	cr_assert_not_null(big);
	*big = (struct wc_rec_header){ body, 200, 0 };
	st_switch(&tr, 1000, 0, 0, "swapper/0", 0, 42, "a", 0);
	for (int i = 0; i < 48; i++)
		cr_assert_eq(wc_writer_add(tr.w, big), 0);
	free(big);
	st_switch(&tr, 3000, 0, 42, "a", ST_S, 0, "swapper/0", 0);
	cr_assert_eq(st_end(&tr, true, 100000), 0);
	cr_assert_eq(stat(tr.path, &st), 0);
	cr_assert_lt(st.st_size, 128 * 1024, "the bomb is %ld bytes", (long)st.st_size);
	cr_assert_eq(wc_analysis_open(&a, tr.path), 0, "%s", a.error);
	opened = true;
	cr_assert_eq(wc_analysis_run(&a, NULL), 0, "%s", a.error);
	cr_assert_eq(wc_replay_stats(a.replay)->state, WC_READER_CORRUPT);
	cr_assert_not_null(
		strstr(wc_replay_error(a.replay), "frames decompress to more than 32 MiB"), "%s",
		wc_replay_error(a.replay));
	cr_assert_not_null(strstr(wc_replay_error(a.replay), "over 256 times the file's"), "%s",
			   wc_replay_error(a.replay));
	cr_assert_lt(max_rss_kb() - before, 48 * 1024, "took %ld kB", max_rss_kb() - before);
}

/* The same records in a file large enough to hold them are read whole. */
Test(hostile, decompressed_limit_follows_the_file)
{
	cr_assert_eq(wc_reader_decompressed_limit(0), 32ull << 20);
	cr_assert_eq(wc_reader_decompressed_limit(1 << 20), 256ull << 20);
	cr_assert_eq(wc_reader_decompressed_limit(UINT64_MAX / 3), UINT64_MAX);
}

/*
 * --max-memory: the replay stops once the resident set passes it, naming the limit and the
 * byte reached, after at most a MiB of records more.
 */
Test(hostile, max_memory)
{
	struct {
		struct wc_rec_stack s;
		uint64_t ips[126];
	} rec = { .s = { .h = { sizeof(rec), WC_REC_STACK, 0 }, .nr = 126 } };

	st_switch(&tr, 1000, 0, 0, "swapper/0", 0, 42, "a", st_kstack(&tr, 3));
	for (uint32_t id = 2; id < 4000; id++) { /* 4 MiB of callchains */
		rec.s.id = id;
		rec.ips[0] = id;
		cr_assert_eq(wc_writer_add(tr.w, &rec), 0);
	}
	st_switch(&tr, 3000, 0, 42, "a", ST_S, 0, "swapper/0", 0);
	cr_assert_eq(st_end(&tr, true, 100000), 0);
	cr_assert_eq(wc_analysis_open(&a, tr.path), 0, "%s", a.error);
	opened = true;
	a.max_memory = 1 << 20; /* far less than the process holds */
	cr_assert_eq(wc_analysis_run(&a, NULL), -WC_ECORRUPT);
	cr_assert_not_null(strstr(a.error, "over --max-memory (1 MiB): "), "%s", a.error);
	cr_assert_not_null(strstr(a.error, " MiB resident by byte "), "%s", a.error);
	wc_analysis_close(&a);
	opened = false;

	cr_assert_eq(wc_analysis_open(&a, tr.path), 0, "%s", a.error);
	opened = true;
	a.max_memory = UINT64_MAX; /* none */
	cr_assert_eq(wc_analysis_run(&a, NULL), 0, "%s", a.error);
	cr_assert_eq(wc_replay_stats(a.replay)->state, WC_READER_CLEAN);
}
