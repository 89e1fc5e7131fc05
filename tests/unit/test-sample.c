/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-sample.c - PERF_RECORD_SAMPLE parsing (recorder/sample.h): records built here by hand in
 * the layout of include/uapi/linux/perf_event.h, the bad ones as a broken ring would give them.
 */
#include <criterion/criterion.h>
#include <linux/perf_event.h>
#include <string.h>

#include "recorder/sample.h"

#define TYPE                                                                                       \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |           \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |                      \
	 PERF_SAMPLE_STACK_USER)

/* A sample record in @buf: 2 ips, ABI @abi with bp, sp, ip, a copy of @size bytes of which
 * @dyn are used.  Return: its header. */
static struct perf_event_header *build(uint64_t *buf, uint64_t abi, uint64_t size, uint64_t dyn)
{
	struct perf_event_header *h = (void *)buf;
	uint64_t *p = buf + 1;

	*p++ = 77;		 /* identifier */
	*p++ = 10ull << 32 | 10; /* pid, tid */
	*p++ = 123456789;	 /* time */
	*p++ = 1;		 /* cpu, res */
	*p++ = 1;		 /* period */
	*p++ = 2;		 /* nr */
	*p++ = PERF_CONTEXT_USER;
	*p++ = 0x401000;
	*p++ = abi;
	if (abi) {
		*p++ = 0x7ffd0100; /* bp */
		*p++ = 0x7ffd0000; /* sp */
		*p++ = 0x401000;   /* ip */
	}
	*p++ = size;
	memset(p, 0xab, size);
	p += size / 8;
	if (size)
		*p++ = dyn;
	*h = (struct perf_event_header){ PERF_RECORD_SAMPLE, 0,
					 (uint16_t)((uint8_t *)p - (uint8_t *)buf) };
	return h;
}

static uint64_t buf[512];

Test(sample, a_sound_record_gives_every_field)
{
	struct perf_event_header *h = build(buf, PERF_SAMPLE_REGS_ABI_64, 64, 48);
	struct wc_sample_view s;

	cr_assert(wc_sample_parse(h, TYPE, &s));
	cr_assert_eq(s.identifier, 77);
	cr_assert_eq(s.tid, 10);
	cr_assert_eq(s.time, 123456789);
	cr_assert_eq(s.nr, 2);
	cr_assert_eq(s.ips[1], 0x401000);
	cr_assert_eq(s.regs_abi, PERF_SAMPLE_REGS_ABI_64);
	cr_assert_eq(s.regs[1], 0x7ffd0000);
	cr_assert_eq(s.stack_size, 48, "dyn_size, not size");
	cr_assert_eq(s.stack[0], 0xab);
	cr_assert_not(s.bad_copy);
}

Test(sample, a_copy_whose_dyn_size_exceeds_its_size_is_left_out_and_the_event_kept)
{
	struct perf_event_header *h = build(buf, PERF_SAMPLE_REGS_ABI_64, 64, 4096);
	struct wc_sample_view s;

	cr_assert(wc_sample_parse(h, TYPE, &s));
	cr_assert(s.bad_copy);
	cr_assert_eq(s.stack_size, 0);
	cr_assert_null(s.stack);
	cr_assert_eq(s.nr, 2, "the callchain kept");
	cr_assert_eq(s.time, 123456789);
}

Test(sample, a_copy_shorter_than_its_header_says_is_left_out_and_the_event_kept)
{
	struct perf_event_header *h = build(buf, PERF_SAMPLE_REGS_ABI_64, 256, 256);
	struct wc_sample_view s;

	/* the record ends 100 bytes into the copy, its size saying 256 */
	h->size = (uint16_t)(h->size - 8 - 256 + 100);
	cr_assert(wc_sample_parse(h, TYPE, &s));
	cr_assert(s.bad_copy);
	cr_assert_eq(s.stack_size, 0);
	cr_assert_eq(s.regs_abi, PERF_SAMPLE_REGS_ABI_64, "the registers before it kept");
	cr_assert_eq(s.nr, 2);
}

Test(sample, registers_cut_off_leave_no_abi)
{
	struct perf_event_header *h = build(buf, PERF_SAMPLE_REGS_ABI_64, 0, 0);
	struct wc_sample_view s;

	h->size = (uint16_t)(8 + 40 + 24 + 8 + 8); /* header, base, callchain, abi, one register */
	cr_assert(wc_sample_parse(h, TYPE, &s));
	cr_assert_eq(s.regs_abi, PERF_SAMPLE_REGS_ABI_NONE);
	cr_assert(s.bad_copy);
	cr_assert_eq(s.nr, 2);
}

Test(sample, a_32_bit_task_gives_its_abi)
{
	struct perf_event_header *h = build(buf, PERF_SAMPLE_REGS_ABI_32, 64, 64);
	struct wc_sample_view s;

	cr_assert(wc_sample_parse(h, TYPE, &s));
	cr_assert_eq(s.regs_abi, PERF_SAMPLE_REGS_ABI_32, "told apart, for the drain to refuse");
	cr_assert_eq(s.stack_size, 64);
}

Test(sample, a_kernel_thread_has_no_registers_and_no_copy)
{
	struct perf_event_header *h = build(buf, PERF_SAMPLE_REGS_ABI_NONE, 0, 0);
	struct wc_sample_view s;

	cr_assert(wc_sample_parse(h, TYPE, &s));
	cr_assert_eq(s.regs_abi, PERF_SAMPLE_REGS_ABI_NONE);
	cr_assert_eq(s.stack_size, 0);
	cr_assert_not(s.bad_copy);
}

Test(sample, a_callchain_that_overruns_the_record_is_refused)
{
	struct perf_event_header *h = build(buf, PERF_SAMPLE_REGS_ABI_64, 0, 0);
	struct wc_sample_view s;

	buf[6] = 1000; /* nr */
	cr_assert_not(wc_sample_parse(h, TYPE, &s));
	h->size = 30;
	cr_assert_not(wc_sample_parse(h, TYPE, &s), "shorter than the base fields");
}
