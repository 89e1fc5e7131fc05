/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli.h - what the wcanalyze subcommands share: the option groups (filters, off-CPU bounds,
 * stack shaping, symbol paths), parsed the same way everywhere, and one session that opens
 * a trace, replays it into a consumer and ends with the warnings and exit status every
 * subcommand gives (see man/wcanalyze.1, EXIT STATUS).
 *
 * A subcommand lives in analyzer/cmd-NAME.c as `int wc_cmd_NAME(int argc, char **argv)`,
 * argv[0] being the subcommand's name; only these functions and main() print to the user
 * and choose an exit status.
 */
#ifndef WC_ANALYZER_CLI_H
#define WC_ANALYZER_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/core/analysis.h"
#include "analyzer/output/output.h"
#include "analyzer/reports/profile.h"
#include "analyzer/symbols/symbolize.h"

/* Exit statuses of wcanalyze (man/wcanalyze.1). */
enum { WC_EXIT_OK = 0, WC_EXIT_BAD_FILE = 1, WC_EXIT_USAGE = 2, WC_EXIT_TRUNCATED = 3 };

/* Option groups a subcommand accepts; WC_CLI_PROFILE is all of them. */
enum {
	WC_CLI_FILTER = 1 << 0,	 /* -p -t --comm --all-tasks --time */
	WC_CLI_OFFCPU = 1 << 1,	 /* --state -m/--min-block -M/--max-block */
	WC_CLI_STACKS = 1 << 2,	 /* --mode -U -K --per-thread -d --annotate --unit --no-calibrate
				  * --skid */
	WC_CLI_SYMBOLS = 1 << 3, /* --symfs --debug-dir --kallsyms */
	WC_CLI_PROFILE = 0xf,
	WC_CLI_FILES = 1 << 4,	  /* several FILEs (c->files) */
	WC_CLI_PER_FILE = 1 << 5, /* --per-file */
};

/* The --help lines of the shared groups, for the subcommands' usage texts. */
#define WC_CLI_HELP_FILTER                                                                         \
	"  -p PID[,...]  -t TID[,...]  --comm NAME    threads to keep\n"                           \
	"  --all-tasks            all threads, not only the recording's COMMAND or -p target\n"    \
	"  --time START,END       seconds from the recording's start (either may be empty)\n"
#define WC_CLI_HELP_OFFCPU                                                                         \
	"  --state S,D,R,...      off-CPU intervals with these switch-out states only\n"           \
	"  -m, --min-block US     off-CPU intervals at least this long\n"                          \
	"  -M, --max-block US     off-CPU intervals at most this long\n"
#define WC_CLI_HELP_STACKS /* less --annotate, which each subcommand words its own way */          \
	"  --mode off|on|wall     off-CPU, on-CPU, or both (default wall)\n"                       \
	"  -U, --user-stacks-only  -K, --kernel-stacks-only\n"                                     \
	"  --per-thread           key stacks by comm-tid instead of comm\n"                        \
	"  -d, --delimiter        a \"-\" frame between user and kernel frames\n"                  \
	"  --unit us|ms|ns        value unit (default us)\n"                                       \
	"  --no-calibrate         on-CPU time from sample periods, not from exact run time\n"      \
	"  --skid auto|scheduler|keep  on-CPU samples of the context switch itself: as\n"          \
	"                         [scheduler] (auto: where sampled by a timer), or kept\n"
#define WC_CLI_HELP_SYMBOLS                                                                        \
	"  --symfs DIR            look for recorded files under DIR\n"                             \
	"  --debug-dir DIR        look for debug files (DIR/.build-id/xx/yyyy.debug) in DIR\n"     \
	"  --kallsyms FILE        kernel symbols for a trace that has none (perf.data)\n"          \
	"  --inline               calls the compiler inlined as frames of their own (DWARF)\n"

#define WC_CLI_HELP_MEMORY /* every subcommand */                                                  \
	"  --max-memory SIZE      stop past this resident memory (default 2G; 0 none)\n"

#define WC_CLI_MAX_IDS	      4096
#define WC_CLI_MAX_DEBUG_DIRS 16

/* The parsed command line; the filter's lists point into the struct itself. */
struct wc_cli {
	struct wc_profile_opts prof; /* .filter holds the filters */
	struct wc_symbol_paths paths;
	const char *file;   /* the trace (the first of files) */
	char *const *files; /* with WC_CLI_FILES, every FILE given (argv's) */
	int nfiles;	    /* 1 without WC_CLI_FILES */
	bool per_file;	    /* --per-file: stacks keyed by file name first */
	uint32_t pids[WC_CLI_MAX_IDS], tids[WC_CLI_MAX_IDS];
	char states[64];
	const char *debug_dirs[WC_CLI_MAX_DEBUG_DIRS];
	uint64_t max_memory; /* --max-memory: bytes, 0 the default, UINT64_MAX none */
};

