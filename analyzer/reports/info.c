/* SPDX-License-Identifier: GPL-2.0-or-later */
/* info.c - see info.h. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "analyzer/symbols/elfsym.h"
#include "analyzer/reports/info.h"
#include "analyzer/core/skid.h"

static const char *clock_name(int32_t id)
{
	switch (id) {
	case -1:
		return "perf's clock (no use_clockid)";
	case CLOCK_MONOTONIC:
		return "CLOCK_MONOTONIC";
	case CLOCK_MONOTONIC_RAW:
		return "CLOCK_MONOTONIC_RAW";
	case CLOCK_BOOTTIME:
		return "CLOCK_BOOTTIME";
	case CLOCK_REALTIME:
		return "CLOCK_REALTIME";
	default:
		return "another clock";
	}
}

static int acc_begin(void *ctx, struct wc_analysis *a)
{
	((struct wc_info_acc *)ctx)->a = a;
	return 0;
}

static int acc_off(void *ctx, struct wc_thread *t, const struct wc_off_interval *iv)
{
	struct wc_info_acc *acc = ctx;
	uint32_t nr = 0;
	const uint64_t *ips =
		iv->stack_id ? wc_replay_stack(wc_analysis_replay(acc->a), iv->stack_id, &nr)
			     : NULL;

	(void)t;
	acc->user_ns[ips ? wc_callchain_user_kind(ips, nr) : WC_USER_NONE] +=
		iv->end_ns - iv->start_ns;
	return 0;
}

void wc_info_consumer(struct wc_info_acc *acc, struct wc_analysis_consumer *c)
{
	*c = (struct wc_analysis_consumer){ .ctx = acc,
					    .begin = acc_begin,
					    .sink = { .off = acc_off } };
}

/* The off-CPU time by how complete its user stacks are, when there are user stacks. */
static void user_shares(const struct wc_info_acc *acc, FILE *out)
{
	uint64_t with = acc->user_ns[WC_USER_WHOLE] + acc->user_ns[WC_USER_TRUNCATED] +
			acc->user_ns[WC_USER_FAILED];

	if (!with)
		return;
	fprintf(out,
		"  off-CPU:    %.3f s under a user stack: %.1f%% %s, %.1f%% [truncated], "
		"%.1f%% [unwind failed]%s\n",
		(double)with / 1e9, 100.0 * (double)acc->user_ns[WC_USER_WHOLE] / (double)with,
		wc_analysis_dwarf_stacks(acc->a) ? "complete" : "by frame pointers, mended",
		100.0 * (double)acc->user_ns[WC_USER_TRUNCATED] / (double)with,
		100.0 * (double)acc->user_ns[WC_USER_FAILED] / (double)with,
		wc_analysis_tasks(acc->a)->ntarget_pids && acc->user_ns[WC_USER_FAILED]
			? " (also the processes outside the target: not unwound)"
			: "");
}

static const char *ending(const struct wc_replay_stats *st)
{
	switch (st->state) {
	case WC_READER_CLEAN:
		return st->trailer_flags & WC_TRAILER_INTERRUPTED ? "cleanly (stopped by a signal)"
								  : "cleanly";
	case WC_READER_TRUNCATED:
		return "TRUNCATED: analysed up to the cut";
	case WC_READER_CORRUPT:
		return "CORRUPT";
	case WC_READER_UNSUPPORTED:
		return "UNSUPPORTED";
	default:
		return "with a read error";
	}
}

/* "vdso:" and the size and build-id of the trace's copy of the vdso, when it has one */
static void vdso_line(const struct wc_replay_meta *m, FILE *out)
{
	const struct wc_replay_image *im = wc_replay_image(m, "[vdso]");
	uint8_t id[64];
	int n;

	if (!im)
		return;
	fprintf(out, "vdso:         %zu bytes, carried in the trace", im->len);
	n = wc_elfsym_image_build_id(im->data, im->len, id, sizeof(id));
	if (n > 0) {
		fprintf(out, ", build-id ");
		for (int i = 0; i < n; i++)
			fprintf(out, "%02x", id[i]);
	} else if (n == -ENOEXEC) {
		fprintf(out, " (not a valid ELF object: its frames stay unnamed)");
	}
	fprintf(out, "\n");
}

