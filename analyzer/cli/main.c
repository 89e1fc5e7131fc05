/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wcanalyze - replay a wcrec trace into off-CPU intervals, a wall-clock profile and the
 * reports built on them.  See man/wcanalyze.1.  Exit status: 0; 1 the file cannot be read
 * or is corrupt, or the analysis failed; 2 a bad option; 3 the output is complete up to
 * where the file was cut.
 */
#include <stdio.h>
#include <string.h>

#include "analyzer/cli/cli.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *what;
} cmds[] = {
	{ "info", wc_cmd_info, "what the trace holds (also: wcanalyze FILE)" },
	{ "folded", wc_cmd_folded, "folded stacks of the wall-clock profile" },
	{ "timehist", wc_cmd_timehist, "perf sched timehist's event log and summary" },
	{ "hist", wc_cmd_hist, "log2 histograms of off-CPU, run-queue and on-CPU times" },
	{ "threads", wc_cmd_threads, "per-thread wall-clock breakdown" },
	{ "flamegraph", wc_cmd_flamegraph, "an interactive SVG flame graph" },
	{ "export", wc_cmd_export, "speedscope or Chrome trace-event JSON" },
};

static void usage(FILE *out)
{
	fputs("usage: wcanalyze SUBCOMMAND [options] FILE...\n", out);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(out, "  %-11s %s\n", cmds[i].name, cmds[i].what);
	fputs("`wcanalyze SUBCOMMAND --help` lists its options; man wcanalyze\n", out);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return wc_cli_bad("no subcommand or FILE", "none");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return WC_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].run(argc - 1, argv + 1);
	if (argc == 2 && argv[1][0] != '-')
		return wc_cmd_info(argc, argv);
	return wc_cli_bad("unknown subcommand", argv[1]);
}
