/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pb.c - see pb.h: the protocol-buffers wire format, as profile.proto needs it. */
#include <stdlib.h>
#include <string.h>

#include "analyzer/output/pb.h"
#include "common/grow.h"
#include "common/usym-pack.h" /* wc_uleb_put(): a varint is an unsigned LEB128 */

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

void wc_pb_fini(struct wc_pb *b)
{
	free(b->buf);
	*b = (struct wc_pb){ 0 };
}

void wc_pb_reset(struct wc_pb *b)
{
	b->len = 0;
	b->oom = false;
}

/* Room for @n more bytes.  Return: false (b->oom set) when there is none. */
static bool room(struct wc_pb *b, size_t n)
{
	if (b->oom || wc_grow((void **)&b->buf, &b->cap, b->len + n, 1)) {
		b->oom = true;
		return false;
	}
	return true;
}

size_t wc_pb_varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

void wc_pb_varint(struct wc_pb *b, uint64_t v)
{
	if (room(b, WC_ULEB_MAX))
		b->len += wc_uleb_put(b->buf + b->len, v);
}

static void tag(struct wc_pb *b, uint32_t field, unsigned wire)
{
	wc_pb_varint(b, (uint64_t)field << 3 | wire);
}

void wc_pb_uint(struct wc_pb *b, uint32_t field, uint64_t v)
{
	if (!v)
		return;
	tag(b, field, WIRE_VARINT);
	wc_pb_varint(b, v);
}

void wc_pb_bytes(struct wc_pb *b, uint32_t field, const void *p, size_t n)
{
	tag(b, field, WIRE_LEN);
	wc_pb_varint(b, n);
	if (n && room(b, n)) {
		memcpy(b->buf + b->len, p, n);
		b->len += n;
	}
}

size_t wc_pb_open(struct wc_pb *b, uint32_t field)
{
	tag(b, field, WIRE_LEN);
	return b->len;
}

void wc_pb_close(struct wc_pb *b, size_t mark)
{
	size_t body, k;

	if (b->oom || mark > b->len)
		return;
	body = b->len - mark;
	k = wc_pb_varint_len(body);
	if (!room(b, k))
		return;
	memmove(b->buf + mark + k, b->buf + mark, body);
	wc_uleb_put(b->buf + mark, body);
	b->len += k;
}
