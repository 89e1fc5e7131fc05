/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-export-speedscope.c - `wcanalyze export --format speedscope` (export-speedscope.c)
 * over the hand-built trace of export-trace.h: the document text for text, each value worked
 * out by hand below; then the documents through speedscope's published JSON schema with
 * /usr/bin/python3 (skipped with the reason when the schema or python3-jsonschema is not
 * available).
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/core/analysis.h"
#include "analyzer/output/export.h"
#include "analyzer/reports/profile.h"
#include "analyzer/symbols/symbolize.h"
#include "export-trace.h"

TestSuite(speedscope, .init = et_init, .fini = et_fini);
TestSuite(validate, .init = et_init, .fini = et_fini);

/* The speedscope document of the trace with @o (per_thread is set as the command does). */
static char *speedscope_text(struct wc_profile_opts o, size_t *nprofiles)
{
	char oerr[256]; /* why wc_analysis_open() failed */
	struct wc_analysis *an;
	const struct wc_replay_meta *m;
	struct wc_symbolizer *sym;
	struct wc_profile *p;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	o.per_thread = true;
	p = wc_profile_new(&o);
	cr_assert_not_null(p);
	an = wc_analysis_open(et_tr.path, oerr, sizeof(oerr));
	cr_assert_not_null(an, "%s", oerr);
	cr_assert_eq(wc_analysis_run(an, wc_profile_consumer(p)), 0, "%s", wc_analysis_error(an));
	cr_assert_eq(wc_analysis_facts(an)->start_ns, 1 * MS);
	m = wc_replay_meta(wc_analysis_replay(an));
	sym = wc_symbolizer_new(wc_analysis_tasks(an), m->kallsyms, m->kallsyms_len, m->ksyms,
				NULL);
	cr_assert_not_null(sym);
	f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	cr_assert_eq(wc_speedscope_write(p, an, sym, o.unit, "t.wct", f, nprofiles), 0);
	fclose(f);
	wc_symbolizer_free(sym);
	wc_profile_free(p);
	wc_analysis_close(an);
	return text;
}

#define SS_HEAD                                                                                    \
	"{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"name\":\"t.wct\","  \
	"\"exporter\":\"wcanalyze@" PACKAGE_VERSION "\",\"activeProfileIndex\":0,\n"

/*
 * The wall-clock profile in us, per thread (as folded --per-thread, whose lines are sorted
 * as strings, root first):
 *   app-100;entry_SYSCALL_64;do_poll 2750         A's run time 2000 + 750, all to its one
 *                                                 sample S1
 *   app-100;schedule;__schedule;[off-cpu R] 250   preempted 3.0-3.25 under K2
 *   worker-101;__schedule;[off-cpu S] 700         blocked 2.5-3.2 under K1
 *   worker-101;__schedule;[runqueue] 100          3.2-3.3
 *   worker-101;do_poll;schedule;__schedule;[off-cpu D] 500   3.6-4.1 under K3
 *   worker-101;do_poll;schedule;__schedule;[runqueue] 300    4.1-4.4
 *   worker-101;entry_SYSCALL_64 1400              B's run time 500 + 300 + 600, sample S2
 *   worker-102;[on-cpu unsampled] 200             N ran 4.7-4.9, never sampled
 *   worker-102;[unknown];[runqueue] 200           its wait for its first run, no stack
 * Frames numbered as they first appear in that order: entry_SYSCALL_64 0, do_poll 1,
 * schedule 2, __schedule 3, [off-cpu R] 4, [off-cpu S] 5, [runqueue] 6, [off-cpu D] 7,
 * [on-cpu unsampled] 8, [unknown] 9.  One profile per thread, the key's frame left out,
 * endValue the sum of its weights: 3000, 3000 and 400 us, each thread's covered time.
 */
Test(speedscope, wall_profile_per_thread)
{
	size_t n = 0;
	char *got;

	et_write_trace(0);
	got = speedscope_text((struct wc_profile_opts){ .mode = WC_MODE_WALL }, &n);
	cr_expect_str_eq(
		got,
		SS_HEAD
		"\"shared\":{\"frames\":[\n"
		"{\"name\":\"entry_SYSCALL_64\"},\n{\"name\":\"do_poll\"},\n"
		"{\"name\":\"schedule\"},\n{\"name\":\"__schedule\"},\n"
		"{\"name\":\"[off-cpu R]\"},\n{\"name\":\"[off-cpu S]\"},\n"
		"{\"name\":\"[runqueue]\"},\n{\"name\":\"[off-cpu D]\"},\n"
		"{\"name\":\"[on-cpu unsampled]\"},\n{\"name\":\"[unknown]\"}]},\n"
		"\"profiles\":[\n"
		"{\"type\":\"sampled\",\"name\":\"app-100 (pid 100)\",\"unit\":\"microseconds\","
		"\"startValue\":0,\"endValue\":3000,\"samples\":[\n[0,1],\n[2,3,4]],\n"
		"\"weights\":[2750,250]},\n"
		"{\"type\":\"sampled\",\"name\":\"worker-101 (pid 100)\",\"unit\":\"microseconds\","
		"\"startValue\":0,\"endValue\":3000,\"samples\":[\n[3,5],\n[3,6],\n[1,2,3,7],\n"
		"[1,2,3,6],\n[0]],\n\"weights\":[700,100,500,300,1400]},\n"
		"{\"type\":\"sampled\",\"name\":\"worker-102 (pid 100)\",\"unit\":\"microseconds\","
		"\"startValue\":0,\"endValue\":400,\"samples\":[\n[8],\n[9,6]],\n"
		"\"weights\":[200,200]}]}\n",
		"got:\n%s", got);
	cr_expect_eq(n, 3);
	free(got);
}

