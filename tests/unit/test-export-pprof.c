/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-export-pprof.c - `wcanalyze export --format pprof` (export-pprof.c) over the hand-built
 * trace of export-trace.h: the document gunzipped with zlib and decoded here with a reader of
 * the protobuf wire format of our own (not the encoder's code), every sample checked against
 * the values worked out by hand below; the tests of tests/pprof-export.sh put real traces
 * through go tool pprof.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "analyzer/core/analysis.h"
#include "analyzer/output/output.h"
#include "analyzer/reports/profile.h"
#include "analyzer/symbols/symbolize.h"
#include "export-trace.h"

TestSuite(pprof, .init = et_init, .fini = et_fini);

enum { MAXN = 64 };

/* What the decoder keeps of a Profile: enough to print each sample as text. */
struct prof {
	char *strs[MAXN];
	size_t nstrs;
	uint64_t fn_name[MAXN];		      /* function id -> name index */
	uint64_t loc_fn[MAXN], loc_map[MAXN]; /* location id -> function id, mapping id */
	uint64_t types[4][2];		      /* sample_type: type, unit */
	size_t ntypes;
	char samples[MAXN][512]; /* "folded values labels" */
	size_t nsamples;
	uint64_t time_ns, duration_ns, default_type, period_type[2], period;
};

/* A varint at *@p (< @end); *@p moves past it. */
static uint64_t varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;

	for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	cr_assert_fail("a varint runs past its message");
	return 0;
}

/*
 * The next field of [*@p, @end): its number, and its value (wire type 0) or its bytes
 * [*@body, *@body_end) (wire type 2); no other wire type is expected.  Return: its number.
 */
static uint32_t field(const uint8_t **p, const uint8_t *end, uint64_t *v, const uint8_t **body,
		      const uint8_t **body_end)
{
	uint64_t tag = varint(p, end), n;

	if ((tag & 7) == 0) {
		*v = varint(p, end);
		return (uint32_t)(tag >> 3);
	}
	cr_assert_eq(tag & 7, 2, "wire type %u", (unsigned)(tag & 7));
	n = varint(p, end);
	cr_assert_leq(n, (uint64_t)(end - *p));
	*body = *p;
	*body_end = *p + n;
	*p += n;
	return (uint32_t)(tag >> 3);
}

/* The two varints of a ValueType message. */
static void value_type(const uint8_t *p, const uint8_t *end, uint64_t vt[2])
{
	const uint8_t *b, *e;
	uint64_t v = 0;

	vt[0] = vt[1] = 0;
	while (p < end) {
		uint32_t f = field(&p, end, &v, &b, &e);

		if (f == 1 || f == 2)
			vt[f - 1] = v;
	}
}

/* The packed varints of [@p, @end) into @out (at most MAXN).  Return: their count. */
static size_t packed(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
	size_t n = 0;

	while (p < end && n < MAXN)
		out[n++] = varint(&p, end);
	return n;
}

/* Keep Location @p..@end: id, mapping and its one Line's function. */
static void location(struct prof *pr, const uint8_t *p, const uint8_t *end)
{
	uint64_t v = 0, id = 0, map = 0, fn = 0;
	const uint8_t *b, *e, *lb, *le;

	while (p < end) {
		uint32_t f = field(&p, end, &v, &b, &e);

		if (f == 1)
			id = v;
		else if (f == 2)
			map = v;
		else if (f == 4)
			while (b < e)
				if (field(&b, e, &v, &lb, &le) == 1)
					fn = v;
	}
	cr_assert(id > 0 && id < MAXN && fn > 0);
	pr->loc_fn[id] = fn;
	pr->loc_map[id] = map;
}

/* Keep Function @p..@end: id and name. */
static void function(struct prof *pr, const uint8_t *p, const uint8_t *end)
{
	uint64_t v = 0, id = 0, name = 0;
	const uint8_t *b, *e;

	while (p < end) {
		uint32_t f = field(&p, end, &v, &b, &e);

		if (f == 1)
			id = v;
		else if (f == 2)
			name = v;
		else
			cr_assert_fail("function field %u", f);
	}
	cr_assert(id > 0 && id < MAXN);
	pr->fn_name[id] = name;
}

