/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reader.c - frames in, checked records out. */
#include "reader.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "rectypes.h"

#define IN_BYTES	    (1u << 20)
#define FRAME_INITIAL_BYTES (4u << 20)

struct wc_reader {
	int fd;
	uint64_t file_size;
	struct wc_file_header hdr;
	enum wc_reader_state state;
	char error[320];
	uint64_t error_offset;

	ZSTD_DCtx *dctx;
	uint8_t *in;
	size_t in_len, in_pos;
	uint64_t in_file_off; /* file offset of in[0] */
	bool eof;

	uint8_t *frame; /* decompressed content of the current frame */
	size_t frame_cap, frame_len, frame_pos;
	uint64_t frame_off; /* file offset where the current frame starts */
	bool frame_partial; /* the file ended inside this frame */
	bool have_frame;
	uint64_t time_base;
	uint64_t out_total; /* decompressed bytes of the frames before the current one */
	uint64_t out_limit; /* most decompressed bytes the whole file may hold */

	bool trailer_seen;
	uint64_t counts[WC_REC_TYPE_COUNT];
	uint64_t bytes_before_trailer;
	uint64_t skipped;
};

static void fail(struct wc_reader *r, enum wc_reader_state state, uint64_t off, const char *fmt,
		 ...)
{
	va_list ap;

	r->state = state;
	r->error_offset = off;
	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
}

static uint64_t in_offset(const struct wc_reader *r)
{
	return r->in_file_off + r->in_pos;
}

/* Refill the input buffer.  Return: bytes now available, 0 at EOF, -1 after an I/O error. */
static ssize_t fill(struct wc_reader *r)
{
	ssize_t n;

	if (r->in_pos < r->in_len)
		return (ssize_t)(r->in_len - r->in_pos);
	if (r->eof)
		return 0;
	r->in_file_off += r->in_len;
	r->in_len = r->in_pos = 0;
	do
		n = read(r->fd, r->in, IN_BYTES);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		fail(r, WC_READER_IO_ERROR, r->in_file_off, "read error at byte %" PRIu64 ": %s",
		     r->in_file_off, strerror(errno));
		return -1;
	}
	if (n == 0)
		r->eof = true;
	r->in_len = (size_t)n;
	return n;
}

static void read_header(struct wc_reader *r)
{
	uint8_t *p = (uint8_t *)&r->hdr;
	size_t got = 0;

	while (got < sizeof(r->hdr)) {
		ssize_t n = fill(r);
		size_t take;

		if (n < 0)
			return;
		if (n == 0) {
			/* a trace cut inside its header begins like one; anything else
			 * (an empty file, /dev/null, a short text) is not a trace */
			size_t k = got < WC_FILE_MAGIC_LEN ? got : WC_FILE_MAGIC_LEN;

			if (!got)
				fail(r, WC_READER_CORRUPT, 0, "not a wcrec trace file (empty)");
			else if (memcmp(p, WC_FILE_MAGIC, k))
				fail(r, WC_READER_CORRUPT, 0,
				     "not a wcrec trace file (bad magic at byte 0, %zu bytes)",
				     got);
			else
				fail(r, WC_READER_TRUNCATED, got,
				     "file ends at byte %zu, inside the 64-byte header", got);
			return;
		}
		take = (size_t)n < sizeof(r->hdr) - got ? (size_t)n : sizeof(r->hdr) - got;
		memcpy(p + got, r->in + r->in_pos, take);
		r->in_pos += take;
		got += take;
	}
	if (memcmp(r->hdr.magic, WC_FILE_MAGIC, WC_FILE_MAGIC_LEN)) {
		fail(r, WC_READER_CORRUPT, 0, "not a wcrec trace file (bad magic at byte 0)");
		return;
	}
	if (r->hdr.endian != WC_FILE_ENDIAN_MARK) {
		fail(r, WC_READER_CORRUPT, 8, "bad byte-order mark 0x%08" PRIx32 " at byte 8",
		     r->hdr.endian);
		return;
	}
	if (r->hdr.version_major != WC_FILE_VERSION_MAJOR) {
		fail(r, WC_READER_UNSUPPORTED, 12,
		     "file format version %u.%u at byte 12, this reader knows %u.x",
		     r->hdr.version_major, r->hdr.version_minor, WC_FILE_VERSION_MAJOR);
		return;
	}
	if (r->hdr.features_incompat) {
		fail(r, WC_READER_UNSUPPORTED, 32,
		     "file needs features 0x%" PRIx64 " (byte 32) this reader does not know",
		     r->hdr.features_incompat);
		return;
	}
	if (r->hdr.header_size < sizeof(r->hdr) || r->hdr.header_size > (1u << 20)) {
		fail(r, WC_READER_CORRUPT, 16, "impossible header size %" PRIu32 " at byte 16",
		     r->hdr.header_size);
		return;
	}
	/* a longer header from a newer minor version: skip what we do not know */
	for (size_t skip = r->hdr.header_size - sizeof(r->hdr); skip;) {
		ssize_t n = fill(r);
		size_t take;

		if (n < 0)
			return;
		if (n == 0) {
			fail(r, WC_READER_TRUNCATED, in_offset(r),
			     "file ends at byte %" PRIu64 ", inside its %" PRIu32 "-byte header "
			     "(header size at byte 16)",
			     in_offset(r), r->hdr.header_size);
			return;
		}
		take = (size_t)n < skip ? (size_t)n : skip;
		r->in_pos += take;
		skip -= take;
	}
}

