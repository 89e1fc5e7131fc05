/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tplint.h - check that a tracepoint format text has the shape tracefs gives it, before
 * libtraceevent parses it.
 *
 * libtraceevent 1.7 dereferences NULL on some malformed texts: a field line cut short
 * ("field:char prev_comm[" then the end), a string followed by '.', a ';' among the print
 * fmt arguments; it frees a token it then reads when parsing sizeof; and it divides by zero
 * when it evaluates "x / 0" or "x % 0".  Format texts come from trace files, which are
 * untrusted, so tpdecode runs every text through this check first (and then checks the
 * REC->NAME references itself, against the fields libtraceevent parsed).  The check is
 * syntactic and strict: it accepts the layout tracefs has written since 2.6.32, and print fmt
 * arguments that are C expressions built from the tokens sched print fmts use, without
 * sizeof, '/' or '%'.
 */
#ifndef WC_TPLINT_H
#define WC_TPLINT_H

#include <stddef.h>

/**
 * wc_tplint_format() - check the layout of a format text
 * @text: NUL-terminated
 *
 *   name: NAME
 *   ID: NUMBER
 *   format:
 *   <tab>field:TYPE NAME;<tab>offset:N;<tab>size:N;[<tab>signed:N;]   (blank lines between)
 *   print fmt: "FORMAT"[, ARG]...
 *
 * Return: NULL when @text has that layout, else a static text saying what is wrong.
 */
const char *wc_tplint_format(const char *text);

/**
 * wc_tplint_next_ref() - the next REC->NAME among the print fmt arguments of a checked text
 * @cursor: where to look from; NULL to start at the print fmt of @text.  Updated.
 * @len:    set to the length of NAME in bytes
 *
 * Return: a pointer to NAME inside @text (not NUL-terminated), or NULL when there are no more.
 */
const char *wc_tplint_next_ref(const char *text, const char **cursor, size_t *len);

#endif /* WC_TPLINT_H */
