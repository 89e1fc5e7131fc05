/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-kallsyms.c - kallsyms text parsed and looked up: a hand-written text with the cases
 * that matter (modules, unsorted lines, several names at one address, data symbols), a
 * restricted text, and this machine's /proc/kallsyms, checked line by line against itself.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/kallsyms.h"

static struct wc_kallsyms *k;
static char *real_text;

static void fini(void)
{
	wc_kallsyms_free(k);
	k = NULL;
	free(real_text);
	real_text = NULL;
}

TestSuite(kallsyms, .fini = fini);

static struct wc_kallsyms *parse(const char *text)
{
	struct wc_kallsyms *r = wc_kallsyms_new(text, strlen(text));

	cr_assert_not_null(r, "wc_kallsyms_new: %s", strerror(errno));
	return r;
}

/* Look addr up and check the name, offset and module, or that nothing is found (name NULL). */
static void expect(uint64_t addr, const char *name, uint64_t offset, const char *module)
{
	uint64_t off = 12345;
	const char *mod = "unset";
	const char *got = wc_kallsyms_lookup(k, addr, &off, &mod);

	if (!name) {
		cr_expect_null(got, "%#" PRIx64 ": found %s+%#" PRIx64, addr, got, off);
		return;
	}
	cr_assert_not_null(got, "%#" PRIx64 ": not found, expected %s", addr, name);
	cr_expect_str_eq(got, name, "%#" PRIx64, addr);
	cr_expect_eq(off, offset, "%#" PRIx64 ": offset %#" PRIx64 ", expected %#" PRIx64, addr,
		     off, offset);
	cr_expect_str_eq(mod, module, "%#" PRIx64, addr);
}

static const char sample[] =
	"ffffffff81000100 t helper\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T startup_64\n" /* fewer leading underscores than _stext */
	"ffffffff81000150 t $x\n"	  /* ARM mapping symbol: skipped */
	"ffffffff81000200 W weak_fn\n"
	"ffffffff81000200 T strong_fn\n" /* not weak: kept */
	"ffffffff81000300 T __under\n"
	"ffffffff81000300 T under\n"
	"ffffffff81000600 T SyS_read\n"
	"ffffffff81000600 T sys_read\n" /* same length: the SyS alias loses */
	"ffffffff81000700 t a_much_longer_local_name\n"
	"ffffffff81000700 T g\n" /* global over local, even shorter */
	"ffffffff81000800 T _etext\n"
	"this line is not a symbol\n"
	"ffffffff81001000 D some_data\n" /* data: never an answer, but ends _etext */
	"ffffffff81002000 d more_data\n"
	"0000000000001234 A an_absolute_symbol\n"
	"ffffffffc0002000 t mod_b_fn\t[mod_b]\n"
	"ffffffffc0001000 t mod_a_fn2\t[mod_a]\n"
	"ffffffffc0000000 t mod_a_fn\t[mod_a]\n"
	"ffffffffc0000800 d mod_a_data\t[mod_a]\n"
	"ffffffffc0004000 T bpf_prog_0123456789abcdef_handler\t[bpf]"; /* no final newline */