/* A Sample's raw parts, kept as they are until the tables are known. */
struct raw_sample {
	uint64_t locs[MAXN], values[MAXN], labels[8][2];
	size_t nlocs, nvalues, nlabels;
};

static void sample(struct raw_sample *s, const uint8_t *p, const uint8_t *end)
{
	uint64_t v = 0;
	const uint8_t *b, *e, *lb, *le;

	memset(s, 0, sizeof(*s));
	while (p < end) {
		uint32_t f = field(&p, end, &v, &b, &e);

		if (f == 1)
			s->nlocs = packed(b, e, s->locs);
		else if (f == 2)
			s->nvalues = packed(b, e, s->values);
		else if (f == 3 && s->nlabels < 8) {
			while (b < e) {
				uint32_t g = field(&b, e, &v, &lb, &le);

				cr_assert(g == 1 || g == 2, "label field %u (no num labels)", g);
				s->labels[s->nlabels][g - 1] = v;
			}
			s->nlabels++;
		}
	}
}

/* The sample as "root;...;leaf values key=value ...", names from the tables. */
static void sample_text(struct prof *pr, const struct raw_sample *s, char *out, size_t size)
{
	size_t n = 0;

	for (size_t i = s->nlocs; i-- > 0;) {
		uint64_t fn = pr->loc_fn[s->locs[i]];

		n += (size_t)snprintf(out + n, size - n, "%s%s", i + 1 < s->nlocs ? ";" : "",
				      pr->strs[pr->fn_name[fn]]);
	}
	for (size_t i = 0; i < s->nvalues; i++)
		n += (size_t)snprintf(out + n, size - n, " %llu", (unsigned long long)s->values[i]);
	for (size_t i = 0; i < s->nlabels; i++)
		n += (size_t)snprintf(out + n, size - n, " %s=%s", pr->strs[s->labels[i][0]],
				      pr->strs[s->labels[i][1]]);
}

static void decode(struct prof *pr, const uint8_t *p, const uint8_t *end)
{
	static struct raw_sample raw[MAXN];
	const uint8_t *b, *e;
	uint64_t v = 0;

	memset(pr, 0, sizeof(*pr));
	while (p < end) {
		uint32_t f = field(&p, end, &v, &b, &e);

		if (f == 1 && pr->ntypes < 4)
			value_type(b, e, pr->types[pr->ntypes++]);
		else if (f == 2 && pr->nsamples < MAXN)
			sample(&raw[pr->nsamples++], b, e);
		else if (f == 4)
			location(pr, b, e);
		else if (f == 5)
			function(pr, b, e);
		else if (f == 6 && pr->nstrs < MAXN)
			pr->strs[pr->nstrs++] = strndup((const char *)b, (size_t)(e - b));
		else if (f == 9)
			pr->time_ns = v;
		else if (f == 10)
			pr->duration_ns = v;
		else if (f == 11)
			value_type(b, e, pr->period_type);
		else if (f == 12)
			pr->period = v;
		else if (f == 14)
			pr->default_type = v;
	}
	for (size_t i = 0; i < pr->nsamples; i++)
		sample_text(pr, &raw[i], pr->samples[i], sizeof(pr->samples[i]));
}

