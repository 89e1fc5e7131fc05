/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * probe.c - how long after a switch the switch-in record of per-task events comes, per CPU:
 * the delay that places a target's switch-in whose sched_switch fired in the context of a task
 * that is not the target's (drain.c on_task_switch()).
 *
 * Between the sched_switch and that record lie the context switch (the address-space switch,
 * with its mitigations) and the scheduling in of the task's own events (kernel/sched/core.c
 * finish_task_switch(), perf_event_task_sched_in() in kernel/events/core.c): this probe found
 * 1.5 to 3.4 us from the idle task on this project's VMs and 4.3 to 5.4 from another process;
 * the switches between two target threads the recording times exactly.  So two probe
 * processes are run on each CPU for a few milliseconds before the recording starts: P, with
 * the recording's own events (the same work at its switch-in), sleeps 100 us at a time, so that
 * the CPU idles and switches from idle into it, then passes a token back and forth with Q
 * through pipes, so that it is switched in from another process; a CPU-wide sched_switch
 * without callchain, on the probe's CPU and only while it runs, gives the switches' times.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "recorder/events-priv.h"
#include "recorder/sample.h"
#include "recorder/tracefs.h"

#define PROBE_ROUNDS 48
#define PROBE_PAGES  256 /* 1 MiB with 4 KiB pages: a probe's records never wrap */

/* The pipes of a probe: go (the start), P to Q and Q to P. */
struct probe_pipes {
	int go[2], pq[2], qp[2];
};

/*
 * A child pinned to @cpu, with only the pipe ends it uses: waits for a byte on go (EOF: the
 * probe was called off), then as P (@is_p) naps and passes the token, or as Q returns it.
 * Return: its pid, or -1.
 */
static pid_t spawn(int cpu, const struct probe_pipes *pp, bool is_p)
{
	struct timespec nap = { 0, 100000 };
	pid_t pid = fork();
	cpu_set_t set;
	char c = 0;

	if (pid)
		return pid;
	close(pp->go[1]);
	close(is_p ? pp->pq[0] : pp->pq[1]);
	close(is_p ? pp->qp[1] : pp->qp[0]);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (read(pp->go[0], &c, 1) != 1)
		_exit(0);
	for (int i = 0; is_p && i < PROBE_ROUNDS; i++) /* switched in from idle */
		nanosleep(&nap, NULL);
	for (int i = 0; i < PROBE_ROUNDS; i++) { /* P: switched in from Q */
		if (is_p && (write(pp->pq[1], &c, 1) != 1 || read(pp->qp[0], &c, 1) != 1))
			break;
		if (!is_p && (read(pp->pq[0], &c, 1) != 1 || write(pp->qp[1], &c, 1) != 1))
			break;
	}
	_exit(0);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static uint32_t median(uint32_t *v, int n)
{
	if (n < 8) /* too few to say */
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_u32);
	return v[n / 2];
}

struct probe_fields {
	int prev_off, next_off; /* sched_switch's prev_pid and next_pid in its payload */
};

/*
 * Pair each sched_switch into @p (the CPU-wide event, id @sw_id) with @p's switch-in record
 * after it, in the ring at @data (@size bytes, @head written): the delays from idle into
 * @idle, from another process into @task.
 */
static void pair(const uint8_t *data, uint64_t head, uint64_t sw_id, const struct probe_fields *f,
		 pid_t p, uint32_t *idle, int *nidle, uint32_t *task, int *ntask, bool *untraced)
{
	uint64_t tp_ns = 0, off = 0;
	int32_t tp_prev = -1;

	while (off + sizeof(struct perf_event_header) <= head) {
		const struct perf_event_header *h = (const void *)(data + off);
		struct wc_sample_view s;
		uint64_t id;
		int32_t prev, next;

		if (h->size < sizeof(*h) || off + h->size > head)
			break;
		off += h->size;
		if (h->type == PERF_RECORD_SAMPLE && h->size >= sizeof(*h) + 8 &&
		    (memcpy(&id, h + 1, 8), id == sw_id) &&
		    wc_sample_parse(h, BASE_SAMPLE_TYPE | PERF_SAMPLE_RAW, &s) &&
		    (uint64_t)f->prev_off + 4 <= s.raw_size &&
		    (uint64_t)f->next_off + 4 <= s.raw_size) {
			memcpy(&prev, s.raw + f->prev_off, 4);
			memcpy(&next, s.raw + f->next_off, 4);
			if (next == p) {
				tp_ns = s.time;
				tp_prev = prev;
			}
		} else if (h->type == PERF_RECORD_SWITCH &&
			   !(h->misc & PERF_RECORD_MISC_SWITCH_OUT) &&
			   h->size >= sizeof(*h) + SAMPLE_ID_BYTES) {
			const uint8_t *end = (const uint8_t *)h + h->size;
			uint32_t tid;
			uint64_t t;

			memcpy(&tid, end - 28, 4);
			memcpy(&t, end - 24, 8);
			/* switched in with no sched_switch into it since its last switch-in */
			if ((pid_t)tid == p && !tp_ns)
				*untraced = true;
			if ((pid_t)tid == p && tp_ns && t >= tp_ns && t - tp_ns < 1000000) {
				if (tp_prev == 0 && *nidle < PROBE_ROUNDS)
					idle[(*nidle)++] = (uint32_t)(t - tp_ns);
				else if (tp_prev > 0 && *ntask < PROBE_ROUNDS)
					task[(*ntask)++] = (uint32_t)(t - tp_ns);
			}
			tp_ns = 0;
		}
	}
}

