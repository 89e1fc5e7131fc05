/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwinline-dump - a test aid: the inlined calls analyzer/symbols/dwinline.h finds at each
 * address read from stdin (hex, one a line), as "ADDR NAME..." (innermost first), for
 * tests/inline-agree.sh to compare with addr2line -i.
 * usage: dwinline-dump FILE <ADDRESSES
 * Exit 0, 1 when FILE has no DWARF or cannot be read, 2 on bad usage.
 */
#include <stdio.h>
#include <stdlib.h>

#include "analyzer/symbols/dwinline.h"

int main(int argc, char **argv)
{
	struct wc_inline_frame f[WC_INLINE_MAX_DEPTH];
	struct wc_dwinline *d;
	char line[64];

	if (argc != 2) {
		fprintf(stderr, "usage: dwinline-dump FILE <ADDRESSES\n");
		return 2;
	}
	d = wc_dwinline_open(argv[1]);
	if (!d) {
		perror(argv[1]);
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		unsigned long long a = strtoull(line, NULL, 16);
		size_t n = wc_dwinline_lookup(d, a, f, WC_INLINE_MAX_DEPTH);

		printf("%llx", a);
		for (size_t i = 0; i < n; i++)
			printf(" %s", f[i].name);
		printf("\n");
	}
	wc_dwinline_free(d);
	return 0;
}