struct wc_reader *wc_reader_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? NULL : wc_reader_open_fd(fd);
}

struct wc_reader *wc_reader_open_fd(int fd)
{
	struct wc_reader *r;
	struct stat st;
	int err;

	r = calloc(1, sizeof(*r));
	if (!r) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	r->fd = fd;
	if (fstat(r->fd, &st)) {
		err = errno;
		goto out_free;
	}
	if (S_ISDIR(st.st_mode)) {
		err = EISDIR;
		goto out_free;
	}
	r->file_size = (uint64_t)st.st_size;
	r->out_limit = wc_reader_decompressed_limit(r->file_size);
	r->dctx = ZSTD_createDCtx();
	r->in = malloc(IN_BYTES);
	r->frame_cap = FRAME_INITIAL_BYTES;
	r->frame = malloc(r->frame_cap);
	if (!r->dctx || !r->in || !r->frame) {
		err = ENOMEM;
		goto out_free;
	}
	read_header(r);
	return r;

out_free:
	wc_reader_free(r);
	errno = err;
	return NULL;
}

/*
 * Decompress the next frame whole into r->frame.  Return: true with a frame (maybe partial,
 * when the file ends inside it), false at the end of the file between frames or on error.
 */
static bool next_frame(struct wc_reader *r)
{
	bool started = false;

	r->frame_len = r->frame_pos = 0;
	r->frame_partial = false;
	r->time_base = 0;
	r->frame_off = in_offset(r);
	for (;;) {
		ZSTD_inBuffer in;
		ZSTD_outBuffer out;
		ssize_t avail = fill(r);
		size_t ret;

		if (avail < 0)
			return false;
		if (avail == 0) {
			if (!started)
				return false;
			r->frame_partial = true;
			return true;
		}
		if (r->out_total + r->frame_len >= r->out_limit) {
			fail(r, WC_READER_CORRUPT, r->frame_off,
			     "frames decompress to more than %" PRIu64
			     " MiB by the one at byte %" PRIu64
			     ": over %u times the file's %" PRIu64
			     " bytes, as no trace does (a zstd "
			     "bomb?)",
			     r->out_limit >> 20, r->frame_off, WC_READER_MAX_EXPANSION,
			     r->file_size);
			return false;
		}
		if (r->frame_len == r->frame_cap) {
			size_t cap = r->frame_cap * 2;
			uint8_t *p;

			if (r->frame_cap >= WC_FRAME_MAX_BYTES) {
				fail(r, WC_READER_CORRUPT, r->frame_off,
				     "frame at byte %" PRIu64 " holds more than %u MiB",
				     r->frame_off, WC_FRAME_MAX_BYTES >> 20);
				return false;
			}
			if (cap > WC_FRAME_MAX_BYTES)
				cap = WC_FRAME_MAX_BYTES;
			p = realloc(r->frame, cap);
			if (!p) {
				fail(r, WC_READER_IO_ERROR, r->frame_off,
				     "out of memory for the frame at byte %" PRIu64, r->frame_off);
				return false;
			}
			r->frame = p;
			r->frame_cap = cap;
		}
		in = (ZSTD_inBuffer){ r->in, r->in_len, r->in_pos };
		/* no further than the file's allowance (checked above, the next time round) */
		out = (ZSTD_outBuffer){ r->frame,
					r->frame_cap < r->out_limit - r->out_total
						? r->frame_cap
						: (size_t)(r->out_limit - r->out_total),
					r->frame_len };
		ret = ZSTD_decompressStream(r->dctx, &out, &in);
		if (in.pos > r->in_pos)
			started = true;
		r->in_pos = in.pos;
		r->frame_len = out.pos;
		if (ZSTD_isError(ret)) {
			fail(r, WC_READER_CORRUPT, in_offset(r),
			     "corrupt frame at byte %" PRIu64
			     " (zstd: %s, at or before byte %" PRIu64 ")",
			     r->frame_off, ZSTD_getErrorName(ret), in_offset(r));
			return false;
		}
		if (ret == 0) {
			r->out_total += r->frame_len;
			return true;
		}
	}
}