/* "clock:" and when the recording started, in UTC, when the trace maps its clock to wall time */
static void clock_line(const struct wc_analysis *a, const struct wc_replay_meta *m, FILE *out)
{
	uint64_t rt;

	if (!m->have_clock)
		return;
	fprintf(out, "clock:        %s", clock_name(m->clockid));
	if (wc_analysis_facts(a)->start_ns && m->realtime_ns &&
	    wc_replay_wall_ns(m, wc_analysis_facts(a)->start_ns, &rt)) {
		time_t secs = (time_t)(rt / 1000000000);
		struct tm tm;
		char when[64];

		if (gmtime_r(&secs, &tm) && strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm))
			fprintf(out, ", started %s.%03d UTC", when,
				(int)(rt % 1000000000 / 1000000));
	}
	fprintf(out, "\n");
}

/* The edge cases of the replay and of the state machine (sched.h), one line each. */
static void edge_cases(const struct wc_analysis *a, const struct wc_replay_stats *st, FILE *out)
{
	const struct wc_sched_counts *c = &wc_analysis_sched(a)->counts;
	const struct wc_analysis_facts *fa = wc_analysis_facts(a);

	fprintf(out, "edge cases:\n");
	fprintf(out, "  events late for their round (dropped)       %" PRIu64 "\n", st->late);
	fprintf(out, "  events naming an undefined stack/payload    %" PRIu64 "\n", st->bad_refs);
	fprintf(out, "  kernel symbols overlapping others (dropped) %" PRIu64 "\n", st->bad_ksyms);
	fprintf(out, "  payloads that could not be decoded          %" PRIu64 "\n",
		fa->decode_errors);
	fprintf(out, "  tracepoint formats that did not parse       %" PRIu64 "\n",
		fa->format_errors);
	fprintf(out, "  first event a switch-in (start unknown)     %" PRIu64 "\n",
		c->start_unknown);
	fprintf(out, "  first event a switch-out (run unknown)      %" PRIu64 "\n",
		c->run_start_unknown);
	if (c->carried) /* wcrec --rotate's files after the first */
		fprintf(out, "  state at the start, from the file before    %" PRIu64 "\n",
			c->carried);
	fprintf(out, "  switch-ins from context-switch records      %" PRIu64 "\n",
		c->switch_in_records);
	fprintf(out, "  two switch-outs, no switch-in between       %" PRIu64 "\n",
		c->double_switch_out);
	fprintf(out, "    switch-in inferred                        %" PRIu64 "\n",
		c->inferred_switch_in);
	fprintf(out, "      from sched_stat_runtime                 %" PRIu64 "\n",
		c->inferred_by_runtime);
	fprintf(out, "      between two sampling ticks              %" PRIu64 "\n",
		c->inferred_by_samples);
	fprintf(out, "    interval unknown, dropped                 %" PRIu64 "\n",
		c->unknown_dropped);
	fprintf(out, "  switch-in of a task already on a CPU        %" PRIu64 "\n",
		c->switch_in_running);
	fprintf(out, "  wakeups of a task still on its CPU          %" PRIu64 "\n",
		c->wakeup_running);
	fprintf(out, "  wakeups of a preempted (runnable) task      %" PRIu64 "\n",
		c->wakeup_runnable);
	fprintf(out, "  repeated wakeups while off-CPU              %" PRIu64 "\n",
		c->wakeup_repeated);
	fprintf(out, "  wakeups before any switch-out of the task   %" PRIu64 "\n",
		c->wakeup_unknown);
	fprintf(out, "  sleeps with no wakeup seen (all blocked)    %" PRIu64 "\n", c->no_wakeup);
	fprintf(out, "  off-CPU when the recording ended (open)     %" PRIu64 "\n",
		c->open_off_at_end);
	fprintf(out, "  on-CPU when the recording ended (open)      %" PRIu64 "\n",
		c->open_run_at_end);
	fprintf(out, "  events on a CPU beyond the host's count     %" PRIu64 "\n", c->bad_cpu);
	if (fa->have_stat) {
		fprintf(out, "  sched_stat sleep/blocked delays             %" PRIu64 "\n",
			c->stats);
		fprintf(out, "    an interval's, its switch-in not recorded %" PRIu64 "\n",
			c->stat_intervals);
		fprintf(out, "    of a task not switched out asleep         %" PRIu64 "\n",
			c->stat_unmatched);
		fprintf(out, "    a second one of the same sleep            %" PRIu64 "\n",
			c->stat_repeated);
	}
	wc_info_note_stat(a, "note: ", out);
	if (c->inferred_switch_in > c->inferred_by_runtime && !fa->have_runtime)
		fprintf(out,
			"note: the kernel left %" PRIu64 " switch-ins untraced; context-switch "
			"records (Linux 4.3+, which wcrec takes since format 1.5) or "
			"sched_stat_runtime (wcrec --runtime) would place them to a few us\n",
			c->inferred_switch_in);
}

