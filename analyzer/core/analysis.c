/* SPDX-License-Identifier: GPL-2.0-or-later */
/* analysis.c - see analysis.h. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/core/analysis.h"
#include "analyzer/core/skid.h"
#include "common/error.h"

/* The analysis: what wc_analysis_open() makes and wc_analysis_close() frees. */
struct wc_analysis {
	const char *path;
	struct wc_replay *replay;
	struct wc_tpdecode *dec;
	struct wc_tasks tasks;
	struct wc_sched sched;
	const struct wc_analysis_consumer *consumer;
	struct wc_analysis_facts f;
	uint8_t role[WC_REPLAY_MAX_EVENTS]; /* enum wc_tp_role, 0 none */
	uint8_t kind[WC_REPLAY_MAX_EVENTS]; /* enum wc_event_kind */
	bool skip[WC_REPLAY_MAX_EVENTS];    /* sched_wakeup when sched_waking is there too */
	uint64_t sample_weight_ns[WC_REPLAY_MAX_EVENTS]; /* 0: the sample's period is ns */
	/* decoded payloads by id */
	uint8_t *decoded; /* 0 not yet, 1 switch, 2 wakeup, 3 undecodable, 4 migrate */
	struct wc_switch *switches;
	struct wc_wakeup *wakeups;
	struct wc_migrate *migrates;
	size_t ndecoded;
	struct wc_map64 near_stacks; /* stack id -> samples that came so (skid.h) */
	char error[512];	     /* why wc_analysis_run failed */
	/* wc_analysis_set_progress() */
	void (*progress)(void *ctx, uint64_t done_bytes, uint64_t total_bytes);
	void *progress_ctx;
	const struct wc_symbol_paths *paths; /* wc_analysis_set_symbol_paths(), borrowed */
	struct wc_symbolizer *sym; /* wc_analysis_symbolizer(): made on first use, owned */
	uint64_t max_memory;	   /* wc_analysis_set_max_memory() */
};

struct wc_analysis *wc_analysis_open(const char *path, char *err, size_t errlen)
{
	struct wc_analysis *a = calloc(1, sizeof(*a));
	int e;

	if (!a) {
		snprintf(err, errlen, "%s: out of memory", path);
		errno = ENOMEM;
		return NULL;
	}
	a->path = path;
	a->replay = wc_replay_open(path);
	if (!a->replay) {
		e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		goto out_free;
	}
	a->dec = wc_tpdecode_new();
	if (!a->dec || wc_tasks_init(&a->tasks) || wc_map64_init(&a->near_stacks)) {
		e = ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto out_free;
	}
	return a;
out_free:
	wc_analysis_close(a);
	errno = e;
	return NULL;
}

void wc_analysis_close(struct wc_analysis *a)
{
	if (!a)
		return;
	wc_symbolizer_free(a->sym); /* before the replay: it borrows the KSYM records */
	wc_replay_free(a->replay);
	wc_tpdecode_free(a->dec);
	wc_tasks_fini(&a->tasks);
	wc_sched_fini(&a->sched);
	wc_map64_fini(&a->near_stacks);
	free(a->decoded);
	free(a->switches);
	free(a->wakeups);
	free(a->migrates);
	free(a);
}

void wc_analysis_set_progress(struct wc_analysis *a,
			      void (*fn)(void *ctx, uint64_t done_bytes, uint64_t total_bytes),
			      void *ctx)
{
	a->progress = fn;
	a->progress_ctx = ctx;
}

void wc_analysis_set_max_memory(struct wc_analysis *a, uint64_t max_bytes)
{
	a->max_memory = max_bytes;
}

int wc_analysis_set_symbol_paths(struct wc_analysis *a, const struct wc_symbol_paths *paths)
{
	a->paths = paths;
	return wc_replay_set_symfs(a->replay,
				   paths && paths->symfs && paths->symfs[0] ? paths->symfs : NULL);
}

static int fail(struct wc_analysis *a, int err, const char *fmt, const char *what)
{
	int n = snprintf(a->error, sizeof(a->error), "%s: ", a->path);

	snprintf(a->error + n, sizeof(a->error) - (size_t)n, fmt, what);
	return err;
}

