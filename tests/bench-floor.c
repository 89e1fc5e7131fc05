/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench-floor - a null recorder: the kernel's floor of recording cost, for
 * tests/bench-record.sh.
 *
 * It opens the perf events wcrec opens for `wcrec -a --no-samples --no-runtime` (sched_switch,
 * sched_waking and sched_wakeup_new on every online CPU, pid -1), with the same attrs as
 * recorder/events.c: tracepoint id from tracefs, sample_type BASE_SAMPLE_TYPE | RAW
 * (| CALLCHAIN), sample_period 1, use_clockid CLOCK_MONOTONIC, watermark with
 * wakeup_watermark = a quarter of the ring, sample_id_all, the side-band bits (mmap, mmap2,
 * comm, comm_exec, task, build_id) on sched_switch, exclude_callchain_* as asked, one ring of
 * -m PAGES data pages per CPU shared through PERF_EVENT_IOC_SET_OUTPUT.  Then it runs COMMAND
 * and, until COMMAND exits, waits in poll() and hands every ring's bytes back to the kernel
 * (data_tail = data_head) without looking at them.
 *
 * What the recorded workload pays above its bare cost under this program is what the kernel
 * itself does per event (tracepoint, perf output, callchain unwinding) and what its wake-ups
 * of the drainer cost.  A real recorder with these attrs must also read, and so cannot add
 * less.  --count walks the record headers (one 8-byte load per record) to count records and
 * PERF_RECORD_LOST / LOST_SAMPLES; it is off by default, so that the floor touches nothing.
 * --only-tid TID[,TID...] sets the kernel-side tracepoint filters wcrec does not use
 * (prev_pid/next_pid of sched_switch, pid of the wakeups): what they would save the rest of the
 * machine when the target is a few quiet threads (man/wcrec.1, "Why per-CPU events";
 * tests/bench-pertask.sh).
 *
 * usage: bench-floor [options] -- COMMAND [ARGS]
 * Prints one line on stderr: bytes drained, records and lost (with --count).
 * Exit status: COMMAND's (128 + signal when it was killed); 1 when set-up failed; 2 for a
 * bad option.
 */
#ifndef _GNU_SOURCE /* configure defines it; a build by hand may not */
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "recorder/targets.h"

/* as recorder/events-priv.h */
#define BASE_SAMPLE_TYPE                                                                           \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |           \
	 PERF_SAMPLE_PERIOD)
#define MAX_CPUS     4096
#define NEVENTS	     3
#define MAX_TIDS     64
#define FILTER_BYTES (MAX_TIDS * 64) /* more than a tid's clauses take */

struct ring {
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	uint64_t size; /* bytes of data, a power of two */
};

struct counts {
	uint64_t bytes, records, lost_records, lost_samples;
};

static const char usage[] =
	"usage: bench-floor [options] -- COMMAND [ARGS]\n"
	"  a null recorder: wcrec's scheduler events on all CPUs, drained without reading\n"
	"  --switch-stacks     callchains on sched_switch\n"
	"  --waking-stacks     callchains on sched_waking and sched_wakeup_new\n"
	"  --no-kernel-stacks  exclude_callchain_kernel\n"
	"  --no-user-stacks    exclude_callchain_user\n"
	"  --max-stack N       sample_max_stack (default 0: the kernel's perf_event_max_stack)\n"
	"  -m PAGES            ring-buffer data pages per CPU, a power of two (default 2048)\n"
	"  --count             walk record headers: count records and lost ones\n"
	"  --only-tid TID[,TID...]  kernel-side tracepoint filters keeping these threads'\n"
	"                      events only (at most 64): the filters wcrec does not use\n"
	"                      (man wcrec, Why per-CPU events)\n"
	"  -h, --help          this text\n";

static volatile sig_atomic_t stop_signal;

/* SIGINT, SIGTERM: stop recording, and pass the signal on to COMMAND. */
static void on_signal(int sig)
{
	stop_signal = sig;
}

/* SIGCHLD: only interrupts poll(), so that COMMAND's exit is seen at once. */
static void on_child(int sig)
{
	(void)sig;
}

/* perf_event_open(2), which libc does not wrap. */
static int perf_event_open(struct perf_event_attr *attr, int pid, int cpu, int group,
			   unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

/* Does DIR/events exist? */
static bool has_events(const char *dir)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/events", dir);
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* The tracing directory: tracefs, mounted if need be, else debugfs's.  NULL if none. */
static const char *tracefs_dir(void)
{
	if (has_events("/sys/kernel/tracing"))
		return "/sys/kernel/tracing";
	if (has_events("/sys/kernel/debug/tracing"))
		return "/sys/kernel/debug/tracing";
	if (!mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) &&
	    has_events("/sys/kernel/tracing"))
		return "/sys/kernel/tracing";
	return NULL;
}

