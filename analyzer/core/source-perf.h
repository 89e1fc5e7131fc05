/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source-perf.h - the perf.data source's state, shared by its files (private to them):
 *   source-perf.c          the ops, the file header, attrs and feature sections
 *   source-perf-tracing.c  the TRACING_DATA feature: tracepoint format texts
 *   source-perf-rec.c      the data section's records, translated into wct records
 *   source-perf-zstd.c     COMPRESSED records (perf record -z)
 *   source-perf-unwind.c   --call-graph dwarf: user stacks unwound with the local files
 *
 * The format is perf's (tools/perf/Documentation/perf.data-file-format.txt): a header with
 * the attrs, data and feature sections, in the recording host's byte order.  Only a file of
 * this host's byte order is read; a byte-swapped one is refused with its reason.
 *
 * Translation: each perf record becomes zero or more wct records (common/wct.h) appended to
 * an output queue that next() hands out one by one.  Callchains and tracepoint payloads get
 * dense ids from two wc_stack_tables (a STACK or PAYLOAD record precedes the first event that
 * names one).  Records perf synthesized before the events (time 0: tasks and maps alive at
 * the start) wait in a second queue until the first timed record, whose time they take.
 */
#ifndef WC_ANALYZER_SOURCE_PERF_H
#define WC_ANALYZER_SOURCE_PERF_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/core/source.h"
#include "common/map64.h"
#include "common/stack_table.h"

#define PD_MAGIC	  "PERFILE2"
#define PD_MAGIC_SWAPPED  "2ELIFREP"	 /* the magic of a file of the other byte order */
#define PD_MAX_ATTRS	  64		 /* events the analysis keeps (WC_REPLAY_MAX_EVENTS) */
#define PD_REC_MAX	  65535u	 /* a perf record's size is a u16 */
#define SECTION_MAX_BYTES (256ull << 20) /* a feature, attrs or tracing data larger is refused */

/* perf's own record types (tools/perf/util/event.h), beside the kernel's PERF_RECORD_* */
enum {
	PD_REC_HEADER_ATTR = 64,
	PD_REC_HEADER_TRACING_DATA = 66,
	PD_REC_FINISHED_ROUND = 68,
	PD_REC_HEADER_FEATURE = 80,
	PD_REC_COMPRESSED = 81,
	PD_REC_FINISHED_INIT = 82,
	PD_REC_COMPRESSED2 = 83,
	PD_REC_TYPES = 128, /* counts of skipped records kept for types below this */
};

/* A growing byte buffer of wct records, each 8-byte aligned. */
struct pd_buf {
	uint8_t *p;
	size_t len, cap; /* bytes */
};

/* One attr of the file: the event behind event_id (its index). */
struct pd_attr {
	struct perf_event_attr attr; /* the file's attr, cut or zero-extended to ours */
	uint32_t kind;		     /* enum wc_event_kind */
	char name[64];		     /* "sched:sched_switch"; "" until known */
};

/* What the feature sections say of the host. */
struct pd_host {
	char hostname[65], release[65], version[33], arch[33];
	uint32_t ncpus_avail, ncpus_online;
	bool have_nrcpus, have_clock;
	uint32_t clockid;
	uint64_t tod_ns, clock_ns;
};

/* A perf record being translated. */
struct pd_rec {
	const uint8_t *d; /* the record, header included */
	uint32_t type;
	uint16_t misc, size;
	uint64_t off; /* its file offset, bytes */
};

/* One sample's fields, pointing into the record (valid while it is). */
struct pd_sample {
	uint64_t id, time_ns, period;
	uint32_t pid, tid, cpu;
	uint64_t nr;	    /* callchain entries */
	const uint8_t *ips; /* nr u64s, unaligned */
	uint32_t raw_size;  /* bytes */
	const uint8_t *raw;
	const uint8_t *regs;		  /* REGS_USER: u64s of sample_regs_user's bits; NULL */
	const uint8_t *ustack;		  /* STACK_USER: the copy from sp up */
	uint64_t ustack_size, ustack_dyn; /* its bytes, and the bytes the kernel filled */
};

