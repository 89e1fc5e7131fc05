/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-raw.c - libFuzzer target: the input as a trace file, as it is, through one wcanalyze
 * command line of commands.h (picked by its size: fz_run_one()).  It reaches the file
 * header, the zstd frames and the reader's checks; a mutated frame mostly fails its
 * checksum, so the record layer is fuzz-records.c's.  Seeds: testdata/fuzz-seeds/ (`make fuzz`,
 * scripts/fuzz.sh).
 */
#include <stdlib.h>

#include "tests/fuzz/fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fz_file_set(data, size))
		abort();
	fz_run_one(size);
	return 0;
}
