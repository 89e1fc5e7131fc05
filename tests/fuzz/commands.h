/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * commands.h - the wcanalyze command lines run on each input: by the fuzz targets of
 * tests/fuzz/ (fuzz-common.c), and on each saved finding and seed by tests/fuzz-regressions.sh,
 * which reads this file with sed (keep one FZ_CMD a line, plain string arguments).
 *
 * FZ_CMD(function, subcommand, options...): argv[0] is the subcommand, the trace file is
 * appended last; "@OUT" stands for an output file the runner removes afterwards.
 */
FZ_CMD(wc_cmd_info, "info")
FZ_CMD(wc_cmd_folded, "folded")
FZ_CMD(wc_cmd_folded, "folded", "--waker")
FZ_CMD(wc_cmd_timehist, "timehist")
FZ_CMD(wc_cmd_timehist, "timehist", "-s")
FZ_CMD(wc_cmd_timehist, "timehist", "-I")
FZ_CMD(wc_cmd_timehist, "timehist", "-V")
FZ_CMD(wc_cmd_timehist, "timehist", "-w")
FZ_CMD(wc_cmd_timehist, "timehist", "-S", "-M", "-n", "--state")
FZ_CMD(wc_cmd_hist, "hist", "--kind", "off")
FZ_CMD(wc_cmd_hist, "hist", "--kind", "runq", "-L")
FZ_CMD(wc_cmd_hist, "hist", "--kind", "on", "-P", "--json")
FZ_CMD(wc_cmd_threads, "threads")
FZ_CMD(wc_cmd_threads, "threads", "--json")
FZ_CMD(wc_cmd_flamegraph, "flamegraph", "-o", "@OUT")
FZ_CMD(wc_cmd_export, "export", "--format", "chrome", "-o", "@OUT")
FZ_CMD(wc_cmd_export, "export", "--format", "speedscope", "-o", "@OUT")
