/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-unwind.c - recorder/unwind.c on this very process: a snapshot of its own registers and
 * stack, taken in a named function, is mended as the recorder mends a sample's; and
 * analyzer/core/callchain.c's handling of the WC_CONTEXT_TRUNCATED marker.
 */
#include <criterion/criterion.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/core/callchain.h"
#include "common/wct.h"
#include "recorder/unwind.h"

#define COPY 4096

struct snap {
	uint64_t regs[3]; /* bp, sp, ip */
	uint8_t stack[COPY];
	uint64_t size;	 /* bytes of stack copied: COPY, or up to the stack's end */
	uint64_t ret[3]; /* the return addresses into capture()'s caller, outer(), then into
			  * middle(), then into middle()'s caller */
};

/*
 * Which of the three functions keep a frame pointer is fixed, whatever the build's flags (the
 * sanitizer build keeps them everywhere): capture() and middle() do, outer() does not, so that
 * the kernel's walk from capture() skips middle() (outer()'s caller), as a walk from a vdso
 * function skips the caller of libc's clock_gettime().
 */
#define FP    __attribute__((noinline, optimize("no-omit-frame-pointer")))
#define NO_FP __attribute__((noinline, optimize("omit-frame-pointer")))

/* The stack words from @sp up, as the kernel copies them: frames of other functions, with
 * AddressSanitizer's redzones among them, which it must not check. */
__attribute__((noinline, no_sanitize_address)) static void copy_stack(uint8_t *to, uint64_t sp,
								      uint64_t n)
{
	for (uint64_t i = 0; i + 8 <= n; i += 8)
		*(uint64_t *)(to + i) = *(const volatile uint64_t *)(sp + i);
}