int wc_info_span_write(const struct wc_analysis *a, FILE *out)
{
	const struct wc_replay_meta *m = wc_replay_meta(wc_analysis_replay(a));
	uint64_t start = wc_analysis_facts(a)->start_ns, end = wc_analysis_end_ns(a), from, until;

	if (!m->have_clock || !m->realtime_ns || !start || end < start ||
	    !wc_replay_wall_ns(m, start, &from) || !wc_replay_wall_ns(m, end, &until))
		return -ENODATA;
	fprintf(out, "%" PRIu64 " %" PRIu64 "\n", from / 1000000000,
		(until + 999999999) / 1000000000);
	return 0;
}

int wc_info_write(const struct wc_analysis *a, const struct wc_info_acc *acc,
		  struct wc_symbolizer *sym, FILE *out)
{
	const struct wc_replay_meta *m = wc_replay_meta(wc_analysis_replay(a));
	const struct wc_replay_stats *st = wc_replay_stats(wc_analysis_replay(a));
	const struct wc_sched_counts *c = &wc_analysis_sched(a)->counts;
	uint64_t end = wc_analysis_end_ns(a), processes = 0, threads = 0;
	const char *target = wc_replay_note(wc_analysis_replay(a), "target");
	const char *kbid = wc_analysis_kernel_build_id(a);
	const struct wc_analysis_facts *fa = wc_analysis_facts(a);

