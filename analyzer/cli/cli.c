/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.c - see cli.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyzer/cli/cli.h"
#include "analyzer/reports/info.h"
#include "analyzer/core/skid.h"

enum {
	O_COMM = 256,
	O_TIME,
	O_STATE,
	O_MODE,
	O_PER_THREAD,
	O_ANNOTATE,
	O_UNIT,
	O_NO_CALIBRATE,
	O_SYMFS,
	O_DEBUG_DIR,
	O_DEBUGINFOD,
	O_KALLSYMS,
	O_INLINE,
	O_ALL_TASKS,
	O_MAX_MEMORY,
	O_SKID,
	O_PER_FILE
};

struct shared_opt {
	unsigned group;
	struct option opt;
	const char *letters; /* its getopt letters, or "" */
};

static const struct shared_opt shared[] = {
	{ WC_CLI_FILTER, { "pid", required_argument, NULL, 'p' }, "p:" },
	{ WC_CLI_FILTER, { "tid", required_argument, NULL, 't' }, "t:" },
	{ WC_CLI_FILTER, { "comm", required_argument, NULL, O_COMM }, "" },
	{ WC_CLI_FILTER, { "all-tasks", no_argument, NULL, O_ALL_TASKS }, "" },
	{ WC_CLI_FILTER, { "time", required_argument, NULL, O_TIME }, "" },
	{ WC_CLI_OFFCPU, { "state", required_argument, NULL, O_STATE }, "" },
	{ WC_CLI_OFFCPU, { "min-block", required_argument, NULL, 'm' }, "m:" },
	{ WC_CLI_OFFCPU, { "max-block", required_argument, NULL, 'M' }, "M:" },
	{ WC_CLI_STACKS, { "mode", required_argument, NULL, O_MODE }, "" },
	{ WC_CLI_STACKS, { "user-stacks-only", no_argument, NULL, 'U' }, "U" },
	{ WC_CLI_STACKS, { "kernel-stacks-only", no_argument, NULL, 'K' }, "K" },
	{ WC_CLI_STACKS, { "per-thread", no_argument, NULL, O_PER_THREAD }, "" },
	{ WC_CLI_STACKS, { "delimiter", no_argument, NULL, 'd' }, "d" },
	{ WC_CLI_STACKS, { "annotate", no_argument, NULL, O_ANNOTATE }, "" },
	{ WC_CLI_STACKS, { "unit", required_argument, NULL, O_UNIT }, "" },
	{ WC_CLI_STACKS, { "no-calibrate", no_argument, NULL, O_NO_CALIBRATE }, "" },
	{ WC_CLI_STACKS, { "skid", required_argument, NULL, O_SKID }, "" },
	{ WC_CLI_SYMBOLS, { "symfs", required_argument, NULL, O_SYMFS }, "" },
	{ WC_CLI_SYMBOLS, { "debug-dir", required_argument, NULL, O_DEBUG_DIR }, "" },
	{ WC_CLI_SYMBOLS, { "debuginfod", optional_argument, NULL, O_DEBUGINFOD }, "" },
	{ WC_CLI_SYMBOLS, { "kallsyms", required_argument, NULL, O_KALLSYMS }, "" },
	{ WC_CLI_SYMBOLS, { "inline", no_argument, NULL, O_INLINE }, "" },
	{ WC_CLI_PER_FILE, { "per-file", no_argument, NULL, O_PER_FILE }, "" },
	{ 0, { "max-memory", required_argument, NULL, O_MAX_MEMORY }, "" }, /* every subcommand */
};

#define NSHARED	  (sizeof(shared) / sizeof(shared[0]))
#define MAX_EXTRA 48

int wc_cli_unit(const char *arg, enum wc_unit *unit)
{
	if (!strcmp(arg, "us"))
		*unit = WC_UNIT_US;
	else if (!strcmp(arg, "ms"))
		*unit = WC_UNIT_MS;
	else if (!strcmp(arg, "ns"))
		*unit = WC_UNIT_NS;
	else
		return wc_cli_bad("--unit is us, ms or ns", arg);
	return 0;
}

int wc_cli_bad(const char *what, const char *arg)
{
	fprintf(stderr, "wcanalyze: %s: %s (see wcanalyze --help)\n", what, arg);
	return WC_EXIT_USAGE;
}

