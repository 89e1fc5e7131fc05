/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metadata-util.c - see metadata-util.h. */
#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/kallsyms.h"
#include "common/reader.h"
#include "common/writer.h"
#include "recorder/metadata.h"
#include "recorder/tracefs.h"
#include "tests/unit/metadata-util.h"

char path[64], elf_path[3][64]; /* the trace, ELF files made by the tests */
int fd = -1;
struct wc_writer *w;
size_t nrecs;
struct wc_rec_header **recs; /* copies of the records read back, trailer excluded */

/* Forget the trace: its writer, its file, the records read back. */
void drop_trace(void)
{
	wc_writer_free(w);
	w = NULL;
	if (fd >= 0)
		close(fd);
	fd = -1;
	if (path[0])
		unlink(path);
	path[0] = '\0';
	for (size_t i = 0; i < nrecs; i++)
		free(recs[i]);
	free(recs);
	recs = NULL;
	nrecs = 0;
}

void metadata_fini(void)
{
	drop_trace();
	for (int i = 0; i < 3; i++) {
		if (elf_path[i][0]) {
			umount2(elf_path[i], MNT_DETACH); /* a test may have mounted over it */
			unlink(elf_path[i]);
		}
	}
	memset(elf_path, 0, sizeof(elf_path));
}

uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	cr_assert_eq(clock_gettime(id, &ts), 0);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void start(void)
{
	strcpy(path, "/tmp/wct-metadata-XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	w = wc_writer_new(fd, NULL);
	cr_assert_not_null(w);
}

/* Read every record of the trace back into recs[]. */
void read_back(void)
{
	struct wc_reader *r = wc_reader_open(path);
	const struct wc_rec_header *h;

	cr_assert_not_null(r);
	while (wc_reader_next(r, &h)) {
		if (h->type == WC_REC_TRAILER)
			continue;
		recs = realloc(recs, (nrecs + 1) * sizeof(*recs));
		recs[nrecs] = malloc(h->size);
		memcpy(recs[nrecs++], h, h->size);
	}
	cr_assert_eq(wc_reader_state(r), WC_READER_CLEAN, "%s", wc_reader_error(r));
	wc_reader_free(r);
}

/* Close the trace and read it back. */
void finish(void)
{
	cr_assert_eq(wc_writer_close(w, clock_ns(CLOCK_MONOTONIC), 0), 0);
	wc_writer_free(w);
	w = NULL;
	read_back();
}

/* The only record of a type. */
const void *only(uint16_t type)
{
	const struct wc_rec_header *found = NULL;

	for (size_t i = 0; i < nrecs; i++) {
		if (recs[i]->type == type) {
			cr_assert_null(found, "one record of type %u", type);
			found = recs[i];
		}
	}
	cr_assert_not_null(found, "a record of type %u", type);
	return found;
}

void read_text(const char *file, char *buf, size_t len)
{
	FILE *f = fopen(file, "r");
	size_t n;

	cr_assert_not_null(f, "%s: %s", file, strerror(errno));
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* ---- ELF build-ids ---- */

/* Write a minimal ELF64 file, mode 0644, to a new file named in out[64]: it holds a GNU build-id
 * note (none when idlen is 0), found through a PT_NOTE program header, or a SHT_NOTE section. */
void write_elf(char *out, const uint8_t *id, size_t idlen, bool as_section)
{
	uint64_t file[512] = { 0 };
	uint8_t *p = (uint8_t *)file;
	Elf64_Ehdr *eh = (Elf64_Ehdr *)p;
	size_t note_off = sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr);
	size_t note_len = idlen ? sizeof(Elf64_Nhdr) + 4 + ((idlen + 3) & ~3u) : 0;
	size_t sh_off = (note_off + note_len + 7) & ~7u;
	Elf64_Nhdr nh = { 4, (Elf64_Word)idlen, NT_GNU_BUILD_ID };

	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	memcpy(p + note_off, &nh, sizeof(nh));
	memcpy(p + note_off + sizeof(nh), "GNU", 4);
	if (idlen)
		memcpy(p + note_off + sizeof(nh) + 4, id, idlen);
	if (!as_section) {
		Elf64_Phdr ph = { .p_type = PT_NOTE,
				  .p_offset = note_off,
				  .p_filesz = note_len,
				  .p_memsz = note_len,
				  .p_align = 4 };

		eh->e_phoff = sizeof(*eh);
		eh->e_phentsize = sizeof(Elf64_Phdr);
		eh->e_phnum = 1;
		memcpy(p + sizeof(*eh), &ph, sizeof(ph));
	} else {
		Elf64_Shdr sh[2] = { { 0 },
				     { .sh_type = SHT_NOTE,
				       .sh_offset = note_off,
				       .sh_size = note_len,
				       .sh_addralign = 4 } };

		eh->e_shoff = sh_off;
		eh->e_shentsize = sizeof(Elf64_Shdr);
		eh->e_shnum = 2;
		memcpy(p + sh_off, sh, sizeof(sh));
	}
	strcpy(out, "/tmp/wct-elf-XXXXXX");
	int efd = mkstemp(out);

	cr_assert_geq(efd, 0);
	cr_assert_eq(write(efd, p, 4096), 4096, "a page, so that it can be mapped whole");
	cr_assert_eq(fchmod(efd, 0644), 0);
	close(efd);
}

/* Go into a mount namespace of the test's own, whose changes do not propagate out. */
void private_mounts(void)
{
	if (geteuid())
		cr_skip_test("needs root: tracefs and debugfs are root's to mount and read");
	if (unshare(CLONE_NEWNS))
		cr_skip_test("no private mount namespace: %s", strerror(errno));
	cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
}
