/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-folded.c - `wcanalyze folded`: the wall-clock profile as folded stacks (profile.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/cli/cli.h"
#include "analyzer/reports/info.h"
#include "analyzer/output/output.h"
#include "analyzer/reports/profile.h"

static const char usage[] =
	"usage: wcanalyze folded [options] FILE...   folded stacks of the wall-clock profile\n"
	"  --per-file             with several files, stacks keyed by file name first\n" WC_CLI_HELP_FILTER
		WC_CLI_HELP_OFFCPU WC_CLI_HELP_STACKS
	"  --annotate             kernel frames get the _[k] suffix\n"
	"  --waker                blocked time by target and waker stacks (offwaketime), in\n"
	"                         FlameGraph's --colors chain layout\n" WC_CLI_HELP_SYMBOLS
		WC_CLI_HELP_MEMORY;

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
	int ret = wc_cli_parse(&c, argc, argv, WC_CLI_PROFILE | WC_CLI_FILES | WC_CLI_PER_FILE, &x,
			       usage);

	if (ret >= 0)
		return ret;
	if (c.nfiles > 1 || c.per_file) {
		struct wc_out_args args = { .out = stdout };

		return wc_cli_profile_files(&c, waker, &wc_output_folded, &args, NULL, NULL);
	}
	ret = wc_cli_profile_run(&s, &c, waker, &p);
	if (ret < 0) {
		struct wc_out_args args = {
			.out = stdout, .a = s.a, .file = c.file, .prof = &c.prof
		};
		int err = wc_output_run(&wc_output_folded, &args, p, s.sym, NULL);

		if (err) {
			fprintf(stderr, "wcanalyze: writing the output: %s\n", strerror(-err));
			ret = WC_EXIT_BAD_FILE;
		}
		/* the folded lines have no room for them: a footer on stderr */
		wc_cli_profile_notes(&s, p, c.file, stderr);
		wc_info_counts_line(s.a, stderr);
		s.counts_shown = true;
	}
	ret = wc_cli_end(&s, ret);
	wc_profile_free(p);
	return ret;
}
