/* SPDX-License-Identifier: GPL-2.0-or-later */
/* writer.c - stage records, compress them into zstd frames, write the frames out. */
#include "writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zstd.h>

#include "error.h"
#include "stack_table.h"

#define DEFAULT_LEVEL	    3
#define DEFAULT_FLUSH_MS    1000
#define DEFAULT_FRAME_BYTES (4u << 20)
#define CLOCK_CHECK_EVERY   1024 /* records between two looks at the clock in wc_writer_add() */

struct wc_writer {
	int fd;
	int error; /* first write error, negative; sticky */
	ZSTD_CCtx *cctx;
	uint32_t flush_ms;
	uint32_t frame_bytes;

	uint8_t *stage; /* records of the current frame */
	size_t stage_len, stage_cap;
	uint64_t prev_time_ns; /* time base of the current frame */
	uint8_t *out;	       /* compressed frame */
	size_t out_cap;

	uint64_t last_flush_ns; /* CLOCK_MONOTONIC */
	unsigned since_clock_check;
	struct wc_writer_stats stats;
	wc_writer_stack_hook stack_hook;
	void *stack_hook_ctx;
	wc_writer_record_hook record_hook;
	void *record_hook_ctx;
	uint64_t record_hook_types; /* 1 << type */
	wc_writer_flush_hook flush_hook;
	void *flush_hook_ctx;
	bool in_flush_hook; /* the flush hook runs, or the file is closing: no call */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Write all of buf, retrying on EINTR and short writes.  Return: 0 or -errno. */
/* Write all @len bytes; @written (may be NULL) grows by what did reach the file, a
 * failed write's part too (after ENOSPC the file holds a frame's head). */
static int write_all(int fd, const void *buf, size_t len, uint64_t *written)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		if (written)
			*written += (uint64_t)n;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

struct wc_writer *wc_writer_new(int fd, const struct wc_writer_opts *opts)
{
	struct wc_writer_opts def = { 0 };
	struct wc_file_header hdr;
	struct wc_writer *w;
	int level, err;

	if (!opts)
		opts = &def;
	level = opts->level ? opts->level : DEFAULT_LEVEL;
	if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel() || fd < 0) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->fd = fd;
	w->flush_ms = opts->flush_interval_ms ? opts->flush_interval_ms : DEFAULT_FLUSH_MS;
	w->frame_bytes = opts->frame_bytes ? opts->frame_bytes : DEFAULT_FRAME_BYTES;
	if (w->frame_bytes > WC_FRAME_MAX_BYTES - WC_REC_MAX_BYTES)
		w->frame_bytes = WC_FRAME_MAX_BYTES - WC_REC_MAX_BYTES;
	w->cctx = ZSTD_createCCtx();
	if (!w->cctx) {
		err = ENOMEM;
		goto out_free;
	}
	if (ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1))) {
		err = EINVAL;
		goto out_free;
	}
	w->stage_cap = w->frame_bytes + 4096;
	w->stage = malloc(w->stage_cap);
	w->out_cap = ZSTD_compressBound(w->stage_cap);
	w->out = malloc(w->out_cap);
	if (!w->stage || !w->out) {
		err = ENOMEM;
		goto out_free;
	}

	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, WC_FILE_MAGIC, WC_FILE_MAGIC_LEN);
	hdr.endian = WC_FILE_ENDIAN_MARK;
	hdr.version_major = WC_FILE_VERSION_MAJOR;
	hdr.version_minor = WC_FILE_VERSION_MINOR;
	hdr.header_size = sizeof(hdr);
	err = -write_all(fd, &hdr, sizeof(hdr), NULL);
	if (err)
		goto out_free;
	w->stats.bytes_written = sizeof(hdr);
	w->last_flush_ns = now_ns();
	return w;

out_free:
	wc_writer_free(w);
	errno = err;
	return NULL;
}

static int grow_stage(struct wc_writer *w, size_t need)
{
	size_t cap = w->stage_cap;
	uint8_t *p;

	while (cap < need)
		cap *= 2;
	p = realloc(w->stage, cap);
	if (!p)
		return -ENOMEM;
	w->stage = p;
	w->stage_cap = cap;
	p = realloc(w->out, ZSTD_compressBound(cap));
	if (!p)
		return -ENOMEM;
	w->out = p;
	w->out_cap = ZSTD_compressBound(cap);
	return 0;
}

