/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * events.c - perf_event_open set-up, and the ring-buffer read protocol of
 * tools/perf (read data_head with acquire, copy records out, store data_tail with release).
 */
#include "events.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "recorder/carry.h"
#include "recorder/events-priv.h"
#include "recorder/metadata.h"
#include "recorder/tracefs.h"

static int perf_event_open(struct perf_event_attr *attr, int pid, int cpu, int group,
			   unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

static int add_event(struct wc_events *ev, uint32_t kind, const char *name, uint32_t type,
		     uint64_t config, uint64_t sample_type)
{
	struct wc_event *e = &ev->events[ev->nevents];
	struct perf_event_attr *a = &ev->attrs[ev->nevents];

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->sample_type = sample_type;
	a->sample_period = 1;
	a->disabled = 1;
	a->sample_id_all = 1;
	a->watermark = 1;
	e->event_id = (uint32_t)ev->nevents;
	e->kind = kind;
	e->sample_type = sample_type;
	e->attr = a;
	snprintf(e->name, sizeof(e->name), "%s", name);
	return ev->nevents++;
}

static int add_tracepoint(struct wc_events *ev, const struct wc_events_opts *o, uint32_t kind,
			  const char *tp, bool stacks)
{
	uint64_t st = BASE_SAMPLE_TYPE | PERF_SAMPLE_RAW;
	char name[64];
	int id, i;

	id = wc_tracefs_event_id(o->tracefs, "sched", tp);
	if (id < 0)
		return id;
	if (stacks)
		st |= PERF_SAMPLE_CALLCHAIN;
	snprintf(name, sizeof(name), "sched:%s", tp);
	i = add_event(ev, kind, name, PERF_TYPE_TRACEPOINT, (uint64_t)id, st);
	snprintf(ev->events[i].system, sizeof(ev->events[i].system), "sched");
	snprintf(ev->events[i].tp_name, sizeof(ev->events[i].tp_name), "%s", tp);
	return i;
}

static void id_insert(struct id_slot *ids, size_t nslots, uint64_t id, int event)
{
	size_t mask = nslots - 1;

	for (size_t i = id & mask;; i = (i + 1) & mask) {
		if (!ids[i].id || ids[i].id == id) {
			ids[i].id = id;
			ids[i].event = event;
			return;
		}
	}
}

void wc_events_id_remove(struct wc_events *ev, uint64_t id)
{
	size_t mask = ev->nids_slots - 1, j, k;

	for (j = id & mask; ev->ids[j].id != id; j = (j + 1) & mask)
		if (!ev->ids[j].id)
			return;
	/* backward-shift deletion: each later slot of the probe run that may move to the hole
	 * (its home not cyclically in (hole, slot]) moves there, until an empty slot */
	for (k = (j + 1) & mask; ev->ids[k].id; k = (k + 1) & mask) {
		size_t home = ev->ids[k].id & mask;

		if (j <= k ? home > j && home <= k : home > j || home <= k)
			continue;
		ev->ids[j] = ev->ids[k];
		j = k;
	}
	ev->ids[j] = (struct id_slot){ 0, 0 };
	ev->nids--;
}

int wc_events_id_put(struct wc_events *ev, int fd, int event)
{
	uint64_t id;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id))
		return -errno;
	if ((ev->nids + 1) * 2 > ev->nids_slots) { /* at most half full */
		size_t n = ev->nids_slots * 2;
		struct id_slot *t = calloc(n, sizeof(*t));

		if (!t)
			return -ENOMEM;
		for (size_t i = 0; i < ev->nids_slots; i++)
			if (ev->ids[i].id)
				id_insert(t, n, ev->ids[i].id, ev->ids[i].event);
		free(ev->ids);
		ev->ids = t;
		ev->nids_slots = n;
	}
	if (id_get(ev, id) < 0)
		ev->nids++;
	id_insert(ev->ids, ev->nids_slots, id, event);
	return 0;
}

/*
 * Open one event on one CPU, retrying without what older kernels lack, newest first:
 * build-ids in MMAP2 (Linux 5.12), context-switch records (4.3), use_clockid (4.1), user
 * registers and stack copies (3.7).
 */
