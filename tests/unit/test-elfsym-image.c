/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-elfsym-image.c - wc_elfsym_open_image() on this process's own vdso, as an IMAGE record
 * carries it, against what libelf says of the same bytes read here independently (its
 * .dynsym and PT_LOAD); and truncated, random or mismatched images.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "analyzer/symbols/elfsym.h"

static uint8_t *image; /* a copy of the vdso */
static size_t image_len;
static struct wc_elfsym *e;

/* The length of the [vdso] line of /proc/self/maps that starts at addr, or 0. */
static size_t vdso_len(unsigned long addr)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long start, end;
	char line[512];
	size_t len = 0;

	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &start, &end) == 2 &&
		    start == addr)
			len = end - start;
	fclose(f);
	return len;
}

static void init(void)
{
	unsigned long addr = getauxval(AT_SYSINFO_EHDR);

	if (!addr || !(image_len = vdso_len(addr)))
		cr_skip_test("this process has no vdso");
	image = malloc(image_len);
	cr_assert_not_null(image);
	memcpy(image, (const void *)addr, image_len);
	elf_version(EV_CURRENT);
}

static void fini(void)
{
	wc_elfsym_free(e);
	e = NULL;
	free(image);
	image = NULL;
}

TestSuite(elfsym_image, .init = init, .fini = fini);

/* What libelf, read here, says of a function of the image: its file offset and size. */
struct func {
	char name[64];
	uint64_t off, size;
	int bind;
};

/* The image's .dynsym functions, with file offsets through their PT_LOAD.  Return: count. */
static size_t read_functions(struct func *out, size_t max)
{
	Elf *elf = elf_memory((char *)image, image_len);
	Elf_Scn *scn = NULL;
	size_t n = 0, phnum;

	cr_assert_not_null(elf);
	cr_assert_eq(elf_getphdrnum(elf, &phnum), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d = elf_getdata(scn, NULL);
		GElf_Shdr sh;
		GElf_Sym s;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
			continue;
		for (int i = 1; n < max && gelf_getsym(d, i, &s); i++) {
			const char *name = elf_strptr(elf, sh.sh_link, s.st_name);

			if (GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_size || !name)
				continue;
			for (size_t k = 0; k < phnum; k++) {
				GElf_Phdr ph;

				if (gelf_getphdr(elf, (int)k, &ph) && ph.p_type == PT_LOAD &&
				    s.st_value >= ph.p_vaddr &&
				    s.st_value - ph.p_vaddr < ph.p_filesz)
					out[n] = (struct func){ .off = s.st_value - ph.p_vaddr +
								       ph.p_offset,
								.size = s.st_size,
								.bind = GELF_ST_BIND(s.st_info) };
			}
			snprintf(out[n].name, sizeof(out[n].name), "%s", name);
			n++;
		}
	}
	elf_end(elf);
	return n;
}

/*
 * Every function of the vdso's .dynsym is found at its file offset, its last byte too, under
 * its name or that of an alias at the same offset; clock_gettime under __vdso_clock_gettime,
 * the global of the two, as perf names it.
 */
Test(elfsym_image, this_process_vdso)
{
	struct func f[64];
	size_t n = read_functions(f, 64);
	bool seen_clock = false;
	uint64_t at;

	cr_assert_gt(n, 0, "the vdso exports functions");
	e = wc_elfsym_open_image("[vdso]", image, image_len, NULL, 0);
	cr_assert_not_null(e);
	cr_assert_eq(wc_elfsym_status(e), WC_ELFSYM_OK);
	cr_assert_str_eq(wc_elfsym_file(e), "[vdso]");
	memset(image, 0xcc, image_len); /* the symbols hold no pointer into the caller's bytes */
	for (size_t i = 0; i < n; i++) {
		const char *name = wc_elfsym_lookup(e, f[i].off, &at);
		bool alias = false;

		cr_assert_not_null(name, "%s at 0x%lx", f[i].name, (unsigned long)f[i].off);
		cr_assert_eq(at, 0, "%s", f[i].name);
		for (size_t k = 0; k < n; k++)
			alias = alias || (f[k].off == f[i].off && !strcmp(f[k].name, name));
		cr_assert(alias, "0x%lx is %s, not %s or an alias", (unsigned long)f[i].off, name,
			  f[i].name);
		name = wc_elfsym_lookup(e, f[i].off + f[i].size - 1, &at);
		cr_assert_not_null(name);
		cr_assert_eq(at, f[i].size - 1, "%s", f[i].name);
		if (!strcmp(f[i].name, "clock_gettime")) {
			seen_clock = true;
			cr_assert_str_eq(wc_elfsym_lookup(e, f[i].off + 0x10, NULL),
					 "__vdso_clock_gettime");
		}
	}
	cr_expect(seen_clock, "the vdso has clock_gettime");
}

