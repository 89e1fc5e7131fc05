/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json.h - a small streaming JSON writer on a FILE *, for the reports and exports that write
 * JSON (RFC 8259).
 *
 * The writer keeps the nesting and puts the commas: open an object or an array, write keys
 * and values, close it.  Strings are escaped as RFC 8259 section 7 requires (quotation mark,
 * reverse solidus and the control characters U+0000..U+001F), and since a JSON text must be
 * UTF-8 (section 8.1) while comms, paths and symbol names are bytes, every byte that does not
 * start a well-formed UTF-8 sequence (RFC 3629: no overlong forms, no surrogates, nothing
 * above U+10FFFF) is written as U+FFFD, the replacement character, as a browser's decoder
 * would show it.
 *
 * Errors are sticky: a misuse (a value where a key is due, closing what is not open, nesting
 * deeper than WC_JSON_MAX_DEPTH) or a failed write is remembered and reported once by
 * wc_json_finish(), so a writer can emit a whole document and check once at the end:
 *
 *   struct wc_json j;
 *
 *   wc_json_init(&j, out);
 *   wc_json_object(&j);
 *   wc_json_key(&j, "comm");
 *   wc_json_str(&j, t->comm);
 *   wc_json_key(&j, "run_ns");
 *   wc_json_u64(&j, run_ns);
 *   wc_json_end(&j);
 *   err = wc_json_finish(&j);     {"comm":"worker","run_ns":1400000} and a newline
 *
 * The writer uses stdio's unlocked calls: one thread writes to @out at a time.
 */
#ifndef WC_ANALYZER_JSON_H
#define WC_ANALYZER_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define WC_JSON_MAX_DEPTH 32

struct wc_json {
	FILE *out;
	unsigned depth;			       /* open objects and arrays */
	bool in_object[WC_JSON_MAX_DEPTH + 1]; /* level i is an object (else an array) */
	bool has_items[WC_JSON_MAX_DEPTH + 1]; /* level i holds a value: the next needs a comma */
	bool after_key;			       /* a key was written: its value is due */
	bool newline;			       /* a line break is due before the next token */
	int err;			       /* 0 or -EINVAL: misused */
};

/* wc_json_init() - a writer on @out (borrowed), at the top level, before any value. */
void wc_json_init(struct wc_json *j, FILE *out);

/* wc_json_object() / wc_json_array() - open "{" or "[" as the next value. */
void wc_json_object(struct wc_json *j);
void wc_json_array(struct wc_json *j);

/* wc_json_end() - close the innermost open object or array. */
void wc_json_end(struct wc_json *j);

/* wc_json_key() - the next member's name (NUL-terminated, escaped) inside an object. */
void wc_json_key(struct wc_json *j, const char *key);

/* wc_json_str() - a string value, NUL-terminated; wc_json_strn() - @len bytes of @s. */
void wc_json_str(struct wc_json *j, const char *s);
void wc_json_strn(struct wc_json *j, const char *s, size_t len);

/* wc_json_u64(), wc_json_i64() - an integer value, in decimal. */
void wc_json_u64(struct wc_json *j, uint64_t v);
void wc_json_i64(struct wc_json *j, int64_t v);

/**
 * wc_json_fixed() - @v / 10^@decimals as an exact decimal number with @decimals digits after
 * the point ("1234.567" for 1234567 and 3): nanoseconds as microseconds, with no rounding
 * of binary floating point on the way
 * @decimals: 0..18
 */
void wc_json_fixed(struct wc_json *j, int64_t v, unsigned decimals);

/* wc_json_double() - a number (%.17g, enough to read back the same double); NaN and the
 * infinities, which JSON cannot write, become null. */
void wc_json_double(struct wc_json *j, double v);

/* wc_json_bool(), wc_json_null() - true/false, null. */
void wc_json_bool(struct wc_json *j, bool v);
void wc_json_null(struct wc_json *j);

/**
 * wc_json_raw() - @len bytes of text already encoded as one JSON value (a number, or an
 * object or array made by another writer), written as they are in the place of a value
 */
void wc_json_raw(struct wc_json *j, const char *text, size_t len);

/* wc_json_newline() - a line break (whitespace between tokens) before the next key, value
 * or closing bracket, after the comma that separates them: one item per line keeps long
 * arrays readable and line-oriented tools usable. */
void wc_json_newline(struct wc_json *j);

/**
 * wc_json_finish() - end the document: a final newline, and flush @j->out
 * Return: 0; -EINVAL when the nesting was misused or is still open; -EIO when a write
 * failed.
 */
int wc_json_finish(struct wc_json *j);

/**
 * wc_json_write_string() - @len bytes of @s as one quoted JSON string on @out: escaped per
 * RFC 8259, each byte outside well-formed UTF-8 as \ufffd
 * Return: 0, or -EIO when the write failed.
 */
int wc_json_write_string(FILE *out, const char *s, size_t len);

#endif /* WC_ANALYZER_JSON_H */