/* The export of the trace with @o, @fleet, gunzipped into @buf (@size bytes).  Return: bytes. */
static size_t export_pprof(struct wc_profile_opts o, bool fleet, uint8_t *buf, size_t size)
{
	char oerr[256];
	struct wc_analysis *an = wc_analysis_open(et_tr.path, oerr, sizeof(oerr));
	const struct wc_replay_meta *m;
	struct wc_out_args args = { .a = an, .file = "t.wct", .fleet = fleet };
	struct wc_symbolizer *sym;
	struct wc_profile *p;
	char *gz = NULL;
	size_t len = 0;
	uLongf out = size;
	z_stream z = { 0 };
	FILE *f;

	o.split_threads = true; /* as the command sets them for the pprof row */
	o.unit = WC_UNIT_NS;
	p = wc_profile_new(&o);
	cr_assert_not_null(p);
	cr_assert_not_null(an, "%s", oerr);
	cr_assert_eq(wc_analysis_run(an, wc_profile_consumer(p)), 0, "%s", wc_analysis_error(an));
	m = wc_replay_meta(wc_analysis_replay(an));
	sym = wc_symbolizer_new(wc_analysis_tasks(an), m->kallsyms, m->kallsyms_len, m->ksyms,
				NULL);
	cr_assert_not_null(sym);
	f = open_memstream(&gz, &len);
	cr_assert_not_null(f);
	args.out = f;
	args.prof = &o;
	cr_assert_eq(wc_output_run(&wc_output_pprof, &args, p, sym, NULL), 0);
	fclose(f);
	cr_assert(len > 18 && (uint8_t)gz[0] == 0x1f && (uint8_t)gz[1] == 0x8b, "not gzip");
	cr_assert_eq(gz[4] | gz[5] | gz[6] | gz[7], 0, "a time stamp in the gzip header");
	cr_assert_eq(inflateInit2(&z, 16 + 15), Z_OK);
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)len;
	z.next_out = buf;
	z.avail_out = (uInt)out;
	cr_assert_eq(inflate(&z, Z_FINISH), Z_STREAM_END, "the gzip stream does not end");
	out = z.total_out;
	inflateEnd(&z);
	free(gz);
	wc_symbolizer_free(sym);
	wc_profile_free(p);
	wc_analysis_close(an);
	return out;
}

static void expect_samples(const struct prof *pr, const char *const *want, size_t n)
{
	for (size_t i = 0; i < n && i < pr->nsamples; i++)
		cr_expect_str_eq(pr->samples[i], want[i], "sample %zu", i);
	cr_expect_eq(pr->nsamples, n, "%zu samples", pr->nsamples);
}

static void free_prof(struct prof *pr)
{
	for (size_t i = 0; i < pr->nstrs; i++)
		free(pr->strs[i]);
}

/*
 * The wall-clock profile, in the order of the folded lines (keyed by comm) then by tid; each
 * sample's values [count, wall, cpu, off_cpu] in ns from the timeline of export-trace.h:
 *   app;entry_SYSCALL_64;do_poll          A's run time 2000 + 750 us, its one sample S1
 *   app;schedule;__schedule;[off-cpu R]   A preempted 3.0-3.25, one interval
 *   worker;[on-cpu unsampled]             N ran 4.7-4.9, no sample: count 0
 *   worker;[unknown];[runqueue]           N's wait 4.5-4.7 for its first run
 *   worker;__schedule;[off-cpu S]         B blocked 2.5-3.2
 *   worker;__schedule;[runqueue]          ... runnable 3.2-3.3
 *   worker;do_poll;schedule;__schedule;[off-cpu D]   B 3.6-4.1
 *   worker;do_poll;schedule;__schedule;[runqueue]    B 4.1-4.4
 *   worker;entry_SYSCALL_64               B's run time 500 + 300 + 600 us, sample S2
 * The labels pid, tid, comm (the process's: A's "app"), thread_comm, state.
 */
#define LABELS(tid, thread, state)                                                                 \
	" pid=100 tid=" #tid " comm=app thread_comm=" thread " state=" state
static const char *const wall_samples[] = {
	"app;entry_SYSCALL_64;do_poll 1 2750000 2750000 0" LABELS(100, "app", "on-cpu"),
	"app;schedule;__schedule;[off-cpu R] 1 250000 0 250000" LABELS(100, "app", "R"),
	"worker;[on-cpu unsampled] 0 200000 200000 0" LABELS(102, "worker", "on-cpu"),
	"worker;[unknown];[runqueue] 1 200000 0 200000" LABELS(102, "worker", "runqueue"),
	"worker;__schedule;[off-cpu S] 1 700000 0 700000" LABELS(101, "worker", "S"),
	"worker;__schedule;[runqueue] 1 100000 0 100000" LABELS(101, "worker", "runqueue"),
	"worker;do_poll;schedule;__schedule;[off-cpu D] 1 500000 0 500000" LABELS(101, "worker",
										  "D"),
	"worker;do_poll;schedule;__schedule;[runqueue] 1 300000 0 300000" LABELS(101, "worker",
										 "runqueue"),
	"worker;entry_SYSCALL_64 1 1400000 1400000 0" LABELS(101, "worker", "on-cpu"),
};

