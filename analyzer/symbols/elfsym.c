/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * elfsym.c - function symbols of one ELF file, looked up by file offset (see elfsym.h).
 *
 * Two files may be involved: the "runtime" file, the one that was mapped, whose PT_LOAD
 * program headers turn file offsets into virtual addresses; and the "symbol" file, the same
 * file or a separate debug file, whose .symtab (else .dynsym) gives the functions.  Both are
 * read with libelf in ELF_C_READ mode (pread, no mmap: a file cut short gives an error where a
 * mapping would give SIGBUS); everything needed is copied out and the files are closed.
 *
 * An image held in memory (the vdso an IMAGE record carries) is read with elf_memory() from a
 * copy, freed once its symbols are copied out, as a file is closed.
 *
 * The files are untrusted: libelf checks the section and note bounds it hands out, and the
 * checks here reject headers or segments that point past the end of the file.
 */
#include "analyzer/symbols/elfsym.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/symbols/elfsym-priv.h"
#include "common/strbuf.h"

#define BUILD_ID_MAX	 64 /* bytes; SHA-1 ids are 20 */
#define NO_NAME		 WC_STRBUF_FAIL
#define SYSTEM_DEBUG_DIR "/usr/lib/debug"

/* A PT_LOAD segment's file range and where it is in the virtual address space. */
struct seg {
	uint64_t off, filesz, vaddr;
};

/* A function: [start, end) in ELF virtual addresses. */
struct esym {
	uint64_t start, end;
	uint32_t name; /* offset in names */
};

struct wc_elfsym {
	enum wc_elfsym_status status;
	struct esym *syms; /* sorted by start, one per start */
	size_t nsyms;
	char *names;
	struct seg *segs;
	size_t nsegs;
	char *file;	  /* where the symbols came from */
	bool dynsym_only; /* from the file's .dynsym: it has no .symtab */
};

/* An open ELF file and what open_file() learned about it. */
struct efile {
	int fd;	   /* -1 for an image in memory */
	char *mem; /* the image's copy, owned; NULL for a file */
	Elf *elf;
	uint64_t size; /* bytes */
	char path[PATH_MAX];
	uint8_t id[BUILD_ID_MAX];
	size_t id_len; /* 0: no build-id */
	Elf_Scn *symtab, *dynsym;
	bool has_code; /* an executable section with contents: the program headers are real */
};

/* A symbol as read from the table, before duplicates are dropped. */
struct raw {
	uint64_t start, size;
	const char *name; /* in libelf's copy of the string table */
	uint32_t idx;	  /* index in the table: the last tie-break */
	uint16_t shndx;	  /* section; 0 when not known */
	uint8_t bind;	  /* STB_* */
};

/* ---- files ---- */

static void close_file(struct efile *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->mem);
	f->elf = NULL;
	f->mem = NULL;
	f->fd = -1;
}

/* The GNU build-id note in d, copied to id.  Return: its length, or 0 when d has none. */
static size_t note_build_id(Elf_Data *d, uint8_t *id)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	if (!d)
		return 0;
	for (; (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0; off = next) {
		const char *base = d->d_buf;

		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != sizeof(ELF_NOTE_GNU) ||
		    memcmp(base + name_off, ELF_NOTE_GNU, sizeof(ELF_NOTE_GNU)) || !nh.n_descsz ||
		    nh.n_descsz > BUILD_ID_MAX)
			continue;
		memcpy(id, base + desc_off, nh.n_descsz);
		return nh.n_descsz;
	}
	return 0;
}

/* Do the program and section header tables lie in the file, with entries of the right size? */
static bool headers_in_file(Elf *elf, uint64_t size)
{
	size_t phent = gelf_fsize(elf, ELF_T_PHDR, 1, EV_CURRENT);
	size_t shent = gelf_fsize(elf, ELF_T_SHDR, 1, EV_CURRENT);
	size_t phnum, shnum;
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &phnum) || elf_getshdrnum(elf, &shnum))
		return false;
	if (phnum &&
	    (eh.e_phentsize != phent || eh.e_phoff > size || (size - eh.e_phoff) / phent < phnum))
		return false;
	/* libelf pretends a cut section header table is not there: look at the ELF header */
	if (eh.e_shoff && (eh.e_shentsize != shent || eh.e_shoff > size ||
			   (size - eh.e_shoff) / shent < (eh.e_shnum ? eh.e_shnum : 1)))
		return false;
	return !shnum || (size - eh.e_shoff) / shent >= shnum;
}

