/* SPDX-License-Identifier: GPL-2.0-or-later */
/* info.h - `wcanalyze info`: what a trace holds, and the edge cases its replay met. */
#ifndef WC_ANALYZER_INFO_H
#define WC_ANALYZER_INFO_H

#include <stdio.h>

#include "analyzer/analysis.h"

/**
 * wc_info_write() - the info report of analysis @a (run already) on @out
 * Return: 0, or -EIO when @out failed.
 */
int wc_info_write(const struct wc_analysis *a, FILE *out);

/**
 * wc_info_warn_counts() - one line on @err when events were lost, late or undecodable, or
 * off-CPU intervals were dropped, and one when tracepoint formats were left out; nothing
 * otherwise
 */
void wc_info_warn_counts(const struct wc_analysis *a, FILE *err);

#endif /* WC_ANALYZER_INFO_H */