int wc_writer_flush(struct wc_writer *w)
{
	size_t n;
	int err;

	if (w->error)
		return w->error;
	w->last_flush_ns = now_ns();
	if (!w->stage_len)
		return 0;
	if (w->flush_hook && !w->in_flush_hook) {
		w->in_flush_hook = true;
		err = w->flush_hook(w->flush_hook_ctx, w);
		w->in_flush_hook = false;
		if (err)
			return w->error ? w->error : (w->error = err);
		if (!w->stage_len) /* the hook's records filled a frame, which went out */
			return 0;
	}
	n = ZSTD_compress2(w->cctx, w->out, w->out_cap, w->stage, w->stage_len);
	if (ZSTD_isError(n)) {
		w->error = -WC_EZSTD;
		return w->error;
	}
	err = write_all(w->fd, w->out, n, &w->stats.bytes_written);
	if (err) {
		w->error = err;
		return err;
	}
	w->stats.frames++;
	w->stage_len = 0;
	w->prev_time_ns = 0;
	return 0;
}

int wc_writer_tick(struct wc_writer *w)
{
	if (w->error)
		return w->error;
	w->since_clock_check = 0;
	if (now_ns() - w->last_flush_ns >= (uint64_t)w->flush_ms * 1000000u)
		return wc_writer_flush(w);
	return 0;
}

int wc_writer_add(struct wc_writer *w, const void *rec)
{
	const struct wc_rec_header *h = rec;
	uint64_t t;
	uint8_t *dst;
	int err;

	if (w->error)
		return w->error;
	if (h->size < sizeof(*h) || h->size % 8 || h->size > WC_REC_MAX_BYTES || !h->type ||
	    ((h->flags & WC_REC_F_TIME) && h->size < sizeof(*h) + 8))
		return -EINVAL;
	if (w->record_hook && h->type < 64 && (w->record_hook_types >> h->type & 1)) {
		err = w->record_hook(w->record_hook_ctx, w, h);
		if (err)
			return w->error ? w->error : (w->error = err);
	}
	if (w->stage_len && w->stage_len + h->size > w->frame_bytes) {
		err = wc_writer_flush(w);
		if (err)
			return err;
	}
	if (w->stage_len + h->size > w->stage_cap) {
		err = grow_stage(w, w->stage_len + h->size);
		if (err)
			return err;
	}
	dst = w->stage + w->stage_len;
	memcpy(dst, rec, h->size);
	if (h->flags & WC_REC_F_TIME) {
		/* on disk: the difference from the previous timed record of the frame */
		memcpy(&t, dst + sizeof(*h), 8);
		uint64_t delta = t - w->prev_time_ns;
		memcpy(dst + sizeof(*h), &delta, 8);
		w->prev_time_ns = t;
	}
	w->stage_len += h->size;
	w->stats.records++;
	w->stats.bytes_uncompressed += h->size;
	if (h->type < WC_REC_TYPE_COUNT)
		w->stats.counts[h->type]++;
	if (++w->since_clock_check >= CLOCK_CHECK_EVERY)
		return wc_writer_tick(w);
	return 0;
}

int wc_writer_stack(struct wc_writer *w, struct wc_stack_table *table, const uint64_t *ips,
		    uint32_t nr, uint32_t *id)
{
	struct wc_rec_stack *rec;
	uint32_t size;
	bool is_new;
	int err;

	if (w->error)
		return w->error;
	if (nr > (WC_REC_MAX_BYTES - sizeof(*rec)) / 8u)
		return -EINVAL;
	err = wc_stack_table_add(table, ips, nr, id, &is_new);
	if (err || !is_new)
		return err;
	if (w->stack_hook) {
		err = w->stack_hook(w->stack_hook_ctx, w, ips, nr);
		if (err)
			return w->error ? w->error : (w->error = err);
	}
	size = sizeof(*rec) + nr * 8u;
	rec = malloc(size);
	if (!rec)
		return w->error =
			       -ENOMEM; /* the id is handed out: the file cannot go on without it */
	rec->h = (struct wc_rec_header){ .size = size, .type = WC_REC_STACK };
	rec->id = *id;
	rec->nr = nr;
	memcpy(rec->ips, ips, nr * 8u);
	err = wc_writer_add(w, rec);
	free(rec);
	if (err && !w->error)
		w->error = err; /* an id without its STACK record: stop the file here */
	return err;
}

