/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-records.c - libFuzzer target, structure-aware: the input is a sequence of records
 * in the layout of common/wct.h (times absolute), which the project's writer turns into a
 * trace file with valid frames and checksums (fz_records_write(), which also fixes up the
 * record sizes), run through one wcanalyze command line of commands.h (fz_run_one()).  So
 * mutations reach the records, the replay and the reports instead of failing a zstd
 * checksum.
 *
 * Seeds: the traces of testdata/fuzz-seeds/ as record sequences, made by
 * `wct-records --to-records` (scripts/fuzz.sh); a finding is kept as the trace file that
 * `wct-records --to-wct` writes from it, so that wcanalyze replays it (tests/fuzz-regressions.sh).
 */
#include <stdlib.h>

#include "tests/fuzz/fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fz_records_write(fz_file_fd(), data, size, 0))
		abort(); /* the writer took every record before: a bug of the writer or the memfd */
	fz_run_one(size);
	return 0;
}