/*
 * Find the symbol tables, code and build-id of the ELF file f->elf, f->size bytes.  On failure
 * f is left closed.  Return: WC_ELFSYM_OK or WC_ELFSYM_BAD.
 */
static enum wc_elfsym_status inspect_file(struct efile *f)
{
	Elf_Scn *scn = NULL;
	size_t phnum;

	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || !headers_in_file(f->elf, f->size))
		goto bad;
	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			goto bad;
		if (sh.sh_type == SHT_SYMTAB && !f->symtab)
			f->symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM && !f->dynsym)
			f->dynsym = scn;
		else if (sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR) && sh.sh_size)
			f->has_code = true;
		else if (sh.sh_type == SHT_NOTE && !f->id_len)
			f->id_len = note_build_id(elf_getdata(scn, NULL), f->id);
	}
	/* files without section headers still have their PT_NOTE */
	if (!f->id_len && !elf_getphdrnum(f->elf, &phnum)) {
		for (size_t i = 0; i < phnum && !f->id_len; i++) {
			Elf_Type type;
			GElf_Phdr ph;

			if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_NOTE)
				continue;
			type = ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR;
			f->id_len = note_build_id(elf_getdata_rawchunk(f->elf, (int64_t)ph.p_offset,
								       ph.p_filesz, type),
						  f->id);
		}
	}
	return WC_ELFSYM_OK;
bad:
	close_file(f);
	return WC_ELFSYM_BAD;
}

/*
 * Open the ELF file at path into f, find its symbol tables, code and build-id.  On failure f
 * is left closed.  Return: WC_ELFSYM_OK, WC_ELFSYM_MISSING, or WC_ELFSYM_BAD.
 */
static enum wc_elfsym_status open_file(struct efile *f, const char *path)
{
	struct stat st;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (strlen(path) >= sizeof(f->path)) {
		errno = ENAMETOOLONG;
		return WC_ELFSYM_MISSING;
	}
	strcpy(f->path, path);
	f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (f->fd < 0)
		return WC_ELFSYM_MISSING;
	if (fstat(f->fd, &st) || !S_ISREG(st.st_mode)) {
		close_file(f);
		return WC_ELFSYM_BAD;
	}
	f->size = (uint64_t)st.st_size;
	f->elf = elf_begin(f->fd, ELF_C_READ, NULL);
	return inspect_file(f);
}

/*
 * Open a copy of the image's len bytes into f, named name.  On failure f is left closed.
 * Return: WC_ELFSYM_OK, WC_ELFSYM_BAD, or -ENOMEM.
 */
static int open_image(struct efile *f, const char *name, const void *image, size_t len)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	snprintf(f->path, sizeof(f->path), "%s", name);
	if (!image || !len)
		return WC_ELFSYM_BAD;
	/* elf_memory() may write to its buffer: it converts in place a foreign byte order */
	f->mem = malloc(len);
	if (!f->mem)
		return -ENOMEM;
	memcpy(f->mem, image, len);
	f->size = len;
	f->elf = elf_memory(f->mem, len);
	return inspect_file(f);
}

/* Same build-id?  Ids may differ in length by trailing zero bytes (padding). */
static bool id_match(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	size_t n = alen < blen ? alen : blen;

	if (!alen || !blen || memcmp(a, b, n))
		return false;
	for (size_t i = n; i < alen; i++)
		if (a[i])
			return false;
	for (size_t i = n; i < blen; i++)
		if (b[i])
			return false;
	return true;
}

/* What a candidate debug (or stand-in) file must have. */
struct want {
	const uint8_t *id;
	size_t id_len;	/* 0: unknown, the file is taken on its path alone */
	bool need_code; /* stands in for the runtime file: holds the code */
};

/*
 * Open the file at the path fmt makes into f if it is what w asks for.
 * Return: true when f holds it, open; false, f closed.
 */
__attribute__((format(printf, 3, 4))) static bool try_file(struct efile *f, const struct want *w,
							   const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path) || open_file(f, path) != WC_ELFSYM_OK)
		return false;
	if ((!w->id_len || id_match(f->id, f->id_len, w->id, w->id_len)) &&
	    (w->need_code ? f->has_code : f->symtab != NULL))
		return true;
	close_file(f);
	return false;
}

