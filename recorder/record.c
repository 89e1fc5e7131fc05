/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record.c - one recording of wcrec (record.h): set-up in the order its messages come, the
 * drain loop, and the summary of -v.
 */
#include "recorder/record.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/error.h"
#include "common/writer.h"
#include "recorder/events.h"
#include "recorder/ksyms.h"
#include "recorder/rotate.h"
#include "recorder/usym.h"
#include "recorder/metadata.h"
#include "recorder/tracefs.h"
#include "recorder/targets.h"
#include "recorder/tracefile.h"
#include "recorder/unwind.h"

/* The state of one recording, from set-up to clean-up. */
struct rec {
	struct wc_rec_opts *o;
	struct wc_target targets[WC_REC_MAX_PIDS]; /* -p's, to stop when all have exited */
	char tracefs[4096];
	struct wc_events *ev;
	int fd;		  /* the output */
	const char *path; /* its path: -o's, or with --rotate, the open file's */
	struct wc_rotate *rot;
	uint64_t t_file;     /* with --rotate, the open file's start (ns of the events' clock) */
	uint64_t bytes_done; /* bytes of the files closed before it */
	uint64_t raw_done;   /* their record bytes, before compression */
	unsigned files;	     /* files written, the open one included */
	struct wc_writer *w;
	struct wc_ksym_writer *kw;
	struct wc_usym_writer *uw;     /* NULL with --no-symbols */
	struct wc_meta_snapshot tasks; /* the threads written at the start */
	struct wc_command cmd;	       /* COMMAND, pid -1 without */
	int status;		       /* COMMAND's wait status, once reaped */
	bool reaped;		       /* COMMAND exited and status holds its wait status */
	bool targets_gone;	       /* every -p process exited */
	struct wc_drain_stats ds;
	uint64_t t_start, t_end; /* ns of the events' clock */
	uint32_t trailer_flags;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void on_child(int sig)
{
	(void)sig; /* only wakes poll() */
}

static uint64_t clock_now(int clockid)
{
	struct timespec ts;

	clock_gettime(clockid < 0 ? CLOCK_MONOTONIC : clockid, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The unwinder's sessions keep a descriptor open for each file of each process they unwind,
 * beside the CPUs x events of perf_event_open: raise the soft limit on open files to the hard
 * one, as perf record does; nothing is said if that fails.
 */
static void raise_nofile(void)
{
	struct rlimit r;

	if (!getrlimit(RLIMIT_NOFILE, &r) && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

/*
 * -p's descendants, added after the @n processes named in @pids (up to WC_REC_MAX_PIDS), each
 * with its wc_target in @targets; those gone by then are dropped.  Return: the new count.
 */
static int add_descendants(int *pids, int n, struct wc_target *targets, int verbose)
{
	size_t total = (size_t)n;
	int named = n, err = wc_targets_add_descendants(pids, &total, WC_REC_MAX_PIDS, getpid());

	if (err == -E2BIG)
		fprintf(stderr,
			"wcrec: warning: -p: more than %d processes with the descendants: "
			"the first %d followed\n",
			WC_REC_MAX_PIDS, WC_REC_MAX_PIDS);
	else if (err < 0)
		fprintf(stderr,
			"wcrec: warning: -p: cannot list the descendants (%s): only the "
			"processes named followed\n",
			strerror(-err));
	if (err < 0 && err != -E2BIG)
		return n;
	for (size_t i = (size_t)n; i < total; i++)
		if (!wc_target_init(&targets[n], pids[i]))
			pids[n++] = pids[i];
	if (verbose > 1 && n > named)
		fprintf(stderr,
			"wcrec: -p: following %d descendant processes too (--no-children "
			"for those named alone)\n",
			n - named);
	return n;
}

/*
 * --per-task: the last pid the kernel handed out, read before the target's processes and
 * threads are listed: every task created after has a higher pid (until the pids wrap), and the
 * wakeup events' filter takes those whole (recorder/wakefilter.h).  Unread (no such file
 * before Linux 3.3 or without CONFIG_CHECKPOINT_RESTORE), or read in a pid namespace other than
 * the initial one (whose pids the tracepoints do not give): no filter.
 */
static void read_pid_floor(struct wc_events_opts *eo)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "r");
	const char *ms = getenv("WCREC_WAKE_REFRESH_MS");
	bool read = false, nested = false;
	unsigned long v = 0;
	char line[256];
	struct stat st;

	if (f) {
		read = fscanf(f, "%lu", &v) == 1 && v < UINT32_MAX;
		fclose(f);
	}
	/* the tracepoints' pids are the initial namespace's, and so must ns_last_pid and the
	 * listed tids be: the initial pid namespace has inode PROC_PID_INIT_INO
	 * (include/linux/proc_ns.h; Linux 3.8); before, NSpid lists more than one pid in another
	 * (only below the namespace /proc was mounted in, though) */
	if (!stat("/proc/self/ns/pid", &st)) {
		nested = st.st_ino != 0xEFFFFFFCu;
	} else {
		f = fopen("/proc/self/status", "r");
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "NSpid:", 6))
				nested = strchr(line + 6, '\t') != strrchr(line + 6, '\t') ||
					 strchr(line + 6, ' ') != strrchr(line + 6, ' ');
		if (f)
			fclose(f);
	}
	eo->have_pid_floor = read && !nested;
	eo->pid_floor = (uint32_t)v;
	eo->force_no_wake_filter = getenv("WCREC_FORCE_NO_WAKE_FILTER") != NULL;
	eo->no_wrap_check = getenv("WCREC_NO_WRAP_CHECK") != NULL;
	eo->wake_refresh_ms = ms ? (unsigned)strtoul(ms, NULL, 10) : 0;
	ms = getenv("WCREC_SWITCH_IN_REFRESH_MS");
	eo->switch_in_refresh_ms = ms ? (int)strtol(ms, NULL, 10) : -1;
	if (eo->switch_in_refresh_ms < -1)
		eo->switch_in_refresh_ms = -1;
	eo->force_task_samples = getenv("WCREC_FORCE_TASK_SAMPLES") != NULL;
	eo->force_no_switch_in_events = getenv("WCREC_FORCE_NO_SWITCH_IN_EVENTS") != NULL;
	eo->force_switch_records = getenv("WCREC_FORCE_SWITCH_RECORDS") != NULL;
}

/* -p: each process must be there; then their descendants.  Return: -1, or 2. */
static int follow_pids(struct rec *r)
{
	struct wc_rec_opts *o = r->o;

	for (int i = 0; i < o->npids; i++) {
		if (wc_target_init(&r->targets[i], o->pids[i])) {
			fprintf(stderr, "wcrec: no process %d\n", o->pids[i]);
			return 2;
		}
	}
	if (o->npids && o->children) /* the processes they forked before: a server's workers */
		o->npids = add_descendants(o->pids, o->npids, r->targets, o->verbose);
	return -1;
}

/* The tracing directory, for the scheduler tracepoints.  Return: -1, or 1. */
static int find_tracefs(struct rec *r)
{
	unsigned flags = WC_TRACEFS_MOUNT;
	bool mounted = false, debugfs = false;
	int err;

	if (!r->o->eo.sched)
		return -1;
	if (getenv("WCREC_FORCE_DEBUGFS"))
		flags |= WC_TRACEFS_FORCE_DEBUGFS;
	err = wc_tracefs_find(r->tracefs, sizeof(r->tracefs), flags, &mounted, &debugfs);
	if (err) {
		fprintf(stderr, "wcrec: cannot find or mount tracefs: %s\n", strerror(-err));
		return 1;
	}
	if (r->o->verbose > 1 && mounted)
		fprintf(stderr, "wcrec: mounted %s\n", r->tracefs);
	if (r->o->verbose > 1 && debugfs)
		fprintf(stderr, "wcrec: fallback: tracing directory under debugfs\n");
	return -1;
}

/* Open the events, and say which fallbacks were taken (-v).  Return: -1, 1 or 2. */
static int open_events(struct rec *r)
{
	struct wc_events_opts *eo = &r->o->eo;
	const char *why;

	eo->tracefs = r->tracefs;
	eo->force_no_clockid = getenv("WCREC_FORCE_NO_CLOCKID") != NULL;
	eo->force_no_build_id = getenv("WCREC_FORCE_NO_BUILD_ID") != NULL;
	eo->force_no_cycles = getenv("WCREC_FORCE_NO_CYCLES") != NULL;
	eo->force_no_runtime = getenv("WCREC_FORCE_NO_RUNTIME") != NULL;
	eo->force_no_switch_records = getenv("WCREC_FORCE_NO_SWITCH_RECORDS") != NULL;
	eo->force_per_cpu = getenv("WCREC_FORCE_PER_CPU") != NULL;
	/* a targeted recording: per-task events on the target's threads (recorder/pertask.c) */
	eo->task_pids = r->o->per_task && r->o->npids && !r->o->all ? r->o->pids : NULL;
	eo->ntask_pids = eo->task_pids ? r->o->npids : 0;
	raise_nofile();
	r->ev = wc_events_open(eo, &why);
	if (!r->ev) {
		fprintf(stderr, "wcrec: %s\n", why ? why : strerror(errno));
		return errno == EINVAL || errno == ENOENT ? 2 : 1;
	}
	if (r->o->verbose > 1) {
		if (wc_events_fallback(r->ev, "cycles"))
			fprintf(stderr, "wcrec: fallback: no PMU cycles, sampling on cpu-clock\n");
		if (wc_events_fallback(r->ev, "clockid"))
			fprintf(stderr, "wcrec: fallback: no use_clockid, times on perf's clock\n");
		if (wc_events_fallback(r->ev, "build-id"))
			fprintf(stderr, "wcrec: fallback: no build-ids in MMAP2 records\n");
		if (wc_events_fallback(r->ev, "runtime"))
			fprintf(stderr, "wcrec: fallback: no sched_stat_runtime\n");
		if (eo->sched && wc_events_fallback(r->ev, "switch"))
			fprintf(stderr, "wcrec: fallback: no context-switch records\n");
		if (eo->ntask_pids && !wc_events_per_task(r->ev))
			fprintf(stderr, "wcrec: fallback: per-CPU events for the target\n");
	}
	if (r->o->verbose && eo->samples)
		fprintf(stderr, "wcrec: sampling on %s at %u Hz\n", wc_events_sample_name(r->ev),
			eo->freq_hz);
	return -1;
}

/*
 * -p with per-task events: a process forked before the events of the thread that forked it
 * were open inherited none; add the descendants until no new one appears.  Return: -1, or 1.
 */
static int open_new_descendants(struct rec *r)
{
	struct wc_rec_opts *o = r->o;

	if (!wc_events_per_task(r->ev) || !o->children || r->cmd.pid > 0)
		return -1;
	for (int pass = 0; pass < 100; pass++) {
		int n = o->npids, k;

		o->npids = add_descendants(o->pids, o->npids, r->targets, 0);
		if (o->npids == n)
			return -1;
		k = wc_events_add_tasks(r->ev, &o->eo, o->pids + n, o->npids - n);
		if (k < 0) {
			fprintf(stderr, "wcrec: cannot open the events of the target: %s\n",
				strerror(-k));
			return 1;
		}
	}
	return -1;
}

/* The output file and its writer.  Return: -1, 1 or 2 (something not a file at -o). */
static int open_output(struct rec *r)
{
	const char *out = r->path;
	struct wc_writer_opts wo = { .level = r->o->level };

	r->fd = wc_trace_create(out);
	if (r->fd == -EEXIST) {
		fprintf(stderr,
			"wcrec: %s: is %s, not a regular file or a character device: "
			"refusing to write the trace there (nothing renamed)\n",
			out, wc_trace_output_kind(out));
		return 2;
	}
	if (r->fd < 0) {
		fprintf(stderr, "wcrec: %s: cannot create the trace file: %s\n", out,
			strerror(-r->fd));
		return 1;
	}
	r->w = wc_writer_new(r->fd, &wo);
	if (!r->w) {
		fprintf(stderr, "wcrec: %s: %s\n", out, strerror(errno));
		return 1;
	}
	return -1;
}

/* SIGINT and SIGTERM stop the recording; SIGCHLD wakes its poll(). */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL);
}

