/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracefs.h - the tracing directory: finding (or mounting) it, and reading a tracepoint's id and
 * the offsets of its payload's fields from it.
 *
 * Nothing here prints: every function returns 0 (or an id) or -errno and the caller reports.
 */
#ifndef WC_RECORDER_TRACEFS_H
#define WC_RECORDER_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>

/* wc_tracefs_find() flags */
#define WC_TRACEFS_MOUNT	 0x1 /* mount tracefs (or debugfs) when it is not mounted */
#define WC_TRACEFS_FORCE_DEBUGFS 0x2 /* skip /sys/kernel/tracing: use the debugfs path */

/**
 * wc_tracefs_find() - find the tracing directory, mounting it if asked
 * @dir:              set to the directory, e.g. "/sys/kernel/tracing", NUL-terminated
 * @len:              bytes of @dir (64 is plenty)
 * @flags:            WC_TRACEFS_* flags
 * @mounted:          set to true when this call mounted tracefs or debugfs (the mount stays;
 *                    unmounting it is the caller's choice); may be NULL
 * @debugfs_fallback: set to true when the directory is /sys/kernel/debug/tracing; may be NULL
 *
 * /sys/kernel/tracing is used when it holds events/; when it is empty and WC_TRACEFS_MOUNT is
 * in @flags, tracefs is mounted on it first.  Otherwise /sys/kernel/debug/tracing, mounting
 * debugfs on an empty /sys/kernel/debug under the same flag (the kernel then mounts tracefs
 * under it by itself).
 *
 * Return: 0; -ENOENT when no tracing directory was found or allowed to be mounted;
 * -ENAMETOOLONG when @len is too small; or the error of mount(2) (-EPERM without
 * CAP_SYS_ADMIN, -ENODEV when the kernel has neither file system).
 */
int wc_tracefs_find(char *dir, size_t len, unsigned flags, bool *mounted, bool *debugfs_fallback);

/**
 * wc_tracefs_event_id() - the id of a tracepoint (perf_event_attr.config for PERF_TYPE_TRACEPOINT)
 * @dir:    the tracing directory, from wc_tracefs_find()
 * @system: "sched"
 * @name:   "sched_switch"
 *
 * Reads DIR/events/SYSTEM/NAME/id.
 * Return: the id (>= 0), -ENOENT when the kernel has no such tracepoint, -EINVAL when the id
 * file does not hold a number, or another -errno from reading it.
 */
int wc_tracefs_event_id(const char *dir, const char *system, const char *name);

/**
 * wc_tracefs_field() - where a field of a tracepoint's raw payload lies, from its format file
 * ("\tfield:pid_t pid;\toffset:12;\tsize:4;...")
 * @field: the field's name; @offset, @size: set, in bytes from the payload's start
 * Return: 0, -ENOENT (no such field, or no format), or the error of reading the file.
 */
int wc_tracefs_field(const char *dir, const char *system, const char *name, const char *field,
		     unsigned *offset, unsigned *size);

#endif /* WC_RECORDER_TRACEFS_H */
