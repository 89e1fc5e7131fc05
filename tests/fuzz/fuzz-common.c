/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz-common.c - see fuzz-common.h. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyzer/cli/cli.h"
#include "common/writer.h"
#include "tests/fuzz/fuzz-common.h"

#define MAX_ARGS    8
#define FRAME_BYTES 8192u /* small frames: the per-frame time deltas are exercised too */

struct fz_cmd {
	int (*run)(int argc, char **argv);
	const char *args[MAX_ARGS]; /* subcommand and options, NULL-terminated */
};

static const struct fz_cmd cmds[] = {
#define FZ_CMD(fn, ...) { fn, { __VA_ARGS__ } },
#include "tests/fuzz/commands.h"
#undef FZ_CMD
};

static int file_fd = -1;
static char file_path[64]; /* static: getopt may keep a pointer into argv between calls */
static char out_path[64];

int fz_init(void)
{
	FILE *null_out = fopen("/dev/null", "w");
	FILE *null_err = fopen("/dev/null", "w");

	if (!null_out || !null_err)
		return -errno;
	/* glibc's stdout and stderr are plain variables (glibc manual, "Standard Streams") */
	stdout = null_out;
	stderr = null_err;
	file_fd = memfd_create("wcanalyze-fuzz", MFD_CLOEXEC);
	if (file_fd < 0)
		return -errno;
	snprintf(file_path, sizeof(file_path), "/proc/self/fd/%d", file_fd);
	snprintf(out_path, sizeof(out_path), "/dev/shm/wcanalyze-fuzz-%ld.out", (long)getpid());
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (fz_init())
		abort(); /* no memfd or /dev/null: nothing can be fuzzed */
	return 0;
}

const char *fz_file_path(void)
{
	return file_path;
}

int fz_file_fd(void)
{
	return file_fd;
}

int fz_file_set(const uint8_t *data, size_t size)
{
	size_t done = 0;

	if (ftruncate(file_fd, 0))
		return -errno;
	while (done < size) {
		ssize_t n = pwrite(file_fd, data + done, size - done, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

static void run(size_t i)
{
	char *argv[MAX_ARGS + 2];
	int argc = 0;

	for (const char *const *a = cmds[i].args; *a && argc < MAX_ARGS; a++)
		argv[argc++] = (char *)(strcmp(*a, "@OUT") ? *a : out_path);
	argv[argc++] = file_path;
	argv[argc] = NULL;
	/*
	 * glibc's full reset of getopt's state.  wc_cli_parse() sets optind = 1 itself, which
	 * is enough here: every command line above is parsed to its end.
	 */
	optind = 0;
	cmds[i].run(argc, argv);
	fflush(stdout);
	fflush(stderr);
	unlink(out_path);
}

void fz_run_one(size_t size)
{
	run(size % (sizeof(cmds) / sizeof(cmds[0])));
}

/*
 * The size of the record whose header @h is at the start of @left bytes, fixed up as
 * fz_records_write() says; 0 when fewer bytes are left than the least record.
 */
static uint32_t fixed_size(const struct wc_rec_header *h, size_t left)
{
	uint64_t least = h->flags & WC_REC_F_TIME ? 16 : 8;
	uint64_t size = h->size < least ? least : ((uint64_t)h->size + 7) & ~(uint64_t)7;
	uint64_t avail = left & ~(size_t)7;

	if (size > avail)
		size = avail;
	return size < least ? 0 : (uint32_t)size;
}

int fz_records_write(int fd, const uint8_t *data, size_t size, uint32_t frame_bytes)
{
	const struct wc_writer_opts opts = {
		.level = 1,
		.flush_interval_ms = UINT32_MAX, /* frames by size only: the same file each run */
		.frame_bytes = frame_bytes ? frame_bytes : FRAME_BYTES,
	};
	struct wc_writer *w = NULL;
	uint64_t end_ns = 0, t;
	uint8_t *recs = NULL;
	size_t pos = 0;
	int err = 0;

	if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET))
		return -errno;
	recs = malloc(size + 8); /* a copy to fix up, 8-aligned as the writer takes records */
	if (!recs)
		return -ENOMEM;
	memcpy(recs, data, size);
	w = wc_writer_new(fd, &opts);
	if (!w) {
		err = -errno;
		goto out_free;
	}
	while (size - pos >= sizeof(struct wc_rec_header)) {
		struct wc_rec_header *h = (struct wc_rec_header *)(recs + pos);
		uint32_t len = fixed_size(h, size - pos);

		if (!len)
			break;
		h->size = len;
		pos += len;
		if (!h->type)
			continue;
		if (h->flags & WC_REC_F_TIME) {
			memcpy(&t, h + 1, sizeof(t));
			end_ns = t > end_ns ? t : end_ns;
		}
		err = wc_writer_add(w, h);
		if (err)
			goto out_free;
	}
	err = wc_writer_close(w, end_ns, 0);
out_free:
	wc_writer_free(w);
	free(recs);
	return err;
}
