/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ksyms.h - the KSYM records of a recording: of the kallsyms snapshot wcrec reads at its
 * start, the kernel functions its callchains refer to, each written once, just before the
 * first STACK record with an address in it (common/wct.h, man/wcrec-trace.5).
 *
 * Why not the snapshot whole: /proc/kallsyms is some 5 MB and 120k functions, about 1 MB
 * compressed (0.5 MB of names alone at zstd's highest level), more than the events of a
 * minute's recording; a recording refers to a few hundred to a few thousand of them.
 * wcrec --full-kallsyms still writes it whole.
 */
#ifndef WC_RECORDER_KSYMS_H
#define WC_RECORDER_KSYMS_H

#include <stddef.h>
#include <stdint.h>

#include "common/kallsyms.h"
#include "common/writer.h"

struct wc_ksym_writer;

/**
 * wc_ksym_writer_new() - write the KSYM records of the functions of @snapshot
 * @snapshot: the parsed /proc/kallsyms; the writer takes ownership
 *
 * Return: the writer, or NULL (ENOMEM); @snapshot is freed then too.
 */
struct wc_ksym_writer *wc_ksym_writer_new(struct wc_kallsyms *snapshot);

/**
 * wc_ksym_writer_stack() - a wc_writer_stack_hook: write the KSYM records of the kernel
 * functions of one new callchain that no earlier callchain referred to
 * @ctx: the struct wc_ksym_writer
 * @w:   where the records go
 * @ips: nr addresses, leaf first, with perf's context markers; addresses after a
 *       PERF_CONTEXT_KERNEL marker (and before any marker) are kernel ones, as in
 *       tools/perf/util/machine.c
 *
 * An address in no function of the snapshot gets no record: a reader leaves it unnamed too.
 * Return: 0, -ENOMEM, or the writer's error.
 */
int wc_ksym_writer_stack(void *ctx, struct wc_writer *w, const uint64_t *ips, uint32_t nr);

/** wc_ksym_writer_count() - Return: KSYM records written so far */
size_t wc_ksym_writer_count(const struct wc_ksym_writer *kw);

/** wc_ksym_writer_free() - free it and its snapshot; NULL is a no-op */
void wc_ksym_writer_free(struct wc_ksym_writer *kw);

#endif /* WC_RECORDER_KSYMS_H */
