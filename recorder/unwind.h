/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind.h - mend the user part of a frame-pointer callchain with the call frame information
 * (.eh_frame) of the frames at its top, while recording.
 *
 * The kernel walks a user stack by frame pointers (perf_callchain_user() in
 * arch/x86/events/core.c): the first entry is the user ip, each next one the return address
 * above the frame that %rbp points to.  A function that keeps no frame pointer (Debian's libc:
 * nanosleep, read, the futex wait under pthread_mutex_lock) leaves %rbp to its caller, so the
 * walk skips that caller, the one frame a user came to see; where it uses %rbp for data, every
 * entry after the first is garbage.  With the user registers and a copy of the top of the user
 * stack (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER), libdwfl unwinds those frames by their
 * CFI (dwfl_attach_state(), as perf's util/unwind-libdw.c and elfutils' eu-stack), and the
 * result is spliced onto the kernel's chain where the two meet.
 *
 * One libdwfl session (Dwfl) per process, its modules read from /proc/PID/maps when first
 * needed and again after an exec or a new executable mapping.  Results are cached by what the
 * unwind read (ip, sp, bp and every stack word it loaded), so a thread that blocks again at the
 * same place costs a lookup.
 */
#ifndef WC_RECORDER_UNWIND_H
#define WC_RECORDER_UNWIND_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

struct wc_unwind;

/* Most user frames an unwind gives (perf's PERF_MAX_STACK_DEPTH). */
#define WC_UNWIND_MAX_FRAMES 127

/* x86-64 user registers asked with PERF_SAMPLE_REGS_USER (arch/x86/include/uapi/asm/perf_regs.h) */
#define WC_UNWIND_REGS_MASK ((1ull << 6) | (1ull << 7) | (1ull << 8)) /* bp, sp, ip */

/* Outcome of mending one callchain. */
enum wc_unwind_result {
	WC_UNWIND_NONE,	     /* no registers or copy (a kernel thread), or nothing to mend */
	WC_UNWIND_SPLICED,   /* CFI frames up to where they meet the kernel's chain, then its */
	WC_UNWIND_COMPLETE,  /* CFI frames up to the outermost (_start, clone3): the whole stack */
	WC_UNWIND_TRUNCATED, /* CFI frames until the copy ran out, and no meeting point: the
			      * kernel's entries after them could not be trusted, left out */
	WC_UNWIND_FAILED,    /* the CFI unwind stopped short of the copy's end (no CFI, a file
			      * not opened) with no meeting point: the kernel's chain kept (-g
			      * fp); the CFI frames and WC_CONTEXT_UNWIND_FAILED (-g dwarf) */
	WC_UNWIND_SKIPPED,   /* not in the cache while the drain was behind (wc_unwind_set_busy()):
			      * as FAILED, without the work (-g dwarf: the ip alone) */
};

struct wc_unwind_stats {
	uint64_t stacks; /* callchains given to wc_unwind_mend() with registers */
	uint64_t hits;	 /* ... answered from the cache */
	uint64_t by_result[WC_UNWIND_SKIPPED + 1];
	uint64_t miss_ns;  /* CPU time in unwinds that missed the cache, ns (thread clock) */
	uint64_t sessions; /* libdwfl sessions opened (processes, and again after exec/mmap) */
	uint64_t changed;  /* mapped files refused: the file at the path is not the one mapped */
	/* counted by the drain (wc_events_unwind_stats()), not here: */
	uint64_t bad_copies; /* stack copies that overran their record: not unwound */
	uint64_t wrong_abi;  /* registers of another ABI than x86-64 (a 32-bit task): not unwound */
};

/**
 * wc_unwind_new() - an unwinder with an empty cache
 *
 * With WCREC_FORCE_NO_MAP_FILES in the environment (tests), module files are opened by path
 * (through /proc/PID/root) as without CAP_SYS_ADMIN, and checked against the mapped file.
 *
 * Return: the unwinder, or NULL with errno set (ENOMEM).
 */
struct wc_unwind *wc_unwind_new(void);

/*
 * A session's modules from elsewhere than /proc (a recording's maps, wcanalyze): report each
 * module of @pid to @dwfl (dwfl_report_elf(), between the dwfl_report_begin() and
 * dwfl_report_end() of the caller).  Return: 0, or -1 when the process has none.
 */
