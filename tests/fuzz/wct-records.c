/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wct-records - convert between trace files and the record sequences fuzz-records.c takes.
 * usage: wct-records --to-records TRACE OUT   the records of TRACE, times absolute, without
 *                                             its trailer, one after the other
 *        wct-records --to-wct RECORDS OUT [FRAME_BYTES]
 *                                             RECORDS as a trace, fixed up and written as
 *                                             the fuzz target does (fz_records_write()), in
 *                                             frames of FRAME_BYTES (default 8 KiB)
 * Exit status: 0; 1 TRACE or RECORDS cannot be read, or OUT written; 2 bad usage.
 * A test aid for `make fuzz` (scripts/fuzz.sh), not a product.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/reader.h"
#include "tests/fuzz/fuzz-common.h"

static int to_records(const char *in, const char *out)
{
	const struct wc_rec_header *h;
	struct wc_reader *r = wc_reader_open(in);
	enum wc_reader_state st;
	FILE *f;

	if (!r) {
		fprintf(stderr, "wct-records: %s: %s\n", in, strerror(errno));
		return 1;
	}
	f = fopen(out, "w");
	if (!f) {
		fprintf(stderr, "wct-records: %s: %s\n", out, strerror(errno));
		wc_reader_free(r);
		return 1;
	}
	while (wc_reader_next(r, &h))
		if (h->type != WC_REC_TRAILER) /* the writer adds its own */
			fwrite(h, h->size, 1, f);
	st = wc_reader_state(r);
	if (st != WC_READER_CLEAN)
		fprintf(stderr, "wct-records: warning: %s: %s\n", in, wc_reader_error(r));
	wc_reader_free(r);
	if (fclose(f)) {
		fprintf(stderr, "wct-records: %s: %s\n", out, strerror(errno));
		return 1;
	}
	return st == WC_READER_CLEAN || st == WC_READER_TRUNCATED ? 0 : 1;
}

static int to_wct(const char *in, const char *out, uint32_t frame_bytes)
{
	struct stat st;
	uint8_t *data = NULL;
	int in_fd, out_fd, err = -1;
	ssize_t n = 0;

	errno = 0;
	in_fd = open(in, O_RDONLY | O_CLOEXEC);
	if (in_fd < 0 || fstat(in_fd, &st) || !(data = malloc((size_t)st.st_size + 1)) ||
	    (n = read(in_fd, data, (size_t)st.st_size)) != st.st_size) {
		fprintf(stderr, "wct-records: %s: %s\n", in,
			errno ? strerror(errno) : "short read");
		goto out_close;
	}
	out_fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out_fd < 0) {
		fprintf(stderr, "wct-records: %s: %s\n", out, strerror(errno));
		goto out_close;
	}
	err = fz_records_write(out_fd, data, (size_t)st.st_size, frame_bytes);
	if (close(out_fd) && !err)
		err = -errno;
	if (err)
		fprintf(stderr, "wct-records: %s: %s\n", out, strerror(-err));
out_close:
	if (in_fd >= 0)
		close(in_fd);
	free(data);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--to-records"))
		return to_records(argv[2], argv[3]);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "--to-wct"))
		return to_wct(argv[2], argv[3],
			      argc == 5 ? (uint32_t)strtoul(argv[4], NULL, 0) : 0);
	fputs("usage: wct-records --to-records TRACE OUT | --to-wct RECORDS OUT [FRAME_BYTES]\n",
	      stderr);
	return 2;
}
