/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-threads.c - `wcanalyze threads`: placeholder until the report lands. */
#include <stdio.h>

#include "analyzer/cli.h"

int wc_cmd_threads(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "wcanalyze: threads: not available yet\n");
	return WC_EXIT_USAGE;
}