int wc_cli_parse_ids(const char *s, uint32_t *ids, int max)
{
	int n = 0;

	while (*s) {
		char *end;
		unsigned long v;

		if (*s < '0' || *s > '9' || n == max)
			return -1;
		v = strtoul(s, &end, 10);
		if (v > UINT32_MAX || (*end && *end != ','))
			return -1;
		ids[n++] = (uint32_t)v;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

static int parse_double(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return end != s && *end == 0 && *v >= 0 ? 0 : -1;
}

static int parse_time(struct wc_filter *f, const char *arg)
{
	const char *comma = strchr(arg, ',');
	char start[64] = "", end[64] = "";

	if (!comma || comma - arg >= 64 || strlen(comma + 1) >= 64)
		return wc_cli_bad("--time wants START,END in seconds", arg);
	memcpy(start, arg, (size_t)(comma - arg));
	strcpy(end, comma + 1);
	f->have_time = true;
	if ((start[0] && parse_double(start, &f->start_s)) ||
	    (end[0] && parse_double(end, &f->end_s)) || (end[0] && f->end_s <= f->start_s))
		return wc_cli_bad("--time wants START,END in seconds, START < END", arg);
	return 0;
}

static int parse_states(struct wc_cli *c, const char *arg)
{
	int n = 0;

	for (const char *s = arg; *s; s++) {
		if (*s == ',')
			continue;
		if ((s[1] && s[1] != ',') || n == 63 ||
		    !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')))
			return wc_cli_bad("--state wants letters such as S,D,R", arg);
		c->states[n++] = *s;
	}
	if (!n)
		return wc_cli_bad("--state wants letters such as S,D,R", arg);
	c->states[n] = 0;
	c->prof.filter.states = c->states;
	return 0;
}

/*
 * --max-memory SIZE: bytes, with an optional binary suffix K, M, G or T (as perf's sizes);
 * 0 for no limit.  Return: 0 or an exit status.
 */
static int parse_memory(struct wc_cli *c, const char *arg)
{
	static const char units[] = "KMGT";
	unsigned long long v;
	char *end;
	const char *u;
	int shift = 0;

	if (*arg < '0' || *arg > '9')
		return wc_cli_bad("--max-memory wants a size such as 512M or 4G", arg);
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (*end && (u = memchr(units, *end & ~0x20, 4)) && !end[1])
		shift = 10 * (int)(u - units + 1);
	else if (*end)
		return wc_cli_bad("--max-memory wants a size such as 512M or 4G", arg);
	if (errno || v > (UINT64_MAX >> shift))
		return wc_cli_bad("--max-memory is too large", arg);
	c->max_memory = v ? (uint64_t)v << shift : UINT64_MAX;
	return 0;
}

/* One shared option; 0 or an exit status. */
static int shared_option(struct wc_cli *c, int opt, const char *arg)
{
	struct wc_profile_opts *o = &c->prof;
	double v;
	int n;

	switch (opt) {
	case 'p':
	case 't':
		n = wc_cli_parse_ids(arg, opt == 'p' ? c->pids : c->tids, WC_CLI_MAX_IDS);
		if (n <= 0)
			return wc_cli_bad(opt == 'p' ? "bad PID list" : "bad TID list", arg);
		if (opt == 'p') {
			o->filter.pids = c->pids;
			o->filter.npids = (size_t)n;
		} else {
			o->filter.tids = c->tids;
			o->filter.ntids = (size_t)n;
		}
		return 0;
	case O_COMM:
		o->filter.comm = arg;
		return 0;
	case O_ALL_TASKS:
		o->filter.all_tasks = true;
		return 0;
	case O_TIME:
		return parse_time(&o->filter, arg);
	case O_STATE:
		return parse_states(c, arg);
	case 'm':
	case 'M':
		if (parse_double(arg, &v))
			return wc_cli_bad(opt == 'm' ? "bad --min-block" : "bad --max-block", arg);
		if (opt == 'm')
			o->filter.min_block_ns = (uint64_t)(v * 1000);
		else
			o->filter.max_block_ns = (uint64_t)(v * 1000);
		return 0;
	case O_MODE:
		if (!strcmp(arg, "wall"))
			o->mode = WC_MODE_WALL;
		else if (!strcmp(arg, "off"))
			o->mode = WC_MODE_OFF;
		else if (!strcmp(arg, "on"))
			o->mode = WC_MODE_ON;
		else
			return wc_cli_bad("--mode is off, on or wall", arg);
		return 0;
	case 'U':
		o->user_only = true;
		return 0;
	case 'K':
		o->kernel_only = true;
		return 0;
	case O_PER_THREAD:
		o->per_thread = true;
		return 0;
	case 'd':
		o->delimiter = true;
		return 0;
	case O_ANNOTATE:
		o->annotate = true;
		return 0;
	case O_UNIT:
		return wc_cli_unit(arg, &o->unit);
	case O_NO_CALIBRATE:
		o->no_calibrate = true;
		return 0;
	case O_SKID:
		if (!strcmp(arg, "auto"))
			o->skid = WC_SKID_AUTO;
		else if (!strcmp(arg, "scheduler"))
			o->skid = WC_SKID_SCHEDULER;
		else if (!strcmp(arg, "keep"))
			o->skid = WC_SKID_KEEP;
		else
			return wc_cli_bad("--skid is auto, scheduler or keep", arg);
		return 0;
	case O_SYMFS:
		c->paths.symfs = arg;
		return 0;
	case O_KALLSYMS:
		if (access(arg, R_OK))
			return wc_cli_bad("--kallsyms: cannot read the file", arg);
		c->paths.kallsyms = arg;
		return 0;
	case O_INLINE:
		c->paths.inline_frames = true;
		return 0;
	case O_PER_FILE:
		c->per_file = true;
		return 0;
	case O_MAX_MEMORY:
		return parse_memory(c, arg);
	case O_DEBUGINFOD: /* --debuginfod[=URLS]: DEBUGINFOD_URLS's servers without URLS */
		c->paths.debuginfod = arg ? arg : "";
		return 0;
	case O_DEBUG_DIR:
		if (c->paths.ndebug_dirs == WC_CLI_MAX_DEBUG_DIRS)
			return wc_cli_bad("too many --debug-dir", arg);
		c->debug_dirs[c->paths.ndebug_dirs++] = arg;
		return 0;
	}
	return WC_EXIT_USAGE;
}

static bool extra_has(const struct wc_cli_extra *x, int opt)
{
	if (!x)
		return false;
	if (opt < 256 && x->shortopts && strchr(x->shortopts, opt) && opt != ':')
		return true;
	for (const struct option *o = x->longopts; o && o->name; o++)
		if (!o->flag && o->val == opt)
			return true;
	return false;
}

int wc_cli_parse(struct wc_cli *c, int argc, char **argv, unsigned groups,
		 const struct wc_cli_extra *x, const char *usage)
{
	struct option longopts[NSHARED + MAX_EXTRA + 2];
	char shortopts[128] = "+h";
	size_t n = 0;
	int opt, err;

	memset(c, 0, sizeof(*c));
	c->paths.debug_dirs = c->debug_dirs;
	for (const struct option *o = x ? x->longopts : NULL; o && o->name && n < MAX_EXTRA; o++)
		longopts[n++] = *o;
	if (x && x->shortopts)
		strncat(shortopts, x->shortopts, sizeof(shortopts) - strlen(shortopts) - 1);
	for (size_t i = 0; i < NSHARED; i++) {
		const struct shared_opt *s = &shared[i];

		if (s->group && !(s->group & groups))
			continue;
		longopts[n++] = s->opt;
		if (s->letters[0] && !extra_has(x, s->letters[0]))
			strncat(shortopts, s->letters, sizeof(shortopts) - strlen(shortopts) - 1);
	}
	longopts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[n] = (struct option){ 0 };
	optind = 1;
	opterr = 1;
	while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(usage, stdout);
			return WC_EXIT_OK;
		}
		if (opt == '?' || opt == ':')
			return WC_EXIT_USAGE;
		err = extra_has(x, opt) ? x->handle(x->ctx, opt, optarg)
					: shared_option(c, opt, optarg);
		if (err)
			return err;
	}
	if (c->prof.user_only && c->prof.kernel_only)
		return wc_cli_bad("-U and -K exclude each other", "-U -K");
	if (c->prof.filter.max_block_ns &&
	    c->prof.filter.max_block_ns < c->prof.filter.min_block_ns)
		return wc_cli_bad("--max-block is below --min-block", "");
	if (argc - optind < 1 || (argc - optind > 1 && !(groups & WC_CLI_FILES)))
		return wc_cli_bad(argc - optind > 1 ? "one FILE only, not also" : "no FILE given",
				  argc - optind > 1 ? argv[optind + 1] : argv[0]);
	/* options go before FILE (getopt stops at the first FILE): one after it is refused, as
	 * with one FILE only, unless "--" said the rest are files */
	for (int i = optind + 1; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1] && strcmp(argv[optind - 1], "--") != 0)
			return wc_cli_bad("options go before FILE, not after it", argv[i]);
	c->file = argv[optind];
	c->files = argv + optind;
	c->nfiles = argc - optind;
	return -1;
}

