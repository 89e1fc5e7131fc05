/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tasks.h - threads, processes and their address spaces, as the replay goes.
 *
 * A thread is a tid's life: a tid reused after its thread exited gets a new struct wc_thread.
 * A process's address space (struct wc_aspace) is replaced by a new, empty one at exec
 * (COMM with WC_COMM_EXEC) and copied at fork, as perf's thread maps are; address spaces
 * and threads are kept until the end, so that stacks can be symbolized at output time
 * against the maps that were current when they were recorded.
 */
#ifndef WC_ANALYZER_TASKS_H
#define WC_ANALYZER_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/map64.h"
#include "common/wct.h"

/* A mapped file: path and build-id as recorded. */
struct wc_dso {
	char *path;
	uint8_t build_id[WC_BUILD_ID_MAX];
	uint8_t build_id_len; /* 0: unknown */
};

struct wc_map {
	uint64_t start, end; /* [start, end) virtual addresses */
	uint64_t pgoff;	     /* file offset of start, bytes */
	uint32_t dso;	     /* index in wc_tasks.dsos */
};

/* One address space: a process between two execs. */
struct wc_aspace {
	uint32_t pid;
	struct wc_map *maps; /* sorted by start, not overlapping */
	size_t nmaps, cap;
};

struct wc_thread {
	uint32_t tid;
	uint32_t pid;  /* 0 while unknown */
	uint32_t ppid; /* the parent process, from the FORK record or, for a process
			* leader there at the start, /proc (1.4), when ppid_known */
	bool ppid_known;
	char comm[17];
	uint32_t aspace; /* index in wc_tasks.aspaces; 0 while unknown */
	uint32_t seg;	 /* attribution segment, set by the consumer; 0: none yet */
	bool target;	 /* in the recording's target (COMMAND / -p and descendants) */
	bool exited;
	bool forked;	   /* created by a FORK record */
	bool at_start;	   /* alive when the recording started: a COMM from /proc (with
			    * WC_TASK_SYNTH) for a thread no FORK record created */
	char start_state;  /* ... and its state letter then, from /proc; 0 unknown */
	uint64_t first_ns; /* first time the replay saw it */
	uint64_t last_ns;  /* its exit (the first EXIT record's time), else 0 */
};

struct wc_tasks {
	struct wc_thread *threads; /* index 0 unused */
	size_t nthreads, threads_cap;
	struct wc_map64 by_tid;	   /* tid -> index of its current thread */
	struct wc_aspace *aspaces; /* index 0: the unknown address space, always empty */
	size_t naspaces, aspaces_cap;
	struct wc_map64 by_pid; /* pid -> index of its current address space */
	struct wc_dso *dsos;
	size_t ndsos, dsos_cap;
	struct wc_map64 dso_by_hash; /* hash of path and build-id -> dso index + 1 */
	uint32_t *target_pids;
	size_t ntarget_pids;
	uint32_t recorder_pid; /* 0 when unknown */
	/* the bytes of the vdso, from the trace's IMAGE record "[vdso]" (set by the analysis
	 * when the metadata is known), borrowed; NULL when the trace has none */
	const uint8_t *vdso_image;
	size_t vdso_image_len; /* bytes */
	uint64_t execs, forks, exits, mmaps;
};

/* wc_tasks_init() / wc_tasks_fini().  Return: 0 or -ENOMEM. */
int wc_tasks_init(struct wc_tasks *t);
void wc_tasks_fini(struct wc_tasks *t);

/* wc_tasks_add_target() - mark process @pid (and what it forks from now on) as target. */
int wc_tasks_add_target(struct wc_tasks *t, uint32_t pid);

/**
 * wc_tasks_thread() - the current thread of @tid, created when new
 * @pid: its process when the caller knows it, else 0
 * @time_ns: when it is seen
 * Return: the thread (valid until the next call that may create one), or NULL on ENOMEM.
 */
struct wc_thread *wc_tasks_thread(struct wc_tasks *t, uint32_t tid, uint32_t pid, uint64_t time_ns);

/* wc_tasks_find() - the current thread of @tid, or NULL. */
struct wc_thread *wc_tasks_find(const struct wc_tasks *t, uint32_t tid);

/**
 * wc_tasks_record() - apply a COMM, FORK, EXIT or MMAP record.  Return: 0 or -ENOMEM.
 */
int wc_tasks_record(struct wc_tasks *t, const struct wc_rec_header *h);

/**
 * wc_tasks_lookup_map() - the mapping of @addr in address space @aspace
 * Return: the map (owned by @t), or NULL.
 */
const struct wc_map *wc_tasks_lookup_map(const struct wc_tasks *t, uint32_t aspace, uint64_t addr);

#endif /* WC_ANALYZER_TASKS_H */
