/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source-perf.c - the perf.data source (magic "PERFILE2"): the ops of source.h, the file
 * header, the attrs with their ids, and the feature sections the analysis needs (see
 * source-perf.h for the split and the translation).
 *
 * What is read, by section (perf.data-file-format.txt):
 *   header    magic, sizes, the attrs and data sections, the feature bits
 *   attrs     attr_size bytes each: a perf_event_attr of the file's size (cut or zero-extended
 *             to ours), then the section of its ids (u64 each)
 *   features  after the data section, one section (offset, size) per bit set, in bit order:
 *             TRACING_DATA (formats), HOSTNAME, OSRELEASE, VERSION, ARCH, NRCPUS, CMDLINE,
 *             EVENT_DESC (event names by id), CLOCK_DATA; the others are left alone
 * The metadata records (HOST, CLOCK, EVENT_ATTR, TP_FORMAT, NOTE) are queued before the first
 * record of the data section is read, as source.h asks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/core/source-perf.h"
#include "common/grow.h"

/* The file header, 104 bytes at offset 0. */
struct pd_file_header {
	char magic[8];
	uint64_t size;	    /* of this header, bytes */
	uint64_t attr_size; /* of one entry of the attrs section: an attr and its ids section */
	uint64_t attrs_off, attrs_size;
	uint64_t data_off, data_size;
	uint64_t types_off, types_size; /* unused since perf 3.x */
	uint64_t features[4];		/* HEADER_* bits */
};
_Static_assert(sizeof(struct pd_file_header) == 104, "perf.data header");

enum { /* feature bits (tools/perf/util/header.h) */
       FEAT_TRACING_DATA = 1,
       FEAT_BUILD_ID = 2,
       FEAT_HOSTNAME = 3,
       FEAT_OSRELEASE = 4,
       FEAT_VERSION = 5,
       FEAT_ARCH = 6,
       FEAT_NRCPUS = 7,
       FEAT_CMDLINE = 11,
       FEAT_EVENT_DESC = 12,
       FEAT_CLOCK_DATA = 29,
       FEAT_BITS = 256,
};

int pd_fail(struct pd *p, enum wc_reader_state state, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	if (p->state != WC_READER_OK)
		return 0;
	p->state = state;
	p->error_off = off;
	va_start(ap, fmt);
	vsnprintf(p->error, sizeof(p->error), fmt, ap);
	va_end(ap);
	return 0;
}

void *pd_emit(struct pd_buf *b, size_t size, uint16_t type, uint16_t flags)
{
	struct wc_rec_header *h;

	size = WC_ALIGN8(size);
	if (wc_grow((void **)&b->p, &b->cap, b->len + size, 1))
		return NULL;
	h = (struct wc_rec_header *)(b->p + b->len);
	memset(h, 0, size);
	h->size = (uint32_t)size;
	h->type = type;
	h->flags = flags;
	b->len += size;
	return h;
}

int pd_note(struct pd_buf *b, const char *key, const char *value)
{
	size_t k = strlen(key) + 1, v = strlen(value) + 1;
	struct wc_rec_note *n = pd_emit(b, sizeof(*n) + k + v, WC_REC_NOTE, 0);

	if (!n)
		return -ENOMEM;
	n->key_len = (uint32_t)k;
	n->value_len = (uint32_t)v;
	memcpy(n->data, key, k);
	memcpy(n->data + k, value, v);
	return 0;
}

/*
 * @len bytes at file offset @off into a new buffer (*@out, freed by the caller), for the
 * section named @what.  Return: 0, or -1 with p's error set (or ENOMEM).
 */
static int read_section(struct pd *p, const char *what, uint64_t off, uint64_t len, uint8_t **out)
{
	uint8_t *b;
	size_t done = 0;

	*out = NULL;
	if (off > p->file_size || len > p->file_size - off)
		return pd_fail(p, WC_READER_CORRUPT, off,
			       "perf.data: the %s (%" PRIu64 " bytes at byte %" PRIu64
			       ") passes the end of the file (%" PRIu64 " bytes)",
			       what, len, off, p->file_size),
		       -1;
	if (len > SECTION_MAX_BYTES)
		return pd_fail(p, WC_READER_CORRUPT, off,
			       "perf.data: the %s at byte %" PRIu64 " is %" PRIu64
			       " bytes long, more than a perf.data holds",
			       what, off, len),
		       -1;
	b = malloc(len ? len : 1);
	if (!b)
		return pd_fail(p, WC_READER_IO_ERROR, off, "perf.data: out of memory"), -1;
	while (done < len) {
		ssize_t n = pread(p->fd, b + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(b);
			return pd_fail(p, n ? WC_READER_IO_ERROR : WC_READER_TRUNCATED, off + done,
				       "perf.data: reading the %s at byte %" PRIu64 ": %s", what,
				       off + done, n ? strerror(errno) : "end of file"),
			       -1;
		}
		done += (size_t)n;
	}
	*out = b;
	return 0;
}