int wc_cli_output_ok(const char *path)
{
	struct stat st;
	const char *kind;

	if (!path || !strcmp(path, "-") || lstat(path, &st) || S_ISREG(st.st_mode) ||
	    S_ISCHR(st.st_mode))
		return 0;
	kind = S_ISLNK(st.st_mode)    ? "a symbolic link"
	       : S_ISDIR(st.st_mode)  ? "a directory"
	       : S_ISFIFO(st.st_mode) ? "a FIFO"
	       : S_ISSOCK(st.st_mode) ? "a socket"
	       : S_ISBLK(st.st_mode)  ? "a block device"
				      : "not a regular file";
	fprintf(stderr,
		"wcanalyze: %s: is %s, not a regular file or a character device: refusing "
		"to write there\n",
		path, kind);
	return WC_EXIT_USAGE;
}

/* The end of an analysis: a warning and exit 3 for a cut file, exit 1 for a damaged one. */
static int file_status(const struct wc_analysis *a)
{
	const struct wc_replay_stats *st = wc_replay_stats(wc_analysis_replay(a));

	switch (st->state) {
	case WC_READER_CLEAN:
		return WC_EXIT_OK;
	case WC_READER_TRUNCATED:
		fprintf(stderr,
			"wcanalyze: warning: %s: the trace is cut at byte %llu (%s): analysed up to "
			"there\n",
			wc_analysis_path(a), (unsigned long long)st->error_offset,
			wc_replay_error(wc_analysis_replay(a)));
		return WC_EXIT_TRUNCATED;
	default:
		fprintf(stderr, "wcanalyze: %s: %s\n", wc_analysis_path(a),
			wc_replay_error(wc_analysis_replay(a)));
		return WC_EXIT_BAD_FILE;
	}
}

