/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-outfile.c - -o outputs (analyzer/cli/outfile.h): in place only when the report succeeded. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/cli/outfile.h"

static char dir[] = "/tmp/wc-outfile-XXXXXX";
static char path[sizeof(dir) + 16];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.svg", dir);
}

/* The files left in the directory. */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static char *content(void)
{
	static char buf[64];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void teardown(void)
{
	unlink(path);
	rmdir(dir);
}

TestSuite(outfile, .init = setup, .fini = teardown);

Test(outfile, a_report_that_succeeds_replaces_the_file_and_leaves_no_temporary)
{
	struct wc_outfile o;
	FILE *f = fopen(path, "w");

	fputs("old", f);
	fclose(f);
	cr_assert_eq(wc_outfile_open(&o, path), 0);
	fputs("new", o.f);
	cr_assert_str_eq(content(), "old", "not in place before the end");
	cr_assert_eq(wc_outfile_close(&o, true), 0);
	cr_assert_str_eq(content(), "new");
	cr_assert_eq(entries(), 1, "no temporary left");
}

Test(outfile, a_report_that_fails_keeps_the_old_file_and_leaves_no_temporary)
{
	struct wc_outfile o;
	FILE *f = fopen(path, "w");

	fputs("old", f);
	fclose(f);
	cr_assert_eq(wc_outfile_open(&o, path), 0);
	fputs("half", o.f);
	cr_assert_eq(wc_outfile_close(&o, false), 0);
	cr_assert_str_eq(content(), "old");
	cr_assert_eq(entries(), 1);
}

Test(outfile, a_character_device_is_written_as_it_is_and_dash_is_stdout)
{
	struct wc_outfile o;

	cr_assert_eq(wc_outfile_open(&o, "/dev/null"), 0);
	cr_assert_null(o.tmp);
	cr_assert_eq(wc_outfile_close(&o, true), 0);
	cr_assert_eq(wc_outfile_open(&o, "-"), 0);
	cr_assert_eq(o.f, stdout);
	cr_assert_eq(wc_outfile_close(&o, true), 0);
}

Test(outfile, a_missing_directory_is_an_error)
{
	struct wc_outfile o;

	cr_assert_lt(wc_outfile_open(&o, "/nonexistent-dir/x.svg"), 0);
}
