/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record.h - one recording of wcrec, from validated options to the closed trace file: the -p
 * targets and their descendants, tracefs, the events, the output file, COMMAND held on its
 * start pipe, the metadata, the drain loop until a stop, the trailer, and the summary.
 */
#ifndef WC_RECORDER_RECORD_H
#define WC_RECORDER_RECORD_H

#include "recorder/options.h"

/**
 * wc_record() - record as @o says, saying on stderr what goes wrong (and, unless -q, what was
 * recorded); SIGINT and SIGTERM stop the recording, which is kept
 * @o: from wc_rec_opts_parse(); its pids, npids and CPUs are completed here
 *
 * Return: the exit status of wcrec: COMMAND's (128 + signal when it was killed), else 0; 1
 * when recording failed; 2 for a bad target or event (no such process, an event the kernel
 * lacks, an output path that is not a file).
 */
int wc_record(struct wc_rec_opts *o);

#endif /* WC_RECORDER_RECORD_H */
