/* SPDX-License-Identifier: GPL-2.0-or-later */
/* elfsym-names.c - symbol names as reports show them: demangled, unversioned (elfsym-priv.h). */
#include <libiberty/demangle.h>
#include <stdbool.h>
#include <string.h>

#include "analyzer/symbols/elfsym-priv.h"

static void demangle_out(const char *s, size_t n, void *opaque)
{
	struct demangled *d = opaque;

	if (d->overflow || n >= DEMANGLE_OUT_MAX - d->len) {
		d->overflow = true;
		return;
	}
	memcpy(d->buf + d->len, s, n);
	d->len += n;
}

/* Does the demangled name end with a Rust legacy hash, "::h" and 16 hex digits? */
static bool has_rust_hash(const char *s, size_t len)
{
	if (len < 19 || memcmp(s + len - 19, "::h", 3))
		return false;
	for (size_t i = len - 16; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* Worth trying the Rust demangler on: "_R..." (v0), "_ZN...17h<16 hex digits>E" (legacy)? */
static bool maybe_rust(const char *s)
{
	return !strncmp(s, "_R", 2) || (!strncmp(s, "_ZN", 3) && strstr(s, "17h"));
}

/*
 * Add a symbol's name to b: without its version ("@@GLIBC_2.2.5"), demangled when it is a C++
 * or Rust name.  The callback forms of the demanglers are used: they do not allocate, where
 * cplus_demangle() would exit the program through xmalloc() when out of memory.
 * Return: the name's offset, or WC_STRBUF_FAIL when out of memory.
 */
uint32_t wc_elfsym_add_name(struct wc_strbuf *b, struct demangled *d, const char *raw)
{
	size_t n = strcspn(raw, "@");
	char in[DEMANGLE_IN_MAX];

	if (!n)
		n = strlen(raw);
	if (raw[0] != '_' || n >= sizeof(in))
		return wc_strbuf_add(b, raw, n);
	memcpy(in, raw, n);
	in[n] = '\0';
	d->len = 0;
	d->overflow = false;
	if (!maybe_rust(in) || !rust_demangle_callback(in, DEMANGLE_OPTS, demangle_out, d)) {
		d->len = 0;
		d->overflow = false;
		if (!cplus_demangle_v3_callback(in, DEMANGLE_OPTS, demangle_out, d))
			return wc_strbuf_add(b, raw, n);
	}
	if (d->overflow || !d->len)
		return wc_strbuf_add(b, raw, n);
	/* a Rust legacy name that the Rust demangler refused comes out of the C++ one hashed */
	if (!strncmp(in, "_ZN", 3) && has_rust_hash(d->buf, d->len))
		d->len -= 19;
	return wc_strbuf_add(b, d->buf, d->len);
}
