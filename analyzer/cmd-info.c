/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-info.c - `wcanalyze info FILE`: what the trace holds (info.h). */
#include <stdio.h>
#include <string.h>

#include "analyzer/cli.h"
#include "analyzer/info.h"

static const char usage[] = "usage: wcanalyze info FILE   (also: wcanalyze FILE)\n";

int wc_cmd_info(int argc, char **argv)
{
	struct wc_cli_session s = { .counts_shown = true };
	struct wc_cli c;
	int ret = wc_cli_parse(&c, argc, argv, 0, NULL, usage);

	if (ret >= 0)
		return ret;
	if (wc_analysis_open(&s.a, c.file)) {
		fprintf(stderr, "wcanalyze: %s\n", s.a.error);
		return WC_EXIT_BAD_FILE;
	}
	s.opened = true;
	ret = wc_analysis_run(&s.a, NULL);
	if (ret) {
		fprintf(stderr, "wcanalyze: %s\n", s.a.error[0] ? s.a.error : strerror(-ret));
		return wc_cli_end(&s, WC_EXIT_BAD_FILE);
	}
	return wc_cli_end(&s, wc_info_write(&s.a, stdout) ? WC_EXIT_BAD_FILE : -1);
}
