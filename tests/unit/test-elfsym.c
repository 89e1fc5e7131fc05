/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-elfsym.c - function lookups by file offset in ELF files built here with the system
 * compiler (PIE, fixed-address, shared, C++, Rust names, stripped, with separate debug info),
 * against what nm and readelf say about the same files; build-id checks, --symfs, debug
 * directories, and damaged files.
 *
 * Every test works in its own temporary directory.  Tests that need a tool that is not
 * installed (g++, rustc) skip.
 */
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

#include "analyzer/elfsym.h"

static char dir[64]; /* this test's temporary directory */
static struct wc_elfsym *e;

static void init(void)
{
	strcpy(dir, "/tmp/test-elfsym-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void fini(void)
{
	char cmd[128];

	wc_elfsym_free(e);
	e = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

TestSuite(elfsym, .init = init, .fini = fini);

/* ---- tools ---- */

/* Run a shell command.  Return: its exit status, or -1 when it did not exit. */
__attribute__((format(printf, 1, 2))) static int run(const char *fmt, ...)
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

static bool have(const char *tool)
{
	return !run("command -v %s >/dev/null 2>&1", tool);
}

/* Format a path into buf[PATH_MAX]; a path too long fails the test.  Return: buf. */
__attribute__((format(printf, 2, 3))) static char *pathf(char *buf, const char *fmt, ...)
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
static char *in_dir(char *buf, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s", dir, name);
	return buf;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* Write src to dir/name.ext and build dir/name with compiler cc and flags; set out to it. */
static void build(char *out, const char *name, const char *cc, const char *ext, const char *src,
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
static bool nm_symbol(const char *path, const char *name, bool exact, bool dyn, uint64_t *addr,
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
static uint64_t file_offset(const char *path, uint64_t vaddr)
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

			nsegs += sscanf(line, " LOAD 0x%" SCNx64 " 0x%" SCNx64 " 0x%" SCNx64
					      " 0x%" SCNx64,
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
static size_t readelf_build_id(const char *path, uint8_t *id)
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
static void id_hex(char *out, const uint8_t *id, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		out += sprintf(out, "%02x", id[i]);
		if (!i)
			*out++ = '/';
	}
}

static void open_ok(const char *path, const uint8_t *id, size_t id_len,
		    const struct wc_symbol_paths *paths)
{
	wc_elfsym_free(e);
	e = wc_elfsym_open(path, id, id_len, paths);
	cr_assert_not_null(e);
	cr_assert_eq(wc_elfsym_status(e), WC_ELFSYM_OK, "%s: %s", path,
		     wc_elfsym_status_text(wc_elfsym_status(e)));
}

static void open_status(const char *path, const uint8_t *id, size_t id_len,
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
static void check_function(const char *nm_path, const char *seg_path, const char *sym, bool exact,
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

static const char prog_c[] =
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

/* ---- executables and libraries ---- */

Test(elfsym, pie_executable)
{
	char prog[PATH_MAX];

	build(prog, "prog", "cc", "c", prog_c, "-pie -fPIE");
	open_ok(prog, NULL, 0, NULL);
	cr_expect_str_eq(wc_elfsym_file(e), prog);
	cr_expect_geq(wc_elfsym_count(e), 3);
	check_function(prog, NULL, "target_fn", true, false, "target_fn");
	check_function(prog, NULL, "local_fn", true, false, "local_fn");
	check_function(prog, NULL, "main", true, false, "main");
	cr_expect_null(wc_elfsym_lookup(e, 0, NULL), "the ELF header is no function");
	cr_expect_null(wc_elfsym_lookup(e, UINT64_MAX, NULL));
}

Test(elfsym, fixed_address_executable)
{
	char prog[PATH_MAX];
	uint64_t addr, size;

	build(prog, "prog", "cc", "c", prog_c, "-no-pie -fno-pie");
	cr_assert(nm_symbol(prog, "target_fn", true, false, &addr, &size));
	cr_assert_gt(addr, file_offset(prog, addr), "a fixed-address executable links above 0");
	open_ok(prog, NULL, 0, NULL);
	check_function(prog, NULL, "target_fn", true, false, "target_fn");
	check_function(prog, NULL, "local_fn", true, false, "local_fn");
}

Test(elfsym, shared_library)
{
	static const char lib_c[] =
		"__attribute__((noinline)) static int lib_local(int x)\n"
		"{ volatile int y = x; for (int i = 0; i < 8; i++) y = y * 3 + i; return y; }\n"
		"int lib_fn(int x)\n"
		"{ volatile int y = x; for (int i = 0; i < 8; i++) y += i * x;\n"
		"  return y + lib_local(x); }\n"
		"__attribute__((noinline)) int vers_impl(int x)\n"
		"{ volatile int y = x; for (int i = 0; i < 8; i++) y ^= i * x; return y; }\n"
		"__asm__(\".symver vers_impl, vers_fn@@VERS_1\");\n";
	char lib[PATH_MAX], map[PATH_MAX], flags[PATH_MAX + 64];

	write_file(in_dir(map, "lib.map"), "VERS_1 { global: lib_fn; vers_fn; local: *; };\n");
	snprintf(flags, sizeof(flags), "-shared -fPIC -Wl,--version-script='%s'", map);
	build(lib, "lib.so", "cc", "c", lib_c, flags);
	open_ok(lib, NULL, 0, NULL);
	check_function(lib, NULL, "lib_fn", true, false, "lib_fn");
	check_function(lib, NULL, "lib_local", true, false, "lib_local");
	/* .symtab holds "vers_fn@@VERS_1", global, and "vers_impl", local, at one address */
	check_function(lib, NULL, "vers_impl", true, false, "vers_fn");
}

Test(elfsym, cxx_names_are_demangled)
{
	static const char prog_cc[] =
		"namespace ns {\n"
		"struct Klass { int method(int); };\n"
		"__attribute__((noinline)) int Klass::method(int x)\n"
		"{ volatile int y = x; for (int i = 0; i < 8; i++) y += i * x; return y; }\n"
		"}\n"
		"int main(int argc, char **) { ns::Klass k; return k.method(argc) & 1; }\n";
	char prog[PATH_MAX];

	if (!have("g++"))
		cr_skip_test("g++ is not installed");
	build(prog, "prog", "g++", "cc", prog_cc, "");
	open_ok(prog, NULL, 0, NULL);
	check_function(prog, NULL, "_ZN2ns5Klass6methodEi", true, false, "ns::Klass::method(int)");
}

/* Rust names without rustc: C functions given mangled names with asm labels. */
Test(elfsym, rust_names_are_demangled)
{
	static const char src[] =
		"int legacy(int x) __asm__(\"_ZN4core3fmt5write17h0123456789abcdefE\");\n"
		"int v0(int x) __asm__(\"_RNvCs1234_7mycrate7example\");\n"
		"int not_hash(int x) __asm__(\"_ZN5inner5thing4hxyzE\");\n"
		"int zero_hash(int x) __asm__(\"_ZN5inner5thing17h0000000000000000E\");\n"
		"__attribute__((noinline)) int legacy(int x)\n"
		"{ volatile int y = x; for (int i = 0; i < 8; i++) y += i * x; return y; }\n"
		"__attribute__((noinline)) int v0(int x)\n"
		"{ volatile int y = x; for (int i = 0; i < 8; i++) y ^= i * x; return y; }\n"
		"__attribute__((noinline)) int not_hash(int x)\n"
		"{ volatile int y = x; for (int i = 0; i < 8; i++) y -= i * x; return y; }\n"
		"__attribute__((noinline)) int zero_hash(int x)\n"
		"{ volatile int y = x; for (int i = 0; i < 8; i++) y |= i * x; return y; }\n"
		"int main(int argc, char **argv)\n"
		"{ (void)argv; return (legacy(argc) + v0(argc) + not_hash(argc) +\n"
		"  zero_hash(argc)) & 1; }\n";
	char prog[PATH_MAX];

	build(prog, "prog", "cc", "c", src, "");
	open_ok(prog, NULL, 0, NULL);
	check_function(prog, NULL, "_ZN4core3fmt5write17h0123456789abcdefE", true, false,
		       "core::fmt::write");
	check_function(prog, NULL, "_RNvCs1234_7mycrate7example", true, false, "mycrate::example");
	/* C++ that looks like Rust, and not quite */
	check_function(prog, NULL, "_ZN5inner5thing4hxyzE", true, false, "inner::thing::hxyz");
	/* a Rust legacy name libiberty's Rust demangler refuses (a hash of under 5 distinct
	 * digits): the C++ demangler's "::h<hash>" is cut as perf does */
	check_function(prog, NULL, "_ZN5inner5thing17h0000000000000000E", true, false,
		       "inner::thing");
}

Test(elfsym, rustc_binaries)
{
	static const char src[] =
		"#[inline(never)]\n"
		"fn compute(x: u32) -> u32 {\n"
		"    let mut y = x;\n"
		"    for i in 0..x { y = y.wrapping_mul(31).wrapping_add(i); }\n"
		"    y\n"
		"}\n"
		"fn main() {\n"
		"    std::process::exit(compute(std::env::args().count() as u32) as i32 & 1)\n"
		"}\n";
	char rs[PATH_MAX], prog[PATH_MAX];
	const char *manglings[] = { "", "-C symbol-mangling-version=v0" };

	if (!have("rustc"))
		cr_skip_test("rustc is not installed");
	write_file(in_dir(rs, "prog.rs"), src);
	for (int i = 0; i < 2; i++) {
		in_dir(prog, i ? "prog_v0" : "prog_default");
		cr_assert_eq(run("rustc -O -g %s --crate-name prog -o '%s' '%s'", manglings[i],
				 prog, rs),
			     0);
		open_ok(prog, NULL, 0, NULL);
		/* rustc's segments are not at file offset == virtual address, unlike ld's */
		check_function(prog, NULL, "7compute", false, false, "prog::compute");
	}
}

/* ---- stripped files, debug files ---- */

Test(elfsym, stripped_uses_the_dynamic_table)
{
	char prog[PATH_MAX], copy[PATH_MAX];
	uint64_t addr, size;

	build(prog, "prog", "cc", "c", prog_c, "-pie -fPIE -rdynamic");
	cr_assert_eq(run("cp '%s' '%s' && strip --strip-all '%s'", prog, in_dir(copy, "unstripped"),
			 prog),
		     0);
	cr_assert_not(nm_symbol(prog, "local_fn", true, false, &addr, &size), "not stripped");
	open_ok(prog, NULL, 0, NULL);
	check_function(prog, NULL, "target_fn", true, true, "target_fn");
	check_function(prog, NULL, "main", true, true, "main");
	/* a static function is in no dynamic symbol: not found, rather than a neighbour's name */
	cr_assert(nm_symbol(copy, "local_fn", true, false, &addr, &size));
	cr_expect_null(wc_elfsym_lookup(e, file_offset(copy, addr) + 1, NULL));
}

/* Build prog with its debug info moved to dir/debug/.build-id/xx/yyyy.debug. */
static void build_with_debug_file(char *prog, char *debug_file, uint8_t *id, const char *flags)
{
	char hex[64], debug_dir[PATH_MAX];

	build(prog, "prog", "cc", "c", prog_c, flags);
	cr_assert_eq(readelf_build_id(prog, id), 20);
	id_hex(hex, id, 20);
	pathf(debug_file, "%s/debug/.build-id/%s.debug", dir, hex);
	in_dir(debug_dir, "debug/.build-id");
	cr_assert_eq(run("mkdir -p '%s/%.2s' && objcopy --only-keep-debug '%s' '%s' && "
			 "strip --strip-debug --strip-unneeded '%s'",
			 debug_dir, hex, prog, debug_file, prog),
		     0);
}

Test(elfsym, separate_debug_file_by_build_id)
{
	char prog[PATH_MAX], debug_file[PATH_MAX], debug_dir[PATH_MAX], flat_dir[PATH_MAX];
	const char *dirs[] = { "/nonexistent", debug_dir };
	struct wc_symbol_paths paths = { NULL, dirs, 2 };
	uint64_t addr, size;
	uint8_t id[20];

	build_with_debug_file(prog, debug_file, id, "-pie -fPIE");
	cr_assert_not(nm_symbol(prog, "local_fn", true, false, &addr, &size), "not stripped");
	cr_assert(nm_symbol(debug_file, "local_fn", true, false, &addr, &size));

	/* without the debug directory: no .symtab, nothing defined in .dynsym */
	open_status(prog, NULL, 0, NULL, WC_ELFSYM_NOSYMS);
	cr_expect_null(wc_elfsym_lookup(e, file_offset(prog, addr), NULL));

	in_dir(debug_dir, "debug");
	open_ok(prog, NULL, 0, &paths);
	cr_expect_str_eq(wc_elfsym_file(e), debug_file);
	check_function(debug_file, prog, "local_fn", true, false, "local_fn");
	check_function(debug_file, prog, "target_fn", true, false, "target_fn");

	/* the same with the recorded build-id, and with a directory laid out as .build-id */
	open_ok(prog, id, sizeof(id), &paths);
	cr_expect_str_eq(wc_elfsym_file(e), debug_file);
	in_dir(flat_dir, "debug/.build-id");
	dirs[1] = flat_dir;
	open_ok(prog, id, sizeof(id), &paths);
	check_function(debug_file, prog, "local_fn", true, false, "local_fn");
}

Test(elfsym, debug_file_of_another_build_is_not_used)
{
	char prog[PATH_MAX], debug_file[PATH_MAX], other[PATH_MAX], debug_dir[PATH_MAX];
	const char *dirs[] = { debug_dir };
	struct wc_symbol_paths paths = { NULL, dirs, 1 };
	uint8_t id[20];

	build_with_debug_file(prog, debug_file, id, "-pie -fPIE");
	/* replace the debug file by the debug info of a variant */
	build(other, "other", "cc", "c", prog_c, "-pie -fPIE -DVARIANT=7");
	cr_assert_eq(run("objcopy --only-keep-debug '%s' '%s'", other, debug_file), 0);
	in_dir(debug_dir, "debug");
	open_status(prog, NULL, 0, &paths, WC_ELFSYM_NOSYMS);
	open_status(prog, id, sizeof(id), &paths, WC_ELFSYM_NOSYMS);
}

Test(elfsym, debug_file_in_a_copied_tree)
{
	char prog[PATH_MAX], debug_file[PATH_MAX], tree[PATH_MAX], copy[PATH_MAX];
	const char *dirs[] = { tree };
	struct wc_symbol_paths paths = { NULL, dirs, 1 };
	uint8_t id[20];

	build_with_debug_file(prog, debug_file, id, "-pie -fPIE");
	/* TREE/PATH.debug, as under /usr/lib/debug */
	in_dir(tree, "tree");
	pathf(copy, "%s%s.debug", tree, prog);
	cr_assert_eq(run("mkdir -p \"$(dirname '%s')\" && mv '%s' '%s'", copy, debug_file, copy),
		     0);
	open_ok(prog, id, sizeof(id), &paths);
	cr_expect_str_eq(wc_elfsym_file(e), copy);
	check_function(copy, prog, "local_fn", true, false, "local_fn");
}

/* ---- build-ids ---- */

Test(elfsym, build_id_mismatch_gives_no_names)
{
	char prog[PATH_MAX];
	uint8_t id[24] = { 0 }, wrong[20];
	uint64_t addr, size;

	build(prog, "prog", "cc", "c", prog_c, "-pie -fPIE");
	cr_assert_eq(readelf_build_id(prog, id), 20);
	cr_assert(nm_symbol(prog, "target_fn", true, false, &addr, &size));

	open_ok(prog, id, 20, NULL);
	cr_expect_str_eq(wc_elfsym_lookup(e, file_offset(prog, addr), NULL), "target_fn");
	open_ok(prog, id, 24, NULL); /* padded with zeros */

	memcpy(wrong, id, 20);
	wrong[19] ^= 1;
	open_status(prog, wrong, 20, NULL, WC_ELFSYM_MISMATCH);
	cr_expect_null(wc_elfsym_lookup(e, file_offset(prog, addr), NULL));
	open_status(prog, id, 16, NULL, WC_ELFSYM_MISMATCH); /* a prefix is not the id */
	id[22] = 1;
	open_status(prog, id, 24, NULL, WC_ELFSYM_MISMATCH);
}

Test(elfsym, recorded_build_id_but_file_has_none)
{
	char prog[PATH_MAX];
	uint8_t id[20] = { 1, 2, 3 };

	build(prog, "prog", "cc", "c", prog_c, "-pie -fPIE -Wl,--build-id=none");
	cr_assert_eq(readelf_build_id(prog, id), 0);
	open_status(prog, id, sizeof(id), NULL, WC_ELFSYM_MISMATCH);
	open_ok(prog, NULL, 0, NULL);
	check_function(prog, NULL, "target_fn", true, false, "target_fn");
}

/* The file at the path was rebuilt; the recorded build survives in a build-id cache. */
Test(elfsym, stand_in_for_a_changed_file)
{
	char prog[PATH_MAX], orig[PATH_MAX], hex[64], cache[PATH_MAX], elf[PATH_MAX];
	char dbg_only[PATH_MAX];
	const char *dirs[] = { cache };
	struct wc_symbol_paths paths = { NULL, dirs, 1 };
	uint8_t id[20], new_id[20];

	build(orig, "orig", "cc", "c", prog_c, "-pie -fPIE");
	cr_assert_eq(readelf_build_id(orig, id), 20);
	build(prog, "prog", "cc", "c", prog_c, "-pie -fPIE -DVARIANT=3");
	cr_assert_eq(readelf_build_id(prog, new_id), 20);
	cr_assert_neq(memcmp(id, new_id, 20), 0);
	id_hex(hex, id, 20);

	/* a debug file made by objcopy --only-keep-debug cannot stand in: no file offsets */
	pathf(dbg_only, "%s/cache/.build-id/%s.debug", dir, hex);
	cr_assert_eq(run("mkdir -p \"$(dirname '%s')\" && objcopy --only-keep-debug '%s' '%s'",
			 dbg_only, orig, dbg_only),
		     0);
	in_dir(cache, "cache");
	open_status(prog, id, sizeof(id), &paths, WC_ELFSYM_MISMATCH);

	/* perf's build-id cache layout holds a whole copy */
	pathf(elf, "%s/.build-id/%s/elf", cache, hex);
	cr_assert_eq(run("mkdir -p \"$(dirname '%s')\" && cp '%s' '%s'", elf, orig, elf), 0);
	open_ok(prog, id, sizeof(id), &paths);
	cr_expect_str_eq(wc_elfsym_file(e), elf);
	check_function(orig, NULL, "target_fn", true, false, "target_fn");

	/* and stands in for a missing file too */
	cr_assert_eq(unlink(prog), 0);
	open_ok(prog, id, sizeof(id), &paths);
	check_function(orig, NULL, "local_fn", true, false, "local_fn");
	open_status(prog, NULL, 0, &paths, WC_ELFSYM_MISSING);
}

Test(elfsym, build_id_helper)
{
	char prog[PATH_MAX], none[PATH_MAX], junk[PATH_MAX];
	uint8_t want[20], id[64];

	build(prog, "prog", "cc", "c", prog_c, "");
	cr_assert_eq(readelf_build_id(prog, want), 20);
	cr_assert_eq(wc_elfsym_build_id(prog, id, sizeof(id)), 20);
	cr_expect_arr_eq(id, want, 20);
	cr_expect_eq(wc_elfsym_build_id(prog, id, 4), -ERANGE);
	build(none, "none", "cc", "c", prog_c, "-Wl,--build-id=none");
	cr_expect_eq(wc_elfsym_build_id(none, id, sizeof(id)), -ENODATA);
	cr_expect_eq(wc_elfsym_build_id(in_dir(junk, "nonexistent"), id, sizeof(id)), -ENOENT);
	write_file(in_dir(junk, "junk"), "not an ELF file at all\n");
	cr_expect_eq(wc_elfsym_build_id(junk, id, sizeof(id)), -ENOEXEC);
}

/* ---- where files are looked for ---- */

Test(elfsym, missing_files)
{
	char path[PATH_MAX + 16];
	uint8_t id[20] = { 1 };

	open_status("/nonexistent/bin/prog", NULL, 0, NULL, WC_ELFSYM_MISSING);
	cr_expect_null(wc_elfsym_lookup(e, 0x1000, NULL));
	open_status("/nonexistent/bin/prog", id, sizeof(id), NULL, WC_ELFSYM_MISSING);
	open_status("[vdso]", NULL, 0, NULL, WC_ELFSYM_MISSING);
	open_status("relative/path", NULL, 0, NULL, WC_ELFSYM_MISSING);
	open_status("", NULL, 0, NULL, WC_ELFSYM_MISSING);
	open_status(NULL, NULL, 0, NULL, WC_ELFSYM_MISSING);
	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	open_status(path, NULL, 0, NULL, WC_ELFSYM_MISSING);
}

Test(elfsym, symfs)
{
	static const char rel[] = "/usr/bin/wc-elfsym-test-prog";
	char prog[PATH_MAX], root[PATH_MAX], copy[PATH_MAX];
	struct wc_symbol_paths paths = { root, NULL, 0 };

	build(prog, "prog", "cc", "c", prog_c, "-pie -fPIE");
	in_dir(root, "root");
	pathf(copy, "%s%s", root, rel);
	cr_assert_eq(run("mkdir -p '%s/usr/bin' && cp '%s' '%s'", root, prog, copy), 0);
	open_status(rel, NULL, 0, NULL, WC_ELFSYM_MISSING);
	open_ok(rel, NULL, 0, &paths);
	cr_expect_str_eq(wc_elfsym_file(e), copy);
	check_function(prog, NULL, "target_fn", true, false, "target_fn");
	open_ok("/usr/bin/wc-elfsym-test-prog (deleted)", NULL, 0, &paths);
	check_function(prog, NULL, "main", true, false, "main");
}

/* ---- damaged files ---- */

static uint64_t rnd_state = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static char *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	cr_assert_not_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void write_bytes(const char *path, const void *p, size_t len)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	cr_assert_eq(fwrite(p, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

/* Look up offsets all over a file: whatever the status, nothing may crash. */
static void lookups_everywhere(size_t len)
{
	for (uint64_t off = 0; off < len + 64; off += 7)
		(void)wc_elfsym_lookup(e, off, NULL);
}

Test(elfsym, truncated_and_random_files_are_bad)
{
	char prog[PATH_MAX], bad[PATH_MAX];
	size_t len, cuts[] = { 0, 4, 16, 52, 64, 100, 1000, 4096, 0, 0, 0 };
	char *bytes, buf[4096];

	build(prog, "prog", "cc", "c", prog_c, "-pie -fPIE");
	bytes = read_whole(prog, &len);
	cuts[8] = len / 2;
	cuts[9] = len - 64;
	cuts[10] = len - 1;
	in_dir(bad, "bad");
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		write_bytes(bad, bytes, cuts[i]);
		open_status(bad, NULL, 0, NULL, WC_ELFSYM_BAD);
		lookups_everywhere(len);
	}
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)rnd();
	write_bytes(bad, buf, sizeof(buf));
	open_status(bad, NULL, 0, NULL, WC_ELFSYM_BAD);
	memcpy(buf, bytes, 16); /* a valid identification, garbage after it */
	write_bytes(bad, buf, sizeof(buf));
	open_status(bad, NULL, 0, NULL, WC_ELFSYM_BAD);
	open_status(dir, NULL, 0, NULL, WC_ELFSYM_BAD); /* a directory */
	free(bytes);
}

/* Overwrite a few bytes of a good file, many times: any status, but no crash (run under ASan). */
Test(elfsym, damaged_files_do_not_crash)
{
	char prog[PATH_MAX], bad[PATH_MAX];
	size_t len, nstatus[WC_ELFSYM_BAD + 1] = { 0 };
	char *bytes, *copy;

	build(prog, "prog", "cc", "c", prog_c, "-pie -fPIE");
	bytes = read_whole(prog, &len);
	copy = malloc(len);
	cr_assert_not_null(copy);
	in_dir(bad, "bad");
	for (int round = 0; round < 300; round++) {
		memcpy(copy, bytes, len);
		for (int n = 1 + (int)(rnd() % 8); n > 0; n--) {
			/* mostly in the headers, at the start and (section headers) at the end */
			size_t where = rnd() % 3 ? rnd() % 1024 : rnd() % len;

			if (rnd() % 2)
				where = len - 1 - where % len;
			copy[where] = (char)rnd();
		}
		write_bytes(bad, copy, len);
		wc_elfsym_free(e);
		e = wc_elfsym_open(bad, NULL, 0, NULL);
		cr_assert_not_null(e);
		nstatus[wc_elfsym_status(e)]++;
		lookups_everywhere(len);
	}
	fprintf(stderr, "damaged files: %zu ok, %zu no symbols, %zu bad\n", nstatus[WC_ELFSYM_OK],
		nstatus[WC_ELFSYM_NOSYMS], nstatus[WC_ELFSYM_BAD]);
	free(copy);
	free(bytes);
}

Test(elfsym, status_texts)
{
	for (int s = WC_ELFSYM_OK; s <= WC_ELFSYM_BAD; s++)
		cr_expect(strlen(wc_elfsym_status_text((enum wc_elfsym_status)s)) > 0);
	cr_expect_str_eq(wc_elfsym_status_text(WC_ELFSYM_MISMATCH), "build-id mismatch");
}

/* ---- this machine's libc, and a large file: figures ---- */

/*
 * CPU time of this thread, ms: the figures and their bounds do not depend on how busy the
 * machine is (a shared CI machine can make wall-clock time many times longer).
 */
static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

Test(elfsym, this_machines_libc)
{
	char line[PATH_MAX + 256], libc[PATH_MAX] = "", cmd[PATH_MAX + 64], sym[1024], type;
	uint64_t addr, size, so, checked = 0, lo = UINT64_MAX, hi = 0;
	FILE *maps = fopen("/proc/self/maps", "r"), *p;
	double t0, t1, t2;
	uint8_t id[20];
	size_t id_len;

	cr_assert_not_null(maps);
	while (!libc[0] && fgets(line, sizeof(line), maps)) {
		char *path = strchr(line, '/');

		if (path && strstr(path, "/libc.so.6"))
			sscanf(path, "%4095s", libc);
	}
	fclose(maps);
	if (!libc[0])
		cr_skip_test("libc.so.6 is not mapped");
	id_len = readelf_build_id(libc, id);
	t0 = now_ms();
	open_ok(libc, id, id_len, NULL);
	t1 = now_ms();
	/* every defined function of the dynamic table is found at its start */
	snprintf(cmd, sizeof(cmd), "nm -D -S --defined-only '%s'", libc);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %c %1023s", &addr, &size, &type,
			   sym) != 4 ||
		    !strchr("TtWwi", type) || !size)
			continue;
		addr = file_offset(libc, addr);
		cr_assert_not_null(wc_elfsym_lookup(e, addr, &so), "%s", sym);
		cr_expect_eq(so, 0, "%s", sym);
		lo = addr < lo ? addr : lo;
		hi = addr > hi ? addr : hi;
		checked++;
	}
	pclose(p);
	cr_expect_gt(checked, 1000);
	/* a million lookups over the text */
	t2 = now_ms();
	for (uint64_t i = 0; i < 1000000; i++)
		(void)wc_elfsym_lookup(e, lo + rnd() % (hi - lo + 1), &so);
	/* ms for a million lookups is ns per lookup */
	fprintf(stderr, "%s: %zu functions from %s, opened in %.2f ms; %.0f ns per lookup (CPU)\n",
		libc, wc_elfsym_count(e), wc_elfsym_file(e), t1 - t0, now_ms() - t2);
	cr_expect_lt(t1 - t0, 1000.0);
}

Test(elfsym, ten_thousand_cxx_functions)
{
	char src[PATH_MAX], prog[PATH_MAX], name[64];
	const char *got;
	uint64_t addr, size;
	double t0, t1;
	FILE *f;

	/* assembly, so that the compiler takes no time over 10,000 functions */
	f = fopen(in_dir(src, "big.s"), "w");
	cr_assert_not_null(f);
	fprintf(f, "\t.text\n");
	for (int i = 0; i < 10000; i++) {
		snprintf(name, sizeof(name), "_ZN2ns5Klass%zu" "method%dEi",
			 strlen("method") + (size_t)snprintf(NULL, 0, "%d", i), i);
		fprintf(f, "\t.globl %s\n\t.type %s, @function\n%s:\n\t.skip 32, 0x90\n\tret\n"
			   "\t.size %s, .-%s\n",
			name, name, name, name, name);
	}
	fprintf(f, "\t.globl main\n\t.type main, @function\nmain:\n\txor %%eax, %%eax\n\tret\n"
		   "\t.size main, .-main\n\t.section .note.GNU-stack,\"\",@progbits\n");
	cr_assert_eq(fclose(f), 0);
	in_dir(prog, "big");
	cr_assert_eq(run("cc -o '%s' '%s'", prog, src), 0);
	t0 = now_ms();
	open_ok(prog, NULL, 0, NULL);
	t1 = now_ms();
	fprintf(stderr, "%zu functions (C++ names) opened in %.2f ms of CPU\n", wc_elfsym_count(e),
		t1 - t0);
	cr_expect_geq(wc_elfsym_count(e), 10000);
	cr_expect_lt(t1 - t0, 1000.0);
	cr_assert(nm_symbol(prog, "_ZN2ns5Klass10method1234Ei", true, false, &addr, &size));
	got = wc_elfsym_lookup(e, file_offset(prog, addr) + 32, NULL);
	cr_assert_not_null(got);
	cr_expect_str_eq(got, "ns::Klass::method1234(int)");
}