/* The kind of an event by its attr and name (enum wc_event_kind). */
static uint32_t kind_of(const struct pd_attr *a)
{
	static const struct {
		const char *name;
		uint32_t kind;
	} tps[] = {
		{ "sched:sched_switch", WC_EVENT_SWITCH },
		{ "sched:sched_wakeup", WC_EVENT_WAKEUP },
		{ "sched:sched_waking", WC_EVENT_WAKING },
		{ "sched:sched_wakeup_new", WC_EVENT_WAKEUP_NEW },
		{ "sched:sched_migrate_task", WC_EVENT_MIGRATE },
		{ "sched:sched_stat_runtime", WC_EVENT_RUNTIME },
		{ "sched:sched_stat_sleep", WC_EVENT_STAT_SLEEP },
		{ "sched:sched_stat_blocked", WC_EVENT_STAT_BLOCKED },
		{ "sched:sched_stat_iowait", WC_EVENT_STAT_IOWAIT },
	};

	if (a->attr.type == PERF_TYPE_TRACEPOINT) {
		for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++)
			if (!strcmp(a->name, tps[i].name))
				return tps[i].kind;
		return WC_EVENT_OTHER;
	}
	if (a->attr.type == PERF_TYPE_HARDWARE ||
	    (a->attr.type == PERF_TYPE_SOFTWARE && (a->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
						    a->attr.config == PERF_COUNT_SW_TASK_CLOCK)))
		return WC_EVENT_SAMPLE;
	return WC_EVENT_OTHER;
}

/* A name for an event the file did not name (no EVENT_DESC, no format of its id). */
static void default_name(struct pd_attr *a)
{
	static const char *const hw[] = { "cycles",	  "instructions", "cache-references",
					  "cache-misses", "branches",	  "branch-misses" };

	if (a->attr.type == PERF_TYPE_HARDWARE && a->attr.config < 6)
		snprintf(a->name, sizeof(a->name), "%s", hw[a->attr.config]);
	else if (a->attr.type == PERF_TYPE_SOFTWARE && a->attr.config == PERF_COUNT_SW_CPU_CLOCK)
		snprintf(a->name, sizeof(a->name), "cpu-clock");
	else if (a->attr.type == PERF_TYPE_SOFTWARE && a->attr.config == PERF_COUNT_SW_TASK_CLOCK)
		snprintf(a->name, sizeof(a->name), "task-clock");
	else
		snprintf(a->name, sizeof(a->name), "type%u:0x%llx", a->attr.type,
			 (unsigned long long)a->attr.config);
}

/*
 * Where an event's id is: u64s before ID in a sample (-1: IDENTIFIER first), u64s from ID to
 * the end of a sample_id_all trailer.  With one attr no id is needed.
 */
static int id_layout(struct pd *p)
{
	const uint64_t before =
		PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR;
	bool all_identifier = true;

	for (unsigned i = 0; i < p->nattrs; i++)
		all_identifier =
			all_identifier && (p->attrs[i].attr.sample_type & PERF_SAMPLE_IDENTIFIER);
	p->id_words_sample = -1;
	p->id_words_trailer = 1;
	if (all_identifier || p->nattrs == 1)
		return 0;
	for (unsigned i = 0; i < p->nattrs; i++) {
		uint64_t st = p->attrs[i].attr.sample_type;
		int s = __builtin_popcountll(st & before);
		int t = 1 + !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU);

		if (!(st & PERF_SAMPLE_ID) ||
		    (i && (s != p->id_words_sample || t != p->id_words_trailer)))
			return pd_fail(p, WC_READER_UNSUPPORTED, 0,
				       "perf.data: its %u events lay their samples out differently "
				       "and carry no IDENTIFIER: no record can be told apart",
				       p->nattrs),
			       -1;
		p->id_words_sample = s;
		p->id_words_trailer = t;
	}
	return 0;
}

