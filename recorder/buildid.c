/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * buildid.c - GNU build-ids read with libelf, and the cache of them by file identity (see
 * buildid.h): open addressing, linear probing, grown to keep it at most half full.
 */
#include "recorder/buildid.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The GNU build-id note in d, if any.  Return: its length, -ENODATA, or -ERANGE. */
static int find_build_id(Elf_Data *d, uint8_t *id, size_t len)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	if (!d)
		return -ENODATA;
	for (; (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0; off = next) {
		const char *base = d->d_buf;

		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != sizeof(ELF_NOTE_GNU) ||
		    memcmp(base + name_off, ELF_NOTE_GNU, sizeof(ELF_NOTE_GNU)) || !nh.n_descsz)
			continue;
		if (nh.n_descsz > len)
			return -ERANGE;
		memcpy(id, base + desc_off, nh.n_descsz);
		return (int)nh.n_descsz;
	}
	return -ENODATA;
}

/* The build-id of @elf: its PT_NOTE segments, then (@sections) its SHT_NOTE sections. */
static int build_id_of(Elf *elf, bool sections, uint8_t *id, size_t len)
{
	Elf_Scn *scn = NULL;
	int ret = -ENODATA;
	size_t nph;

	if (elf_kind(elf) != ELF_K_ELF)
		return -ENOEXEC;
	if (!elf_getphdrnum(elf, &nph)) {
		for (size_t i = 0; i < nph && ret == -ENODATA; i++) {
			GElf_Phdr ph;
			Elf_Data *d;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
				continue;
			d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
						 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
			ret = find_build_id(d, id, len);
		}
	}
	while (sections && ret == -ENODATA && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE)
			ret = find_build_id(elf_getdata(scn, NULL), id, len);
	}
	return ret;
}

int wc_elf_build_id_fd(int fd, uint8_t *id, size_t len)
{
	struct stat st;
	Elf *elf;
	int ret;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	/* ELF_C_READ reads what is asked with pread: a file cut under us gives an error, where
	 * ELF_C_READ_MMAP would give SIGBUS */
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return -ENOEXEC;
	ret = build_id_of(elf, true, id, len);
	elf_end(elf);
	return ret;
}

int wc_elf_build_id_mem(void *image, size_t size, uint8_t *id, size_t len)
{
	Elf *elf;
	int ret;

	if (elf_version(EV_CURRENT) == EV_NONE || !(elf = elf_memory(image, size)))
		return -ENOEXEC;
	ret = build_id_of(elf, false, id, len);
	elf_end(elf);
	return ret;
}

int wc_elf_build_id(const char *path, uint8_t *id, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	int ret;

	if (fd < 0)
		return -errno;
	ret = wc_elf_build_id_fd(fd, id, len);
	close(fd);
	return ret;
}

/* The GNU build-id among the notes @buf[0...@n - 1] (wc_kernel_build_id()). */
static int notes_build_id(const uint8_t *buf, size_t n, uint8_t *id, size_t len)
{
	size_t off = 0;

	while (n - off >= 12) {
		uint32_t nh[3]; /* n_namesz, n_descsz, n_type */
		size_t name, desc;

		memcpy(nh, buf + off, sizeof(nh));
		name = ((size_t)nh[0] + 3) & ~(size_t)3;
		desc = ((size_t)nh[1] + 3) & ~(size_t)3;
		if (name > n - off - 12 || desc > n - off - 12 - name)
			break; /* truncated */
		if (nh[2] == NT_GNU_BUILD_ID && nh[0] == sizeof(ELF_NOTE_GNU) && nh[1] &&
		    !memcmp(buf + off + 12, ELF_NOTE_GNU, sizeof(ELF_NOTE_GNU))) {
			if (nh[1] > len)
				return -ERANGE;
			memcpy(id, buf + off + 12 + name, nh[1]);
			return (int)nh[1];
		}
		off += 12 + name + desc;
	}
	return -ENODATA;
}

int wc_kernel_build_id(const char *path, uint8_t *id, size_t len)
{
	uint8_t buf[4096]; /* the kernel's notes: some 200 bytes */
	int fd = open(path ? path : "/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	ssize_t got = 1;

	if (fd < 0)
		return -errno;
	while (n < sizeof(buf) && (got = read(fd, buf + n, sizeof(buf) - n)) > 0)
		n += (size_t)got;
	if (got < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	return notes_build_id(buf, n, id, len);
}

struct slot {
	bool used;
	struct wc_bid e;
};

struct wc_bid_cache {
	struct slot *slots;
	size_t cap; /* a power of two */
	size_t n;
};

struct wc_bid_cache *wc_bid_cache_new(void)
{
	struct wc_bid_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->cap = 64;
	c->slots = calloc(c->cap, sizeof(*c->slots));
	if (!c->slots) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

void wc_bid_cache_free(struct wc_bid_cache *c)
{
	if (!c)
		return;
	free(c->slots);
	free(c);
}

static size_t hash(const struct wc_bid_key *k)
{
	uint64_t h =
		k->ino * 0x9e3779b97f4a7c15ull ^ k->ino_generation ^ k->dev * 0xc2b2ae3d27d4eb4full;

	return (size_t)(h ^ h >> 29);
}

/* The slot of @key in @slots: its entry, or the unused slot where it goes. */
static struct slot *slot_of(struct slot *slots, size_t cap, const struct wc_bid_key *key)
{
	for (size_t i = hash(key) & (cap - 1);; i = (i + 1) & (cap - 1)) {
		const struct wc_bid_key *k = &slots[i].e.key;

		if (!slots[i].used || (k->dev == key->dev && k->ino == key->ino &&
				       k->ino_generation == key->ino_generation))
			return &slots[i];
	}
}

/* Twice the slots, the entries moved.  Return: 0 or -ENOMEM. */
static int grow(struct wc_bid_cache *c)
{
	size_t cap = c->cap * 2;
	struct slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < c->cap; i++)
		if (c->slots[i].used)
			*slot_of(slots, cap, &c->slots[i].e.key) = c->slots[i];
	free(c->slots);
	c->slots = slots;
	c->cap = cap;
	return 0;
}

struct wc_bid *wc_bid_cache_get(struct wc_bid_cache *c, const struct wc_bid_key *key)
{
	struct slot *s = slot_of(c->slots, c->cap, key);

	if (s->used)
		return &s->e;
	if ((c->n + 1) * 2 > c->cap) {
		if (grow(c))
			return NULL;
		s = slot_of(c->slots, c->cap, key);
	}
	*s = (struct slot){ .used = true, .e = { .key = *key } };
	c->n++;
	return &s->e;
}

size_t wc_bid_cache_count(const struct wc_bid_cache *c)
{
	return c->n;
}
