/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wct.h - the wcrec trace file format (".wct"), as it lies on disk.
 *
 * The byte-by-byte description, with the versioning rule, is man/wcrec-trace.5; this header
 * and that page must agree.  In short:
 *
 *   file    := wc_file_header (64 bytes, uncompressed)  zstd-frame*
 *   frame   := one zstd frame with content checksum, holding whole records only
 *   record  := wc_rec_header (8 bytes)  body,  size a multiple of 8, at most WC_REC_MAX_BYTES
 *
 * All fields are little-endian and naturally aligned; there are no bitfields.  Within event
 * records the fields that change from one event to the next sit together, which is what
 * lets zstd keep a realistic trace under 8 bytes per event (tests/bench-format).  Records are
 * 8-byte aligned inside a frame's decompressed content.  A record whose header has
 * WC_REC_F_TIME set carries a u64 time right after the header; on disk it is the difference
 * (modulo 2^64) from the previous such record of the same frame (from 0 for the first), and
 * wc_reader hands it out as an absolute time in ns on the recording clock.
 *
 * Readers skip record types they do not know, by size: a newer writer may add types and
 * append fields at the end of existing records (readers use only the prefix they know).
 */
#ifndef WC_WCT_H
#define WC_WCT_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#define WC_FILE_MAGIC	      "WCTRACE\0"
#define WC_FILE_MAGIC_LEN     8
#define WC_FILE_ENDIAN_MARK   0x01020304u /* reads as 0x04030201 on a byte-swapped file */
#define WC_FILE_VERSION_MAJOR 1		  /* a reader refuses a file with another major version */
#define WC_FILE_VERSION_MINOR                                                                      \
	12 /* additions a reader of the same major may ignore                                      \
	    * (1.1: TP_INLINE records, the RUNTIME event kind;                                     \
	    * 1.2: KSYM records, WC_KALLSYMS_REFERENCED;                                           \
	    * 1.3: the state of a COMM from /proc, EXITs of the snapshot's                         \
	    * threads gone before the events were enabled;                                         \
	    * 1.4: the parent pid of a COMM from /proc;                                            \
	    * 1.5: SWITCH_IN records;                                                              \
	    * 1.6: WC_CONTEXT_TRUNCATED in callchains;                                             \
	    * 1.7: IMAGE records, the WC_CONTEXT_UNWIND_FAILED marker;                             \
	    * 1.8: USYM records;                                                                   \
	    * 1.9: USYM records of inlined calls;                                                  \
	    * 1.10: packed USYM records;                                                           \
	    * 1.11: per-task recordings (the NOTE "events"), their SWITCH_IN records;              \
	    * 1.12: CARRIED records) */

/* Largest record, and largest decompressed frame content, a reader accepts (bytes). */
#define WC_REC_MAX_BYTES   (256u << 20)
#define WC_FRAME_MAX_BYTES (WC_REC_MAX_BYTES + (4u << 20))

/* Uncompressed file header, 64 bytes, at offset 0. */
struct wc_file_header {
	char magic[WC_FILE_MAGIC_LEN]; /* "WCTRACE\0" */
	uint32_t endian;	       /* WC_FILE_ENDIAN_MARK */
	uint16_t version_major;
	uint16_t version_minor;
	uint32_t header_size;	    /* 64; frames start at this offset */
	uint32_t reserved0;	    /* 0 */
	uint64_t features_compat;   /* bits a reader may ignore (none defined in 1.0) */
	uint64_t features_incompat; /* bits a reader must understand or refuse the file */
	uint64_t reserved[3];	    /* 0 */
};
static_assert(sizeof(struct wc_file_header) == 64, "file header is 64 bytes");

