/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pertask.c - per-task events for a targeted recording (-p, COMMAND), perf record -p's way:
 * each event opened on each thread of the target and each CPU recorded, with attr.inherit, so
 * that the threads and processes a target thread creates get the same events from their first
 * instruction (perf_event_init_task() in kernel/events/core.c), writing into the ring of the
 * CPU they run on (perf_output_begin() follows an inherited event to its parent's buffer).
 *
 * What each switch of a target thread gives (kernel/sched/core.c, kernel/events/core.c):
 * - switched out: its sched_switch, in its own context, with its callchain, prev_state and
 *   next_pid; then its switch-out record;
 * - switched in: its switch-in record (attr.context_switch, PERF_RECORD_SWITCH), written in its
 *   own context after the switch: the sched_switch into it fired in the context of the task
 *   leaving the CPU and reaches only that task's events (drain.c keeps it as a SWITCH_IN);
 * - woken: the sched_waking / sched_wakeup, which fires in the waker's context: those events
 *   are per CPU (open_wakeups()), filtered in the kernel on the woken task's pid
 *   (filter_wakeups()).
 * Tasks that are not the target's pay for none of the rest: their switches find no event on the
 * CPU's tracepoint list and no context (perf_trace_##call in include/trace/perf.h returns at
 * once; perf_event_task_sched_out() finds no task context).
 *
 * No new thread goes unrecorded: one created by an opened thread inherits its events; one
 * created before that is in /proc/PID/task by then, and the scan is repeated until a pass opens
 * nothing new.  A child process forked before its parent thread was opened is found by
 * record.c, which adds the new descendants and calls wc_events_add_tasks() until none appear.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/map64.h"
#include "recorder/events-priv.h"
#include "recorder/tracefs.h"
#include "recorder/wakefilter.h"

/* Has thread @tid been opened? */
static bool tid_opened(const struct wc_events *ev, uint32_t tid)
{
	return ev->task_tids.keys && wc_map64_get(&ev->task_tids, tid);
}

/* Note @tid as opened (ev->task_tids, made at the first).  Return: 0 or -ENOMEM. */
static int tid_add(struct wc_events *ev, uint32_t tid)
{
	if (!ev->task_tids.keys && wc_map64_init(&ev->task_tids))
		return -ENOMEM;
	return wc_map64_put(&ev->task_tids, tid, 1, NULL) ? 0 : -ENOMEM;
}

/* Is event kind @kind a wakeup event's (filtered: filter_wakeups())? */
static bool wakeup_kind(uint32_t kind)
{
	return kind == WC_EVENT_WAKING || kind == WC_EVENT_WAKEUP || kind == WC_EVENT_WAKEUP_NEW;
}

/* The wakeup events are opened per CPU (see above), and the sampling event where the target's
 * threads are known from its sched_switch events' side band (ev->samples_per_cpu): is event
 * kind @kind one of them? */
static bool per_cpu_kind(const struct wc_events *ev, uint32_t kind)
{
	return wakeup_kind(kind) || (kind == WC_EVENT_SAMPLE && ev->samples_per_cpu);
}

/*
 * The context-switch records of thread @tid on ring @c (ev->rec_split): a dummy event of their
 * own, enabled where the ring has them on (wc_pertask_records_on(); before the recording
 * starts, wc_events_enable()).  Return: 1, 0 when the thread is gone, or a negative errno.
 */
static int open_records(struct wc_events *ev, const struct wc_events_opts *o, uint32_t tid, int c)
{
	int fd = wc_events_open_one(ev, &ev->rec_attr, (int)tid, ev->rings[c].cpu), err;
	uint64_t id;

	if (fd < 0)
		return errno == ESRCH ? 0 : -errno;
	if (wc_grow((void **)&ev->rec_fds, &ev->rec_fds_cap, ev->nrec_fds + 1, sizeof(int)) ||
	    wc_grow((void **)&ev->rec_fd_ring, &ev->rec_fd_ring_cap, ev->nrec_fds + 1,
		    sizeof(int))) {
		close(fd);
		return -ENOMEM;
	}
	ev->rec_fd_ring[ev->nrec_fds] = c;
	ev->rec_fds[ev->nrec_fds++] = fd;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &id))
		return -errno;
	if ((!ev->rec_ids.keys && wc_map64_init(&ev->rec_ids)) ||
	    !wc_map64_put(&ev->rec_ids, id, 1, NULL))
		return -ENOMEM;
	err = -wc_events_ring_attach(ev, c, fd, o->pages, ev->page);
	return err ? err : 1;
}

int wc_pertask_records_on(struct wc_events *ev, int c, int why, uint64_t time_ns, uint32_t tid)
{
	struct ring *r = &ev->rings[c];
	int err = 0;

	if (!ev->rec_split || r->rec_on || (ev->started && !ev->enabled))
		return 0; /* on, or the recording over: its last drain */
	r->rec_on = true;
	r->rec_why = why;
	r->rec_from_ns = time_ns;
	r->rec_tid = tid;
	if (!ev->enabled)
		return 0; /* wc_events_enable() turns them on */
	/* each one's inherited events too (perf_event_for_each_child() in kernel/events/core.c);
	 * a thread forked meanwhile copies its parent's state (inherit_event()) */
	for (size_t k = 0; k < ev->nrec_fds; k++)
		if (ev->rec_fd_ring[k] == c && ioctl(ev->rec_fds[k], PERF_EVENT_IOC_ENABLE, 0) &&
		    !err)
			err = -errno;
	r->rec_errno = -err;
	/* a record before every thread's were on does not say that they all are; where one
	 * could not be turned on, none does: the switch-ins stay taken from the events too */
	r->rec_all_ns = err ? UINT64_MAX : ev->no_clockid ? 0 : mono_now_ns();
	return err;
}

