/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * options.h - wcrec's command line: parsed and validated once, each option in one place
 * (man/wcrec.1).  Exit statuses follow main.c: 2 for a bad option or target, 1 when the
 * machine cannot be read.
 */
#ifndef WC_RECORDER_OPTIONS_H
#define WC_RECORDER_OPTIONS_H

#include <stdbool.h>
#include <sys/types.h>

#include "recorder/events.h"
#include "recorder/rotate.h"

#define WC_REC_MAX_CPUS	     4096
#define WC_REC_MAX_PIDS	     1024
#define WC_USER_COPY_DEFAULT 512 /* bytes of user stack copied under -g fp */

/* What to record, from the command line.  Its arrays are big: keep it static. */
struct wc_rec_opts {
	struct wc_events_opts eo;    /* eo.cpus points into cpus[] after wc_rec_opts_cpus() */
	int cpus[WC_REC_MAX_CPUS];   /* -C, else the online CPUs */
	pid_t pids[WC_REC_MAX_PIDS]; /* -p (the descendants are added by record.c) */
	int npids;
	char **command;	   /* COMMAND [ARGS] (NULL-terminated), or NULL */
	const char *out;   /* -o: the trace file */
	double duration_s; /* -d, 0 without */
	int level;	   /* -z: zstd level */
	int verbose;	   /* 0 -q, 1, 2 -v */
	bool all, full_kallsyms, children;
	bool per_task;	 /* --per-task: -p and COMMAND on per-task events (recorder/pertask.c) */
	bool no_symbols; /* --no-symbols: no USYM records (recorder/usym.h) */
	struct wc_rotate_opts rotate; /* --rotate, --keep, --on-rotate; base set by record.c */
};

/**
 * wc_rec_opts_parse() - parse and validate @argv into @o, saying what is wrong on stderr
 * @o: filled in; its strings and @command point into @argv
 *
 * Return: -1 to record; else the exit status: 0 after --help (the usage on stdout), 2 for a
 * bad option or a bad combination of options.
 */
int wc_rec_opts_parse(struct wc_rec_opts *o, int argc, char **argv);

/**
 * wc_rec_opts_cpus() - check -C's CPUs are online, or take the online ones without -C; then
 * point o->eo.cpus at o->cpus
 *
 * Return: -1 to record; else the exit status: 2 for a CPU not online, 1 when the online CPUs
 * cannot be read.
 */
int wc_rec_opts_cpus(struct wc_rec_opts *o);

/** wc_rec_bad() - print "wcrec: " @fmt with @arg, and the hint at --help.  Return: 2. */
int wc_rec_bad(const char *fmt, const char *arg);

#endif /* WC_RECORDER_OPTIONS_H */