	fprintf(out, "file:         %s, %.1f MB, ended %s\n", wc_analysis_path(a),
		st->file_size / 1e6, ending(st));
	if (st->state != WC_READER_CLEAN && wc_replay_error(wc_analysis_replay(a))[0])
		fprintf(out, "              %s (at byte %" PRIu64 ")\n",
			wc_replay_error(wc_analysis_replay(a)), st->error_offset);
	if (m->have_host)
		fprintf(out, "host:         %s, %s %s %s, %u CPUs online, page size %u\n",
			m->nodename, m->sysname, m->release, m->machine, m->ncpus_online,
			m->page_size);
	if (kbid)
		fprintf(out, "kernel:       build-id %s\n", kbid);
	if (m->recorder[0])
		fprintf(out, "recorder:     %s\n", m->recorder);
	if (target) {
		fprintf(out, "target:       %s", target);
		for (size_t i = 0; i < m->nnotes; i++)
			if (!strcmp(m->notes[i].key, "target_pid"))
				fprintf(out, " %s", m->notes[i].value);
		fprintf(out, "\n");
	}
	clock_line(a, m, out);
	fprintf(out, "duration:     %.6f s\n",
		fa->start_ns && end > fa->start_ns ? (double)(end - fa->start_ns) / 1e9 : 0.0);
	for (size_t i = 0; i < m->nnotes; i++) {
		const char *k = m->notes[i].key;

		if (!strcmp(k, "user_stacks") || !strcmp(k, "user_stacks_mended"))
			fprintf(out, "%-13s %s\n",
				k[11] ? "  mended:" : "user stacks:", m->notes[i].value);
		else if (!strcmp(k, "source_format") || !strcmp(k, "cannot_give") ||
			 !strcmp(k, "perf_cmdline") || !strcmp(k, "perf_skipped") ||
			 !strcmp(k, "perf_unwind"))
			fprintf(out, "%-13s %s\n", /* notes of another recorder's file */
				!strcmp(k, "source_format")  ? "format:"
				: !strcmp(k, "cannot_give")  ? "cannot give:"
				: !strcmp(k, "perf_cmdline") ? "command:"
				: !strcmp(k, "perf_unwind")  ? "  unwound:"
							     : "skipped:",
				m->notes[i].value);
		else if (!strcmp(k, "fallback") || !strcmp(k, "wakeup_event") ||
			 !strcmp(k, "switch_records") || !strcmp(k, "events"))
			fprintf(out, "%-13s %s\n",
				!strcmp(k, "fallback")	     ? "fallback:"
				: !strcmp(k, "wakeup_event") ? "wakeups:"
				: !strcmp(k, "events")	     ? "events on:"
							     : "switch recs:",
				m->notes[i].value);
	}
	if (acc)
		user_shares(acc, out);
	vdso_line(m, out);
	fprintf(out, "events:      ");
	for (int id = 0; id < WC_REPLAY_MAX_EVENTS; id++)
		if (m->events[id].present)
			fprintf(out, " %s", m->events[id].name);
	fprintf(out, "\n");
	fprintf(out,
		"records:      %" PRIu64 " tracepoint events (%" PRIu64 " switches, %" PRIu64
		" wakeups, %" PRIu64 " runtime), %" PRIu64 " samples, %" PRIu64
		" callchains, %" PRIu64 " distinct payloads\n",
		fa->tracepoints, c->switches, c->wakeups, fa->runtime_events, fa->samples,
		st->records[WC_REC_STACK], st->records[WC_REC_PAYLOAD]);
	fprintf(out,
		"lost:         %" PRIu64 " events (ring buffer full), %" PRIu64 " samples; %" PRIu64
		" throttle records\n",
		st->lost_records, st->lost_samples, st->records[WC_REC_THROTTLE]);
	if (sym && fa->have_samples && fa->have_switch) {
		uint64_t total, skid = wc_skid_count(a, sym, &total);

		fprintf(out,
			"skid:         %" PRIu64 " of %" PRIu64 " samples of a thread (%.1f%%) "
			"in finish_task_switch within %u us of its switch-in: the context "
			"switch's (wcanalyze --skid)\n",
			skid, total, total ? 100.0 * (double)skid / (double)total : 0.0,
			WC_SKID_WINDOW_NS / 1000);
	}
	for (size_t i = 1; i < wc_analysis_tasks(a)->nthreads; i++) {
		threads++;
		if (wc_analysis_tasks(a)->threads[i].tid == wc_analysis_tasks(a)->threads[i].pid)
			processes++;
	}
	fprintf(out,
		"tasks:        %" PRIu64 " threads (%" PRIu64 " process leaders), %" PRIu64
		" forks, %" PRIu64 " execs, %" PRIu64 " exits, %" PRIu64 " maps\n",
		threads, processes, wc_analysis_tasks(a)->forks, wc_analysis_tasks(a)->execs,
		wc_analysis_tasks(a)->exits, wc_analysis_tasks(a)->mmaps);
	if (!m->kallsyms)
		fprintf(out, "kallsyms:     none\n");
	else if (m->kallsyms_restricted)
		fprintf(out, "kallsyms:     restricted (kptr_restrict): kernel frames unnamed\n");
	else if (m->kallsyms_referenced)
		fprintf(out, "kallsyms:     %zu functions, those the callchains refer to\n",
			wc_kallsyms_count(m->ksyms));
	else
		fprintf(out, "kallsyms:     the whole snapshot\n");
	edge_cases(a, st, out);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

/* The counts line of wc_info_warn_counts() (when any is bad, or with @always) and of
 * wc_info_counts_line(); before it, one line when tracepoint formats were left out. */
static void counts_line(const struct wc_analysis *a, FILE *err, bool always)
{
	const struct wc_replay_stats *st = wc_replay_stats(wc_analysis_replay(a));
	const struct wc_sched_counts *c = &wc_analysis_sched(a)->counts;
	const struct wc_analysis_facts *fa = wc_analysis_facts(a);
	bool bad = st->lost_records || st->lost_samples || st->late || fa->decode_errors ||
		   c->unknown_dropped || st->bad_refs;

	if (fa->format_errors)
		fprintf(err,
			"wcanalyze: warning: %s: %" PRIu64 " tracepoint formats left out: %s\n",
			wc_analysis_path(a), fa->format_errors, fa->format_error);
	if (!bad && !always)
		return;
	fprintf(err,
		"wcanalyze: %s%s: %" PRIu64 " events and %" PRIu64 " samples lost in recording, "
		"%" PRIu64 " late, %" PRIu64 " undecodable; %" PRIu64
		" switch-ins not traced: %" PRIu64 " inferred, %" PRIu64
		" off-CPU intervals dropped (wcanalyze info %s)\n",
		bad ? "warning: " : "", wc_analysis_path(a), st->lost_records, st->lost_samples,
		st->late, fa->decode_errors, c->double_switch_out, c->inferred_switch_in,
		c->unknown_dropped, wc_analysis_path(a));
}

void wc_info_note_stat(const struct wc_analysis *a, const char *prefix, FILE *out)
{
	const struct wc_sched_counts *c = &wc_analysis_sched(a)->counts;

	if (!c->stat_intervals)
		return;
	fprintf(out,
		"%s%s: switch-ins not recorded (a task's own switch-outs only, as perf record -p "
		"records them): %" PRIu64 " off-CPU intervals are sched_stat sleep/blocked delays, "
		"each under the stack of the task's last switch-out, without run-queue time "
		"(perf inject -s)\n",
		prefix, wc_analysis_path(a), c->stat_intervals);
}

void wc_info_warn_counts(const struct wc_analysis *a, FILE *err)
{
	counts_line(a, err, false);
}

void wc_info_counts_line(const struct wc_analysis *a, FILE *err)
{
	counts_line(a, err, true);
}