/* COMMAND, held on its start pipe; without -a, the one target.  Return: -1, or 1. */
static int start_command(struct rec *r)
{
	struct wc_rec_opts *o = r->o;
	const char *what;
	int err;

	if (!o->command || r->cmd.pid > 0)
		return -1;
	err = wc_command_start(&r->cmd, o->command, "wcrec", &what);
	if (err) {
		fprintf(stderr, "wcrec: %s: %s\n", what, strerror(-err));
		return 1;
	}
	if (!o->all) {
		o->pids[0] = r->cmd.pid;
		o->npids = 1;
	}
	return -1;
}

/* The stack hook: a new callchain's KSYM records now, its user addresses kept for USYM. */
static int on_new_stack(void *ctx, struct wc_writer *w, const uint64_t *ips, uint32_t nr)
{
	struct rec *r = ctx;
	int err = r->kw ? wc_ksym_writer_stack(r->kw, w, ips, nr) : 0;

	if (!err && r->uw)
		err = wc_usym_writer_stack(r->uw, ips, nr);
	return err;
}

/*
 * USYM records (recorder/usym.h), unless --no-symbols; before the first MMAP record, and the
 * note that says whether the file has them.  Return: 0 or the error.
 */
static int start_symbols(struct rec *r)
{
	if (!r->o->no_symbols) {
		r->uw = wc_usym_writer_new();
		if (!r->uw)
			return -ENOMEM;
		wc_writer_set_record_hook(r->w, WC_USYM_WRITER_TYPES, wc_usym_writer_record, r->uw);
		wc_writer_set_flush_hook(r->w, wc_usym_writer_flush, r->uw);
	}
	wc_writer_set_stack_hook(r->w, on_new_stack, r);
	return wc_meta_write_note(r->w, "user_symbols", r->uw ? "usym" : "off");
}

