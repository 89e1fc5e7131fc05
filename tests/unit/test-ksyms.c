/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-ksyms.c - the KSYM records of format 1.2: wcrec writes one per kernel function its
 * callchains refer to, before the first STACK record that needs it, and wcanalyze's replay
 * builds the file's kernel symbols from them.  The lookups through the records are checked
 * against lookups in the whole snapshot they came from, address by address, for a
 * hand-written kallsyms and for this machine's.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyzer/core/replay.h"
#include "common/kallsyms.h"
#include "common/reader.h"
#include "common/stack_table.h"
#include "common/writer.h"
#include "recorder/ksyms.h"

#define K   ((uint64_t)PERF_CONTEXT_KERNEL)
#define U   ((uint64_t)PERF_CONTEXT_USER)
#define KT  0xffffffff81000000ull
#define MOD 0xffffffffc0001000ull

/* foo and bar are functions; some_data ends bar; modfn is in a module: it ends a page later */
static const char text[] = "ffffffff81000000 T _stext\n"
			   "ffffffff81000100 T foo\n"
			   "ffffffff81000100 t __foo_alias\n"
			   "ffffffff81000200 T bar\n"
			   "ffffffff81000300 D some_data\n"
			   "ffffffff81000400 T baz\n"
			   "ffffffff81000500 T qux\n"
			   "ffffffffc0001000 t modfn\t[ext4]\n";

static char path[64];
static struct wc_ksym_writer *kw;
static struct wc_kallsyms *full;

static void fini(void)
{
	wc_ksym_writer_free(kw);
	kw = NULL;
	wc_kallsyms_free(full);
	full = NULL;
	if (path[0])
		unlink(path);
	path[0] = '\0';
}

TestSuite(ksyms, .fini = fini);

static struct wc_kallsyms *parse(const char *t, size_t len)
{
	struct wc_kallsyms *k = wc_kallsyms_new(t, len);

	cr_assert_not_null(k, "wc_kallsyms_new: %s", strerror(errno));
	return k;
}

/* Write the callchains stacks[i] (nr[i] ips each) to a new file, with KSYM records from a
 * snapshot of @t, and a KALLSYMS record flagged REFERENCED first. */
