/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * elfsym.h - function symbols of one mapped ELF file (executable or shared library), looked
 * up by file offset, as a trace records user-space addresses: ip - map start + map pgoff.
 *
 * The file comes from another machine, or from this one after an upgrade, so it is checked
 * against the build-id the recorder stored: a file that does not match gives no names at all,
 * and the caller prints "module+0xoffset" instead of a wrong name.
 *
 * Where the files are looked for (perf's --symfs and debug-file conventions):
 *
 *   the file:    SYMFS/PATH (PATH alone without a symfs); PATH must be absolute
 *   debug files: DIR/.build-id/xx/yyyy.debug, DIR/xx/yyyy.debug, DIR/.build-id/xx/yyyy/elf
 *                and DIR/.build-id/xx/yyyy/debug (perf's build-id cache) for each debug dir,
 *                then SYMFS/usr/lib/debug/.build-id/xx/yyyy.debug; then by path,
 *                DIR/PATH, DIR/PATH.debug, SYMFS/PATH.debug (beside the file, as
 *                objcopy --add-gnu-debuglink names it), SYMFS/usr/lib/debug/PATH.debug and
 *                SYMFS/usr/lib/debug/PATH
 *   (xx/yyyy is the build-id in hex, its first byte, a slash, the rest)
 *
 * A debug file is used only when its build-id is the one wanted (the recorded one, else the
 * file's own); it is looked for when the file has no .symtab.  When the file itself is
 * missing or does not match, a debug-file candidate that is a whole copy of the right build
 * (it holds the code, as perf's build-id cache does) stands in for it; a debug file made by
 * `objcopy --only-keep-debug` cannot, as its program headers no longer give file offsets.
 *
 * Functions are the STT_FUNC and STT_GNU_IFUNC symbols of .symtab, else of .dynsym, with
 * their sizes (a symbol of size 0 runs to the next symbol, within its section).  C++ and Rust
 * names are demangled with libiberty (C++ with parameters; Rust legacy names without their
 * "::h<hash>", Rust v0 names); symbol versions ("@@GLIBC_2.2.5") are dropped.
 */
#ifndef WC_ANALYZER_ELFSYM_H
#define WC_ANALYZER_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wc_elfsym;

/* Where to look for files; any member may be NULL or 0, and so may the whole struct. */
struct wc_symbol_paths {
	const char *symfs;	       /* root of the recorded paths, as perf --symfs */
	const char *const *debug_dirs; /* extra debug directories, searched before the system's */
	size_t ndebug_dirs;
	const char *debuginfod; /* non-NULL: ask these debuginfod servers (symbolize.h; "": those
				 * of DEBUGINFOD_URLS); elfsym.c itself never does */
	const char *kallsyms;	/* --kallsyms: /proc/kallsyms text for a trace that has none */
	bool inline_frames;	/* --inline: inlined calls as frames (symbolize.h) */
};

enum wc_elfsym_status {
	WC_ELFSYM_OK,	    /* symbols loaded */
	WC_ELFSYM_MISSING,  /* no file at the path (or the path is not absolute, as "[vdso]") */
	WC_ELFSYM_MISMATCH, /* the file is not the recorded build (or has no build-id) */
	WC_ELFSYM_NOSYMS,   /* the file has no function symbols, nor a debug file with some */
	WC_ELFSYM_BAD,	    /* the file is not a valid ELF file, or is damaged */
};

/**
 * wc_elfsym_open() - load the function symbols of a mapped file
 * @path:         the file's path as recorded ("/usr/lib/x86_64-linux-gnu/libc.so.6"); a
 *                trailing " (deleted)" is ignored
 * @build_id:     the recorded build-id, @build_id_len bytes; NULL when unknown
 * @build_id_len: bytes of @build_id, 0 when unknown.  Ids that differ only by trailing zero
 *                bytes match (some tools pad build-ids to 20 bytes)
 * @paths:        where to look; may be NULL
 *
 * Reads the symbols in full and closes the files: the object holds no file descriptor.
 * libc (3,000 dynamic symbols) takes about a millisecond.
 *
 * Return: the symbols, to free with wc_elfsym_free(); a file that could not be used still
 * gives an object, whose wc_elfsym_status() says why and whose lookups all fail.  NULL with
 * errno ENOMEM only when out of memory.
 */
struct wc_elfsym *wc_elfsym_open(const char *path, const uint8_t *build_id, size_t build_id_len,
				 const struct wc_symbol_paths *paths);

/**
 * wc_elfsym_open_pair() - load the function symbols of a file and its debug file, both given
 * (as debuginfod hands them out, from its cache)
 * @path:       the runtime file: its program headers map file offsets; it must have the
 *              build-id @build_id (@build_id_len bytes, > 0), else WC_ELFSYM_MISMATCH
 * @debug_path: its debug file, read when @path has no .symtab and it is the same build with
 *              one; or NULL
 * Return: as wc_elfsym_open().
 */
struct wc_elfsym *wc_elfsym_open_pair(const char *path, const char *debug_path,
				      const uint8_t *build_id, size_t build_id_len);
/**
 * wc_elfsym_open_image() - load the function symbols of an ELF object held in memory, as an
 * IMAGE record of the trace carries the vdso
 * @name:         what wc_elfsym_file() then gives ("[vdso]"); copied
 * @image:        the object's bytes, as mapped (the vdso: from its first byte), @len bytes;
 *                borrowed for the call only: a copy is read, and freed before it returns
 * @len:          bytes of @image
 * @build_id:     the recorded build-id, @build_id_len bytes, or NULL when unknown: an image
 *                with another build-id gives WC_ELFSYM_MISMATCH
 * @build_id_len: bytes of @build_id, 0 when unknown
 *
 * The lookups and statuses are those of wc_elfsym_open(), offsets being offsets in the image
 * (ip - mapping start + mapping pgoff, pgoff being 0 for the vdso): a truncated or damaged
 * image gives WC_ELFSYM_BAD, one without function symbols WC_ELFSYM_NOSYMS.  No debug file is
 * looked for.
 *
 * Return: the symbols, to free with wc_elfsym_free(), whatever the status; NULL with errno
 * ENOMEM only when out of memory.
 */
struct wc_elfsym *wc_elfsym_open_image(const char *name, const void *image, size_t len,
				       const uint8_t *build_id, size_t build_id_len);

/** wc_elfsym_free() - free the symbols and the names lookups handed out; NULL is a no-op */
void wc_elfsym_free(struct wc_elfsym *e);

/** wc_elfsym_status() - Return: whether the symbols could be loaded, and if not why */
enum wc_elfsym_status wc_elfsym_status(const struct wc_elfsym *e);

/** wc_elfsym_status_text() - Return: a static description of @status ("build-id mismatch") */
const char *wc_elfsym_status_text(enum wc_elfsym_status status);

/**
 * wc_elfsym_file() - the file the symbols were read from: the file, or a debug file
 *
 * Return: a path (under the symfs or a debug directory), borrowed, valid until
 * wc_elfsym_free(); NULL unless the status is WC_ELFSYM_OK.
 */
const char *wc_elfsym_file(const struct wc_elfsym *e);

/** wc_elfsym_dynsym_only() - Return: the symbols loaded are the file's .dynsym (no .symtab) */
bool wc_elfsym_dynsym_only(const struct wc_elfsym *e);
/** wc_elfsym_count() - Return: the number of functions loaded (one per address) */
size_t wc_elfsym_count(const struct wc_elfsym *e);

/**
 * wc_elfsym_lookup() - the function at a file offset
 * @e:              symbols
 * @file_offset:    offset in the file, bytes: ip - mapping start + mapping pgoff
 * @sym_offset_out: set to the bytes from the function's start; may be NULL; not written when
 *                  the lookup fails
 *
 * The offset is turned into an ELF virtual address through the PT_LOAD segment holding it
 * (which covers PIE, shared libraries and fixed-address executables alike), then a binary
 * search finds the function.
 *
 * Return: the function's name, demangled, borrowed, valid until wc_elfsym_free(); or NULL when
 * the offset is in no function, or the status is not WC_ELFSYM_OK.
 */
const char *wc_elfsym_lookup(const struct wc_elfsym *e, uint64_t file_offset,
			     uint64_t *sym_offset_out);

/**
 * wc_elfsym_lookup_range() - the function at a file offset, as wc_elfsym_lookup(), and where
 * it is
 * @start_out: set to the file offset of its first byte (written only when found)
 * @end_out:   set to the file offset one past its last byte
 *
 * Return: its name, as wc_elfsym_lookup(); NULL when not found.
 */
const char *wc_elfsym_lookup_range(const struct wc_elfsym *e, uint64_t file_offset,
				   uint64_t *start_out, uint64_t *end_out);
/**
 * wc_elfsym_vaddr() - the ELF virtual address of a file offset, through the PT_LOAD segment
 * holding it (as wc_elfsym_lookup() finds it)
 * Return: whether one holds it (and the status is WC_ELFSYM_OK); *@vaddr_out set only then.
 */
bool wc_elfsym_vaddr(const struct wc_elfsym *e, uint64_t file_offset, uint64_t *vaddr_out);

/**
 * wc_elfsym_file_offset() - the file offset of an ELF virtual address, the inverse of
 * wc_elfsym_vaddr()
 * Return: whether a PT_LOAD segment's file bytes hold it; *@file_offset_out set only then.
 */
bool wc_elfsym_file_offset(const struct wc_elfsym *e, uint64_t vaddr, uint64_t *file_offset_out);

/**
 * wc_elfsym_build_id() - read a file's GNU build-id note (NT_GNU_BUILD_ID)
 * @path: the file
 * @id:   set to the build-id, @len bytes at most
 * @len:  bytes of @id; 20 holds a SHA-1 id, 64 any id
 *
 * Return: the build-id's length in bytes (> 0), -ENODATA when the file has none, -ERANGE when
 * it is longer than @len, -ENOEXEC when the file is not ELF, or the error of open(2).
 */
int wc_elfsym_build_id(const char *path, uint8_t *id, size_t len);

/**
 * wc_elfsym_image_build_id() - the GNU build-id of an ELF object in memory (the vdso of an
 * IMAGE record), as wc_elfsym_build_id() reads a file's
 * @image: @image_len bytes, borrowed for the call
 * Return: the build-id's length in bytes (> 0), -ENODATA, -ERANGE, -ENOEXEC when @image is not
 * a valid ELF object, or -ENOMEM.
 */
int wc_elfsym_image_build_id(const void *image, size_t image_len, uint8_t *id, size_t len);

#endif /* WC_ANALYZER_ELFSYM_H */