/* The metadata before the events (DESIGN.md, "The trace file").  Return: 0 or the error. */
static int write_metadata(struct rec *r)
{
	struct wc_rec_opts *o = r->o;
	struct wc_meta_task_stats ts = { 0 };
	struct wc_kallsyms *snapshot = NULL;
	bool kptr_hidden = false;
	char note[64];
	int err;

	snprintf(note, sizeof(note), "%d", (int)getpid());
	err = wc_meta_write_host(r->w);
	if (!err)
		err = wc_meta_write_clock(r->w, wc_events_clockid(r->ev));
	if (!err)
		err = wc_events_write_meta(r->ev, r->w);
	if (!err)
		err = wc_events_write_formats(r->ev, r->w, r->tracefs);
	if (!err)
		err = wc_meta_write_note(r->w, "recorder_pid", note);
	if (!err)
		err = wc_meta_write_note(r->w, "target",
					 o->npids ? (r->cmd.pid > 0 ? "command" : "pids")
						  : "system-wide");
	for (int i = 0; !err && i < o->npids; i++) {
		snprintf(note, sizeof(note), "%d", o->pids[i]);
		err = wc_meta_write_note(r->w, "target_pid", note);
	}
	if (!err)
		err = wc_meta_write_vdso(r->w, NULL);
	if (!err)
		err = wc_meta_write_kallsyms(r->w, o->full_kallsyms, &snapshot, &kptr_hidden);
	if (!err)
		err = wc_meta_write_kernel_build_id(r->w);
	if (!err && snapshot) {
		r->kw = wc_ksym_writer_new(snapshot);
		if (!r->kw)
			err = -ENOMEM;
	}
	if (!err)
		err = start_symbols(r);
	if (!err)
		err = wc_meta_write_tasks(r->w, wc_events_clockid(r->ev), o->pids, (size_t)o->npids,
					  getpid(), &ts, &r->tasks);
	if (!err)
		err = wc_writer_flush(r->w);
	if (!err && kptr_hidden && o->verbose)
		fprintf(stderr, "wcrec: kernel addresses are hidden (kptr_restrict): kernel frames "
				"will not be symbolized\n");
	return err;
}

