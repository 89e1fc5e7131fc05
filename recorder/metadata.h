/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metadata.h - what the recorder writes before the first event: the host, the clock, tracepoint
 * format texts from tracefs, kallsyms, and the tasks and executable mappings alive at the start,
 * with the build-ids of the mapped ELF files (DESIGN.md, "The trace file").
 *
 * Nothing here prints: every function returns 0 or -errno and the caller reports.
 */
#ifndef WC_RECORDER_METADATA_H
#define WC_RECORDER_METADATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "recorder/buildid.h" /* wc_elf_build_id(), which was declared here */

struct wc_kallsyms;
struct wc_writer;

/**
 * wc_meta_write_tp_format() - write one WC_REC_TP_FORMAT record
 * @w:      writer
 * @dir:    the tracing directory, from wc_tracefs_find()
 * @system: tracepoint system, stored in the record: "sched"
 * @name:   tracepoint name: "sched_switch"
 *
 * The record holds @system and the text of DIR/events/SYSTEM/NAME/format, as the kernel gives
 * it; the analyzer parses it with libtraceevent.
 * Return: 0, -ENOENT when the kernel has no such tracepoint, another error from reading it,
 * -ENOMEM, or the writer's error.
 */
int wc_meta_write_tp_format(struct wc_writer *w, const char *dir, const char *system,
			    const char *name);

/**
 * wc_meta_write_host() - write the WC_REC_HOST record
 * @w: writer
 *
 * The record holds uname(2)'s five strings, the online and configured CPU counts, the page
 * size (bytes) and "wcrec " PACKAGE_VERSION.
 * Return: 0, the error of uname(2) or sysconf(3), -ENOMEM, or the writer's error.
 */
int wc_meta_write_host(struct wc_writer *w);

/**
 * wc_meta_write_clock() - write the WC_REC_CLOCK record
 * @w:       writer
 * @clockid: the perf_event_attr.clockid the events use (CLOCK_MONOTONIC, ...), or -1 for perf's
 *           default clock, stored as given; for -1 CLOCK_MONOTONIC is read instead, the nearest
 *           clock user space can read
 *
 * Reads that clock, CLOCK_REALTIME, and that clock again, three times, and keeps the try with
 * the smallest gap between the two readings: clock_ns is their midpoint, realtime_ns the
 * reading in between (both ns).
 * Return: 0, -EINVAL when @clockid cannot be read, or the writer's error.
 */
int wc_meta_write_clock(struct wc_writer *w, int clockid);

/**
 * wc_meta_write_note() - write a WC_REC_NOTE record
 * @w:     writer
 * @key:   "wakeup_event", NUL-terminated; copied
 * @value: "sched_waking", NUL-terminated; copied
 *
 * Return: 0, -EINVAL for a NULL string, -E2BIG when the record would exceed WC_REC_MAX_BYTES,
 * -ENOMEM, or the writer's error.
 */
int wc_meta_write_note(struct wc_writer *w, const char *key, const char *value);

/**
 * wc_meta_write_kallsyms() - read /proc/kallsyms and write the WC_REC_KALLSYMS record
 * @w:          writer
 * @full:       write the text whole (wcrec --full-kallsyms, and files before format 1.2);
 *              else an empty text flagged WC_KALLSYMS_REFERENCED, and *@snapshot is set
 * @snapshot:   set, unless @full or the addresses are hidden, to the parsed snapshot, for
 *              wc_ksym_writer_new() (recorder/ksyms.h); the caller owns it; else set to NULL
 * @restricted: set to true when every address read as zero (kptr_restrict, or not privileged
 *              enough), in which case the record's flags hold WC_KALLSYMS_RESTRICTED; may be NULL
 *
 * The file is several MB; it is read into memory in one piece, then freed.
 * Return: 0, the error of reading /proc/kallsyms, -ENOMEM, -E2BIG, or the writer's error.
 */
int wc_meta_write_kallsyms(struct wc_writer *w, bool full, struct wc_kallsyms **snapshot,
			   bool *restricted);

/**
 * wc_meta_write_kernel_build_id() - write the NOTE kernel_build_id: the running kernel's
 * GNU build-id (wc_kernel_build_id(), recorder/buildid.h) in lowercase hex, as perf's
 * [kernel.kallsyms] build-id, for the analysis elsewhere to name the kernel it symbolizes
 * @w: writer
 *
 * A kernel without the notes file, or without a build-id, writes nothing and is no error.
 * Return: 0, or the error of wc_meta_write_note().
 */