/* The attrs section and each attr's ids.  Return: 0, or -1 with p's error set. */
static int read_attrs(struct pd *p, const struct pd_file_header *fh)
{
	uint64_t asz = fh->attr_size, n;
	uint8_t *b;

	if (asz < PERF_ATTR_SIZE_VER0 + 16 || asz > 4096 || fh->attrs_size % asz)
		return pd_fail(p, WC_READER_CORRUPT, 16,
			       "perf.data: attr size %" PRIu64 " (attrs section of %" PRIu64
			       " bytes) at byte 16: not an attr and its ids section",
			       asz, fh->attrs_size),
		       -1;
	n = fh->attrs_size / asz;
	if (!n || n > PD_MAX_ATTRS)
		return pd_fail(p, n ? WC_READER_UNSUPPORTED : WC_READER_CORRUPT, 24,
			       "perf.data: %" PRIu64 " events (at most %d are read)", n,
			       PD_MAX_ATTRS),
		       -1;
	if (read_section(p, "attrs section", fh->attrs_off, fh->attrs_size, &b))
		return -1;
	p->nattrs = (unsigned)n;
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *e = b + i * asz;
		uint64_t ids_off = pd_u64(e + asz - 16), ids_size = pd_u64(e + asz - 8);
		size_t take =
			asz - 16 < sizeof(p->attrs[i].attr) ? asz - 16 : sizeof(p->attrs[i].attr);
		uint8_t *ids;

		memcpy(&p->attrs[i].attr, e, take);
		if (ids_size % 8 ||
		    read_section(p, "ids section of an attr", ids_off, ids_size, &ids))
			break;
		for (uint64_t k = 0; k < ids_size / 8; k++)
			if (pd_u64(ids + 8 * k) != WC_MAP64_EMPTY &&
			    !wc_map64_put(&p->ids, pd_u64(ids + 8 * k), i, NULL))
				pd_fail(p, WC_READER_IO_ERROR, 0, "perf.data: out of memory");
		free(ids);
	}
	free(b);
	return p->state == WC_READER_OK ? 0 : -1;
}

/* A perf_header_string at *@d of @end: u32 len, then len bytes (NUL-padded). */
static const uint8_t *take_string(const uint8_t *d, const uint8_t *end, char *dst, size_t n)
{
	uint32_t len;

	dst[0] = 0;
	if (end - d < 4)
		return NULL;
	len = pd_u32(d);
	if (len > (size_t)(end - d) - 4)
		return NULL;
	snprintf(dst, n, "%.*s", (int)strnlen((const char *)d + 4, len), (const char *)d + 4);
	return d + 4 + len;
}

/* EVENT_DESC: u32 nr, u32 attr_size, then per event its attr, u32 nr_ids, name, ids. */
static void event_desc(struct pd *p, const uint8_t *d, uint64_t len)
{
	const uint8_t *end = d + len;
	uint32_t nr, asz;

	if (len < 8)
		return;
	nr = pd_u32(d);
	asz = pd_u32(d + 4);
	d += 8;
	for (uint32_t i = 0; i < nr && d; i++) {
		char name[64];
		uint32_t nids;

		if ((uint64_t)(end - d) < (uint64_t)asz + 4)
			return;
		nids = pd_u32(d + asz);
		d = take_string(d + asz + 4, end, name, sizeof(name));
		if (!d || (uint64_t)(end - d) / 8 < nids)
			return;
		for (uint32_t k = 0; k < nids; k++) {
			uint64_t *at = wc_map64_get(&p->ids, pd_u64(d + 8 * k));

			if (at && *at < p->nattrs)
				snprintf(p->attrs[*at].name, sizeof(p->attrs[*at].name), "%s",
					 name);
		}
		d += 8 * (uint64_t)nids;
	}
	p->have_event_desc = true;
}

