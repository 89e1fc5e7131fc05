/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-buildid.c - the build-id cache (recorder/buildid.h): a file is read once, whatever
 * else is added after it; files differ by device, inode or generation; entries survive the
 * table's growth; and the cache gives the build-id of a real ELF file as read directly; the
 * kernel's build-id among its notes.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/buildid.h"

static struct wc_bid_cache *c;

static void setup(void)
{
	c = wc_bid_cache_new();
	cr_assert_not_null(c);
}

static void teardown(void)
{
	wc_bid_cache_free(c);
}

TestSuite(buildid, .init = setup, .fini = teardown);

Test(buildid, new_entry_then_the_same)
{
	struct wc_bid_key k = { .dev = 8 << 20 | 1, .ino = 1311, .ino_generation = 7 };
	struct wc_bid *e = wc_bid_cache_get(c, &k);

	cr_assert_not_null(e);
	cr_assert_eq(e->len, 0, "a new file is not read yet");
	cr_assert_eq(e->key.ino, 1311);
	e->len = 3;
	memcpy(e->id, "\x01\x02\x03", 3);
	e = wc_bid_cache_get(c, &k);
	cr_assert_eq(e->len, 3, "the second look-up finds what was read");
	cr_assert_arr_eq(e->id, "\x01\x02\x03", 3);
	cr_assert_eq(wc_bid_cache_count(c), 1);
}