/* Each type's name, least size and class (timed, queued, metadata): common/rectypes.c. */
enum wc_rec_type {
	WC_REC_HOST = 1,	/* struct wc_rec_host */
	WC_REC_CLOCK = 2,	/* struct wc_rec_clock */
	WC_REC_EVENT_ATTR = 3,	/* struct wc_rec_event_attr */
	WC_REC_TP_FORMAT = 4,	/* struct wc_rec_tp_format */
	WC_REC_KALLSYMS = 5,	/* struct wc_rec_kallsyms */
	WC_REC_COMM = 6,	/* struct wc_rec_comm */
	WC_REC_FORK = 7,	/* struct wc_rec_task */
	WC_REC_EXIT = 8,	/* struct wc_rec_task */
	WC_REC_MMAP = 9,	/* struct wc_rec_mmap */
	WC_REC_STACK = 10,	/* struct wc_rec_stack */
	WC_REC_TRACEPOINT = 11, /* struct wc_rec_tracepoint */
	WC_REC_SAMPLE = 12,	/* struct wc_rec_sample */
	WC_REC_LOST = 13,	/* struct wc_rec_lost */
	WC_REC_ROUND = 14,	/* struct wc_rec_header only */
	WC_REC_THROTTLE = 15,	/* struct wc_rec_throttle */
	WC_REC_TRAILER = 16,	/* struct wc_rec_trailer; last record of a cleanly closed file */
	WC_REC_NOTE = 17,	/* struct wc_rec_note: a key and a text value */
	WC_REC_PAYLOAD = 18,	/* struct wc_rec_payload */
	WC_REC_TP_INLINE = 19,	/* struct wc_rec_tp_inline (since 1.1) */
	WC_REC_KSYM = 20,	/* struct wc_rec_ksym (since 1.2) */
	WC_REC_SWITCH_IN = 21,	/* struct wc_rec_switch_in (since 1.5) */
	WC_REC_IMAGE = 22,	/* struct wc_rec_image (since 1.7) */
	WC_REC_USYM = 23,	/* struct wc_rec_usym (since 1.8) */
	WC_REC_CARRIED = 24,	/* struct wc_rec_carried (since 1.12) */
	WC_REC_TYPE_COUNT	/* one past the highest type this version knows */
};

/* wc_rec_header.flags */
#define WC_REC_F_TIME 0x0001u /* a u64 time (delta-encoded on disk) follows the header */

struct wc_rec_header {
	uint32_t size;	/* bytes, header included; a multiple of 8, >= 8 */
	uint16_t type;	/* enum wc_rec_type */
	uint16_t flags; /* WC_REC_F_* */
};
static_assert(sizeof(struct wc_rec_header) == 8, "record header is 8 bytes");

/* Round up to the 8-byte record alignment. */
#define WC_ALIGN8(n) (((n) + 7u) & ~(uint32_t)7u)

/*
 * HOST: the machine that recorded.  strings holds six NUL-terminated strings, in order:
 * sysname, nodename, release, version, machine (as uname(2)), and the recorder's version.
 */
struct wc_rec_host {
	struct wc_rec_header h;
	uint32_t ncpus_online;	   /* sysconf(_SC_NPROCESSORS_ONLN) */
	uint32_t ncpus_configured; /* sysconf(_SC_NPROCESSORS_CONF); cpu numbers are below it */
	uint32_t page_size;	   /* bytes */
	uint32_t strings_len;	   /* bytes of strings[], NULs included */
	char strings[];
};
static_assert(sizeof(struct wc_rec_host) == 24, "host record");

/*
 * CLOCK: the clock every time in the file is on, and one simultaneous reading of it and of
 * CLOCK_REALTIME, so that times can be shown as wall-clock dates.
 */
struct wc_rec_clock {
	struct wc_rec_header h;
	int32_t clockid;      /* perf_event_attr.clockid used, or -1 for perf's default clock */
	uint32_t flags;	      /* reserved, 0 */
	uint64_t clock_ns;    /* a reading of that clock, ns */
	uint64_t realtime_ns; /* CLOCK_REALTIME at the same moment, ns since the epoch */
};
static_assert(sizeof(struct wc_rec_clock) == 32, "clock record");

/* EVENT_ATTR kinds: what the analyzer should make of an event */
enum wc_event_kind {
	WC_EVENT_OTHER = 0,
	WC_EVENT_SAMPLE = 1,	   /* CPU samples (cycles, cpu-clock, task-clock) */
	WC_EVENT_SWITCH = 2,	   /* sched:sched_switch */
	WC_EVENT_WAKEUP = 3,	   /* sched:sched_wakeup */
	WC_EVENT_WAKING = 4,	   /* sched:sched_waking */
	WC_EVENT_WAKEUP_NEW = 5,   /* sched:sched_wakeup_new */
	WC_EVENT_MIGRATE = 6,	   /* sched:sched_migrate_task */
	WC_EVENT_RUNTIME = 7,	   /* sched:sched_stat_runtime, in TP_INLINE records (since 1.1) */
	WC_EVENT_STAT_SLEEP = 8,   /* sched:sched_stat_sleep, TP_INLINE; wcrec writes none: a
				    * perf.data source's (the sched_stat recipe of perf inject -s) */
	WC_EVENT_STAT_BLOCKED = 9, /* sched:sched_stat_blocked, as above */
	WC_EVENT_STAT_IOWAIT = 10, /* sched:sched_stat_iowait, as above */
};

