/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * options.c - wcrec's command line: the usage text, each option parsed and validated once,
 * the combinations refused, and -C checked against the online CPUs.
 */
#include "recorder/options.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WC_STR_(x) #x
#define WC_STR(x)  WC_STR_(x)

static const char usage[] =
	"usage: wcrec [options] -- COMMAND [ARGS]   record COMMAND until it exits\n"
	"       wcrec [options] -p PID[,PID...]     record running processes and their\n"
	"                                           descendants, until they all exit\n"
	"       wcrec [options] -a [-- COMMAND]     system-wide (the default)\n"
	"  -o FILE          output (default wcrec.wct; an existing one is kept as FILE.old)\n"
	"  -d SECONDS       stop after this long (also on SIGINT/SIGTERM, and when COMMAND or\n"
	"                   every -p process exits)\n"
	"  --rotate PERIOD|SIZE  a new file every PERIOD (10s, 5m, 1h) or SIZE (100M, 2G), each\n"
	"                   complete, named FILE with its start time (trace.20261127041530123.wct)\n"
	"  --keep N         --rotate: keep the last N files closed (and the open one)\n"
	"  --on-rotate CMD  --rotate: run sh -c CMD on each file closed, its path as $1\n"
	"  --no-children    -p: the processes named only, not those they forked before\n"
	"  --per-task       -p, COMMAND: the target's own events, not every CPU's: the rest of\n"
	"                   the host pays nothing; switch-ins placed within a few us (wcrec(1))\n"
	"  -F HZ            CPU sampling frequency (default 99)\n"
	"  -e EVENT         sampling event: cycles, cpu-clock or task-clock (default cycles where\n"
	"                   the PMU has it, else cpu-clock)\n"
	"  --no-samples     scheduler events only\n"
	"  --no-sched       CPU samples only\n"
	"  -g fp[,SIZE]     callchains by frame pointers, user and kernel (the default); the\n"
	"                   top of a user stack is mended by CFI from a SIZE-byte copy (default\n"
	"                   " WC_STR(
		WC_USER_COPY_DEFAULT) ", a multiple of 8; 0: no copy)\n"
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
				      "  --no-symbols     no names of user functions in the file (default: those the\n"
				      "                   callchains refer to, so that it is analysed anywhere)\n"
				      "  -C CPUS          record these CPUs only (0,2-3)\n"
				      "  -m PAGES         ring-buffer data pages per CPU, a power of two (default 2048)\n"
				      "  -z LEVEL         zstd level (default 3)\n"
				      "  -q, -v           quieter, more verbose\n"
				      "  -h, --help       this text\n";

