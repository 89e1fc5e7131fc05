/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unwind.c - see unwind.h. */
#include "recorder/unwind.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/wct.h"
#include "recorder/unwind-files.h"

#define NPROCS	   256		 /* libdwfl sessions kept, direct-mapped by pid */
#define NCACHE	   2048		 /* cached unwinds, direct-mapped by ip, sp, bp */
#define MAX_LOADS  1024		 /* stack words one unwind may load and still be cached */
#define MAX_KEYS   160		 /* ... of which decide its result (decides()) */
#define STACK_NEAR (64ull << 20) /* a word this close to sp may be an address on the stack */

/* A stack word an unwind loaded: at @off bytes above sp. */
struct load {
	uint32_t off;
	uint64_t val;
};

/* What an unwind found: kept with the sample, and in the cache for the next that reads the same. */
struct result {
	uint32_t nframes;
	bool outside;	  /* a read fell outside the copy, or WC_UNWIND_MAX_FRAMES were reached */
	bool outermost;	  /* the unwind reached a frame whose CFI ends the stack (_start, clone3) */
	bool have_bp;	  /* last_bp is known: */
	uint64_t last_bp; /* the last frame's %rbp, as the CFI restored it */
	uint64_t fp_mask[2]; /* bit j: frame j's CFA is %rbp + 16 there (cfa_by_rbp()) */
	uint64_t frames[WC_UNWIND_MAX_FRAMES];
};

/* What one unwind of one sample needs from its callbacks. */
struct sample {
	uint32_t tid;
	uint64_t time_ns;
	uint64_t bp, sp, ip;
	const uint8_t *stack;
	uint64_t size;
	uint32_t nreads;
	bool overflow; /* more loads than MAX_LOADS, or keys than MAX_KEYS: not cached */
	bool skipped;  /* not in the cache, and not unwound: wc_unwind_set_busy() */
	struct load reads[MAX_LOADS];
	struct result r;
};

/*
 * A process's libdwfl session.  Its mappings change at an exec or a new mapping of a file
 * (wc_unwind_forget(), at the change's time): the session open then (stale) still serves the
 * samples from before the change that come in the same drain, and is closed at its end; a
 * sample from after it waits for the next session, opened when next needed, which serves
 * only samples from after the last change.
 */
struct proc {
	uint32_t pid;
	uint32_t gen;	    /* bumped at each close: cache entries of older sessions are stale */
	Dwfl *dwfl;	    /* NULL: to open */
	bool attached;	    /* ... and usable; a failed open is retried at the next drain */
	bool stale;	    /* forgotten: closed at the end of the drain (wc_unwind_end_round()) */
	uint64_t change_ns; /* the time of the last change of its mappings, 0: none seen */
	struct sample *cur;
};

struct entry {
	uint32_t pid, gen;
	uint64_t ip, sp, bp; /* 0 ip: empty */
	uint64_t size; /* of the copy: where a load fell outside it, a larger one may do more */
	uint32_t nreads;
	struct load reads[MAX_KEYS];
	struct result r;
};

struct wc_unwind {
	struct proc procs[NPROCS];
	struct entry *cache;
	struct sample s;
	struct wc_unwind_stats st;
	bool busy;		    /* wc_unwind_set_busy() */
	wc_unwind_report_fn report; /* NULL: the modules from /proc/TID/maps */
	void *report_ctx;
};

static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = wc_unwind_find_elf,
	.find_debuginfo = wc_unwind_no_debuginfo,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct proc *p = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = p;
	return (pid_t)p->cur->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct proc *p = arg;

	(void)dwfl;
	*thread_argp = p;
	return (uint32_t)tid == p->cur->tid;
}

/* A stack word from the copy; every load is noted, as the key of the cached result. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct sample *s = ((struct proc *)arg)->cur;
	uint64_t off = addr - s->sp;

	(void)dwfl;
	if (addr < s->sp || s->size < 8 || off > s->size - 8) {
		s->r.outside = true;
		return false;
	}
	memcpy(result, s->stack + off, 8);
	if (s->nreads < MAX_LOADS) {
		s->reads[s->nreads].off = (uint32_t)off;
		s->reads[s->nreads].val = *result;
		s->nreads++;
	} else {
		s->overflow = true;
	}
	return true;
}

/* DWARF register numbers of x86-64 (the psABI): 6 rbp, 7 rsp, 16 the return address (pc). */
static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct sample *s = ((struct proc *)arg)->cur;
	Dwarf_Word r[2] = { s->bp, s->sp };

	if (!dwfl_thread_state_registers(thread, 6, 2, r))
		return false;
	dwfl_thread_state_register_pc(thread, s->ip);
	return true;
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static bool cfa_by_rbp(Dwfl *dwfl, Dwarf_Addr pc);