/*
 * EVENT_ATTR: one perf event the recorder opened.  Events refer to it by event_id.
 * Followed by attr_size bytes of the struct perf_event_attr passed to perf_event_open(2),
 * then the event's name ("sched:sched_switch", "cpu-clock"), NUL-terminated, then padding.
 */
struct wc_rec_event_attr {
	struct wc_rec_header h;
	uint32_t event_id;  /* small integer, unique in the file */
	uint32_t kind;	    /* enum wc_event_kind */
	uint32_t attr_size; /* bytes of perf_event_attr that follow */
	uint32_t name_len;  /* bytes of the name, NUL included */
	uint8_t data[];
};
static_assert(sizeof(struct wc_rec_event_attr) == 24, "event attr record");

/*
 * TP_FORMAT: a tracepoint's format file from tracefs (events/SYSTEM/NAME/format), as text.
 * data holds the system name NUL-terminated, then the format text NUL-terminated.
 */
struct wc_rec_tp_format {
	struct wc_rec_header h;
	uint32_t system_len; /* bytes, NUL included */
	uint32_t text_len;   /* bytes, NUL included */
	char data[];
};
static_assert(sizeof(struct wc_rec_tp_format) == 16, "tp format record");

#define WC_KALLSYMS_RESTRICTED 0x1u /* addresses were hidden (kptr_restrict): all zero */
#define WC_KALLSYMS_REFERENCED                                                                     \
	0x2u /* since 1.2: the text is empty; the kernel functions the                             \
	      * callchains refer to follow in KSYM records */

/*
 * KALLSYMS: /proc/kallsyms as read at the start of the recording, NUL-terminated text; or,
 * with WC_KALLSYMS_REFERENCED, an empty text: the snapshot was read, and what the file keeps of
 * it are the KSYM records.
 */
struct wc_rec_kallsyms {
	struct wc_rec_header h;
	uint32_t flags;	   /* WC_KALLSYMS_* */
	uint32_t text_len; /* bytes, NUL included */
	char text[];
};
static_assert(sizeof(struct wc_rec_kallsyms) == 16, "kallsyms record");

/*
 * KSYM (since 1.2): one kernel function of the recorder's kallsyms snapshot, [start, end),
 * that an address of a callchain is in.  Written once per function, before the first STACK
 * record that holds an address in it, so that any readable prefix of the file names every
 * kernel frame it holds.  The end is the snapshot's (the next symbol, as perf sets it), so a
 * reader needs nothing else to look addresses up.  strings: the name, then the module ("" for
 * the kernel image), each NUL-terminated.
 */
struct wc_rec_ksym {
	struct wc_rec_header h;
	uint64_t start;
	uint64_t end;	      /* first address past the function; above start */
	uint32_t strings_len; /* bytes, both NULs included */
	uint32_t reserved;    /* 0 */
	char strings[];
};
static_assert(sizeof(struct wc_rec_ksym) == 32, "ksym record");

#define WC_TASK_SYNTH 0x1u /* read from /proc at the start, not seen happening */
#define WC_COMM_EXEC  0x2u /* the comm changed because of an exec (PERF_RECORD_MISC_COMM_EXEC) */

/* COMM: a thread's name (comm) from then on.  Flags WC_TASK_SYNTH, WC_COMM_EXEC. */
struct wc_rec_comm {
	struct wc_rec_header h; /* flags include WC_REC_F_TIME */
	uint64_t time_ns;
	uint32_t pid;
	uint32_t tid;
	uint32_t flags;
	char state; /* with WC_TASK_SYNTH: the state letter of /proc/PID/task/TID/stat then
		     * (R, S, D, I, T, ...), 0 unknown (since 1.3) */
	uint8_t reserved[3];
	char comm[16]; /* NUL-terminated unless 16 characters long, as TASK_COMM_LEN */
};
static_assert(sizeof(struct wc_rec_comm) == 48, "comm record");

