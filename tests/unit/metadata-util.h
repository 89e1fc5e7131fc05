/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metadata-util.h - what the metadata tests (test-metadata.c, test-metadata-tasks.c) share: a
 * trace written by the test and its records read back, ELF files made by the test, and a
 * private mount namespace.
 */
#ifndef WC_TEST_METADATA_UTIL_H
#define WC_TEST_METADATA_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/wct.h"

extern char path[64], elf_path[3][64]; /* the trace, ELF files made by the tests */
extern int fd;
extern struct wc_writer *w;
extern size_t nrecs;
extern struct wc_rec_header **recs; /* copies of the records read back, trailer excluded */

/* Forget the trace: its writer, its file, the records read back. */
void drop_trace(void);
/* the suite's .fini: the trace dropped, the ELF files unmounted and removed */
void metadata_fini(void);
uint64_t clock_ns(clockid_t id);
/* Start a trace in a new file of /tmp, with a writer on it. */
void start(void);
/* Read every record of the trace back into recs[]. */
void read_back(void);
/* Close the trace and read it back. */
void finish(void);
/* The only record of a type. */
const void *only(uint16_t type);
void read_text(const char *file, char *buf, size_t len);
/* Write a minimal ELF64 file, mode 0644, to a new file named in out[64]: it holds a GNU build-id
 * note (none when idlen is 0), found through a PT_NOTE program header, or a SHT_NOTE section. */
void write_elf(char *out, const uint8_t *id, size_t idlen, bool as_section);
/* Go into a mount namespace of the test's own, whose changes do not propagate out. */
void private_mounts(void);

#endif /* WC_TEST_METADATA_UTIL_H */
