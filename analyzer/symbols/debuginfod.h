/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * debuginfod.h - a mapped file and its debug file fetched by build-id from the servers of
 * DEBUGINFOD_URLS (libdebuginfod, elfutils), through its cache (DEBUGINFOD_CACHE_PATH, by
 * default ~/.cache/debuginfod_client), as elfutils and perf do.  wcanalyze asks only with
 * --debuginfod: a default DEBUGINFOD_URLS (Debian sets one for login shells) would otherwise
 * send every analysis of a file from elsewhere to the network.
 */
#ifndef WC_ANALYZER_DEBUGINFOD_H
#define WC_ANALYZER_DEBUGINFOD_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/symbols/elfsym.h"

struct wc_debuginfod;

/**
 * wc_debuginfod_new() - a client of the servers of DEBUGINFOD_URLS
 * @urls: the servers (space-separated), set as DEBUGINFOD_URLS for the client; NULL to keep
 *        the environment's
 * Return: the client, or NULL with errno set (ENOMEM, or ENOENT when no server is named).
 */
struct wc_debuginfod *wc_debuginfod_new(const char *urls);

/** wc_debuginfod_free() - end the client; NULL is a no-op */
void wc_debuginfod_free(struct wc_debuginfod *d);

/**
 * wc_debuginfod_open() - the symbols of build-id @id (@len bytes) from a server: its
 * executable (or shared object), with its debug file when it has no .symtab; or, with @local
 * (a local file of that build that has only a .dynsym), @local with the server's debug file
 * Return: the symbols (wc_elfsym_open_pair()), to free with wc_elfsym_free(); NULL when the
 * servers have neither file (errno ENOENT) or on ENOMEM.
 */
struct wc_elfsym *wc_debuginfod_open(struct wc_debuginfod *d, const uint8_t *id, size_t len,
				     const char *local);

#endif /* WC_ANALYZER_DEBUGINFOD_H */