int wc_events_open_one(struct wc_events *ev, struct perf_event_attr *a, int pid, int cpu)
{
	int fd;

	for (;;) {
		if (ev->no_clockid) {
			a->use_clockid = 0;
			a->clockid = 0;
		}
		if (ev->no_build_id)
			a->build_id = 0;
		if (ev->no_switch_records)
			a->context_switch = 0;
		if (ev->no_user_copy) {
			a->sample_type &=
				~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
			a->sample_regs_user = 0;
			a->sample_stack_user = 0;
		}
		fd = perf_event_open(a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0 || errno != EINVAL)
			return fd;
		if (a->build_id && !ev->no_build_id)
			ev->no_build_id = true;
		else if (a->context_switch && !ev->no_switch_records)
			ev->no_switch_records = true;
		else if (a->use_clockid && !ev->no_clockid)
			ev->no_clockid = true;
		else if (a->sample_stack_user && !ev->no_user_copy)
			ev->no_user_copy = true;
		else
			return -1;
	}
}

/*
 * Does the kernel write context-switch records (attr.context_switch, Linux 4.3) for a
 * CPU-wide event on @cpu?  They give the switch-ins whose sched_switch the kernel drops
 * (drain.c), which sched_stat_runtime events would otherwise have to place.
 */
static bool have_switch_records(int cpu)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.disabled = 1,
		.sample_id_all = 1,
		.context_switch = 1,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
	};
	int fd = perf_event_open(&a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return errno != EINVAL; /* another error comes again, and is reported, later */
	close(fd);
	return true;
}

static const char *open_error(struct wc_events *ev, const char *name, int err)
{
	if (err == EACCES || err == EPERM)
		snprintf(ev->why, sizeof(ev->why),
			 "cannot open %s: %s: run as root, or give CAP_PERFMON (CAP_SYS_ADMIN "
			 "before Linux 5.8), or lower /proc/sys/kernel/perf_event_paranoid "
			 "(-1 for system-wide tracepoints)",
			 name, strerror(err));
	else if ((err == ENOENT || err == EOPNOTSUPP) && strcmp(name, "cycles") == 0)
		snprintf(ev->why, sizeof(ev->why),
			 "cannot open cycles: %s: this machine has no hardware cycles event "
			 "(a VM without a virtual PMU?); use -e cpu-clock",
			 strerror(err));
	else
		snprintf(ev->why, sizeof(ev->why), "cannot open %s: %s", name, strerror(err));
	return ev->why;
}