/*
 * A COMM from /proc (WC_TASK_SYNTH) since 1.4: the fields appended to a COMM record, which
 * is then 56 bytes long.  A reader takes ppid only from a COMM of that size or more.
 */
struct wc_rec_comm_proc {
	struct wc_rec_comm c;
	uint32_t ppid;	   /* the process's parent (/proc/PID/task/TID/stat's fourth field),
			    * read with c.state: meaningless when c.state is 0 (unknown); 0 is
			    * a real parent (init's, kthreadd's) */
	uint32_t reserved; /* 0 */
};
static_assert(sizeof(struct wc_rec_comm_proc) == 56, "comm record from /proc");

/* FORK and EXIT, as PERF_RECORD_FORK / PERF_RECORD_EXIT. */
struct wc_rec_task {
	struct wc_rec_header h; /* flags include WC_REC_F_TIME */
	uint64_t time_ns;
	uint32_t pid, ppid;
	uint32_t tid, ptid;
};
static_assert(sizeof(struct wc_rec_task) == 32, "task record");

#define WC_BUILD_ID_MAX 20 /* bytes: SHA-1, the longest build-id perf handles */

/*
 * MMAP: an executable (or any, with WC_TASK_SYNTH from /proc/PID/maps) mapping of a
 * process, as PERF_RECORD_MMAP2, with the file's build-id when it is known.  filename
 * fills the rest of the record, NUL-terminated, padded with NULs.
 */
struct wc_rec_mmap {
	struct wc_rec_header h; /* flags include WC_REC_F_TIME */
	uint64_t time_ns;
	uint32_t pid;
	uint32_t tid;
	uint64_t addr;	/* start address */
	uint64_t len;	/* bytes */
	uint64_t pgoff; /* file offset of addr, bytes */
	uint64_t ino;
	uint64_t ino_generation;
	uint32_t maj, min;
	uint32_t prot;	       /* PROT_* */
	uint32_t flags;	       /* MAP_* as in MMAP2 */
	uint32_t task_flags;   /* WC_TASK_SYNTH */
	uint8_t build_id_size; /* 0 when unknown */
	uint8_t reserved[3];
	uint8_t build_id[WC_BUILD_ID_MAX + 4]; /* first build_id_size bytes used */
	char filename[];
};
static_assert(sizeof(struct wc_rec_mmap) == 112, "mmap record");

/*
 * STACK: a callchain, stored once and referred to by id.  ips are as perf gives them,
 * leaf first, with its context markers (PERF_CONTEXT_KERNEL, PERF_CONTEXT_USER, ...) in
 * place.  Ids are dense, start at 1 and are never reused in a file; 0 means "no callchain".
 * The same callchain may appear under several ids (see wc_stack_table).
 */
struct wc_rec_stack {
	struct wc_rec_header h;
	uint32_t id;
	uint32_t nr; /* number of ips */
	uint64_t ips[];
};
static_assert(sizeof(struct wc_rec_stack) == 16, "stack record");

#define WC_STACK_NONE 0u

/*
 * A marker (in the range of perf's PERF_CONTEXT_* markers, none of which it is) that ends a
 * user part unwound by CFI until the copy of the user stack ran out, with no frame in common
 * with the kernel's frame-pointer walk: the callers above it are unknown (recorder/unwind.h).
 * Readers show it as a "[truncated]" frame.  Since format 1.6.
 */
#define WC_CONTEXT_TRUNCATED ((uint64_t)-3000)

/*
 * A marker, as WC_CONTEXT_TRUNCATED, that ends a user part the recorder could not unwind to its
 * outermost frame for another reason than the size of the copy: a frame without CFI (JIT code,
 * a file that could not be opened or had changed since it was mapped), registers of another
 * ABI, a process not unwound (outside a targeted recording's processes) or a stack skipped
 * while the drain was behind (recorder/unwind.h).  Readers show it as an "[unwind failed]"
 * frame.  Since format 1.7.
 */
#define WC_CONTEXT_UNWIND_FAILED ((uint64_t)-3001)