/* Look for the debug or stand-in file of path, in the order elfsym.h lists.  Return: found. */
static bool find_debug_file(struct efile *f, const char *path, const struct want *w,
			    const struct wc_symbol_paths *paths)
{
	const char *symfs = paths && paths->symfs ? paths->symfs : "";
	size_t ndirs = paths && paths->debug_dirs ? paths->ndebug_dirs : 0;
	char hex[2 * BUILD_ID_MAX + 2], *h = hex;

	if (w->id_len && w->id_len <= BUILD_ID_MAX) {
		/* "xx/yyyy..." */
		for (size_t i = 0; i < w->id_len; i++) {
			h += sprintf(h, "%02x", w->id[i]);
			if (!i)
				*h++ = '/';
		}
		for (size_t i = 0; i < ndirs; i++) {
			const char *d = paths->debug_dirs[i];

			if (try_file(f, w, "%s/.build-id/%s.debug", d, hex) ||
			    try_file(f, w, "%s/%s.debug", d, hex) ||
			    try_file(f, w, "%s/.build-id/%s/elf", d, hex) ||
			    try_file(f, w, "%s/.build-id/%s/debug", d, hex))
				return true;
		}
		if (try_file(f, w, "%s" SYSTEM_DEBUG_DIR "/.build-id/%s.debug", symfs, hex))
			return true;
	}
	if (path[0] != '/')
		return false;
	for (size_t i = 0; i < ndirs; i++) {
		const char *d = paths->debug_dirs[i];

		if (try_file(f, w, "%s%s", d, path) || try_file(f, w, "%s%s.debug", d, path))
			return true;
	}
	/* PATH.debug beside the file: objcopy --add-gnu-debuglink's usual name for it */
	return try_file(f, w, "%s%s.debug", symfs, path) ||
	       try_file(f, w, "%s" SYSTEM_DEBUG_DIR "%s.debug", symfs, path) ||
	       try_file(f, w, "%s" SYSTEM_DEBUG_DIR "%s", symfs, path);
}

/* ---- symbols ---- */

