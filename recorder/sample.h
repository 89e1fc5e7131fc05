/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sample.h - the fields of a PERF_RECORD_SAMPLE as wcrec asks for them, parsed from the ring.
 *
 * The layout (include/uapi/linux/perf_event.h, "struct { ... } && PERF_RECORD_SAMPLE"):
 * identifier, pid/tid, time, cpu/res, period (BASE_SAMPLE_TYPE), then as asked: callchain
 * (nr, ips[nr]), raw (size, data), regs_user (abi, regs[weight(mask)] unless abi is NONE),
 * stack_user (size, data[size], dyn_size unless size is 0).
 */
#ifndef WC_RECORDER_SAMPLE_H
#define WC_RECORDER_SAMPLE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

struct wc_sample_view {
	uint64_t identifier;
	uint32_t pid, tid;
	uint64_t time; /* ns, the event's clock */
	uint32_t cpu;
	uint64_t period;
	uint64_t nr;	     /* callchain entries, markers included */
	const uint64_t *ips; /* borrowed from the record (8-aligned) */
	uint32_t raw_size;   /* bytes */
	const uint8_t *raw;
	uint64_t regs_abi;    /* PERF_SAMPLE_REGS_ABI_*; NONE for a kernel thread */
	uint64_t regs[3];     /* WC_UNWIND_REGS_MASK (recorder/unwind.h): bp, sp, ip */
	uint64_t stack_size;  /* bytes of user stack copied (dyn_size); 0: none usable */
	const uint8_t *stack; /* the copy, borrowed from the record */
	bool bad_copy;	      /* the stack copy overran the record, or its dyn_size its size:
			       * left out (stack_size 0), the rest of the sample kept */
};

/**
 * wc_sample_parse() - parse a sample record of @sample_type into @s
 * @h:           the record, h->size bytes, 8-aligned (copied out of the ring if it wrapped)
 * @sample_type: the attr's sample_type: BASE_SAMPLE_TYPE and any of PERF_SAMPLE_CALLCHAIN, RAW,
 *               REGS_USER (with 3 registers: WC_UNWIND_REGS_MASK), STACK_USER
 *
 * A record shorter than its fields up to the callchain and raw data is refused.  The user
 * registers and stack copy come last: where they overrun the record, or the copy's dyn_size
 * exceeds its size, they are left out (abi NONE, stack_size 0; bad_copy set for the copy) and
 * the rest is kept, so that the event is not lost for a bad stack.
 *
 * Return: true, or false when the record cannot be used at all.
 */
bool wc_sample_parse(const struct perf_event_header *h, uint64_t sample_type,
		     struct wc_sample_view *s);

#endif /* WC_RECORDER_SAMPLE_H */