int wc_meta_write_kernel_build_id(struct wc_writer *w);

/**
 * wc_meta_write_vdso() - write a WC_REC_IMAGE record of the recorder's own vdso, "[vdso]"
 * @w:       writer
 * @written: set to the image's bytes, 0 when no record was written; may be NULL
 *
 * The image starts at getauxval(AT_SYSINFO_EHDR) and is as long as the line of
 * /proc/self/maps that starts there and is named [vdso].  Every 64-bit process of the same
 * kernel maps the same image, so the analyzer names the [vdso] frames of any of them from it,
 * as perf does with its own copy (tools/perf/util/vdso.c).  No vdso, no such line, or an image
 * over WC_IMAGE_MAX_BYTES (1 MiB) writes nothing and is no error.
 * Return: 0, -ENOMEM, or the writer's error.
 */
int wc_meta_write_vdso(struct wc_writer *w, uint32_t *written);

/* What wc_meta_write_tasks() wrote. */
struct wc_meta_task_stats {
	uint64_t processes; /* processes written (kernel threads included) */
	uint64_t threads;   /* COMM records */
	uint64_t maps;	    /* MMAP records */
	uint64_t build_ids; /* MMAP records with a build-id */
};

/* The threads wc_meta_write_tasks() wrote a COMM for: wc_meta_write_gone() checks them. */
struct wc_meta_snapshot {
	uint32_t (*ids)[2]; /* pid, tid; owned */
	size_t n, cap;
};

/**
 * wc_meta_write_tasks() - write the tasks and executable mappings alive now, from /proc
 * @w:           writer
 * @clockid:     clock the record times are read on (CLOCK_MONOTONIC when -1), as for
 *               wc_meta_write_clock(); each record gets a reading taken as it is made
 * @pids:        process ids (thread-group ids) to write, or NULL with @npids 0 for every
 *               process in /proc
 * @npids:       entries of @pids
 * @exclude_pid: a process to leave out (the recorder itself), or -1
 * @stats:       set to what was written; may be NULL
 * @snap:        when not NULL, zeroed or kept from an earlier call: gets each thread written
 *
 * For each process: a WC_REC_COMM per thread (/proc/PID/task/TID/comm, cut to 15 characters as
 * the kernel's comm is) with WC_TASK_SYNTH, the state letter and the parent pid of
 * /proc/PID/task/TID/stat (56 bytes: struct wc_rec_comm_proc, format 1.4);
 * then a WC_REC_MMAP per executable line of
 * /proc/PID/maps with WC_TASK_SYNTH in task_flags and tid = pid.  Mappings without a name get
 * "//anon", as perf names them; [vdso] and the like keep their names.  A file-backed mapping
 * carries the build-id of its file, read once per (device, inode) per call: from the mapped file
 * itself (/proc/PID/map_files, which needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE), else from
 * the path when the file there still has the mapped inode number; otherwise build_id_size is 0.
 * Processes and threads that exit while being read are skipped, as are files the caller may not
 * read; kernel threads get COMM records only.
 *
 * Return: 0, -EINVAL when @clockid cannot be read, the error of opening /proc, -ENOMEM, or the
 * first writer error (the walk stops there).
 */
int wc_meta_write_tasks(struct wc_writer *w, int clockid, const int *pids, size_t npids,
			int exclude_pid, struct wc_meta_task_stats *stats,
			struct wc_meta_snapshot *snap);

/**
 * wc_meta_write_gone() - after the events are enabled, an EXIT record (ppid and ptid 0, timed
 * now on @clockid) for each thread of @snap that /proc no longer has: it exited between the
 * snapshot and the enabling, when no event could tell (man/wcrec-trace.5, FORK and EXIT)
 * @gone: set to the number written; may be NULL
 * Return: 0, -EINVAL when @clockid cannot be read, or the first writer error.
 */
int wc_meta_write_gone(struct wc_writer *w, int clockid, const struct wc_meta_snapshot *snap,
		       uint64_t *gone);

/* wc_meta_snapshot_fini() - free what @snap holds and zero it. */
void wc_meta_snapshot_fini(struct wc_meta_snapshot *snap);

#endif /* WC_RECORDER_METADATA_H */
