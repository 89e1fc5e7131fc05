/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outfile.h - where a report's -o output goes: stdout, or a regular FILE written under a
 * temporary name in its directory (FILE.XXXXXX) and renamed over it at the end, so that a
 * failed or interrupted report leaves no half-written FILE and the old one, if any, stays; a
 * character device (/dev/null, a terminal) is written as it is.  Check the path first with
 * wc_cli_output_ok() (cli.h), which refuses a directory or a missing parent with its message.
 */
#ifndef WC_ANALYZER_OUTFILE_H
#define WC_ANALYZER_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

struct wc_outfile {
	FILE *f;	  /* where to write, between open and close */
	const char *path; /* FILE, borrowed; NULL for stdout */
	char *tmp;	  /* the temporary name, owned; NULL when written directly */
};

/**
 * wc_outfile_open() - @o writes to @path, or to stdout when @path is NULL or "-"
 * Return: 0, or -errno (the temporary file could not be made or opened).
 */
int wc_outfile_open(struct wc_outfile *o, const char *path);

/**
 * wc_outfile_close() - close the output, and put it in place if @keep (the report succeeded),
 * else remove it; stdout is flushed
 * Return: 0, or -errno (-EIO: a write to stdout failed).
 */
int wc_outfile_close(struct wc_outfile *o, bool keep);

#endif /* WC_ANALYZER_OUTFILE_H */