/*
 * --mode off --unit ns, B only (-t 101): the whole intervals under their stacks, no
 * synthetic leaf: 2.5-3.3 under K1 = 800000 ns, 3.6-4.4 under K3 = 800000 ns; frames
 * __schedule 0, do_poll 1, schedule 2; unit "nanoseconds".
 */
Test(speedscope, off_mode_in_ns)
{
	static const uint32_t tids[] = { B };
	struct wc_profile_opts o = { .mode = WC_MODE_OFF,
				     .unit = WC_UNIT_NS,
				     .filter = { .tids = tids, .ntids = 1 } };
	char *got;

	et_write_trace(0);
	got = speedscope_text(o, NULL);
	cr_expect_str_eq(got,
			 SS_HEAD "\"shared\":{\"frames\":[\n"
				 "{\"name\":\"__schedule\"},\n{\"name\":\"do_poll\"},\n"
				 "{\"name\":\"schedule\"}]},\n"
				 "\"profiles\":[\n"
				 "{\"type\":\"sampled\",\"name\":\"worker-101 (pid 100)\","
				 "\"unit\":\"nanoseconds\",\"startValue\":0,\"endValue\":1600000,"
				 "\"samples\":[\n[0],\n[1,2,0]],\n\"weights\":[800000,800000]}]}\n",
			 "got:\n%s", got);
	free(got);
}

/* A thread whose comm changes is one profile, named after its last comm: the lines of
 * B before its prctl name "renamed" at 3.4 ms (its S interval, under "worker") and after
 * (its D interval and on-CPU time, under "renamed") are in the one profile of tid 101. */
Test(speedscope, comm_change_one_profile)
{
	static const uint32_t tids[] = { B };
	struct wc_profile_opts o = { .mode = WC_MODE_OFF, .filter = { .tids = tids, .ntids = 1 } };
	char *got;

	et_rename_b = true;
	et_write_trace(0);
	got = speedscope_text(o, NULL);
	cr_expect(strstr(got, "\"name\":\"renamed-101 (pid 100)\"") != NULL, "got:\n%s", got);
	cr_expect(strstr(got, "\"weights\":[800,800]") != NULL, "got:\n%s", got);
	cr_expect(strstr(got, "worker") == NULL, "got:\n%s", got);
	free(got);
}

/* Nothing passes the filters: a valid document with no profiles. */
Test(speedscope, empty)
{
	static const uint32_t tids[] = { 999 };
	size_t n = 1;
	char *got;

	et_write_trace(0);
	got = speedscope_text((struct wc_profile_opts){ .filter = { .tids = tids, .ntids = 1 } },
			      &n);
	cr_expect_str_eq(got, SS_HEAD "\"shared\":{\"frames\":[]},\n\"profiles\":[]}\n");
	cr_expect_eq(n, 0);
	free(got);
}

/* ---- through speedscope's schema ---- */

/*
 * The speedscope documents above, validated against speedscope's published schema by
 * testdata/export/validate-speedscope.py (which also checks the importer's needs: as many
 * weights as samples, frame indices in range, endValue - startValue the sum of the
 * weights); and two broken ones that must fail it: a unit the schema does not know, a
 * weight missing.
 */
Test(validate, speedscope_schema)
{
	static const uint32_t none[] = { 999 };
	char schema[4096], out[8192], f1[64], f2[64], f3[64], bad1[64], bad2[64];
	char *text;
	int rc;

	if (et_run("sh \"$srcdir\"/testdata/export/speedscope-schema.sh 2>&1", schema,
		   sizeof(schema)) != 0)
		cr_skip_test("%s", schema);
	schema[strcspn(schema, "\n")] = 0;
	et_write_trace(0);
	text = speedscope_text((struct wc_profile_opts){ .mode = WC_MODE_WALL }, NULL);
	et_save(text, f1);
	et_patch(text, "\"microseconds\"", "\"furlongs\"xxxx");
	et_patch(text, "\"furlongs\"xxxx", "\"furlongs\"    ");
	et_save(text, bad1);
	free(text);
	text = speedscope_text((struct wc_profile_opts){ .mode = WC_MODE_OFF, .unit = WC_UNIT_NS },
			       NULL);
	et_save(text, f2);
	et_patch(text, "\"weights\":[800000,", "\"weights\":[       ");
	et_save(text, bad2);
	free(text);
	text = speedscope_text((struct wc_profile_opts){ .filter = { .tids = none, .ntids = 1 } },
			       NULL);
	et_save(text, f3);
	free(text);
	rc = et_py(out, "validate-speedscope.py %s %s %s %s", schema, f1, f2, f3);
	if (rc != 77) { /* 77: no python3-jsonschema, said in out */
		cr_expect_eq(rc, 0, "%s", out);
		cr_expect_eq(et_py(out, "validate-speedscope.py %s %s", schema, bad1), 1,
			     "a unit of furlongs passed: %s", out);
		cr_expect_eq(et_py(out, "validate-speedscope.py %s %s", schema, bad2), 1,
			     "a missing weight passed: %s", out);
	}
	unlink(f1);
	unlink(f2);
	unlink(f3);
	unlink(bad1);
	unlink(bad2);
	if (rc == 77)
		cr_skip_test("%s", out);
}
