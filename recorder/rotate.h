/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rotate.h - the files of a continuous recording (wcrec --rotate, as perf record
 * --switch-output): when a file is due to end, its name, the next one's, the last N kept, and
 * the command run on each closed file.
 *
 * The recorder closes a complete trace (trailer included) and opens the next with the
 * metadata it needs: each file is analysed alone.  The events stay enabled across the
 * switch; what the rings hold then goes into the next file.  Names are the -o path with the
 * local time of the file's start before its extension, as perf names its files:
 * "trace.wct" -> "trace.20261127041530123.wct" (year to milliseconds), "out" ->
 * "out.20261127041530123".
 */
#ifndef WC_RECORDER_ROTATE_H
#define WC_RECORDER_ROTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct wc_rotate_opts {
	uint64_t period_ns;    /* a file ends this long after its start; 0: not by time */
	uint64_t size_bytes;   /* ... or once it holds this many bytes; 0: not by size */
	unsigned keep;	       /* closed files kept (the last ones), the open one besides; 0: all */
	const char *on_rotate; /* a shell command run on each closed file, or NULL */
	const char *base;      /* the -o path */
};

struct wc_rotate;

/**
 * wc_rotate_parse() - a --rotate value: a period ("10s", "5m", "1h") or a size ("512K",
 * "100M", "2G": powers of 1024; "4096B" bytes)
 * Return: 0 with *@period_ns or *@size_bytes set (the other left alone), or -EINVAL.
 */
int wc_rotate_parse(const char *arg, uint64_t *period_ns, uint64_t *size_bytes);

/** wc_rotate_new() - the state; @o copied (its strings borrowed).  Return: it, or NULL. */
struct wc_rotate *wc_rotate_new(const struct wc_rotate_opts *o);

/**
 * wc_rotate_next_path() - the name of the next file, made from the time now
 * Return: the path, owned by @ro, valid until the next call; NULL on ENOMEM or a name too long.
 */
const char *wc_rotate_next_path(struct wc_rotate *ro);

/**
 * wc_rotate_due() - whether the open file should end: @now_ns - @start_ns (ns, one clock) past
 * the period, or @bytes (written to it) past the size
 */
bool wc_rotate_due(const struct wc_rotate *ro, uint64_t start_ns, uint64_t now_ns, uint64_t bytes);

/**
 * wc_rotate_closed() - @path (the path wc_rotate_next_path() gave) was closed complete: start
 * --on-rotate's command on it (without waiting: /bin/sh -c CMD sh PATH, the path as $1 and in
 * WCREC_FILE), then remove the oldest files closed before, past the last --keep closed.
 * Return: 0, or -ENOMEM (the file is kept, the command not run).  A command that cannot be
 * started, or a file that cannot be removed, is said on stderr, and the recording goes on.
 */
int wc_rotate_closed(struct wc_rotate *ro, const char *path);

/** wc_rotate_reap() - collect the commands that have ended.  Return: how many still run. */
size_t wc_rotate_reap(struct wc_rotate *ro);

/**
 * wc_rotate_free() - wait for the commands still running (saying so on stderr when some are),
 * then free the state; NULL is a no-op
 */
void wc_rotate_free(struct wc_rotate *ro);

#endif /* WC_RECORDER_ROTATE_H */
