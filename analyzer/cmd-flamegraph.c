/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-flamegraph.c - `wcanalyze flamegraph`: placeholder until the report lands. */
#include <stdio.h>

#include "analyzer/cli.h"

int wc_cmd_flamegraph(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "wcanalyze: flamegraph: not available yet\n");
	return WC_EXIT_USAGE;
}