/*
 * Progress on a terminal: after the first second, "bytes read of the total" on one line,
 * rewritten at most 4 times a second and wiped at the end; silent when stderr is not a tty.
 */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void show_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct wc_cli_session *s = ctx;
	uint64_t now = now_ns();

	if (now - s->progress_start_ns < s->progress_delay_ns ||
	    (s->progress_shown && now - s->progress_last_ns < 250000000ull))
		return;
	s->progress_last_ns = now;
	s->progress_shown = true;
	fprintf(stderr, "\rwcanalyze: %s: %.1f of %.1f MB read (%.0f%%)\033[K",
		wc_analysis_path(s->a), (double)done / 1e6, (double)total / 1e6,
		total ? 100.0 * (double)done / (double)total : 0);
	fflush(stderr);
}

void wc_cli_progress(struct wc_cli_session *s, bool on)
{
	const char *v;

	if (!on) {
		if (s->progress_shown)
			fputs("\r\033[K", stderr);
		s->progress_shown = false;
		return;
	}
	if (!isatty(STDERR_FILENO))
		return;
	wc_analysis_set_progress(s->a, show_progress, s);
	s->progress_start_ns = now_ns();
	/* a test hook: WCANALYZE_PROGRESS_DELAY_MS=0 shows it at once */
	v = getenv("WCANALYZE_PROGRESS_DELAY_MS");
	s->progress_delay_ns = v ? strtoull(v, NULL, 10) * 1000000ull : 1000000000ull;
}