/* The sampling events of -e, by enum wc_sample_event (not WC_SAMPLE_DEFAULT). */
static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} sample_events[] = {
	[WC_SAMPLE_CYCLES] = { "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	[WC_SAMPLE_CPU_CLOCK] = { "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	[WC_SAMPLE_TASK_CLOCK] = { "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
};

int wc_events_sample_parse(const char *name)
{
	for (int i = WC_SAMPLE_CYCLES; i <= WC_SAMPLE_TASK_CLOCK; i++)
		if (!strcmp(name, sample_events[i].name))
			return i;
	return -EINVAL;
}

/* The sampling event: -e's, or cycles where the PMU has it, else cpu-clock.  Return: its index. */
static int choose_sample_event(struct wc_events *ev, const struct wc_events_opts *o)
{
	int e = o->sample_event ? o->sample_event : WC_SAMPLE_CYCLES;
	uint64_t st = BASE_SAMPLE_TYPE | (o->callchains ? PERF_SAMPLE_CALLCHAIN : 0);
	int i = add_event(ev, WC_EVENT_SAMPLE, sample_events[e].name, sample_events[e].type,
			  sample_events[e].config, st);

	ev->attrs[i].freq = 1;
	ev->attrs[i].sample_freq = o->freq_hz;
	if (!o->sample_event) {
		int fd = o->force_no_cycles ? -1
					    : perf_event_open(&ev->attrs[i], -1, o->cpus[0], -1, 0);

		if (fd >= 0) {
			close(fd);
		} else {
			ev->attrs[i].type = PERF_TYPE_SOFTWARE;
			ev->attrs[i].config = PERF_COUNT_SW_CPU_CLOCK;
			snprintf(ev->events[i].name, sizeof(ev->events[i].name), "cpu-clock");
			ev->cycles_fallback = true;
		}
	}
	return i;
}

/* sched_stat_runtime where asked (struct wc_events_opts.runtime).  Return: 0 or ENOENT. */
static int choose_runtime(struct wc_events *ev, const struct wc_events_opts *o, const char **why)
{
	unsigned off, size;

	ev->rt_pid_off = -1;
	if ((o->runtime > 1 || (o->runtime == 1 && ev->no_switch_records)) &&
	    (o->force_no_runtime ||
	     add_tracepoint(ev, o, WC_EVENT_RUNTIME, "sched_stat_runtime", false) < 0)) {
		if (o->runtime > 1) {
			*why = "this kernel has no sched:sched_stat_runtime";
			return ENOENT;
		}
		ev->no_runtime = true;
	}
	/* where drain.c finds whose runtime an event updates */
	if (!ev->no_runtime &&
	    !wc_tracefs_field(o->tracefs, "sched", "sched_stat_runtime", "pid", &off, &size) &&
	    size == 4 && off < 4096)
		ev->rt_pid_off = (int)off;
	return 0;
}

/*
 * The scheduler tracepoints: sched_switch, the wakeup events of --wakeup-event, and those
 * asked for.  *@track is set to sched_switch's index where it is still -1.
 * Return: 0, or a positive errno with *@why set.
 */
static int choose_sched_events(struct wc_events *ev, const struct wc_events_opts *o, int *track,
			       const char **why)
{
	int i = add_tracepoint(ev, o, WC_EVENT_SWITCH, "sched_switch", o->callchains);
	bool want_waking = o->wakeup != WC_WAKEUP_WAKEUP;
	bool want_wakeup = o->wakeup == WC_WAKEUP_WAKEUP || o->wakeup == WC_WAKEUP_BOTH;
	bool ws = o->callchains && o->waker_stacks;
	bool have_waking = false;

	if (i < 0) {
		*why = open_error(ev, "sched:sched_switch", -i);
		return -i;
	}
	if (*track < 0)
		*track = i;
	if (want_waking) {
		have_waking = add_tracepoint(ev, o, WC_EVENT_WAKING, "sched_waking", ws) >= 0;
		if (!have_waking && o->wakeup != WC_WAKEUP_AUTO) {
			*why = "this kernel has no sched:sched_waking";
			return ENOENT;
		}
		if (!have_waking)
			want_wakeup = true; /* kernels before 4.3 */
	}
	if (want_wakeup && add_tracepoint(ev, o, WC_EVENT_WAKEUP, "sched_wakeup", ws) < 0) {
		*why = "this kernel has no sched:sched_wakeup";
		return ENOENT;
	}
	add_tracepoint(ev, o, WC_EVENT_WAKEUP_NEW, "sched_wakeup_new", ws);
	if (o->migrations &&
	    add_tracepoint(ev, o, WC_EVENT_MIGRATE, "sched_migrate_task", false) < 0) {
		*why = "this kernel has no sched:sched_migrate_task";
		return ENOENT;
	}
	snprintf(ev->wakeup_used, sizeof(ev->wakeup_used), "%s%s%s",
		 have_waking ? "sched_waking" : "", have_waking && want_wakeup ? "," : "",
		 want_wakeup ? "sched_wakeup" : "");
	return choose_runtime(ev, o, why);
}

/*
 * The attrs' common part: the clock, the wakeup watermark, the callchains and user stack copies
 * asked for, and the side-band records on the event @track.
 */
static void build_attrs(struct wc_events *ev, const struct wc_events_opts *o, int track, long page)
{
	for (int i = 0; i < ev->nevents; i++) {
		struct perf_event_attr *a = &ev->attrs[i];

		a->use_clockid = 1;
		a->clockid = CLOCK_MONOTONIC;
		a->inherit = ev->per_task; /* the threads and children the target creates */
		a->wakeup_watermark = (uint32_t)((uint64_t)o->pages * (uint64_t)page / 4);
		if (!o->kernel_stacks)
			a->exclude_callchain_kernel = 1;
		if (!o->user_stacks || (o->dwarf && o->user_copy))
			a->exclude_callchain_user =
				1; /* -g dwarf: as perf's, the user part by CFI */
		if (o->user_stacks && o->user_copy && (a->sample_type & PERF_SAMPLE_CALLCHAIN)) {
			a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			a->sample_regs_user = WC_UNWIND_REGS_MASK;
			a->sample_stack_user = o->user_copy;
		}
		if (i == track) { /* side-band records come with this event */
			a->context_switch = o->sched && !ev->no_switch_records;
			a->mmap = 1;
			a->mmap2 = 1;
			a->comm = 1;
			a->comm_exec = 1;
			a->task = 1;
			a->build_id = 1;
		}
	}
	/* per-task events: their context-switch records in a dummy event of their own, which
	 * pertask.c enables on a CPU only where they are needed (wc_pertask_records_on()) */
	ev->rec_split = ev->per_task && track >= 0 && ev->attrs[track].context_switch &&
			!o->force_switch_records;
	if (ev->rec_split) {
		struct perf_event_attr *a = &ev->rec_attr;

		ev->attrs[track].context_switch = 0;
		ev->rec_track = track;
		memset(a, 0, sizeof(*a));
		a->size = sizeof(*a);
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_DUMMY; /* Linux 3.12, before context_switch's 4.3 */
		a->sample_type = BASE_SAMPLE_TYPE;
		a->sample_period = 1;
		a->disabled = 1;
		a->sample_id_all = 1;
		a->watermark = 1;
		a->wakeup_watermark = ev->attrs[track].wakeup_watermark;
		a->use_clockid = 1;
		a->clockid = CLOCK_MONOTONIC;
		a->inherit = 1;
		a->context_switch = 1;
	}
}

/* The drain's state: descriptors, rings, ids, stack tables, unwinder.  Return: 0 or ENOMEM. */
static int alloc_state(struct wc_events *ev, const struct wc_events_opts *o)
{
	bool unwind = o->user_stacks && o->user_copy && o->callchains;

	ev->fds = malloc(sizeof(int) * (size_t)(ev->ncpus * ev->nevents));
	ev->rings = calloc((size_t)ev->ncpus, sizeof(*ev->rings));
	ev->pfds = calloc((size_t)ev->ncpus, sizeof(*ev->pfds));
	ev->nids_slots = 64;
	while (ev->nids_slots < (size_t)(ev->ncpus * ev->nevents) * 2)
		ev->nids_slots *= 2;
	ev->ids = calloc(ev->nids_slots, sizeof(*ev->ids));
	ev->stacks = wc_stack_table_new(0);
	ev->payloads = wc_stack_table_new(0);
	ev->copy = malloc(1 << 16);
	ev->bids = wc_bid_cache_new();
	ev->mended =
		malloc(((1 << 16) / 8 + WC_UNWIND_MAX_FRAMES + 2) * 8); /* a record is < 64 KiB */
	if (unwind) {
		ev->unwind = wc_unwind_new();
		ev->user_copy = o->user_copy;
		ev->dwarf = o->dwarf;
	}
	if (!ev->fds || !ev->rings || !ev->pfds || !ev->ids || !ev->stacks || !ev->payloads ||
	    !ev->copy || !ev->bids || !ev->mended || (unwind && !ev->unwind))
		return ENOMEM;
	for (int k = 0; k < ev->ncpus * ev->nevents; k++)
		ev->fds[k] = -1;
	for (int c = 0; c < ev->ncpus; c++)
		ev->rings[c] = (struct ring){ .cpu = o->cpus[c],
					      .fd = -1,
					      .switch_prev = -1,
					      .switch_next = -1,
					      .curr = -1,
					      .curr_before = -1 };
	return 0;
}

int wc_events_ring_attach(struct wc_events *ev, int c, int fd, unsigned pages, long page)
{
	struct ring *r = &ev->rings[c];
	size_t len = (size_t)(pages + 1) * (size_t)page;
	void *p;

	if (r->fd >= 0)
		return ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) ? errno : 0;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		int err = errno;

		snprintf(ev->why, sizeof(ev->why),
			 "cannot map %u pages of ring buffer on CPU %d: %s "
			 "(see -m and /proc/sys/kernel/perf_event_mlock_kb)",
			 pages, r->cpu, strerror(err));
		return err;
	}
	r->fd = fd;
	r->meta = p;
	r->data = (uint8_t *)p + page;
	r->size = (uint64_t)pages * (uint64_t)page;
	ev->pfds[c].fd = r->fd;
	ev->pfds[c].events = POLLIN;
	return 0;
}

