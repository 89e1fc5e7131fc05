/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ksyms.c - KSYM records of the kernel functions callchains refer to (see ksyms.h). */
#include "recorder/ksyms.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "common/wct.h"

struct wc_ksym_writer {
	struct wc_kallsyms *snapshot;
	uint64_t *written; /* bitmap by function index: its KSYM record is out */
	size_t count;
};

struct wc_ksym_writer *wc_ksym_writer_new(struct wc_kallsyms *snapshot)
{
	struct wc_ksym_writer *kw = calloc(1, sizeof(*kw));
	size_t words = wc_kallsyms_count(snapshot) / 64 + 1;

	if (kw)
		kw->written = calloc(words, sizeof(*kw->written));
	if (!kw || !kw->written) {
		free(kw);
		wc_kallsyms_free(snapshot);
		errno = ENOMEM;
		return NULL;
	}
	kw->snapshot = snapshot;
	return kw;
}

/* Write the KSYM record of f.  Return: 0, -ENOMEM or the writer's error. */
static int write_ksym(struct wc_writer *w, const struct wc_ksym *f)
{
	size_t name_len = strlen(f->name) + 1, mod_len = strlen(f->module) + 1;
	uint32_t size = WC_ALIGN8((uint32_t)(sizeof(struct wc_rec_ksym) + name_len + mod_len));
	struct wc_rec_ksym *r;
	int err;

	if (name_len + mod_len > 4096) /* kallsyms names are at most 512 bytes (KSYM_NAME_LEN) */
		return 0;
	r = calloc(1, size);
	if (!r)
		return -ENOMEM;
	r->h = (struct wc_rec_header){ .size = size, .type = WC_REC_KSYM };
	r->start = f->start;
	r->end = f->end;
	r->strings_len = (uint32_t)(name_len + mod_len);
	memcpy(r->strings, f->name, name_len);
	memcpy(r->strings + name_len, f->module, mod_len);
	err = wc_writer_add(w, r);
	free(r);
	return err;
}

int wc_ksym_writer_stack(void *ctx, struct wc_writer *w, const uint64_t *ips, uint32_t nr)
{
	struct wc_ksym_writer *kw = ctx;
	uint64_t context = PERF_CONTEXT_KERNEL;

	for (uint32_t i = 0; i < nr; i++) {
		struct wc_ksym f;
		size_t idx;
		int err;

		if (ips[i] >= (uint64_t)PERF_CONTEXT_MAX) {
			context = ips[i];
			continue;
		}
		if (context != PERF_CONTEXT_KERNEL)
			continue;
		idx = wc_kallsyms_find(kw->snapshot, ips[i], &f);
		if (idx == SIZE_MAX || kw->written[idx / 64] & 1ull << idx % 64)
			continue;
		err = write_ksym(w, &f);
		if (err)
			return err;
		kw->written[idx / 64] |= 1ull << idx % 64;
		kw->count++;
	}
	return 0;
}

size_t wc_ksym_writer_count(const struct wc_ksym_writer *kw)
{
	return kw->count;
}

void wc_ksym_writer_free(struct wc_ksym_writer *kw)
{
	if (!kw)
		return;
	wc_kallsyms_free(kw->snapshot);
	free(kw->written);
	free(kw);
}
