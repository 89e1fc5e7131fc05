/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-pb.c - the protocol-buffers encoder (pb.h): varints at the edges of their byte counts,
 * and messages whose bytes are worked out by hand from the wire format of
 * https://protobuf.dev/programming-guides/encoding/ (its own examples: 150, "testing", a
 * nested message, a packed field) and from profile.proto's field numbers.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "analyzer/output/pb.h"

static struct wc_pb b;

static void fini(void)
{
	wc_pb_fini(&b);
}

TestSuite(pb, .fini = fini);

/* b holds exactly the @n bytes @want. */
static void expect_bytes(const uint8_t *want, size_t n)
{
	cr_assert(!b.oom);
	cr_assert_eq(b.len, n, "%zu bytes, not %zu", b.len, n);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(b.buf[i], want[i], "byte %zu: %#x, not %#x", i, b.buf[i], want[i]);
}

#define EXPECT(...)                                                                                \
	do {                                                                                       \
		static const uint8_t want_[] = { __VA_ARGS__ };                                    \
		expect_bytes(want_, sizeof(want_));                                                \
	} while (0)

/* Each value on its own: 7 bits a byte, low group first, the top bit on all but the last. */
Test(pb, varint_edges)
{
	static const struct {
		uint64_t v;
		uint8_t bytes[10];
		size_t n;
	} cases[] = {
		{ 0, { 0x00 }, 1 },
		{ 1, { 0x01 }, 1 },
		{ 127, { 0x7f }, 1 },
		{ 128, { 0x80, 0x01 }, 2 },
		{ 300, { 0xac, 0x02 }, 2 },
		{ 16383, { 0xff, 0x7f }, 2 },
		{ 16384, { 0x80, 0x80, 0x01 }, 3 },
		{ UINT32_MAX, { 0xff, 0xff, 0xff, 0xff, 0x0f }, 5 },
		{ 1ull << 35, { 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 }, 6 },
		{ (1ull << 56) - 1, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f }, 8 },
		{ 1ull << 63, { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 }, 10 },
		{ UINT64_MAX, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }, 10 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		wc_pb_reset(&b);
		wc_pb_varint(&b, cases[i].v);
		cr_assert_eq(wc_pb_varint_len(cases[i].v), cases[i].n, "%llu",
			     (unsigned long long)cases[i].v);
		expect_bytes(cases[i].bytes, cases[i].n);
	}
}

/* The guide's first example: field 1 = 150 is 08 96 01; a 0 is not written (proto3). */
Test(pb, uint_field)
{
	wc_pb_uint(&b, 1, 0);
	cr_assert_eq(b.len, 0);
	wc_pb_uint(&b, 1, 150);
	EXPECT(0x08, 0x96, 0x01);
}

/* Tags of field numbers past 15 take two bytes: 16 << 3 = 128. */
Test(pb, tag_two_bytes)
{
	wc_pb_uint(&b, 14, 1); /* profile.proto's default_sample_type: 14 << 3 = 0x70 */
	wc_pb_uint(&b, 16, 1);
	EXPECT(0x70, 0x01, 0x80, 0x01, 0x01);
}