/*
 * Open every event on the CPU of ring @c, the first one's ring buffer mapped and the others
 * writing into it.  Return: 0, or a positive errno (*@why set where there is more to say).
 */
static int open_cpu(struct wc_events *ev, const struct wc_events_opts *o, int c, long page,
		    const char **why)
{
	for (int i = 0; i < ev->nevents; i++) {
		int fd = wc_events_open_one(ev, &ev->attrs[i], -1, ev->rings[c].cpu), err;

		if (fd < 0) {
			err = errno;
			*why = open_error(ev, ev->events[i].name, err);
			return err;
		}
		ev->fds[c * ev->nevents + i] = fd;
		err = -wc_events_id_put(ev, fd, i);
		if (!err)
			err = wc_events_ring_attach(ev, c, fd, o->pages, page);
		if (err) {
			*why = ev->why[0] ? ev->why : NULL;
			return err;
		}
	}
	return 0;
}

struct wc_events *wc_events_open(const struct wc_events_opts *o, const char **why)
{
	struct wc_events *ev = calloc(1, sizeof(*ev));
	long page = sysconf(_SC_PAGESIZE);
	int err = 0, track = -1;

	*why = NULL;
	if (!ev)
		return NULL;
	ev->ncpus = o->ncpus;
	ev->page = page;
	ev->no_clockid = o->force_no_clockid;
	ev->no_build_id = o->force_no_build_id;
	ev->switch_records_off = o->sched && o->no_switch_records;
	ev->no_switch_records = o->sched && (o->no_switch_records || o->force_no_switch_records ||
					     !have_switch_records(o->cpus[0]));
	if (o->samples)
		track = choose_sample_event(ev, o);
	if (o->sched)
		err = choose_sched_events(ev, o, &track, why);
	if (!err && track < 0) {
		*why = "nothing to record: both --no-samples and --no-sched";
		err = EINVAL;
	}
	if (err)
		goto out_free;
	wc_pertask_choose(ev, o);
	for (int i = 0; ev->samples_per_cpu && i < ev->nevents; i++)
		if (ev->events[i].kind == WC_EVENT_SWITCH) /* per task: the side band with it */
			track = i;
	build_attrs(ev, o, track, page);
	err = alloc_state(ev, o);
	if (!err && ev->per_task)
		err = wc_pertask_open(ev, o, why);
	for (int c = 0; !err && !ev->per_task && c < ev->ncpus; c++)
		err = open_cpu(ev, o, c, page, why);
	if (err)
		goto out_free;
	ev->clockid = ev->no_clockid ? -1 : CLOCK_MONOTONIC;
	return ev;

out_free:
	if (*why && *why >= ev->why && *why < ev->why + sizeof(ev->why)) { /* freed below */
		static char failure[sizeof(ev->why)];

		snprintf(failure, sizeof(failure), "%s", *why);
		*why = failure;
	}
	wc_events_free(ev);
	errno = err ? err : EINVAL;
	return NULL;
}