/* Registers and a copy of the stack from sp up, as PERF_SAMPLE_REGS_USER / STACK_USER. */
FP static void capture(struct snap *s)
{
	uint64_t bp, sp, ip, top;
	pthread_attr_t a;
	void *addr;
	size_t size;

	cr_assert(!pthread_getattr_np(pthread_self(), &a));
	cr_assert(!pthread_attr_getstack(&a, &addr, &size));
	pthread_attr_destroy(&a);
	top = (uint64_t)addr + size;
	__asm__ volatile("mov %%rbp, %0\n\tmov %%rsp, %1\n\tlea 0(%%rip), %2"
			 : "=r"(bp), "=r"(sp), "=r"(ip));
	s->regs[0] = bp;
	s->regs[1] = sp;
	s->regs[2] = ip;
	s->size = top - sp < COPY ? top - sp : COPY;
	copy_stack(s->stack, sp, s->size);
	s->ret[0] = (uint64_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

NO_FP static void outer(struct snap *s)
{
	capture(s);
	s->ret[1] = (uint64_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

FP static void middle(struct snap *s)
{
	outer(s);
	s->ret[2] = (uint64_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

static struct wc_unwind *u;
static struct snap snap;

static void setup(void)
{
	u = wc_unwind_new();
	cr_assert(u);
	middle(&snap);
}

static void teardown(void)
{
	wc_unwind_free(u);
}

static uint64_t now_ns = 2; /* the samples' time */

/* Mend @chain with the snapshot's registers and its first @size bytes, as of now_ns. */
static enum wc_unwind_result mend(uint64_t size, const uint64_t *chain, uint32_t nr, bool whole,
				  uint64_t *out, uint32_t *n)
{
	struct wc_unwind_sample smp = { (uint32_t)getpid(),
					(uint32_t)gettid(),
					now_ns,
					{ snap.regs[0], snap.regs[1], snap.regs[2] },
					snap.stack,
					size };

	return wc_unwind_mend(u, &smp, chain, nr, whole, out, n);
}

static int find(const uint64_t *ips, uint32_t n, uint64_t v)
{
	for (uint32_t i = 0; i < n; i++)
		if (ips[i] == v)
			return (int)i;
	return -1;
}

/* The offset in the copy of return address @k (snap.ret[k]): the first after the one before. */
static uint64_t ret_offset(int k)
{
	uint64_t off = k ? ret_offset(k - 1) + 8 : 0;

	for (; off + 8 <= snap.size; off += 8) {
		uint64_t v;

		memcpy(&v, snap.stack + off, 8);
		if (v == snap.ret[k])
			return off;
	}
	cr_assert_fail("no return address %d in the copy", k);
	return 0;
}

static uint64_t ret0_offset(void)
{
	return ret_offset(0);
}

TestSuite(unwind, .init = setup, .fini = teardown);

Test(unwind, a_garbage_chain_is_replaced_by_the_cfi_frames)
{
	/* the kernel's walk as where a libc frame used %rbp for data: garbage after the ip */
	uint64_t chain[] = { PERF_CONTEXT_KERNEL,
			     0xffffffff81000000ull,
			     PERF_CONTEXT_USER,
			     snap.regs[2],
			     0x1234,
			     0x5678 };
	uint64_t out[6 + WC_UNWIND_MAX_FRAMES + 1];
	uint32_t n = 0;
	enum wc_unwind_result r;

	r = mend(snap.size, chain, 6, false, out, &n);
	cr_assert(r == WC_UNWIND_COMPLETE || r == WC_UNWIND_TRUNCATED, "result %d", r);
	cr_assert_eq(out[0], PERF_CONTEXT_KERNEL);
	cr_assert_eq(out[1], 0xffffffff81000000ull, "the kernel part is kept");
	cr_assert_eq(out[2], PERF_CONTEXT_USER);
	cr_assert_eq(out[3], snap.regs[2], "the ip first");
	cr_assert_eq(out[4], snap.ret[0], "then the return address into outer()");
	cr_assert_eq(out[5], snap.ret[1], "then the one into its caller");
	cr_assert_eq(find(out, n, 0x1234), -1, "no garbage");
}

Test(unwind, the_cfi_frames_are_spliced_onto_the_kernel_chain_where_they_meet)
{
	/* the walk as where capture() kept no frame pointer: outer() skipped, then middle() */
	uint64_t chain[] = { PERF_CONTEXT_USER, snap.regs[2], snap.ret[1], 0xaaaa, 0xbbbb };
	uint64_t size = ret_offset(1) + 8; /* up to outer()'s return address: not complete */
	uint64_t out[5 + WC_UNWIND_MAX_FRAMES + 1];
	uint32_t n = 0;

	cr_assert_eq(mend(size, chain, 5, false, out, &n), WC_UNWIND_SPLICED);
	cr_assert_eq(n, 6);
	uint64_t want[] = { PERF_CONTEXT_USER, snap.regs[2], snap.ret[0],
			    snap.ret[1],       0xaaaa,	     0xbbbb };
	cr_assert_arr_eq(out, want, sizeof(want));
}

/* The kernel's frame-pointer walk over the whole copy, as perf_callchain_user() makes it. */
static uint32_t walk(uint64_t *w, uint32_t max)
{
	uint64_t fp = snap.regs[0];
	uint32_t n = 0;

	w[n++] = snap.regs[2];
	while (n < max && fp >= snap.regs[1] && fp - snap.regs[1] + 16 <= snap.size) {
		memcpy(&w[n++], snap.stack + (fp - snap.regs[1]) + 8, 8);
		memcpy(&fp, snap.stack + (fp - snap.regs[1]), 8);
	}
	return n;
}

Test(unwind, the_walk_goes_on_from_the_frame_the_cfi_stopped_in)
{
	uint64_t chain[1 + 16], out[17 + WC_UNWIND_MAX_FRAMES + 2];
	uint32_t nw = walk(chain + 1, 16), n = 0;

	chain[0] = PERF_CONTEXT_USER;
	cr_assert_geq(nw, 3);
	cr_assert_eq(chain[2], snap.ret[0], "the walk finds capture()'s return address");
	cr_assert_eq(chain[3], snap.ret[2], "and skips outer()'s, which keeps no frame pointer");
	/* the copy ends above middle()'s frame pointer: the CFI stops in middle() */
	cr_assert_eq(mend(ret_offset(1) + 8, chain, 1 + nw, false, out, &n), WC_UNWIND_SPLICED);
	cr_assert_eq(n, 1 + nw + 1, "one frame more than the walk: %u", n);
	cr_assert_eq(out[1], snap.regs[2]);
	cr_assert_eq(out[2], snap.ret[0]);
	cr_assert_eq(out[3], snap.ret[1], "outer()'s return address, which the walk skipped");
	cr_assert_arr_eq(out + 4, chain + 3, (nw - 2) * 8, "then the walk from middle()'s frame");
}

Test(unwind, no_splice_past_a_frame_without_a_frame_pointer)
{
	/* the CFI stops in outer(), which keeps no frame pointer: the walk after the return
	 * address into it (read from capture()'s frame) goes on from middle()'s frame and skips
	 * the return address into middle(); so the stack is cut there, not mended wrongly */
	uint64_t chain[1 + 16], out[17 + WC_UNWIND_MAX_FRAMES + 2];
	uint32_t nw = walk(chain + 1, 16), n = 0;

	chain[0] = PERF_CONTEXT_USER;
	cr_assert_eq(mend(ret_offset(0) + 8, chain, 1 + nw, false, out, &n), WC_UNWIND_TRUNCATED);
	uint64_t want[] = { PERF_CONTEXT_USER, snap.regs[2], snap.ret[0], WC_CONTEXT_TRUNCATED };
	cr_assert_eq(n, 4);
	cr_assert_arr_eq(out, want, sizeof(want));
}

Test(unwind, a_copy_too_short_gives_a_truncated_stack)
{
	uint64_t chain[] = { PERF_CONTEXT_USER, snap.regs[2], 0x1234 };
	uint64_t out[3 + WC_UNWIND_MAX_FRAMES + 1];
	uint32_t n = 0;
	enum wc_unwind_result r;

	/* up to capture()'s return address: outer()'s is beyond the copy */
	r = mend(ret0_offset() + 8, chain, 3, false, out, &n);
	cr_assert_eq(r, WC_UNWIND_TRUNCATED, "result %d", r);
	cr_assert_eq(n, 4);
	uint64_t want[] = { PERF_CONTEXT_USER, snap.regs[2], snap.ret[0], WC_CONTEXT_TRUNCATED };
	cr_assert_arr_eq(out, want, sizeof(want));

	/* nothing past the ip: the kernel's chain kept as it is */
	r = mend(ret0_offset(), chain, 3, false, out, &n);
	cr_assert_eq(r, WC_UNWIND_FAILED, "result %d n %u: %lx %lx %lx %lx (ret %lx %lx)", r, n,
		     out[1], out[2], out[3], out[4], snap.ret[0], snap.ret[1]);
	cr_assert_eq(n, 3);
	cr_assert_arr_eq(out, chain, sizeof(chain));
}

Test(unwind, the_same_place_again_is_a_cache_hit_and_a_changed_stack_is_not)
{
	uint64_t chain[] = { PERF_CONTEXT_USER, snap.regs[2], 0x1234 };
	uint64_t out[2][3 + WC_UNWIND_MAX_FRAMES + 1];
	uint32_t n[2];
	struct wc_unwind_stats st;
	uint32_t pid = (uint32_t)getpid();

	mend(snap.size, chain, 3, false, out[0], &n[0]);
	mend(snap.size, chain, 3, false, out[1], &n[1]);
	wc_unwind_stats(u, &st);
	cr_assert_eq(st.stacks, 2);
	cr_assert_eq(st.hits, 1);
	cr_assert_eq(n[0], n[1]);
	cr_assert_arr_eq(out[0], out[1], n[0] * 8);

	/* the return address slot into outer() changed: a miss, and the new frame */
	memcpy(snap.stack + ret0_offset(), &snap.ret[1], 8);
	mend(snap.size, chain, 3, false, out[1], &n[1]);
	wc_unwind_stats(u, &st);
	cr_assert_eq(st.hits, 1);
	cr_assert_eq(out[1][2], snap.ret[1]);
	/* the process's mappings changed at 5 ns: its samples from before are answered as
	 * before while the old session is open; one from after closes it and is unwound by a
	 * new session (a miss: the cache is of the old one); one from before that comes later
	 * still has no session for the old mappings: not unwound */
	wc_unwind_forget(u, pid, 5);
	mend(snap.size, chain, 3, false, out[1], &n[1]);
	wc_unwind_stats(u, &st);
	cr_assert_eq(st.hits, 2, "before the change: from the cache");
	now_ns = 6;
	cr_assert_neq(mend(snap.size, chain, 3, false, out[1], &n[1]), WC_UNWIND_FAILED,
		      "after the change: unwound by a new session");
	wc_unwind_stats(u, &st);
	cr_assert_eq(st.hits, 2, "... not from the old one's cache");
	now_ns = 4;
	cr_assert_eq(mend(snap.size, chain, 3, false, out[1], &n[1]), WC_UNWIND_FAILED,
		     "a late sample from before the change: not unwound with the new session");
	wc_unwind_end_round(u);
	now_ns = 7;
	mend(snap.size, chain, 3, false, out[1], &n[1]);
	wc_unwind_stats(u, &st);
	cr_assert_eq(st.hits, 3, "the new session's results are cached");
}

Test(unwind, a_result_cut_short_by_a_small_copy_is_not_given_for_a_larger_one)
{
	uint64_t chain[] = { PERF_CONTEXT_USER, snap.regs[2], 0x1234 };
	uint64_t out[3 + WC_UNWIND_MAX_FRAMES + 2];
	uint32_t n = 0;

	cr_assert_eq(mend(ret0_offset() + 8, chain, 3, false, out, &n), WC_UNWIND_TRUNCATED);
	cr_assert_eq(n, 4);
	mend(snap.size, chain, 3, false, out, &n);
	cr_assert_gt(n, 4, "the larger copy goes further: %u entries", n);
	cr_assert_eq(out[3], snap.ret[1]);
}

Test(unwind, no_user_part_or_another_ip_is_left_alone)
{
	uint64_t kern[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000000ull };
	uint64_t other[] = { PERF_CONTEXT_USER, snap.regs[2] + 1, 0x1234 };
	uint64_t out[3 + WC_UNWIND_MAX_FRAMES + 1];
	uint32_t n = 0;

	cr_assert_eq(mend(snap.size, kern, 2, false, out, &n), WC_UNWIND_NONE);
	cr_assert_eq(n, 2);
	cr_assert_arr_eq(out, kern, sizeof(kern));
	cr_assert_eq(mend(snap.size, other, 3, false, out, &n), WC_UNWIND_NONE,
		     "the chain's ip is not the registers' ip");
	cr_assert_arr_eq(out, other, sizeof(other));
}

Test(callchain, a_truncated_marker_is_the_outermost_user_frame)
{
	uint64_t ips[] = { PERF_CONTEXT_KERNEL,	 1, 2, PERF_CONTEXT_USER, 10, 11,
			   WC_CONTEXT_TRUNCATED, 12 };
	struct wc_callchain cc;

	wc_callchain_split(ips, 8, &cc);
	cr_assert_eq(cc.nkernel, 2);
	cr_assert_eq(cc.nuser, 3);
	cr_assert_eq(cc.user[0], 10);
	cr_assert_eq(cc.user[2], WC_CONTEXT_TRUNCATED);
}

Test(unwind, a_busy_drain_answers_from_the_cache_only)
{
	uint64_t chain[] = { PERF_CONTEXT_USER, snap.regs[2], 0x1234 };
	uint64_t out[3 + WC_UNWIND_MAX_FRAMES + 2];
	uint32_t n = 0;
	enum wc_unwind_result r, busy;

	wc_unwind_set_busy(u, true);
	r = mend(snap.size, chain, 3, false, out, &n);
	cr_assert_eq(r, WC_UNWIND_SKIPPED, "result %d", r);
	cr_assert_eq(n, 3);
	cr_assert_arr_eq(out, chain, sizeof(chain), "the kernel's chain kept");
	r = mend(snap.size, chain, 3, true, out, &n);
	cr_assert_eq(r, WC_UNWIND_SKIPPED, "-g dwarf: result %d", r);
	uint64_t cut[] = { PERF_CONTEXT_USER, snap.regs[2], WC_CONTEXT_UNWIND_FAILED };
	cr_assert_eq(n, 3);
	cr_assert_arr_eq(out, cut, sizeof(cut), "-g dwarf: the ip, then [unwind failed]");

	wc_unwind_set_busy(u, false);
	r = mend(snap.size, chain, 3, false, out, &n);
	cr_assert_neq(r, WC_UNWIND_SKIPPED);
	wc_unwind_set_busy(u, true);
	busy = mend(snap.size, chain, 3, false, out, &n);
	cr_assert_eq(busy, r, "in the cache: answered while busy");
}

Test(unwind, dwarf_makes_the_user_part)
{
	uint64_t chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000000ull };
	uint64_t out[2 + WC_UNWIND_MAX_FRAMES + 2];
	uint32_t n = 0;
	enum wc_unwind_result r;

	r = mend(snap.size, chain, 2, true, out, &n);
	cr_assert(r == WC_UNWIND_COMPLETE || r == WC_UNWIND_TRUNCATED, "result %d", r);
	cr_assert_eq(out[1], 0xffffffff81000000ull, "the kernel part kept");
	cr_assert_eq(out[2], PERF_CONTEXT_USER);
	cr_assert_eq(out[3], snap.regs[2]);
	cr_assert_eq(out[4], snap.ret[0]);
	cr_assert_eq(out[5], snap.ret[1]);
	cr_assert_eq(out[n - 1] == WC_CONTEXT_TRUNCATED, r == WC_UNWIND_TRUNCATED);
}

Test(unwind, code_outside_any_file_fails_and_is_marked_so_not_truncated)
{
	/* an ip in memory no file maps (as JIT code): no CFI, though the copy is whole; and %rbp 0,
	 * so that libdwfl's fallback (x86_64's frame-pointer unwinder) has nothing to walk either:
	 * with the snapshot's %rbp it goes on from middle()'s frame, and the stack is complete */
	static uint8_t jit[64];
	uint64_t ip = (uint64_t)(uintptr_t)jit;
	uint64_t chain[] = { PERF_CONTEXT_USER, ip, 0x1234 };
	uint64_t out[3 + WC_UNWIND_MAX_FRAMES + 2];
	struct wc_unwind_sample smp = { (uint32_t)getpid(),	 (uint32_t)gettid(), now_ns,
					{ 0, snap.regs[1], ip }, snap.stack,	     snap.size };
	uint32_t n = 0;
	enum wc_unwind_result r;

	r = wc_unwind_mend(u, &smp, chain, 3, true, out, &n);
	cr_assert_eq(r, WC_UNWIND_FAILED, "-g dwarf: result %d", r);
	uint64_t failed[] = { PERF_CONTEXT_USER, ip, WC_CONTEXT_UNWIND_FAILED };
	cr_assert_eq(n, 3, "%u entries", n);
	cr_assert_arr_eq(out, failed, sizeof(failed), "-g dwarf: the ip, then [unwind failed]");
	r = wc_unwind_mend(u, &smp, chain, 3, false, out, &n);
	cr_assert_eq(r, WC_UNWIND_FAILED, "-g fp: result %d", r);
	cr_assert_eq(n, 3);
	cr_assert_arr_eq(out, chain, sizeof(chain), "-g fp: the kernel's chain kept");
}

Test(callchain, how_complete_a_user_part_is)
{
	uint64_t whole[] = { PERF_CONTEXT_KERNEL, 1, PERF_CONTEXT_USER, 10, 11 };
	uint64_t cut[] = { PERF_CONTEXT_USER, 10, WC_CONTEXT_TRUNCATED };
	uint64_t failed[] = { PERF_CONTEXT_KERNEL,	1, PERF_CONTEXT_USER, 10,
			      WC_CONTEXT_UNWIND_FAILED, 12 };
	uint64_t kernel[] = { PERF_CONTEXT_KERNEL, 1, 2 };
	struct wc_callchain cc;

	cr_assert_eq(wc_callchain_user_kind(whole, 5), WC_USER_WHOLE);
	cr_assert_eq(wc_callchain_user_kind(cut, 3), WC_USER_TRUNCATED);
	cr_assert_eq(wc_callchain_user_kind(failed, 6), WC_USER_FAILED);
	cr_assert_eq(wc_callchain_user_kind(kernel, 3), WC_USER_NONE);
	wc_callchain_split(failed, 6, &cc);
	cr_assert_eq(cc.nuser, 2, "the marker kept as the outermost frame, what follows left out");
	cr_assert_eq(cc.user[1], WC_CONTEXT_UNWIND_FAILED);
}