enum {
	OPT_NO_SAMPLES = 256,
	OPT_NO_SCHED,
	OPT_NO_KSTACKS,
	OPT_NO_USTACKS,
	OPT_WAKER_STACKS,
	OPT_MIGRATIONS,
	OPT_RUNTIME,
	OPT_NO_RUNTIME,
	OPT_NO_SWITCH_RECORDS,
	OPT_WAKEUP_EVENT,
	OPT_FULL_KALLSYMS,
	OPT_NO_SYMBOLS,
	OPT_NO_CHILDREN,
	OPT_PER_TASK,
	OPT_ROTATE,
	OPT_KEEP,
	OPT_ON_ROTATE,
};

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "duration", required_argument, NULL, 'd' },
	{ "freq", required_argument, NULL, 'F' },
	{ "event", required_argument, NULL, 'e' },
	{ "pid", required_argument, NULL, 'p' },
	{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
	{ "per-task", no_argument, NULL, OPT_PER_TASK },
	{ "rotate", required_argument, NULL, OPT_ROTATE },
	{ "keep", required_argument, NULL, OPT_KEEP },
	{ "on-rotate", required_argument, NULL, OPT_ON_ROTATE },
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
	{ "no-symbols", no_argument, NULL, OPT_NO_SYMBOLS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

int wc_rec_bad(const char *fmt, const char *arg)
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

		if (end == s || a < 0 || a >= WC_REC_MAX_CPUS)
			return -1;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b >= WC_REC_MAX_CPUS)
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

/* -g fp[,SIZE], dwarf[,SIZE] or none; the last -g decides.  Return: -1, or 2 when bad. */
static int parse_call_graph(struct wc_events_opts *eo, const char *arg)
{
	char *end;

	eo->dwarf = false;
	eo->user_copy = WC_USER_COPY_DEFAULT;
	if (!strcmp(arg, "fp")) {
		eo->callchains = true;
	} else if (!strncmp(arg, "fp,", 3)) {
		long size = strtol(arg + 3, &end, 10);

		if (!arg[3] || *end || size < 0 || size > 65528 || size % 8)
			return wc_rec_bad("-g fp,SIZE wants a multiple of 8 from 0 to 65528 "
					  "bytes, not '%s'",
					  arg);
		eo->callchains = true;
		eo->user_copy = (unsigned)size;
	} else if (!strcmp(arg, "dwarf") || !strncmp(arg, "dwarf,", 6)) {
		long size = arg[5] ? strtol(arg + 6, &end, 10) : 8192;

		if (arg[5] && (!arg[6] || *end || size < 8 || size > 65528 || size % 8))
			return wc_rec_bad("-g dwarf,SIZE wants a multiple of 8 from 8 to 65528 "
					  "bytes, not '%s'",
					  arg);
		eo->callchains = true;
		eo->dwarf = true;
		eo->user_copy = (unsigned)size;
	} else if (!strcmp(arg, "none")) {
		eo->callchains = false;
	} else {
		return wc_rec_bad("-g wants fp, fp,SIZE, dwarf, dwarf,SIZE or none, not '%s'", arg);
	}
	return -1;
}

/* -p PID[,PID...], added to those of an earlier -p.  Return: -1, or 2 when bad. */
static int parse_pids(struct wc_rec_opts *o, const char *arg)
{
	for (const char *s = arg; *s;) {
		char *end;
		long p = strtol(s, &end, 10);

		if (end == s || p <= 0 || o->npids == WC_REC_MAX_PIDS || (*end && *end != ','))
			return wc_rec_bad("-p wants process ids separated by commas, not '%s'",
					  arg);
		o->pids[o->npids++] = (int)p;
		s = *end ? end + 1 : end;
	}
	return -1;
}

/* The options with a number.  Return: -1, or 2 when @arg is bad. */
static int parse_number(struct wc_rec_opts *o, int c, const char *arg)
{
	char *end;
	long v;

	if (c == 'd') {
		o->duration_s = strtod(arg, &end);
		if (*end || !(o->duration_s > 0) || o->duration_s > 1e9) /* 31 years: no overflow */
			return wc_rec_bad("-d wants a positive number of seconds, at most 1e9, "
					  "not '%s'",
					  arg);
		return -1;
	}
	v = strtol(arg, &end, 10);
	if (c == 'F') {
		if (*end || v < 1 || v > 100000)
			return wc_rec_bad("-F wants a frequency in Hz from 1 to 100000, not '%s'",
					  arg);
		o->eo.freq_hz = (unsigned)v;
	} else if (c == 'm') {
		if (*end || v < 1 || v > (1 << 20) || (v & (v - 1)))
			return wc_rec_bad("-m wants a power of two of pages, not '%s'", arg);
		o->eo.pages = (unsigned)v;
	} else { /* -z */
		o->level = (int)v;
		if (*end || o->level < 1 || o->level > 19)
			return wc_rec_bad("-z wants a zstd level from 1 to 19, not '%s'", arg);
	}
	return -1;
}

/* The options with a value.  Return: -1, or 2 when @arg is bad. */
static int parse_value(struct wc_rec_opts *o, int c, const char *arg)
{
	int e;

	switch (c) {
	case 'e':
		e = wc_events_sample_parse(arg);
		if (e < 0)
			return wc_rec_bad("unknown event '%s': use cycles, cpu-clock or task-clock",
					  arg);
		o->eo.sample_event = e;
		return -1;
	case 'p':
		return parse_pids(o, arg);
	case 'C':
		o->eo.ncpus = parse_cpus(arg, o->cpus, WC_REC_MAX_CPUS);
		if (o->eo.ncpus <= 0)
			return wc_rec_bad("-C wants CPU numbers like 0,2-3, not '%s'", arg);
		return -1;
	case 'g':
		return parse_call_graph(&o->eo, arg);
	case OPT_ROTATE:
		if (wc_rotate_parse(arg, &o->rotate.period_ns, &o->rotate.size_bytes))
			return wc_rec_bad("--rotate wants a period (10s, 5m, 1h) or a size of at "
					  "least 4096B (512K, 100M, 2G), not '%s'",
					  arg);
		return -1;
	case OPT_KEEP: {
		char *end;
		long v = strtol(arg, &end, 10);

		if (*end || v < 1 || v > 1000000)
			return wc_rec_bad("--keep wants a number of files from 1, not '%s'", arg);
		o->rotate.keep = (unsigned)v;
		return -1;
	}
	case OPT_ON_ROTATE:
		o->rotate.on_rotate = arg;
		return -1;
	case OPT_WAKEUP_EVENT:
		if (!strcmp(arg, "waking"))
			o->eo.wakeup = WC_WAKEUP_WAKING;
		else if (!strcmp(arg, "wakeup"))
			o->eo.wakeup = WC_WAKEUP_WAKEUP;
		else if (!strcmp(arg, "both"))
			o->eo.wakeup = WC_WAKEUP_BOTH;
		else
			return wc_rec_bad("--wakeup-event wants waking, wakeup or both, not '%s'",
					  arg);
		return -1;
	default: /* -d -F -m -z */
		return parse_number(o, c, arg);
	}
}

/* The options without a value.  Return: -1, 0 after --help, or 2 for an unknown option. */
static int parse_flag(struct wc_rec_opts *o, int c)
{
	switch (c) {
	case 'a':
		o->all = true;
		break;
	case OPT_NO_CHILDREN:
		o->children = false;
		break;
	case OPT_PER_TASK:
		o->per_task = true;
		break;
	case OPT_NO_SAMPLES:
		o->eo.samples = false;
		break;
	case OPT_NO_SCHED:
		o->eo.sched = false;
		break;
	case OPT_NO_KSTACKS:
		o->eo.kernel_stacks = false;
		break;
	case OPT_NO_USTACKS:
		o->eo.user_stacks = false;
		break;
	case OPT_WAKER_STACKS:
		o->eo.waker_stacks = true;
		break;
	case OPT_MIGRATIONS:
		o->eo.migrations = true;
		break;
	case OPT_RUNTIME:
		o->eo.runtime = 2;
		break;
	case OPT_NO_RUNTIME:
		o->eo.runtime = 0;
		break;
	case OPT_FULL_KALLSYMS:
		o->full_kallsyms = true;
		break;
	case OPT_NO_SYMBOLS:
		o->no_symbols = true;
		break;
	case OPT_NO_SWITCH_RECORDS:
		o->eo.no_switch_records = true;
		break;
	case 'q':
		o->verbose = 0;
		break;
	case 'v':
		o->verbose = 2;
		break;
	case 'h':
		fputs(usage, stdout);
		return 0;
	default:
		fputs(usage, stderr);
		return 2;
	}
	return -1;
}

/* --keep and --on-rotate need --rotate, which needs a file.  Return: -1, or 2. */
static int check_rotate(const struct wc_rec_opts *o)
{
	bool on = o->rotate.period_ns || o->rotate.size_bytes;

	if (!on && (o->rotate.keep || o->rotate.on_rotate))
		return wc_rec_bad("%s", "--keep and --on-rotate go with --rotate");
	if (on && (!strcmp(o->out, "-") || !strncmp(o->out, "/dev/", 5)))
		return wc_rec_bad("--rotate writes files: -o '%s' is not one", o->out);
	return -1;
}

int wc_rec_opts_parse(struct wc_rec_opts *o, int argc, char **argv)
{
	int c, ret = -1;

	o->eo = (struct wc_events_opts){
		.samples = true,
		.sched = true,
		.freq_hz = 99,
		.callchains = true,
		.kernel_stacks = true,
		.user_stacks = true,
		.pages = 2048,
		.runtime = 1,
		.user_copy = WC_USER_COPY_DEFAULT,
	};
	o->npids = 0;
	o->command = NULL;
	o->out = "wcrec.wct";
	o->duration_s = 0;
	o->level = 3;
	o->verbose = 1;
	o->all = o->full_kallsyms = o->no_symbols = false;
	o->children = true;
	o->per_task = false;
	o->rotate = (struct wc_rotate_opts){ 0 };
	while (ret < 0 &&
	       (c = getopt_long(argc, argv, "+o:d:F:e:p:aC:m:z:g:qvh", longopts, NULL)) != -1) {
		if (c == 'o')
			o->out = optarg;
		else if ((c < OPT_NO_SAMPLES && strchr("dFepCmzg", c)) || c == OPT_WAKEUP_EVENT ||
			 c == OPT_ROTATE || c == OPT_KEEP || c == OPT_ON_ROTATE)
			ret = parse_value(o, c, optarg);
		else
			ret = parse_flag(o, c);
	}
	if (ret >= 0)
		return ret;
	if (optind < argc)
		o->command = argv + optind;
	if (o->npids && o->command)
		return wc_rec_bad("%s", "give either -p PID or a COMMAND, not both");
	if (o->npids && o->all)
		return wc_rec_bad("%s", "give either -p PID or -a, not both");
	if (!o->eo.samples && !o->eo.sched)
		return wc_rec_bad("%s", "nothing to record: both --no-samples and --no-sched");
	if (o->per_task && (o->all || (!o->npids && !o->command)))
		return wc_rec_bad("%s", "--per-task goes with -p PID or a COMMAND, without -a");
	return check_rotate(o);
}

int wc_rec_opts_cpus(struct wc_rec_opts *o)
{
	static int online[WC_REC_MAX_CPUS];

	if (o->eo.ncpus) { /* -C: each CPU named must be online (perf_event_open says EINVAL) */
		int n = online_cpus(online, WC_REC_MAX_CPUS);

		for (int i = 0; i < o->eo.ncpus && n > 0; i++) {
			int k = 0;

			while (k < n && online[k] != o->cpus[i])
				k++;
			if (k == n) {
				char cpu[16];

				snprintf(cpu, sizeof(cpu), "%d", o->cpus[i]);
				return wc_rec_bad("-C: CPU %s is not online here "
						  "(/sys/devices/system/cpu/online)",
						  cpu);
			}
		}
	} else {
		o->eo.ncpus = online_cpus(o->cpus, WC_REC_MAX_CPUS);
		if (o->eo.ncpus <= 0) {
			fprintf(stderr, "wcrec: cannot read the online CPUs\n");
			return 1;
		}
	}
	o->eo.cpus = o->cpus;
	return -1;
}