/* CMDLINE: u32 nr, then nr strings; joined into a NOTE. */
static int cmdline_note(struct pd *p, const uint8_t *d, uint64_t len)
{
	const uint8_t *end = d + len;
	char line[1024] = "", arg[256];
	size_t used = 0;
	uint32_t nr = len >= 4 ? pd_u32(d) : 0;

	d += 4;
	for (uint32_t i = 0; i < nr && d && used < sizeof(line) - 1; i++) {
		d = take_string(d, end, arg, sizeof(arg));
		if (d)
			used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%s",
						 i ? " " : "", arg);
	}
	return nr ? pd_note(&p->out, "perf_cmdline", line) : 0;
}

/* One feature section we use, @len bytes at @d (file offset @off). */
int pd_feature(struct pd *p, int bit, const uint8_t *d, uint64_t len, uint64_t off)
{
	const uint8_t *end = d + len;
	struct pd_host *h = &p->host;

	switch (bit) {
	case FEAT_TRACING_DATA:
		return pd_tracing_data(p, d, len, off);
	case FEAT_BUILD_ID:
		return pd_unwind_build_ids(p, d, len) ? -ENOMEM : 0;
	case FEAT_HOSTNAME:
		take_string(d, end, h->hostname, sizeof(h->hostname));
		break;
	case FEAT_OSRELEASE:
		take_string(d, end, h->release, sizeof(h->release));
		break;
	case FEAT_VERSION:
		take_string(d, end, h->version, sizeof(h->version));
		break;
	case FEAT_ARCH:
		take_string(d, end, h->arch, sizeof(h->arch));
		break;
	case FEAT_NRCPUS:
		if (len >= 8) {
			h->have_nrcpus = true;
			h->ncpus_avail = pd_u32(d);
			h->ncpus_online = pd_u32(d + 4);
		}
		break;
	case FEAT_CMDLINE:
		return cmdline_note(p, d, len);
	case FEAT_EVENT_DESC:
		event_desc(p, d, len);
		break;
	case FEAT_CLOCK_DATA: /* u32 version, u32 clockid, u64 time of day, u64 clock */
		if (len >= 24 && pd_u32(d) == 1) {
			h->have_clock = true;
			h->clockid = pd_u32(d + 4);
			h->tod_ns = pd_u64(d + 8);
			h->clock_ns = pd_u64(d + 16);
		}
		break;
	}
	return 0;
}

/* The feature sections: their table follows the data section. */
static int read_features(struct pd *p, const struct pd_file_header *fh)
{
	static const uint64_t wanted = 1ull << FEAT_TRACING_DATA | 1ull << FEAT_BUILD_ID |
				       1ull << FEAT_HOSTNAME | 1ull << FEAT_OSRELEASE |
				       1ull << FEAT_VERSION | 1ull << FEAT_ARCH |
				       1ull << FEAT_NRCPUS | 1ull << FEAT_CMDLINE |
				       1ull << FEAT_EVENT_DESC | 1ull << FEAT_CLOCK_DATA;
	unsigned nsec = 0, k = 0;
	uint8_t *table;

	for (int i = 0; i < 4; i++)
		nsec += (unsigned)__builtin_popcountll(fh->features[i]);
	if (!nsec)
		return 0;
	if (read_section(p, "feature table", fh->data_off + fh->data_size, 16ull * nsec, &table))
		return -1;
	for (int bit = 0; bit < FEAT_BITS && p->state == WC_READER_OK; bit++) {
		uint64_t off, len;
		uint8_t *d;

		if (!(fh->features[bit / 64] >> (bit % 64) & 1))
			continue;
		off = pd_u64(table + 16 * k);
		len = pd_u64(table + 16 * k + 8);
		k++;
		if (bit >= 64 || !(wanted >> bit & 1))
			continue;
		if (read_section(p, "feature section", off, len, &d))
			break;
		if (pd_feature(p, bit, d, len, off) == -ENOMEM)
			pd_fail(p, WC_READER_IO_ERROR, off, "perf.data: out of memory");
		free(d);
	}
	free(table);
	return p->state == WC_READER_OK ? 0 : -1;
}