int wc_cli_open(struct wc_cli_session *s, const char *file)
{
	char err[512];

	s->a = wc_analysis_open(file, err, sizeof(err));
	if (!s->a) {
		fprintf(stderr, "wcanalyze: %s\n", err);
		return WC_EXIT_BAD_FILE;
	}
	wc_analysis_set_max_memory(s->a, s->max_memory);
	if (wc_analysis_set_symbol_paths(s->a, s->paths)) {
		fprintf(stderr, "wcanalyze: %s: out of memory\n", file);
		wc_analysis_close(s->a);
		s->a = NULL;
		return WC_EXIT_BAD_FILE;
	}
	return -1;
}

int wc_cli_replay(struct wc_cli_session *s, const char *file,
		  const struct wc_analysis_consumer *consumer)
{
	int err = wc_cli_open(s, file);

	if (err >= 0)
		return err;
	wc_cli_progress(s, true);
	err = wc_analysis_run(s->a, consumer);
	wc_cli_progress(s, false);
	if (err) {
		const char *why = wc_analysis_error(s->a);

		fprintf(stderr, "wcanalyze: %s\n", why[0] ? why : strerror(-err));
		return WC_EXIT_BAD_FILE;
	}
	return -1;
}

int wc_cli_run(struct wc_cli_session *s, const struct wc_cli *c,
	       const struct wc_analysis_consumer *consumer)
{
	enum wc_reader_state st;
	int err;

	s->max_memory = c->max_memory;
	s->paths = &c->paths;
	err = wc_cli_replay(s, c->file, consumer);
	if (err >= 0)
		return err;
	st = wc_replay_stats(wc_analysis_replay(s->a))->state;
	if (st != WC_READER_CLEAN && st != WC_READER_TRUNCATED)
		return file_status(s->a);
	s->sym = wc_analysis_symbolizer(s->a);
	if (!s->sym) {
		fprintf(stderr, "wcanalyze: out of memory\n");
		return WC_EXIT_BAD_FILE;
	}
	return -1;
}

/* Whether a thread of process @pid had a scheduler event; *@comm set to its name then. */
static bool target_seen(const struct wc_analysis *a, uint32_t pid, const char **comm)
{
	const struct wc_tasks *t = wc_analysis_tasks(a);
	struct wc_off_interval open;
	bool seen = false;

	*comm = "";
	for (size_t k = 1; k < t->nthreads && !seen; k++) {
		const struct wc_thread *th = &t->threads[k];

		if (th->pid != pid)
			continue;
		if (th->tid == th->pid || !**comm)
			*comm = th->comm;
		/* a switch or a sched_wakeup_new: the state machine knows where it is */
		seen = wc_sched_state(wc_analysis_sched(a), th, 0, &open) != WC_TS_UNKNOWN;
	}
	return seen;
}

/*
 * When no target process (-p and its descendants, COMMAND) had a thread switched in or out
 * during the recording, a warning line for each (at most 8), since a report left empty says
 * nothing of why (issue 13: nginx's master asleep in epoll_wait, recorded --no-children).
 */
static void warn_silent_targets(const struct wc_analysis *a, FILE *err)
{
	const struct wc_tasks *t = wc_analysis_tasks(a);
	const char *comm;

	/* a cut or damaged file may simply end before the target's events */
	if (!wc_analysis_facts(a)->have_switch ||
	    wc_replay_stats(wc_analysis_replay(a))->state != WC_READER_CLEAN)
		return;
	/* one silent process among busy ones (a server's idle helper) leaves no report empty */
	for (size_t i = 0; i < t->ntarget_pids; i++)
		if (target_seen(a, t->target_pids[i], &comm))
			return;
	for (size_t i = 0; i < t->ntarget_pids && i < 8; i++) {
		target_seen(a, t->target_pids[i], &comm);
		fprintf(err,
			"wcanalyze: warning: %s: target process %u%s%s%s has no scheduler event in "
			"the recording: asleep throughout? (wcanalyze threads shows its threads; "
			"--all-tasks shows every thread)\n",
			wc_analysis_path(a), t->target_pids[i], comm[0] ? " (" : "", comm,
			comm[0] ? ")" : "");
	}
	if (t->ntarget_pids > 8)
		fprintf(err, "wcanalyze: warning: %s: and %zu more target processes with none\n",
			wc_analysis_path(a), t->ntarget_pids - 8);
}

/*
 * How complete the user stacks of the profile's off-CPU time are: with -g dwarf always, the
 * shares of complete, [truncated] and [unwind failed]; else only where a share of the last two
 * reaches 0.1% (below, the note would read 0.0%).
 */
