/* SPDX-License-Identifier: GPL-2.0-or-later */
/* threads-print.c - `wcanalyze threads` as a table or as JSON (man/wcanalyze-threads.1). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/output/json.h"
#include "analyzer/reports/threads-priv.h"

/* @ns in @u: integer us or ns, ms with three decimals (rounded to the us). */
static void fmt_time(char *buf, size_t len, uint64_t ns, enum wc_unit u)
{
	uint64_t us = (ns + 500) / 1000;

	if (u == WC_UNIT_NS)
		snprintf(buf, len, "%" PRIu64, ns);
	else if (u == WC_UNIT_US)
		snprintf(buf, len, "%" PRIu64, us);
	else
		snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, us / 1000, us % 1000);
}

static const char *first_seen_name(char k)
{
	switch (k) {
	case 'i':
		return "switch-in";
	case 'o':
		return "switch-out";
	case 's':
		return "sample";
	case 'n':
		return "wakeup_new";
	case 'p':
		return "proc";
	default:
		return "none";
	}
}

enum { NCOLS = 16, CELL = 32 };

static const char *const heads[NCOLS] = {
	"TID",	   "PID",   "COMM",	 "LIFETIME",  "ON-CPU",	 "SAMPLED", "OFF-CPU", "SLEEP-S",
	"BLOCK-D", "OTHER", "PREEMPT-R", "RUNQ-WAKE", "UNKNOWN", "VOL",	    "INVOL",   "COVER",
};

static void row_cells(const struct wc_threads_row *r, enum wc_unit u, char cell[NCOLS][CELL])
{
	const uint64_t t[] = { r->lifetime_ns, r->on_ns,	r->sampled_ns,
			       r->off_ns,      r->sleep_ns,	r->uninterruptible_ns,
			       r->other_ns,    r->preempted_ns, r->runqueue_ns,
			       r->unknown_ns };

	snprintf(cell[0], CELL, "%u", r->tid);
	snprintf(cell[1], CELL, "%u", r->pid);
	snprintf(cell[2], CELL, "%s", r->comm[0] ? r->comm : "[unknown]");
	for (int i = 0; i < 10; i++)
		fmt_time(cell[3 + i], CELL, t[i], u);
	snprintf(cell[13], CELL, "%" PRIu64, r->voluntary);
	snprintf(cell[14], CELL, "%" PRIu64, r->involuntary);
	if (r->coverage < 0)
		snprintf(cell[15], CELL, "-");
	else
		snprintf(cell[15], CELL, "%.1f%%%s", r->coverage, r->flagged ? "!" : "");
}

static void print_cells(FILE *out, char cell[NCOLS][CELL], const int *w)
{
	for (int i = 0; i < NCOLS; i++)
		fprintf(out, i == 2 ? "  %-*s" : i ? "  %*s" : "%*s", w[i], cell[i]);
	fputc('\n', out);
}

/* Why a flagged row's coverage is what it is, on one line. */
static void print_reasons(FILE *out, const struct wc_threads_row *r, const struct wc_analysis *a,
			  enum wc_unit u)
{
	const struct wc_replay_stats *st = wc_replay_stats(wc_analysis_replay(a));
	const char *sep = "";
	char v[CELL];

	fprintf(out, "  ! coverage %.1f%%:", r->coverage);
	if (r->coverage > WC_THREADS_COVERAGE_HIGH) {
		fprintf(out, " counted time exceeds the lifetime (events out of order)");
		sep = ";";
	}
	for (int g = 0; g < WC_GAP_COUNT; g++) {
		if (!r->gap_ns[g])
			continue;
		fmt_time(v, sizeof(v), r->gap_ns[g], u);
		fprintf(out, "%s %s %s %s", sep, wc_threads_gap_name(g), v, wc_unit_name(u));
		sep = ";";
		if (g == WC_GAP_START && !r->runs && !r->intervals)
			fprintf(out, " (no complete run or off-CPU interval)");
		else if (g == WC_GAP_START)
			fprintf(out, " (first seen by a %s)", first_seen_name(r->first_seen));
		else if (g == WC_GAP_SWITCHES)
			fprintf(out,
				" (%" PRIu64 " switch-ins not traced, %" PRIu64
				" of them inferred; %" PRIu64 " switch-outs not traced)",
				r->double_out, r->inferred, r->double_in);
		else
			fprintf(out, " (%s when last seen: it exited, its last switch not traced)",
				r->on_cpu_at_end ? "on-CPU" : "off-CPU");
	}
	if (st->lost_records || st->lost_samples)
		fprintf(out, "%s %" PRIu64 " events and %" PRIu64 " samples lost in recording", sep,
			st->lost_records, st->lost_samples);
	fputc('\n', out);
}