int wc_events_clockid(const struct wc_events *ev)
{
	return ev->clockid;
}

const char *wc_events_sample_name(const struct wc_events *ev)
{
	for (int i = 0; i < ev->nevents; i++)
		if (ev->events[i].kind == WC_EVENT_SAMPLE)
			return ev->events[i].name;
	return NULL;
}

int wc_events_write_meta(struct wc_events *ev, struct wc_writer *w)
{
	int err = 0;

	for (int i = 0; i < ev->nevents && !err; i++) {
		struct wc_event *e = &ev->events[i];
		uint32_t name_len = (uint32_t)strlen(e->name) + 1;
		uint32_t size =
			WC_ALIGN8(sizeof(struct wc_rec_event_attr) + sizeof(*e->attr) + name_len);
		struct wc_rec_event_attr *rec = calloc(1, size);

		if (!rec)
			return -ENOMEM;
		rec->h = (struct wc_rec_header){ .size = size, .type = WC_REC_EVENT_ATTR };
		rec->event_id = e->event_id;
		rec->kind = e->kind;
		rec->attr_size = sizeof(*e->attr);
		rec->name_len = name_len;
		memcpy(rec->data, e->attr, sizeof(*e->attr));
		memcpy(rec->data + sizeof(*e->attr), e->name, name_len);
		err = wc_writer_add(w, rec);
		free(rec);
	}
	return err;
}

