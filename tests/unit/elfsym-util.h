/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * elfsym-util.h - what the elfsym tests share: a temporary directory per test, files built
 * there with the system compiler, and what nm and readelf say about them.
 */
#ifndef WC_TEST_ELFSYM_UTIL_H
#define WC_TEST_ELFSYM_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/symbols/elfsym.h"

extern char dir[64];	    /* this test's temporary directory */
extern struct wc_elfsym *e; /* the symbols under test, freed by elfsym_fini() */
extern const char prog_c[]; /* a program with target_fn() and a static local_fn() */

void elfsym_init(void);
void elfsym_fini(void);
__attribute__((format(printf, 1, 2))) int run(const char *fmt, ...);
bool have(const char *tool);
__attribute__((format(printf, 2, 3))) char *pathf(char *buf, const char *fmt, ...);
char *in_dir(char *buf, const char *name);
void write_file(const char *path, const char *text);
void build(char *out, const char *name, const char *cc, const char *ext, const char *src,
	   const char *flags);
bool nm_symbol(const char *path, const char *name, bool exact, bool dyn, uint64_t *addr,
	       uint64_t *size);
uint64_t file_offset(const char *path, uint64_t vaddr);
size_t readelf_build_id(const char *path, uint8_t *id);
void id_hex(char *out, const uint8_t *id, size_t len);
void open_ok(const char *path, const uint8_t *id, size_t id_len,
	     const struct wc_symbol_paths *paths);
void open_status(const char *path, const uint8_t *id, size_t id_len,
		 const struct wc_symbol_paths *paths, enum wc_elfsym_status want);
void check_function(const char *nm_path, const char *seg_path, const char *sym, bool exact,
		    bool dyn, const char *want);

#endif /* WC_TEST_ELFSYM_UTIL_H */