/*
 * Open every event of @ev on thread @tid and every CPU, each writing into its CPU's ring.
 * Return: 1 when opened, 0 when the thread is gone (ESRCH: its events, if any, stay open and
 * silent), or a negative errno (ev->why may say more).
 */
static int open_task(struct wc_events *ev, const struct wc_events_opts *o, uint32_t tid)
{
	int err;

	for (int c = 0; c < ev->ncpus; c++) {
		for (int i = 0; i < ev->nevents; i++) {
			if (per_cpu_kind(ev, ev->events[i].kind))
				continue;
			int fd = wc_events_open_one(ev, &ev->attrs[i], (int)tid, ev->rings[c].cpu);

			if (fd < 0)
				return errno == ESRCH ? 0 : -errno;
			if (wc_grow((void **)&ev->task_fds, &ev->task_fds_cap, ev->ntask_fds + 1,
				    sizeof(int)) ||
			    wc_grow((void **)&ev->task_fd_ring, &ev->task_fd_ring_cap,
				    ev->ntask_fds + 1, sizeof(int))) {
				close(fd);
				return -ENOMEM;
			}
			if (ev->rings[c].fd < 0)
				ev->rings[c].poll_k = ev->ntask_fds;
			ev->task_fd_ring[ev->ntask_fds] = c;
			ev->task_fds[ev->ntask_fds++] = fd;
			err = wc_events_id_put(ev, fd, i);
			if (!err)
				err = -wc_events_ring_attach(ev, c, fd, o->pages, ev->page);
			if (err)
				return err;
		}
		if (ev->rec_split && (err = open_records(ev, o, tid, c)) <= 0)
			return err;
	}
	return 1;
}

/* The threads of process @pid: /proc/PID/task opened.  Return: it, or NULL with errno set. */
static DIR *open_tasks(int pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	return opendir(path);
}

/* The next thread of @dir (open_tasks()).  Return: its tid, or 0 at the end. */
static uint32_t next_tid(DIR *dir)
{
	struct dirent *d;

	while ((d = readdir(dir))) {
		char *end;
		unsigned long tid = strtoul(d->d_name, &end, 10);

		if (!*end && tid && tid < UINT32_MAX)
			return (uint32_t)tid;
	}
	return 0;
}

/*
 * One pass over the threads of process @pid (/proc/PID/task).  Return: the threads opened
 * (0: none new, or the process is gone), or a negative errno.
 */
static int scan_process(struct wc_events *ev, const struct wc_events_opts *o, int pid)
{
	DIR *dir = open_tasks(pid);
	int opened = 0, err = 0;
	uint32_t tid;

	if (!dir)
		return errno == ENOENT || errno == ESRCH ? 0 : -errno;
	while (!err && (tid = next_tid(dir))) {
		if (tid_opened(ev, tid))
			continue;
		err = tid_add(ev, tid);
		if (!err)
			err = open_task(ev, o, tid);
		if (err > 0) {
			opened++;
			wc_pertask_wake_check(ev, tid);
			err = wc_pertask_wake_track(ev, tid, false, 0); /* or -ENOMEM */
		} else if (!err) {
			ev->tasks_gone++;
		}
		err = err > 0 ? 0 : err;
	}
	closedir(dir);
	return err ? err : opened;
}

int wc_pertask_add(struct wc_events *ev, const struct wc_events_opts *o, const int *pids, int n)
{
	int total = 0;

	/* until a whole pass finds no new thread: one created by a thread not yet opened */
	for (int pass = 0; pass < 1000; pass++) {
		int opened = 0;

		for (int k = 0; k < n; k++) {
			int r = scan_process(ev, o, pids[k]);

			if (r < 0)
				return r;
			opened += r;
		}
		total += opened;
		if (!opened)
			return total;
	}
	return -EAGAIN; /* threads created faster than they can be opened, for 1000 passes */
}

/*
 * A per-task event hangs up once its task and the children that inherited it are gone
 * (is_event_hup() in kernel/events/core.c): poll() would return at once from then on.  Poll
 * ring @c through the next of its events instead; any event writing into a buffer is woken
 * with it (ring_buffer_wakeup()).  None left: the ring is drained at each pass, unpolled.
 */
void wc_pertask_hung_up(struct wc_events *ev, int c)
{
	size_t k = ev->rings[c].poll_k + 1;

	/* the next event of this ring whose task (or a child that inherited it) lives */
	for (; k < ev->ntask_fds; k++) {
		struct pollfd p = { .fd = ev->task_fds[k], .events = POLLIN };

		if (ev->task_fd_ring[k] == c && poll(&p, 1, 0) >= 0 && !(p.revents & POLLHUP))
			break;
	}
	ev->rings[c].poll_k = k;
	ev->pfds[c].fd = k < ev->ntask_fds ? ev->task_fds[k] : -1;
}