int wc_events_write_formats(struct wc_events *ev, struct wc_writer *w, const char *tracefs)
{
	int err = 0;

	for (int i = 0; i < ev->nevents && !err; i++)
		if (ev->events[i].system[0])
			err = wc_meta_write_tp_format(w, tracefs, ev->events[i].system,
						      ev->events[i].tp_name);
	if (!err && ev->wakeup_used[0])
		err = wc_meta_write_note(w, "wakeup_event", ev->wakeup_used);
	if (!err) { /* "per-task" or "per-cpu" first: wcanalyze reads the word up to ':' */
		char note[sizeof(ev->per_cpu_why) + sizeof(ev->wake_why) + 160], wake[256] = "";

		if (ev->per_task && ev->wake_filtered)
			snprintf(wake, sizeof(wake),
				 "; wakeups filtered in the kernel: of the threads listed and of "
				 "pids above %" PRIu32 "%s",
				 ev->wake_above,
				 ev->wake_extra ? " (and of other pids between theirs)" : "");
		else if (ev->per_task && ev->wake_why[0])
			snprintf(wake, sizeof(wake), "; wakeups unfiltered: %s", ev->wake_why);
		snprintf(note, sizeof(note), "%s: %s%s", ev->per_task ? "per-task" : "per-cpu",
			 ev->per_task	      ? "the target's threads and what they create"
			 : ev->per_cpu_why[0] ? ev->per_cpu_why
					      : "every task",
			 wake);
		err = wc_meta_write_note(w, "events", note);
	}
	for (int c = 0; !err && ev->per_task && c < ev->ncpus; c++) { /* probe.c */
		char note[96];

		snprintf(note, sizeof(note), "CPU %d: %u ns from idle, %u ns from another process",
			 ev->rings[c].cpu, ev->rings[c].probe_idle_ns, ev->rings[c].probe_task_ns);
		err = wc_meta_write_note(w, "switch_in_delay", note);
	}
	if (!err && ev->no_clockid)
		err = wc_meta_write_note(w, "fallback", "no use_clockid: times on perf's clock");
	if (!err && ev->no_build_id)
		err = wc_meta_write_note(w, "fallback", "no build-id in MMAP2 records");
	if (!err && ev->cycles_fallback)
		err = wc_meta_write_note(w, "fallback", "no PMU cycles: sampling on cpu-clock");
	if (!err && ev->switch_records_off)
		err = wc_meta_write_note(
			w, "switch_records",
			"off (--no-switch-records): the "
			"switch-ins the kernel leaves untraced are placed by sched_stat_runtime "
			"where recorded, else inferred");
	else if (!err && ev->no_switch_records && ev->wakeup_used[0])
		err = wc_meta_write_note(
			w, "fallback",
			"no context-switch records: the switch-ins "
			"the kernel leaves untraced are placed by sched_stat_runtime where "
			"recorded, else inferred");
	if (!err && ev->no_runtime)
		err = wc_meta_write_note(w, "fallback",
					 "no sched_stat_runtime: untraced "
					 "switch-ins are inferred");
	if (!err && ev->unwind && ev->no_user_copy)
		err = wc_meta_write_note(w, "fallback",
					 "no user registers and stack copies: user "
					 "callchains by frame pointers alone");
	else if (!err && ev->unwind) {
		char note[128];

		if (ev->dwarf)
			snprintf(note, sizeof(note),
				 "dwarf: unwound by CFI from a %u-byte copy of "
				 "the user stack",
				 ev->user_copy);
		else
			snprintf(note, sizeof(note),
				 "frame pointers, the top mended by CFI from a "
				 "%u-byte copy of the user stack",
				 ev->user_copy);
		err = wc_meta_write_note(w, "user_stacks", note);
	}
	return err;
}

