/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timehist-summary.c - the end of `wcanalyze timehist`: the summary of -s and -S, as perf
 * 6.1's timehist_print_summary() lays it out (print_thread_runtime, print_thread_waittime,
 * the idle stats, timehist_print_idlehist_callchain), from the statistics timehist.c gathered
 * during the replay; then the footer line of lost events and edge cases.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/reports/timehist-priv.h"

/* sqrt by Newton's method: the analyzer does not link libm for one summary column */
static double root(double x)
{
	double r = x > 1 ? x : 1;

	if (x <= 0)
		return 0;
	for (int i = 0; i < 200; i++) {
		double n = (r + x / r) / 2;

		if (n == r)
			break;
		r = n;
	}
	return r;
}

/* perf's rel_stddev_stats(stddev_stats()): the standard error of the mean, in % of it */
static double rel_stddev(const struct tstat *s)
{
	if (s->n < 2 || s->mean <= 0)
		return 0;
	return 100 * root(s->m2 / (double)(s->n - 1) / (double)s->n) / s->mean;
}

/* --- the summary ----------------------------------------------------------------------- */

static int cmp_thread(const void *x, const void *y, void *ctx)
{
	const struct wc_thread *t = ctx;
	const struct wc_thread *a = &t[*(const uint32_t *)x], *b = &t[*(const uint32_t *)y];

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

static int cmp_hit(const void *x, const void *y)
{
	const struct chain_hit *a = x, *b = y;

	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if (a->hit_ns != b->hit_ns)
		return a->hit_ns > b->hit_ns ? -1 : 1;
	return a->chain < b->chain ? -1 : 1;
}

/* One task's line of the summary, as perf's print_thread_runtime / print_thread_waittime. */
static void task_line(struct wc_timehist *th, const struct wc_thread *t, const struct trt *r)
{
	const struct tstat *s = &r->run;
	char cs[COMM_STR], a[32], b[32], c[32], d[32], e[32], parent[16] = "-", migr[24] = "-";

	/* perf's thread__ppid(): the FORK record's parent process (perf synthesizes one for
	 * a process there at the start, from /proc, and so does the trace since 1.4); for a
	 * thread there before, its process when it is not the process leader */
	if (t->ppid_known)
		snprintf(parent, sizeof(parent), "%" PRIu32, t->ppid);
	else if (t->pid && t->pid != t->tid)
		snprintf(parent, sizeof(parent), "%" PRIu32, t->pid);
	if (wc_analysis_facts(th->a)->have_migrate)
		snprintf(migr, sizeof(migr), "%" PRIu64, r->migrations);
	th_outf(th, "%*s   %5s  %9" PRIu64 " %s", th->comm_width, th_thread_str(th, cs, t), parent,
		s->n + r->unknown_runs, th_msf(a, s->total, 8));
	if (th->o.state && !th->o.idle_hist)
		th_outf(th, "%s %s %s %s\n", th_msf(b, r->sleep_ns, 6), th_msf(c, r->iowait_ns, 6),
			th_msf(d, r->preempt_ns, 6), th_msf(e, r->delay_ns, 6));
	else
		th_outf(th, "%s %s %s  %5.2f   %5s\n", th_msf(b, s->min, 6),
			th_msf(c, (uint64_t)s->mean, 6), th_msf(d, s->max, 6), rel_stddev(s), migr);
}

/* One CPU's line of the idle stats: perf's, or why there is no idle time to show. */
static void idle_line(struct wc_timehist *th, uint32_t cpu, uint64_t hist)
{
	const struct tcpu *c = &th->cpus[cpu];
	char a[32];

	if (wc_analysis_facts(th->a)->per_task) {
		th_outf(th,
			"    CPU %2" PRIu32 " idle time unknown: a per-task recording has only its "
			"target's switches\n",
			cpu);
	} else if (c->idle.n || (c->seen && !c->idle_cut)) {
		th_outf(th, "    CPU %2" PRIu32 " idle for %s msec  (%6.2f%%)", cpu,
			th_msf(a, c->idle.total, 6),
			hist ? 100.0 * (double)c->idle.total / (double)hist : 0.0);
		if (c->idle_cut)
			th_outf(th, ", and %" PRIu64 " idle periods not closed", c->idle_cut);
		th_outf(th, "\n");
	} else if (c->idle_cut) {
		th_outf(th,
			"    CPU %2" PRIu32 " idle time unknown: %" PRIu64
			" idle periods not closed "
			"(switch-out not traced)\n",
			cpu, c->idle_cut);
	} else {
		th_outf(th, "    CPU %2" PRIu32 " no context switch in the window\n", cpu);
	}
}

/* -I with callchains: the idle time of each CPU by the chain that left it idle. */
static void idle_chains(struct wc_timehist *th)
{
	size_t h = 0;
	char a[32];

	if (th->nhits) /* none: hits is NULL, which qsort() may not be given */
		qsort(th->hits, th->nhits, sizeof(*th->hits), cmp_hit);
	th_outf(th, "\nIdle stats by callchain:\n");
	for (uint32_t cpu = 0; cpu < th->ncpus && cpu < th->nvis; cpu++) {
		th_outf(th, "  CPU %2" PRIu32 ":%s msec\n", cpu,
			th_msf(a, th->cpus[cpu].idle.total, 6));
		th_outf(th, "  %16s  %8s  %s\n", "Idle time (msec)", "Count", "Callchains");
		th_outf(th, "  %.16s  %.8s  %.50s\n", th_dashes, th_dashes, th_dashes);
		for (; h < th->nhits && th->hits[h].cpu == cpu; h++)
			th_outf(th, "  %s %8" PRIu64 "  %s\n", th_msf(a, th->hits[h].hit_ns, 12),
				th->hits[h].count, th_chain_text(th, th->hits[h].chain));
		th_outf(th, "\n");
	}
}

int th_summary(struct wc_timehist *th)
{
	const struct wc_timehist_opts *o = &th->o;
	const struct wc_tasks *tk = wc_analysis_tasks(th->a);
	uint64_t tasks = 0, switches = 0, run_total = 0;
	uint64_t hist = th->last_ns > th->first_ns ? th->last_ns - th->first_ns : 0;
	char cs[COMM_STR], a[32], b[32];
	uint32_t *order;
	size_t n = 0;

	order = malloc((tk->nthreads + 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (size_t i = 1; i < tk->nthreads && i < th->ntrt; i++)
		if (th->trt[i].run.n || th->trt[i].unknown_runs)
			order[n++] = (uint32_t)i;
	qsort_r(order, n, sizeof(*order), cmp_thread, tk->threads);
	for (size_t i = 0; i < n; i++) /* the widths of all names first: the columns line up */
		th_thread_str(th, cs, &tk->threads[order[i]]);
	th_outf(th, "\n%s\n%*s  parent  %s  %s\n",
		o->idle_hist ? "Idle-time summary"
		: o->state   ? "Wait-time summary"
			     : "Runtime summary",
		th->comm_width, "comm", o->idle_hist ? "sched-out" : " sched-in",
		o->idle_hist ? "  idle-time   min-idle    avg-idle    max-idle  stddev  migrations"
		: o->state   ? "   run-time      sleep      iowait     preempt       delay"
			   : "   run-time    min-run     avg-run     max-run  stddev  migrations");
	th_outf(th,
		"%*s            (count)       (msec)     (msec)      (msec)      (msec)       %s\n",
		th->comm_width, "", o->state && !o->idle_hist ? "(msec)" : "%");
	th_outf(th, "%.117s\n", th_dashes);
	/* perf 6.1: the tasks still there, then those that exited (an EXIT record) apart */
	for (int exited = 0; exited < 2; exited++) {
		uint64_t before = tasks;

		if (exited)
			th_outf(th, "\nTerminated tasks:\n");
		for (size_t i = 0; i < n; i++) {
			const struct wc_thread *t = &tk->threads[order[i]];
			const struct trt *r = &th->trt[order[i]];

			if (t->exited != exited)
				continue;
			tasks++;
			switches += r->run.n + r->unknown_runs;
			run_total += r->run.total;
			task_line(th, t, r);
		}
		if (tasks == before)
			th_outf(th, "<no %s tasks>\n", exited ? "terminated" : "still running");
	}
	free(order);
	th_outf(th, "\nIdle stats:\n");
	for (uint32_t cpu = 0; cpu < th->ncpus && cpu < th->nvis; cpu++) {
		switches += th->cpus[cpu].idle.n + th->cpus[cpu].idle_unknown;
		idle_line(th, cpu, hist);
	}
	if (o->idle_hist && o->callchain)
		idle_chains(th);
	th_outf(th,
		"\n    Total number of unique tasks: %" PRIu64
		"\nTotal number of context switches: %" PRIu64
		"\n           Total run time (msec): %s\n    Total scheduling time (msec): %s"
		" (x %" PRIu32 ")\n",
		tasks, switches, th_msf(a, run_total, 2), th_msf(b, hist, 2), th->nvis);
	return th->err;
}

/* The footer: what was lost, and the edge cases that left values unknown ("-"). */
void th_footer(struct wc_timehist *th)
{
	const struct wc_analysis *a = th->a;
	const struct wc_replay_stats *st = wc_replay_stats(wc_analysis_replay(a));
	const struct wc_sched_counts *c = &wc_analysis_sched(a)->counts;
	uint64_t cut = 0;
	/* a per-task file has the target's switches alone: no CPU's idle periods */
	char idle[48] = "not recorded (a per-task recording)";

	for (uint32_t i = 0; i < th->ncpus; i++)
		cut += th->cpus[i].cut_all;
	if (!wc_analysis_facts(a)->per_task)
		snprintf(idle, sizeof(idle), "not closed: %" PRIu64, cut);
	th_outf(th,
		"\nEvents lost: %" PRIu64 ", samples lost: %" PRIu64 ", late: %" PRIu64
		", undecodable: %" PRIu64 "; runs of unknown start: %" PRIu64
		", off-CPU intervals of unknown start: %" PRIu64 ", switch-ins not traced: %" PRIu64
		" (inferred %" PRIu64 ", dropped %" PRIu64 "), idle periods %s%s\n",
		st->lost_records, st->lost_samples, st->late, wc_analysis_facts(a)->decode_errors,
		c->run_start_unknown, c->start_unknown, c->double_switch_out, c->inferred_switch_in,
		c->unknown_dropped, idle,
		wc_analysis_facts(a)->format_errors
			? "; tracepoint formats left out (see wcanalyze info)"
			: "");
}

int wc_timehist_finish(struct wc_timehist *th, struct wc_analysis *a)
{
	int err = 0;

	th->a = a;
	if (!th->cpus) /* begin() never ran: an empty trace */
		return th->err;
	if (!th->window_set)
		th_set_window(th);
	if (th->o.summary)
		err = th_summary(th);
	if (!err)
		th_footer(th);
	th_out_flush(th);
	if (!err && (th->err || fflush(th->out)))
		err = -EIO;
	return err;
}
