/* SPDX-License-Identifier: GPL-2.0-or-later */
/* elfsym-util.c - see elfsym-util.h. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/unit/elfsym-util.h"

char dir[64]; /* this test's temporary directory */
struct wc_elfsym *e;

void elfsym_init(void)
{
	strcpy(dir, "/tmp/test-elfsym-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

void elfsym_fini(void)
{
	char cmd[128];

	wc_elfsym_free(e);
	e = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

/* ---- tools ---- */

/* Run a shell command.  Return: its exit status, or -1 when it did not exit. */
__attribute__((format(printf, 1, 2))) int run(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

bool have(const char *tool)
{
	return !run("command -v %s >/dev/null 2>&1", tool);
}

/* Format a path into buf[PATH_MAX]; a path too long fails the test.  Return: buf. */
__attribute__((format(printf, 2, 3))) char *pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	cr_assert(n >= 0 && n < PATH_MAX, "path too long");
	return buf;
}

/* dir/name, in a buffer of PATH_MAX bytes */
char *in_dir(char *buf, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s", dir, name);
	return buf;
}

void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* Write src to dir/name.ext and build dir/name with compiler cc and flags; set out to it. */
void build(char *out, const char *name, const char *cc, const char *ext, const char *src,
	   const char *flags)
{
	char source[PATH_MAX], srcname[64];

	snprintf(srcname, sizeof(srcname), "%s.%s", name, ext);
	write_file(in_dir(source, srcname), src);
	in_dir(out, name);
	cr_assert_eq(run("%s -O1 -g -fno-omit-frame-pointer -Wl,--build-id=sha1 %s -o '%s' '%s'",
			 cc, flags, out, source),
		     0, "%s %s: build failed", cc, source);
}

/*
 * Find a symbol with nm -S: its address and size.  With exact, the name must be equal (a
 * "@VERSION" suffix aside), else contain name.  dyn reads the dynamic table.
 * Return: found.
 */
bool nm_symbol(const char *path, const char *name, bool exact, bool dyn, uint64_t *addr,
	       uint64_t *size)
{
	char cmd[PATH_MAX + 64], line[4096], sym[4096], type;
	bool found = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only %s '%s' 2>/dev/null", dyn ? "-D" : "",
		 path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (!found && fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %c %4095s", addr, size, &type, sym) != 4)
			continue;
		sym[strcspn(sym, "@")] = '\0';
		found = exact ? !strcmp(sym, name) : strstr(sym, name) != NULL;
	}
	pclose(p);
	return found;
}

/*
 * The file offset of a virtual address, from the PT_LOAD lines of readelf -lW.  The segments
 * of the last file asked about are kept: the libc test asks thousands of times.
 */
uint64_t file_offset(const char *path, uint64_t vaddr)
{
	static char cached[PATH_MAX];
	static uint64_t segs[32][3]; /* offset, vaddr, filesz */
	static int nsegs;
	char cmd[PATH_MAX + 32], line[512];
	uint64_t pa;
	FILE *p;

	if (strcmp(cached, path)) {
		snprintf(cmd, sizeof(cmd), "readelf -lW '%s' 2>/dev/null", path);
		p = popen(cmd, "r");
		cr_assert_not_null(p);
		for (nsegs = 0; nsegs < 32 && fgets(line, sizeof(line), p);) {
			uint64_t *s = segs[nsegs];

			nsegs +=
				sscanf(line,
				       " LOAD 0x%" SCNx64 " 0x%" SCNx64 " 0x%" SCNx64 " 0x%" SCNx64,
				       &s[0], &s[1], &pa, &s[2]) == 4;
		}
		pclose(p);
		snprintf(cached, sizeof(cached), "%s", path);
	}
	for (int i = 0; i < nsegs; i++)
		if (vaddr >= segs[i][1] && vaddr - segs[i][1] < segs[i][2])
			return vaddr - segs[i][1] + segs[i][0];
	cr_assert_fail("%s: no segment holds %#" PRIx64, path, vaddr);
	return UINT64_MAX;
}

/* The build-id of path, from readelf -n, into id[20].  Return: its length, 0 without one. */
size_t readelf_build_id(const char *path, uint8_t *id)
{
	char cmd[PATH_MAX + 32], line[512], *hex;
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		hex = strstr(line, "Build ID: ");
		if (!hex || n)
			continue;
		for (hex += 10; n < 20 && sscanf(hex, "%2hhx", &id[n]) == 1; hex += 2)
			n++;
	}
	pclose(p);
	return n;
}

/* "xx/yyyy..." for a build-id */
void id_hex(char *out, const uint8_t *id, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		out += sprintf(out, "%02x", id[i]);
		if (!i)
			*out++ = '/';
	}
}

void open_ok(const char *path, const uint8_t *id, size_t id_len,
	     const struct wc_symbol_paths *paths)
{
	wc_elfsym_free(e);
	e = wc_elfsym_open(path, id, id_len, paths);
	cr_assert_not_null(e);
	cr_assert_eq(wc_elfsym_status(e), WC_ELFSYM_OK, "%s: %s", path,
		     wc_elfsym_status_text(wc_elfsym_status(e)));
}

void open_status(const char *path, const uint8_t *id, size_t id_len,
		 const struct wc_symbol_paths *paths, enum wc_elfsym_status want)
{
	wc_elfsym_free(e);
	e = wc_elfsym_open(path, id, id_len, paths);
	cr_assert_not_null(e);
	cr_assert_eq(wc_elfsym_status(e), want, "%s: %s, expected %s", path,
		     wc_elfsym_status_text(wc_elfsym_status(e)), wc_elfsym_status_text(want));
	if (want != WC_ELFSYM_OK) {
		cr_expect_null(wc_elfsym_file(e));
		cr_expect_eq(wc_elfsym_count(e), 0);
	}
}

/*
 * Check e against nm: the function sym of nm_path (exact name or a part of it; dyn: in the
 * dynamic table) is found as want at its start, start + 1 and end - 1, and not just outside.
 * File offsets come from the program headers of seg_path, or of nm_path when it is NULL (a
 * debug file's program headers give no file offsets).
 */
void check_function(const char *nm_path, const char *seg_path, const char *sym, bool exact,
		    bool dyn, const char *want)
{
	uint64_t addr, size, off, so;
	const char *got;

	cr_assert(nm_symbol(nm_path, sym, exact, dyn, &addr, &size), "%s: no %s", nm_path, sym);
	cr_assert_gt(size, 2, "%s is too small to test", sym);
	off = file_offset(seg_path ? seg_path : nm_path, addr);
	for (uint64_t d = 0; d < size; d += d == 1 ? size - 2 : 1) {
		so = 99999;
		got = wc_elfsym_lookup(e, off + d, &so);
		cr_assert_not_null(got, "%s+%#" PRIx64 " (offset %#" PRIx64 "): not found", sym, d,
				   off + d);
		cr_expect_str_eq(got, want, "at %s+%#" PRIx64, sym, d);
		cr_expect_eq(so, d, "at %s+%#" PRIx64 ": offset %#" PRIx64, sym, d, so);
	}
	got = wc_elfsym_lookup(e, off + size, &so);
	cr_expect(!got || strcmp(got, want), "%s found past its end", want);
	got = wc_elfsym_lookup(e, off - 1, &so);
	cr_expect(!got || strcmp(got, want), "%s found before its start", want);
}

const char prog_c[] =
	"static int (*volatile fp)(int);\n"
	"__attribute__((noinline)) static int local_fn(int x)\n"
	"{ volatile int y = x; for (int i = 0; i < 8; i++) y = y * 3 + i; return y; }\n"
	"__attribute__((noinline)) int target_fn(int x)\n"
	"{\n"
	"	volatile int y = x;\n"
	"	for (int i = 0; i < 8; i++) y += i * x;\n"
	"#ifdef VARIANT\n"
	"	y += VARIANT;\n"
	"#endif\n"
	"	return y + local_fn(x);\n"
	"}\n"
	"int main(int argc, char **argv) { (void)argv; fp = target_fn; return fp(argc) & 1; }\n";