#define PD_UNWIND_RESULTS 6 /* enum wc_unwind_result's values */

struct pd {
	int fd;
	uint64_t file_size; /* bytes */
	enum wc_reader_state state;
	char error[256];
	uint64_t error_off; /* bytes */
	bool started;
	bool stream;	/* read(2), not pread(2): stdin; its file_size is 0 */
	bool pipe;	/* pipe mode: the metadata comes as records */
	bool finalized; /* the metadata records are queued: events may follow */
	struct pd_host host;
	/* the header */
	uint64_t data_off, data_end; /* bytes; data_end is cut to the file's size */
	uint64_t data_size;	     /* as the header says */
	/* the input window over the data section: in[0] is the byte at in_off */
	uint8_t *in;
	size_t in_len, in_pos, in_cap;
	uint64_t in_off;
	/* what next() hands out, from out_pos; records waiting for a time */
	struct pd_buf out, deferred;
	size_t out_pos;
	bool timed;	  /* a timed record was seen: deferred records are out */
	uint64_t last_ns; /* time of the last timed record, for untimed ones after it */
	struct pd_attr attrs[PD_MAX_ATTRS];
	unsigned nattrs;
	struct wc_map64 ids;  /* sample id -> attr index */
	int id_words_sample;  /* u64s before ID in a sample; -1: IDENTIFIER first */
	int id_words_trailer; /* u64s from ID to the end of a sample_id_all trailer */
	struct wc_stack_table *stacks, *payloads;
	uint64_t *words; /* scratch for a payload's dedup key */
	size_t words_cap;
	/* what was met and not used */
	uint64_t skipped[PD_REC_TYPES], skipped_other, unknown_ids, bad_samples, other_samples;
	uint64_t untimed;
	bool have_tracing_data, have_event_desc;
	/* COMPRESSED records: one zstd stream across them; bytes decompressed not yet used
	 * (a record may straddle two COMPRESSED records) */
	void *zstd; /* ZSTD_DStream */
	struct pd_buf dec;
	uint64_t decompressed; /* bytes, all COMPRESSED records together */
	/* --call-graph dwarf (source-perf-unwind.c): NULL when no attr has user stacks */
	struct pd_unwind *uw;
	uint64_t unwind_unchecked, unwind_refused;  /* modules: no build-id recorded; another */
	uint64_t unwind_results[PD_UNWIND_RESULTS]; /* samples by enum wc_unwind_result */
};

