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
static struct wc_analysis *a;
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
		wc_analysis_close(a);
	st_remove(&tr);
}

TestSuite(hostile, .init = init, .fini = fini);

/* Close the trace and run the analysis with no consumer.  Return: wc_analysis_run()'s. */
static int analyse(void)
{
	char oerr[256]; /* why wc_analysis_open() failed */
	cr_assert_eq(st_end(&tr, true, 100000), 0);
	a = wc_analysis_open(tr.path, oerr, sizeof(oerr));
	cr_assert_not_null(a, "%s", oerr);
	opened = true;
	return wc_analysis_run(a, NULL);
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
	cr_assert_eq(analyse(), 0, "%s", wc_analysis_error(a));
	cr_assert_eq(wc_replay_stats(wc_analysis_replay(a))->bad_refs, 1);
	cr_assert_eq(wc_analysis_facts(a)->decode_errors, 0);
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
	cr_assert_not_null(strstr(wc_analysis_error(a), "STACK record"), "%s",
			   wc_analysis_error(a));
	cr_assert_not_null(strstr(wc_analysis_error(a), "id 150000000 out of sequence"), "%s",
			   wc_analysis_error(a));
	cr_assert_not_null(strstr(wc_analysis_error(a), "byte "), "%s", wc_analysis_error(a));
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
	cr_assert_not_null(strstr(wc_analysis_error(a), "PAYLOAD record"), "%s",
			   wc_analysis_error(a));
	cr_assert_not_null(strstr(wc_analysis_error(a),
				  "id 268435456 out of sequence (ids are dense from 1, "
				  "and 1 are defined before it)"),
			   "%s", wc_analysis_error(a));
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
	cr_assert_not_null(strstr(wc_analysis_error(a), "corrupt STACK record"), "%s",
			   wc_analysis_error(a));
	cr_assert_not_null(strstr(wc_analysis_error(a), "id 1 defined again"), "%s",
			   wc_analysis_error(a));
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
	cr_assert_not_null(strstr(wc_analysis_error(a), "corrupt PAYLOAD record"), "%s",
			   wc_analysis_error(a));
	cr_assert_not_null(strstr(wc_analysis_error(a), "id 1 defined again"), "%s",
			   wc_analysis_error(a));
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
	cr_assert_not_null(
		strstr(wc_analysis_error(a), "corrupt HOST record: 10000000 CPUs configured"), "%s",
		wc_analysis_error(a));
	cr_assert_not_null(strstr(wc_analysis_error(a), "8192"), "%s", wc_analysis_error(a));
}

/*
 * A zstd bomb: 48 MiB of zeros in records of an unknown type, which compress to some KB.
 * The reader stops at WC_READER_MIN_DECOMPRESSED (the file being small), as corrupt, before
 * the memory is taken.
 */
Test(hostile, zstd_bomb)
{
	char oerr[256]; /* why wc_analysis_open() failed */
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
	a = wc_analysis_open(tr.path, oerr, sizeof(oerr));
	cr_assert_not_null(a, "%s", oerr);
	opened = true;
	cr_assert_eq(wc_analysis_run(a, NULL), 0, "%s", wc_analysis_error(a));
	cr_assert_eq(wc_replay_stats(wc_analysis_replay(a))->state, WC_READER_CORRUPT);
	cr_assert_not_null(strstr(wc_replay_error(wc_analysis_replay(a)),
				  "frames decompress to more than 32 MiB"),
			   "%s", wc_replay_error(wc_analysis_replay(a)));
	cr_assert_not_null(
		strstr(wc_replay_error(wc_analysis_replay(a)), "over 256 times the file's"), "%s",
		wc_replay_error(wc_analysis_replay(a)));
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
	char oerr[256]; /* why wc_analysis_open() failed */
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
	a = wc_analysis_open(tr.path, oerr, sizeof(oerr));
	cr_assert_not_null(a, "%s", oerr);
	opened = true;
	wc_analysis_set_max_memory(a, 1 << 20); /* far less than the process holds */
	cr_assert_eq(wc_analysis_run(a, NULL), -WC_ECORRUPT);
	cr_assert_not_null(strstr(wc_analysis_error(a), "over --max-memory (1 MiB): "), "%s",
			   wc_analysis_error(a));
	cr_assert_not_null(strstr(wc_analysis_error(a), " MiB resident by byte "), "%s",
			   wc_analysis_error(a));
	wc_analysis_close(a);
	opened = false;

	a = wc_analysis_open(tr.path, oerr, sizeof(oerr));
	cr_assert_not_null(a, "%s", oerr);
	opened = true;
	wc_analysis_set_max_memory(a, UINT64_MAX); /* none */
	cr_assert_eq(wc_analysis_run(a, NULL), 0, "%s", wc_analysis_error(a));
	cr_assert_eq(wc_replay_stats(wc_analysis_replay(a))->state, WC_READER_CLEAN);
}
