/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracefs.c - finding (and mounting) the tracing directory, and reading a tracepoint's id and
 * the layout of its fields from it (see tracefs.h).
 *
 * Files of tracefs report a size of 0, so they are read to EOF with wc_meta_slurp().
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "recorder/metadata-priv.h"
#include "recorder/tracefs.h"

#define TRACEFS_DIR	"/sys/kernel/tracing"
#define DEBUGFS_DIR	"/sys/kernel/debug"
#define DEBUGFS_TRACING DEBUGFS_DIR "/tracing"

/* Does dir hold an events/ directory?  Looking inside also triggers the tracefs automount. */
static bool has_events(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/events", dir) >= (int)sizeof(path))
		return false;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* Is dir an existing, empty directory? */
static bool is_empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return false;
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	return empty;
}

/*
 * Use dir when it has events/; else, when allowed, mount fstype on mnt if mnt is empty.
 * Return: 0 when dir is usable, -ENOENT, or the error of mount(2).
 */
static int try_dir(const char *dir, const char *mnt, const char *fstype, unsigned flags,
		   bool *mounted)
{
	if (has_events(dir))
		return 0;
	if (!(flags & WC_TRACEFS_MOUNT) || !is_empty_dir(mnt))
		return -ENOENT;
	if (mount("nodev", mnt, fstype, 0, NULL))
		return -errno;
	*mounted = true;
	return has_events(dir) ? 0 : -ENOENT;
}

int wc_tracefs_find(char *dir, size_t len, unsigned flags, bool *mounted, bool *debugfs_fallback)
{
	const char *found = NULL;
	bool m = false, fallback = false;
	int err = -ENOENT, e;

	if (len < sizeof(DEBUGFS_TRACING))
		return -ENAMETOOLONG;
	if (!(flags & WC_TRACEFS_FORCE_DEBUGFS)) {
		err = try_dir(TRACEFS_DIR, TRACEFS_DIR, "tracefs", flags, &m);
		found = err ? NULL : TRACEFS_DIR;
	}
	if (!found) {
		/* a mount error here says more than one of tracefs, which older kernels lack */
		e = try_dir(DEBUGFS_TRACING, DEBUGFS_DIR, "debugfs", flags, &m);
		if (e != -ENOENT)
			err = e;
		if (!e) {
			found = DEBUGFS_TRACING;
			fallback = true;
		}
	}
	if (found)
		strcpy(dir, found);
	if (mounted)
		*mounted = m;
	if (debugfs_fallback)
		*debugfs_fallback = fallback;
	return err;
}

int wc_tracefs_event_path(char *path, const char *dir, const char *system, const char *name,
			  const char *file)
{
	if (!dir || !system || !name || !*system || !*name)
		return -EINVAL;
	if (snprintf(path, PATH_MAX, "%s/events/%s/%s/%s", dir, system, name, file) >= PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

int wc_tracefs_event_id(const char *dir, const char *system, const char *name)
{
	struct buf b = { NULL, 0, 0 };
	char path[PATH_MAX], *end;
	long id = -1;
	int err;

	err = wc_tracefs_event_path(path, dir, system, name, "id");
	if (!err)
		err = wc_meta_slurp(path, &b, 0);
	if (!err) {
		errno = 0;
		id = strtol(b.p, &end, 10);
		if (errno || end == b.p || (*end && *end != '\n') || id < 0 || id > INT_MAX)
			err = -EINVAL;
	}
	free(b.p);
	return err ? err : (int)id;
}

int wc_tracefs_field(const char *dir, const char *system, const char *name, const char *field,
		     unsigned *offset, unsigned *size)
{
	struct buf b = { NULL, 0, 0 };
	char path[PATH_MAX];
	size_t n = strlen(field);
	int err;

	err = wc_tracefs_event_path(path, dir, system, name, "format");
	if (!err)
		err = wc_meta_slurp(path, &b, 0);
	if (err) {
		free(b.p);
		return err;
	}
	err = -ENOENT;
	for (char *line = b.p; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char *f = strstr(line, "field:"), *semi = f ? strchr(f, ';') : NULL;
		char *eol = strchr(line, '\n');

		if (!semi || (eol && semi > eol) || (size_t)(semi - f) < n + 1 ||
		    strncmp(semi - n, field, n) ||
		    (semi[-(long)n - 1] != ' ' && semi[-(long)n - 1] != '*'))
			continue;
		if (sscanf(semi, "; offset:%u; size:%u;", offset, size) == 2) /* any blanks */
			err = 0;
		break;
	}
	free(b.p);
	return err;
}