static void user_stacks_note(const struct wc_cli_session *s, const struct wc_profile *p,
			     const char *file, FILE *err)
{
	uint64_t ns[WC_USER_KINDS], with;
	bool dwarf = wc_analysis_dwarf_stacks(s->a);
	double cut, failed;

	wc_profile_user_kinds(p, ns);
	with = ns[WC_USER_WHOLE] + ns[WC_USER_TRUNCATED] + ns[WC_USER_FAILED];
	if (!with)
		return;
	cut = 100.0 * (double)ns[WC_USER_TRUNCATED] / (double)with;
	failed = 100.0 * (double)ns[WC_USER_FAILED] / (double)with;
	if (!dwarf && (ns[WC_USER_TRUNCATED] + ns[WC_USER_FAILED]) * 1000 < with)
		return;
	fprintf(err, "wcanalyze: note: %s: of the off-CPU time under a user stack (%.3f s), ", file,
		(double)with / 1e9);
	if (dwarf)
		fprintf(err,
			"%.1f%% lies under complete stacks (unwound by CFI to the outermost "
			"frame), ",
			100.0 * (double)ns[WC_USER_WHOLE] / (double)with);
	fprintf(err,
		"%.1f%% under stacks cut short, shown as [truncated] (the recording's copy of the "
		"user stack ran out first: wcrec -g %s,SIZE takes more), %.1f%% under stacks not "
		"unwound to their end, shown as [unwind failed] (wcanalyze info counts why)\n",
		cut, dwarf ? "dwarf" : "fp", failed);
}

void wc_cli_profile_notes(const struct wc_cli_session *s, const struct wc_profile *p,
			  const char *file, FILE *err)
{
	uint64_t total;
	bool attributed;
	uint64_t skid = wc_profile_skid(p, &total, &attributed);

	user_stacks_note(s, p, file, err);
	if (!skid || !total)
		return;
	fprintf(err,
		"wcanalyze: note: %s: %llu of %llu on-CPU samples (%.1f%%) are the context "
		"switch's: in finish_task_switch within %u us of their thread's switch-in, where a "
		"timer sample held off while the switch ran with interrupts off lands; %s\n",
		file, (unsigned long long)skid, (unsigned long long)total,
		100.0 * (double)skid / (double)total, WC_SKID_WINDOW_NS / 1000,
		attributed ? "shown as " WC_SKID_FRAME " (--skid keep shows their stacks)"
			   : "under their own stacks (--skid scheduler shows them as " WC_SKID_FRAME
			     ")");
}

int wc_cli_profile_run(struct wc_cli_session *s, struct wc_cli *c, bool waker,
		       struct wc_profile **pp)
{
	struct wc_profile *p;
	int ret;

	*pp = NULL;
	if (waker && c->prof.mode == WC_MODE_ON)
		return wc_cli_bad("--waker shows blocked (off-CPU) time: not with --mode", "on");
	if (waker) {
		c->prof.waker = true;
		c->prof.mode = WC_MODE_OFF;
	}
	p = wc_profile_new(&c->prof);
	if (!p) {
		fprintf(stderr, "wcanalyze: out of memory\n");
		return WC_EXIT_BAD_FILE;
	}
	*pp = p;
	ret = wc_cli_run(s, c, wc_profile_consumer(p));
	if (ret < 0 && waker && !wc_profile_waker_stacks(p))
		fprintf(stderr,
			"wcanalyze: note: %s: recorded without wakeup callchains (wcrec "
			"--waker-stacks): wakers are named by comm-tid only\n",
			c->file);
	return ret;
}

int wc_cli_end(struct wc_cli_session *s, int status)
{
	if (status < 0 && s->a) {
		if (!s->targets_shown)
			warn_silent_targets(s->a, stderr);
		if (s->sym)
			wc_symbolizer_warn(s->sym, stderr, "wcanalyze: warning");
		if (!s->counts_shown)
			wc_info_warn_counts(s->a, stderr);
		if (!s->stat_shown)
			wc_info_note_stat(s->a, "wcanalyze: note: ", stderr);
		status = file_status(s->a);
	}
	s->sym = NULL; /* the analysis's: freed with it */
	wc_analysis_close(s->a);
	s->a = NULL;
	return status < 0 ? WC_EXIT_OK : status;
}
