/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.c - see json.h. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "analyzer/output/json.h"

/*
 * The writer is the only user of its FILE while it writes: stdio's unlocked calls (glibc,
 * _GNU_SOURCE) save a lock per call, a third of the time of a large export.
 */
#define PUTC(c, f)     putc_unlocked(c, f)
#define WRITE(p, n, f) fwrite_unlocked(p, 1, n, f)

/* @v in decimal at the end of @buf (24 bytes); the start of the digits. */
static char *utoa(uint64_t v, char *buf)
{
	char *p = buf + 24;

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return p;
}

static void put_u64(FILE *out, uint64_t v)
{
	char buf[24], *p = utoa(v, buf);

	WRITE(p, (size_t)(buf + 24 - p), out);
}

void wc_json_init(struct wc_json *j, FILE *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
}

/*
 * The length of the well-formed UTF-8 sequence at @s (at most @n bytes), or 0 when @s[0]
 * does not start one.  The table of RFC 3629 section 4: after E0 the next byte is A0..BF
 * (no overlong form), after ED 80..9F (no surrogate), after F0 90..BF, after F4 80..8F (no
 * code point above U+10FFFF); C0, C1 and F5..FF never appear.
 */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

int wc_json_write_string(FILE *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t run = 0; /* bytes from s[i - run] to s[i] to copy as they are */
	size_t i = 0;

	PUTC('"', out);
	while (i < len) {
		unsigned char c = s[i];
		const char *esc = NULL;
		char u[8];
		size_t n;

		if (c >= 0x20 && c != '"' && c != '\\' && (n = utf8_len(s + i, len - i))) {
			i += n;
			run += n;
			continue;
		}
		switch (c) {
		case '"':
			esc = "\\\"";
			break;
		case '\\':
			esc = "\\\\";
			break;
		case '\b':
			esc = "\\b";
			break;
		case '\f':
			esc = "\\f";
			break;
		case '\n':
			esc = "\\n";
			break;
		case '\r':
			esc = "\\r";
			break;
		case '\t':
			esc = "\\t";
			break;
		default:
			if (c < 0x20) {
				snprintf(u, sizeof(u), "\\u%04x", c);
				esc = u;
			} else {
				esc = "\\ufffd"; /* not UTF-8 */
			}
		}
		if (run)
			WRITE(s + i - run, run, out);
		run = 0;
		WRITE(esc, strlen(esc), out);
		i++;
	}
	if (run)
		WRITE(s + i - run, run, out);
	PUTC('"', out);
	return ferror(out) ? -EIO : 0;
}

/* A line break asked for by wc_json_newline(), after the comma that ends the line. */
static void line_break(struct wc_json *j)
{
	if (j->newline) {
		PUTC('\n', j->out);
		j->newline = false;
	}
}

/* Before a value: the comma, and a check that a value may come here. */
static bool value_start(struct wc_json *j)
{
	if (j->err)
		return false;
	if (j->depth && j->in_object[j->depth] && !j->after_key) {
		j->err = -EINVAL; /* a member needs its key first */
		return false;
	}
	if (!j->depth && j->has_items[0]) {
		j->err = -EINVAL; /* one value per document */
		return false;
	}
	if (!j->after_key && j->has_items[j->depth])
		PUTC(',', j->out);
	line_break(j);
	j->after_key = false;
	j->has_items[j->depth] = true;
	return true;
}

static void open_value(struct wc_json *j, bool object)
{
	if (!value_start(j))
		return;
	if (j->depth == WC_JSON_MAX_DEPTH) {
		j->err = -EINVAL;
		return;
	}
	PUTC(object ? '{' : '[', j->out);
	j->depth++;
	j->in_object[j->depth] = object;
	j->has_items[j->depth] = false;
}

void wc_json_object(struct wc_json *j)
{
	open_value(j, true);
}

void wc_json_array(struct wc_json *j)
{
	open_value(j, false);
}

void wc_json_end(struct wc_json *j)
{
	if (!j->depth || j->after_key) {
		j->err = -EINVAL;
		return;
	}
	line_break(j);
	PUTC(j->in_object[j->depth] ? '}' : ']', j->out);
	j->depth--;
}

void wc_json_key(struct wc_json *j, const char *key)
{
	if (!j->depth || !j->in_object[j->depth] || j->after_key) {
		j->err = -EINVAL;
		return;
	}
	if (j->has_items[j->depth])
		PUTC(',', j->out);
	line_break(j);
	wc_json_write_string(j->out, key, strlen(key));
	PUTC(':', j->out);
	j->after_key = true;
}

void wc_json_strn(struct wc_json *j, const char *s, size_t len)
{
	if (value_start(j))
		wc_json_write_string(j->out, s, len);
}

void wc_json_str(struct wc_json *j, const char *s)
{
	wc_json_strn(j, s, strlen(s));
}

void wc_json_u64(struct wc_json *j, uint64_t v)
{
	if (value_start(j))
		put_u64(j->out, v);
}

void wc_json_i64(struct wc_json *j, int64_t v)
{
	if (!value_start(j))
		return;
	if (v < 0)
		PUTC('-', j->out);
	put_u64(j->out, v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v);
}

void wc_json_fixed(struct wc_json *j, int64_t v, unsigned decimals)
{
	uint64_t scale = 1, mag;

	if (decimals > 18) {
		j->err = -EINVAL;
		return;
	}
	if (!value_start(j))
		return;
	for (unsigned i = 0; i < decimals; i++)
		scale *= 10;
	/* the magnitude, without overflow for INT64_MIN */
	mag = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
	if (v < 0)
		PUTC('-', j->out);
	put_u64(j->out, mag / scale);
	if (decimals) {
		char buf[24];

		utoa(mag % scale + scale, buf); /* a "1", then the digits with their zeros */
		buf[23 - decimals] = '.';
		WRITE(buf + 23 - decimals, decimals + 1, j->out);
	}
}

void wc_json_double(struct wc_json *j, double v)
{
	if (!value_start(j))
		return;
	if (isfinite(v))
		fprintf(j->out, "%.17g", v);
	else
		WRITE("null", 4, j->out);
}

void wc_json_bool(struct wc_json *j, bool v)
{
	if (value_start(j))
		WRITE(v ? "true" : "false", v ? 4 : 5, j->out);
}

void wc_json_null(struct wc_json *j)
{
	if (value_start(j))
		WRITE("null", 4, j->out);
}

void wc_json_raw(struct wc_json *j, const char *text, size_t len)
{
	if (value_start(j))
		WRITE(text, len, j->out);
}

void wc_json_newline(struct wc_json *j)
{
	j->newline = true;
}

int wc_json_finish(struct wc_json *j)
{
	if (!j->err && (j->depth || j->after_key))
		j->err = -EINVAL;
	PUTC('\n', j->out);
	if (fflush(j->out) || ferror(j->out))
		return -EIO;
	return j->err;
}