/* The id of tracepoint sched:NAME, from DIR/events/sched/NAME/id; -1 if absent. */
static int tp_id(const char *dir, const char *name)
{
	char path[512];
	FILE *f;
	int id = -1;

	snprintf(path, sizeof(path), "%s/events/sched/%s/id", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &id) != 1)
		id = -1;
	fclose(f);
	return id;
}

/* Parse the online CPU list ("0-3,5") into cpus[]; return the count, or -1. */
static int online_cpus(int *cpus, int max)
{
	char buf[4096] = "", *s = buf, *end;
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	int n = 0;

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	while (*s && *s != '\n') {
		long a = strtol(s, &end, 10), b = a;

		if (end == s || a < 0)
			return -1;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a)
				return -1;
		}
		for (long c = a; c <= b; c++) {
			if (n == max)
				return -1;
			cpus[n++] = (int)c;
		}
		s = *end == ',' ? end + 1 : end;
	}
	return n > 0 ? n : -1;
}

/* Fill in one tracepoint's attr as recorder/events.c does (add_event, add_tracepoint). */
static void tp_attr(struct perf_event_attr *a, int id, bool stacks, unsigned pages, long page)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_TRACEPOINT;
	a->config = (uint64_t)id;
	a->sample_type = BASE_SAMPLE_TYPE | PERF_SAMPLE_RAW | (stacks ? PERF_SAMPLE_CALLCHAIN : 0);
	a->sample_period = 1;
	a->disabled = 1;
	a->sample_id_all = 1;
	a->watermark = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->wakeup_watermark = (uint32_t)((uint64_t)pages * (uint64_t)page / 4);
}

/* Open one event on one CPU, retrying as recorder/events.c does where a kernel lacks a bit. */
static int open_one(struct perf_event_attr *a, int cpu)
{
	for (;;) {
		int fd = perf_event_open(a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd >= 0 || errno != EINVAL)
			return fd;
		if (a->build_id)
			a->build_id = 0;
		else if (a->use_clockid) {
			a->use_clockid = 0;
			a->clockid = 0;
		} else
			return -1;
	}
}

/*
 * Give a ring's bytes back to the kernel.  With count, first walk the record headers: records
 * are 8-byte aligned in a buffer whose size is a multiple of 8, so no header and no u64 field
 * straddles the end of the buffer.
 */
static void drain(struct ring *r, bool count, struct counts *n)
{
	/* acquire: the record bytes below head are visible once head is */
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail, mask = r->size - 1;

	n->bytes += head - tail;
	while (count && tail < head) {
		const struct perf_event_header *h = (const void *)(r->data + (tail & mask));
		uint64_t v;

		if (h->size < sizeof(*h))
			break; /* cannot happen with a sane kernel; do not loop on it */
		n->records++;
		if (h->type == PERF_RECORD_LOST) { /* id, lost */
			memcpy(&v, r->data + ((tail + sizeof(*h) + 8) & mask), 8);
			n->lost_records += v;
		} else if (h->type == PERF_RECORD_LOST_SAMPLES) { /* lost */
			memcpy(&v, r->data + ((tail + sizeof(*h)) & mask), 8);
			n->lost_samples += v;
		}
		tail += h->size;
	}
	/* release: our reads of the bytes below head are done before the kernel reuses them */
	__atomic_store_n(&r->meta->data_tail, head, __ATOMIC_RELEASE);
}

/* Enable (or disable) every event on every CPU.  Return: 0 or -errno. */
static int enable_all(const int *fds, int nfds, bool on)
{
	for (int k = 0; k < nfds; k++)
		if (fds[k] >= 0 &&
		    ioctl(fds[k], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0))
			return -errno;
	return 0;
}