int wc_events_write_end_notes(struct wc_events *ev, struct wc_writer *w)
{
	struct wc_unwind_stats u;
	char note[384];

	int len;

	char *recs = wc_events_records_text(ev);

	if (recs) {
		len = wc_meta_write_note(w, "switch_records_cpus", recs);
		free(recs);
		if (len)
			return len;
	}
	wc_events_unwind_stats(ev, &u);
	if (!u.stacks && !u.bad_copies && !u.wrong_abi)
		return 0;
	len = snprintf(note, sizeof(note),
		       "%" PRIu64 " callchains, %.1f%% from the cache: %" PRIu64
		       " spliced, %" PRIu64 " complete, %" PRIu64 " truncated, %" PRIu64
		       " failed, %" PRIu64 " skipped",
		       u.stacks, u.stacks ? 100.0 * (double)u.hits / (double)u.stacks : 0.0,
		       u.by_result[WC_UNWIND_SPLICED], u.by_result[WC_UNWIND_COMPLETE],
		       u.by_result[WC_UNWIND_TRUNCATED], u.by_result[WC_UNWIND_FAILED],
		       u.by_result[WC_UNWIND_SKIPPED]);
	if (u.changed || u.bad_copies || u.wrong_abi) /* refusals, rare: said only when seen */
		snprintf(note + len, sizeof(note) - (size_t)len,
			 "; not unwound: %" PRIu64 " files changed since mapped, %" PRIu64
			 " bad stack copies, %" PRIu64 " of another ABI",
			 u.changed, u.bad_copies, u.wrong_abi);
	return wc_meta_write_note(w, "user_stacks_mended", note);
}

bool wc_events_fallback(const struct wc_events *ev, const char *what)
{
	if (!strcmp(what, "clockid"))
		return ev->no_clockid;
	if (!strcmp(what, "build-id"))
		return ev->no_build_id;
	if (!strcmp(what, "cycles"))
		return ev->cycles_fallback;
	if (!strcmp(what, "runtime"))
		return ev->no_runtime;
	if (!strcmp(what, "switch"))
		return ev->no_switch_records && !ev->switch_records_off;
	if (!strcmp(what, "user-copy"))
		return ev->no_user_copy && ev->unwind;
	return false;
}

int wc_events_target_add(struct wc_events *ev, uint32_t pid)
{
	if (!pid || (ev->targets_cap && target_has(ev, pid)))
		return 0;
	if ((ev->ntargets + 1) * 2 > ev->targets_cap) { /* at most half full */
		size_t cap = ev->targets_cap ? ev->targets_cap * 2 : 64;
		uint32_t *old = ev->targets, *t = calloc(cap, sizeof(*t));
		size_t ocap = ev->targets_cap;

		if (!t)
			return -ENOMEM;
		ev->targets = t;
		ev->targets_cap = cap;
		ev->ntargets = 0;
		for (size_t i = 0; i < ocap; i++)
			if (old[i])
				wc_events_target_add(ev, old[i]);
		free(old);
	}
	for (size_t i = (pid * 0x9e3779b1u) & (ev->targets_cap - 1);;
	     i = (i + 1) & (ev->targets_cap - 1)) {
		if (!ev->targets[i]) {
			ev->targets[i] = pid;
			ev->ntargets++;
			return 0;
		}
	}
}

int wc_events_set_targets(struct wc_events *ev, const int *pids, int n)
{
	for (int i = 0; i < n; i++) {
		int err = wc_events_target_add(ev, (uint32_t)pids[i]);

		if (err)
			return err;
	}
	return 0;
}

void wc_events_unwind_stats(const struct wc_events *ev, struct wc_unwind_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	if (ev->unwind && !ev->no_user_copy)
		wc_unwind_stats(ev->unwind, stats);
	stats->bad_copies = ev->bad_copies;
	stats->wrong_abi = ev->wrong_abi;
}