/* A subcommand's own options, handled before the shared groups. */
struct wc_cli_extra {
	const struct option *longopts; /* NULL-terminated, or NULL */
	const char *shortopts;	       /* getopt letters ("wnVIsSG" or "o:"), or NULL */
	/* one of them, @arg its argument or NULL: 0, or an exit status (WC_EXIT_USAGE after
	 * printing a line with wc_cli_bad()) */
	int (*handle)(void *ctx, int opt, const char *arg);
	void *ctx;
};

/**
 * wc_cli_parse() - parse @argc/@argv (argv[0] the subcommand) into @c
 * @groups:  WC_CLI_* groups accepted
 * @x:       the subcommand's own options, or NULL; an option letter of @x wins over a shared
 *           one (timehist's -M is migrations, not --max-block)
 * @usage:   printed on stdout for -h/--help
 * Exactly one FILE must remain, or with WC_CLI_FILES one or more.  Errors get one line on
 * stderr naming the option.
 * Return: -1 to go on, else the exit status to return now (0 after --help).
 */
int wc_cli_parse(struct wc_cli *c, int argc, char **argv, unsigned groups,
		 const struct wc_cli_extra *x, const char *usage);

/** wc_cli_bad() - "wcanalyze: WHAT: ARG (see wcanalyze --help)" on stderr.  Return: 2. */
int wc_cli_bad(const char *what, const char *arg);

/**
 * wc_cli_unit() - the --unit argument @arg ("us", "ms" or "ns") into *@unit
 * Return: 0, or 2 (WC_EXIT_USAGE) with the line of wc_cli_bad() said.
 */
int wc_cli_unit(const char *arg, enum wc_unit *unit);

/**
 * wc_cli_output_ok() - may an output file be written at @path: nothing there, a regular
 * file (replaced), or a character device (/dev/null, written to as it is), as wcrec -o.
 * Anything else (a symbolic link, directory, FIFO, socket, block device) is refused, so that
 * wcanalyze run as root writes through no link and over no device.  NULL or "-" (stdout) is
 * fine.
 *
 * Return: 0, or WC_EXIT_USAGE after one line on stderr naming @path and what is there.
 */
int wc_cli_output_ok(const char *path);

/** wc_cli_parse_ids() - "1,2,3" into @ids (at most @max).  Return: the count, or -1. */
int wc_cli_parse_ids(const char *s, uint32_t *ids, int max);

/* One analysis from open to exit status. */
struct wc_cli_session {
	struct wc_analysis *a;		     /* wc_cli_open(): owned, freed by wc_cli_end();
					      * NULL before and after */
	struct wc_symbolizer *sym;	     /* after wc_cli_run(), for the output: the analysis's
					      * (wc_analysis_symbolizer()), borrowed; NULL before */
	const struct wc_symbol_paths *paths; /* set before wc_cli_open(): the analysis's */
	bool counts_shown;  /* the output holds the edge-case counts: no warning line */
	bool stat_shown;    /* the output says where sched_stat delays stood for switch-ins */
	bool targets_shown; /* the output shows every target thread, asleep or not: no
			     * warning for a target with no event */
	uint64_t progress_start_ns, progress_last_ns; /* progress on a terminal (wc_cli_run) */
	uint64_t progress_delay_ns;
	bool progress_shown;
	uint64_t max_memory; /* set before wc_cli_open(): the analysis's, bytes
			      * (wc_analysis_set_max_memory()) */
};

/**
 * wc_cli_profile_notes() - after a profile's lines: one note line on @err giving the shares
 * of its off-CPU time under user stacks by how complete they are (complete with -g dwarf,
 * [truncated], [unwind failed]: wc_profile_user_kinds()), and one giving the share of its
 * on-CPU samples that are the context switch's (skid.h) and where they went; nothing for
 * either when there is none (for the first, unless -g dwarf, when both shares are under 0.1%)
 * @s:    the session the profile was made in (its trace's notes say how stacks were taken)
 * @file: the trace, for the lines
 */
void wc_cli_profile_notes(const struct wc_cli_session *s, const struct wc_profile *p,
			  const char *file, FILE *err);

/**
 * wc_cli_profile_run() - the wall-clock profile of @c's trace: @c->prof set for --waker when
 * @waker (blocked time only, as BCC offwaketime: refused with --mode on), the profile made and
 * the trace replayed into it (wc_cli_run()), with a note on stderr when --waker finds no
 * wakeup callchains in the trace
 * @pp: set to the profile, owned by the caller (wc_profile_free()), NULL when not made
 * Return: as wc_cli_run(): negative when the profile is complete, else the exit status
 * (WC_EXIT_USAGE for --waker with --mode on, WC_EXIT_BAD_FILE out of memory).
 */
int wc_cli_profile_run(struct wc_cli_session *s, struct wc_cli *c, bool waker,
		       struct wc_profile **pp);

/**
 * wc_cli_progress() - with @on, before wc_analysis_run() on the opened @s->a: show its
 * progress on stderr when that is a terminal and the replay takes over a second (compressed
 * bytes read of the file's size, on one line); without, after it: wipe that line
 */