static void print_header(FILE *out, struct wc_threads *T, const struct wc_analysis *a)
{
	const struct wc_replay_stats *st = wc_replay_stats(wc_analysis_replay(a));
	const struct wc_sched_counts *c = &wc_analysis_sched(a)->counts;
	const struct wc_analysis_facts *fa = wc_analysis_facts(a);
	uint64_t end = wc_analysis_end_ns(a);
	double dur = fa->start_ns && end > fa->start_ns ? (double)(end - fa->start_ns) / 1e9 : 0;

	fprintf(out, "# %s: %zu threads shown of %" PRIu64 " seen, %.6f s recorded",
		wc_analysis_path(a), T->nrows, T->seen_threads, dur);
	if (T->o.filter.have_time)
		fprintf(out, ", window %.6f-%.6f s", (double)(T->win.t0 - fa->start_ns) / 1e9,
			T->win.t1 == UINT64_MAX ? dur : (double)(T->win.t1 - fa->start_ns) / 1e9);
	fprintf(out, "; times in %s\n", wc_unit_name(T->o.unit));
	if (st->state == WC_READER_TRUNCATED)
		fprintf(out, "# TRUNCATED at byte %" PRIu64 ": analysed up to the cut\n",
			st->error_offset);
	if (!fa->have_switch)
		fprintf(out, "# no sched_switch in the trace (wcrec --no-sched): on-CPU time from "
			     "samples only, no off-CPU time, no coverage\n");
	fprintf(out, "# OFF-CPU = SLEEP-S + BLOCK-D + OTHER + PREEMPT-R + RUNQ-WAKE; run-queue "
		     "wait is PREEMPT-R (whole intervals of preempted threads) + RUNQ-WAKE (wakeup "
		     "to switch-in)\n");
	fprintf(out,
		"# LIFETIME = ON-CPU + OFF-CPU + UNKNOWN; a thread alive at the start (from "
		"/proc) or at the end lives from the start or to the end, off-CPU in the state "
		"/proc gave until its first switch-in\n");
	fprintf(out,
		"# lost in recording: %" PRIu64 " events, %" PRIu64 " samples; %" PRIu64
		" events late, %" PRIu64 " undecodable, %" PRIu64 " naming an undefined stack\n",
		st->lost_records, st->lost_samples, st->late, fa->decode_errors, st->bad_refs);
	if (fa->format_errors)
		fprintf(out, "# %" PRIu64 " tracepoint formats left out: %s\n", fa->format_errors,
			fa->format_error);
	fprintf(out,
		"# edge cases: first event a switch-in %" PRIu64 ", a switch-out %" PRIu64
		"; two switch-outs with no switch-in between %" PRIu64 " (%" PRIu64
		" inferred, %" PRIu64 " dropped); switch-ins while on a CPU %" PRIu64
		"; sleeps with no wakeup %" PRIu64 "; open at the end: %" PRIu64
		" off-CPU, %" PRIu64 " on-CPU\n",
		c->start_unknown, c->run_start_unknown, c->double_switch_out, c->inferred_switch_in,
		c->unknown_dropped, c->switch_in_running, c->no_wakeup, c->open_off_at_end,
		c->open_run_at_end);
	if (c->stat_intervals)
		fprintf(out,
			"# switch-ins not recorded: %" PRIu64 " off-CPU intervals are sched_stat "
			"sleep/blocked delays (wcanalyze(1), Reading perf.data)\n",
			c->stat_intervals);
}

static void print_stacks(FILE *out, const struct wc_threads_row *r, enum wc_unit u)
{
	char v[WC_THREADS_TOP * 2][CELL];
	int w = 0, k = 0;

	for (size_t i = 0; i < r->noff_top; i++)
		fmt_time(v[k++], CELL, r->off_top[i].value, u);
	for (size_t i = 0; i < r->non_top; i++)
		snprintf(v[k++], CELL, "%" PRIu64, r->on_top[i].value);
	for (int i = 0; i < k; i++)
		if ((int)strlen(v[i]) > w)
			w = (int)strlen(v[i]);
	k = 0;
	for (size_t i = 0; i < r->noff_top; i++)
		fprintf(out, "  off-CPU %c %*s %-7s  %s\n", r->off_top[i].state, w, v[k++],
			wc_unit_name(u), r->off_top[i].text);
	for (size_t i = 0; i < r->non_top; i++)
		fprintf(out, "  on-CPU    %*s %-7s  %s\n", w, v[k++],
			r->on_top[i].value == 1 ? "sample" : "samples", r->on_top[i].text);
}