static void write_trace(const char *t, size_t len, const uint64_t *const *stacks,
			const uint32_t *nr, size_t n)
{
	struct wc_stack_table *table = wc_stack_table_new(0);
	struct {
		struct wc_rec_kallsyms k;
		char nul[8];
	} rec = { { { 24, WC_REC_KALLSYMS, 0 }, WC_KALLSYMS_REFERENCED, 1 }, { 0 } };
	struct wc_writer *w;
	int fd;

	strcpy(path, "/tmp/wct-ksyms-XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	w = wc_writer_new(fd, NULL);
	cr_assert_not_null(w);
	cr_assert_not_null(table);
	kw = wc_ksym_writer_new(parse(t, len));
	cr_assert_not_null(kw);
	wc_writer_set_stack_hook(w, wc_ksym_writer_stack, kw);
	cr_assert_eq(wc_writer_add(w, &rec), 0);
	for (size_t i = 0; i < n; i++) {
		uint32_t id;

		cr_assert_eq(wc_writer_stack(w, table, stacks[i], nr[i], &id), 0);
	}
	cr_assert_eq(wc_writer_close(w, 1000, 0), 0);
	wc_writer_free(w);
	wc_stack_table_free(table);
	close(fd);
}

/* The records of the file, in order: their types into types[] (up to max), and the KSYM
 * records copied into ksyms[]. */
static size_t read_types(uint16_t *types, size_t max, struct wc_rec_ksym **ksyms, size_t *nksyms)
{
	struct wc_reader *r = wc_reader_open(path);
	const struct wc_rec_header *h;
	size_t n = 0;

	cr_assert_not_null(r);
	*nksyms = 0;
	while (wc_reader_next(r, &h)) {
		if (h->type == WC_REC_TRAILER || h->type == WC_REC_KALLSYMS)
			continue;
		cr_assert_lt(n, max);
		types[n++] = h->type;
		if (h->type == WC_REC_KSYM) {
			ksyms[*nksyms] = malloc(h->size);
			memcpy(ksyms[(*nksyms)++], h, h->size);
		}
	}
	cr_assert_eq(wc_reader_state(r), WC_READER_CLEAN, "%s", wc_reader_error(r));
	wc_reader_free(r);
	return n;
}

static void check_ksym(const struct wc_rec_ksym *k, uint64_t start, uint64_t end, const char *name,
		       const char *module)
{
	cr_assert_eq(k->start, start, "%s: start %#llx", name, (unsigned long long)k->start);
	cr_assert_eq(k->end, end, "%s: end %#llx, not %#llx", name, (unsigned long long)k->end,
		     (unsigned long long)end);
	cr_assert_str_eq(k->strings, name);
	cr_assert_str_eq(k->strings + strlen(k->strings) + 1, module);
}

Test(ksyms, one_record_per_function_before_its_first_stack)
{
	static const uint64_t s1[] = { K, KT + 0x110, KT + 0x120, KT + 0x208, U, KT + 0x410 };
	static const uint64_t s2[] = {
		K, KT + 0x104, KT + 0x404, MOD + 8, KT + 0x350, U, 0x400000
	};
	static const uint64_t s3[] = { K, KT + 0x204, KT + 0x1f0 };
	const uint64_t *stacks[] = { s1, s2, s1, s3 };
	const uint32_t nr[] = { 6, 7, 6, 3 };
	uint16_t types[16];
	struct wc_rec_ksym *ks[8];
	size_t nks, n;

	write_trace(text, sizeof(text) - 1, stacks, nr, 4);
	n = read_types(types, 16, ks, &nks);
	/* s1: foo, bar (not baz: its address is a user one); s2: baz, modfn (not some_data);
	 * s1 again: nothing; s3: nothing new */
	uint16_t want[] = { WC_REC_KSYM, WC_REC_KSYM,  WC_REC_STACK, WC_REC_KSYM,
			    WC_REC_KSYM, WC_REC_STACK, WC_REC_STACK };
	cr_assert_eq(n, sizeof(want) / sizeof(want[0]), "%zu records", n);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(types[i], want[i], "record %zu is of type %u", i, types[i]);
	check_ksym(ks[0], KT + 0x100, KT + 0x200, "foo", "");
	check_ksym(ks[1], KT + 0x200, KT + 0x300, "bar", ""); /* ended by the data symbol */
	check_ksym(ks[2], KT + 0x400, KT + 0x500, "baz", "");
	check_ksym(ks[3], MOD, MOD + 0x1000, "modfn", "ext4"); /* perf's page rule */
	cr_assert_eq(wc_ksym_writer_count(kw), 4);
	for (size_t i = 0; i < nks; i++)
		free(ks[i]);
}

static int on_event(void *ctx, const struct wc_rec_header *h)
{
	(void)ctx;
	(void)h;
	return 0;
}

/* Replay the file; every kernel address of the stacks looks up the same through the
 * replay's KSYM table as through the whole snapshot. */
static void check_replay_against(const uint64_t *const *stacks, const uint32_t *nr, size_t n,
				 size_t *checked)
{
	struct wc_replay *r = wc_replay_open(path);
	struct wc_replay_ops ops = { .event = on_event };
	const struct wc_replay_meta *m;

	cr_assert_not_null(r);
	cr_assert_eq(wc_replay_run(r, &ops, NULL), 0);
	m = wc_replay_meta(r);
	cr_assert(m->kallsyms_referenced);
	cr_assert_eq(wc_replay_stats(r)->bad_ksyms, 0);
	cr_assert_eq(wc_kallsyms_count(m->ksyms), wc_ksym_writer_count(kw));
	*checked = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t ctx = K;

		for (uint32_t j = 0; j < nr[i]; j++) {
			uint64_t off_a = 0, off_b = 0;
			const char *mod_a = NULL, *mod_b = NULL, *a, *b;

			if (stacks[i][j] >= (uint64_t)PERF_CONTEXT_MAX) {
				ctx = stacks[i][j];
				continue;
			}
			if (ctx != K)
				continue;
			a = wc_kallsyms_lookup(full, stacks[i][j], &off_a, &mod_a);
			b = wc_kallsyms_lookup(m->ksyms, stacks[i][j], &off_b, &mod_b);
			cr_assert((!a && !b) || (a && b && !strcmp(a, b) && off_a == off_b &&
						 !strcmp(mod_a, mod_b)),
				  "%#llx: %s+%#llx in the snapshot, %s+%#llx through the records",
				  (unsigned long long)stacks[i][j], a ? a : "(none)",
				  (unsigned long long)off_a, b ? b : "(none)",
				  (unsigned long long)off_b);
			(*checked)++;
		}
	}
	wc_replay_free(r);
}

