/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-stack-table.c - one id per distinct callchain, bounded memory. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/stack_table.h"

static struct wc_stack_table *t;

static void fini(void)
{
	wc_stack_table_free(t);
	t = NULL;
}

TestSuite(stack_table, .fini = fini);

Test(stack_table, identical_callchains_share_an_id)
{
	uint64_t a[] = { 1, 2, 3 }, a2[] = { 1, 2, 3 };
	uint32_t id1, id2;
	bool n1, n2;

	t = wc_stack_table_new(0);
	cr_assert_eq(wc_stack_table_add(t, a, 3, &id1, &n1), 0);
	cr_assert_eq(wc_stack_table_add(t, a2, 3, &id2, &n2), 0);
	cr_assert(n1);
	cr_assert_not(n2);
	cr_assert_eq(id1, id2);
	cr_assert_eq(id1, 1, "ids start at 1");
}

Test(stack_table, different_callchains_never_share)
{
	uint64_t a[] = { 1, 2, 3 }, prefix[] = { 1, 2 }, other[] = { 1, 2, 4 },
		 swapped[] = { 2, 1, 3 };
	uint32_t ids[5];
	bool n;

	t = wc_stack_table_new(0);
	cr_assert_eq(wc_stack_table_add(t, a, 3, &ids[0], &n), 0);
	cr_assert_eq(wc_stack_table_add(t, prefix, 2, &ids[1], &n), 0);
	cr_assert_eq(wc_stack_table_add(t, other, 3, &ids[2], &n), 0);
	cr_assert_eq(wc_stack_table_add(t, swapped, 3, &ids[3], &n), 0);
	cr_assert_eq(wc_stack_table_add(t, NULL, 0, &ids[4], &n), 0, "an empty callchain");
	for (int i = 0; i < 5; i++)
		for (int j = i + 1; j < 5; j++)
			cr_assert_neq(ids[i], ids[j], "%d and %d", i, j);
}

/* 200k callchains drawn from 20k distinct ones, against a plain array as reference. */
Test(stack_table, many_callchains_against_a_reference)
{
	enum { DISTINCT = 20000, DRAWS = 200000, DEPTH = 24 };
	uint64_t(*chains)[DEPTH] = calloc(DISTINCT, sizeof(*chains));
	uint32_t *len = calloc(DISTINCT, sizeof(*len));
	uint32_t *id_of = calloc(DISTINCT, sizeof(*id_of));
	uint32_t *chain_of_id = calloc(DISTINCT + 2, sizeof(*chain_of_id));
	uint64_t s = 42;
	struct wc_stack_table_stats st;

	for (int i = 0; i < DISTINCT; i++) {
		len[i] = 1 + i % DEPTH;
		for (uint32_t k = 0; k < len[i]; k++)
			chains[i][k] = 0xffffffff81000000ull + (uint64_t)(i / 7) * 64 + k;
		chains[i][0] += (uint64_t)i * 4096; /* distinct leaf */
	}
	t = wc_stack_table_new(0);
	for (int d = 0; d < DRAWS; d++) {
		uint32_t id;
		bool is_new;
		int i;

		s = s * 6364136223846793005ull + 1442695040888963407ull;
		i = (int)((s >> 33) % DISTINCT);
		cr_assert_eq(wc_stack_table_add(t, chains[i], len[i], &id, &is_new), 0);
		cr_assert_leq(id, DISTINCT);
		if (!id_of[i]) {
			cr_assert(is_new, "first sight of chain %d", i);
			cr_assert_eq(chain_of_id[id], 0, "id %u handed out twice", id);
			id_of[i] = id;
			chain_of_id[id] = (uint32_t)i + 1;
		} else {
			cr_assert_not(is_new);
			cr_assert_eq(id, id_of[i], "chain %d changed id", i);
		}
	}
	wc_stack_table_stats(t, &st);
	cr_assert_eq(st.lookups, DRAWS);
	cr_assert_eq(st.resets, 0);
	free(chains);
	free(len);
	free(id_of);
	free(chain_of_id);
}

Test(stack_table, the_bound_empties_the_table_and_ids_keep_counting)
{
	enum { N = 20000 };
	uint64_t ips[16];
	uint32_t id, last = 0, first_id;
	struct wc_stack_table_stats st;
	bool is_new;

	t = wc_stack_table_new(256 << 10);
	for (uint32_t i = 0; i < N; i++) {
		for (int k = 0; k < 16; k++)
			ips[k] = i * 100ull + (uint64_t)k;
		cr_assert_eq(wc_stack_table_add(t, ips, 16, &id, &is_new), 0);
		cr_assert(is_new);
		cr_assert_eq(id, last + 1, "ids are dense and never reused");
		last = id;
		wc_stack_table_stats(t, &st);
		cr_assert_leq(st.bytes, 256 << 10, "memory %zu above the bound", st.bytes);
	}
	cr_assert_gt(st.resets, 0, "20000 x 128 bytes cannot fit in 256 KiB");

	/* the first callchain was forgotten: it comes back under a new id */
	for (int k = 0; k < 16; k++)
		ips[k] = (uint64_t)k;
	cr_assert_eq(wc_stack_table_add(t, ips, 16, &first_id, &is_new), 0);
	cr_assert(is_new);
	cr_assert_eq(first_id, N + 1);
}

Test(stack_table, a_callchain_larger_than_the_bound_is_refused)
{
	static uint64_t ips[1 << 16];
	uint32_t id;
	bool is_new;

	t = wc_stack_table_new(64 << 10);
	cr_assert_eq(wc_stack_table_add(t, ips, 1 << 16, &id, &is_new), -E2BIG);
}
