/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pb.h - a protocol-buffers encoder, just what profile.proto needs (export-pprof.c): varints,
 * length-delimited fields (strings, bytes, nested messages, packed repeated varints) into a
 * growing buffer.  The wire format is that of https://protobuf.dev/programming-guides/encoding/:
 *
 *   field    = tag payload;  tag = varint(number << 3 | wire type)
 *   varint   = 7 bits a byte, least significant group first, the top bit set on all but the
 *              last byte (1 to 10 bytes for a u64)
 *   wire 0   a varint (int64 and uint64 alike: a negative int64 takes 10 bytes; bool: 0 or 1)
 *   wire 2   varint(length in bytes) then the bytes: a string, a nested message, or the
 *            varints of a packed repeated field back to back
 *
 * Our own, not protobuf-c: profile.proto's schema is fixed and small (a dozen messages of
 * varints and strings), so this is about a hundred lines with no generated code to keep in
 * the tree and no library to link, and it writes the fields in the order we choose (the
 * samples as the profile's lines come, the tables after them), which a generated encoder of a
 * whole in-memory message would not let us do.
 *
 * Nested messages are written in place: wc_pb_open() puts the tag, wc_pb_close() inserts the
 * length before the body once it is known (the body moves by the length's 1 to 5 bytes).
 * Errors are sticky: after an allocation failure every call does nothing and b->oom is set.
 */
#ifndef WC_ANALYZER_PB_H
#define WC_ANALYZER_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wc_pb {
	uint8_t *buf; /* the encoded bytes, owned */
	size_t len, cap;
	bool oom; /* an allocation failed: the contents are incomplete */
};

/* wc_pb_fini() - free @b's buffer; a zeroed buffer is a no-op.  wc_pb_reset() empties it. */
void wc_pb_fini(struct wc_pb *b);
void wc_pb_reset(struct wc_pb *b);

/* wc_pb_varint() - @v as a varint, no tag (an element of a packed repeated field). */
void wc_pb_varint(struct wc_pb *b, uint64_t v);

/**
 * wc_pb_uint() - field @field (wire type 0) of value @v; int64 fields pass their value cast.
 * A 0 is left out, as proto3 writes no default value (a reader takes the field as 0).
 */
void wc_pb_uint(struct wc_pb *b, uint32_t field, uint64_t v);

/* wc_pb_bytes() - field @field (wire type 2) holding @n bytes at @p (copied; may be empty). */
void wc_pb_bytes(struct wc_pb *b, uint32_t field, const void *p, size_t n);

/**
 * wc_pb_open() - start a length-delimited field @field whose body follows (a nested message,
 * or a packed repeated field's varints)
 * Return: the mark to pass to wc_pb_close() (the body's offset).
 */
size_t wc_pb_open(struct wc_pb *b, uint32_t field);

/* wc_pb_close() - end the field started at @mark (wc_pb_open()): its length goes before it. */
void wc_pb_close(struct wc_pb *b, size_t mark);

/* wc_pb_varint_len() - the bytes of @v as a varint: 1 to 10. */
size_t wc_pb_varint_len(uint64_t v);

#endif /* WC_ANALYZER_PB_H */
