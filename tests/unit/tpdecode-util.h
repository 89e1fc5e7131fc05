/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tpdecode-util.h - what the tpdecode tests (test-tpdecode.c, test-tpdecode-errors.c) share:
 * format texts read from testdata/formats (found through $srcdir) or edited from them,
 * payloads built at the offsets a format text gives, and a decoder set up from them.
 */
#ifndef WC_TEST_TPDECODE_UTIL_H
#define WC_TEST_TPDECODE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/core/tpdecode.h"

extern struct wc_tpdecode *d; /* the decoder under test, freed by tpdecode_fini() */
extern char *texts[64];	      /* format texts read or made by the current test */
extern size_t ntexts;

/* the suite's .fini: the decoder and the texts freed */
void tpdecode_fini(void);
/* Keep @text until tpdecode_fini(). */
char *keep(char *text);
char *read_file(const char *path);
/* testdata/formats/DIR/EVENT.format, kept until tpdecode_fini(). */
const char *format(const char *dir, const char *event);
/* A copy of @text with every @from replaced by @to (at least one), kept until tpdecode_fini(). */
const char *edit(const char *text, const char *from, const char *to);
/* @text with field @from renamed @to, in its declaration and in the print fmt. */
const char *rename_field(const char *text, const char *from, const char *to);
/* Offset and size of field @name, read from the format text by hand (not libtraceevent). */
void field_pos(const char *text, const char *name, unsigned *off, unsigned *size);
bool has_field(const char *text, const char *name);
/* Bytes the record layout spans: the end of its last field. */
size_t record_bytes(const char *text);
void put(uint8_t *buf, const char *text, const char *name, uint64_t v);
void put_comm(uint8_t *buf, const char *text, const char *name, const char *comm);
/* An all-zero payload of the record's size, common_type set. */
uint8_t *payload(const char *text, size_t *size);
void add(const char *text);
void tp_bind(uint16_t id, const char *name, enum wc_tp_role role);
/* A decoder holding the sched_switch format of @dir, bound to event id 1. */
const char *switch_of(const char *dir);
/* Decode a switch of pid 100 "worker" to 200 "next" with @raw as prev_state. */
struct wc_switch switch_with(const char *text, uint64_t raw);
void expect_state(const char *text, uint64_t raw, const char *state_text, char state,
		  bool preempted);

#endif /* WC_TEST_TPDECODE_UTIL_H */