uint64_t wc_reader_decompressed_limit(uint64_t file_size)
{
	uint64_t by_size = file_size > UINT64_MAX / WC_READER_MAX_EXPANSION
				   ? UINT64_MAX
				   : file_size * WC_READER_MAX_EXPANSION;

	return by_size > WC_READER_MIN_DECOMPRESSED ? by_size : WC_READER_MIN_DECOMPRESSED;
}

#define NEED(cond, ...)                                                                            \
	do {                                                                                       \
		if (!(cond))                                                                       \
			return snprintf(why, whylen, __VA_ARGS__), false;                          \
	} while (0)

/* a string field of len bytes ends with a NUL (so any string in it is terminated) */
static bool has_nul(const char *s, size_t len)
{
	return len && s[len - 1] == '\0';
}

/*
 * Check a known record (@h->type < WC_REC_TYPE_COUNT): its least size and time flag by
 * rectypes.c, and its internal lengths.  Return: true, or false with *why filled.
 */
static bool check_record(const struct wc_rec_header *h, char *why, size_t whylen)
{
	const struct wc_rec_type_info *t = &wc_rec_types[h->type];
	uint64_t body = h->size;

	NEED(h->size >= t->min_size, "%" PRIu32 " bytes, less than the %" PRIu32 " of its type",
	     h->size, t->min_size);
	NEED(!(t->flags & WC_RECT_TIMED) || (h->flags & WC_REC_F_TIME), "time flag missing");
	switch (h->type) {
	case WC_REC_HOST: {
		const struct wc_rec_host *x = (const void *)h;
		size_t n = 0;

		NEED(x->strings_len <= body - sizeof(*x) && has_nul(x->strings, x->strings_len),
		     "host strings overrun the record");
		for (const char *s = x->strings; s < x->strings + x->strings_len;
		     s += strlen(s) + 1)
			n++;
		NEED(n >= 6, "host record has %zu strings, not 6", n);
		break;
	}
	case WC_REC_EVENT_ATTR: {
		const struct wc_rec_event_attr *x = (const void *)h;

		NEED((uint64_t)x->attr_size + x->name_len <= body - sizeof(*x) &&
			     has_nul((const char *)x->data + x->attr_size, x->name_len),
		     "event attr lengths overrun the record");
		break;
	}
	case WC_REC_TP_FORMAT: {
		const struct wc_rec_tp_format *x = (const void *)h;

		NEED((uint64_t)x->system_len + x->text_len <= body - sizeof(*x) &&
			     has_nul(x->data, x->system_len) &&
			     has_nul(x->data + x->system_len, x->text_len),
		     "format lengths overrun the record");
		break;
	}
	case WC_REC_KALLSYMS: {
		const struct wc_rec_kallsyms *x = (const void *)h;

		NEED(x->text_len <= body - sizeof(*x) && has_nul(x->text, x->text_len),
		     "kallsyms text overruns the record");
		break;
	}
	case WC_REC_KSYM: {
		const struct wc_rec_ksym *x = (const void *)h;
		size_t name_len;

		NEED(x->strings_len <= body - sizeof(*x) && has_nul(x->strings, x->strings_len),
		     "kernel symbol strings overrun the record");
		name_len = strlen(x->strings);
		NEED(name_len && name_len + 1 < x->strings_len, "kernel symbol without %s",
		     name_len ? "a module string" : "a name");
		NEED(x->start < x->end,
		     "kernel symbol ends at 0x%" PRIx64 ", not after its start 0x%" PRIx64, x->end,
		     x->start);
		break;
	}
	case WC_REC_MMAP: {
		const struct wc_rec_mmap *x = (const void *)h;

		NEED(x->build_id_size <= WC_BUILD_ID_MAX, "build-id of %u bytes", x->build_id_size);
		NEED(memchr(x->filename, '\0', body - sizeof(*x)), "file name not terminated");
		break;
	}
	case WC_REC_STACK: {
		const struct wc_rec_stack *x = (const void *)h;

		NEED((uint64_t)x->nr * 8u <= body - sizeof(*x), "stack of %" PRIu32 " ips overruns",
		     x->nr);
		NEED(x->id != WC_STACK_NONE, "stack id 0");
		break;
	}
	case WC_REC_PAYLOAD: {
		const struct wc_rec_payload *x = (const void *)h;

		NEED(x->size <= body - sizeof(*x), "payload of %u bytes overruns", x->size);
		NEED(x->id != WC_PAYLOAD_NONE, "payload id 0");
		break;
	}
	case WC_REC_TP_INLINE: {
		const struct wc_rec_tp_inline *x = (const void *)h;

		NEED(x->size <= body - sizeof(*x), "inline payload of %u bytes overruns", x->size);
		break;
	}
	case WC_REC_TRAILER: {
		const struct wc_rec_trailer *x = (const void *)h;

		NEED((uint64_t)x->ncounts * 8u <= body - sizeof(*x), "trailer counts overrun");
		break;
	}
	case WC_REC_IMAGE: {
		const struct wc_rec_image *x = (const void *)h;

		NEED((uint64_t)x->name_len + x->image_len <= body - sizeof(*x),
		     "image name of %" PRIu32 " bytes and image of %" PRIu32
		     " bytes overrun the record",
		     x->name_len, x->image_len);
		NEED(x->name_len > 1 && has_nul((const char *)x->data, x->name_len) &&
			     !memchr(x->data, '\0', x->name_len - 1),
		     "image name not a NUL-terminated string of %" PRIu32 " bytes", x->name_len);
		break;
	}
	case WC_REC_NOTE: {
		const struct wc_rec_note *x = (const void *)h;

		NEED((uint64_t)x->key_len + x->value_len <= body - sizeof(*x) &&
			     has_nul(x->data, x->key_len) &&
			     has_nul(x->data + x->key_len, x->value_len),
		     "note lengths overrun the record");
		break;
	}
	}
	return true;
}

