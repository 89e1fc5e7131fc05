/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-folded.c - `wcanalyze folded`: the wall-clock profile as folded stacks (profile.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/cli.h"
#include "analyzer/profile.h"

static const char usage[] =
	"usage: wcanalyze folded [options] FILE   folded stacks of the wall-clock profile\n"
	"  -p PID[,...]  -t TID[,...]  --comm NAME    threads to keep\n"
	"  --all-tasks            all threads, not only the recording's COMMAND or -p target\n"
	"  --time START,END       seconds from the recording's start (either may be empty)\n"
	"  --state S,D,R,...      off-CPU intervals with these switch-out states only\n"
	"  -m, --min-block US     off-CPU intervals at least this long\n"
	"  -M, --max-block US     off-CPU intervals at most this long\n"
	"  --mode off|on|wall     off-CPU, on-CPU, or both (default wall)\n"
	"  -U, --user-stacks-only  -K, --kernel-stacks-only\n"
	"  --per-thread           key stacks by comm-tid instead of comm\n"
	"  -d, --delimiter        a \"-\" frame between user and kernel frames\n"
	"  --annotate             kernel frames get the _[k] suffix\n"
	"  --unit us|ms|ns        value unit (default us)\n"
	"  --no-calibrate         on-CPU time from sample periods, not from exact run time\n"
	"  --waker                blocked time by target and waker stacks (offwaketime), in\n"
	"                         FlameGraph's --colors chain layout\n"
	"  --symfs DIR            look for recorded files under DIR\n"
	"  --debug-dir DIR        look for debug files (DIR/.build-id/xx/yyyy.debug) in DIR\n";

enum { O_WAKER = 512 };

static int folded_option(void *ctx, int opt, const char *arg)
{
	bool *waker = ctx;

	(void)arg;
	if (opt == O_WAKER)
		*waker = true;
	return 0;
}

int wc_cmd_folded(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "waker", no_argument, NULL, O_WAKER },
		{ 0 },
	};
	bool waker = false;
	struct wc_cli_extra x = { .longopts = longopts, .handle = folded_option, .ctx = &waker };
	struct wc_cli_session s = { 0 };
	struct wc_profile *p;
	struct wc_cli c;
	int ret = wc_cli_parse(&c, argc, argv, WC_CLI_PROFILE, &x, usage);

	if (ret >= 0)
		return ret;
	if (waker && c.prof.mode == WC_MODE_ON)
		return wc_cli_bad("--waker shows blocked (off-CPU) time: not with --mode", "on");
	if (waker) {
		c.prof.waker = true;
		c.prof.mode = WC_MODE_OFF;
	}
	p = wc_profile_new(&c.prof);
	if (!p) {
		fprintf(stderr, "wcanalyze: out of memory\n");
		return WC_EXIT_BAD_FILE;
	}
	ret = wc_cli_run(&s, &c, wc_profile_consumer(p));
	if (ret < 0) {
		int err = wc_profile_write_folded(p, &s.a, s.sym, stdout);

		if (waker && !wc_profile_waker_stacks(p))
			fprintf(stderr,
				"wcanalyze: note: %s: recorded without wakeup callchains (wcrec "
				"--waker-stacks): wakers are named by comm-tid only\n",
				c.file);

		if (err) {
			fprintf(stderr, "wcanalyze: writing the output: %s\n", strerror(-err));
			ret = WC_EXIT_BAD_FILE;
		}
	}
	ret = wc_cli_end(&s, ret);
	wc_profile_free(p);
	return ret;
}
