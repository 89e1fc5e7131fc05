/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracefile.h - the trace file's creation, safe to do as root (wcrec -o, --rotate). */
#ifndef WC_RECORDER_TRACEFILE_H
#define WC_RECORDER_TRACEFILE_H

/**
 * wc_trace_create() - open @path for a new trace, as perf record opens its perf.data: a
 * regular file there is kept as PATH.old, a character device written as it is, anything else
 * refused; a new file is 0600, never created through a symlink
 * Return: the descriptor, or -errno; -EEXIST when something other than a regular file or a
 * character device is at @path (wc_trace_output_kind() says what).
 */
int wc_trace_create(const char *path);

/** wc_trace_output_kind() - what is at @path, for wc_trace_create()'s -EEXIST: "a FIFO", ... */
const char *wc_trace_output_kind(const char *path);

#endif /* WC_RECORDER_TRACEFILE_H */