/* Metadata, then the events on, then COMMAND let go.  Return: -1, or 1. */
static int start(struct rec *r)
{
	struct wc_rec_opts *o = r->o;
	int err = write_metadata(r);

	if (err) {
		fprintf(stderr, "wcrec: %s: %s\n", r->path, wc_strerror(err));
		return 1;
	}
	/* the recorder unwinds the target's stacks only (-p with its children, COMMAND) */
	if (o->npids && !o->all && wc_events_set_targets(r->ev, o->pids, o->npids)) {
		fprintf(stderr, "wcrec: out of memory\n");
		return 1;
	}
	/* --rotate: the threads off-CPU at a rotation are carried into the next file */
	if (r->rot && wc_events_carry_on(r->ev)) {
		fprintf(stderr, "wcrec: out of memory\n");
		return 1;
	}
	err = wc_events_enable(r->ev, true);
	if (err) {
		fprintf(stderr, "wcrec: cannot enable the events: %s\n", strerror(-err));
		return 1;
	}
	r->t_start = r->t_file = clock_now(wc_events_clockid(r->ev));
	/* --per-task: the threads made while the events were off wrote no FORK record */
	if (o->npids && !o->all && wc_events_track_tasks(r->ev, o->pids, o->npids)) {
		fprintf(stderr, "wcrec: out of memory\n");
		return 1;
	}
	/* the threads that exited between the snapshot and now, which no EXIT event tells */
	err = wc_meta_write_gone(r->w, wc_events_clockid(r->ev), &r->tasks, NULL);
	wc_meta_snapshot_fini(&r->tasks);
	if (err) {
		fprintf(stderr, "wcrec: %s: %s\n", r->path, wc_strerror(err));
		return 1;
	}
	if (r->cmd.pid > 0) {
		err = wc_command_go(&r->cmd);
		if (err) {
			fprintf(stderr, "wcrec: starting the command: %s\n", strerror(-err));
			return 1;
		}
	}
	return -1;
}

