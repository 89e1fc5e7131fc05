/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-export.c - `wcanalyze export`: placeholder until the report lands. */
#include <stdio.h>

#include "analyzer/cli.h"

int wc_cmd_export(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "wcanalyze: export: not available yet\n");
	return WC_EXIT_USAGE;
}