/* The metadata is complete: parse the formats, bind the events, set up the target. */
static int begin(void *ctx, const struct wc_replay_meta *m)
{
	struct wc_analysis *a = ctx;
	const struct wc_replay_image *vdso;
	bool have_waking = false, have_blocked = false;
	const char *v;
	int err;

	/* the CPU count sizes per-CPU tables and timehist's columns: no more than Linux has */
	if (m->ncpus_configured > WC_ANALYSIS_MAX_CPUS || m->ncpus_online > WC_ANALYSIS_MAX_CPUS) {
		char what[96];

		snprintf(what, sizeof(what), "%u CPUs configured, %u online", m->ncpus_configured,
			 m->ncpus_online);
		return fail(a, -WC_ECORRUPT,
			    "corrupt HOST record: %s, past the " WC_STR(
				    WC_ANALYSIS_MAX_CPUS) " CPUs of Linux's largest NR_CPUS",
			    what);
	}

	for (size_t i = 0; i < m->nformats; i++) {
		/* a format that does not parse only matters for an event bound below, whose
		 * bind then fails naming it; others are left out with a warning */
		err = wc_tpdecode_add_format(a->dec, m->formats[i].system, m->formats[i].text);
		if (err == -ENOMEM)
			return fail(a, -ENOMEM, "%s", "out of memory");
		if (err && err != -EEXIST && !a->f.format_errors++)
			snprintf(a->f.format_error, sizeof(a->f.format_error), "%s",
				 wc_tpdecode_error(a->dec));
	}
	for (int id = 0; id < WC_REPLAY_MAX_EVENTS; id++)
		if (m->events[id].present && m->events[id].kind == WC_EVENT_WAKING)
			have_waking = true;
		else if (m->events[id].present && m->events[id].kind == WC_EVENT_STAT_BLOCKED)
			have_blocked = true;
	for (int id = 0; id < WC_REPLAY_MAX_EVENTS; id++) {
		const struct wc_replay_event *e = &m->events[id];
		int role;

		if (!e->present)
			continue;
		a->kind[id] = (uint8_t)e->kind;
		if (e->kind == WC_EVENT_SAMPLE) {
			a->f.have_samples = true;
			/* cpu-clock and task-clock count ns; a cycles sample stands for one
			 * sampling interval, 1/F */
			if (!(e->attr_type == PERF_TYPE_SOFTWARE &&
			      (e->attr_config == PERF_COUNT_SW_CPU_CLOCK ||
			       e->attr_config == PERF_COUNT_SW_TASK_CLOCK)))
				a->sample_weight_ns[id] =
					e->freq && e->sample_period_or_freq
						? 1000000000ull / e->sample_period_or_freq
						: 1;
			continue;
		}
		role = wc_tpdecode_role_of_kind(e->kind);
		if (!role)
			continue;
		if (e->kind == WC_EVENT_WAKEUP && have_waking) {
			a->skip[id] = true; /* sched_waking is the earlier of the two */
			continue;
		}
		/* sched_stat_iowait repeats sched_stat_blocked's delay, for the same sleep
		 * (kernel/sched/stats.c __update_stats_enqueue_sleeper()) */
		if (e->kind == WC_EVENT_STAT_IOWAIT && have_blocked) {
			a->skip[id] = true;
			continue;
		}
		err = wc_tpdecode_bind(a->dec, (uint16_t)id, e->name, role);
		if (err == -ENOMEM)
			return fail(a, -ENOMEM, "%s", "out of memory");
		/* optional: switch-ins stay inferred; intervals need switch-ins */
		if (err && (role == WC_TP_RUNTIME || role == WC_TP_STAT)) {
			a->skip[id] = true;
			if (!a->f.format_errors++)
				snprintf(a->f.format_error, sizeof(a->f.format_error), "%s",
					 wc_tpdecode_error(a->dec));
			continue;
		}
		if (err)
			return fail(a, -EINVAL, "%s", wc_tpdecode_error(a->dec));
		a->role[id] = (uint8_t)role;
		if (role == WC_TP_SWITCH)
			a->f.have_switch = true;
		else if (role == WC_TP_WAKEUP)
			a->f.have_wakeup = true;
		else if (role == WC_TP_MIGRATE)
			a->f.have_migrate = true;
		else if (role == WC_TP_RUNTIME)
			a->f.have_runtime = true;
		else if (role == WC_TP_STAT)
			a->f.have_stat = true;
	}
	for (size_t i = 0; i < m->nnotes; i++) {
		if (strcmp(m->notes[i].key, "target_pid") == 0) {
			err = wc_tasks_add_target(&a->tasks,
						  (uint32_t)strtoul(m->notes[i].value, NULL, 10));
			if (err)
				return err;
		}
	}
	v = wc_replay_note(a->replay, "recorder_pid");
	if (v)
		a->tasks.recorder_pid = (uint32_t)strtoul(v, NULL, 10);
	vdso = wc_replay_image(m, "[vdso]");
	if (vdso) { /* the replay keeps it until it is freed, after the symbolizers */
		a->tasks.vdso_image = vdso->data;
		a->tasks.vdso_image_len = vdso->len;
	}
	err = wc_sched_init(&a->sched, &a->tasks, m->ncpus_configured ? m->ncpus_configured : 4096,
			    &a->consumer->sink, a->consumer->ctx);
	if (err)
		return err;
	v = wc_replay_note(a->replay, "events"); /* "per-task: ..." (wcrec 1.11) */
	a->sched.per_task = v && !strncmp(v, "per-task:", 9);
	a->f.per_task = a->sched.per_task;
	if (a->consumer->begin)
		return a->consumer->begin(a->consumer->ctx, a);
	return 0;
}

