/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay.h - read a trace file through its source (source.h) and hand its events out in time
 * order.
 *
 * Records of the METADATA class (common/rectypes.c: HOST, CLOCK, EVENT_ATTR, TP_FORMAT,
 * KALLSYMS, NOTE, KSYM, IMAGE) are kept and offered through struct wc_replay_meta; STACK and
 * PAYLOAD records are kept by id for the whole replay.  QUEUED records (TRACEPOINT, SAMPLE,
 * COMM, FORK, EXIT, MMAP, LOST, THROTTLE, TP_INLINE, SWITCH_IN) are reordered by time
 * within rounds (reorder.h, as perf's ordered-events): ties in file order; an event older
 * than one already handed out is late, counted and dropped.
 */
#ifndef WC_ANALYZER_REPLAY_H
#define WC_ANALYZER_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/symbols/usyms.h"
#include "common/kallsyms.h"
#include "common/reader.h"
#include "common/wct.h"

#define WC_REPLAY_MAX_EVENTS 64 /* event ids the replay keeps attrs of: 0..63 */

struct wc_replay_event {
	bool present;
	uint32_t kind;	      /* enum wc_event_kind */
	char name[64];	      /* "sched:sched_switch", "cpu-clock" */
	uint32_t attr_type;   /* perf_event_attr.type */
	uint64_t attr_config; /* perf_event_attr.config */
	bool freq;	      /* sampling by frequency */
	uint64_t sample_period_or_freq;
	uint64_t sample_type; /* perf_event_attr.sample_type: PERF_SAMPLE_CALLCHAIN, ... */
};

struct wc_replay_note {
	const char *key, *value;
};

/*
 * An IMAGE record's object: its name ("[vdso]") and bytes, copied.  Kept until the replay is
 * freed, even when a later IMAGE of the same name replaces it, so a pointer to it stays valid.
 */
struct wc_replay_image {
	char *name;
	uint8_t *data;
	size_t len; /* bytes */
	struct wc_replay_image *older;
};

/* What the file says about the recording; filled as the metadata records are read. */
struct wc_replay_meta {
	char sysname[65], nodename[65], release[65], version[129], machine[65], recorder[65];
	uint32_t ncpus_online, ncpus_configured, page_size;
	bool have_host, have_clock;
	int32_t clockid;		/* -1: perf's clock */
	uint64_t clock_ns, realtime_ns; /* one simultaneous reading of both */
	struct wc_replay_event events[WC_REPLAY_MAX_EVENTS];
	char *kallsyms;	     /* the snapshot's text, NUL-terminated, or NULL (no record) */
	size_t kallsyms_len; /* bytes, NUL excluded */
	bool kallsyms_restricted;
	bool kallsyms_referenced;  /* the text is empty: the functions are the KSYM records' */
	struct wc_kallsyms *ksyms; /* the KSYM records read so far; never NULL */
	struct wc_usyms *usyms;	   /* the USYM records read so far; never NULL */
	struct wc_replay_tp_format {
		char *system, *text;
	} * formats;
	size_t nformats;
	struct wc_replay_note *notes;
	size_t nnotes;
	struct wc_replay_image *images; /* newest first; see wc_replay_image() */
};

/* Counts of what the replay saw, and how the file ended. */
struct wc_replay_stats {
	uint64_t records[WC_REC_TYPE_COUNT]; /* by type */
	uint64_t late;			     /* events older than one already handed out: dropped */
	uint64_t bad_refs;  /* events naming a stack or payload id never defined, or the
			     * payload of another event */
	uint64_t bad_ksyms; /* KSYM records overlapping an earlier one: dropped */
	/* bad USYM records are counted by wc_usyms_bad() */
	uint64_t lost_records, lost_samples; /* sums of LOST records */
	uint64_t first_ns, last_ns;	     /* times of the first and last event handed out */
	uint64_t end_ns;		     /* the trailer's end time, 0 without a trailer */
	uint32_t trailer_flags;
	enum wc_reader_state state;
	uint64_t error_offset; /* where the cut or the damage is, bytes */
	uint64_t file_size;    /* bytes */
};

/*
 * The consumer: begin() once, after the metadata that precedes the first event (and before
 * it); event() for each QUEUED record (common/rectypes.c) in time order, borrowed for the
 * call.  A non-zero return (-errno or a WC_E* code) stops the replay and is returned by
 * wc_replay_run().
 */
struct wc_replay_ops {
	int (*begin)(void *ctx, const struct wc_replay_meta *meta);
	/* optional: at each ROUND, the compressed bytes read so far of the file's @total */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	int (*event)(void *ctx, const struct wc_rec_header *rec);
};

struct wc_replay;

/**
 * wc_replay_open() - open a trace file for replay
 * @path: the file
 *
 * Return: the replay, or NULL with errno set (that of open(2), or ENOMEM).
 */
struct wc_replay *wc_replay_open(const char *path);

/*
 * The default of wc_replay_set_max_memory(): far above what real traces take (a 60 s
 * system-wide trace of 19 M events replays in 22 MB), far below what a 24 GiB host has.
 */
#define WC_REPLAY_DEFAULT_MAX_MEMORY (2ull << 30)

/**
 * wc_replay_set_max_memory() - stop the replay when this process' resident set passes
 * @bytes (0: no limit; WC_REPLAY_DEFAULT_MAX_MEMORY until set)
 *
 * The resident set (/proc/self/statm) is read after each MiB of records, so it counts what
 * the consumer keeps too; wc_replay_run() then returns -WC_ECORRUPT, and wc_replay_error()
 * names the limit and the byte of the file reached.
 */
void wc_replay_set_max_memory(struct wc_replay *r, uint64_t bytes);

/**
 * wc_replay_run() - read the whole file, calling @ops in time order
 *
 * A truncated or damaged file is not an error here: everything before the cut is handed
 * out, and wc_replay_stats() says how the file ended.
 * Return: 0, -ENOMEM, -WC_ECORRUPT (a record refused, or over the memory limit: see
 * wc_replay_error()), or the first non-zero return of a callback.
 */
int wc_replay_run(struct wc_replay *r, const struct wc_replay_ops *ops, void *ctx);

/**
 * wc_replay_stack() - a callchain by id, as recorded: leaf first, with perf's context
 * markers (PERF_CONTEXT_KERNEL, PERF_CONTEXT_USER) in place
 * @nr: set to the number of ips
 * Return: the ips, owned by the replay, or NULL for an unknown id or WC_STACK_NONE.
 */
const uint64_t *wc_replay_stack(const struct wc_replay *r, uint32_t id, uint32_t *nr);

/** wc_replay_stack_ids() - Return: one past the highest stack id read so far */
uint32_t wc_replay_stack_ids(const struct wc_replay *r);

/**
 * wc_replay_payload() - a tracepoint payload by id
 * @size: set to its size in bytes
 * Return: the bytes, owned by the replay, or NULL for an unknown id.
 */
const void *wc_replay_payload(const struct wc_replay *r, uint32_t id, uint16_t *size);

/* wc_replay_payload_count() - one more than the highest payload id seen so far. */
uint32_t wc_replay_payload_count(const struct wc_replay *r);

/* wc_replay_meta() - the metadata read so far, owned by the replay. */
const struct wc_replay_meta *wc_replay_meta(const struct wc_replay *r);

/* wc_replay_stats() - counts so far, and after wc_replay_run() how the file ended. */
const struct wc_replay_stats *wc_replay_stats(const struct wc_replay *r);

/*
 * wc_replay_error() - one line on why the file ended early, or on the record the replay
 * refused when wc_replay_run() returned -WC_ECORRUPT ("" when neither).
 */
const char *wc_replay_error(const struct wc_replay *r);

/**
 * wc_replay_wall_ns() - @time_ns of the trace's clock as ns of CLOCK_REALTIME, by the CLOCK
 * record's simultaneous reading of both (man wcrec-trace.5)
 * Return: true with *@wall_ns set, or false without a CLOCK record or when the record's
 * values put it outside 0..2^64-1 ns (a crafted file).
 */
bool wc_replay_wall_ns(const struct wc_replay_meta *m, uint64_t time_ns, uint64_t *wall_ns);

/**
 * wc_replay_image() - the object of the latest IMAGE record named @name ("[vdso]")
 * Return: the image, owned by the replay, valid until wc_replay_free(); or NULL.
 */
const struct wc_replay_image *wc_replay_image(const struct wc_replay_meta *m, const char *name);

/* wc_replay_note() - the value of the first NOTE with @key, or NULL. */
const char *wc_replay_note(const struct wc_replay *r, const char *key);

/* wc_replay_set_symfs() - before the replay: the source's wc_source_set_symfs(). */
int wc_replay_set_symfs(struct wc_replay *r, const char *dir);

void wc_replay_free(struct wc_replay *r);

#endif /* WC_ANALYZER_REPLAY_H */
