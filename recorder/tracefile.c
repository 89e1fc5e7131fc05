/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracefile.c - see tracefile.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/tracefile.h"

/*
 * Open the output as perf record does its perf.data, but safe to run as root: a regular file
 * already there is kept as PATH.old (one only, replaced); a character device (/dev/null) is
 * written to as it is; anything else there (a symlink, directory, FIFO, socket, block device)
 * is refused, with nothing renamed.  A new file is created 0600 (the trace names kernel
 * functions and the tasks' command lines), never through a symlink put there meanwhile.
 * Return: the fd, or -errno; -EEXIST when something other than a regular file or a character
 * device is at @path (the caller says what it found, see wc_trace_output_kind()).
 */
int wc_trace_create(const char *path)
{
	char old[4096];
	struct stat st;
	int fd;

	if (!lstat(path, &st)) {
		if (S_ISCHR(st.st_mode)) {
			fd = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
			if (fd >= 0 && (fstat(fd, &st) || !S_ISCHR(st.st_mode))) {
				close(fd);
				return -EEXIST;
			}
			return fd < 0 ? -errno : fd;
		}
		if (!S_ISREG(st.st_mode))
			return -EEXIST;
		if ((size_t)snprintf(old, sizeof(old), "%s.old", path) >= sizeof(old))
			return -ENAMETOOLONG;
		if (rename(path, old))
			return -errno;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	return fd < 0 ? -errno : fd;
}

/* What is at @path that wc_trace_create() refused, for its message. */
const char *wc_trace_output_kind(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return "something that is not a regular file";
	if (S_ISLNK(st.st_mode))
		return "a symbolic link";
	if (S_ISDIR(st.st_mode))
		return "a directory";
	if (S_ISFIFO(st.st_mode))
		return "a FIFO";
	if (S_ISSOCK(st.st_mode))
		return "a socket";
	if (S_ISBLK(st.st_mode))
		return "a block device";
	return "something that is not a regular file";
}