Test(kallsyms, lookups_in_a_hand_written_text)
{
	k = parse(sample);
	cr_assert_not(wc_kallsyms_restricted(k));
	cr_expect_eq(wc_kallsyms_count(k), 11);

	expect(0, NULL, 0, NULL);
	expect(0xffffffff80ffffffu, NULL, 0, NULL);
	expect(0xffffffff81000000u, "startup_64", 0, "");
	expect(0xffffffff810000ffu, "startup_64", 0xff, "");
	expect(0xffffffff81000100u, "helper", 0, "");
	expect(0xffffffff81000150u, "helper", 0x50, "");
	expect(0xffffffff810001ffu, "helper", 0xff, "");
	expect(0xffffffff81000200u, "strong_fn", 0, "");
	expect(0xffffffff81000250u, "strong_fn", 0x50, "");
	expect(0xffffffff81000300u, "under", 0, "");
	expect(0xffffffff810005ffu, "under", 0x2ff, "");
	expect(0xffffffff81000600u, "sys_read", 0, "");
	expect(0xffffffff81000701u, "g", 1, "");
	expect(0xffffffff81000800u, "_etext", 0, "");
	expect(0xffffffff81000fffu, "_etext", 0x7ff, "");
	expect(0xffffffff81001000u, NULL, 0, NULL); /* in data */
	expect(0xffffffff81002800u, NULL, 0, NULL);
	expect(0xffffffffbfffffffu, NULL, 0, NULL);

	expect(0xffffffffc0000000u, "mod_a_fn", 0, "mod_a");
	expect(0xffffffffc00007ffu, "mod_a_fn", 0x7ff, "mod_a");
	expect(0xffffffffc0000800u, NULL, 0, NULL); /* mod_a_data */
	expect(0xffffffffc0001000u, "mod_a_fn2", 0, "mod_a");
	expect(0xffffffffc0001fffu, "mod_a_fn2", 0xfff, "mod_a");
	expect(0xffffffffc0002000u, "mod_b_fn", 0, "mod_b");
	/* the next symbol is in another module: mod_b_fn ends with the page after its own */
	expect(0xffffffffc0002fffu, "mod_b_fn", 0xfff, "mod_b");
	expect(0xffffffffc0003000u, NULL, 0, NULL);
	expect(0xffffffffc0004010u, "bpf_prog_0123456789abcdef_handler", 0x10, "bpf");
	/* the last symbol also ends with the page after its own */
	expect(0xffffffffc0004fffu, "bpf_prog_0123456789abcdef_handler", 0xfff, "bpf");
	expect(0xffffffffc0005000u, NULL, 0, NULL);
	expect(UINT64_MAX, NULL, 0, NULL);
}

Test(kallsyms, kernel_text_does_not_run_into_modules)
{
	k = parse("ffffffff81000000 T last_kernel_fn\n"
		  "ffffffffa0000000 t first_module_fn\t[m]\n");
	expect(0xffffffff81000fffu, "last_kernel_fn", 0xfff, "");
	expect(0xffffffff81001000u, NULL, 0, NULL);
	expect(0xffffffffa0000000u, "first_module_fn", 0, "m");
}

Test(kallsyms, lookup_out_pointers_are_optional)
{
	k = parse(sample);
	cr_expect_str_eq(wc_kallsyms_lookup(k, 0xffffffff81000101u, NULL, NULL), "helper");
}

Test(kallsyms, text_ends_at_its_nul_or_its_length)
{
	static const char text[] = "ffffffff81000000 T a\n\0ffffffff81000100 T b\n";

	k = wc_kallsyms_new(text, sizeof(text));
	cr_assert_not_null(k);
	cr_expect_eq(wc_kallsyms_count(k), 1);
	expect(0xffffffff81000100u, "a", 0x100, "");
	wc_kallsyms_free(k);

	/* cut in the middle of the second line's name: "ffffffff81000100 T b" is 20 bytes */
	k = wc_kallsyms_new("ffffffff81000000 T a\nffffffff81000100 T bcd\n", 21 + 20);
	cr_assert_not_null(k);
	expect(0xffffffff81000100u, "b", 0, "");
}

Test(kallsyms, restricted_text)
{
	k = parse("0000000000000000 T _stext\n"
		  "0000000000000000 t foo\n"
		  "0000000000000000 t bar\t[mod]\n");
	cr_expect(wc_kallsyms_restricted(k));
	cr_expect_eq(wc_kallsyms_count(k), 0);
	expect(0, NULL, 0, NULL);
	expect(0xffffffff81000000u, NULL, 0, NULL);
}