/* Is @ip one of the markers above, which end a user part as its outermost frame? */
#define WC_CONTEXT_IS_END(ip) ((ip) == WC_CONTEXT_TRUNCATED || (ip) == WC_CONTEXT_UNWIND_FAILED)

/*
 * TRACEPOINT: one tracepoint event (PERF_SAMPLE_RAW).  Its raw payload, as the kernel wrote
 * it (common fields first, decoded with the TP_FORMAT of the event's tracepoint), is stored
 * once per distinct content in a PAYLOAD record that comes before, and referred to by id.
 */
struct wc_rec_tracepoint {
	struct wc_rec_header h; /* flags include WC_REC_F_TIME */
	uint64_t time_ns;
	uint32_t payload_id; /* PAYLOAD record; WC_PAYLOAD_NONE for an empty payload */
	uint32_t stack_id;   /* WC_STACK_NONE without callchain */
	uint32_t tid;	     /* thread in whose context the event fired */
	uint32_t pid;	     /* its process (tgid) */
	uint32_t cpu;
	uint16_t event_id; /* EVENT_ATTR it came from */
	uint16_t reserved;
};
static_assert(sizeof(struct wc_rec_tracepoint) == 40, "tracepoint record");

/*
 * PAYLOAD: a tracepoint payload, stored once and referred to by id, as STACK is for
 * callchains: ids dense from 1, never reused, the same content possibly under several ids.
 * data holds size bytes, 8-byte aligned, then padding.
 */
struct wc_rec_payload {
	struct wc_rec_header h;
	uint32_t id;
	uint16_t event_id; /* EVENT_ATTR of the events that carry it */
	uint16_t size;	   /* bytes of data */
	uint8_t data[];
};
static_assert(sizeof(struct wc_rec_payload) == 16, "payload record");

#define WC_PAYLOAD_NONE 0u

/*
 * TP_INLINE (since 1.1): one tracepoint event whose raw payload follows inline, for events
 * whose payloads rarely repeat (sched_stat_runtime: its runtime field differs every time), so
 * that a PAYLOAD record each would cost more than it saves.  No callchain.  data holds size
 * bytes, decoded with the TP_FORMAT of the event's tracepoint, then padding.
 */
struct wc_rec_tp_inline {
	struct wc_rec_header h; /* flags include WC_REC_F_TIME */
	uint64_t time_ns;
	uint32_t tid; /* thread in whose context the event fired */
	uint32_t pid; /* its process (tgid) */
	uint32_t cpu;
	uint16_t event_id; /* EVENT_ATTR it came from */
	uint16_t size;	   /* bytes of data */
	uint8_t data[];
};
static_assert(sizeof(struct wc_rec_tp_inline) == 32, "inline tracepoint record");

#define WC_TP_INLINE_MAX_BYTES 256u /* a writer cuts longer inline payloads to this */

/* SAMPLE: one CPU sample. */
struct wc_rec_sample {
	struct wc_rec_header h; /* flags include WC_REC_F_TIME */
	uint64_t time_ns;
	uint32_t stack_id;
	uint32_t tid;
	uint32_t pid;
	uint32_t cpu;
	uint64_t period; /* event count since the previous sample: ns for cpu-clock/task-clock */
	uint16_t event_id;
	uint16_t reserved[3];
};
static_assert(sizeof(struct wc_rec_sample) == 48, "sample record");

/*
 * SWITCH_IN (since 1.5): a switch-in the sched_switch events did not show, taken from the
 * kernel's context-switch record (PERF_RECORD_SWITCH_CPU_WIDE, switch-in side, Linux 4.3+),
 * which the kernel writes in the context of the task switched in, after the switch.  Written
 * only when no sched_switch into that task came before it on its CPU (the kernel dropped the
 * event in the context of the task switched out: on some kernels, everything that fires while
 * a CPU's idle task runs).  Its time is a microsecond or two after the switch itself
 * (finish_task_switch() in kernel/sched/core.c, against the tracepoint in __schedule()):
 * delay_ns says how much.  In a per-task recording (NOTE "events" "per-task: ...", since
 * 1.11) from PERF_RECORD_SWITCH: one for every switch-in of a target thread, the sched_switch
 * into it kept or not; a reader then takes the switch-ins from these records alone, the
 * sched_switch events telling only the switch-outs (their next task is outside the
 * recording when it is not the target's).
 */