void wc_pertask_close(struct wc_events *ev)
{
	long page = sysconf(_SC_PAGESIZE);

	for (int c = 0; ev->rings && c < ev->ncpus; c++) {
		struct ring *r = &ev->rings[c];

		if (r->meta)
			munmap(r->meta, r->size + (size_t)page);
		r->meta = NULL;
		r->data = NULL;
		r->fd = -1;
		if (ev->pfds)
			ev->pfds[c].fd = -1;
	}
	for (size_t k = 0; k < ev->ntask_fds; k++)
		close(ev->task_fds[k]);
	ev->ntask_fds = 0;
	for (size_t k = 0; k < ev->nrec_fds; k++)
		close(ev->rec_fds[k]);
	ev->nrec_fds = 0;
	wc_map64_fini(&ev->rec_ids);
	for (int c = 0; ev->swin_on && c < ev->ncpus; c++)
		close(ev->rings[c].swin_fd);
	ev->swin_on = false;
	wc_map64_fini(&ev->task_tids); /* zeroed: made again at the next tid_add() */
	wc_map64_fini(&ev->wake_named);
	wc_map64_fini(&ev->wake_targets);
	ev->wake_filtered = false;
}

/*
 * Per-task events for a targeted recording (pertask.c), unless the kernel cannot place the
 * target's switch-ins without CPU-wide events: no context-switch records (before Linux 4.3),
 * or --no-switch-records.  WCREC_FORCE_PER_CPU (o->force_per_cpu) acts as such a kernel.
 * Either way, ev->next_pid_off: where sched_switch keeps next_pid, and ev->wake_pid_off: where
 * the wakeup events keep the woken task's pid (one template: sched_wakeup_template).
 */
void wc_pertask_choose(struct wc_events *ev, const struct wc_events_opts *o)
{
	const char *why = NULL;
	unsigned off, size;

	/* sched_switch's next task: the switch-ins of per-task events, and of --rotate's carry */
	ev->next_pid_off = -1;
	if (o->sched &&
	    !wc_tracefs_field(o->tracefs, "sched", "sched_switch", "next_pid", &off, &size) &&
	    size == 4 && off < 4096)
		ev->next_pid_off = (int)off;
	ev->wake_pid_off = -1;
	for (int i = 0; i < ev->nevents; i++)
		ev->has_waking |= ev->events[i].kind == WC_EVENT_WAKING;
	for (int i = 0; i < ev->nevents && ev->wake_pid_off < 0; i++)
		if (wakeup_kind(ev->events[i].kind) &&
		    !wc_tracefs_field(o->tracefs, "sched", ev->events[i].tp_name, "pid", &off,
				      &size) &&
		    size == 4 && off < 4096)
			ev->wake_pid_off = (int)off;
	if (!o->ntask_pids)
		return;
	if (o->force_per_cpu)
		why = "per-task events refused (WCREC_FORCE_PER_CPU)";
	else if (ev->switch_records_off)
		why = "--no-switch-records: per-task events need them for the switch-ins";
	else if (ev->no_switch_records)
		why = "no context-switch records (Linux 4.3) for the switch-ins of per-task events";
	else if (o->migrations) /* set_task_cpu(), often from another task or the stopper */
		why = "--migrations: sched_migrate_task fires in the context of the task that moves "
		      "the target";
	if (why) {
		snprintf(ev->per_cpu_why, sizeof(ev->per_cpu_why), "%s", why);
		return;
	}
	ev->per_task = true;
	/* a per-task cpu-clock starts and stops its timer at each switch of its task
	 * (cpu_clock_event_add()/del() in kernel/events/core.c); a per-CPU one runs on, and
	 * the target's threads are known from the FORK and EXIT records of its sched_switch */
	ev->samples_per_cpu = o->sched && !o->force_task_samples;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The filter of the wakeup events (wakefilter.h) into @buf (@size bytes): the target's threads
 * (ev->wake_targets) at or below @floor by name, every pid above it; the named into *@named
 * (made here; freed by the caller); the switch-in events' into @swbuf (@size bytes, "" where
 * it does not fit; NULL: none), which names every live thread of the target as a previous task
 * left out, those above @floor too (a new thread's own sched_switch times its switches).
 * Return: 0, or a positive errno with ev->wake_why saying why there is none.
 */
static int wake_filter_text(struct wc_events *ev, uint32_t floor, char *buf, size_t size,
			    struct wc_map64 *named, char *swbuf)
{
	uint32_t *tids = calloc(ev->wake_targets.count + 1, sizeof(*tids));
	size_t n = 0;
	int64_t extra;

	memset(named, 0, sizeof(*named));
	if (!tids || wc_map64_init(named)) {
		free(tids);
		return ENOMEM;
	}
	for (size_t i = 0; ev->wake_targets.keys && i <= ev->wake_targets.mask; i++)
		if (ev->wake_targets.keys[i] != WC_MAP64_EMPTY &&
		    (ev->wake_targets.values[i] & 1) && n < ev->wake_targets.count)
			tids[n++] = (uint32_t)ev->wake_targets.keys[i];
	qsort(tids, n, sizeof(*tids), cmp_u32);
	extra = wc_wake_filter("pid", tids, n, floor, buf, size);
	if (swbuf && wc_switch_in_filter(tids, n, floor, swbuf, size) < 0)
		swbuf[0] = '\0'; /* no room: no switch-in events */
	for (size_t i = 0; extra >= 0 && i < n; i++)
		if (!wc_map64_put(named, tids[i], 1, NULL))
			extra = -ENOMEM;
	free(tids);
	if (extra == -ENOMEM || extra < 0)
		wc_map64_fini(named);
	if (extra == -ENOMEM)
		return ENOMEM;
	if (extra < 0) {
		snprintf(ev->wake_why, sizeof(ev->wake_why), "no room for a filter");
		return ENOSPC;
	}
	ev->wake_extra = (uint64_t)extra;
	return 0;
}

/*
 * The least time between two refreshes of the switch-in events alone (refilter_switch_ins()),
 * ns: a thread made during the recording is named as a previous task that much after its FORK
 * record is drained, not at the next refresh of the wakeup filter (a second on), and until then
 * each of its switches into another of the target's threads costs a switch-in record (1 us
 * here) besides its own sched_switch.
 */
#define SWIN_PERIOD_NS 20000000ull

/* The filter's room: a page, but at most 4 KiB (filter_wakeups()). */
static size_t filter_room(void)
{
	long page = sysconf(_SC_PAGESIZE);

	return page > 0 && page < 4096 ? (size_t)page : 4096;
}

/* The attr of the switch-in events: sched_switch's tracepoint, its payload (next_pid) alone. */
static void switch_in_attr(const struct wc_events *ev, struct perf_event_attr *a)
{
	for (int i = 0; i < ev->nevents; i++)
		if (ev->events[i].kind == WC_EVENT_SWITCH)
			*a = ev->attrs[i];
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
	a->sample_regs_user = 0;
	a->sample_stack_user = 0;
	a->inherit = 0;
	a->disabled = 1;
	a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = a->build_id = 0;
	a->context_switch = 0;
}

/*
 * Open ring @c's switch-in event, a sched_switch of every task of its CPU filtered on next_pid
 * by @text, writing into the ring, enabled when @on.  Return: its descriptor (its id in
 * *@id), or a negative errno.
 */
static int open_switch_in(struct wc_events *ev, int c, const char *text, bool on, uint64_t *id)
{
	struct perf_event_attr a;
	int fd, err = 0;

	switch_in_attr(ev, &a);
	fd = wc_events_open_one(ev, &a, -1, ev->rings[c].cpu);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ev->rings[c].fd) ||
	    ioctl(fd, PERF_EVENT_IOC_SET_FILTER, text) || ioctl(fd, PERF_EVENT_IOC_ID, id) ||
	    (on && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)))
		err = -errno;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/*
 * The switch-in events (exact switch-ins: the sched_switch into a target thread fires in the
 * context of the task leaving the CPU, which the per-task events do not see), with the filter
 * @swtext (wc_switch_in_filter(): the switches into a target thread from another task).  Where
 * one cannot be opened, none: the switch-ins are then placed by the measured delay (probe.c),
 * and ev->swin_why says why.
 */
