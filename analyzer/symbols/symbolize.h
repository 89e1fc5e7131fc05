/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symbolize.h - addresses to function names, each distinct address resolved once.
 *
 * User addresses go through the address space they were recorded in (struct wc_tasks) to a
 * mapped file and a file offset, then to that file's ELF symbols (elfsym.h), opened once per
 * file.  Kernel addresses go to the kallsyms snapshot of the trace (kallsyms.h).
 * A frame that cannot be named is shown as perf and BCC do, "[unknown]", or, when the file is
 * known but its symbols are not usable (a build-id mismatch, no symbols, no file), as
 * "file+0xoffset", never as a wrong name.
 */
#ifndef WC_ANALYZER_SYMBOLIZE_H
#define WC_ANALYZER_SYMBOLIZE_H

#include <stdint.h>
#include <stdio.h>

#include "analyzer/symbols/elfsym.h"
#include "analyzer/core/tasks.h"

struct wc_symbolizer;
struct wc_kallsyms;

/**
 * wc_symbolizer_new() - a symbolizer over @tasks' address spaces and the trace's kernel symbols
 * @kallsyms:   the trace's /proc/kallsyms snapshot, @len bytes, or NULL; copied.  Files before
 *              format 1.2, and wcrec --full-kallsyms, have it.
 * @referenced: the functions of the trace's KSYM records (wc_replay_meta.ksyms), looked up
 *              when @kallsyms is NULL or empty; borrowed for the object's life, and it may grow
 *              meanwhile (lookups see what it holds then); or NULL
 * @paths:      where to look for files (--symfs, --debug-dir), and the kernel's symbols when
 *              the trace has neither @kallsyms nor @referenced (--kallsyms: a perf.data);
 *              borrowed for the object's life
 * Return: the symbolizer, or NULL with errno ENOMEM.
 */
struct wc_symbolizer *wc_symbolizer_new(const struct wc_tasks *tasks, const char *kallsyms,
					size_t len, const struct wc_kallsyms *referenced,
					const struct wc_symbol_paths *paths);
void wc_symbolizer_free(struct wc_symbolizer *s);

/**
 * wc_symbolizer_user() - the name of user address @ip of address space @aspace;
 * "[truncated]" for the WC_CONTEXT_TRUNCATED marker
 * Return: a name, borrowed, valid until wc_symbolizer_free(); never NULL ("[unknown]"),
 * except NULL on ENOMEM.
 */
const char *wc_symbolizer_user(struct wc_symbolizer *s, uint32_t aspace, uint64_t ip);

/** wc_symbolizer_kernel() - the name of kernel address @ip; as wc_symbolizer_user() */
const char *wc_symbolizer_kernel(struct wc_symbolizer *s, uint64_t ip);

/**
 * wc_symbolizer_warn() - one line on @out per file whose symbols could not be used and that
 * frames were resolved against because it is not the recorded build or is damaged (a missing
 * or stripped file is common and left quiet, as perf does).
 * Return: the number of such files.
 */
size_t wc_symbolizer_warn(const struct wc_symbolizer *s, FILE *out, const char *prog);

#endif /* WC_ANALYZER_SYMBOLIZE_H */
