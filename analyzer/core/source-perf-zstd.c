/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source-perf-zstd.c - perf record -z: COMPRESSED and COMPRESSED2 records (see source-perf.h).
 * Their bytes, in file order, are one zstd stream (perf's util/zstd.c flushes it after each
 * record, but a perf record in it may straddle two COMPRESSED records); the records it
 * decompresses to are translated as those of the data section, each at the file offset of
 * the COMPRESSED record that completed it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "analyzer/core/source-perf.h"
#include "common/grow.h"

#define DECOMPRESSED_MAX_BYTES (64ull << 30) /* past this, a zstd bomb: refused */

/*
 * The whole records at the front of p->dec, each as if at file offset @off (that of the
 * COMPRESSED record that completed it); the rest is kept for the next.  Return: 0 or -ENOMEM.
 */
static int decompressed_records(struct pd *p, uint64_t off)
{
	size_t at = 0;
	int err = 0;

	while (!err && p->state == WC_READER_OK && p->dec.len - at >= 8) {
		struct pd_rec r = { .d = p->dec.p + at, .off = off };

		r.type = pd_u32(r.d);
		memcpy(&r.misc, r.d + 4, 2);
		memcpy(&r.size, r.d + 6, 2);
		if (r.size < 8)
			return pd_fail(p, WC_READER_CORRUPT, off,
				       "perf.data: a record of size %u in the COMPRESSED record at "
				       "byte %" PRIu64,
				       r.size, off);
		if (p->dec.len - at < r.size)
			break;
		err = r.type == PD_REC_COMPRESSED || r.type == PD_REC_COMPRESSED2
			      ? (p->bad_samples++, 0) /* not nested */
			      : pd_one_record(p, &r);
		at += r.size;
	}
	memmove(p->dec.p, p->dec.p + at, p->dec.len - at);
	p->dec.len -= at;
	return err;
}

/*
 * COMPRESSED (the zstd bytes fill the record) and COMPRESSED2 (u64 data_size, then as many
 * zstd bytes, then padding): the next piece of the one stream.  Return: 0 or -ENOMEM.
 */
int pd_compressed(struct pd *p, const struct pd_rec *r)
{
	size_t at = r->type == PD_REC_COMPRESSED2 ? 16 : 8;
	ZSTD_inBuffer in = { r->d + at, r->size >= at ? r->size - at : 0, 0 };

	if (r->type == PD_REC_COMPRESSED2 && (r->size < 16 || pd_u64(r->d + 8) > in.size))
		return pd_fail(p, WC_READER_CORRUPT, r->off,
			       "perf.data: a COMPRESSED2 record at byte %" PRIu64
			       " of %u bytes says it holds more",
			       r->off, r->size);
	if (r->type == PD_REC_COMPRESSED2)
		in.size = pd_u64(r->d + 8);
	if (!p->zstd && !(p->zstd = ZSTD_createDStream()))
		return -ENOMEM;
	for (bool full = false; in.pos < in.size || full;) { /* full: zstd may hold more */
		size_t ret, before = in.pos;
		ZSTD_outBuffer out;

		if (wc_grow((void **)&p->dec.p, &p->dec.cap, p->dec.len + (1u << 16), 1))
			return -ENOMEM;
		out = (ZSTD_outBuffer){ p->dec.p + p->dec.len, p->dec.cap - p->dec.len, 0 };
		ret = ZSTD_decompressStream(p->zstd, &out, &in);
		if (ZSTD_isError(ret))
			return pd_fail(p, WC_READER_CORRUPT, r->off,
				       "perf.data: the COMPRESSED record at byte %" PRIu64 ": %s",
				       r->off, ZSTD_getErrorName(ret));
		full = out.pos == out.size;
		p->dec.len += out.pos;
		p->decompressed += out.pos;
		if (p->decompressed > DECOMPRESSED_MAX_BYTES || (!out.pos && in.pos == before))
			return pd_fail(p, WC_READER_CORRUPT, r->off,
				       "perf.data: the COMPRESSED record at byte %" PRIu64
				       " decompresses to %s",
				       r->off, out.pos ? "more than a recording holds" : "nothing");
		if (p->dec.len >= (1u << 20)) { /* keep the buffer small: use what is whole */
			int err = decompressed_records(p, r->off);

			if (err)
				return err;
		}
	}
	return decompressed_records(p, r->off);
}

void pd_zstd_free(struct pd *p)
{
	ZSTD_freeDStream(p->zstd);
	free(p->dec.p);
}