static void open_switch_ins(struct wc_events *ev, const struct wc_events_opts *o,
			    const char *swtext)
{
	int err = 0;

	if (!o->sched || ev->next_pid_off < 0 || o->force_no_switch_in_events || !swtext[0]) {
		snprintf(ev->swin_why, sizeof(ev->swin_why), "%s",
			 o->force_no_switch_in_events ? "WCREC_FORCE_NO_SWITCH_IN_EVENTS"
			 : ev->next_pid_off < 0	      ? "no next_pid in sched_switch's format"
						      : "no room for the filter");
		return;
	}
	for (int c = 0; c < ev->ncpus; c++)
		ev->rings[c].swin_fd = -1;
	for (int c = 0; c < ev->ncpus && !err; c++) {
		int fd = open_switch_in(ev, c, swtext, false, &ev->rings[c].swin_id[0]);

		if (fd < 0)
			err = fd;
		else
			ev->rings[c].swin_fd = fd;
	}
	if (err) {
		for (int c = 0; c < ev->ncpus; c++) {
			if (ev->rings[c].swin_fd >= 0)
				close(ev->rings[c].swin_fd);
			ev->rings[c].swin_fd = -1;
			ev->rings[c].swin_id[0] = 0;
		}
		snprintf(ev->swin_why, sizeof(ev->swin_why), "the kernel refused them: %s",
			 strerror(-err));
	}
	ev->swin_on = !err;
}

/*
 * Filter the wakeup events in the kernel on the woken task's pid: a task outside the target
 * then pays the tracepoint and the filter, not a record (wakefilter.c).  Where the kernel
 * refuses the filter, the wakeups stay unfiltered, every task's kept, as where the format has
 * no pid field or ns_last_pid could not be read (ev->wake_why says which).
 */