/* HOST and CLOCK records from the features. */
static int host_records(struct pd *p, const struct pd_host *h)
{
	const char *s[6] = { "Linux", h->hostname, h->release, "", h->arch, NULL };
	char recorder[64];
	struct wc_rec_host *r;
	size_t len = 0;

	snprintf(recorder, sizeof(recorder), "perf %s (perf.data)",
		 h->version[0] ? h->version : "of unknown version");
	s[5] = recorder;
	for (int i = 0; i < 6; i++)
		len += strlen(s[i]) + 1;
	r = pd_emit(&p->out, sizeof(*r) + len, WC_REC_HOST, 0);
	if (!r)
		return -ENOMEM;
	r->ncpus_online = h->ncpus_online;
	r->ncpus_configured = h->ncpus_avail > h->ncpus_online ? h->ncpus_avail : h->ncpus_online;
	r->page_size = 4096;
	r->strings_len = (uint32_t)len;
	for (char *d = r->strings, i = 0; i < 6; i++)
		d = stpcpy(d, s[(int)i]) + 1;
	if (h->have_clock) {
		struct wc_rec_clock *c = pd_emit(&p->out, sizeof(*c), WC_REC_CLOCK, 0);

		if (!c)
			return -ENOMEM;
		c->clockid = (int32_t)h->clockid;
		c->clock_ns = h->clock_ns;
		c->realtime_ns = h->tod_ns;
	}
	return 0;
}

/* EVENT_ATTR records, and one NOTE on what the reports cannot give for lack of an event. */
static int event_records(struct pd *p)
{
	bool sw = false, wk = false, sw_stacks = false, samples = false, dwarf = false;
	char missing[512] = "";
	size_t n = 0;

	for (unsigned i = 0; i < p->nattrs; i++) {
		struct pd_attr *a = &p->attrs[i];
		struct wc_rec_event_attr *r;
		size_t nl;

		if (!a->name[0])
			default_name(a);
		nl = strlen(a->name) + 1;
		a->kind = kind_of(a);
		r = pd_emit(&p->out, sizeof(*r) + sizeof(a->attr) + nl, WC_REC_EVENT_ATTR, 0);
		if (!r)
			return -ENOMEM;
		r->event_id = i;
		r->kind = a->kind;
		r->attr_size = sizeof(a->attr);
		r->name_len = (uint32_t)nl;
		memcpy(r->data, &a->attr, sizeof(a->attr));
		memcpy(r->data + sizeof(a->attr), a->name, nl);
		sw = sw || a->kind == WC_EVENT_SWITCH;
		sw_stacks = sw_stacks || (a->kind == WC_EVENT_SWITCH &&
					  (a->attr.sample_type & PERF_SAMPLE_CALLCHAIN));
		wk = wk || a->kind == WC_EVENT_WAKEUP || a->kind == WC_EVENT_WAKING;
		samples = samples || a->kind == WC_EVENT_SAMPLE;
		dwarf = dwarf || (a->attr.sample_type & PERF_SAMPLE_STACK_USER);
	}
	if (!sw)
		n += (size_t)snprintf(missing + n, sizeof(missing) - n,
				      "%sno sched:sched_switch: "
				      "no off-CPU time, no timehist",
				      n ? "; " : "");
	else if (!sw_stacks)
		n += (size_t)snprintf(missing + n, sizeof(missing) - n,
				      "%ssched_switch without "
				      "callchains (-g): off-CPU time has no stacks",
				      n ? "; " : "");
	if (sw && !wk)
		n += (size_t)snprintf(missing + n, sizeof(missing) - n,
				      "%sno sched_waking or "
				      "sched_wakeup: no run-queue split (off-CPU time is not split "
				      "into blocked and scheduler delay)",
				      n ? "; " : "");
	if (!samples)
		n += (size_t)snprintf(missing + n, sizeof(missing) - n,
				      "%sno CPU samples: on-CPU "
				      "time from switches only, without stacks",
				      n ? "; " : "");
	if (dwarf &&
	    (pd_unwind_start(p) ||
	     pd_note(&p->out, "user_stacks",
		     "dwarf (perf --call-graph dwarf: unwound here, with the local files)")))
		return -ENOMEM;
	return n ? pd_note(&p->out, "cannot_give", missing) : 0;
}