/* The trailer agrees with the records before it?  Sets the final state. */
static void finish_clean(struct wc_reader *r, const struct wc_rec_trailer *t)
{
	for (uint32_t i = 1; i < t->ncounts && i < WC_REC_TYPE_COUNT; i++) {
		if (i != WC_REC_TRAILER && t->counts[i] != r->counts[i]) {
			fail(r, WC_READER_CORRUPT, r->frame_off,
			     "trailer counts %" PRIu64 " records of type %" PRIu32
			     ", the file has %" PRIu64,
			     t->counts[i], i, r->counts[i]);
			return;
		}
	}
	if (t->bytes_uncompressed != r->bytes_before_trailer) {
		fail(r, WC_READER_CORRUPT, r->frame_off,
		     "trailer counts %" PRIu64 " record bytes, the file has %" PRIu64,
		     t->bytes_uncompressed, r->bytes_before_trailer);
		return;
	}
	r->state = WC_READER_CLEAN;
}

int wc_reader_next(struct wc_reader *r, const struct wc_rec_header **rec)
{
	char why[160];

	while (r->state == WC_READER_OK) {
		struct wc_rec_header *h;
		size_t left = r->frame_len - r->frame_pos;

		if (!r->have_frame || !left) {
			if (r->have_frame && r->frame_partial) {
				fail(r, WC_READER_TRUNCATED, r->file_size,
				     "file is truncated: it ends at byte %" PRIu64
				     " inside the frame that starts at byte %" PRIu64,
				     r->file_size, r->frame_off);
				break;
			}
			r->have_frame = next_frame(r);
			if (r->state != WC_READER_OK)
				break;
			if (!r->have_frame) {
				if (!r->trailer_seen)
					fail(r, WC_READER_TRUNCATED, r->file_size,
					     "file is truncated: it ends at byte %" PRIu64
					     " without a trailer (recording not closed)",
					     r->file_size);
				break;
			}
			continue;
		}
		h = (struct wc_rec_header *)(r->frame + r->frame_pos);
		if (left < sizeof(*h) || h->size > left) {
			if (r->frame_partial) {
				r->frame_pos = r->frame_len; /* the cut record */
				continue;
			}
			fail(r, WC_READER_CORRUPT, r->frame_off,
			     "corrupt record at offset %zu of the frame at byte %" PRIu64
			     ": it runs past the frame's end",
			     r->frame_pos, r->frame_off);
			break;
		}
		if (h->size < sizeof(*h) || h->size % 8 || h->size > WC_REC_MAX_BYTES || !h->type ||
		    ((h->flags & WC_REC_F_TIME) && h->size < 16)) {
			fail(r, WC_READER_CORRUPT, r->frame_off,
			     "corrupt record at offset %zu of the frame at byte %" PRIu64
			     ": impossible size %" PRIu32 " or type %u",
			     r->frame_pos, r->frame_off, h->size, h->type);
			break;
		}
		if (r->trailer_seen) {
			fail(r, WC_READER_CORRUPT, r->frame_off,
			     "record after the trailer in the frame at byte %" PRIu64,
			     r->frame_off);
			break;
		}
		if (h->flags & WC_REC_F_TIME) {
			uint64_t t;

			memcpy(&t, h + 1, 8);
			r->time_base += t;
			memcpy(h + 1, &r->time_base, 8);
		}
		r->frame_pos += h->size;
		if (h->type >= WC_REC_TYPE_COUNT) {
			r->skipped++;
			r->bytes_before_trailer += h->size;
			continue;
		}
		if (!check_record(h, why, sizeof(why))) {
			fail(r, WC_READER_CORRUPT, r->frame_off,
			     "corrupt record of type %u at offset %zu of the frame at byte %" PRIu64
			     ": %s",
			     h->type, r->frame_pos - h->size, r->frame_off, why);
			break;
		}
		if (h->type == WC_REC_TRAILER) {
			r->trailer_seen = true;
			/* the trailer must end its frame, and the file */
			if (r->frame_pos == r->frame_len && !r->frame_partial) {
				*rec = h;
				if (!fill(r) && r->state == WC_READER_OK)
					finish_clean(r, (const void *)h);
				else if (r->state == WC_READER_OK)
					fail(r, WC_READER_CORRUPT, in_offset(r),
					     "data after the trailer at byte %" PRIu64,
					     in_offset(r));
				return 1;
			}
			if (r->frame_partial) {
				*rec = h;
				return 1;
			}
			fail(r, WC_READER_CORRUPT, r->frame_off,
			     "record after the trailer in the frame at byte %" PRIu64,
			     r->frame_off);
			break;
		}
		r->counts[h->type]++;
		r->bytes_before_trailer += h->size;
		*rec = h;
		return 1;
	}
	*rec = NULL;
	return 0;
}

