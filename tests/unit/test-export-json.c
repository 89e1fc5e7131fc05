/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-export-json.c - the JSON writer of the exports (json.h): escapes and UTF-8 as RFC 8259
 * wants them, nesting and commas, numbers, misuse and write errors reported at the end; each
 * expected text written by hand from the RFC.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyzer/output/json.h"

TestSuite(json);

/* What @fn writes through a writer on a memory stream, and wc_json_finish()'s return. */
static char *json_text(void (*fn)(struct wc_json *j), int *ret)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct wc_json j;

	cr_assert_not_null(f);
	wc_json_init(&j, f);
	fn(&j);
	*ret = wc_json_finish(&j);
	fclose(f);
	return text;
}

static void expect_json(void (*fn)(struct wc_json *j), int want_ret, const char *want)
{
	int ret;
	char *got = json_text(fn, &ret);

	cr_expect_eq(ret, want_ret, "finish returned %d", ret);
	if (want)
		cr_expect_str_eq(got, want, "got %s, wanted %s", got, want);
	free(got);
}

static void strings(struct wc_json *j)
{
	wc_json_array(j);
	wc_json_str(j, "plain ascii");
	wc_json_str(j, "q\"b\\s/");	      /* RFC 8259: " and \ escaped, / not */
	wc_json_str(j, "\b\f\n\r\t\x01\x1f"); /* short escapes, else \u00XX */
	wc_json_str(j, "\x7f caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5"); /* DEL é € U+1F525 */
	wc_json_strn(j, "a\0b", 3);					  /* NUL inside */
	wc_json_end(j);
}

/* The escapes of RFC 8259 section 7; well-formed UTF-8 as it is. */
Test(json, escapes)
{
	expect_json(strings, 0,
		    "[\"plain ascii\",\"q\\\"b\\\\s/\",\"\\b\\f\\n\\r\\t\\u0001\\u001f\","
		    "\"\x7f caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5\",\"a\\u0000b\"]\n");
}

static void bad_utf8(struct wc_json *j)
{
	wc_json_array(j);
	wc_json_str(j, "a\xff"
		       "b");		    /* never a UTF-8 byte */
	wc_json_str(j, "\xc0\x80");	    /* overlong NUL: C0 cannot lead */
	wc_json_str(j, "\xed\xa0\x80");	    /* a surrogate, U+D800 */
	wc_json_str(j, "\xe2\x82");	    /* cut short at the end */
	wc_json_str(j, "\xf4\x90\x80\x80"); /* above U+10FFFF */
	wc_json_str(j, "\x80x");	    /* a continuation byte alone */
	wc_json_end(j);
}

/*
 * A byte that does not start a well-formed sequence becomes U+FFFD and the next byte is
 * looked at afresh: C0 80 is two replacements, ED A0 80 three (ED takes 80..9F only), E2 82
 * at the end two, F4 90 80 80 four (F4 takes 80..8F only).
 */
Test(json, invalid_utf8_replaced)
{
#define R "\\ufffd"
	expect_json(bad_utf8, 0,
		    "[\"a" R "b\",\"" R R "\",\"" R R R "\",\"" R R "\",\"" R R R R "\",\"" R
		    "x\"]\n");
#undef R
}

static void nesting(struct wc_json *j)
{
	wc_json_object(j);
	wc_json_key(j, "a");
	wc_json_array(j);
	wc_json_u64(j, 1);
	wc_json_i64(j, -2);
	wc_json_object(j);
	wc_json_key(j, "b");
	wc_json_null(j);
	wc_json_end(j);
	wc_json_array(j);
	wc_json_end(j);
	wc_json_end(j);
	wc_json_newline(j);
	wc_json_key(j, "c");
	wc_json_bool(j, true);
	wc_json_key(j, "d");
	wc_json_raw(j, "[7,8]", 5);
	wc_json_newline(j);
	wc_json_end(j);
}

/* Commas between members and items only; a line break comes after the comma. */
Test(json, nesting_and_commas)
{
	expect_json(nesting, 0, "{\"a\":[1,-2,{\"b\":null},[]],\n\"c\":true,\"d\":[7,8]\n}\n");
}

static void numbers(struct wc_json *j)
{
	wc_json_array(j);
	wc_json_fixed(j, 1234567, 3);
	wc_json_fixed(j, 5, 3);
	wc_json_fixed(j, -1500, 3);
	wc_json_fixed(j, 42, 0);
	wc_json_fixed(j, INT64_MIN, 3);
	wc_json_u64(j, UINT64_MAX);
	wc_json_double(j, 0.5);
	wc_json_double(j, 0.0 / 0.0);
	wc_json_end(j);
}

/* fixed: exact decimals (INT64_MIN without overflow); NaN, which JSON cannot write, null */
Test(json, numbers)
{
	expect_json(numbers, 0,
		    "[1234.567,0.005,-1.500,42,-9223372036854775.808,18446744073709551615,0.5,"
		    "null]\n");
}

static int misuse_case;

/* One misuse of the writer per case: a member without its key, an array left open, one
 * end too many, two documents, a key in an array, nesting deeper than the maximum. */
static void misuse(struct wc_json *j)
{
	switch (misuse_case) {
	case 0:
		wc_json_object(j);
		wc_json_u64(j, 1);
		wc_json_end(j);
		break;
	case 1:
		wc_json_array(j);
		break;
	case 2:
		wc_json_array(j);
		wc_json_end(j);
		wc_json_end(j);
		break;
	case 3:
		wc_json_u64(j, 1);
		wc_json_u64(j, 2);
		break;
	case 4:
		wc_json_array(j);
		wc_json_key(j, "k");
		wc_json_end(j);
		break;
	default:
		for (int i = 0; i <= WC_JSON_MAX_DEPTH; i++)
			wc_json_array(j);
		for (int i = 0; i <= WC_JSON_MAX_DEPTH; i++)
			wc_json_end(j);
	}
}

/* Misuse is remembered and reported by wc_json_finish(). */
Test(json, misuse_is_einval)
{
	for (misuse_case = 0; misuse_case < 6; misuse_case++)
		expect_json(misuse, -EINVAL, NULL);
}

/* A stream that cannot be written: -EIO at the end (/dev/full fails every write). */
Test(json, write_error_is_eio)
{
	FILE *f = fopen("/dev/full", "w");
	struct wc_json j;

	if (!f)
		cr_skip_test("no /dev/full here");
	wc_json_init(&j, f);
	wc_json_array(&j);
	for (int i = 0; i < 10000; i++)
		wc_json_str(&j, "fill the stdio buffer so that a write happens before the end");
	wc_json_end(&j);
	cr_expect_eq(wc_json_finish(&j), -EIO);
	fclose(f);
}