void wc_writer_set_stack_hook(struct wc_writer *w, wc_writer_stack_hook fn, void *ctx)
{
	w->stack_hook = fn;
	w->stack_hook_ctx = ctx;
}

void wc_writer_set_record_hook(struct wc_writer *w, uint64_t types, wc_writer_record_hook fn,
			       void *ctx)
{
	w->record_hook = fn;
	w->record_hook_ctx = ctx;
	w->record_hook_types = types;
}

void wc_writer_set_flush_hook(struct wc_writer *w, wc_writer_flush_hook fn, void *ctx)
{
	w->flush_hook = fn;
	w->flush_hook_ctx = ctx;
}

int wc_writer_payload(struct wc_writer *w, struct wc_stack_table *table, uint16_t event_id,
		      const void *data, uint32_t size, uint32_t *id)
{
	/* key: a word with the event id and size, then the bytes padded with zeros */
	static __thread uint64_t key[1 + WC_PAYLOAD_MAX_BYTES / 8];
	uint32_t words = 1 + (size + 7) / 8;
	struct wc_rec_payload *rec;
	bool is_new;
	int err;

	if (w->error)
		return w->error;
	if (size > WC_PAYLOAD_MAX_BYTES)
		return -EINVAL;
	if (!size) {
		*id = WC_PAYLOAD_NONE;
		return 0;
	}
	key[0] = (uint64_t)event_id | (uint64_t)size << 16;
	key[words - 1] = 0;
	memcpy(key + 1, data, size);
	err = wc_stack_table_add(table, key, words, id, &is_new);
	if (err || !is_new)
		return err;
	rec = malloc(sizeof(*rec) + WC_ALIGN8(size));
	if (!rec)
		return w->error =
			       -ENOMEM; /* the id is handed out: the file cannot go on without it */
	memset(rec, 0, sizeof(*rec) + WC_ALIGN8(size));
	rec->h = (struct wc_rec_header){ .size = (uint32_t)sizeof(*rec) + WC_ALIGN8(size),
					 .type = WC_REC_PAYLOAD };
	rec->id = *id;
	rec->event_id = event_id;
	rec->size = (uint16_t)size;
	memcpy(rec->data, data, size);
	err = wc_writer_add(w, rec);
	free(rec);
	if (err && !w->error)
		w->error = err; /* an id without its PAYLOAD record: stop the file here */
	return err;
}

int wc_writer_close(struct wc_writer *w, uint64_t end_time_ns, uint32_t flags)
{
	struct {
		struct wc_rec_trailer t;
		uint64_t counts[WC_REC_TYPE_COUNT];
	} tr;
	int err;

	if (w->error)
		return w->error;
	memset(&tr, 0, sizeof(tr));
	tr.t.h.size = sizeof(tr);
	tr.t.h.type = WC_REC_TRAILER;
	tr.t.h.flags = WC_REC_F_TIME;
	tr.t.time_ns = end_time_ns;
	tr.t.flags = flags;
	tr.t.ncounts = WC_REC_TYPE_COUNT;
	tr.t.bytes_uncompressed = w->stats.bytes_uncompressed;
	memcpy(tr.counts, w->stats.counts, sizeof(tr.counts));
	static_assert(sizeof(tr) % 8 == 0, "trailer size is a multiple of 8");
	w->in_flush_hook = true; /* nothing after the trailer */
	err = wc_writer_add(w, &tr);
	if (err)
		return err;
	return wc_writer_flush(w);
}

void wc_writer_stats(const struct wc_writer *w, struct wc_writer_stats *stats)
{
	*stats = w->stats;
}

void wc_writer_free(struct wc_writer *w)
{
	if (!w)
		return;
	ZSTD_freeCCtx(w->cctx);
	free(w->stage);
	free(w->out);
	free(w);
}
