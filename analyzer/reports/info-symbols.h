/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * info-symbols.h - `wcanalyze info --symbols`: per mapped file of the trace, its build-id,
 * where its frames' names come from (symbolize.h's lookup order), and how many of the
 * distinct user addresses of the trace's callchains lie in it and how many of them it names.
 */
#ifndef WC_ANALYZER_INFO_SYMBOLS_H
#define WC_ANALYZER_INFO_SYMBOLS_H

#include <stdio.h>

#include "analyzer/core/replay.h"
#include "analyzer/core/tasks.h"
#include "analyzer/symbols/symbolize.h"

/**
 * wc_info_symbols_write() - the table on @out, one line per mapped file with a frame in it,
 * after a replay of the whole file
 * @t:   the address spaces, @r the callchains, @sym the symbolizer over @t; all borrowed
 *
 * An address is counted once per file, whichever processes mapped it there.
 * Return: 0, or -ENOMEM.
 */
int wc_info_symbols_write(const struct wc_tasks *t, const struct wc_replay *r,
			  struct wc_symbolizer *sym, FILE *out);

#endif /* WC_ANALYZER_INFO_SYMBOLS_H */