Test(kallsyms, empty_and_garbage)
{
	static const char *texts[] = {
		"",
		"\n\n",
		"ffffffff81000000\n",
		"ffffffff81000000 T\n",
		"ffffffff81000000 T \n",
		"1ffffffff81000000 T too_many_digits\n",
		"xyz T foo\n",
		" ffffffff81000000 T x\n",
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		k = parse(texts[i]);
		cr_expect_eq(wc_kallsyms_count(k), 0, "\"%s\"", texts[i]);
		cr_expect(wc_kallsyms_restricted(k), "\"%s\"", texts[i]);
		wc_kallsyms_free(k);
	}
	k = wc_kallsyms_new(NULL, 0);
	cr_assert_not_null(k);
	cr_expect_null(wc_kallsyms_lookup(k, 1, NULL, NULL));
}

/* Read a whole /proc file (its size reads as 0). */
static char *slurp(const char *path, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY);
	ssize_t r;

	cr_assert(fd >= 0 && buf);
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap) {
			buf = realloc(buf, cap *= 2);
			cr_assert_not_null(buf);
		}
	}
	close(fd);
	*len = n;
	return buf;
}

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

Test(kallsyms, this_machine)
{
	size_t len, nlines = 0, nfunc = 0;
	const char *line, *sched;
	uint64_t addr, off;
	const char *mod;
	double t0, t1;
	bool zero = true;

	real_text = slurp("/proc/kallsyms", &len);
	cr_assert_gt(len, 0);
	t0 = now_ms();
	k = wc_kallsyms_new(real_text, len);
	t1 = now_ms();
	cr_assert_not_null(k);
	for (line = real_text; line < real_text + len; line = strchr(line, '\n') + 1) {
		zero = zero && strtoull(line, NULL, 16) == 0;
		nlines++;
	}
	fprintf(stderr, "kallsyms: %zu bytes, %zu lines, %zu functions, parsed in %.1f ms of CPU\n",
		len, nlines, wc_kallsyms_count(k), t1 - t0);
	cr_expect_lt(t1 - t0, 1000.0, "%.1f ms", t1 - t0);
	cr_assert_eq(wc_kallsyms_restricted(k), zero);
	if (zero) {
		cr_expect_null(wc_kallsyms_lookup(k, 0, NULL, NULL));
		cr_skip_test("kallsyms addresses are hidden (kptr_restrict): no lookups to check");
	}

	sched = strstr(real_text, " T schedule\n");
	cr_assert_not_null(sched, "no schedule in /proc/kallsyms");
	while (sched > real_text && sched[-1] != '\n')
		sched--;
	addr = strtoull(sched, NULL, 16);
	cr_assert_str_eq(wc_kallsyms_lookup(k, addr, &off, &mod), "schedule");
	cr_expect_eq(off, 0);
	cr_expect_str_eq(mod, "");
	cr_assert_str_eq(wc_kallsyms_lookup(k, addr + 1, &off, NULL), "schedule");
	cr_expect_eq(off, 1);

	/* every function's address finds a function starting there, in the same module */
	for (line = real_text; line < real_text + len; line = strchr(line, '\n') + 1) {
		char *end, type, *nl = strchr(line, '\n'), *tab = memchr(line, '\t', nl - line);
		const char *want_mod = "";
		size_t want_len = 0;

		addr = strtoull(line, &end, 16);
		type = end[1];
		if (!strchr("tTwW", type) || end[3] == '$')
			continue;
		if (tab) {
			want_mod = tab + 2;
			want_len = (size_t)(strchr(want_mod, ']') - want_mod);
		}
		nfunc++;
		cr_assert_not_null(wc_kallsyms_lookup(k, addr, &off, &mod), "%.*s",
				   (int)(nl - line), line);
		cr_assert_eq(off, 0, "%.*s", (int)(nl - line), line);
		cr_assert(strlen(mod) == want_len && !strncmp(mod, want_mod, want_len), "%.*s: %s",
			  (int)(nl - line), line, mod);
	}
	cr_expect_gt(nfunc, 1000);
}