static int on_frame(Dwfl_Frame *frame, void *arg)
{
	struct sample *s = arg;
	Dwarf_Addr pc;
	Dwarf_Word bp;
	bool activation;
	uint32_t j = s->r.nframes;

	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	s->r.frames[j] = pc;
	/* a return address less 1 is in the call, where the caller's CFI applies */
	if (cfa_by_rbp(dwfl_thread_dwfl(dwfl_frame_thread(frame)), activation ? pc : pc - 1))
		s->r.fp_mask[j / 64] |= 1ull << (j % 64);
	s->r.have_bp = dwfl_frame_reg(frame, 6, &bp) == 0; /* DWARF 6: %rbp */
	s->r.last_bp = bp;
	s->r.nframes++;
	if (s->r.nframes < WC_UNWIND_MAX_FRAMES)
		return DWARF_CB_OK;
	s->r.outside = true; /* cut short by the limit, as by the copy's end */
	return DWARF_CB_ABORT;
}

/* Does frame @j's function keep a frame pointer at its pc (cfa_by_rbp())? */
static bool keeps_fp(const struct sample *s, uint32_t j)
{
	return s->r.fp_mask[j / 64] >> (j % 64) & 1;
}

struct wc_unwind *wc_unwind_new(void)
{
	struct wc_unwind *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	wc_unwind_files_init();
	u->cache = calloc(NCACHE, sizeof(*u->cache));
	if (!u->cache) {
		free(u);
		errno = ENOMEM;
		return NULL;
	}
	return u;
}

struct wc_unwind *wc_unwind_new_reporting(wc_unwind_report_fn report, void *ctx)
{
	struct wc_unwind *u = wc_unwind_new();

	if (u) {
		u->report = report;
		u->report_ctx = ctx;
	}
	return u;
}

static void close_proc(struct proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
	p->attached = false;
}

void wc_unwind_free(struct wc_unwind *u)
{
	if (!u)
		return;
	for (int i = 0; i < NPROCS; i++)
		close_proc(&u->procs[i]);
	free(u->cache);
	free(u);
}

void wc_unwind_forget(struct wc_unwind *u, uint32_t pid, uint64_t time_ns)
{
	struct proc *p = &u->procs[pid % NPROCS];

	if (p->pid != pid) {
		close_proc(p);
		p->pid = pid;
		p->gen++;
	}
	p->stale = p->dwfl != NULL; /* else there is nothing to keep for the old mappings */
	if (time_ns > p->change_ns)
		p->change_ns = time_ns;
}

void wc_unwind_forget_all(struct wc_unwind *u, uint64_t time_ns)
{
	for (int i = 0; i < NPROCS; i++)
		if (u->procs[i].pid)
			wc_unwind_forget(u, u->procs[i].pid, time_ns);
}

void wc_unwind_set_busy(struct wc_unwind *u, bool busy)
{
	u->busy = busy;
}

void wc_unwind_end_round(struct wc_unwind *u)
{
	for (int i = 0; i < NPROCS; i++) {
		struct proc *p = &u->procs[i];

		if (p->stale || (p->dwfl && !p->attached)) {
			close_proc(p);
			p->gen++;
			p->stale = false;
		}
	}
}

/*
 * The session that may unwind a sample of @pid's thread @tid at @time_ns: for a sample from
 * before the last change of its mappings, the session from before it if still open (stale);
 * else a current one (closing a stale one), opened when first needed (@open) by reading
 * /proc/TID/maps (the thread's own: the leader may have exited).  NULL when there is none:
 * the process gone, a sample from before a change whose old session was closed or never open,
 * or (not @open) no current session.
 */