struct wc_rec_switch_in {
	struct wc_rec_header h; /* flags include WC_REC_F_TIME */
	uint64_t time_ns;
	uint32_t tid; /* the task switched in */
	uint32_t pid; /* its process (tgid) */
	uint32_t cpu;
	uint32_t prev_tid; /* the task switched out (0: the idle task; 0xfffffffe: not told, in a
			    * per-task recording, since 1.11) */
	uint32_t prev_pid; /* its process (the same) */
	uint32_t delay_ns; /* how long after the switch the record was written, as the recorder
			    * estimated it: the median, over the switches of the recording so far
			    * that a sched_switch showed, of the time from their switch-out record
			    * to their switch-in record (of those from the idle task where there
			    * are enough of them); a reader takes time_ns - delay_ns as the
			    * switch-in.  In a per-task recording (1.11) every switch-in of a
			    * target thread has one: after a sched_switch into it, the exact
			    * time since that sched_switch; else that median */
};
static_assert(sizeof(struct wc_rec_switch_in) == 40, "switch-in record");

/*
 * IMAGE (since 1.7): the bytes of a mapped object that has no file, by the name its mappings
 * carry in MMAP records: "[vdso]", the recorder's own vdso (at getauxval(AT_SYSINFO_EHDR), as
 * long as its line of /proc/self/maps), which every 64-bit process of the same kernel maps, as
 * perf copies its own (tools/perf/util/vdso.c).  data holds the name, NUL-terminated, then
 * image_len bytes, then padding.  A later IMAGE of the same name replaces an earlier one.
 */
struct wc_rec_image {
	struct wc_rec_header h;
	uint32_t name_len;  /* bytes, NUL included */
	uint32_t image_len; /* bytes */
	uint8_t data[];
};
static_assert(sizeof(struct wc_rec_image) == 16, "image record");

/* Where the recorder read a file's functions from (wc_rec_usym.source). */
enum wc_usym_source {
	WC_USYM_NONE = 0,     /* nothing usable: the record only says so (start == end == 0) */
	WC_USYM_SYMTAB = 1,   /* the mapped file's .symtab */
	WC_USYM_DYNSYM = 2,   /* the mapped file's .dynsym only (a stripped file) */
	WC_USYM_DEBUG = 3,    /* a separate debug file (.gnu_debuglink, /usr/lib/debug/.build-id) */
	WC_USYM_MISMATCH = 4, /* the file at the path is not the recorded build: none read */
};

/*
 * USYM (since 1.8): one user-space function of a mapped file that a callchain refers to, the
 * user twin of KSYM, so that a trace names its user frames without the recording host's files.
 * [start, end) are file offsets (as a frame's ip - mapping start + mapping pgoff) of the
 * function's first byte and one past its last; name is the name the recorder's symbolizer
 * gives (demangled, as analyzer/symbols/elfsym.h), NUL-terminated, padded.  Written (by a 1.8
 * or 1.9 recorder; a 1.10 one writes packed records, below) once per function and build-id,
 * at the end of the recording and at each flush boundary, before the frame that holds the
 * first events of it is complete.  A record with start == end == 0 and
 * an empty name says only where the file's symbols came from (source), once per build-id;
 * every record of a build-id carries the same source.
 * Since 1.9, a record of depth d > 0 is an inlined call instead (a DW_TAG_inlined_subroutine of
 * the file's DWARF): [start, end) is the piece of its code that holds an address a callchain
 * refers to (the byte before it: a return address's call), name the inlined function's; depth
 * 1 is a call inlined into the function, d + 1 one inlined into a call of depth d.  Records of
 * one build-id and depth do not overlap; depth is at most WC_USYM_MAX_DEPTH.  They are written
 * at the end of the file only (recorder/usym.h: reading DWARF at a flush stalls the drain).
 */
struct wc_rec_usym {
	struct wc_rec_header h;
	uint64_t start;	       /* file offset, bytes */
	uint64_t end;	       /* file offset past the function; above start (or both 0) */
	uint8_t build_id_size; /* 1..WC_BUILD_ID_MAX */
	uint8_t source;	       /* enum wc_usym_source */
	uint16_t depth;	       /* 0: a function; d > 0: an inlined call (since 1.9; 0 before) */
	uint32_t name_len;     /* bytes, NUL included */
	uint8_t build_id[WC_BUILD_ID_MAX + 4];
	char name[];
};
static_assert(sizeof(struct wc_rec_usym) == 56, "usym record");
#define WC_USYM_MAX_DEPTH 16 /* levels of inlining a reader keeps */

