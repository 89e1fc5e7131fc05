/* SPDX-License-Identifier: GPL-2.0-or-later */
/* threads-util.c - see threads-util.h. */
#include <criterion/criterion.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdlib.h>

#include "threads-util.h"

struct st_trace tt_tr;
struct wc_analysis *tt_an;
uint32_t tt_k_sleep, tt_k_io, tt_k_preempt, tt_s_spin, tt_s_spin2, tt_s_work;

static struct wc_symbolizer *sym;
static struct wc_threads *th;
static bool opened;

/* The kernel functions of the stacks below, as /proc/kallsyms lists them. */
static const char kallsyms[] = "ffffffff81000000 T __schedule\n"
			       "ffffffff81000100 T schedule\n"
			       "ffffffff81000200 T do_nanosleep\n"
			       "ffffffff81000300 T io_schedule\n"
			       "ffffffff81000400 T preempt_schedule_irq\n"
			       "ffffffff81000500 T spin_loop\n"
			       "ffffffff81000600 T do_work\n"
			       "ffffffff81000700 T entry_SYSCALL_64\n"
			       "ffffffff81000800 D some_data\n";

#define F(off) (0xffffffff81000000ull + (off))

/* switch-out and sample stacks, leaf first, with their texts root first (threads-util.h) */
void tt_make_stacks(void)
{
	const uint64_t sleep[] = { PERF_CONTEXT_KERNEL, F(0x8), F(0x108), F(0x208), F(0x708) };
	const uint64_t io[] = { PERF_CONTEXT_KERNEL, F(0x8), F(0x308), F(0x708) };
	const uint64_t preempt[] = { PERF_CONTEXT_KERNEL, F(0x8), F(0x408), F(0x510) };
	const uint64_t spin[] = { PERF_CONTEXT_KERNEL, F(0x510), F(0x610) };
	const uint64_t spin2[] = { PERF_CONTEXT_KERNEL, F(0x520), F(0x610) }; /* same text */
	const uint64_t work[] = { PERF_CONTEXT_KERNEL, F(0x630) };

	tt_k_sleep = st_stack(&tt_tr, sleep, 5);
	tt_k_io = st_stack(&tt_tr, io, 4);
	tt_k_preempt = st_stack(&tt_tr, preempt, 4);
	tt_s_spin = st_stack(&tt_tr, spin, 3);
	tt_s_spin2 = st_stack(&tt_tr, spin2, 3);
	tt_s_work = st_stack(&tt_tr, work, 2);
}

void tt_init(void)
{
	opened = false;
	sym = NULL;
	th = NULL;
	if (st_begin(&tt_tr)) {
		st_remove(&tt_tr);
		cr_assert_fail("cannot write the metadata: no testdata/formats/linux-6.18 under "
			       "srcdir=%s?",
			       getenv("srcdir") ? getenv("srcdir") : ".");
	}
	tt_make_stacks();
}

void tt_fini(void)
{
	wc_threads_free(th);
	wc_symbolizer_free(sym);
	if (opened)
		wc_analysis_close(tt_an);
	st_remove(&tt_tr);
}

const struct wc_threads_row *tt_report_file(const char *path, const struct wc_threads_opts *o,
					    size_t *n)
{
	char oerr[256]; /* why wc_analysis_open() failed */
	th = wc_threads_new(o);
	cr_assert_not_null(th);
	tt_an = wc_analysis_open(path, oerr, sizeof(oerr));
	cr_assert_not_null(tt_an, "%s", oerr);
	opened = true;
	cr_assert_eq(wc_analysis_run(tt_an, wc_threads_consumer(th)), 0, "%s",
		     wc_analysis_error(tt_an));
	cr_assert_eq(wc_analysis_facts(tt_an)->decode_errors, 0);
	sym = wc_symbolizer_new(wc_analysis_tasks(tt_an), kallsyms, sizeof(kallsyms) - 1, NULL,
				NULL);
	cr_assert_not_null(sym);
	cr_assert_eq(wc_threads_finish(th, tt_an, sym), 0);
	return wc_threads_rows(th, n);
}

void tt_reset(void)
{
	wc_threads_free(th);
	wc_symbolizer_free(sym);
	if (opened)
		wc_analysis_close(tt_an);
	th = NULL;
	sym = NULL;
	opened = false;
}

const struct wc_threads_row *tt_report(uint64_t end_us, const struct wc_threads_opts *o, size_t *n)
{
	cr_assert_eq(st_end(&tt_tr, true, end_us * US), 0);
	return tt_report_file(tt_tr.path, o, n);
}

char *tt_output(int (*write)(struct wc_threads *, struct wc_analysis *, struct wc_symbolizer *,
			     FILE *))
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	cr_assert_eq(write(th, tt_an, sym, f), 0);
	fclose(f);
	return text;
}

void tt_expect_times(const struct wc_threads_row *r, uint64_t life, uint64_t on, uint64_t off,
		     uint64_t s, uint64_t d, uint64_t other, uint64_t pre, uint64_t runq)
{
	cr_expect_eq(r->lifetime_ns, life * US, "%u lifetime %lu", r->tid,
		     (unsigned long)r->lifetime_ns);
	cr_expect_eq(r->on_ns, on * US, "%u on %lu", r->tid, (unsigned long)r->on_ns);
	cr_expect_eq(r->off_ns, off * US, "%u off %lu", r->tid, (unsigned long)r->off_ns);
	cr_expect_eq(r->sleep_ns, s * US, "%u S %lu", r->tid, (unsigned long)r->sleep_ns);
	cr_expect_eq(r->uninterruptible_ns, d * US, "%u D %lu", r->tid,
		     (unsigned long)r->uninterruptible_ns);
	cr_expect_eq(r->other_ns, other * US, "%u other %lu", r->tid, (unsigned long)r->other_ns);
	cr_expect_eq(r->preempted_ns, pre * US, "%u R %lu", r->tid, (unsigned long)r->preempted_ns);
	cr_expect_eq(r->runqueue_ns, runq * US, "%u runq %lu", r->tid,
		     (unsigned long)r->runqueue_ns);
	/* the columns sum to the off-CPU total, by construction of the split */
	cr_expect_eq(r->sleep_ns + r->uninterruptible_ns + r->other_ns + r->preempted_ns +
			     r->runqueue_ns,
		     r->off_ns);
}

void tt_expect_gaps(const struct wc_threads_row *r, uint64_t start, uint64_t switches, uint64_t end)
{
	cr_expect_eq(r->gap_ns[WC_GAP_START], start * US, "%u start gap %lu", r->tid,
		     (unsigned long)r->gap_ns[WC_GAP_START]);
	cr_expect_eq(r->gap_ns[WC_GAP_SWITCHES], switches * US, "%u switches gap %lu", r->tid,
		     (unsigned long)r->gap_ns[WC_GAP_SWITCHES]);
	cr_expect_eq(r->gap_ns[WC_GAP_END], end * US, "%u end gap %lu", r->tid,
		     (unsigned long)r->gap_ns[WC_GAP_END]);
	/* counted + uncounted = lifetime */
	cr_expect_eq(r->on_ns + r->off_ns + r->gap_ns[0] + r->gap_ns[1] + r->gap_ns[2],
		     r->lifetime_ns, "%u: counted and uncounted do not make the lifetime", r->tid);
}