typedef int (*wc_unwind_report_fn)(void *ctx, Dwfl *dwfl, uint32_t pid, uint64_t time_ns);

/**
 * wc_unwind_new_reporting() - as wc_unwind_new(), the modules of each session reported by
 * @report (with @ctx, borrowed until wc_unwind_free()) instead of read from /proc: for stacks
 * recorded elsewhere, unwound with the local files the reporter checked
 * Return: the unwinder, or NULL with errno set (ENOMEM).
 */
struct wc_unwind *wc_unwind_new_reporting(wc_unwind_report_fn report, void *ctx);

/** wc_unwind_free() - close every session and free the cache; NULL is a no-op */
void wc_unwind_free(struct wc_unwind *u);

/**
 * wc_unwind_forget() - the process's mappings changed at @time_ns (exec, a new mapping of a
 * file): its session serves the samples from before then that still come in this drain, and is
 * closed at its end (wc_unwind_end_round()), its cached results no longer used; the samples
 * from after then are unwound by a new session, opened when next needed.  Not at once: the
 * rings are drained one CPU after another, so a sample from before the change may come after
 * the record of the change in the same drain.
 */
void wc_unwind_forget(struct wc_unwind *u, uint32_t pid, uint64_t time_ns);

/**
 * wc_unwind_forget_all() - records were lost at @time_ns: a change of mappings may have been
 * among them; every process is forgotten as by wc_unwind_forget()
 */
void wc_unwind_forget_all(struct wc_unwind *u, uint64_t time_ns);

/**
 * wc_unwind_set_busy() - while @busy, answer from the cache only: a callchain that misses it
 * is kept as the kernel gave it (-g fp) or cut to its ip (-g dwarf), as WC_UNWIND_SKIPPED, and
 * no session is opened.  For a drain that fell behind: a stack left unmended, not an event
 * lost to a full ring buffer.
 */
void wc_unwind_set_busy(struct wc_unwind *u, bool busy);

/** wc_unwind_end_round() - every ring has been drained: apply the forgets of this drain */
void wc_unwind_end_round(struct wc_unwind *u);

/* One sample's user state, as PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER give it. */
struct wc_unwind_sample {
	uint32_t pid, tid;    /* the process and thread it is of */
	uint64_t time_ns;     /* its time (the event's clock: that of wc_unwind_forget()) */
	uint64_t regs[3];     /* user bp, sp, ip in that order (WC_UNWIND_REGS_MASK) */
	const uint8_t *stack; /* the copy of the user stack from sp up; borrowed */
	uint64_t size;	      /* its bytes (dyn_size) */
};

/**
 * wc_unwind_mend() - mend the user part of a callchain, or make it
 * @smp:        the sample's user registers and stack copy
 * @ips, @nr:   the kernel's callchain, leaf first with its PERF_CONTEXT_* markers
 * @whole:      false (-g fp): the kernel walked the user stack by frame pointers, and its user
 *              part is mended.  true (-g dwarf): the user part is the CFI unwind alone, as perf's
 *              --call-graph dwarf (the kernel's user part, if any, is left out: record with
 *              exclude_callchain_user); where the unwind does not reach the outermost frame it
 *              ends in WC_CONTEXT_TRUNCATED (the copy or WC_UNWIND_MAX_FRAMES ran out) or
 *              WC_CONTEXT_UNWIND_FAILED (any other stop), and where it gives nothing the ip
 *              alone is kept before the marker
 * @out:        room for @nr + WC_UNWIND_MAX_FRAMES + 2 entries: the mended callchain, kernel part
 *              unchanged, user part replaced; a marker ends a user part cut short
 * @out_nr:     set to the entries written (with -g fp, when the result is NONE, FAILED or
 *              SKIPPED, @out is a copy of @ips)
 *
 * Return: what was done (enum wc_unwind_result).
 */
enum wc_unwind_result wc_unwind_mend(struct wc_unwind *u, const struct wc_unwind_sample *smp,
				     const uint64_t *ips, uint32_t nr, bool whole, uint64_t *out,
				     uint32_t *out_nr);

/** wc_unwind_stats() - figures so far */
void wc_unwind_stats(const struct wc_unwind *u, struct wc_unwind_stats *stats);

#endif /* WC_RECORDER_UNWIND_H */