/* Decode payload @id once; return 1 switch, 2 wakeup, 3 undecodable, 4 migrate, or -ENOMEM. */
static int decode(struct wc_analysis *a, uint32_t id, uint16_t event_id)
{
	const void *data;
	uint16_t size;
	int err;

	if (id >= a->ndecoded) {
		size_t n = a->ndecoded ? a->ndecoded : 1024;

		while (n <= id)
			n *= 2;
		uint8_t *d = realloc(a->decoded, n);
		struct wc_switch *s = realloc(a->switches, n * sizeof(*s));

		if (d)
			a->decoded = d;
		if (s)
			a->switches = s;
		struct wc_wakeup *w = realloc(a->wakeups, n * sizeof(*w));

		if (w)
			a->wakeups = w;
		struct wc_migrate *mg = realloc(a->migrates, n * sizeof(*mg));

		if (mg)
			a->migrates = mg;
		if (!d || !s || !w || !mg)
			return -ENOMEM;
		memset(a->decoded + a->ndecoded, 0, n - a->ndecoded);
		a->ndecoded = n;
	}
	if (a->decoded[id])
		return a->decoded[id];
	data = wc_replay_payload(a->replay, id, &size);
	if (a->role[event_id] == WC_TP_SWITCH)
		err = data ? wc_tpdecode_decode_switch(a->dec, event_id, data, size,
						       &a->switches[id])
			   : -EINVAL;
	else if (a->role[event_id] == WC_TP_MIGRATE)
		err = data ? wc_tpdecode_decode_migrate(a->dec, event_id, data, size,
							&a->migrates[id])
			   : -EINVAL;
	else
		err = data ? wc_tpdecode_decode_wakeup(a->dec, event_id, data, size,
						       &a->wakeups[id])
			   : -EINVAL;
	if (err == -ENOMEM)
		return err;
	a->decoded[id] = err				      ? 3
			 : a->role[event_id] == WC_TP_SWITCH  ? 1
			 : a->role[event_id] == WC_TP_MIGRATE ? 4
							      : 2;
	return a->decoded[id];
}

/* A sched_stat_runtime event, its payload @data of @size bytes (NULL: none). */
static int on_runtime(struct wc_analysis *a, uint16_t event_id, uint64_t time_ns, const void *data,
		      uint16_t size)
{
	struct wc_runtime rt;

	if (!data || wc_tpdecode_decode_runtime(a->dec, event_id, data, size, &rt)) {
		a->f.decode_errors++;
		return 0;
	}
	a->f.runtime_events++;
	if (rt.tid > 0)
		wc_sched_runtime(&a->sched, (uint32_t)rt.tid, time_ns, rt.runtime_ns);
	return 0;
}

/* A sched_stat_sleep, _blocked or _iowait event, its payload @data of @size bytes (NULL:
 * none). */
static int on_stat(struct wc_analysis *a, uint16_t event_id, uint64_t time_ns, const void *data,
		   uint16_t size)
{
	struct wc_stat st;

	if (!data || wc_tpdecode_decode_stat(a->dec, event_id, data, size, &st)) {
		a->f.decode_errors++;
		return 0;
	}
	return st.tid > 0 ? wc_sched_stat(&a->sched, time_ns, (uint32_t)st.tid, st.delay_ns) : 0;
}

/* An event of a role inline payloads carry (TP_INLINE, or a TRACEPOINT of one). */
static int on_inline(struct wc_analysis *a, uint16_t event_id, uint64_t time_ns, const void *data,
		     uint16_t size)
{
	if (a->role[event_id] == WC_TP_STAT)
		return on_stat(a, event_id, time_ns, data, size);
	return on_runtime(a, event_id, time_ns, data, size);
}

