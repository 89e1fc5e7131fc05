/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wcrec - record scheduler events and CPU samples with callchains into a trace file.
 * See man/wcrec.1.  Exit status: COMMAND's (128 + signal when it was killed), else 0; 1 when
 * recording failed; 2 for a bad option or target.
 */
#include "recorder/options.h"
#include "recorder/record.h"

int main(int argc, char **argv)
{
	static struct wc_rec_opts opts; /* big: -C's CPUs and -p's pids */
	int ret = wc_rec_opts_parse(&opts, argc, argv);

	return ret >= 0 ? ret : wc_record(&opts);
}