static struct proc *get_proc(struct wc_unwind *u, uint32_t pid, uint32_t tid, uint64_t time_ns,
			     bool open)
{
	struct proc *p = &u->procs[pid % NPROCS];

	if (p->pid != pid) {
		if (!open)
			return NULL;
		close_proc(p);
		*p = (struct proc){ .pid = pid, .gen = p->gen + 1 };
	}
	if (time_ns < p->change_ns) /* the old mappings: the session from before, if still open */
		return p->stale && p->attached ? p : NULL;
	if (p->stale) { /* the new mappings: not that session */
		if (!open)
			return NULL;
		close_proc(p);
		p->gen++;
		p->stale = false;
	}
	if (p->dwfl || !open)
		return p->attached ? p : NULL;
	p->dwfl = dwfl_begin(&dwfl_cbs);
	if (!p->dwfl)
		return NULL;
	wc_unwind_files_for(pid, &u->st.changed);
	u->st.sessions++;
	dwfl_report_begin(p->dwfl);
	if ((u->report ? u->report(u->report_ctx, p->dwfl, pid, time_ns)
		       : dwfl_linux_proc_report(p->dwfl, (pid_t)tid)) ||
	    dwfl_report_end(p->dwfl, NULL, NULL))
		return NULL;
	p->attached = dwfl_attach_state(p->dwfl, NULL, (pid_t)pid, &thread_cbs, p);
	return p->attached ? p : NULL;
}

static uint64_t thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct entry *slot(struct wc_unwind *u, uint32_t pid, const struct sample *s)
{
	uint64_t h = (s->ip ^ (s->sp << 7) ^ (s->bp << 13) ^ pid) * 0x9e3779b97f4a7c15ull;

	return &u->cache[h >> 53]; /* NCACHE slots */
}

static bool cache_hit(const struct entry *e, uint32_t pid, uint32_t gen, const struct sample *s)
{
	if (!e->ip || e->pid != pid || e->gen != gen || e->ip != s->ip || e->sp != s->sp ||
	    e->bp != s->bp || (e->r.outside && e->size != s->size))
		return false;
	for (uint32_t i = 0; i < e->nreads; i++) {
		uint64_t v;

		if (e->reads[i].off > s->size - 8 || s->size < 8)
			return false;
		memcpy(&v, s->stack + e->reads[i].off, 8);
		if (v != e->reads[i].val)
			return false;
	}
	return true;
}

/*
 * Does a stack word the unwind loaded decide its result?  A return address does; so does a
 * saved frame pointer or any other address on the stack, from which a caller's CFA is found.
 * The other saved registers (data a callee kept for its caller: heap pointers, counters) change
 * from one call to the next and do not move a frame, so they are left out of the cache key:
 * keeping them made 76% of a postgres server's unwinds miss.
 */
static bool decides(const struct sample *s, uint64_t val)
{
	for (uint32_t j = 0; j < s->r.nframes; j++)
		if (s->r.frames[j] == val)
			return true;
	return val - (s->sp - STACK_NEAR) < 2 * STACK_NEAR;
}

/*
 * Is the CFA of the frame at @pc %rbp + 16 (DW_CFA_def_cfa: r6 ofs 16): does that function keep
 * a frame pointer there, its return address at %rbp + 8?  Only then is the frame's %rbp its
 * own frame, from which the kernel's walk can be taken up.
 */
static bool cfa_by_rbp(Dwfl *dwfl, Dwarf_Addr pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	Dwarf_Frame *frame = NULL;
	Dwarf_CFI *cfi;
	Dwarf_Addr bias;
	Dwarf_Op *ops;
	size_t nops;
	bool yes;

	if (!mod ||
	    (!(cfi = dwfl_module_eh_cfi(mod, &bias)) && !(cfi = dwfl_module_dwarf_cfi(mod, &bias))))
		return false;
	if (dwarf_cfi_addrframe(cfi, pc - bias, &frame))
		return false;
	yes = dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1 && ops[0].atom == DW_OP_bregx &&
	      ops[0].number == 6 && ops[0].number2 == 16;
	free(frame);
	return yes;
}

/* @src's result into @dst: its frames only as far as it has them. */
static void copy_result(struct result *dst, const struct result *src)
{
	memcpy(dst, src, offsetof(struct result, frames) + src->nframes * sizeof(src->frames[0]));
}