enum wc_reader_state wc_reader_state(const struct wc_reader *r)
{
	return r->state;
}

const char *wc_reader_error(const struct wc_reader *r)
{
	return r->error;
}

uint64_t wc_reader_error_offset(const struct wc_reader *r)
{
	return r->error_offset;
}

const struct wc_file_header *wc_reader_header(const struct wc_reader *r)
{
	return &r->hdr;
}

uint64_t wc_reader_offset(const struct wc_reader *r)
{
	return in_offset(r);
}

uint64_t wc_reader_file_size(const struct wc_reader *r)
{
	return r->file_size;
}

uint64_t wc_reader_skipped(const struct wc_reader *r)
{
	return r->skipped;
}

void wc_reader_free(struct wc_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	ZSTD_freeDCtx(r->dctx);
	free(r->in);
	free(r->frame);
	free(r);
}

const char *wc_reader_state_name(enum wc_reader_state state)
{
	switch (state) {
	case WC_READER_OK:
		return "ok";
	case WC_READER_CLEAN:
		return "clean";
	case WC_READER_TRUNCATED:
		return "truncated";
	case WC_READER_CORRUPT:
		return "corrupt";
	case WC_READER_UNSUPPORTED:
		return "unsupported";
	case WC_READER_IO_ERROR:
		return "i/o error";
	}
	return "?";
}