Test(ksyms, replay_looks_up_as_the_snapshot_does)
{
	static const uint64_t s1[] = { K, KT + 0x110, KT + 0x120, KT + 0x208, U, KT + 0x410 };
	static const uint64_t s2[] = { K,	   KT + 0x104, KT + 0x404, MOD + 8, KT + 0x350,
				       KT + 0x5ff, KT + 0x10,  KT - 8,	   U,	    0x400000 };
	const uint64_t *stacks[] = { s1, s2 };
	const uint32_t nr[] = { 6, 10 };
	size_t checked;

	write_trace(text, sizeof(text) - 1, stacks, nr, 2);
	full = parse(text, sizeof(text) - 1);
	check_replay_against(stacks, nr, 2, &checked);
	cr_assert_eq(checked, 10); /* 3 kernel addresses in s1, 7 in s2 */
}

/* Every 7th text symbol of this machine's kallsyms, 3 addresses each (its start, one past it,
 * and the last byte of the function it is in), in callchains of 100 addresses taken in a
 * scrambled order: the records must name each as the whole snapshot does, through many merges
 * of the replay's table. */
Test(ksyms, this_machine)
{
	int fd = open("/proc/kallsyms", O_RDONLY);
	size_t len = 0, cap = 1 << 20, nips = 0, nstacks, checked;
	char *t = malloc(cap), *line;
	uint64_t *ips, **stacks;
	uint32_t *nr;
	ssize_t got;

	cr_assert_geq(fd, 0);
	while ((got = read(fd, t + len, cap - len - 1)) > 0) {
		len += (size_t)got;
		if (len == cap - 1)
			t = realloc(t, cap *= 2);
	}
	close(fd);
	t[len] = '\0';
	full = parse(t, len);
	if (wc_kallsyms_restricted(full)) {
		free(t);
		cr_skip_test("kernel addresses are hidden here (kptr_restrict)");
	}
	ips = malloc(3 * (len / 140 + 1) * sizeof(*ips)); /* lines are longer than 20 bytes */
	size_t lineno = 0;

	for (line = t; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		char *end;
		uint64_t a = strtoull(line, &end, 16);
		struct wc_ksym f;

		if (lineno++ % 7 || end[0] != ' ' || (end[1] != 't' && end[1] != 'T'))
			continue;
		ips[nips++] = a;
		ips[nips++] = a + 1;
		if (wc_kallsyms_find(full, a, &f) != SIZE_MAX)
			ips[nips++] = f.end - 1;
	}
	cr_assert_gt(nips, 3000, "%zu addresses", nips);
	nstacks = (nips + 99) / 100;
	stacks = calloc(nstacks, sizeof(*stacks));
	nr = calloc(nstacks, sizeof(*nr));
	for (size_t i = 0; i < nstacks; i++) {
		stacks[i] = malloc(101 * sizeof(**stacks));
		stacks[i][nr[i]++] = K;
	}
	/* address k goes to stack (k * 7919) % nstacks: neighbours end up far apart */
	for (size_t k = 0; k < nips; k++) {
		size_t i = (k * 7919) % nstacks;

		if (nr[i] == 101)
			for (i = 0; nr[i] == 101; i++)
				;
		stacks[i][nr[i]++] = ips[k];
	}
	write_trace(t, len, (const uint64_t *const *)stacks, nr, nstacks);
	check_replay_against((const uint64_t *const *)stacks, nr, nstacks, &checked);
	cr_assert_eq(checked, nips);
	for (size_t i = 0; i < nstacks; i++)
		free(stacks[i]);
	free(stacks);
	free(nr);
	free(ips);
	free(t);
}

