/* SPDX-License-Identifier: GPL-2.0-or-later */
/* svg-util.c - see svg-util.h. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "analyzer/output/flamegraph.h"
#include "tests/unit/svg-util.h"

char *svg_render(struct wc_flamegraph *fg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	cr_assert_eq(wc_flamegraph_write(fg, f), 0);
	fclose(f);
	return text;
}
