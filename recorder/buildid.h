/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * buildid.h - the GNU build-ids of ELF files, and one cache of them by file identity, which
 * serves both readers: the tasks' maps at the start (metadata.c) and the MMAP2 records that
 * come without a build-id (drain.c, kernels before 5.12).  How a file is opened stays with
 * its caller; the cache only remembers what was read.
 */
#ifndef WC_RECORDER_BUILDID_H
#define WC_RECORDER_BUILDID_H

#include <stddef.h>
#include <stdint.h>

#include "common/wct.h"

/**
 * wc_elf_build_id() - read the GNU build-id (NT_GNU_BUILD_ID note) of an ELF file
 * @path: the file
 * @id:   set to the build-id bytes
 * @len:  bytes of @id (WC_BUILD_ID_MAX is what the trace stores)
 *
 * Looks in the PT_NOTE segments, then in the SHT_NOTE sections (for files without program
 * headers, such as separate debug files).
 * Return: the build-id's length in bytes, or -errno: that of open(2), -ENOEXEC when the file is
 * not ELF or libelf cannot read it, -ENODATA when it has no build-id, -ERANGE when the build-id
 * is longer than @len.
 */
int wc_elf_build_id(const char *path, uint8_t *id, size_t len);

/** wc_elf_build_id_fd() - wc_elf_build_id() on the open file @fd (left open). */
int wc_elf_build_id_fd(int fd, uint8_t *id, size_t len);

/**
 * wc_elf_build_id_mem() - wc_elf_build_id() of an ELF image of which the first @size bytes are
 * at @image (as mapped in a process: its headers and notes in the first page), by its PT_NOTE
 * segments only; @image is read, not written
 */
int wc_elf_build_id_mem(void *image, size_t size, uint8_t *id, size_t len);

/**
 * wc_kernel_build_id() - the running kernel's GNU build-id, from its ELF notes as sysfs gives
 * them (/sys/kernel/notes: the notes section of vmlinux, as perf reads it in
 * tools/perf/util/build-id.c, sysfs__read_build_id())
 * @path: the notes file (NULL: /sys/kernel/notes)
 * @id:   set to the build-id bytes
 * @len:  bytes of @id
 *
 * The file is a sequence of notes in the host's byte order: n_namesz, n_descsz and n_type
 * (4 bytes each), then the name and the descriptor, each padded to 4 bytes.
 * Return: the build-id's length in bytes, or -errno: that of open(2) or read(2), -ENODATA when
 * no note is an NT_GNU_BUILD_ID of name "GNU" (a truncated note ends the search), -ERANGE
 * when the build-id is longer than @len.
 */
int wc_kernel_build_id(const char *path, uint8_t *id, size_t len);

/* A file's identity: its device (any encoding, the same for every key of one cache), inode
 * number and inode generation (0 where unknown). */
struct wc_bid_key {
	uint64_t dev, ino, ino_generation;
};

/* A cache entry. */
struct wc_bid {
	struct wc_bid_key key;
	int8_t len; /* bytes of id; 0: not read yet; -1: the file has no readable build-id */
	uint8_t id[WC_BUILD_ID_MAX];
};

struct wc_bid_cache;

/** wc_bid_cache_new() - an empty cache.  Return: it, or NULL with errno ENOMEM. */
struct wc_bid_cache *wc_bid_cache_new(void);

/** wc_bid_cache_free() - free @c and its entries; NULL is a no-op. */
void wc_bid_cache_free(struct wc_bid_cache *c);

/**
 * wc_bid_cache_get() - the entry of the file @key, added with len 0 (not read yet) when new:
 * the caller reads the file then and sets len (and id)
 *
 * Return: the entry, owned by @c and valid until the next wc_bid_cache_get() or
 * wc_bid_cache_free(); NULL when out of memory.
 */
struct wc_bid *wc_bid_cache_get(struct wc_bid_cache *c, const struct wc_bid_key *key);

/** wc_bid_cache_count() - the number of files in @c. */
size_t wc_bid_cache_count(const struct wc_bid_cache *c);

#endif /* WC_RECORDER_BUILDID_H */