/* The image's own build-id matches; another build-id does not, and gives no names. */
Test(elfsym_image, build_id_is_checked)
{
	uint8_t other[20];
	struct func f[64];
	size_t n = read_functions(f, 64);

	cr_assert_gt(n, 0);
	memset(other, 0x5a, sizeof(other));
	e = wc_elfsym_open_image("[vdso]", image, image_len, other, sizeof(other));
	cr_assert_not_null(e);
	cr_assert_eq(wc_elfsym_status(e), WC_ELFSYM_MISMATCH);
	cr_assert_null(wc_elfsym_lookup(e, f[0].off, NULL));
}

/* Bytes of the ELF object in the image: up to the end of its section headers, which the
 * vdso has last (the mapping is padded to whole pages after them). */
static size_t elf_extent(void)
{
	Elf *elf = elf_memory((char *)image, image_len);
	GElf_Ehdr eh;
	size_t end;

	cr_assert_not_null(elf);
	cr_assert_not_null(gelf_getehdr(elf, &eh));
	end = eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
	elf_end(elf);
	cr_assert_leq(end, image_len);
	return end;
}

/* Cut, empty, random or spoiled images give WC_ELFSYM_BAD, never a name. */
Test(elfsym_image, damaged_images_are_bad)
{
	size_t end = elf_extent();
	size_t cuts[] = { 0, 1, 16, 63, 64, 65, 200, end / 2, end - 1 };
	uint8_t *junk = malloc(image_len);
	unsigned seed = 42;

	cr_assert_not_null(junk);
	e = wc_elfsym_open_image("[vdso]", image, end, NULL, 0);
	cr_assert_eq(wc_elfsym_status(e), WC_ELFSYM_OK, "the ELF object without the padding");
	wc_elfsym_free(e);
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		e = wc_elfsym_open_image("[vdso]", image, cuts[i], NULL, 0);
		cr_assert_not_null(e);
		cr_assert_eq(wc_elfsym_status(e), WC_ELFSYM_BAD, "cut to %zu bytes: %s", cuts[i],
			     wc_elfsym_status_text(wc_elfsym_status(e)));
		cr_assert_null(wc_elfsym_lookup(e, 0xb00, NULL));
		wc_elfsym_free(e);
	}
	e = wc_elfsym_open_image("[vdso]", NULL, 0, NULL, 0);
	cr_assert_eq(wc_elfsym_status(e), WC_ELFSYM_BAD);
	wc_elfsym_free(e);
	for (size_t i = 0; i < image_len; i++)
		junk[i] = (uint8_t)rand_r(&seed);
	e = wc_elfsym_open_image("[vdso]", junk, image_len, NULL, 0);
	cr_assert_eq(wc_elfsym_status(e), WC_ELFSYM_BAD);
	wc_elfsym_free(e);
	/* random bytes flipped in a real image: any status, no crash, names only when OK */
	for (int round = 0; round < 2000; round++) {
		memcpy(junk, image, image_len);
		for (int k = 0; k < 8; k++)
			junk[rand_r(&seed) % image_len] = (uint8_t)rand_r(&seed);
		e = wc_elfsym_open_image("[vdso]", junk, image_len, NULL, 0);
		cr_assert_not_null(e);
		if (wc_elfsym_status(e) != WC_ELFSYM_OK)
			cr_assert_null(wc_elfsym_lookup(e, 0xb00, NULL));
		else
			(void)wc_elfsym_lookup(e, 0xb00, NULL);
		wc_elfsym_free(e);
	}
	e = NULL;
	free(junk);
}

/* The image's build-id, as its NT_GNU_BUILD_ID note gives it; none from random bytes. */
Test(elfsym_image, build_id_of_an_image)
{
	uint8_t id[64], small[4];
	uint8_t *junk = calloc(1, image_len);
	int n = wc_elfsym_image_build_id(image, image_len, id, sizeof(id));

	cr_assert_not_null(junk);
	cr_assert(n > 0 || n == -ENODATA, "%d", n);
	if (n > 0) {
		/* the same id makes the symbols load; one byte off, a mismatch */
		e = wc_elfsym_open_image("[vdso]", image, image_len, id, (size_t)n);
		cr_assert_eq(wc_elfsym_status(e), WC_ELFSYM_OK);
		wc_elfsym_free(e);
		id[n - 1] ^= 1;
		e = wc_elfsym_open_image("[vdso]", image, image_len, id, (size_t)n);
		cr_assert_eq(wc_elfsym_status(e), WC_ELFSYM_MISMATCH);
		cr_assert_eq(wc_elfsym_image_build_id(image, image_len, small, sizeof(small)),
			     -ERANGE);
	}
	cr_assert_eq(wc_elfsym_image_build_id(junk, image_len, id, sizeof(id)), -ENOEXEC);
	cr_assert_eq(wc_elfsym_image_build_id(image, 40, id, sizeof(id)), -ENOEXEC);
	free(junk);
}