/* Milliseconds poll() may wait: 100, or less to wake at the deadline of -d (0: none). */
static int poll_ms(uint64_t now, uint64_t deadline)
{
	if (!deadline)
		return 100;
	if (now >= deadline)
		return 0;
	if (deadline - now >= 100000000ull)
		return 100;
	return (int)((deadline - now + 999999) / 1000000);
}

/* The last drain into the open file (with @cut, of the events up to end_ns only: a rotation),
 * its end notes and its trailer, the file's end at end_ns.  Return: 0 or the error. */
static int end_file(struct rec *r, uint64_t end_ns, bool cut)
{
	/* no cut where the events are not on the clock end_ns was read on (no use_clockid) */
	bool on_clock = wc_events_clockid(r->ev) >= 0;
	int err =
		wc_events_drain_until(r->ev, r->w, getpid(), cut && on_clock ? end_ns : 0, &r->ds);

	/* a rotation: the rings spilled to memory until the next file takes events (rotate());
	 * without the thread, they wait, as they did */
	if (!err && cut)
		wc_events_spill_start(r->ev);
	if (!err)
		err = wc_events_write_end_notes(r->ev, r->w);
	if (!err && r->uw) /* the last frame's: wc_writer_close() calls no flush hook */
		err = wc_usym_writer_flush(r->uw, r->w);
	if (!err && r->uw)
		err = wc_usym_writer_inlines(r->uw, r->w);
	if (!err)
		err = wc_writer_close(r->w, end_ns, r->trailer_flags);
	return err;
}

/* rotate()'s work, but the spilling thread's stop.  Return: 0 or the error, said on stderr. */
static int switch_files(struct rec *r)
{
	uint64_t now = clock_now(wc_events_clockid(r->ev)), closed;
	struct wc_writer_stats ws;
	const char *next;
	size_t carried = 0;
	int err;

	wc_events_carry_check(r->ev); /* before the file's last drain (recorder/carry.h) */
	err = end_file(r, now, true);

	if (err) {
		fprintf(stderr, "wcrec: %s: %s\n", r->path, wc_strerror(err));
		return err;
	}
	wc_writer_stats(r->w, &ws);
	r->bytes_done += ws.bytes_written;
	r->raw_done += ws.bytes_uncompressed;
	wc_writer_free(r->w);
	r->w = NULL;
	close(r->fd);
	r->fd = -1;
	wc_ksym_writer_free(r->kw);
	r->kw = NULL;
	wc_usym_writer_free(r->uw);
	r->uw = NULL;
	err = wc_rotate_closed(r->rot, r->path);
	if (!err)
		err = wc_events_new_file(r->ev);
	next = err ? NULL : wc_rotate_next_path(r->rot);
	if (!next) {
		fprintf(stderr, "wcrec: the next file: %s\n", strerror(err ? -err : errno));
		return err ? err : -errno;
	}
	r->path = next;
	if (open_output(r) >= 0)
		return -EIO; /* said */
	r->files++;
	r->t_file = now;
	closed = clock_now(wc_events_clockid(r->ev));
	err = write_metadata(r);
	wc_meta_snapshot_fini(&r->tasks);
	if (!err) /* the intervals under way: their switch-outs, for the file of their switch-in */
		err = wc_events_write_carried(r->ev, r->w, wc_events_clockid(r->ev) >= 0 ? now : 0,
					      &carried);
	if (err)
		fprintf(stderr, "wcrec: %s: %s\n", r->path, wc_strerror(err));
	else if (r->o->verbose > 1)
		fprintf(stderr,
			"wcrec: %s: %.1f ms to close the last file, %.1f ms of metadata, %zu "
			"records carried over (threads off-CPU, running, woken)\n",
			r->path, (double)(closed - now) / 1e6,
			(double)(clock_now(wc_events_clockid(r->ev)) - closed) / 1e6, carried);
	return err;
}

/*
 * --rotate: end the open file, complete, and go on in the next one with the metadata a
 * recording starts with (threads, maps and kernel symbols read now, stacks and USYM records
 * anew, the threads' state carried over); the events stay on: those up to now go into the
 * closed file, the later ones into the next, spilled to memory meanwhile.
 * Return: 0 or the error, said on stderr.
 */
static int rotate(struct rec *r)
{
	int err = switch_files(r);

	wc_events_spill_stop(r->ev);
	return err;
}

/*
 * Drain the rings until a stop: a signal, COMMAND's exit, every -p process gone, the deadline
 * of -d, or an error (poll's, or the writer's: WC_TRAILER_WRITE_ERROR).
 */