/*
 * USYM, packed (since 1.10; flags include WC_USYM_F_PACKED): the functions and inlined calls
 * of many USYM records in one, as a 1.10 recorder writes them (one record per pass over the
 * ring buffers that named new ones, and one of inlined calls at the end of the file).
 * data[] holds `groups` groups, groups_len bytes, then the names.  A group is one build-id,
 * source and depth, with the ranges of that depth, as plain records of them would say:
 *   uleb file, [u8 build_id_size (1..WC_BUILD_ID_MAX), build_id, u8 source,]
 *   u8 depth (0..16), uleb n (0: the build-id's source alone),
 *   n x { uleb start_delta, uleb size (> 0) }
 * file is k << 1 | def: the build-id's number k (0, 1, 2 ... in the order the file's packed
 * records first give them; below WC_USYM_REFS_MAX), with def 1 where k first appears, the
 * build-id and its source then following (def 0: k's, as given before); where a range is [start,
 * start + size), start = the previous range's start in the group (0 for the first) + start_delta: a
 * group's ranges come by start.  uleb: LEB128, unsigned, at most 10 bytes.  The names, `count`
 * NUL-terminated strings (one per range, in the order of the groups and their ranges; names_len
 * bytes), follow the groups: as they are when names_zlen is 0, else as one zstd frame of names_zlen
 * bytes, with its checksum, compressed with as prefix (a raw-content dictionary,
 * ZSTD_CCtx_refPrefix) the last WC_USYM_PREFIX_MAX bytes (or all, when fewer) of the names of the
 * file's earlier packed records, decompressed, end to end: a name is cheap when an earlier one is
 * like it (C++ names across frames).  reserved0 is where a plain record has build_id_size: 0, so
 * that a reader before 1.10 counts the record as bad and skips it; a packed record has at least the
 * size of a plain one (56 bytes), zeros after its data.
 */
#define WC_USYM_F_PACKED   0x0100u     /* wc_rec_header.flags of a packed USYM record */
#define WC_USYM_PREFIX_MAX (64u << 10) /* bytes of earlier names a names frame refers to */
#define WC_USYM_NAMES_MAX  (16u << 20) /* names_len a reader accepts, bytes */
#define WC_USYM_NAME_MAX   4096u       /* bytes of a name, NUL included: a reader skips longer */
#define WC_USYM_REFS_MAX   (1u << 20)  /* build-id numbers a reader accepts: below this */
struct wc_rec_usym_pack {
	struct wc_rec_header h; /* type WC_REC_USYM, flags include WC_USYM_F_PACKED */
	uint32_t count;		/* ranges, over all groups */
	uint32_t groups;	/* groups in data[] */
	uint32_t groups_len;	/* bytes of data[] the groups take */
	uint32_t names_len;	/* bytes of the names, decompressed, NULs included */
	uint32_t reserved0;	/* 0 */
	uint32_t names_zlen; /* bytes of the names' zstd frame; 0: the names follow as they are */
	uint8_t data[];
};
static_assert(sizeof(struct wc_rec_usym_pack) == 32, "packed usym record");
static_assert(offsetof(struct wc_rec_usym_pack, reserved0) ==
		      offsetof(struct wc_rec_usym, build_id_size),
	      "a packed record has build_id_size 0 for a reader before 1.10");

#define WC_IMAGE_MAX_BYTES (1u << 20) /* the recorder writes no larger image */

#define WC_LOST_RECORDS 0 /* PERF_RECORD_LOST: the ring buffer was full */
#define WC_LOST_SAMPLES 1 /* PERF_RECORD_LOST_SAMPLES */

/* LOST: events the kernel could not deliver on one CPU. */
struct wc_rec_lost {
	struct wc_rec_header h; /* flags include WC_REC_F_TIME */
	uint64_t time_ns;
	uint32_t cpu;
	uint32_t kind;	/* WC_LOST_* */
	uint64_t count; /* events lost */
};
static_assert(sizeof(struct wc_rec_lost) == 32, "lost record");