/* Unwind the sample in u->s by CFI, or take it from the cache. */
static void unwind(struct wc_unwind *u, uint32_t pid)
{
	struct sample *s = &u->s;
	struct proc *p;
	struct entry *e;
	uint64_t t0;

	p = get_proc(u, pid, s->tid, s->time_ns, !u->busy);
	e = slot(u, pid, s);
	if (p && cache_hit(e, pid, p->gen, s)) {
		u->st.hits++;
		copy_result(&s->r, &e->r);
		return;
	}
	if (u->busy)
		s->skipped = true;
	if (!p || u->busy)
		return;
	t0 = thread_ns();
	p->cur = s;
	wc_unwind_files_for(pid, &u->st.changed);
	/* 0: every frame down to one whose return address is undefined, by its CFI or because a
	 * load it needed failed (libdwfl does not tell the two apart: hence s->r.outside) */
	s->r.outermost =
		dwfl_getthread_frames(p->dwfl, (pid_t)s->tid, on_frame, s) == 0 && !s->r.outside;
	p->cur = NULL;
	u->st.miss_ns += thread_ns() - t0;
	if (s->overflow)
		return;
	e->pid = pid;
	e->gen = p->gen;
	e->ip = s->ip;
	e->sp = s->sp;
	e->bp = s->bp;
	e->size = s->size;
	e->nreads = 0;
	copy_result(&e->r, &s->r);
	for (uint32_t i = 0; i < s->nreads; i++) {
		if (!decides(s, s->reads[i].val))
			continue;
		if (e->nreads == MAX_KEYS) {
			e->ip = 0; /* too many to check: not cached */
			return;
		}
		e->reads[e->nreads++] = s->reads[i];
	}
}

/*
 * Where the kernel's frame-pointer walk went on from the frame whose %rbp is @bp: the index in
 * its user part of the return address it read there, or 0 if none of the frames it walked
 * within the copy has that frame pointer.  The walk (perf_callchain_user(), arch/x86/events/
 * core.c): user[0] is the ip; frame pointer fp[0] is the sample's %rbp; user[k] is the word at
 * fp[k-1] + 8 and fp[k] the word at fp[k-1].
 */
static uint32_t walk_from(const struct sample *s, uint64_t bp, uint32_t nuser)
{
	uint64_t fp = s->bp;

	for (uint32_t k = 1; k < nuser; k++) {
		uint64_t off = fp - s->sp;

		if (fp == bp)
			return k;
		if (fp < s->sp || s->size < 16 || off > s->size - 16)
			return 0;
		memcpy(&fp, s->stack + off, 8);
	}
	return 0;
}

/*
 * The mended user part (user[0], the ip, is the same in both):
 *  - the CFI frames alone where they reach the outermost frame;
 *  - else every CFI frame, then the kernel's walk from where it left the last of them: the
 *    walk's frame pointers, recomputed from the copy, name the frame the CFI stopped in by its
 *    %rbp (a vdso function keeps a frame pointer, the libc clock_gettime() that calls it does
 *    not: the walk skips clock_gettime()'s caller, and goes on from the caller's frame);
 *  - else the CFI frames up to the deepest one the kernel's walk reached too, then the walk's
 *    entries after it; a return address seen k times among the CFI frames up to there
 *    (recursion) is taken at its k-th place in the walk;
 *  - else the CFI frames and a WC_CONTEXT_TRUNCATED marker.
 */
static enum wc_unwind_result splice_chain(const struct sample *s, const uint64_t *user,
					  uint32_t nuser, uint64_t *out, uint32_t *n)
{
	uint32_t from = 0;

	if (s->r.nframes <= 1)
		return WC_UNWIND_FAILED;
	if (!s->r.outermost && s->r.have_bp && keeps_fp(s, s->r.nframes - 1))
		from = walk_from(s, s->r.last_bp, nuser);
	if (!s->r.outermost && !from) {
		for (uint32_t j = s->r.nframes; j-- > 1;) {
			uint32_t k = 0, i;

			if (!keeps_fp(s, j)) /* the walk after it would skip frame j's caller */
				continue;

			for (uint32_t m = 1; m <= j; m++)
				k += s->r.frames[m] == s->r.frames[j];
			for (i = 1; i < nuser && (user[i] != s->r.frames[j] || --k); i++)
				;
			if (i == nuser)
				continue;
			memcpy(out + *n, s->r.frames, j * sizeof(*out));
			*n += j;
			memcpy(out + *n, user + i, (nuser - i) * sizeof(*out));
			*n += nuser - i;
			return WC_UNWIND_SPLICED;
		}
	}
	if (!s->r.outermost && !from && !s->r.outside)
		return WC_UNWIND_FAILED; /* no CFI further up, and no meeting point: the walk kept
					  */
	memcpy(out + *n, s->r.frames, s->r.nframes * sizeof(*out));
	*n += s->r.nframes;
	if (s->r.outermost)
		return WC_UNWIND_COMPLETE;
	if (from) {
		memcpy(out + *n, user + from, (nuser - from) * sizeof(*out));
		*n += nuser - from;
		return WC_UNWIND_SPLICED;
	}
	out[(*n)++] = WC_CONTEXT_TRUNCATED;
	return WC_UNWIND_TRUNCATED;
}