int wc_events_enable(struct wc_events *ev, bool on)
{
	unsigned long req = on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;

	ev->enabled = on;
	for (int k = 0; k < ev->ncpus * ev->nevents; k++)
		if (ev->fds[k] >= 0 && ioctl(ev->fds[k], req, 0))
			return -errno;
	/* per task: the switch-in events and the context-switch records (where a ring has them
	 * on: pertask.c) before the target's own events, so that no switch into a target
	 * thread goes unseen once its own events are on (drain.c unseen_switch_in()) */
	for (int c = 0; ev->swin_on && c < ev->ncpus; c++)
		if (ioctl(ev->rings[c].swin_fd, req, 0))
			return -errno;
	for (size_t k = 0; k < ev->nrec_fds; k++)
		if ((!on || ev->rings[ev->rec_fd_ring[k]].rec_on) && ioctl(ev->rec_fds[k], req, 0))
			return -errno;
	/* a per-task event's ioctl reaches the events its task's children inherited
	 * (perf_event_for_each_child() in kernel/events/core.c) */
	for (size_t k = 0; k < ev->ntask_fds; k++)
		if (ioctl(ev->task_fds[k], req, 0))
			return -errno;
	if (on) {
		ev->started = true;
		ev->enabled_ns = ev->no_clockid ? 0 : mono_now_ns();
	}
	return 0;
}

int wc_events_poll(struct wc_events *ev, int timeout_ms)
{
	int n = poll(ev->pfds, (nfds_t)ev->ncpus, timeout_ms);

	if (n < 0)
		return -errno;
	for (int c = 0; ev->per_task && c < ev->ncpus; c++)
		if (ev->pfds[c].revents & POLLHUP)
			wc_pertask_hung_up(ev, c);
	return n;
}

int wc_events_new_file(struct wc_events *ev)
{
	struct wc_stack_table *stacks = wc_stack_table_new(0), *payloads = wc_stack_table_new(0);

	if (!stacks || !payloads) {
		wc_stack_table_free(stacks);
		wc_stack_table_free(payloads);
		return -ENOMEM;
	}
	wc_stack_table_free(ev->stacks);
	wc_stack_table_free(ev->payloads);
	ev->stacks = stacks;
	ev->payloads = payloads;
	return 0;
}

void wc_events_free(struct wc_events *ev)
{
	long page = sysconf(_SC_PAGESIZE);

	if (!ev)
		return;
	wc_events_spill_stop(ev);
	for (int c = 0; ev->rings && c < ev->ncpus; c++) {
		if (ev->rings[c].meta)
			munmap(ev->rings[c].meta, ev->rings[c].size + (size_t)page);
		free(ev->rings[c].spill);
	}
	for (int k = 0; ev->fds && k < ev->ncpus * ev->nevents; k++)
		if (ev->fds[k] >= 0)
			close(ev->fds[k]);
	for (size_t k = 0; k < ev->ntask_fds; k++)
		close(ev->task_fds[k]);
	for (int c = 0; ev->swin_on && c < ev->ncpus; c++)
		close(ev->rings[c].swin_fd);
	for (size_t k = 0; k < ev->nrec_fds; k++)
		close(ev->rec_fds[k]);
	free(ev->rec_fds);
	wc_map64_fini(&ev->rec_ids);
	free(ev->rec_fd_ring);
	free(ev->pend_in);
	free(ev->task_fds);
	free(ev->task_fd_ring);
	wc_map64_fini(&ev->task_tids);
	wc_map64_fini(&ev->wake_named);
	wc_map64_fini(&ev->wake_targets);
	free(ev->sets);
	free(ev->fds);
	free(ev->rings);
	free(ev->pfds);
	free(ev->ids);
	free(ev->copy);
	free(ev->deferred);
	free(ev->deferred_spare);
	free(ev->wake_old_ids);
	wc_bid_cache_free(ev->bids);
	free(ev->mended);
	free(ev->targets);
	wc_unwind_free(ev->unwind);
	wc_stack_table_free(ev->stacks);
	wc_stack_table_free(ev->payloads);
	wc_carry_free(ev->carry);
	free(ev);
}