static int on_tracepoint(struct wc_analysis *a, const struct wc_rec_tracepoint *t)
{
	struct wc_sched_event ev;
	int k, err;

	a->f.tracepoints++;
	if (t->event_id >= WC_REPLAY_MAX_EVENTS || !a->role[t->event_id] || a->skip[t->event_id])
		return 0;
	if (a->role[t->event_id] == WC_TP_MIGRATE && !a->consumer->sched_event)
		return 0;
	if (a->role[t->event_id] == WC_TP_RUNTIME || a->role[t->event_id] == WC_TP_STAT) {
		uint16_t size; /* as the writers write them: TP_INLINE */
		const void *data = wc_replay_payload(a->replay, t->payload_id, &size);

		return on_inline(a, t->event_id, t->time_ns, data, size);
	}
	k = decode(a, t->payload_id, t->event_id);
	if (k < 0)
		return k;
	/* undecodable, or decoded earlier for an event of another role (a crafted file: the
	 * payload then holds no switch for a switch event; consumers rely on it) */
	if (k != (a->role[t->event_id] == WC_TP_SWITCH	  ? 1
		  : a->role[t->event_id] == WC_TP_MIGRATE ? 4
							  : 2)) {
		a->f.decode_errors++;
		return 0;
	}
	if (k == 1)
		err = wc_sched_switch(&a->sched, t->time_ns, t->cpu, &a->switches[t->payload_id],
				      t->stack_id, t->pid);
	else if (k == 2) {
		wc_sched_context(&a->sched, t->tid, t->time_ns, t->cpu);
		err = wc_sched_wakeup(&a->sched, t->time_ns, &a->wakeups[t->payload_id],
				      a->kind[t->event_id] == WC_EVENT_WAKEUP_NEW, t->tid,
				      t->stack_id);
	} else {
		err = 0;
	}
	if (err || !a->consumer->sched_event)
		return err;
	ev = (struct wc_sched_event){
		.time_ns = t->time_ns,
		.cpu = t->cpu,
		.role = a->role[t->event_id],
		.wakeup_new = a->kind[t->event_id] == WC_EVENT_WAKEUP_NEW,
		.sw = k == 1 ? &a->switches[t->payload_id] : NULL,
		.wk = k == 2 ? &a->wakeups[t->payload_id] : NULL,
		.mig = k == 4 ? &a->migrates[t->payload_id] : NULL,
		.stack_id = t->stack_id,
		.ctx_tid = t->tid,
		.ctx_pid = t->pid,
	};
	return a->consumer->sched_event(a->consumer->ctx, &ev);
}

/* A SAMPLE record: the state machine's tick, then the consumer's decoded sample. */
static int on_sample(struct wc_analysis *a, const struct wc_rec_sample *r)
{
	struct wc_cpu_sample s = { .time_ns = r->time_ns,
				   .period = r->period,
				   .cpu = r->cpu,
				   .tid = r->tid,
				   .pid = r->pid,
				   .stack_id = r->stack_id,
				   .event_id = r->event_id };
	struct wc_thread *t;
	uint64_t w, tick;

	a->f.samples++;
	w = s.event_id < WC_REPLAY_MAX_EVENTS ? a->sample_weight_ns[s.event_id] : 0;
	/* a per-CPU timer (cpu-clock, task-clock: their period is ns) ticks on a grid */
	tick = s.event_id < WC_REPLAY_MAX_EVENTS && !w ? s.period : 0;
	if (!s.tid || s.tid == UINT32_MAX) { /* idle, no task */
		wc_sched_sample(&a->sched, NULL, s.time_ns, s.cpu, tick);
		return 0;
	}
	t = wc_tasks_thread(&a->tasks, s.tid, s.pid, s.time_ns);
	if (!t)
		return -ENOMEM;
	a->f.thread_samples++;
	a->f.sample_on_timer = tick != 0;
	a->f.sample_after_switch_in = s.cpu < a->sched.ncpus && a->sched.cpu_curr[s.cpu] == s.tid &&
				      s.time_ns >= a->sched.cpu_since_ns[s.cpu] &&
				      s.time_ns - a->sched.cpu_since_ns[s.cpu] <= WC_SKID_WINDOW_NS;
	if (a->f.sample_after_switch_in) {
		uint64_t *n = wc_map64_put(&a->near_stacks, s.stack_id, 0, NULL);

		if (!n)
			return -ENOMEM;
		(*n)++;
	}
	wc_sched_sample(&a->sched, t, s.time_ns, s.cpu, tick);
	if (!a->consumer->sample)
		return 0;
	return a->consumer->sample(a->consumer->ctx, t, &s, w ? w : s.period);
}

