/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symbolize.h - addresses to function names, each distinct address resolved once.
 *
 * User addresses go through the address space they were recorded in (struct wc_tasks) to a
 * mapped file and a file offset, then to that file's ELF symbols (elfsym.h), opened once per
 * file.  Kernel addresses go to the kallsyms snapshot of the trace (kallsyms.h).
 * The order for a user frame's file (man/wcanalyze.1, SYMBOLS): --symfs/--debug-dir when given,
 * then the local file when it is the recorded build (elfsym.h); then the trace's USYM records
 * (usyms.h; they also win over a local file with a .dynsym only where the recorder read a
 * .symtab); then, with --debuginfod (wc_symbol_paths.debuginfod), the file and its debug file
 * from debuginfod (debuginfod.h), which also gives a local .dynsym-only file its debug file.
 * A frame that cannot be named is shown as perf and BCC do, "[unknown]", or, when the file is
 * known but its symbols are not usable (a build-id mismatch, no symbols, no file), as
 * "file+0xoffset", never as a wrong name.
 */
#ifndef WC_ANALYZER_SYMBOLIZE_H
#define WC_ANALYZER_SYMBOLIZE_H

#include <stdint.h>
#include <stdio.h>

#include "analyzer/symbols/dwinline.h"
#include "analyzer/symbols/elfsym.h"
#include "analyzer/symbols/usyms.h"
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

/* Why a user address was left as file+0xOFFSET: an enum wc_elfsym_status (no file, mismatch,
 * no symbols, bad file) when the trace had no USYM record of the file either, or: */
enum {
	WC_SYM_WHY_NO_RECORD = WC_ELFSYM_BAD + 1, /* the file unusable, USYM records of it but
						   * none holding the address */
	WC_SYM_WHY_OUTSIDE,			  /* the file usable, the address in no function */
	WC_SYM_WHY_COUNT
};

/**
 * wc_symbolizer_set_usyms() - name the frames of files that cannot be used here (missing, not
 * the recorded build, stripped, damaged) from the trace's USYM records, looked up by the
 * recorded build-id after --symfs/--debug-dir and the local file
 * @usyms:  the records (wc_replay_meta.usyms), borrowed for the object's life; or NULL
 * @footer: wc_symbolizer_warn() also prints how many addresses were left unnamed, and why
 */
void wc_symbolizer_set_usyms(struct wc_symbolizer *s, struct wc_usyms *usyms, bool footer);

/**
 * wc_symbolizer_user() - the name of user address @ip of address space @aspace;
 * "[truncated]" for the WC_CONTEXT_TRUNCATED marker
 * Return: a name, borrowed, valid until wc_symbolizer_free(); never NULL ("[unknown]"),
 * except NULL on ENOMEM.
 */
const char *wc_symbolizer_user(struct wc_symbolizer *s, uint32_t aspace, uint64_t ip);

/**
 * wc_symbolizer_set_inline() - with @on (wcanalyze --inline, as perf report --inline and
 * stackcollapse-perf.pl --inline), wc_symbolizer_user_frames() also gives the calls the
 * compiler inlined at an address (dwinline.h), from the file whose symbols name its function,
 * or from the trace's USYM records of inlined calls (usyms.h).  Off by default, as in perf
 * script, BCC and FlameGraph.
 */
void wc_symbolizer_set_inline(struct wc_symbolizer *s, bool on);

/**
 * wc_symbolizer_user_frames() - the frames of user address @ip of address space @aspace: with
 * wc_symbolizer_set_inline() on, the inlined calls there, innermost first, then the function
 * wc_symbolizer_user() names; else that function alone
 * @out: set to the names, borrowed, valid until wc_symbolizer_free(); at most @max
 *       (WC_INLINE_MAX_DEPTH + 1 holds them all), the function always last
 * Return: how many (>= 1), or 0 on ENOMEM or when @max is 0.
 */
size_t wc_symbolizer_user_frames(struct wc_symbolizer *s, uint32_t aspace, uint64_t ip,
				 const char **out, size_t max);

/** wc_symbolizer_kernel() - the name of kernel address @ip; as wc_symbolizer_user() */
const char *wc_symbolizer_kernel(struct wc_symbolizer *s, uint64_t ip);

/**
 * wc_symbolizer_source() - where the names of the frames of file @dso (an index in the
 * tasks' dsos) come from: "local PATH (symtab)", "USYM records (the recorder's debug file;
 * here: file not found)", "none (...)"; written into @buf, @len bytes
 * Return: @buf, or NULL on ENOMEM.
 */
const char *wc_symbolizer_source(struct wc_symbolizer *s, uint32_t dso, char *buf, size_t len);

/**
 * wc_symbolizer_warn() - one line on @out per file whose symbols could not be used and that
 * frames were resolved against because it is not the recorded build or is damaged (a missing
 * or stripped file is common and left quiet, as perf does).
 * files named by USYM records are quiet too.  With the footer on, first one line counting the
 * distinct user addresses left as file+0xOFFSET by reason, when some file was missing, not the
 * recorded build or damaged.
 * Return: the number of such files.
 */
size_t wc_symbolizer_warn(const struct wc_symbolizer *s, FILE *out, const char *prog);

#endif /* WC_ANALYZER_SYMBOLIZE_H */
