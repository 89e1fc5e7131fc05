/* SPDX-License-Identifier: GPL-2.0-or-later */
/* elfsym-priv.h - what elfsym.c shares with elfsym-names.c, and no one else. */
#ifndef WC_ANALYZER_ELFSYM_PRIV_H
#define WC_ANALYZER_ELFSYM_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"

/* Longer mangled names stay mangled: the demangler's stack use grows with the name. */
#define DEMANGLE_IN_MAX	 8192  /* bytes */
#define DEMANGLE_OUT_MAX 65536 /* bytes: a longer demangled name is not used */
#define DEMANGLE_OPTS	 (DMGL_PARAMS | DMGL_ANSI)

/* Output of one demangling, through the libiberty callback. */
struct demangled {
	char *buf; /* DEMANGLE_OUT_MAX bytes, the caller's */
	size_t len;
	bool overflow;
};

/*
 * wc_elfsym_add_name() - add a symbol's name to @b: without its version ("@@GLIBC_2.2.5"),
 * demangled when it is a C++ or Rust name, through @d's buffer.  The callback forms of the
 * demanglers are used: they do not allocate, where cplus_demangle() would exit the program
 * through xmalloc() when out of memory.
 * Return: the name's offset in @b, or WC_STRBUF_FAIL when out of memory.
 */
uint32_t wc_elfsym_add_name(struct wc_strbuf *b, struct demangled *d, const char *raw);

#endif /* WC_ANALYZER_ELFSYM_PRIV_H */