Test(buildid, identity_is_dev_ino_generation)
{
	struct wc_bid_key keys[] = {
		{ 1, 10, 0 }, { 2, 10, 0 }, { 1, 11, 0 }, { 1, 10, 1 }, { 0, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		struct wc_bid *e = wc_bid_cache_get(c, &keys[i]);

		cr_assert_eq(e->len, 0, "key %zu is a file of its own", i);
		e->len = -1; /* no readable build-id: remembered too */
	}
	cr_assert_eq(wc_bid_cache_count(c), 5);
	cr_assert_eq(wc_bid_cache_get(c, &keys[4])->len, -1, "the all-zero key is a key");
}

Test(buildid, survives_growth)
{
	for (uint64_t i = 0; i < 5000; i++) {
		struct wc_bid_key k = { .dev = i % 7, .ino = i, .ino_generation = i * 3 };
		struct wc_bid *e = wc_bid_cache_get(c, &k);

		cr_assert_not_null(e);
		e->len = 1;
		e->id[0] = (uint8_t)i;
	}
	cr_assert_eq(wc_bid_cache_count(c), 5000);
	for (uint64_t i = 0; i < 5000; i++) {
		struct wc_bid_key k = { .dev = i % 7, .ino = i, .ino_generation = i * 3 };
		struct wc_bid *e = wc_bid_cache_get(c, &k);

		cr_assert_eq(e->len, 1, "file %" PRIu64, i);
		cr_assert_eq(e->id[0], (uint8_t)i, "file %" PRIu64, i);
	}
	cr_assert_eq(wc_bid_cache_count(c), 5000, "look-ups add nothing");
}

Test(buildid, free_null)
{
	wc_bid_cache_free(NULL);
}

Test(buildid, reads_an_elf_file_once)
{
	uint8_t direct[WC_BUILD_ID_MAX];
	int n = wc_elf_build_id("/proc/self/exe", direct, sizeof(direct));
	struct wc_bid_key k = { .dev = 1, .ino = 2 };
	struct wc_bid *e;

	if (n == -ENODATA)
		cr_skip_test("this test program has no build-id");
	cr_assert_gt(n, 0);
	e = wc_bid_cache_get(c, &k);
	cr_assert_eq(e->len, 0);
	e->len = (int8_t)wc_elf_build_id("/proc/self/exe", e->id, sizeof(e->id));
	cr_assert_eq(wc_bid_cache_get(c, &k)->len, n);
	cr_assert_arr_eq(wc_bid_cache_get(c, &k)->id, direct, (size_t)n);
	cr_assert_eq(wc_elf_build_id("/nonexistent/x", direct, sizeof(direct)), -ENOENT);
}

/* The first page of an ELF file, as a process maps it, gives the file's build-id; a page that
 * is no ELF gives -ENOEXEC, and a cut header no build-id. */
Test(buildid, the_first_page_of_an_image)
{
	uint8_t page[4096], want[WC_BUILD_ID_MAX], got[WC_BUILD_ID_MAX];
	int fd = open("/proc/self/exe", O_RDONLY);
	int n = wc_elf_build_id("/proc/self/exe", want, sizeof(want));
	ssize_t len;

	cr_assert_gt(n, 0, "the test program has a build-id (%d)", n);
	cr_assert_geq(fd, 0);
	len = pread(fd, page, sizeof(page), 0);
	close(fd);
	cr_assert_eq(len, (ssize_t)sizeof(page));
	cr_assert_eq(wc_elf_build_id_mem(page, sizeof(page), got, sizeof(got)), n);
	cr_assert_arr_eq(got, want, (size_t)n);
	cr_assert_lt(wc_elf_build_id_mem(page, 40, got, sizeof(got)), 0, "the ELF header cut");
	memset(page, 0, 4);
	cr_assert_eq(wc_elf_build_id_mem(page, sizeof(page), got, sizeof(got)), -ENOEXEC);
}

/* Append to @buf at *@off a note: namesz, descsz, type, @name (with its NUL, padded to 4),
 * @ndesc bytes of 0xa0, 0xa1, ... (padded to 4). */
static void put_note(uint8_t *buf, size_t *off, const char *name, uint32_t ndesc, uint32_t type)
{
	uint32_t nh[3] = { (uint32_t)strlen(name) + 1, ndesc, type };

	memcpy(buf + *off, nh, sizeof(nh));
	*off += sizeof(nh);
	memset(buf + *off, 0, ((nh[0] + 3) & ~3u) + ((ndesc + 3) & ~3u));
	memcpy(buf + *off, name, nh[0]);
	*off += (nh[0] + 3) & ~3u;
	for (uint32_t i = 0; i < ndesc; i++)
		buf[*off + i] = (uint8_t)(0xa0 + i);
	*off += (ndesc + 3) & ~3u;
}

/* @n bytes of @buf into a new temporary file; its path in @path. */
static void notes_file(char path[64], const uint8_t *buf, size_t n)
{
	int fd;

	snprintf(path, 64, "/tmp/test-buildid-notes.XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, buf, n), (ssize_t)n);
	close(fd);
}

/* The kernel's notes as /sys/kernel/notes lays them out (here: "Xen" and "Linux" notes around
 * the GNU build-id, as on this project's VMs): the build-id is the NT_GNU_BUILD_ID (3) note of
 * name "GNU" only, not a GNU note of another type nor a type-3 note of another name; a note
 * cut short by the file's end, a build-id longer than asked, and no file are errors. */
Test(buildid, the_kernel_s_notes)
{
	uint8_t buf[512], id[WC_BUILD_ID_MAX];
	size_t off = 0, cut;
	char path[64];

	put_note(buf, &off, "Xen", 4, 3);   /* type 3, but not GNU's */
	put_note(buf, &off, "GNU", 16, 1);  /* GNU, but an ABI tag */
	put_note(buf, &off, "Linux", 6, 6); /* odd lengths: padded */
	cut = off;
	put_note(buf, &off, "GNU", 20, 3);
	notes_file(path, buf, off);
	cr_assert_eq(wc_kernel_build_id(path, id, sizeof(id)), 20);
	cr_assert_eq(id[0], 0xa0);
	cr_assert_eq(id[19], 0xb3);
	cr_assert_eq(wc_kernel_build_id(path, id, 19), -ERANGE);
	unlink(path);
	notes_file(path, buf, off - 1); /* the build-id's last byte cut */
	cr_assert_eq(wc_kernel_build_id(path, id, sizeof(id)), -ENODATA);
	unlink(path);
	notes_file(path, buf, cut); /* no build-id */
	cr_assert_eq(wc_kernel_build_id(path, id, sizeof(id)), -ENODATA);
	unlink(path);
	cr_assert_eq(wc_kernel_build_id("/nonexistent/notes", id, sizeof(id)), -ENOENT);
}