/* Parse "TID[,TID...]" into tids[]; return the count, or -1 if it is not such a list. */
static int parse_tids(const char *arg, long *tids)
{
	const char *s = arg;
	char *end;
	int n = 0;

	for (;;) {
		long v = strtol(s, &end, 10);

		if (end == s || v < 1 || n == MAX_TIDS)
			return -1;
		tids[n++] = v;
		if (!*end)
			return n;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
}

/*
 * The filter keeping the events of tids[0..n): on sched_switch (sw) a switch either way
 * (prev_pid, next_pid: the fields of its format file), on the wakeups the woken task (pid).
 * @buf holds FILTER_BYTES.
 */
static void tid_filter(char *buf, const long *tids, int n, bool sw)
{
	size_t at = 0;

	buf[0] = 0;
	for (int k = 0; k < n; k++) {
		const char *sep = k ? " || " : "";

		if (sw)
			at += (size_t)snprintf(buf + at, FILTER_BYTES - at,
					       "%sprev_pid == %ld || next_pid == %ld", sep, tids[k],
					       tids[k]);
		else
			at += (size_t)snprintf(buf + at, FILTER_BYTES - at, "%spid == %ld", sep,
					       tids[k]);
	}
}

enum { OPT_SWITCH = 256, OPT_WAKING, OPT_NO_K, OPT_NO_U, OPT_MAX_STACK, OPT_COUNT, OPT_ONLY_TID };

/* Parse options, open and map the events, run COMMAND while draining, print the counts. */
int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "switch-stacks", no_argument, NULL, OPT_SWITCH },
		{ "waking-stacks", no_argument, NULL, OPT_WAKING },
		{ "no-kernel-stacks", no_argument, NULL, OPT_NO_K },
		{ "no-user-stacks", no_argument, NULL, OPT_NO_U },
		{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "count", no_argument, NULL, OPT_COUNT },
		{ "only-tid", required_argument, NULL, OPT_ONLY_TID },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const char *const names[NEVENTS] = { "sched_switch", "sched_waking",
						    "sched_wakeup_new" };
	static int cpus[MAX_CPUS];
	bool stacks_sw = false, stacks_wk = false, no_k = false, no_u = false, count = false;
	unsigned pages = 2048, max_stack = 0;
	long only_tids[MAX_TIDS];
	int n_tids = 0;
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_attr attrs[NEVENTS];
	struct ring *rings = NULL;
	struct pollfd *pfds = NULL;
	struct counts n = { 0 };
	int *fds = NULL, ncpus, nev = 0, status = 0, ret = 1, c;
	const char *dir;
	struct wc_command cmd = { .pid = -1, .go_fd = -1 };
	const char *what;
	bool reaped = false;

	while ((c = getopt_long(argc, argv, "+m:h", longopts, NULL)) != -1) {
		char *end;
		long v;

		switch (c) {
		case OPT_SWITCH:
			stacks_sw = true;
			break;
		case OPT_WAKING:
			stacks_wk = true;
			break;
		case OPT_NO_K:
			no_k = true;
			break;
		case OPT_NO_U:
			no_u = true;
			break;
		case OPT_COUNT:
			count = true;
			break;
		case OPT_ONLY_TID:
			n_tids = parse_tids(optarg, only_tids);
			if (n_tids < 0) {
				fprintf(stderr,
					"bench-floor: --only-tid wants 1 to %d tids, TID[,TID...], "
					"not '%s'\n",
					MAX_TIDS, optarg);
				return 2;
			}
			break;
		case OPT_MAX_STACK:
			v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > 65535) {
				fprintf(stderr,
					"bench-floor: --max-stack wants 1 to 65535, not '%s'\n",
					optarg);
				return 2;
			}
			max_stack = (unsigned)v;
			break;
		case 'm':
			v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > (1 << 20) || (v & (v - 1))) {
				fprintf(stderr,
					"bench-floor: -m wants a power of two of pages, not '%s'\n",
					optarg);
				return 2;
			}
			pages = (unsigned)v;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fputs(usage, stderr);
		return 2;
	}

	dir = tracefs_dir();
	if (!dir) {
		fprintf(stderr,
			"bench-floor: no tracefs: neither /sys/kernel/tracing nor "
			"/sys/kernel/debug/tracing has events/, and mounting tracefs failed\n");
		return 1;
	}
	for (int i = 0; i < NEVENTS; i++) {
		bool stacks = i == 0 ? stacks_sw : stacks_wk;
		int id = tp_id(dir, names[i]);

		if (id < 0) {
			if (i == 2) /* wcrec too goes on without it */
				continue;
			fprintf(stderr, "bench-floor: no tracepoint sched:%s in %s/events\n",
				names[i], dir);
			return 1;
		}
		tp_attr(&attrs[nev], id, stacks, pages, page);
		attrs[nev].exclude_callchain_kernel = no_k;
		attrs[nev].exclude_callchain_user = no_u;
		attrs[nev].sample_max_stack = (uint16_t)max_stack;
		if (i == 0) { /* side-band records come with sched_switch, as in wcrec */
			attrs[nev].mmap = 1;
			attrs[nev].mmap2 = 1;
			attrs[nev].comm = 1;
			attrs[nev].comm_exec = 1;
			attrs[nev].task = 1;
			attrs[nev].build_id = 1;
		}
		nev++;
	}

	ncpus = online_cpus(cpus, MAX_CPUS);
	if (ncpus < 0) {
		fprintf(stderr, "bench-floor: cannot read /sys/devices/system/cpu/online\n");
		return 1;
	}
	fds = malloc(sizeof(*fds) * (size_t)(ncpus * nev));
	rings = calloc((size_t)ncpus, sizeof(*rings));
	pfds = calloc((size_t)ncpus, sizeof(*pfds));
	if (!fds || !rings || !pfds) {
		fprintf(stderr, "bench-floor: out of memory\n");
		goto out;
	}
	for (int k = 0; k < ncpus * nev; k++)
		fds[k] = -1;
	for (int ci = 0; ci < ncpus; ci++) {
		for (int i = 0; i < nev; i++) {
			int fd = open_one(&attrs[i], cpus[ci]);

			if (fd < 0) {
				fprintf(stderr, "bench-floor: cannot open sched:%s on CPU %d: %s\n",
					names[i], cpus[ci], strerror(errno));
				goto out;
			}
			fds[ci * nev + i] = fd;
			if (n_tids) {
				char filter[FILTER_BYTES];

				tid_filter(filter, only_tids, n_tids, i == 0);
				if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter)) {
					fprintf(stderr,
						"bench-floor: filter '%s' on sched:%s: %s\n",
						filter, names[i], strerror(errno));
					goto out;
				}
			}
			if (i == 0) {
				size_t len = (size_t)(pages + 1) * (size_t)page;
				void *p =
					mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

				if (p == MAP_FAILED) {
					fprintf(stderr,
						"bench-floor: cannot map %u pages on CPU %d: %s "
						"(see -m and perf_event_mlock_kb)\n",
						pages, cpus[ci], strerror(errno));
					goto out;
				}
				rings[ci].meta = p;
				rings[ci].data = (uint8_t *)p + page;
				rings[ci].size = (uint64_t)pages * (uint64_t)page;
				pfds[ci].fd = fd;
				pfds[ci].events = POLLIN;
			} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, fds[ci * nev])) {
				fprintf(stderr,
					"bench-floor: PERF_EVENT_IOC_SET_OUTPUT on CPU %d: %s\n",
					cpus[ci], strerror(errno));
				goto out;
			}
		}
	}

	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL);
	/* COMMAND waits until the events are on (recorder/targets.h, as wcrec's) */
	c = wc_command_start(&cmd, argv + optind, "bench-floor", &what);
	if (c) {
		fprintf(stderr, "bench-floor: %s: %s\n", what, strerror(-c));
		goto out;
	}
	c = enable_all(fds, ncpus * nev, true);
	if (c) {
		fprintf(stderr, "bench-floor: cannot enable the events: %s\n", strerror(-c));
		goto out;
	}
	c = wc_command_go(&cmd);
	if (c) {
		fprintf(stderr, "bench-floor: starting the command: %s\n", strerror(-c));
		goto out;
	}

	/* wcrec's loop: poll with a 100 ms timeout, then drain every CPU */
	while (!stop_signal) {
		if (poll(pfds, (nfds_t)ncpus, 100) < 0 && errno != EINTR) {
			perror("bench-floor: poll");
			break;
		}
		for (int ci = 0; ci < ncpus; ci++)
			drain(&rings[ci], count, &n);
		if (waitpid(cmd.pid, &status, WNOHANG) == cmd.pid) {
			reaped = true;
			break;
		}
	}
	enable_all(fds, ncpus * nev, false);
	for (int ci = 0; ci < ncpus; ci++)
		drain(&rings[ci], count, &n);
	if (count)
		fprintf(stderr,
			"bench-floor: %" PRIu64 " bytes drained, %" PRIu64 " records, %" PRIu64
			" lost\n",
			n.bytes, n.records, n.lost_records + n.lost_samples);
	else
		fprintf(stderr,
			"bench-floor: %" PRIu64 " bytes drained, records not counted (--count), "
			"lost not counted\n",
			n.bytes);
	ret = 0;
	if (reaped)
		ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

out:
	if (cmd.pid > 0 && !reaped) { /* set-up failed, or stopped: no COMMAND left behind */
		wc_command_cancel(&cmd);
		if (stop_signal)
			kill(cmd.pid, stop_signal);
		waitpid(cmd.pid, &status, 0);
		if (stop_signal)
			ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	for (int ci = 0; rings && ci < ncpus; ci++)
		if (rings[ci].meta)
			munmap(rings[ci].meta, rings[ci].size + (size_t)page);
	for (int k = 0; fds && k < ncpus * nev; k++)
		if (fds[k] >= 0)
			close(fds[k]);
	free(fds);
	free(rings);
	free(pfds);
	return ret;
}
