/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metadata-priv.h - what metadata.c and tracefs.c share: reading a file of /proc or tracefs to
 * EOF, and the path of a tracepoint's files; nothing else uses it.
 */
#ifndef WC_RECORDER_METADATA_PRIV_H
#define WC_RECORDER_METADATA_PRIV_H

#include <stddef.h>

/* A whole file, NUL-terminated, at p + off; p is malloc'ed, so aligned for any record. */
struct buf {
	char *p;
	size_t len; /* bytes used, the off bytes before the content included */
	size_t cap; /* bytes allocated */
};

/*
 * Read the file at path into b from offset off to EOF.  The content is followed by at least 8
 * zero bytes, so a record ending with it can be padded to 8 bytes in place.
 * Return: 0, -E2BIG when a record could not hold it, -ENOMEM, or the error of open/read.
 */
int wc_meta_slurp(const char *path, struct buf *b, size_t off);

/* DIR/events/SYSTEM/NAME/FILE into path[PATH_MAX].  Return: 0, -EINVAL, -ENAMETOOLONG. */
int wc_tracefs_event_path(char *path, const char *dir, const char *system, const char *name,
			  const char *file);

#endif /* WC_RECORDER_METADATA_PRIV_H */
