/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-hist.c - `wcanalyze hist`: placeholder until the report lands. */
#include <stdio.h>

#include "analyzer/cli.h"

int wc_cmd_hist(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "wcanalyze: hist: not available yet\n");
	return WC_EXIT_USAGE;
}