/* Unwind a sample by CFI, from the cache where it can. */
static void unwind_sample(struct wc_unwind *u, const struct wc_unwind_sample *smp)
{
	struct sample *s = &u->s;

	s->tid = smp->tid;
	s->time_ns = smp->time_ns;
	s->bp = smp->regs[0];
	s->sp = smp->regs[1];
	s->ip = smp->regs[2];
	s->stack = smp->stack;
	s->size = smp->size;
	s->nreads = 0;
	s->overflow = s->skipped = false;
	memset(&s->r, 0, offsetof(struct result, frames));
	u->st.stacks++;
	unwind(u, smp->pid);
}

/*
 * -g dwarf: after the kernel part of @ips (@n entries), the CFI frames as the user part (the ip
 * alone where there are none), ended by WC_CONTEXT_TRUNCATED where a load fell outside the
 * copy, else by WC_CONTEXT_UNWIND_FAILED unless the outermost frame was reached.
 */
static enum wc_unwind_result whole_chain(const struct sample *s, uint64_t *out, uint32_t *n)
{
	out[(*n)++] = PERF_CONTEXT_USER;
	if (!s->r.nframes) {
		out[(*n)++] = s->ip;
	} else {
		memcpy(out + *n, s->r.frames, s->r.nframes * sizeof(*out));
		*n += s->r.nframes;
	}
	if (s->r.outermost)
		return WC_UNWIND_COMPLETE;
	if (s->skipped || !s->r.outside) {
		out[(*n)++] = WC_CONTEXT_UNWIND_FAILED;
		return s->skipped ? WC_UNWIND_SKIPPED : WC_UNWIND_FAILED;
	}
	out[(*n)++] = WC_CONTEXT_TRUNCATED;
	return WC_UNWIND_TRUNCATED;
}

enum wc_unwind_result wc_unwind_mend(struct wc_unwind *u, const struct wc_unwind_sample *smp,
				     const uint64_t *ips, uint32_t nr, bool whole, uint64_t *out,
				     uint32_t *out_nr)
{
	uint32_t user = nr, n;
	enum wc_unwind_result r = WC_UNWIND_NONE;

	for (uint32_t i = 0; i < nr; i++) {
		if (ips[i] == PERF_CONTEXT_USER) {
			user = i;
			break;
		}
	}
	if (whole) {
		n = user;
		memcpy(out, ips, n * sizeof(*out));
		if (smp->pid) {
			unwind_sample(u, smp);
			r = whole_chain(&u->s, out, &n);
			u->st.by_result[r]++;
		}
		*out_nr = n;
		return r;
	}
	n = user + 1 < nr ? user + 1 : nr;
	memcpy(out, ips, n * sizeof(*out));
	if (user + 1 < nr && smp->pid && smp->regs[2] == ips[user + 1]) {
		unwind_sample(u, smp);
		r = u->s.skipped ? WC_UNWIND_SKIPPED
				 : splice_chain(&u->s, ips + user + 1, nr - user - 1, out, &n);
		u->st.by_result[r]++;
	}
	if (r == WC_UNWIND_NONE || r == WC_UNWIND_FAILED || r == WC_UNWIND_SKIPPED) {
		memcpy(out, ips, nr * sizeof(*out));
		n = nr;
	}
	*out_nr = n;
	return r;
}

void wc_unwind_stats(const struct wc_unwind *u, struct wc_unwind_stats *stats)
{
	*stats = u->st;
}
