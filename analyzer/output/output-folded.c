/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output-folded.c - the "folded" row of the output table (output.h): each line's folded text
 * and its value, "frame;frame;...;frame VALUE\n" (FlameGraph's and BCC's format, profile.h),
 * in the profile's order.
 */
#include <errno.h>
#include <stdio.h>

#include "analyzer/output/output.h"

static int folded_begin(const struct wc_out_args *args, void **state)
{
	*state = args->out;
	return 0;
}

static int folded_line(void *state, const struct wc_out_line *l)
{
	if (fprintf(state, "%s %llu\n", l->folded, (unsigned long long)l->value) < 0)
		return -EIO;
	return 0;
}

static int folded_end(void *state, bool write, struct wc_out_result *res)
{
	FILE *out = state;

	res->items = 0;
	return write && (fflush(out) || ferror(out)) ? -EIO : 0;
}

const struct wc_output_ops wc_output_folded = {
	.name = "folded",
	.help = "the wall-clock profile as folded stacks (as wcanalyze folded)",
	.begin = folded_begin,
	.line = folded_line,
	.end = folded_end,
};