int pd_finalize(struct pd *p)
{
	p->finalized = true;
	if (!p->nattrs)
		return pd_fail(p, WC_READER_CORRUPT, p->in_off + p->in_pos,
			       "perf.data: no event attr before the first event record"),
		       -1;
	if (id_layout(p))
		return -1;
	if (host_records(p, &p->host) || event_records(p))
		return pd_fail(p, WC_READER_IO_ERROR, 0, "perf.data: out of memory"), -1;
	for (unsigned i = 0; i < p->nattrs; i++)
		if (!(p->attrs[i].attr.sample_type & PERF_SAMPLE_TIME))
			return pd_fail(p, WC_READER_UNSUPPORTED, 0,
				       "perf.data: event %s has no PERF_SAMPLE_TIME: its records "
				       "cannot be put in time order",
				       p->attrs[i].name),
			       -1;
	return 0;
}

int pd_header_attr(struct pd *p, const uint8_t *d, size_t size, uint64_t off)
{
	uint32_t asz = size >= 16 ? pd_u32(d + 12) : 0; /* perf_event_attr.size */
	struct pd_attr *a = &p->attrs[p->nattrs];

	if (asz < PERF_ATTR_SIZE_VER0 || asz > size - 8 || (size - 8 - asz) % 8)
		return pd_fail(p, WC_READER_CORRUPT, off,
			       "perf.data: a HEADER_ATTR record at byte %" PRIu64
			       " of %zu bytes holds an attr of %u bytes",
			       off, size, asz);
	if (p->finalized || p->nattrs == PD_MAX_ATTRS) {
		p->skipped[PD_REC_HEADER_ATTR]++; /* after the events began, or too many */
		return 0;
	}
	memcpy(&a->attr, d + 8, asz < sizeof(a->attr) ? asz : sizeof(a->attr));
	for (size_t at = 8 + asz; at + 8 <= size; at += 8)
		if (pd_u64(d + at) != WC_MAP64_EMPTY &&
		    !wc_map64_put(&p->ids, pd_u64(d + at), p->nattrs, NULL))
			return -ENOMEM;
	p->nattrs++;
	return 0;
}

/*
 * A pipe-mode file or stream: the 16-byte header (magic, size), then records, the metadata
 * among them (HEADER_ATTR, HEADER_FEATURE, HEADER_TRACING_DATA) before the first event.
 */
static int start_pipe(struct pd *p, uint64_t header_size)
{
	if (header_size != 16)
		return pd_fail(p, WC_READER_CORRUPT, 8,
			       "perf.data: header size %" PRIu64
			       " (16 in pipe mode, 104 in a file)",
			       header_size),
		       -1;
	p->pipe = true;
	p->data_off = 16;
	if (p->stream) {
		p->in_pos += 8; /* the size, read by start() */
	} else {
		p->data_end = p->file_size;
		p->in_off = 16;
	}
	return pd_note(&p->out, "source_format", "perf.data, pipe mode") ? -1 : 0;
}

/* Read everything before the data section's records.  Return: 0, or -1 with p's error set. */
static int start(struct pd *p)
{
	struct pd_file_header fh;
	uint8_t *b;

	if (p->stream) {
		if (pd_window(p, 8) < 8)
			return pd_fail(p, WC_READER_TRUNCATED, 8,
				       "perf.data: the input ends in its header"),
			       -1;
		return start_pipe(p, pd_u64(p->in + p->in_pos));
	}
	if (read_section(p, "file header", 0, 16, &b))
		return -1;
	memcpy(&fh, b, 16);
	free(b);
	if (!memcmp(fh.magic, PD_MAGIC_SWAPPED, 8))
		return pd_fail(p, WC_READER_UNSUPPORTED, 0,
			       "perf.data of the other byte order (recorded on a big-endian host): "
			       "not supported; `perf script` on such a host reads it"),
		       -1;
	if (!memcmp(fh.magic, PD_MAGIC, 8) && fh.size == 16)
		return start_pipe(p, fh.size);
	if (read_section(p, "file header", 0, sizeof(fh), &b))
		return -1;
	memcpy(&fh, b, sizeof(fh));
	free(b);
	if (memcmp(fh.magic, PD_MAGIC, 8) || fh.size < sizeof(fh))
		return pd_fail(p, WC_READER_CORRUPT, 0,
			       "perf.data: bad file header (magic or header size %" PRIu64 ")",
			       fh.size),
		       -1;
	if (fh.data_off > p->file_size || fh.data_size > UINT64_MAX - fh.data_off)
		return pd_fail(p, WC_READER_CORRUPT, 40,
			       "perf.data: the data section (at byte %" PRIu64
			       ") starts past the end of the file (%" PRIu64 " bytes)",
			       fh.data_off, p->file_size),
		       -1;
	if (pd_note(&p->out, "source_format", "perf.data"))
		return pd_fail(p, WC_READER_IO_ERROR, 0, "perf.data: out of memory"), -1;
	if (read_attrs(p, &fh))
		return -1;
	p->data_off = fh.data_off;
	p->data_size = fh.data_size;
	p->data_end = fh.data_off + fh.data_size;
	if (!fh.data_size) /* perf killed before it wrote the header: records to the end */
		p->data_end = p->file_size;
	else if (read_features(p, &fh))
		return -1;
	if (p->data_end > p->file_size)
		p->data_end = p->file_size;
	p->in_off = p->data_off;
	return pd_finalize(p);
}