Test(pprof, wall_profile)
{
	static uint8_t buf[1 << 16];
	static struct prof pr;
	size_t n;

	et_write_trace(0);
	n = export_pprof((struct wc_profile_opts){ .mode = WC_MODE_WALL }, false, buf, sizeof(buf));
	decode(&pr, buf, buf + n);
	cr_assert_eq(pr.ntypes, 4);
	cr_expect_str_eq(pr.strs[0], "");
	cr_expect_str_eq(pr.strs[pr.types[0][0]], "samples");
	cr_expect_str_eq(pr.strs[pr.types[0][1]], "count");
	cr_expect_str_eq(pr.strs[pr.types[1][0]], "wall");
	cr_expect_str_eq(pr.strs[pr.types[1][1]], "nanoseconds");
	cr_expect_str_eq(pr.strs[pr.types[2][0]], "cpu");
	cr_expect_str_eq(pr.strs[pr.types[3][0]], "off_cpu");
	cr_expect_str_eq(pr.strs[pr.types[3][1]], "nanoseconds");
	cr_expect_str_eq(pr.strs[pr.default_type], "wall");
	cr_expect_str_eq(pr.strs[pr.period_type[0]], "wall");
	cr_expect_str_eq(pr.strs[pr.period_type[1]], "nanoseconds");
	cr_expect_eq(pr.period, 1);
	/* the CLOCK record: trace clock 1 ns is 1700000000000000000; the first event at 1.0 ms */
	cr_expect_eq(pr.time_ns, 1700000000000000000ull + 1 * MS - 1);
	cr_expect_eq(pr.duration_ns, 5 * MS); /* to the trailer at 6.0 ms */
	expect_samples(&pr, wall_samples, sizeof(wall_samples) / sizeof(wall_samples[0]));
	/* kernel frames in the one [kernel.kallsyms] mapping (1); the comm, [unknown] and the
	 * leaves in none; each location its own name */
	for (size_t id = 1; id < MAXN && pr.loc_fn[id]; id++) {
		const char *name = pr.strs[pr.fn_name[pr.loc_fn[id]]];
		bool synth = name[0] == '[' || !strcmp(name, "app") || !strcmp(name, "worker");

		cr_expect_eq(pr.loc_map[id], synth ? 0 : 1, "%s", name);
	}
	free_prof(&pr);
}

/* --fleet, --mode off, --time 0.0025,0.0035 (3.5 to 4.5 ms): no pid and tid labels; B's D
 * interval 3.6-4.4 whole, under K3 with no leaf; A's S from 4.0 is open (not counted), N
 * starts at 4.5; time_nanos the window's start, duration_nanos its 1 ms. */
Test(pprof, fleet_off_window)
{
	static uint8_t buf[1 << 16];
	static struct prof pr;
	static const char *const want[] = {
		"worker;do_poll;schedule;__schedule 1 800000 0 800000 comm=app thread_comm=worker "
		"state=off-cpu",
	};
	struct wc_profile_opts o = {
		.mode = WC_MODE_OFF,
		.filter = { .have_time = true, .start_s = 0.0025, .end_s = 0.0035 }
	};
	size_t n;

	et_write_trace(0);
	n = export_pprof(o, true, buf, sizeof(buf));
	decode(&pr, buf, buf + n);
	expect_samples(&pr, want, 1);
	cr_expect_eq(pr.time_ns, 1700000000000000000ull + 3500 * 1000 - 1);
	cr_expect_eq(pr.duration_ns, 1 * MS);
	free_prof(&pr);
}
