/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-common.h - what the libFuzzer targets of tests/fuzz/ share: the input as a file, a
 * wcanalyze command line of commands.h run on it, and a record sequence written as a trace
 * file with valid frames.  See `make fuzz` (scripts/fuzz.sh).
 */
#ifndef WC_TESTS_FUZZ_COMMON_H
#define WC_TESTS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

/*
 * libFuzzer's entry points (no header of its declares them): LLVMFuzzerInitialize() is
 * fuzz-common.c's, fz_init() or abort; each target has its LLVMFuzzerTestOneInput().
 */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/**
 * fz_init() - once per process: the subcommands' stdout and stderr to /dev/null, a memfd
 * to hold each input, and the output paths under /dev/shm
 *
 * The C streams are redirected, not file descriptors 1 and 2: libFuzzer keeps its own
 * FILE * of the original stderr for its statistics, and the sanitizers write their reports
 * to descriptor 2, so both still show.
 *
 * Return: 0, or -errno (the target cannot run).
 */
int fz_init(void);

/**
 * fz_file_path() - the path (/proc/self/fd/N) under which the subcommands open the input
 * Return: a string owned by this module, valid after fz_init().
 */
const char *fz_file_path(void);

/** fz_file_fd() - the memfd behind fz_file_path(), for a writer.  Return: the descriptor. */
int fz_file_fd(void);

/**
 * fz_file_set() - make the input file hold exactly @size bytes of @data
 * Return: 0 or -errno.
 */
int fz_file_set(const uint8_t *data, size_t size);

/**
 * fz_run_one() - run one command line of commands.h on the input file, in-process, as
 * wcanalyze's main() would: the one @size picks (@size modulo their number), so that an
 * input always runs the same one, and inputs of other sizes the others (one, not all: 17
 * times the executions a second); an "@OUT" output file is removed after it
 */
void fz_run_one(size_t size);

/**
 * fz_records_write() - write @data, read as a sequence of records, as a trace file on @fd
 * with the project's writer (so the frames and their checksums are valid)
 * @fd:   written from offset 0 and truncated to what is written
 * @data: records in the layout of common/wct.h, times absolute (as wc_reader hands them
 *        out); what a hostile file would get right anyway is fixed up: a record's size is
 *        raised to the least its header allows (8, or 16 with WC_REC_F_TIME), rounded up to
 *        8 and cut to what is left of @data (the last bytes short of a record are dropped);
 *        records of type 0 are dropped.  Every other field is written as it is.
 * @size: bytes of @data
 * @frame_bytes: the writer's frame size (its frame_bytes option); 0 for the targets' 8 KiB
 *
 * The file ends with the writer's trailer, at the latest time of a timed record.
 * Return: 0 or -errno.
 */
int fz_records_write(int fd, const uint8_t *data, size_t size, uint32_t frame_bytes);

#endif /* WC_TESTS_FUZZ_COMMON_H */