Test(ksyms, add_rejects_overlaps_and_empty_ranges)
{
	struct wc_ksym f;

	full = wc_kallsyms_new(NULL, 0);
	cr_assert_not_null(full);
	cr_assert(wc_kallsyms_restricted(full), "an empty table names nothing");
	cr_assert_eq(wc_kallsyms_add(full, 0x1000, 0x1100, "a", ""), 0);
	cr_assert_not(wc_kallsyms_restricted(full));
	cr_assert_eq(wc_kallsyms_add(full, 0x1000, 0x1100, "a", ""), 0, "the same again: no-op");
	cr_assert_eq(wc_kallsyms_add(full, 0x10ff, 0x1200, "b", ""), -EEXIST);
	cr_assert_eq(wc_kallsyms_add(full, 0x0f00, 0x1001, "c", ""), -EEXIST);
	cr_assert_eq(wc_kallsyms_add(full, 0x1000, 0x1100, "d", ""), -EEXIST,
		     "same range, other name");
	cr_assert_eq(wc_kallsyms_add(full, 0x2000, 0x2000, "e", ""), -EINVAL);
	cr_assert_eq(wc_kallsyms_add(full, 0x2000, 0x2100, "", ""), -EINVAL);
	cr_assert_eq(wc_kallsyms_add(full, 0x1100, 0x1200, "f", "ext4"), 0, "touching is fine");
	cr_assert_eq(wc_kallsyms_count(full), 2);
	cr_assert_neq(wc_kallsyms_find(full, 0x1100, &f), SIZE_MAX);
	cr_assert_str_eq(f.name, "f");
	cr_assert_str_eq(f.module, "ext4");
	cr_assert_eq(wc_kallsyms_find(full, 0x1200, NULL), SIZE_MAX);
	cr_assert_eq(wc_kallsyms_find(full, 0xfff, NULL), SIZE_MAX);
}

/* Names handed out stay valid while more functions are added (and the table merged). */
Test(ksyms, names_stay_valid_across_adds)
{
	const char *first;
	char name[64];

	full = wc_kallsyms_new(NULL, 0);
	cr_assert_eq(wc_kallsyms_add(full, 0x100000, 0x100010, "first", ""), 0);
	first = wc_kallsyms_lookup(full, 0x100008, NULL, NULL);
	cr_assert_str_eq(first, "first");
	for (unsigned i = 0; i < 5000; i++) { /* descending: every add goes first in the order */
		snprintf(name, sizeof(name), "fn_%u_with_a_longer_name_to_fill_blocks", i);
		cr_assert_eq(wc_kallsyms_add(full, 0x90000 - 16 * (uint64_t)i,
					     0x90010 - 16 * (uint64_t)i, name, ""),
			     0);
	}
	cr_assert_str_eq(first, "first");
	cr_assert_eq(wc_kallsyms_lookup(full, 0x100008, NULL, NULL), first);
	cr_assert_str_eq(wc_kallsyms_lookup(full, 0x90000 - 16 * 4321 + 3, NULL, NULL),
			 "fn_4321_with_a_longer_name_to_fill_blocks");
	cr_assert_eq(wc_kallsyms_count(full), 5001);
}