static void drain_loop(struct rec *r)
{
	int clk = wc_events_clockid(r->ev), err;
	uint64_t deadline =
		r->o->duration_s > 0 ? r->t_start + (uint64_t)(r->o->duration_s * 1e9) : 0;

	for (;;) {
		int n = wc_events_poll(r->ev, poll_ms(clock_now(clk), deadline));

		if (n < 0 && n != -EINTR) {
			fprintf(stderr, "wcrec: poll: %s\n", strerror(-n));
			break;
		}
		err = wc_events_drain(r->ev, r->w, getpid(), &r->ds);
		if (!err && (err = wc_events_refresh_wakeups(r->ev))) {
			fprintf(stderr,
				"wcrec: warning: the wakeup filter cannot be refreshed (%s): the "
				"tasks made from now on pay a record for each wakeup\n",
				strerror(-err));
			err = 0;
		}
		if (!err)
			err = wc_writer_tick(r->w);
		if (!err && r->rot) {
			struct wc_writer_stats ws;

			wc_writer_stats(r->w, &ws);
			if (wc_rotate_due(r->rot, r->t_file, clock_now(clk), ws.bytes_written))
				err = rotate(r);
			wc_rotate_reap(r->rot);
		}
		if (err && !r->w) { /* between two files: said */
			r->trailer_flags |= WC_TRAILER_WRITE_ERROR;
			break;
		}
		if (err) {
			fprintf(stderr,
				"wcrec: %s: %s: stopping; the file is readable up to here\n",
				r->path, wc_strerror(err));
			r->trailer_flags |= WC_TRAILER_WRITE_ERROR;
			break;
		}
		if (stop_signal) {
			r->trailer_flags |= WC_TRAILER_INTERRUPTED;
			break;
		}
		if (r->cmd.pid > 0 && waitpid(r->cmd.pid, &r->status, WNOHANG) == r->cmd.pid) {
			r->reaped = true;
			break;
		}
		if (r->cmd.pid < 0 && wc_targets_gone(r->targets, (size_t)r->o->npids)) {
			r->targets_gone = true; /* as perf record -p */
			break;
		}
		if (deadline && clock_now(clk) >= deadline)
			break;
	}
}

/* Events off, the last drain, the end notes and the trailer. */
static void finish_trace(struct rec *r)
{
	int err;

	wc_events_enable(r->ev, false);
	r->t_end = clock_now(wc_events_clockid(r->ev)); /* the recording's end: no event after */
	if (r->trailer_flags & WC_TRAILER_WRITE_ERROR)
		return;
	err = end_file(r, r->t_end, false);
	if (err) {
		fprintf(stderr, "wcrec: %s: %s\n", r->path, wc_strerror(err));
		r->trailer_flags |= WC_TRAILER_WRITE_ERROR;
	}
	if (r->rot && !err && wc_rotate_closed(r->rot, r->path))
		fprintf(stderr, "wcrec: out of memory\n");
}

/* -v: how the user callchains were mended (recorder/unwind.h) */
static void print_unwind_stats(const struct wc_events *ev, const struct wc_drain_stats *ds)
{
	struct wc_unwind_stats u;
	uint64_t misses;

	wc_events_unwind_stats(ev, &u);
	misses = u.stacks - u.hits;
	if (u.stacks)
		fprintf(stderr,
			"wcrec: user stacks mended by CFI: %" PRIu64 " (%.1f%% from the cache, "
			"%.1f us of CPU per unwind otherwise, %" PRIu64
			" process sessions): %" PRIu64 " spliced, %" PRIu64 " complete, %" PRIu64
			" truncated, %" PRIu64 " failed, %" PRIu64
			" skipped (the drain behind); %.1f MB of stack "
			"copied\n",
			u.stacks, 100.0 * (double)u.hits / (double)u.stacks,
			misses ? (double)u.miss_ns / 1e3 / (double)misses : 0.0, u.sessions,
			u.by_result[WC_UNWIND_SPLICED], u.by_result[WC_UNWIND_COMPLETE],
			u.by_result[WC_UNWIND_TRUNCATED], u.by_result[WC_UNWIND_FAILED],
			u.by_result[WC_UNWIND_SKIPPED], (double)ds->user_copy_bytes / 1e6);
	if (u.changed || u.bad_copies || u.wrong_abi)
		fprintf(stderr,
			"wcrec: user stacks not unwound: %" PRIu64 " files changed since mapped "
			"(refused), %" PRIu64 " bad stack copies, %" PRIu64 " of another ABI\n",
			u.changed, u.bad_copies, u.wrong_abi);
}