static void filter_wakeups(struct wc_events *ev, const struct wc_events_opts *o)
{
	size_t size = filter_room();
	uint64_t added = ev->wake_added;
	struct wc_map64 named;
	char *text;

	if (ev->wake_pid_off < 0) {
		snprintf(ev->wake_why, sizeof(ev->wake_why), "no pid field in the wakeup events");
		return;
	}
	if (!o->have_pid_floor) {
		snprintf(ev->wake_why, sizeof(ev->wake_why),
			 "/proc/sys/kernel/ns_last_pid not read");
		return;
	}
	text = malloc(2 * size); /* the targets: scan_process() tracked each thread it opened */
	if (!text || wake_filter_text(ev, o->pid_floor, text, size, &named, text + size)) {
		free(text);
		return;
	}
	for (int k = 0; k < ev->ncpus * ev->nevents; k++) {
		if (!wakeup_kind(ev->events[k % ev->nevents].kind))
			continue;
		if (o->force_no_wake_filter)
			errno = EINVAL;
		if (o->force_no_wake_filter || ioctl(ev->fds[k], PERF_EVENT_IOC_SET_FILTER, text)) {
			/* those set keep theirs: a filter cannot be taken back, and they keep
			 * more than the target's; the note says the wakeups are unfiltered */
			snprintf(ev->wake_why, sizeof(ev->wake_why),
				 "the kernel refused the filter: %s%s", strerror(errno),
				 o->force_no_wake_filter ? " (WCREC_FORCE_NO_WAKE_FILTER)" : "");
			wc_map64_fini(&named);
			free(text);
			return;
		}
	}
	ev->wake_named = named;
	ev->wake_above = o->pid_floor;
	ev->wake_filtered = true;
	ev->wake_no_wrap_check = o->no_wrap_check;
	open_switch_ins(ev, o, text + size);
	ev->wake_period_ns = o->wake_refresh_ms ? o->wake_refresh_ms * 1000000ull : 1000000000ull;
	ev->swin_period_ns = o->switch_in_refresh_ms >= 0
				     ? (uint64_t)o->switch_in_refresh_ms * 1000000ull
			     : ev->wake_period_ns < SWIN_PERIOD_NS ? ev->wake_period_ns
								   : SWIN_PERIOD_NS;
	ev->swin_added = added;
	free(text);
}

int wc_pertask_wake_track(struct wc_events *ev, uint32_t tid, bool gone, uint64_t time_ns)
{
	uint64_t *v;
	int inserted;

	if (!ev->wake_targets.keys && wc_map64_init(&ev->wake_targets))
		return -ENOMEM;
	v = wc_map64_put(&ev->wake_targets, tid, 0, &inserted);
	if (!v)
		return -ENOMEM;
	if (inserted || (*v >> 1) <= time_ns) {
		if (!gone && (inserted || !(*v & 1)))
			ev->wake_added++; /* to be named by the switch-in events (refresh) */
		*v = time_ns << 1 | !gone;
	}
	return 0;
}

int wc_pertask_seen(struct wc_events *ev, uint32_t tid, uint64_t time_ns)
{
	if (!tid || tid == UINT32_MAX ||
	    (ev->wake_targets.keys && wc_map64_get(&ev->wake_targets, tid)))
		return 0;
	wc_pertask_wake_check(ev, tid);
	return wc_pertask_wake_track(ev, tid, false, time_ns);
}

/* The last pid the kernel handed out (/proc/sys/kernel/ns_last_pid).  Return: it, or 0. */
static uint32_t last_pid(void)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "r");
	unsigned long v = 0;

	if (f) {
		if (fscanf(f, "%lu", &v) != 1 || v >= UINT32_MAX)
			v = 0;
		fclose(f);
	}
	return (uint32_t)v;
}

/*
 * Open each ring's new switch-in event, filtered by @text and on, into @swin[] (-1 where none)
 * and its id into @swin_id[] (swap_switch_ins() puts them in place).  Return: 0, or the
 * first negative errno.
 */
static int open_switch_ins_anew(struct wc_events *ev, const char *text, int *swin,
				uint64_t *swin_id)
{
	for (int c = 0; c < ev->ncpus; c++)
		if ((swin[c] = open_switch_in(ev, c, text, true, &swin_id[c])) < 0)
			return swin[c];
	return 0;
}

/*
 * With @err 0, close the old switch-in events, those of @swin[] (open_switch_ins_anew()) now
 * the rings': the old ids stay known (swin_id[1]) for their records not drained yet, which a
 * drain pass reads before the next refresh (drain_loop() in record.c drains, then refreshes);
 * a switch both timed keeps the earlier stamp, the same (on_switch_in()).  Else close the new.
 */
static void swap_switch_ins(struct wc_events *ev, const int *swin, const uint64_t *swin_id, int err)
{
	for (int c = 0; c < ev->ncpus; c++) {
		if (swin[c] < 0)
			continue;
		close(err ? swin[c] : ev->rings[c].swin_fd);
		if (!err) {
			ev->rings[c].swin_fd = swin[c];
			ev->rings[c].swin_id[1] = ev->rings[c].swin_id[0];
			ev->rings[c].swin_id[0] = swin_id[c];
		}
	}
}

/*
 * Replace the switch-in events alone, their filter naming the target's threads made since
 * it was set (wake_filter_text(); the floor stays: the wakeups' filter is untouched).
 * Return: 0, or a negative errno: the old events stay, and no such refresh is tried again.
 */
static int refilter_switch_ins(struct wc_events *ev)
{
	int *swin = malloc((size_t)ev->ncpus * sizeof(*swin));
	uint64_t *swin_id = calloc((size_t)ev->ncpus, sizeof(*swin_id));
	size_t size = filter_room();
	char *text = malloc(2 * size);
	uint64_t added = ev->wake_added;
	struct wc_map64 named = { 0 };
	int err = 0;

	for (int c = 0; swin && c < ev->ncpus; c++)
		swin[c] = -1;
	if (!swin || !swin_id || !text)
		err = -ENOMEM;
	if (!err)
		err = -wake_filter_text(ev, ev->wake_above, text, size, &named, text + size);
	wc_map64_fini(&named);
	if (!err && !text[size])
		err = -ENOSPC; /* no room for the switch-in events' filter */
	if (!err)
		err = open_switch_ins_anew(ev, text + size, swin, swin_id);
	if (swin)
		swap_switch_ins(ev, swin, swin_id, err);
	if (err)
		ev->swin_refresh_failed = true;
	else {
		ev->swin_added = added;
		ev->swin_refreshes++;
	}
	free(text);
	free(swin);
	free(swin_id);
	return err;
}