static unsigned underscores(const char *s)
{
	unsigned n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * Which of two symbols at one address to keep, as perf's choose_best_symbol(): with a size,
 * then not weak, then global, then fewer leading underscores, then the longer name; then the
 * first in the table.  Return: < 0 to keep a, > 0 to keep b.
 */
static int rank_cmp(const struct raw *a, const struct raw *b)
{
	size_t la, lb;

	if (!a->size != !b->size)
		return a->size ? -1 : 1;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return a->bind == STB_WEAK ? 1 : -1;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return a->bind == STB_GLOBAL ? -1 : 1;
	if (underscores(a->name) != underscores(b->name))
		return underscores(a->name) < underscores(b->name) ? -1 : 1;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la > lb ? -1 : 1;
	return a->idx < b->idx ? -1 : 1;
}

static int raw_cmp(const void *pa, const void *pb)
{
	const struct raw *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* First address past section shndx of elf when it holds addr, else UINT64_MAX. */
static uint64_t section_end(Elf *elf, uint16_t shndx, uint64_t addr)
{
	Elf_Scn *scn = shndx ? elf_getscn(elf, shndx) : NULL;
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || addr < sh.sh_addr || addr - sh.sh_addr >= sh.sh_size)
		return UINT64_MAX;
	return sh.sh_addr + sh.sh_size;
}

/* Read the function symbols of table scn into raws.  Return: their number, or -errno. */
static ssize_t read_table(struct efile *f, Elf_Scn *scn, struct raw **raws_out)
{
	size_t entsize = gelf_fsize(f->elf, ELF_T_SYM, 1, EV_CURRENT), n, nraw = 0;
	bool arm = false;
	struct raw *raws;
	Elf_Data *data;
	GElf_Ehdr eh;
	GElf_Shdr sh;

	data = elf_getdata(scn, NULL);
	if (!data || !gelf_getshdr(scn, &sh) || !gelf_getehdr(f->elf, &eh) || !entsize)
		return -ENOEXEC;
	arm = eh.e_machine == EM_ARM;
	n = data->d_size / entsize;
	if (n > INT_MAX) /* gelf_getsym() takes an int */
		n = INT_MAX;
	raws = malloc((n ? n : 1) * sizeof(*raws));
	if (!raws)
		return -ENOMEM;
	for (size_t i = 1; i < n; i++) {
		struct raw *r = &raws[nraw];
		const char *name;
		GElf_Sym s;
		int type;

		if (!gelf_getsym(data, (int)i, &s))
			break;
		type = GELF_ST_TYPE(s.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(f->elf, sh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		r->start = arm ? s.st_value & ~(uint64_t)1 : s.st_value; /* Thumb bit */
		r->size = s.st_size;
		r->name = name;
		r->idx = (uint32_t)i;
		r->shndx = s.st_shndx < SHN_LORESERVE ? s.st_shndx : 0;
		r->bind = GELF_ST_BIND(s.st_info);
		nraw++;
	}
	*raws_out = raws;
	return (ssize_t)nraw;
}

/*
 * Load the functions of f's .symtab, else its .dynsym, into e.
 * Return: WC_ELFSYM_OK, WC_ELFSYM_NOSYMS, WC_ELFSYM_BAD, or -ENOMEM.
 */
static int load_symbols(struct wc_elfsym *e, struct efile *f)
{
	struct wc_strbuf names = { NULL, 0, 0 };
	struct demangled d = { NULL, 0, false };
	struct raw *raws = NULL;
	size_t m = 0;
	ssize_t n;
	int ret = -ENOMEM;

	if (!f->symtab && !f->dynsym)
		return WC_ELFSYM_NOSYMS;
	e->dynsym_only = !f->symtab;
	n = read_table(f, f->symtab ? f->symtab : f->dynsym, &raws);
	if (n <= 0) {
		free(raws);
		return n == -ENOMEM ? -ENOMEM : n ? WC_ELFSYM_BAD : WC_ELFSYM_NOSYMS;
	}
	/* one symbol per address */
	qsort(raws, (size_t)n, sizeof(*raws), raw_cmp);
	for (size_t i = 0, j; i < (size_t)n; i = j) {
		size_t best = i;

		for (j = i + 1; j < (size_t)n && raws[j].start == raws[i].start; j++)
			if (rank_cmp(&raws[j], &raws[best]) < 0)
				best = j;
		raws[m++] = raws[best];
	}
	e->syms = malloc(m * sizeof(*e->syms));
	d.buf = malloc(DEMANGLE_OUT_MAX);
	if (!e->syms || !d.buf)
		goto out_free;
	for (size_t i = 0; i < m; i++) {
		struct esym *s = &e->syms[i];
		uint64_t limit;

		s->start = raws[i].start;
		if (raws[i].size) {
			s->end = raws[i].size > UINT64_MAX - s->start ? UINT64_MAX
								      : s->start + raws[i].size;
		} else {
			/* no size: up to the next symbol, within the section */
			limit = section_end(f->elf, raws[i].shndx, s->start);
			s->end = i + 1 < m ? raws[i + 1].start : limit;
			if (s->end > limit)
				s->end = limit;
			if (s->end == UINT64_MAX)
				s->end = s->start + 1;
		}
		s->name = wc_elfsym_add_name(&names, &d, raws[i].name);
		if (s->name == NO_NAME)
			goto out_free;
	}
	e->nsyms = m;
	e->names = names.p;
	names.p = NULL;
	ret = WC_ELFSYM_OK;
out_free:
	free(d.buf);
	free(names.p);
	free(raws);
	return ret;
}

/* Copy the PT_LOAD segments of f.  Return: WC_ELFSYM_OK, WC_ELFSYM_BAD, or -ENOMEM. */
static int load_segments(struct wc_elfsym *e, struct efile *f)
{
	size_t phnum;

	if (elf_getphdrnum(f->elf, &phnum) || !phnum)
		return WC_ELFSYM_BAD;
	e->segs = calloc(phnum, sizeof(*e->segs));
	if (!e->segs)
		return -ENOMEM;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(f->elf, (int)i, &ph))
			return WC_ELFSYM_BAD;
		if (ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		/* a segment past the end of the file: the file was cut short */
		if (ph.p_offset > f->size || f->size - ph.p_offset < ph.p_filesz)
			return WC_ELFSYM_BAD;
		e->segs[e->nsegs++] = (struct seg){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
	}
	return e->nsegs ? WC_ELFSYM_OK : WC_ELFSYM_BAD;
}

/* ---- the API ---- */

/*
 * The end of an open: @e takes status @st, and @file (the symbols' file) as its path when OK;
 * on a negative @st (-ENOMEM) it is freed.  Return: @e, or NULL with errno set.
 */
static struct wc_elfsym *finish(struct wc_elfsym *e, int st, const char *file)
{
	if (st == WC_ELFSYM_OK && !(e->file = strdup(file)))
		st = -ENOMEM;
	if (st < 0) {
		wc_elfsym_free(e);
		errno = -st;
		return NULL;
	}
	e->status = (enum wc_elfsym_status)st;
	return e;
}

struct wc_elfsym *wc_elfsym_open(const char *path, const uint8_t *build_id, size_t build_id_len,
				 const struct wc_symbol_paths *paths)
{
	static const char deleted[] = " (deleted)";
	const char *symfs = paths && paths->symfs ? paths->symfs : "";
	struct efile rt = { .fd = -1 }, dbg = { .fd = -1 }, *symf = &rt;
	struct wc_elfsym *e = calloc(1, sizeof(*e));
	char clean[PATH_MAX], full[PATH_MAX];
	struct want w = { NULL, 0, false };
	size_t len;
	int st = WC_ELFSYM_MISSING;

	if (!e)
		return NULL;
	if (!path)
		path = "";
	if (!build_id)
		build_id_len = 0;
	elf_version(EV_CURRENT);
	len = strlen(path);
	if (len >= sizeof(deleted) && !strcmp(path + len - sizeof(deleted) + 1, deleted))
		len -= sizeof(deleted) - 1;
	if (len >= sizeof(clean))
		goto out;
	memcpy(clean, path, len);
	clean[len] = '\0';

	/* the runtime file: the recorded one, else a stand-in found by build-id */
	if (clean[0] == '/' &&
	    snprintf(full, sizeof(full), "%s%s", symfs, clean) < (int)sizeof(full))
		st = open_file(&rt, full);
	if (st == WC_ELFSYM_OK && build_id_len &&
	    !id_match(rt.id, rt.id_len, build_id, build_id_len)) {
		close_file(&rt);
		st = WC_ELFSYM_MISMATCH;
	}
	if (st != WC_ELFSYM_OK && build_id_len) {
		w = (struct want){ build_id, build_id_len, true };
		if (find_debug_file(&rt, clean, &w, paths))
			st = WC_ELFSYM_OK;
	}
	if (st != WC_ELFSYM_OK)
		goto out;
	st = load_segments(e, &rt);
	if (st != WC_ELFSYM_OK)
		goto out;

	/* the symbol file: the runtime file if it has a .symtab, else a matching debug file */
	if (!rt.symtab) {
		w = build_id_len ? (struct want){ build_id, build_id_len, false }
				 : (struct want){ rt.id, rt.id_len, false };
		if (find_debug_file(&dbg, clean, &w, paths))
			symf = &dbg;
	}
	st = load_symbols(e, symf);
out:
	close_file(&dbg);
	close_file(&rt);
	return finish(e, st, symf->path);
}

struct wc_elfsym *wc_elfsym_open_pair(const char *path, const char *debug_path,
				      const uint8_t *build_id, size_t build_id_len)
{
	struct efile rt = { .fd = -1 }, dbg = { .fd = -1 }, *symf = &rt;
	struct wc_elfsym *e = calloc(1, sizeof(*e));
	int st;

	if (!e)
		return NULL;
	elf_version(EV_CURRENT);
	st = open_file(&rt, path);
	if (st == WC_ELFSYM_OK && !id_match(rt.id, rt.id_len, build_id, build_id_len))
		st = WC_ELFSYM_MISMATCH;
	if (st == WC_ELFSYM_OK)
		st = load_segments(e, &rt);
	/* the debug file when it is the same build and has a .symtab where the file has none */
	if (st == WC_ELFSYM_OK && !rt.symtab && debug_path &&
	    open_file(&dbg, debug_path) == WC_ELFSYM_OK && dbg.symtab &&
	    id_match(dbg.id, dbg.id_len, build_id, build_id_len))
		symf = &dbg;
	if (st == WC_ELFSYM_OK)
		st = load_symbols(e, symf);
	close_file(&dbg);
	close_file(&rt);
	return finish(e, st, symf->path);
}

struct wc_elfsym *wc_elfsym_open_image(const char *name, const void *image, size_t len,
				       const uint8_t *build_id, size_t build_id_len)
{
	struct wc_elfsym *e = calloc(1, sizeof(*e));
	struct efile f = { .fd = -1 };
	int st;

	if (!e)
		return NULL;
	if (!build_id)
		build_id_len = 0;
	elf_version(EV_CURRENT);
	st = open_image(&f, name ? name : "", image, len);
	if (st == WC_ELFSYM_OK && build_id_len && !id_match(f.id, f.id_len, build_id, build_id_len))
		st = WC_ELFSYM_MISMATCH;
	if (st == WC_ELFSYM_OK)
		st = load_segments(e, &f);
	if (st == WC_ELFSYM_OK)
		st = load_symbols(e, &f);
	close_file(&f);
	return finish(e, st, f.path);
}

void wc_elfsym_free(struct wc_elfsym *e)
{
	if (!e)
		return;
	free(e->syms);
	free(e->names);
	free(e->segs);
	free(e->file);
	free(e);
}

enum wc_elfsym_status wc_elfsym_status(const struct wc_elfsym *e)
{
	return e->status;
}

const char *wc_elfsym_status_text(enum wc_elfsym_status status)
{
	static const char *const text[] = {
		[WC_ELFSYM_OK] = "ok",
		[WC_ELFSYM_MISSING] = "file not found",
		[WC_ELFSYM_MISMATCH] = "build-id mismatch",
		[WC_ELFSYM_NOSYMS] = "no symbols",
		[WC_ELFSYM_BAD] = "not a valid ELF file",
	};

	return (unsigned)status <= WC_ELFSYM_BAD ? text[status] : "unknown status";
}

bool wc_elfsym_dynsym_only(const struct wc_elfsym *e)
{
	return e->status == WC_ELFSYM_OK && e->dynsym_only;
}

const char *wc_elfsym_file(const struct wc_elfsym *e)
{
	return e->status == WC_ELFSYM_OK ? e->file : NULL;
}

size_t wc_elfsym_count(const struct wc_elfsym *e)
{
	return e->status == WC_ELFSYM_OK ? e->nsyms : 0;
}

bool wc_elfsym_vaddr(const struct wc_elfsym *e, uint64_t file_offset, uint64_t *vaddr_out)
{
	if (e->status != WC_ELFSYM_OK)
		return false;
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct seg *g = &e->segs[i];

		if (file_offset >= g->off && file_offset - g->off < g->filesz) {
			*vaddr_out = g->vaddr + (file_offset - g->off);
			return true;
		}
	}
	return false;
}

bool wc_elfsym_file_offset(const struct wc_elfsym *e, uint64_t vaddr, uint64_t *file_offset_out)
{
	if (e->status != WC_ELFSYM_OK)
		return false;
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct seg *g = &e->segs[i];

		if (vaddr >= g->vaddr && vaddr - g->vaddr < g->filesz) {
			*file_offset_out = g->off + (vaddr - g->vaddr);
			return true;
		}
	}
	return false;
}

const char *wc_elfsym_lookup_range(const struct wc_elfsym *e, uint64_t file_offset,
				   uint64_t *start_out, uint64_t *end_out)
{
	size_t lo = 0, hi = e->nsyms;
	const struct esym *s;
	uint64_t vaddr;

	if (!wc_elfsym_vaddr(e, file_offset, &vaddr))
		return NULL;
	/* the last function starting at or before vaddr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->syms[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &e->syms[lo - 1];
	if (vaddr >= s->end)
		return NULL;
	*start_out = file_offset - (vaddr - s->start);
	*end_out = *start_out + (s->end - s->start);
	return e->names + s->name;
}

const char *wc_elfsym_lookup(const struct wc_elfsym *e, uint64_t file_offset,
			     uint64_t *sym_offset_out)
{
	uint64_t start, end;
	const char *name = wc_elfsym_lookup_range(e, file_offset, &start, &end);

	if (name && sym_offset_out)
		*sym_offset_out = file_offset - start;
	return name;
}

int wc_elfsym_image_build_id(const void *image, size_t image_len, uint8_t *id, size_t len)
{
	struct efile f;
	int ret;

	elf_version(EV_CURRENT);
	ret = open_image(&f, "", image, image_len);
	if (ret != WC_ELFSYM_OK)
		return ret < 0 ? ret : -ENOEXEC;
	ret = !f.id_len ? -ENODATA : f.id_len > len ? -ERANGE : (int)f.id_len;
	if (ret > 0)
		memcpy(id, f.id, f.id_len);
	close_file(&f);
	return ret;
}

int wc_elfsym_build_id(const char *path, uint8_t *id, size_t len)
{
	struct efile f;
	int ret;

	elf_version(EV_CURRENT);
	switch (open_file(&f, path)) {
	case WC_ELFSYM_OK:
		break;
	case WC_ELFSYM_MISSING:
		return errno ? -errno : -ENOENT;
	default:
		return -ENOEXEC;
	}
	ret = !f.id_len ? -ENODATA : f.id_len > len ? -ERANGE : (int)f.id_len;
	if (ret > 0)
		memcpy(id, f.id, f.id_len);
	close_file(&f);
	return ret;
}