/* The guide's string: field 2 = "testing" is 12 07 and the bytes; an empty one is 12 00. */
Test(pb, string_field)
{
	wc_pb_bytes(&b, 2, "testing", 7);
	wc_pb_bytes(&b, 2, "", 0);
	EXPECT(0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g', 0x12, 0x00);
}

/* The guide's nested message: field 3 holding {field 1 = 150} is 1a 03 08 96 01. */
Test(pb, nested)
{
	size_t m = wc_pb_open(&b, 3);

	wc_pb_uint(&b, 1, 150);
	wc_pb_close(&b, m);
	EXPECT(0x1a, 0x03, 0x08, 0x96, 0x01);
}

/* The guide's packed field: field 4 = [3, 270, 86942] is 22 06 03 8e 02 9e a7 05. */
Test(pb, packed)
{
	size_t m = wc_pb_open(&b, 4);

	wc_pb_varint(&b, 3);
	wc_pb_varint(&b, 270);
	wc_pb_varint(&b, 86942);
	wc_pb_close(&b, m);
	EXPECT(0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05);
}

/* A body of 200 bytes: its length takes two bytes (c8 01), the body moves after them whole;
 * an empty nested message is its tag and a 0 length. */
Test(pb, nested_long_and_empty)
{
	uint8_t body[200];
	size_t m, e;

	for (size_t i = 0; i < sizeof(body); i++)
		body[i] = (uint8_t)i;
	m = wc_pb_open(&b, 5);
	wc_pb_bytes(&b, 1, body, 197); /* 0a c5 01 and 197 bytes: 200 in all */
	wc_pb_close(&b, m);
	e = wc_pb_open(&b, 6);
	wc_pb_close(&b, e);
	cr_assert_eq(b.len, 3 + 200 + 2);
	cr_assert_eq(b.buf[0], 0x2a);
	cr_assert_eq(b.buf[1], 0xc8);
	cr_assert_eq(b.buf[2], 0x01);
	cr_assert_eq(b.buf[3], 0x0a);
	cr_assert_eq(b.buf[4], 0xc5);
	cr_assert_eq(b.buf[5], 0x01);
	for (size_t i = 0; i < 197; i++)
		cr_assert_eq(b.buf[6 + i], (uint8_t)i, "body byte %zu", i);
	cr_assert_eq(b.buf[203], 0x32);
	cr_assert_eq(b.buf[204], 0x00);
}

/*
 * A small profile.proto Profile, encoded by hand:
 *   sample_type (1) { type (1): 1, unit (2): 2 }      0a 04 08 01 10 02
 *   sample (2) { location_id (1): packed [2, 1],      12 08 0a 02 02 01
 *                value (2): packed [300] }                  12 02 ac 02
 *   string_table (6): "", "wall", "nanoseconds"        32 00  32 04 wall  32 0b nanoseconds
 *   time_nanos (9): 1700000000000000000                48 and 9 bytes
 *   default_sample_type (14): 1                        70 01
 * 1700000000000000000 is 0x17979cfe362a0000; its 7-bit groups from the low end are 00 00 28
 * 31 63 1f 67 4b 17, so with the continuation bit 80 80 a8 b1 e3 9f e7 cb 17.
 */
Test(pb, profile_message)
{
	size_t m, p;

	m = wc_pb_open(&b, 1);
	wc_pb_uint(&b, 1, 1);
	wc_pb_uint(&b, 2, 2);
	wc_pb_close(&b, m);
	m = wc_pb_open(&b, 2);
	p = wc_pb_open(&b, 1);
	wc_pb_varint(&b, 2);
	wc_pb_varint(&b, 1);
	wc_pb_close(&b, p);
	p = wc_pb_open(&b, 2);
	wc_pb_varint(&b, 300);
	wc_pb_close(&b, p);
	wc_pb_close(&b, m);
	wc_pb_bytes(&b, 6, "", 0);
	wc_pb_bytes(&b, 6, "wall", 4);
	wc_pb_bytes(&b, 6, "nanoseconds", 11);
	wc_pb_uint(&b, 9, 1700000000000000000ull);
	wc_pb_uint(&b, 14, 1);
	EXPECT(0x0a, 0x04, 0x08, 0x01, 0x10, 0x02,			   /* sample_type */
	       0x12, 0x08, 0x0a, 0x02, 0x02, 0x01, 0x12, 0x02, 0xac, 0x02, /* sample */
	       0x32, 0x00, 0x32, 0x04, 'w', 'a', 'l', 'l', 0x32, 0x0b, 'n', 'a', 'n', 'o', 's', 'e',
	       'c', 'o', 'n', 'd', 's',					   /* string_table */
	       0x48, 0x80, 0x80, 0xa8, 0xb1, 0xe3, 0x9f, 0xe7, 0xcb, 0x17, /* time_nanos */
	       0x70, 0x01);						   /* default */
}