/*
 * Replace the wakeup events with events whose filter takes the pids above @floor, the
 * target's threads at or below it by name: each new one opened, into its CPU's ring, filtered
 * and enabled before the old one is closed, so that no wakeup goes unrecorded between; the
 * wakeups both wrote are told apart in the drain (drain.c twin()).  Return: 0, or a negative
 * errno: the old events stay, and no refresh is tried again.
 */
static int refilter(struct wc_events *ev, uint32_t floor)
{
	int nfd = ev->ncpus * ev->nevents, err = 0;
	int *fresh = malloc((size_t)nfd * sizeof(*fresh));
	int *swin = malloc((size_t)ev->ncpus * sizeof(*swin));
	uint64_t *swin_id = calloc((size_t)ev->ncpus, sizeof(*swin_id));
	size_t size = filter_room();
	char *text = malloc(2 * size);
	struct wc_map64 named = { 0 };
	uint64_t added = ev->wake_added;

	if (!ev->wake_old_ids)
		ev->wake_old_ids = calloc((size_t)nfd, sizeof(*ev->wake_old_ids));
	for (int c = 0; swin && c < ev->ncpus; c++)
		swin[c] = -1;
	if (!fresh || !text || !ev->wake_old_ids || !swin || !swin_id) {
		err = -ENOMEM;
		goto out;
	}
	err = -wake_filter_text(ev, floor, text, size, &named, text + size);
	if (!err && ev->swin_on && !text[size])
		err = -ENOSPC; /* no room for the switch-in events' filter */
	for (int k = 0; k < nfd; k++)
		fresh[k] = -1;
	/* the events closed at the last refresh: their records are drained by now */
	for (size_t k = 0; k < ev->nwake_old_ids; k++)
		wc_events_id_remove(ev, ev->wake_old_ids[k]);
	ev->nwake_old_ids = 0;
	ev->wake_refresh_tried = true;
	for (int k = 0; !err && k < nfd; k++) {
		int i = k % ev->nevents, c = k / ev->nevents;

		if (!wakeup_kind(ev->events[i].kind))
			continue;
		fresh[k] = wc_events_open_one(ev, &ev->attrs[i], -1, ev->rings[c].cpu);
		if (fresh[k] < 0)
			err = -errno;
		else if ((err = wc_events_id_put(ev, fresh[k], i)) ||
			 (err = -wc_events_ring_attach(ev, c, fresh[k], 0, ev->page)))
			;
		else if (ioctl(fresh[k], PERF_EVENT_IOC_SET_FILTER, text) ||
			 ioctl(fresh[k], PERF_EVENT_IOC_ENABLE, 0))
			err = -errno;
	}
	if (!err && ev->swin_on)
		err = open_switch_ins_anew(ev, text + size, swin, swin_id);
	if (ev->swin_on)
		swap_switch_ins(ev, swin, swin_id, err);
	for (int k = 0; k < nfd; k++) { /* all on: the old off (or, failed, the new) */
		uint64_t id;

		if (fresh[k] < 0)
			continue;
		if (!ioctl(err ? fresh[k] : ev->fds[k], PERF_EVENT_IOC_ID, &id))
			ev->wake_old_ids[ev->nwake_old_ids++] = id; /* forgotten at the next */
		close(err ? fresh[k] : ev->fds[k]);
		if (!err)
			ev->fds[k] = fresh[k];
	}
	if (!err) {
		wc_map64_fini(&ev->wake_named);
		ev->wake_named = named;
		ev->wake_above = floor;
		ev->wake_refreshes++;
		ev->swin_added = added;
	}
out:
	if (err) {
		wc_map64_fini(&named);
		ev->wake_refresh_failed = true;
	}
	free(text);
	free(fresh);
	free(swin);
	free(swin_id);
	return err;
}

/* /proc/sys/kernel/pid_max, read once.  Return: it, or 0. */
static uint32_t pid_max(void)
{
	static uint32_t v;
	FILE *f;

	if (!v && (f = fopen("/proc/sys/kernel/pid_max", "r"))) {
		unsigned long x;

		if (fscanf(f, "%lu", &x) == 1 && x < UINT32_MAX)
			v = (uint32_t)x;
		fclose(f);
	}
	return v;
}

/*
 * Whether the pids may wrap at pid_max before the next check: LAST, the last handed out, is
 * within max(pid_max / 16, twice the pids handed out in the last period) of it.  The filter
 * then takes every pid until a check has seen the wrap and a period has passed since (the
 * floor raised to the first pid read after it): a thread the target makes after the wrap gets
 * a pid at or below the floor, and nothing would name it before the next refresh.
 */
static bool near_wrap(const struct wc_events *ev, uint32_t last)
{
	uint32_t max = pid_max(), made = 0;

	if (!max || last >= max)
		return false;
	if (ev->wake_cand_ns && last >= ev->wake_cand)
		made = last - ev->wake_cand;
	return max - last <= (max / 16 > 2 * made ? max / 16 : 2 * made);
}