/* -v: what the USYM records cost */
static void print_usym_stats(const struct rec *r)
{
	struct wc_writer_stats ws;
	struct wc_usym_stats u;

	if (!r->uw)
		return;
	wc_usym_writer_stats(r->uw, &u);
	wc_writer_stats(r->w, &ws);
	fprintf(stderr,
		"wcrec: user symbols: %" PRIu64 " of %" PRIu64 " user address lookups named, "
		"%" PRIu64 " functions and inlined calls of %" PRIu64 " files in %" PRIu64
		" USYM records, %" PRIu64 " kB (%.1f%% of the records' bytes, their names "
		"compressed, the rest before compression), %.1f ms\n",
		u.named, u.addresses, u.entries, u.files, u.records, u.bytes / 1024,
		ws.bytes_uncompressed ? 100.0 * (double)u.bytes / (double)ws.bytes_uncompressed
				      : 0.0,
		(double)u.ns / 1e6);
}

/* -v: the ring buffers' peak, the unwinder, runtime events dropped, switch-ins supplied */
static void print_details(const struct rec *r, uint64_t events)
{
	const struct wc_drain_stats *ds = &r->ds;
	const struct wc_events_opts *eo = &r->o->eo;

	if (ds->ring_bytes)
		fprintf(stderr,
			"wcrec: peak ring-buffer fill %.1f%% (%" PRIu64 " of %" PRIu64
			" kB, CPU %d), %.0f events/s\n",
			100.0 * (double)ds->peak_fill / (double)ds->ring_bytes,
			ds->peak_fill / 1024, ds->ring_bytes / 1024, ds->peak_fill_cpu,
			r->t_end > r->t_start
				? (double)events * 1e9 / (double)(r->t_end - r->t_start)
				: 0.0);
	print_unwind_stats(r->ev, ds);
	print_usym_stats(r);
	if (ds->runtime_dropped)
		fprintf(stderr,
			"wcrec: %" PRIu64 " sched_stat_runtime events dropped: after the first "
			"of a thread's run, which alone places a switch-in\n",
			ds->runtime_dropped);
	if (eo->sched && !eo->no_switch_records && !wc_events_fallback(r->ev, "switch") &&
	    !wc_events_per_task(r->ev))
		fprintf(stderr,
			"wcrec: %" PRIu64 " switch-ins that no sched_switch showed, taken "
			"from context-switch records\n",
			ds->switch_ins);
	if (wc_events_per_task(r->ev) && ds->switch_ins)
		fprintf(stderr,
			"wcrec: per-task: %" PRIu64 " of the %" PRIu64
			" switch-ins timed by a sched_switch, the others placed by the delay measured; "
			"%" PRIu64 " records of the switch-in events\n",
			ds->switch_ins_timed, ds->switch_ins, ds->switch_in_events);
	if (ds->samples_other)
		fprintf(stderr,
			"wcrec: %" PRIu64
			" samples of tasks that are not the target's dropped (the "
			"sampling event is per CPU)\n",
			ds->samples_other);
	if (wc_events_wake_refreshes(r->ev))
		fprintf(stderr,
			"wcrec: the wakeup filter refreshed %" PRIu64 " times; %" PRIu64
			" wakeups written twice meanwhile, kept once\n",
			wc_events_wake_refreshes(r->ev), ds->wake_twins);
	if (wc_events_wake_near_wrap(r->ev))
		fprintf(stderr,
			"wcrec: the pids neared pid_max: the wakeup filter took every pid, %" PRIu64
			" checks\n",
			wc_events_wake_near_wrap(r->ev));
	char *recs = wc_events_records_text(r->ev);

	if (recs)
		fprintf(stderr, "wcrec: per-task context-switch records: %s\n", recs);
	free(recs);
	if (ds->switch_ins_after_exit)
		fprintf(stderr,
			"wcrec: per-task: %" PRIu64 " switch-ins after an exiting target thread's "
			"last switch, placed at its EXIT\n",
			ds->switch_ins_after_exit);
	if (wc_events_switch_in_refreshes(r->ev))
		fprintf(stderr,
			"wcrec: the switch-in events refreshed %" PRIu64
			" times more, to name new threads of the target\n",
			wc_events_switch_in_refreshes(r->ev));
	if (ds->second_sets)
		fprintf(stderr,
			"wcrec: %" PRIu64 " records of threads' second sets of events dropped "
			"(opened while the threads were listed, and inherited)\n",
			ds->second_sets);
}

/* With --rotate, the summary's " in N files". */
static const char *rotated_files(unsigned n)
{
	static char text[32];

	snprintf(text, sizeof(text), " in %u file%s", n, n > 1 ? "s" : "");
	return text;
}