/* Open @a on @pid/@cpu into the ring of @out (-1: its own).  Return: the fd, or -1. */
static int open_into(struct perf_event_attr *a, pid_t pid, int cpu, int out)
{
	int fd = (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd >= 0 && out >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, out)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The probe on ring @c's CPU (see above): P and Q forked and held, the events opened, P and Q
 * let go and reaped, the ring read.  Return: 0, or a negative errno (nothing measured).
 */
static int probe_cpu(struct wc_events *ev, const struct probe_fields *f, int sw_event_id, int c)
{
	int cpu = ev->rings[c].cpu, fds[WC_MAX_EVENTS + 2], nfds = 0, err = 0;
	size_t len = (size_t)(PROBE_PAGES + 1) * (size_t)ev->page;
	struct perf_event_attr sw = ev->attrs[sw_event_id];
	uint32_t idle[PROBE_ROUNDS], task[PROBE_ROUNDS];
	int nidle = 0, ntask = 0;
	struct probe_pipes pp;
	pid_t p = -1, q = -1;
	uint64_t sw_id = 0;
	void *map = MAP_FAILED;

	if (pipe2(pp.go, O_CLOEXEC))
		return -errno;
	if (pipe2(pp.pq, O_CLOEXEC)) {
		close(pp.go[0]);
		close(pp.go[1]);
		return -EMFILE;
	}
	if (pipe2(pp.qp, O_CLOEXEC)) {
		for (int i = 0; i < 2; i++) {
			close(pp.go[i]);
			close(pp.pq[i]);
		}
		return -EMFILE;
	}
	p = spawn(cpu, &pp, true);
	q = p > 0 ? spawn(cpu, &pp, false) : -1;
	/* the switches on this CPU, without callchain, and P's own events as the recording's */
	sw.sample_type = BASE_SAMPLE_TYPE | PERF_SAMPLE_RAW;
	sw.sample_regs_user = 0;
	sw.sample_stack_user = 0;
	sw.disabled = 0;
	sw.inherit = 0;
	sw.watermark = 0;
	sw.wakeup_events = 0;
	fds[nfds] = q > 0 ? open_into(&sw, -1, cpu, -1) : -1;
	if (fds[nfds] < 0 || ioctl(fds[nfds], PERF_EVENT_IOC_ID, &sw_id))
		err = -EINVAL;
	else
		map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fds[nfds++], 0);
	if (!err && map == MAP_FAILED)
		err = -ENOMEM;
	/* and the context-switch records' dummy where they do not come with the side band */
	for (int i = 0; !err && i < ev->nevents + ev->rec_split; i++) {
		struct perf_event_attr a = i < ev->nevents ? ev->attrs[i] : ev->rec_attr;

		a.disabled = 0;
		a.inherit = 0;
		fds[nfds] = open_into(&a, p, cpu, fds[0]);
		err = fds[nfds++] < 0 ? -EINVAL : 0;
	}
	/* let them go (or, on failure, end: EOF on go) and wait for both */
	if (!err && write(pp.go[1], "gg", 2) != 2)
		err = -EIO;
	for (int i = 0; i < 2; i++) {
		close(pp.go[i]);
		close(pp.pq[i]);
		close(pp.qp[i]);
	}
	if (p > 0)
		waitpid(p, NULL, 0);
	if (q > 0)
		waitpid(q, NULL, 0);
	if (!err) {
		struct perf_event_mmap_page *m = map;
		uint64_t head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);

		if (head <= (uint64_t)PROBE_PAGES * (uint64_t)ev->page)
			pair((const uint8_t *)map + ev->page, head, sw_id, f, p, idle, &nidle, task,
			     &ntask, &ev->rings[c].probe_untraced);
		ev->rings[c].probed = head <= (uint64_t)PROBE_PAGES * (uint64_t)ev->page;
		ev->rings[c].probe_idle_ns = median(idle, nidle);
		ev->rings[c].probe_task_ns = median(task, ntask);
	}
	if (map != MAP_FAILED)
		munmap(map, len);
	for (int i = 0; i < nfds; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return err;
}

int wc_probe_in_delays(struct wc_events *ev, const struct wc_events_opts *o)
{
	struct probe_fields f;
	unsigned size;
	int sw = -1, err = 0;

	for (int i = 0; i < ev->nevents; i++)
		if (ev->events[i].kind == WC_EVENT_SWITCH)
			sw = i;
	if (sw < 0 || ev->next_pid_off < 0 ||
	    wc_tracefs_field(o->tracefs, "sched", "sched_switch", "prev_pid",
			     (unsigned *)&f.prev_off, &size) ||
	    size != 4)
		return -ENOENT;
	f.next_off = ev->next_pid_off;
	for (int c = 0; c < ev->ncpus && !err; c++)
		err = probe_cpu(ev, &f, sw, c);
	/* a CPU whose switches out of idle go untraced (CPU 1 of this project's VMs): another
	 * CPU's figure, the CPUs being alike */
	for (int c = 0; c < ev->ncpus; c++)
		for (int k = 0; k < ev->ncpus; k++) {
			struct ring *r = &ev->rings[c], *other = &ev->rings[k];

			if (!r->probe_idle_ns)
				r->probe_idle_ns = other->probe_idle_ns;
			if (!r->probe_task_ns)
				r->probe_task_ns = other->probe_task_ns;
		}
	return err;
}