int wc_events_refresh_wakeups(struct wc_events *ev)
{
	uint64_t now;
	uint32_t last;
	int err = 0;

	if (!ev->per_task || !ev->wake_filtered || ev->wake_refresh_failed)
		return 0;
	now = mono_now_ns();
	if (now < ev->wake_check_ns && ev->wake_soon) {
		/* a target thread made at or below the floor, not named (wc_pertask_wake_check()):
		 * the pids wrapped sooner than near_wrap() foresaw; take every pid now, the regular
		 * check left as it was (it sees the wrap too, or raises the floor a period on) */
		ev->wake_soon = false;
		return ev->wake_above ? refilter(ev, 0) : 0;
	}
	if (now < ev->wake_check_ns) {
		/* new threads of the target to name as previous tasks: the switch-in events
		 * alone, sooner (a failure is not the wakeups': those refreshes go on) */
		if (ev->swin_on && !ev->swin_refresh_failed && ev->swin_period_ns &&
		    ev->wake_added != ev->swin_added && now >= ev->swin_check_ns) {
			refilter_switch_ins(ev);
			ev->swin_check_ns = now + ev->swin_period_ns;
		}
		return 0;
	}
	ev->wake_soon = false;
	last = last_pid();
	if (!last)
		return 0;
	/* the pids wrapped (they only grow until then): take every pid; since the last check,
	 * or since the floor was read, before the first (the pids of a test's loop wrapped while
	 * wcrec opened its events) */
	if ((ev->wake_cand_ns && last < ev->wake_cand) || last < ev->wake_above) {
		if (ev->wake_above)
			err = refilter(ev, 0);
	} else if (!ev->wake_no_wrap_check && near_wrap(ev, last)) {
		if (ev->wake_above)
			err = refilter(ev, 0);
		ev->wake_near_wrap++;
	} else if (ev->wake_cand_ns && ev->wake_cand != ev->wake_above && !ev->wake_lost) {
		/* every task made by then has been seen forking a period since: its FORK record
		 * (perf_event_fork() in copy_process(), before the task can run) drained */
		err = refilter(ev, ev->wake_cand);
	}
	ev->wake_lost = false;
	ev->wake_cand = last;
	ev->wake_cand_ns = now;
	ev->wake_check_ns = now + ev->wake_period_ns;
	return err;
}

void wc_pertask_wake_check(struct wc_events *ev, uint32_t tid)
{
	if (ev->wake_filtered && tid <= ev->wake_above &&
	    !(ev->wake_named.keys && wc_map64_get(&ev->wake_named, tid))) {
		ev->wake_missed++;
		ev->wake_soon = true; /* wc_events_refresh_wakeups() after this drain pass */
	}
}

/*
 * The wakeup events, per CPU, into the rings the per-task events made: the kernel does not hand
 * a wakeup to the woken task's events where that task is not running (6.18 counts it there but
 * writes no sample: the event opened on a sleeping thread for the waker's CPU counted 100 of
 * 100 wakeups from another process and wrote none), so every CPU's wakeups pass its events,
 * each costing the tracepoint and the filter (filter_wakeups()), the target's a record (no
 * callchain unless --waker-stacks).  Return: 0 or a positive errno.
 */
static int open_wakeups(struct wc_events *ev, const struct wc_events_opts *o, const char **why)
{
	for (int c = 0; c < ev->ncpus; c++) {
		for (int i = 0; i < ev->nevents; i++) {
			int fd, err;

			if (!per_cpu_kind(ev, ev->events[i].kind))
				continue;
			ev->attrs[i].inherit = 0;
			fd = wc_events_open_one(ev, &ev->attrs[i], -1, ev->rings[c].cpu);
			if (fd < 0) {
				err = errno;
				snprintf(ev->why, sizeof(ev->why), "cannot open %s: %s",
					 ev->events[i].name, strerror(err));
				*why = ev->why;
				return err;
			}
			ev->fds[c * ev->nevents + i] = fd;
			err = -wc_events_id_put(ev, fd, i);
			if (!err)
				err = wc_events_ring_attach(ev, c, fd, o->pages, ev->page);
			if (err)
				return err;
		}
	}
	filter_wakeups(ev, o);
	return 0;
}

/*
 * Open the per-task events on the target's threads; where the kernel refuses them (EINVAL,
 * EOPNOTSUPP: an attr per-task events cannot have), fall back to per-CPU events, saying why.
 * Return: 0, or a positive errno (*@why set where there is more to say).
 */