/* Decode a CARRIED record's payload, of an event of role @role whose payload decodes to kind
 * @kind (decode(): 1 a switch, 2 a wakeup).  Return: 1 when it does, 0 when the record is to
 * be ignored (another role, a skipped event, or no such payload: counted undecodable), or
 * -ENOMEM. */
static int carried_payload(struct wc_analysis *a, const struct wc_rec_carried *r, uint8_t role,
			   int kind)
{
	int k;

	if (r->event_id >= WC_REPLAY_MAX_EVENTS || a->role[r->event_id] != role ||
	    a->skip[r->event_id])
		return 0;
	k = decode(a, r->payload_id, r->event_id);
	if (k < 0)
		return k;
	if (k != kind) {
		a->f.decode_errors++;
		return 0;
	}
	return 1;
}

/*
 * A CARRIED record: a thread's state when the file began, since a switch before, or the
 * wakeup of a thread not yet run then (wct.h).  A carried wakeup is not counted as a wakeup,
 * nor shown.
 */
static int on_carried(struct wc_analysis *a, const struct wc_rec_carried *r)
{
	int k;

	if (r->since_ns > r->time_ns) {
		a->f.decode_errors++; /* a switch to come is not a state at the start */
		return 0;
	}
	if (r->flags & WC_CARRIED_ON_CPU)
		return wc_sched_carried(&a->sched, r->tid, r->pid, r->since_ns, r->cpu, NULL, 0);
	if (r->flags & WC_CARRIED_WAKEUP) {
		k = carried_payload(a, r, WC_TP_WAKEUP, 2);
		if (k <= 0)
			return k;
		return wc_sched_carried_wakeup(&a->sched, r->since_ns, &a->wakeups[r->payload_id],
					       a->kind[r->event_id] == WC_EVENT_WAKEUP_NEW, r->tid,
					       r->stack_id);
	}
	k = carried_payload(a, r, WC_TP_SWITCH, 1);
	if (k <= 0)
		return k;
	return wc_sched_carried(&a->sched, r->tid, r->pid, r->since_ns, r->cpu,
				&a->switches[r->payload_id], r->stack_id);
}

static int event(void *ctx, const struct wc_rec_header *h)
{
	struct wc_analysis *a = ctx;

	/* the replay hands out QUEUED records only, each TIMED (rectypes.c): a time follows h */
	if (!a->f.start_ns) {
		memcpy(&a->f.start_ns, h + 1, sizeof(a->f.start_ns));
		if (!a->f.start_ns)
			a->f.start_ns = 1;
	}
	switch (h->type) {
	case WC_REC_TRACEPOINT:
		return on_tracepoint(a, (const void *)h);
	case WC_REC_CARRIED:
		return on_carried(a, (const void *)h);
	case WC_REC_SAMPLE:
		return on_sample(a, (const void *)h);
	case WC_REC_TP_INLINE: {
		const struct wc_rec_tp_inline *t = (const void *)h;

		a->f.tracepoints++;
		if (t->event_id >= WC_REPLAY_MAX_EVENTS || a->skip[t->event_id] ||
		    (a->role[t->event_id] != WC_TP_RUNTIME && a->role[t->event_id] != WC_TP_STAT))
			return 0;
		return on_inline(a, t->event_id, t->time_ns, t->data, t->size);
	}
	case WC_REC_SWITCH_IN: {
		const struct wc_rec_switch_in *x = (const void *)h;
		struct wc_sched_event ev = {
			.role = WC_TP_SWITCH_IN, .cpu = x->cpu, .ctx_tid = x->tid, .ctx_pid = x->pid
		};
		int err = wc_sched_switch_in(&a->sched, x->time_ns, x->delay_ns, x->cpu, x->tid,
					     x->pid);

		if (err <= 0 || !a->consumer->sched_event) /* error, or no switch-in to tell */
			return err < 0 ? err : 0;
		ev.time_ns = a->sched.cpu_since_ns[x->cpu]; /* where sched.c put it */
		return a->consumer->sched_event(a->consumer->ctx, &ev);
	}
	case WC_REC_EXIT: {
		const struct wc_rec_task *x = (const void *)h;
		struct wc_switch sw;
		struct wc_sched_event ev = { .time_ns = x->time_ns,
					     .role = WC_TP_SWITCH,
					     .sw = &sw,
					     .ctx_tid = x->tid,
					     .ctx_pid = x->pid };
		int err = wc_sched_exit(&a->sched, x->time_ns, x->tid, x->pid, &sw, &ev.cpu);

		if (err > 0 && a->consumer->sched_event) /* the last switch-out, per task */
			err = a->consumer->sched_event(a->consumer->ctx, &ev);
		return err < 0 ? err : wc_tasks_record(&a->tasks, h);
	}
	case WC_REC_COMM:
	case WC_REC_FORK:
	case WC_REC_MMAP:
		return wc_tasks_record(&a->tasks, h);
	}
	return 0;
}