/* The summary line (unless -q), and the details of -v. */
static void print_summary(const struct rec *r)
{
	const struct wc_drain_stats *ds = &r->ds;
	uint64_t events = ds->switches + ds->wakeups + ds->other_tp + ds->samples;
	struct wc_writer_stats ws;

	if (r->ev && wc_events_wake_missed(r->ev))
		fprintf(stderr,
			"wcrec: warning: %" PRIu64 " threads of the target were made with pids the "
			"wakeup filter does not take (the pids wrapped): their wakeups are missing\n",
			wc_events_wake_missed(r->ev));
	if (!r->o->verbose || !r->w)
		return;
	wc_writer_stats(r->w, &ws);
	ws.bytes_written += r->bytes_done;
	ws.bytes_uncompressed += r->raw_done;
	fprintf(stderr,
		"wcrec: %s: %.2f s, %" PRIu64 " switches, %" PRIu64 " wakeups, %" PRIu64
		" other tracepoints, %" PRIu64 " samples, %" PRIu64 " comm/fork/exit/mmap, %" PRIu64
		" lost, %.1f MB written%s, "
		"%.2f bytes/event, compression %.1fx%s\n",
		r->rot ? r->o->out : r->path, (double)(r->t_end - r->t_start) / 1e9, ds->switches,
		ds->wakeups, ds->other_tp, ds->samples, ds->comm + ds->fork + ds->exit + ds->mmap,
		ds->lost_records + ds->lost_samples, ws.bytes_written / 1e6,
		r->rot ? rotated_files(r->files) : "",
		events ? (double)ws.bytes_written / events : 0.0,
		ws.bytes_written ? (double)ws.bytes_uncompressed / ws.bytes_written : 0.0,
		!r->targets_gone  ? ""
		: r->o->npids > 1 ? "; stopped: every -p process exited"
				  : "; stopped: the -p process exited");
	if (r->o->verbose > 1)
		print_details(r, events);
}

/*
 * Leave no COMMAND behind (set-up failed, or we were stopped), and free everything.
 * Return: @ret, or COMMAND's exit status when a signal stopped us and @ret is 0.
 */
static int clean_up(struct rec *r, int ret)
{
	wc_meta_snapshot_fini(&r->tasks);
	if (r->cmd.pid > 0 && !r->reaped) {
		wc_command_cancel(&r->cmd);
		if (stop_signal)
			kill(r->cmd.pid, SIGTERM);
		waitpid(r->cmd.pid, &r->status, 0);
		if (stop_signal && WIFEXITED(r->status))
			ret = ret ? ret : WEXITSTATUS(r->status);
	}
	wc_writer_free(r->w);
	wc_rotate_free(r->rot);
	wc_ksym_writer_free(r->kw);
	wc_usym_writer_free(r->uw);
	if (r->fd >= 0)
		close(r->fd);
	wc_events_free(r->ev);
	return ret;
}

int wc_record(struct wc_rec_opts *o)
{
	static struct rec r; /* big: the targets */
	int ret;

	r = (struct rec){
		.o = o, .fd = -1, .path = o->out, .files = 1, .cmd = { .pid = -1, .go_fd = -1 }
	};
	if (o->rotate.period_ns || o->rotate.size_bytes) {
		o->rotate.base = o->out;
		r.rot = wc_rotate_new(&o->rotate);
		r.path = r.rot ? wc_rotate_next_path(r.rot) : NULL;
		if (!r.path) {
			fprintf(stderr, "wcrec: %s: %s\n", o->out, strerror(errno));
			return clean_up(&r, 1);
		}
	}
	if (o->per_task)
		read_pid_floor(&o->eo);
	ret = follow_pids(&r);
	if (ret < 0)
		ret = wc_rec_opts_cpus(o);
	if (ret < 0)
		ret = find_tracefs(&r);
	if (ret < 0 && o->command && !o->all && o->per_task) { /* its events need its pid */
		catch_signals();
		ret = start_command(&r);
	}
	if (ret < 0)
		ret = open_events(&r);
	if (ret < 0)
		ret = open_new_descendants(&r);
	if (ret >= 0)
		return clean_up(&r, ret);
	ret = open_output(&r);
	if (ret < 0) {
		catch_signals();
		ret = start_command(&r);
	}
	if (ret < 0)
		ret = start(&r);
	if (ret < 0) {
		drain_loop(&r);
		finish_trace(&r);
		print_summary(&r);
		ret = (r.trailer_flags & WC_TRAILER_WRITE_ERROR) ? 1 : 0;
		if (r.reaped)
			ret = WIFEXITED(r.status) ? WEXITSTATUS(r.status)
						  : 128 + WTERMSIG(r.status);
	}
	return clean_up(&r, ret);
}
