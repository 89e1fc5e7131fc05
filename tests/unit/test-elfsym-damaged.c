/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-elfsym-damaged.c - ELF files cut short, filled with random bytes or damaged byte by
 * byte give a bad status and no crash; the status texts.  (test-elfsym.c: the sound files.)
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
		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %c %1023s", &addr, &size, &type, sym) !=
			    4 ||
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
		snprintf(name, sizeof(name),
			 "_ZN2ns5Klass%zu"
			 "method%dEi",
			 strlen("method") + (size_t)snprintf(NULL, 0, "%d", i), i);
		fprintf(f,
			"\t.globl %s\n\t.type %s, @function\n%s:\n\t.skip 32, 0x90\n\tret\n"
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
