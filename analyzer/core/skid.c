/* SPDX-License-Identifier: GPL-2.0-or-later */
/* skid.c - see skid.h. */
#include <string.h>

#include "analyzer/core/callchain.h"
#include "analyzer/core/skid.h"

bool wc_skid_stack(const struct wc_analysis *a, struct wc_symbolizer *sym, uint32_t stack_id)
{
	uint32_t nr = 0;
	const uint64_t *ips = wc_replay_stack(wc_analysis_replay(a), stack_id, &nr);
	struct wc_callchain cc;
	const char *name;

	wc_callchain_split(ips, nr, &cc);
	if (!cc.nkernel)
		return false;
	name = wc_symbolizer_kernel(sym, cc.kernel[0]); /* the leaf */
	return name && !strncmp(name, "finish_task_switch", 18) &&
	       (name[18] == '\0' || name[18] == '.');
}

uint64_t wc_skid_count(const struct wc_analysis *a, struct wc_symbolizer *sym, uint64_t *total)
{
	const struct wc_map64 *m = wc_analysis_near_stacks(a);
	uint64_t n = 0;

	*total = wc_analysis_facts(a)->thread_samples;
	for (size_t i = 0; m->keys && i <= m->mask; i++)
		if (m->keys[i] != WC_MAP64_EMPTY && wc_skid_stack(a, sym, (uint32_t)m->keys[i]))
			n += m->values[i];
	return n;
}