static void progress(void *ctx, uint64_t done, uint64_t total)
{
	struct wc_analysis *a = ctx;

	a->progress(a->progress_ctx, done, total);
}

int wc_analysis_run(struct wc_analysis *a, const struct wc_analysis_consumer *c)
{
	static const struct wc_analysis_consumer none;
	struct wc_replay_ops ops = { .begin = begin,
				     .event = event,
				     .progress = a->progress ? progress : NULL };
	int err;

	a->consumer = c ? c : &none;
	wc_replay_set_max_memory(a->replay, !a->max_memory ? WC_REPLAY_DEFAULT_MAX_MEMORY
					    : a->max_memory == UINT64_MAX ? 0
									  : a->max_memory);
	err = wc_replay_run(a->replay, &ops, a);
	if (!err)
		err = wc_sched_finish(&a->sched, wc_analysis_end_ns(a));
	if (err == -WC_ECORRUPT && !a->error[0])
		fail(a, err, "%s", wc_replay_error(a->replay));
	if (err == -ENOMEM && !a->error[0])
		fail(a, err, "%s", "out of memory");
	return err;
}

struct wc_symbolizer *wc_analysis_symbolizer(struct wc_analysis *a)
{
	if (!a->sym && a->replay) {
		const struct wc_replay_meta *m = wc_replay_meta(a->replay);

		a->sym = wc_symbolizer_new(&a->tasks, m->kallsyms, m->kallsyms_len, m->ksyms,
					   a->paths);
		if (a->sym) /* recorders since 1.8 say whether they wrote USYM records */
			wc_symbolizer_set_usyms(a->sym, m->usyms,
						wc_replay_note(a->replay, "user_symbols") != NULL);
	}
	return a->sym;
}

bool wc_analysis_dwarf_stacks(const struct wc_analysis *a)
{
	const char *v = wc_replay_note(a->replay, "user_stacks");

	return v && !strncmp(v, "dwarf", 5);
}

uint64_t wc_analysis_end_ns(const struct wc_analysis *a)
{
	const struct wc_replay_stats *st = wc_replay_stats(a->replay);

	return st->end_ns > st->last_ns ? st->end_ns : st->last_ns;
}

struct wc_symbolizer *wc_analysis_symbolizer_made(const struct wc_analysis *a)
{
	return a->sym;
}

const struct wc_analysis_facts *wc_analysis_facts(const struct wc_analysis *a)
{
	return &a->f;
}

const char *wc_analysis_path(const struct wc_analysis *a)
{
	return a->path;
}

const char *wc_analysis_error(const struct wc_analysis *a)
{
	return a->error;
}

const char *wc_analysis_kernel_build_id(const struct wc_analysis *a)
{
	const char *v = wc_replay_note(a->replay, "kernel_build_id");
	size_t n = v ? strspn(v, "0123456789abcdef") : 0;

	return n && !v[n] && n % 2 == 0 && n <= 2 * WC_BUILD_ID_MAX ? v : NULL;
}

struct wc_replay *wc_analysis_replay(const struct wc_analysis *a)
{
	return a->replay;
}

const struct wc_tasks *wc_analysis_tasks(const struct wc_analysis *a)
{
	return &a->tasks;
}

const struct wc_sched *wc_analysis_sched(const struct wc_analysis *a)
{
	return &a->sched;
}

unsigned int wc_analysis_role(const struct wc_analysis *a, uint16_t event_id)
{
	return a->role[event_id];
}

const struct wc_map64 *wc_analysis_near_stacks(const struct wc_analysis *a)
{
	return &a->near_stacks;
}