int wc_pertask_open(struct wc_events *ev, const struct wc_events_opts *o, const char **why)
{
	/* the older kernels' retries (wc_events_open_one()) as they were, for a fallback */
	bool no_build_id = ev->no_build_id, no_switch = ev->no_switch_records;
	bool no_clockid = ev->no_clockid, no_user_copy = ev->no_user_copy;
	struct perf_event_attr attrs[WC_MAX_EVENTS];
	int n;

	memcpy(attrs, ev->attrs, sizeof(attrs));
	n = wc_pertask_add(ev, o, o->task_pids, o->ntask_pids);
	if (n > 0 && o->sched && ev->no_switch_records)
		n = -EOPNOTSUPP; /* opened without context-switch records: no switch-ins */
	if (n > 0) {
		int err = open_wakeups(ev, o, why);

		if (!err && o->sched) /* else the median of the switches between target threads */
			wc_probe_in_delays(ev, o);
		/* the context-switch records from the start where the probe saw a switch-in that
		 * no sched_switch showed (out of CPU 1's idle task here), or could not say, and on
		 * every CPU without the switch-in events (the switches from other tasks unseen) */
		for (int c = 0; !err && ev->rec_split && c < ev->ncpus; c++)
			if (!ev->swin_on || !ev->rings[c].probed || ev->rings[c].probe_untraced)
				wc_pertask_records_on(ev, c,
						      !ev->swin_on	    ? REC_NO_SWIN
						      : ev->rings[c].probed ? REC_PROBE
									    : REC_UNPROBED,
						      0, 0);
		return err;
	}
	if (n == 0) {
		*why = "the target has no thread left to record";
		return ESRCH;
	}
	/* refused (EINVAL, EOPNOTSUPP), or too many threads for the descriptors (EMFILE, ENFILE)
	 * or the kernel's memory (ENOMEM): per CPU then */
	if (n != -EINVAL && n != -EOPNOTSUPP && n != -EMFILE && n != -ENFILE && n != -ENOMEM) {
		*why = ev->why[0] ? ev->why : NULL;
		return -n;
	}
	wc_pertask_close(ev);
	ev->per_task = false;
	snprintf(ev->per_cpu_why, sizeof(ev->per_cpu_why), "per-task events refused: %s",
		 strerror(-n));
	ev->no_build_id = no_build_id;
	ev->no_switch_records = no_switch;
	ev->no_clockid = no_clockid;
	ev->no_user_copy = no_user_copy;
	memcpy(ev->attrs, attrs, sizeof(attrs));
	for (int i = 0; i < ev->nevents; i++)
		ev->attrs[i].inherit = 0;
	if (ev->rec_split) /* per CPU, the CPU-wide records come with the side band */
		ev->attrs[ev->rec_track].context_switch = 1;
	ev->rec_split = false;
	return 0;
}

int wc_events_add_tasks(struct wc_events *ev, const struct wc_events_opts *o, const int *pids,
			int n)
{
	return ev->per_task ? wc_pertask_add(ev, o, pids, n) : 0;
}

bool wc_pertask_target_at(const struct wc_events *ev, uint32_t tid, uint64_t time_ns)
{
	const uint64_t *v = ev->wake_targets.keys ? wc_map64_get(&ev->wake_targets, tid) : NULL;

	return v ? (*v & 1) || time_ns <= (*v >> 1) : tid_opened(ev, tid);
}

bool wc_pertask_exited(const struct wc_events *ev, uint32_t tid, uint64_t *time_ns)
{
	const uint64_t *v = ev->wake_targets.keys ? wc_map64_get(&ev->wake_targets, tid) : NULL;

	if (!v || (*v & 1))
		return false;
	*time_ns = *v >> 1;
	return true;
}

int wc_events_track_tasks(struct wc_events *ev, const int *pids, int n)
{
	int err = 0;

	for (int k = 0; ev->per_task && k < n && !err; k++) {
		DIR *dir = open_tasks(pids[k]);
		uint32_t tid;

		while (dir && !err && (tid = next_tid(dir)))
			err = wc_pertask_seen(ev, tid, 0);
		if (dir)
			closedir(dir);
	}
	return err;
}

bool wc_events_per_task(const struct wc_events *ev)
{
	return ev->per_task;
}

uint64_t wc_events_wake_refreshes(const struct wc_events *ev)
{
	return ev->wake_refreshes;
}

uint64_t wc_events_wake_near_wrap(const struct wc_events *ev)
{
	return ev->wake_near_wrap;
}

uint64_t wc_events_switch_in_refreshes(const struct wc_events *ev)
{
	return ev->swin_refreshes;
}

uint64_t wc_events_wake_missed(const struct wc_events *ev)
{
	return ev->wake_missed;
}

char *wc_events_records_text(const struct wc_events *ev)
{
	/* a CPU's part: under 160 bytes with an errno's text */
	size_t len = 0, size = 96 + (size_t)ev->ncpus * 192;
	char *buf;

	if (!ev->rec_split || !(buf = malloc(size)))
		return NULL;
	buf[0] = 0;
	for (int c = 0; c < ev->ncpus && len < size; c++) {
		const struct ring *r = &ev->rings[c];
		const char *sep = c ? "; " : "";
		int n;

		if (!r->rec_on)
			n = snprintf(buf + len, size - len, "%sCPU %d off", sep, r->cpu);
		else if (r->rec_why == REC_UNTRACED || r->rec_why == REC_EXIT)
			n = snprintf(buf + len, size - len,
				     "%sCPU %d from %" PRIu64 ".%06" PRIu64 " s (thread %" PRIu32
				     " %s)%s%s",
				     sep, r->cpu, r->rec_from_ns / 1000000000,
				     r->rec_from_ns % 1000000000 / 1000, r->rec_tid,
				     r->rec_why == REC_EXIT
					     ? "switched in after an exiting thread's last switch"
					     : "switched out with no switch-in seen",
				     r->rec_errno ? ", not all turned on: " : "",
				     r->rec_errno ? strerror(r->rec_errno) : "");
		else
			n = snprintf(buf + len, size - len, "%sCPU %d from the start (%s%s)", sep,
				     r->cpu,
				     r->rec_why == REC_PROBE ? "the probe saw a switch-in untraced"
				     : r->rec_why == REC_NO_SWIN ? "no switch-in events: "
								 : "not probed",
				     r->rec_why != REC_NO_SWIN ? ""
				     : ev->swin_why[0]	       ? ev->swin_why
							       : "the wakeups unfiltered");
		if (n < 0)
			break;
		len += (size_t)n;
	}
	if (len < size)
		snprintf(buf + len, size - len,
			 "; %" PRIu64 " switch-ins taken from sched_switch events", ev->direct_ins);
	return buf;
}
