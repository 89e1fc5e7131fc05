/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-elfsym.c - function lookups by file offset in ELF files built here with the system
 * compiler (PIE, fixed-address, shared, C++, Rust names, stripped, with separate debug info),
 * against what nm and readelf say about the same files; build-id checks, --symfs, debug
 * directories (test-elfsym-damaged.c: damaged files).
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

#include "tests/unit/elfsym-util.h"

TestSuite(elfsym, .init = elfsym_init, .fini = elfsym_fini);

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