/* Set the state and the error of @p once (the first failure is the one told); return 0. */
int pd_fail(struct pd *p, enum wc_reader_state state, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * pd_emit() - room for one wct record of @size bytes (rounded up to 8) at the end of @b,
 * zeroed, its header set.  Return: the record, or NULL (ENOMEM).
 */
void *pd_emit(struct pd_buf *b, size_t size, uint16_t type, uint16_t flags);

/*
 * pd_finalize() - the attrs and features are all known: check the attrs, queue HOST, CLOCK,
 * EVENT_ATTR and NOTE records.  Return: 0, or -1 with p's error set.
 */
int pd_finalize(struct pd *p);

/* pd_feature() - the feature section @bit (HEADER_*) of @len bytes at @d, file offset @off. */
int pd_feature(struct pd *p, int bit, const uint8_t *d, uint64_t len, uint64_t off);

/*
 * pd_header_attr() - a pipe-mode HEADER_ATTR record (@size bytes at @d, at @off): an attr of
 * its own size, then its ids.  Return: 0, -ENOMEM, or -1 with p's error set.
 */
int pd_header_attr(struct pd *p, const uint8_t *d, size_t size, uint64_t off);

/*
 * pd_window() - make @need bytes of the input available at p->in + p->in_pos, reading more
 * (read(2) for a stream).  Return: the bytes available, fewer than @need at the end of the
 * data or on an error (p's state then set).
 */
size_t pd_window(struct pd *p, size_t need);

/* pd_note() - a NOTE record key=value into @b.  Return: 0 or -ENOMEM. */
int pd_note(struct pd_buf *b, const char *key, const char *value);

/*
 * pd_tracing_data() - the TRACING_DATA feature (@len bytes at @d, from file offset @off):
 * a TP_FORMAT record for each event format into p->out, and each format's ID matched to the
 * tracepoint attrs still unnamed.  Return: 0, or -ENOMEM, or -EINVAL with p's error set.
 */
int pd_tracing_data(struct pd *p, const uint8_t *d, uint64_t len, uint64_t off);

/*
 * pd_records() - translate the next record(s) of the data section into p->out.
 * Return: 1 when it may be called again, 0 at the end of the data or on failure (p->state).
 */
int pd_records(struct pd *p);

/* pd_one_record() - translate one record into p->out.  Return: 0, or -ENOMEM. */
int pd_one_record(struct pd *p, const struct pd_rec *r);

/*
 * pd_compressed() - a COMPRESSED or COMPRESSED2 record: the records its piece of the zstd
 * stream completes (source-perf-zstd.c).  Return: 0, or -ENOMEM.
 */
int pd_compressed(struct pd *p, const struct pd_rec *r);

/* pd_zstd_free() - free the zstd stream and its buffer. */
void pd_zstd_free(struct pd *p);

/* pd_unwind_init() - the unwind state, without its unwinder yet.  Return: 0 or -ENOMEM. */
int pd_unwind_init(struct pd *p);

/* pd_unwind_start() - an attr has user stacks: the unwinder.  Return: 0 or -ENOMEM. */
int pd_unwind_start(struct pd *p);

/* pd_unwind_free() - free the unwind state; none is a no-op. */
void pd_unwind_free(struct pd *p);

/* pd_unwind_build_ids() - the BUILD_ID feature, @len bytes at @d: each file's build-id, the
 * one its local file must have to be unwound with.  Return: 0 or -ENOMEM. */
int pd_unwind_build_ids(struct pd *p, const uint8_t *d, uint64_t len);

/* pd_unwind_mmap() - an executable file mapping of @pid at @addr, file offset @pgoff, of
 * @path (NUL-terminated), its build-id (@build_id_len bytes, 0: none) at @time_ns.
 * Return: 0 or -ENOMEM. */
int pd_unwind_mmap(struct pd *p, uint32_t pid, uint64_t addr, uint64_t pgoff, const char *path,
		   const uint8_t *build_id, size_t build_id_len, uint64_t time_ns);

/* pd_unwind_fork() - process @pid forked from @ppid: it has its mappings.  Return: 0 or
 * -ENOMEM. */
int pd_unwind_fork(struct pd *p, uint32_t pid, uint32_t ppid);

/* pd_unwind_exec() - @pid exec'd at @time_ns: its mappings are gone. */
void pd_unwind_exec(struct pd *p, uint32_t pid, uint64_t time_ns);

/* pd_unwind_round() - a FINISHED_ROUND: sessions of changed mappings are closed. */
void pd_unwind_round(struct pd *p);

/*
 * pd_unwind_sample() - @s (of event @attr) with user registers and a stack copy: its
 * callchain (s->ips, s->nr) replaced by the kernel part and the unwound user frames, in a
 * buffer of p->uw valid until the next call.  Return: 0.
 */
int pd_unwind_sample(struct pd *p, const struct perf_event_attr *attr, struct pd_sample *s);

/* pd_set_symfs() - wc_source_ops.set_symfs: the files unwound with under @dir.  Return: 0 or
 * -ENOMEM. */
int pd_set_symfs(void *priv, const char *dir);

/* pd_rec_free() - free what pd_records() allocated. */
void pd_rec_free(struct pd *p);

/* Unaligned little reads of the host's byte order. */
static inline uint64_t pd_u64(const uint8_t *b)
{
	uint64_t v;

	__builtin_memcpy(&v, b, sizeof(v));
	return v;
}

static inline uint32_t pd_u32(const uint8_t *b)
{
	uint32_t v;

	__builtin_memcpy(&v, b, sizeof(v));
	return v;
}

#endif /* WC_ANALYZER_SOURCE_PERF_H */
