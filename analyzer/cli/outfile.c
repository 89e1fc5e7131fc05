/* SPDX-License-Identifier: GPL-2.0-or-later */
/* outfile.c - see outfile.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/cli/outfile.h"

int wc_outfile_open(struct wc_outfile *o, const char *path)
{
	struct stat st;
	mode_t mask;
	int fd;

	o->path = path;
	o->tmp = NULL;
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		o->path = NULL;
		return 0;
	}
	if (lstat(path, &st) == 0 && S_ISCHR(st.st_mode)) { /* as it is (wc_cli_output_ok()) */
		o->f = fopen(path, "w");
		return o->f ? 0 : -errno;
	}
	if (asprintf(&o->tmp, "%s.XXXXXX", path) < 0) {
		o->tmp = NULL;
		return -ENOMEM;
	}
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		int err = -errno;

		free(o->tmp);
		o->tmp = NULL;
		return err;
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) || !(o->f = fdopen(fd, "w"))) {
		int err = -errno;

		close(fd);
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		return err;
	}
	return 0;
}

int wc_outfile_close(struct wc_outfile *o, bool keep)
{
	int err = 0;

	if (o->f == stdout)
		return fflush(stdout) || ferror(stdout) ? -EIO : 0;
	if (o->f && fclose(o->f))
		err = -errno;
	o->f = NULL;
	if (o->tmp) {
		if (keep && !err && rename(o->tmp, o->path))
			err = -errno;
		if (!keep || err)
			unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	return err;
}