/* A source over @fd: a file, or a stream (@magic: its first 8 bytes, read already). */
static void *open_any(int fd, const char *magic)
{
	struct pd *p = calloc(1, sizeof(*p));
	struct stat st;

	if (!p || fstat(fd, &st) || wc_map64_init(&p->ids)) {
		int e = p ? errno : ENOMEM;

		free(p);
		close(fd);
		errno = e;
		return NULL;
	}
	p->fd = fd;
	p->stream = magic != NULL;
	p->file_size = p->stream ? 0 : (uint64_t)st.st_size;
	p->in_off = p->stream ? 8 : 0; /* a stream's magic was read by source.c */
	p->data_end = p->stream ? UINT64_MAX : 0;
	p->stacks = wc_stack_table_new(0);
	p->payloads = wc_stack_table_new(0);
	if (!p->stacks || !p->payloads) {
		wc_stack_table_free(p->stacks);
		wc_stack_table_free(p->payloads);
		wc_map64_fini(&p->ids);
		free(p);
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	if (p->stream && memcmp(magic, PD_MAGIC, 8))
		pd_fail(p, WC_READER_UNSUPPORTED, 0,
			"perf.data of the other byte order (recorded on a big-endian host): "
			"not supported");
	return p;
}

static void *pd_open(int fd)
{
	return open_any(fd, NULL);
}

static void *pd_open_stream(int fd, const char *magic)
{
	return open_any(fd, magic);
}

static int pd_next(void *priv, const struct wc_rec_header **rec)
{
	struct pd *p = priv;

	if (!p->started) {
		p->started = true;
		if (p->state == WC_READER_OK)
			start(p);
	}
	for (;;) {
		if (p->out_pos < p->out.len) {
			*rec = (const struct wc_rec_header *)(p->out.p + p->out_pos);
			p->out_pos += (*rec)->size;
			return 1;
		}
		p->out.len = p->out_pos = 0;
		if (p->state != WC_READER_OK || !pd_records(p))
			if (p->out.len == 0)
				return 0;
	}
}

static enum wc_reader_state pd_state(const void *priv)
{
	return ((const struct pd *)priv)->state;
}

static const char *pd_error(const void *priv)
{
	const struct pd *p = priv;

	return p->state == WC_READER_OK || p->state == WC_READER_CLEAN ? "" : p->error;
}

static uint64_t pd_error_offset(const void *priv)
{
	return ((const struct pd *)priv)->error_off;
}

static uint64_t pd_offset(const void *priv)
{
	const struct pd *p = priv;

	return p->in_off + p->in_pos;
}

static uint64_t pd_size(const void *priv)
{
	return ((const struct pd *)priv)->file_size;
}

static void pd_free(void *priv)
{
	struct pd *p = priv;

	if (!p)
		return;
	close(p->fd);
	pd_rec_free(p);
	wc_stack_table_free(p->stacks);
	wc_stack_table_free(p->payloads);
	wc_map64_fini(&p->ids);
	free(p->out.p);
	free(p->deferred.p);
	free(p->in);
	free(p->words);
	free(p);
}

const struct wc_source_ops wc_source_perf = {
	.name = "perf.data",
	.open = pd_open,
	.open_stream = pd_open_stream,
	.next = pd_next,
	.state = pd_state,
	.error = pd_error,
	.error_offset = pd_error_offset,
	.offset = pd_offset,
	.size = pd_size,
	.set_symfs = pd_set_symfs,
	.free = pd_free,
};