/* THROTTLE: the kernel throttled (throttled = 1) or unthrottled (0) an event on a CPU. */
struct wc_rec_throttle {
	struct wc_rec_header h; /* flags include WC_REC_F_TIME */
	uint64_t time_ns;
	uint32_t cpu;
	uint16_t event_id;
	uint16_t throttled;
};
static_assert(sizeof(struct wc_rec_throttle) == 24, "throttle record");

/*
 * CARRIED (since 1.12): the state of a thread when this file of a rotated recording (wcrec
 * --rotate) began, as the earlier files' events left it: off-CPU since its last switch-out,
 * or on a CPU since its last switch-in.  The file that held that switch ended with the
 * interval or the run under way; this record lets the file where it ends count it, whole, as
 * one uninterrupted recording would (at its end, as perf sched timehist and BCC's offcputime
 * count an interval).  Written after the metadata, before the file's events, at most one
 * state per thread, and one on-CPU per CPU.  time_ns is the file's start (the moment of the
 * rotation); since_ns and cpu are the switch's.  Off-CPU, payload_id (its sched_switch payload) and
 * stack_id are the switch-out's; on-CPU all three are 0.  It is not a switch: readers do not
 * count it as one, nor show it as a row.
 * With WC_CARRIED_WAKEUP, the record is the wakeup of a thread woken and not yet run when the
 * file began (its wait in the run queue under way): a copy of that wakeup event, since_ns its
 * time, tid, pid and cpu its context's (the waker's), event_id, payload_id (the woken task is
 * in it) and stack_id (the waker's callchain) its own.  It follows the woken thread's
 * off-CPU record, or stands alone for a sched_wakeup_new of a task that has not run yet.  It
 * is not a wakeup of this file: readers do not count it as one, nor show it as a row.
 */
#define WC_CARRIED_ON_CPU 0x1u /* on a CPU since since_ns; else off-CPU */
#define WC_CARRIED_WAKEUP 0x2u /* a wakeup of a thread not yet run (see above) */

struct wc_rec_carried {
	struct wc_rec_header h; /* flags include WC_REC_F_TIME */
	uint64_t time_ns;	/* the file's start, ns */
	uint64_t since_ns;	/* the switch-out (or switch-in), ns, at or before time_ns */
	uint32_t payload_id;	/* its sched_switch payload (PAYLOAD record); 0 on-CPU */
	uint32_t stack_id;	/* its callchain, WC_STACK_NONE without */
	uint32_t tid;		/* the thread (WC_CARRIED_WAKEUP: the waker) */
	uint32_t pid;		/* its process (tgid), 0 unknown */
	uint32_t cpu;		/* the CPU it left (or runs on; the wakeup's) */
	uint16_t event_id;	/* EVENT_ATTR of the switch-out's sched_switch (or the wakeup's); 0
				   on-CPU */
	uint16_t flags;		/* WC_CARRIED_* */
};
static_assert(sizeof(struct wc_rec_carried) == 48, "carried record");

/*
 * NOTE: a key=value fact about the recording ("wakeup_event"="sched_waking", a fallback
 * taken, the command line).  data holds the key then the value, each NUL-terminated.
 */
struct wc_rec_note {
	struct wc_rec_header h;
	uint32_t key_len;   /* bytes, NUL included */
	uint32_t value_len; /* bytes, NUL included */
	char data[];
};
static_assert(sizeof(struct wc_rec_note) == 16, "note record");

#define WC_TRAILER_INTERRUPTED 0x1u /* stopped by a signal */
#define WC_TRAILER_WRITE_ERROR 0x2u /* stopped because the output could not be written */

/*
 * TRAILER: written by wc_writer_close(), last in the file.  counts[t] is the number of
 * records of type t written before the trailer (counts[0] is 0), so a reader can check that
 * it saw them all.
 */
struct wc_rec_trailer {
	struct wc_rec_header h;	     /* flags include WC_REC_F_TIME */
	uint64_t time_ns;	     /* end of the recording */
	uint32_t flags;		     /* WC_TRAILER_* */
	uint32_t ncounts;	     /* entries of counts[] */
	uint64_t bytes_uncompressed; /* record bytes before the trailer */
	uint64_t counts[];
};
static_assert(sizeof(struct wc_rec_trailer) == 32, "trailer record");

#endif /* WC_WCT_H */