int wc_threads_write_text(struct wc_threads *T, struct wc_analysis *a, struct wc_symbolizer *sym,
			  FILE *out)
{
	char(*cells)[NCOLS][CELL];
	int w[NCOLS], err = wc_threads_finish(T, a, sym);

	if (err)
		return err;
	cells = calloc(T->nrows + 1, sizeof(*cells));
	if (!cells)
		return -ENOMEM;
	for (int i = 0; i < NCOLS; i++) {
		snprintf(cells[0][i], CELL, "%s", heads[i]);
		w[i] = (int)strlen(heads[i]);
	}
	for (size_t r = 0; r < T->nrows; r++) {
		row_cells(&T->rows[r], T->o.unit, cells[r + 1]);
		for (int i = 0; i < NCOLS; i++)
			if ((int)strlen(cells[r + 1][i]) > w[i])
				w[i] = (int)strlen(cells[r + 1][i]);
	}
	print_header(out, T, a);
	for (size_t r = 0; r <= T->nrows; r++)
		print_cells(out, cells[r], w);
	free(cells);
	for (size_t r = 0; r < T->nrows; r++) {
		const struct wc_threads_row *row = &T->rows[r];

		if (!row->noff_top && !row->non_top && !row->flagged)
			continue;
		fprintf(out, "\n%u %s (pid %u)\n", row->tid, row->comm[0] ? row->comm : "[unknown]",
			row->pid);
		print_stacks(out, row, T->o.unit);
		if (row->flagged)
			print_reasons(out, row, a, T->o.unit);
	}
	return fflush(out) || ferror(out) ? -EIO : 0;
}

/* @s as a JSON string (json.h: bytes outside UTF-8, as a comm cut at 15 bytes inside a
 * character, as U+FFFD) */
static void json_str(FILE *out, const char *s)
{
	wc_json_write_string(out, s, strlen(s));
}

/* ,"@key":@v */
static void jnum(FILE *out, const char *key, uint64_t v)
{
	fprintf(out, ",\"%s\":%" PRIu64, key, v);
}

static void json_row(FILE *out, const struct wc_threads_row *r, const struct wc_analysis *a)
{
	fprintf(out, "{\"tid\":%u", r->tid);
	jnum(out, "pid", r->pid);
	fprintf(out, ",\"comm\":");
	json_str(out, r->comm);
	jnum(out, "start_ns", r->start_ns - wc_analysis_facts(a)->start_ns);
	jnum(out, "end_ns", r->end_ns - wc_analysis_facts(a)->start_ns);
	jnum(out, "lifetime_ns", r->lifetime_ns);
	fprintf(out, ",\"first_seen\":\"%s\",\"new\":%s,\"exited\":%s,\"at_start\":%s",
		first_seen_name(r->first_seen), r->is_new ? "true" : "false",
		r->exited ? "true" : "false", r->at_start ? "true" : "false");
	if (r->proc_state)
		fprintf(out, ",\"proc_state\":\"%c\"", r->proc_state);
	else
		fprintf(out, ",\"proc_state\":null");
	jnum(out, "on_cpu_ns", r->on_ns);
	jnum(out, "runs", r->runs);
	jnum(out, "samples", r->samples);
	jnum(out, "on_cpu_sampled_ns", r->sampled_ns);
	jnum(out, "off_cpu_ns", r->off_ns);
	jnum(out, "sleep_ns", r->sleep_ns);
	jnum(out, "uninterruptible_ns", r->uninterruptible_ns);
	jnum(out, "other_ns", r->other_ns);
	jnum(out, "preempted_ns", r->preempted_ns);
	jnum(out, "runqueue_ns", r->runqueue_ns);
	jnum(out, "proc_ns", r->proc_ns);
	jnum(out, "intervals", r->intervals);
	jnum(out, "switches_voluntary", r->voluntary);
	jnum(out, "switches_involuntary", r->involuntary);
	jnum(out, "unknown_ns", r->unknown_ns);
	if (r->coverage < 0)
		fprintf(out, ",\"coverage_pct\":null");
	else
		fprintf(out, ",\"coverage_pct\":%.3f", r->coverage);
	fprintf(out, ",\"flagged\":%s", r->flagged ? "true" : "false");
	fprintf(out, ",\"uncounted_ns\":{\"start_unseen\":%" PRIu64, r->gap_ns[WC_GAP_START]);
	jnum(out, "switches_lost", r->gap_ns[WC_GAP_SWITCHES]);
	jnum(out, "open_at_end", r->gap_ns[WC_GAP_END]);
	fprintf(out, "},\"untraced\":{\"double_switch_out\":%" PRIu64, r->double_out);
	jnum(out, "inferred_switch_in", r->inferred);
	jnum(out, "inferred_bound_ns", r->inferred_bound_ns);
	jnum(out, "double_switch_in", r->double_in);
	fprintf(out, "},\"top_off_cpu\":[");
	for (size_t i = 0; i < r->noff_top; i++) {
		fprintf(out, "%s{\"state\":\"%c\"", i ? "," : "", r->off_top[i].state);
		jnum(out, "ns", r->off_top[i].value);
		fprintf(out, ",\"stack\":");
		json_str(out, r->off_top[i].text);
		fputc('}', out);
	}
	fprintf(out, "],\"top_on_cpu\":[");
	for (size_t i = 0; i < r->non_top; i++) {
		fprintf(out, "%s{\"samples\":%" PRIu64 ",\"stack\":", i ? "," : "",
			r->on_top[i].value);
		json_str(out, r->on_top[i].text);
		fputc('}', out);
	}
	fprintf(out, "]}");
}

