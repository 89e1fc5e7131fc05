/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wcrec - record scheduler events and CPU samples with callchains into a trace file.
 * See man/wcrec.1.  Exit status: COMMAND's (128 + signal when it was killed), else 0; 1 when
 * recording failed; 2 for a bad option or target.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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
#include "config.h"
#include "recorder/events.h"
#include "recorder/ksyms.h"
#include "recorder/metadata.h"
#include "recorder/targets.h"
#include "recorder/unwind.h"

#define MAX_CPUS 4096
#define MAX_PIDS 1024
#define WC_USER_COPY_DEFAULT 512 /* bytes of user stack copied under -g fp */
#define WC_STR_(x) #x
#define WC_STR(x) WC_STR_(x)

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void on_child(int sig)
{
	(void)sig; /* only wakes poll() */
}

static const char usage[] =
	"usage: wcrec [options] -- COMMAND [ARGS]   record COMMAND until it exits\n"
	"       wcrec [options] -p PID[,PID...]     record running processes and their\n"
	"                                           descendants, until they all exit\n"
	"       wcrec [options] -a [-- COMMAND]     system-wide (the default)\n"
	"  -o FILE          output (default wcrec.wct; an existing one is kept as FILE.old)\n"
	"  -d SECONDS       stop after this long (also on SIGINT/SIGTERM, and when COMMAND or\n"
	"                   every -p process exits)\n"
	"  --no-children    -p: the processes named only, not those they forked before\n"
	"  -F HZ            CPU sampling frequency (default 99)\n"
	"  -e EVENT         sampling event: cycles, cpu-clock or task-clock (default cycles where\n"
	"                   the PMU has it, else cpu-clock)\n"
	"  --no-samples     scheduler events only\n"
	"  --no-sched       CPU samples only\n"
	"  -g fp[,SIZE]     callchains by frame pointers, user and kernel (the default); the\n"
	"                   top of a user stack is mended by CFI from a SIZE-byte copy (default\n"
	"                   " WC_STR(WC_USER_COPY_DEFAULT) ", a multiple of 8; 0: no copy)\n"
	"  -g dwarf[,SIZE]  user stacks unwound by CFI alone, from a SIZE-byte copy (default\n"
	"                   8192), for programs built without frame pointers\n"
	"  -g none          no callchains\n"
	"  --no-kernel-stacks, --no-user-stacks\n"
	"  --waker-stacks   callchains on wakeup events too\n"
	"  --wakeup-event waking|wakeup|both   (default sched_waking where the kernel has it)\n"
	"  --migrations     sched_migrate_task too (wcanalyze timehist -M)\n"
	"  --no-switch-records  no context-switch records (taken by default, Linux 4.3+: they\n"
	"                   give the switch-ins a kernel leaves untraced; about 0.9 us a switch)\n"
	"  --no-runtime     no sched_stat_runtime (recorded by default only without\n"
	"                   context-switch records: it places the switch-ins a kernel leaves\n"
	"                   untraced; about one more event per switch); --runtime: record it\n"
	"                   always, fail where the kernel lacks it\n"
	"  --full-kallsyms  keep /proc/kallsyms whole in the file (default: only the kernel\n"
	"                   functions the callchains refer to)\n"
	"  -C CPUS          record these CPUs only (0,2-3)\n"
	"  -m PAGES         ring-buffer data pages per CPU, a power of two (default 2048)\n"
	"  -z LEVEL         zstd level (default 3)\n"
	"  -q, -v           quieter, more verbose\n"
	"  -h, --help       this text\n";

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
			"%.1f us of CPU per unwind otherwise, %" PRIu64 " process sessions): %"
			PRIu64 " spliced, %" PRIu64 " complete, %" PRIu64 " truncated, %" PRIu64
			" failed, %" PRIu64 " skipped (the drain behind); %.1f MB of stack copied\n",
			u.stacks, 100.0 * (double)u.hits / (double)u.stacks,
			misses ? (double)u.miss_ns / 1e3 / (double)misses : 0.0, u.sessions,
			u.by_result[WC_UNWIND_SPLICED], u.by_result[WC_UNWIND_COMPLETE],
			u.by_result[WC_UNWIND_TRUNCATED], u.by_result[WC_UNWIND_FAILED],
			u.by_result[WC_UNWIND_SKIPPED],
			(double)ds->user_copy_bytes / 1e6);
	if (u.changed || u.bad_copies || u.wrong_abi)
		fprintf(stderr,
			"wcrec: user stacks not unwound: %" PRIu64 " files changed since mapped "
			"(refused), %" PRIu64 " bad stack copies, %" PRIu64 " of another ABI\n",
			u.changed, u.bad_copies, u.wrong_abi);
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