void wc_cli_progress(struct wc_cli_session *s, bool on);

/**
 * wc_cli_open() - open @file into @s->a, with @s->max_memory and @s->paths
 * @s: zeroed by the caller, then those two set
 * Return: -1 on success (go on), or WC_EXIT_BAD_FILE after the error on stderr.
 */
int wc_cli_open(struct wc_cli_session *s, const char *file);

/**
 * wc_cli_replay() - open @file and replay it into @consumer (NULL: none), with progress on
 * a terminal as wc_cli_run(), but no symbolizer and no verdict on how the file ended
 * @s: zeroed by the caller
 * Errors are printed (one line naming the file).
 * Return: -1 when the replay ran (the file may still be cut or damaged: wc_cli_end() says),
 * else the exit status to return (after wc_cli_end()).
 */
int wc_cli_replay(struct wc_cli_session *s, const char *file,
		  const struct wc_analysis_consumer *consumer);

/**
 * wc_cli_run() - open @c->file, replay it into @consumer (NULL: none), and build the
 * symbolizer over the replayed address spaces and the trace's kallsyms
 * When stderr is a terminal and the replay takes over a second, its progress (compressed
 * bytes read of the file's size) is shown on one stderr line, wiped when the replay ends.
 * @s: zeroed by the caller (`struct wc_cli_session s = { 0 };`)
 * Errors are printed (one line naming the file).
 * Return: -1 when the output may be written, else the exit status to return (after
 * wc_cli_end()).
 */
int wc_cli_run(struct wc_cli_session *s, const struct wc_cli *c,
	       const struct wc_analysis_consumer *consumer);

/**
 * wc_cli_end() - print the closing warnings (symbol files not usable, edge-case and lost
 * counts, a cut trace) and free @s
 * @status: -1 after a complete output, else an exit status already chosen (kept)
 * Return: the exit status: 0, or 3 when the trace was cut (the output covers what is
 * before the cut), or 1 when it is damaged.
 */
int wc_cli_end(struct wc_cli_session *s, int status);

/**
 * wc_cli_profile_files() - the profile of every FILE of @c (c->files) written by output @ops:
 * each file analysed alone as wc_cli_profile_run() does (its own time base: --time counts
 * from each file's start), its footer lines on stderr, and the lines of all merged
 * (merge.h: by text, summed in ns, rounded once in c->prof.unit); with c->per_file each
 * file's lines under its name (less ".wct") as their first frame
 * @args: the output's (out, svg, fleet); its file, span (from the earliest start to the
 *        latest end) and prof are set here
 * @res:  set to what was written (may be NULL)
 * @written: set to whether the output was written whole (may be NULL)
 * A file that cannot be read is said and left out.
 * Return: an exit status: the worst of the files', WC_EXIT_USAGE when the options do not fit
 * (the first file says why), WC_EXIT_BAD_FILE when the output could not be written (said).
 */
int wc_cli_profile_files(struct wc_cli *c, bool waker, const struct wc_output_ops *ops,
			 struct wc_out_args *args, struct wc_out_result *res, bool *written);

/* wc_cli_worse() - of two exit statuses, the one that says more is wrong: WC_EXIT_USAGE, then
 * WC_EXIT_BAD_FILE (a file not read, or damaged), then WC_EXIT_TRUNCATED, then WC_EXIT_OK;
 * a negative one (-1: go on) counts as none. */
int wc_cli_worse(int a, int b);

/* wc_cli_file_label() - --per-file's name of file @i of @c in @buf (@len bytes): its base
 * name, less a ".wct" ending; where another FILE has the same, its path as given, less ".wct"
 * (h1/trace.wct and h2/trace.wct: "h1/trace" and "h2/trace").  Return: @buf. */
const char *wc_cli_file_label(const struct wc_cli *c, int i, char *buf, size_t len);

/**
 * wc_cli_each_file() - subcommand @cmd run on each FILE of @c in turn, as if given alone:
 * @argv (@argc) less its FILEs (the last c->nfiles), then one of them; each output preceded
 * on stdout by a line "==> FILE <==" (and a blank line after the first), as head(1) does
 * Return: the worst of the exit statuses, or WC_EXIT_USAGE at once when one is that, or
 * WC_EXIT_BAD_FILE out of memory (said).
 */
int wc_cli_each_file(const struct wc_cli *c, int argc, char **argv, int (*cmd)(int, char **));

/* The subcommands (analyzer/cmd-*.c). */
int wc_cmd_info(int argc, char **argv);
int wc_cmd_folded(int argc, char **argv);
int wc_cmd_timehist(int argc, char **argv);
int wc_cmd_hist(int argc, char **argv);
int wc_cmd_threads(int argc, char **argv);
int wc_cmd_flamegraph(int argc, char **argv);
int wc_cmd_export(int argc, char **argv);

#endif /* WC_ANALYZER_CLI_H */