int wc_threads_write_json(struct wc_threads *T, struct wc_analysis *a, struct wc_symbolizer *sym,
			  FILE *out)
{
	const struct wc_replay_stats *st = wc_replay_stats(wc_analysis_replay(a));
	const struct wc_sched_counts *c = &wc_analysis_sched(a)->counts;
	uint64_t end = wc_analysis_end_ns(a);
	int err = wc_threads_finish(T, a, sym);
	const struct wc_analysis_facts *fa = wc_analysis_facts(a);

	if (err)
		return err;
	if (end < fa->start_ns)
		end = fa->start_ns;
	fprintf(out, "{\"file\":");
	json_str(out, wc_analysis_path(a));
	fprintf(out, ",\"truncated\":%s", st->state == WC_READER_TRUNCATED ? "true" : "false");
	jnum(out, "duration_ns", end - fa->start_ns);
	jnum(out, "clock_start_ns", fa->start_ns);
	if (T->o.filter.have_time)
		fprintf(out, ",\"window_ns\":[%" PRIu64 ",%" PRIu64 "]", T->win.t0 - fa->start_ns,
			(T->win.t1 == UINT64_MAX ? end : T->win.t1) - fa->start_ns);
	jnum(out, "threads_seen", T->seen_threads);
	fprintf(out, ",\"lost\":{\"events\":%" PRIu64, st->lost_records);
	jnum(out, "samples", st->lost_samples);
	fprintf(out, "},\"edge_cases\":{\"late\":%" PRIu64, st->late);
	jnum(out, "undecodable", fa->decode_errors);
	jnum(out, "undefined_refs", st->bad_refs);
	jnum(out, "start_unknown", c->start_unknown);
	jnum(out, "run_start_unknown", c->run_start_unknown);
	if (c->carried) /* a rotated recording's files after the first */
		jnum(out, "carried", c->carried);
	jnum(out, "double_switch_out", c->double_switch_out);
	jnum(out, "inferred_switch_in", c->inferred_switch_in);
	jnum(out, "unknown_dropped", c->unknown_dropped);
	jnum(out, "switch_in_running", c->switch_in_running);
	jnum(out, "switch_in_records", c->switch_in_records);
	if (c->stat_intervals) /* a perf.data of the sched_stat recipe only */
		jnum(out, "stat_intervals", c->stat_intervals);
	jnum(out, "wakeup_running", c->wakeup_running);
	jnum(out, "wakeup_runnable", c->wakeup_runnable);
	jnum(out, "wakeup_repeated", c->wakeup_repeated);
	jnum(out, "wakeup_unknown", c->wakeup_unknown);
	jnum(out, "no_wakeup", c->no_wakeup);
	jnum(out, "open_off_at_end", c->open_off_at_end);
	jnum(out, "open_run_at_end", c->open_run_at_end);
	jnum(out, "bad_cpu", c->bad_cpu);
	fprintf(out, "},\"threads\":[");
	for (size_t r = 0; r < T->nrows; r++) {
		fputs(r ? ",\n" : "\n", out);
		json_row(out, &T->rows[r], a);
	}
	fprintf(out, "\n]}\n");
	return fflush(out) || ferror(out) ? -EIO : 0;
}
