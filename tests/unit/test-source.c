/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-source.c - the input seam: a .wct file goes to the wct source and comes out record
 * for record as the reader gives it; a foreign file gets the reader's one-line error; a file
 * that cannot be opened gets errno.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/core/source.h"
#include "trace-util.h"

static struct tu_trace trace;
static char other[64];

static void fini(void)
{
	tu_trace_free(&trace);
	if (other[0])
		unlink(other);
	other[0] = 0;
}

TestSuite(source, .fini = fini);

Test(source, a_wct_file_reads_as_the_reader_reads_it)
{
	const struct wc_rec_header *h;
	struct wc_source *s;
	size_t n = 0;

	cr_assert_eq(tu_write_trace(&trace, 200, 50, 1, NULL), 0);
	s = wc_source_open(trace.path);
	cr_assert_not_null(s, "%s", strerror(errno));
	cr_expect_str_eq(wc_source_name(s), "wct");
	cr_expect_eq(wc_source_size(s), trace.file_size);
	while (wc_source_next(s, &h)) {
		if (h->type == WC_REC_TRAILER)
			continue;
		cr_assert_lt(n, trace.nrec);
		cr_assert_eq(memcmp(h, trace.recs[n], h->size), 0, "record %zu", n);
		n++;
	}
	cr_expect_eq(n, trace.nrec);
	cr_expect_eq(wc_source_state(s), WC_READER_CLEAN, "%s", wc_source_error(s));
	cr_expect_str_eq(wc_source_error(s), "");
	cr_expect_eq(wc_source_offset(s), trace.file_size);
	wc_source_free(s);
}

Test(source, an_unknown_magic_gets_the_readers_error)
{
	const struct wc_rec_header *h;
	struct wc_source *s;
	FILE *f;

	strcpy(other, "/tmp/test-source-XXXXXX");
	close(mkstemp(other));
	f = fopen(other, "w");
	cr_assert_not_null(f);
	for (int i = 0; i < 4; i++) /* longer than a .wct header */
		fputs("root:x:0:0:root:/root:/bin/sh\n", f);
	fclose(f);
	s = wc_source_open(other);
	cr_assert_not_null(s);
	cr_expect_eq(wc_source_next(s, &h), 0);
	cr_expect_eq(wc_source_state(s), WC_READER_CORRUPT);
	cr_expect_str_eq(wc_source_error(s), "not a wcrec trace file (bad magic at byte 0)");
	cr_expect_eq(wc_source_error_offset(s), 0);
	wc_source_free(s);
}

Test(source, a_missing_file_is_errno)
{
	errno = 0;
	cr_expect_null(wc_source_open("/nonexistent/trace.wct"));
	cr_expect_eq(errno, ENOENT);
	errno = 0;
	cr_expect_null(wc_source_open("/tmp"));
	cr_expect_eq(errno, EISDIR);
	wc_source_free(NULL);
}
