/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-timehist.c - `wcanalyze timehist`: placeholder until the report lands. */
#include <stdio.h>

#include "analyzer/cli.h"

int wc_cmd_timehist(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "wcanalyze: timehist: not available yet\n");
	return WC_EXIT_USAGE;
}