static int bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "wcrec: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see wcrec --help)\n");
	return 2;
}

/* Parse "0,2-3" into cpus[]; return the count, or -1. */
static int parse_cpus(const char *s, int *cpus, int max)
{
	int n = 0;

	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s || a < 0 || a >= MAX_CPUS)
			return -1;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b >= MAX_CPUS)
				return -1;
		}
		for (long c = a; c <= b; c++) {
			if (n == max)
				return -1;
			cpus[n++] = (int)c;
		}
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
		else
			break;
	}
	return n;
}

static int online_cpus(int *cpus, int max)
{
	char buf[4096] = "";
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	if (!buf[0])
		snprintf(buf, sizeof(buf), "0-%ld", sysconf(_SC_NPROCESSORS_ONLN) - 1);
	return parse_cpus(buf, cpus, max);
}

static uint64_t clock_now(int clockid)
{
	struct timespec ts;

	clock_gettime(clockid < 0 ? CLOCK_MONOTONIC : clockid, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Create the output 0600, keeping an existing one as FILE.old.  Return: fd or -errno. */
/*
 * Open the output as perf record does its perf.data, but safe to run as root: a regular file
 * already there is kept as PATH.old (one only, replaced); a character device (/dev/null) is
 * written to as it is; anything else there (a symlink, directory, FIFO, socket, block device)
 * is refused, with nothing renamed.  A new file is created 0600 (the trace names kernel
 * functions and the tasks' command lines), never through a symlink put there meanwhile.
 * Return: the fd, or -errno; -EEXIST when something other than a regular file or a character
 * device is at @path (the caller says what it found, see output_kind()).
 */
static int create_output(const char *path)
{
	char old[4096];
	struct stat st;
	int fd;

	if (!lstat(path, &st)) {
		if (S_ISCHR(st.st_mode)) {
			fd = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
			if (fd >= 0 && (fstat(fd, &st) || !S_ISCHR(st.st_mode))) {
				close(fd);
				return -EEXIST;
			}
			return fd < 0 ? -errno : fd;
		}
		if (!S_ISREG(st.st_mode))
			return -EEXIST;
		if ((size_t)snprintf(old, sizeof(old), "%s.old", path) >= sizeof(old))
			return -ENAMETOOLONG;
		if (rename(path, old))
			return -errno;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	return fd < 0 ? -errno : fd;
}

/* What is at @path that create_output() refused, for its message. */
static const char *output_kind(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return "something that is not a regular file";
	if (S_ISLNK(st.st_mode))
		return "a symbolic link";
	if (S_ISDIR(st.st_mode))
		return "a directory";
	if (S_ISFIFO(st.st_mode))
		return "a FIFO";
	if (S_ISSOCK(st.st_mode))
		return "a socket";
	if (S_ISBLK(st.st_mode))
		return "a block device";
	return "something that is not a regular file";
}

/*
 * -p's descendants, added after the @n processes named in @pids (up to MAX_PIDS), each with
 * its wc_target in @targets; those gone by then are dropped.  Return: the new count.
 */
static int add_descendants(int *pids, int n, struct wc_target *targets, int verbose)
{
	size_t total = (size_t)n;
	int named = n, err = wc_targets_add_descendants(pids, &total, MAX_PIDS, getpid());

	if (err == -E2BIG)
		fprintf(stderr, "wcrec: warning: -p: more than %d processes with the descendants: "
				"the first %d followed\n", MAX_PIDS, MAX_PIDS);
	else if (err < 0)
		fprintf(stderr, "wcrec: warning: -p: cannot list the descendants (%s): only the "
				"processes named followed\n", strerror(-err));
	if (err < 0 && err != -E2BIG)
		return n;
	for (size_t i = (size_t)n; i < total; i++)
		if (!wc_target_init(&targets[n], pids[i]))
			pids[n++] = pids[i];
	if (verbose > 1 && n > named)
		fprintf(stderr, "wcrec: -p: following %d descendant processes too (--no-children "
				"for those named alone)\n", n - named);
	return n;
}

enum { OPT_NO_SAMPLES = 256, OPT_NO_SCHED, OPT_NO_KSTACKS, OPT_NO_USTACKS, OPT_WAKER_STACKS,
	OPT_MIGRATIONS,
	OPT_RUNTIME,
	OPT_NO_RUNTIME,
	OPT_NO_SWITCH_RECORDS,
       OPT_WAKEUP_EVENT, OPT_FULL_KALLSYMS, OPT_NO_CHILDREN };

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "freq", required_argument, NULL, 'F' },
		{ "event", required_argument, NULL, 'e' },
		{ "pid", required_argument, NULL, 'p' },
		{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "compression-level", required_argument, NULL, 'z' },
		{ "call-graph", required_argument, NULL, 'g' },
		{ "no-samples", no_argument, NULL, OPT_NO_SAMPLES },
		{ "no-sched", no_argument, NULL, OPT_NO_SCHED },
		{ "no-kernel-stacks", no_argument, NULL, OPT_NO_KSTACKS },
		{ "no-user-stacks", no_argument, NULL, OPT_NO_USTACKS },
		{ "waker-stacks", no_argument, NULL, OPT_WAKER_STACKS },
		{ "migrations", no_argument, NULL, OPT_MIGRATIONS },
		{ "runtime", no_argument, NULL, OPT_RUNTIME },
		{ "no-runtime", no_argument, NULL, OPT_NO_RUNTIME },
		{ "no-switch-records", no_argument, NULL, OPT_NO_SWITCH_RECORDS },
		{ "wakeup-event", required_argument, NULL, OPT_WAKEUP_EVENT },
		{ "full-kallsyms", no_argument, NULL, OPT_FULL_KALLSYMS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static int cpus[MAX_CPUS], pids[MAX_PIDS];
	static struct wc_target targets[MAX_PIDS]; /* -p's, to stop when all have exited */
	struct wc_events_opts eo = {
		.samples = true, .sched = true, .freq_hz = 99, .callchains = true,
		.kernel_stacks = true, .user_stacks = true, .pages = 2048, .runtime = 1,
		.user_copy = WC_USER_COPY_DEFAULT,
	};
	const char *out = "wcrec.wct", *why;
	double duration = 0;
	int npids = 0, level = 3, verbose = 1, c, err, status = 0, ret = 1;
	bool all = false, full_kallsyms = false, children = true;
	char tracefs[4096] = "";
	struct wc_writer_opts wo = { 0 };
	struct wc_drain_stats ds = { 0 };
	struct wc_events *ev = NULL;
	struct wc_writer *w = NULL;
	struct wc_ksym_writer *kw = NULL;
	struct wc_meta_snapshot tasks = { 0 }; /* the threads written at the start */
	pid_t child = -1;
	bool reaped = false; /* COMMAND exited and status holds its wait status */
	bool targets_gone = false; /* every -p process exited */
	int go[2] = { -1, -1 }, fd = -1;
	uint64_t t_start, t_end, deadline; /* ns of the events' clock; deadline 0 without -d */
	uint32_t trailer_flags = 0;

	while ((c = getopt_long(argc, argv, "+o:d:F:e:p:aC:m:z:g:qvh", longopts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'd':
			duration = strtod(optarg, &end);
			if (*end || !(duration > 0) || duration > 1e9) /* 31 years: no overflow in ns */
				return bad("-d wants a positive number of seconds, at most 1e9, "
					   "not '%s'",
					   optarg);
			break;
		case 'F': {
			long f = strtol(optarg, &end, 10);

			if (*end || f < 1 || f > 100000)
				return bad("-F wants a frequency in Hz from 1 to 100000, not '%s'", optarg);
			eo.freq_hz = (unsigned)f;
			break;
		}
		case 'e':
			if (strcmp(optarg, "cycles") && strcmp(optarg, "cpu-clock") &&
			    strcmp(optarg, "task-clock"))
				return bad("unknown event '%s': use cycles, cpu-clock or task-clock", optarg);
			eo.sample_event = optarg;
			break;
		case 'p':
			for (char *s = optarg; *s;) {
				long p = strtol(s, &end, 10);

				if (end == s || p <= 0 || npids == MAX_PIDS || (*end && *end != ','))
					return bad("-p wants process ids separated by commas, not '%s'",
						   optarg);
				pids[npids++] = (int)p;
				s = *end ? end + 1 : end;
			}
			break;
		case 'a':
			all = true;
			break;
		case OPT_NO_CHILDREN:
			children = false;
			break;
		case 'C':
			eo.ncpus = parse_cpus(optarg, cpus, MAX_CPUS);
			if (eo.ncpus <= 0)
				return bad("-C wants CPU numbers like 0,2-3, not '%s'", optarg);
			break;
		case 'm': {
			long m = strtol(optarg, &end, 10);

			if (*end || m < 1 || m > (1 << 20) || (m & (m - 1)))
				return bad("-m wants a power of two of pages, not '%s'", optarg);
			eo.pages = (unsigned)m;
			break;
		}
		case 'z':
			level = (int)strtol(optarg, &end, 10);
			if (*end || level < 1 || level > 19)
				return bad("-z wants a zstd level from 1 to 19, not '%s'", optarg);
			break;
		case 'g':
			eo.dwarf = false; /* the last -g decides */
			eo.user_copy = WC_USER_COPY_DEFAULT;
			if (!strcmp(optarg, "fp")) {
				eo.callchains = true;
			} else if (!strncmp(optarg, "fp,", 3)) {
				long size = strtol(optarg + 3, &end, 10);

				if (!optarg[3] || *end || size < 0 || size > 65528 || size % 8)
					return bad("-g fp,SIZE wants a multiple of 8 from 0 to 65528 "
						   "bytes, not '%s'", optarg);
				eo.callchains = true;
				eo.user_copy = (unsigned)size;
			} else if (!strcmp(optarg, "dwarf") || !strncmp(optarg, "dwarf,", 6)) {
				long size = optarg[5] ? strtol(optarg + 6, &end, 10) : 8192;

				if (optarg[5] && (!optarg[6] || *end || size < 8 || size > 65528 ||
						  size % 8))
					return bad("-g dwarf,SIZE wants a multiple of 8 from 8 to 65528 "
						   "bytes, not '%s'", optarg);
				eo.callchains = true;
				eo.dwarf = true;
				eo.user_copy = (unsigned)size;
			} else if (!strcmp(optarg, "none")) {
				eo.callchains = false;
			} else {
				return bad("-g wants fp, fp,SIZE, dwarf, dwarf,SIZE or none, not '%s'",
					   optarg);
			}
			break;
		case OPT_NO_SAMPLES:
			eo.samples = false;
			break;
		case OPT_NO_SCHED:
			eo.sched = false;
			break;
		case OPT_NO_KSTACKS:
			eo.kernel_stacks = false;
			break;
		case OPT_NO_USTACKS:
			eo.user_stacks = false;
			break;
		case OPT_WAKER_STACKS:
			eo.waker_stacks = true;
			break;
		case OPT_MIGRATIONS:
			eo.migrations = true;
			break;
		case OPT_RUNTIME:
			eo.runtime = 2;
			break;
		case OPT_FULL_KALLSYMS:
			full_kallsyms = true;
			break;
		case OPT_NO_RUNTIME:
			eo.runtime = 0;
			break;
		case OPT_NO_SWITCH_RECORDS:
			eo.no_switch_records = true;
			break;
		case OPT_WAKEUP_EVENT:
			if (!strcmp(optarg, "waking"))
				eo.wakeup = WC_WAKEUP_WAKING;
			else if (!strcmp(optarg, "wakeup"))
				eo.wakeup = WC_WAKEUP_WAKEUP;
			else if (!strcmp(optarg, "both"))
				eo.wakeup = WC_WAKEUP_BOTH;
			else
				return bad("--wakeup-event wants waking, wakeup or both, not '%s'", optarg);
			break;
		case 'q':
			verbose = 0;
			break;
		case 'v':
			verbose = 2;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (npids && optind < argc)
		return bad("%s", "give either -p PID or a COMMAND, not both");
	if (npids && all)
		return bad("%s", "give either -p PID or -a, not both");
	if (!eo.samples && !eo.sched)
		return bad("%s", "nothing to record: both --no-samples and --no-sched");
	for (int i = 0; i < npids; i++) {
		if (wc_target_init(&targets[i], pids[i])) {
			fprintf(stderr, "wcrec: no process %d\n", pids[i]);
			return 2;
		}
	}
	if (npids && children) /* the processes they forked before: a server's workers */
		npids = add_descendants(pids, npids, targets, verbose);
	if (eo.ncpus) { /* -C: each CPU named must be online (perf_event_open says only EINVAL) */
		static int online[MAX_CPUS];
		int n = online_cpus(online, MAX_CPUS);

		for (int i = 0; i < eo.ncpus && n > 0; i++) {
			int k = 0;

			while (k < n && online[k] != cpus[i])
				k++;
			if (k == n) {
				char cpu[16];

				snprintf(cpu, sizeof(cpu), "%d", cpus[i]);
				return bad("-C: CPU %s is not online here "
					   "(/sys/devices/system/cpu/online)", cpu);
			}
		}
	}
	if (!eo.ncpus) {
		eo.ncpus = online_cpus(cpus, MAX_CPUS);
		if (eo.ncpus <= 0) {
			fprintf(stderr, "wcrec: cannot read the online CPUs\n");
			return 1;
		}
	}
	eo.cpus = cpus;

	if (eo.sched) {
		unsigned flags = WC_TRACEFS_MOUNT;
		bool mounted = false, debugfs = false;

		if (getenv("WCREC_FORCE_DEBUGFS"))
			flags |= WC_TRACEFS_FORCE_DEBUGFS;
		err = wc_tracefs_find(tracefs, sizeof(tracefs), flags, &mounted, &debugfs);
		if (err) {
			fprintf(stderr, "wcrec: cannot find or mount tracefs: %s\n", strerror(-err));
			return 1;
		}
		if (verbose > 1 && mounted)
			fprintf(stderr, "wcrec: mounted %s\n", tracefs);
		if (verbose > 1 && debugfs)
			fprintf(stderr, "wcrec: fallback: tracing directory under debugfs\n");
	}
	eo.tracefs = tracefs;
	eo.force_no_clockid = getenv("WCREC_FORCE_NO_CLOCKID") != NULL;
	eo.force_no_build_id = getenv("WCREC_FORCE_NO_BUILD_ID") != NULL;
	eo.force_no_cycles = getenv("WCREC_FORCE_NO_CYCLES") != NULL;
	eo.force_no_runtime = getenv("WCREC_FORCE_NO_RUNTIME") != NULL;
	eo.force_no_switch_records = getenv("WCREC_FORCE_NO_SWITCH_RECORDS") != NULL;

	raise_nofile();
	ev = wc_events_open(&eo, &why);
	if (!ev) {
		fprintf(stderr, "wcrec: %s\n", why ? why : strerror(errno));
		return errno == EINVAL || errno == ENOENT ? 2 : 1;
	}
	if (verbose > 1) {
		if (wc_events_fallback(ev, "cycles"))
			fprintf(stderr, "wcrec: fallback: no PMU cycles, sampling on cpu-clock\n");
		if (wc_events_fallback(ev, "clockid"))
			fprintf(stderr, "wcrec: fallback: no use_clockid, times on perf's clock\n");
		if (wc_events_fallback(ev, "build-id"))
			fprintf(stderr, "wcrec: fallback: no build-ids in MMAP2 records\n");
		if (wc_events_fallback(ev, "runtime"))
			fprintf(stderr, "wcrec: fallback: no sched_stat_runtime\n");
		if (eo.sched && wc_events_fallback(ev, "switch"))
			fprintf(stderr, "wcrec: fallback: no context-switch records\n");
	}
	if (verbose && eo.samples)
		fprintf(stderr, "wcrec: sampling on %s at %u Hz\n", wc_events_sample_name(ev),
			eo.freq_hz);

	fd = create_output(out);
	if (fd == -EEXIST) {
		fprintf(stderr, "wcrec: %s: is %s, not a regular file or a character device: refusing "
				"to write the trace there (nothing renamed)\n", out, output_kind(out));
		ret = 2;
		goto out;
	}
	if (fd < 0) {
		fprintf(stderr, "wcrec: %s: cannot create the trace file: %s\n", out, strerror(-fd));
		goto out;
	}
	wo.level = level;
	w = wc_writer_new(fd, &wo);
	if (!w) {
		fprintf(stderr, "wcrec: %s: %s\n", out, strerror(errno));
		goto out;
	}

	signal(SIGPIPE, SIG_IGN);
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL);

	if (optind < argc) {
		if (pipe2(go, O_CLOEXEC)) {
			perror("wcrec: pipe");
			goto out;
		}
		child = fork();
		if (child < 0) {
			perror("wcrec: fork");
			goto out;
		}
		if (child == 0) {
			char x;

			close(go[1]);
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			if (read(go[0], &x, 1) != 1)
				_exit(127);
			execvp(argv[optind], argv + optind);
			fprintf(stderr, "wcrec: cannot run %s: %s\n", argv[optind], strerror(errno));
			_exit(127);
		}
		close(go[0]);
		go[0] = -1;
		if (!all) {
			pids[0] = child;
			npids = 1;
		}
	}

	char note[64];
	struct wc_meta_task_stats ts = { 0 };
	struct wc_kallsyms *snapshot = NULL;
	bool kptr_hidden = false;

	snprintf(note, sizeof(note), "%d", (int)getpid());
	err = wc_meta_write_host(w);
	if (!err)
		err = wc_meta_write_clock(w, wc_events_clockid(ev));
	if (!err)
		err = wc_events_write_meta(ev, w);
	if (!err)
		err = wc_events_write_formats(ev, w, tracefs);
	if (!err)
		err = wc_meta_write_note(w, "recorder_pid", note);
	if (!err)
		err = wc_meta_write_note(w, "target", npids ? (child > 0 ? "command" : "pids")
							  : "system-wide");
	for (int i = 0; !err && i < npids; i++) {
		snprintf(note, sizeof(note), "%d", pids[i]);
		err = wc_meta_write_note(w, "target_pid", note);
	}
	if (!err)
		err = wc_meta_write_vdso(w, NULL);
	if (!err)
		err = wc_meta_write_kallsyms(w, full_kallsyms, &snapshot, &kptr_hidden);
	if (!err && snapshot) {
		kw = wc_ksym_writer_new(snapshot);
		if (!kw)
			err = -ENOMEM;
		else
			wc_writer_set_stack_hook(w, wc_ksym_writer_stack, kw);
	}
	if (!err)
		err = wc_meta_write_tasks(w, wc_events_clockid(ev), pids, (size_t)npids, getpid(),
					  &ts, &tasks);
	if (!err)
		err = wc_writer_flush(w);
	if (err) {
		fprintf(stderr, "wcrec: %s: %s\n", out, wc_strerror(err));
		goto out;
	}
	if (kptr_hidden && verbose)
		fprintf(stderr, "wcrec: kernel addresses are hidden (kptr_restrict): kernel frames "
				"will not be symbolized\n");

	/* the recorder unwinds the target's stacks only (-p with its children, COMMAND) */
	if (npids && !all && wc_events_set_targets(ev, pids, npids)) {
		fprintf(stderr, "wcrec: out of memory\n");
		goto out;
	}
	err = wc_events_enable(ev, true);
	if (err) {
		fprintf(stderr, "wcrec: cannot enable the events: %s\n", strerror(-err));
		goto out;
	}
	t_start = clock_now(wc_events_clockid(ev));
	/* the threads that exited between the snapshot and now, which no EXIT event tells */
	err = wc_meta_write_gone(w, wc_events_clockid(ev), &tasks, NULL);
	wc_meta_snapshot_fini(&tasks);
	if (err) {
		fprintf(stderr, "wcrec: %s: %s\n", out, wc_strerror(err));
		goto out;
	}
	if (child > 0) {
		if (write(go[1], "x", 1) != 1) {
			perror("wcrec: starting the command");
			goto out;
		}
		close(go[1]);
		go[1] = -1;
	}

	deadline = duration > 0 ? t_start + (uint64_t)(duration * 1e9) : 0;
	for (;;) {
		uint64_t now = clock_now(wc_events_clockid(ev));
		int n;

		/* -d: wake at the deadline, not up to 100 ms after it */
		n = wc_events_poll(ev, !deadline			       ? 100
				       : now >= deadline		       ? 0
				       : deadline - now >= 100000000ull ? 100
							: (int)((deadline - now + 999999) / 1000000));

		if (n < 0 && n != -EINTR) {
			fprintf(stderr, "wcrec: poll: %s\n", strerror(-n));
			break;
		}
		err = wc_events_drain(ev, w, getpid(), &ds);
		if (!err)
			err = wc_writer_tick(w);
		if (err) {
			fprintf(stderr, "wcrec: %s: %s: stopping; the file is readable up to here\n",
				out, wc_strerror(err));
			trailer_flags |= WC_TRAILER_WRITE_ERROR;
			break;
		}
		if (stop_signal) {
			trailer_flags |= WC_TRAILER_INTERRUPTED;
			break;
		}
		if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
			reaped = true;
			break;
		}
		if (child < 0 && wc_targets_gone(targets, (size_t)npids)) { /* as perf record -p */
			targets_gone = true;
			break;
		}
		if (deadline && clock_now(wc_events_clockid(ev)) >= deadline)
			break;
	}
	wc_events_enable(ev, false);
	t_end = clock_now(wc_events_clockid(ev)); /* the recording's end: no event comes after */
	if (!(trailer_flags & WC_TRAILER_WRITE_ERROR)) {
		err = wc_events_drain(ev, w, getpid(), &ds);
		if (!err)
			err = wc_events_write_end_notes(ev, w);
		if (!err)
			err = wc_writer_close(w, t_end, trailer_flags);
		if (err) {
			fprintf(stderr, "wcrec: %s: %s\n", out, wc_strerror(err));
			trailer_flags |= WC_TRAILER_WRITE_ERROR;
		}
	}

	if (verbose) {
		struct wc_writer_stats ws;
		uint64_t events = ds.switches + ds.wakeups + ds.other_tp + ds.samples;

		wc_writer_stats(w, &ws);
		fprintf(stderr,
			"wcrec: %s: %.2f s, %" PRIu64 " switches, %" PRIu64 " wakeups, %" PRIu64
			" other tracepoints, %" PRIu64
			" samples, %" PRIu64 " comm/fork/exit/mmap, %" PRIu64 " lost, %.1f MB written, "
			"%.2f bytes/event, compression %.1fx%s\n",
			out, (double)(t_end - t_start) / 1e9, ds.switches, ds.wakeups, ds.other_tp,
			ds.samples,
			ds.comm + ds.fork + ds.exit + ds.mmap, ds.lost_records + ds.lost_samples,
			ws.bytes_written / 1e6, events ? (double)ws.bytes_written / events : 0.0,
			ws.bytes_written ? (double)ws.bytes_uncompressed / ws.bytes_written : 0.0,
			!targets_gone ? ""
			: npids > 1   ? "; stopped: every -p process exited"
				      : "; stopped: the -p process exited");
		if (verbose > 1 && ds.ring_bytes)
			fprintf(stderr,
				"wcrec: peak ring-buffer fill %.1f%% (%" PRIu64 " of %" PRIu64
				" kB, CPU %d), %.0f events/s\n",
				100.0 * (double)ds.peak_fill / (double)ds.ring_bytes, ds.peak_fill / 1024,
				ds.ring_bytes / 1024, ds.peak_fill_cpu,
				t_end > t_start ? (double)events * 1e9 / (double)(t_end - t_start) : 0.0);
		if (verbose > 1)
			print_unwind_stats(ev, &ds);
		if (verbose > 1 && ds.runtime_dropped)
			fprintf(stderr,
				"wcrec: %" PRIu64 " sched_stat_runtime events dropped: after the first "
				"of a thread's run, which alone places a switch-in\n",
				ds.runtime_dropped);
		if (verbose > 1 && eo.sched && !eo.no_switch_records &&
		    !wc_events_fallback(ev, "switch"))
			fprintf(stderr,
				"wcrec: %" PRIu64 " switch-ins that no sched_switch showed, taken "
				"from context-switch records\n", ds.switch_ins);
	}
	ret = (trailer_flags & WC_TRAILER_WRITE_ERROR) ? 1 : 0;
	if (reaped)
		ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out:
	wc_meta_snapshot_fini(&tasks);
	if (child > 0 && !reaped) { /* set-up failed, or we were stopped: do not leave COMMAND behind */
		if (go[1] >= 0) {
			close(go[1]);
			go[1] = -1;
		}
		if (stop_signal)
			kill(child, SIGTERM);
		waitpid(child, &status, 0);
		if (stop_signal && WIFEXITED(status))
			ret = ret ? ret : WEXITSTATUS(status);
	}
	wc_writer_free(w);
	wc_ksym_writer_free(kw);
	if (fd >= 0)
		close(fd);
	wc_events_free(ev);
	return ret;
}
