/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unwind-files.c - see unwind-files.h. */
#include "recorder/unwind-files.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/buildid.h"

/* The process whose session libdwfl works on: its modules are opened through its root; and
 * where files refused as changed since mapped are counted (wc_unwind_stats.changed). */
static __thread uint32_t cur_pid;
static __thread uint64_t *cur_changed;

/* Tests: open files by path, as a recorder without CAP_SYS_ADMIN does (no map_files). */
static bool no_map_files;

/*
 * The file mapped at @base in process @pid, as mapped: its /proc/PID/map_files entry (root
 * only: CAP_SYS_ADMIN), which is the mapped inode even where the path now names another file
 * (a library upgraded on disk since the process started).  Return: an fd, else -1.
 */
static int open_mapped(uint32_t pid, uint64_t base, char *path, size_t size)
{
	char dir[64], prefix[32];
	struct dirent *d;
	DIR *dh;
	int fd = -1;

	if (no_map_files)
		return -1;
	snprintf(dir, sizeof(dir), "/proc/%u/map_files", pid);
	snprintf(prefix, sizeof(prefix), "%" PRIx64 "-", base);
	dh = opendir(dir);
	if (!dh)
		return -1;
	while ((d = readdir(dh)) && fd < 0) {
		if (strncmp(d->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, size, "%s/%s", dir, d->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	closedir(dh);
	return fd;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* The inode of the file mapped at @base in @pid, from /proc/PID/maps; 0 if not found. */
static uint64_t mapped_inode(uint32_t pid, uint64_t base)
{
	char path[64], line[512];
	unsigned long long start, inode = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) /* a long path's rest fails the match below */
		if (sscanf(line, "%llx-%*x %*s %*x %*x:%*x %llu", &start, &inode) == 2 &&
		    start == base)
			break;
		else
			inode = 0;
	fclose(f);
	return inode;
}

/*
 * Is the file open as @fd the one mapped at @base in @pid?  The same inode, else the same
 * build-id as the image in the process's memory (its first page: headers and notes), as an
 * overlay or btrfs may show another inode number for the same file.  A file replaced at its
 * path since it was mapped (an upgrade), or without a build-id to tell, is not.
 */
static bool same_as_mapped(int fd, uint32_t pid, uint64_t base)
{
	uint8_t page[4096], a[WC_BUILD_ID_MAX], b[WC_BUILD_ID_MAX];
	char path[64];
	struct stat st;
	int na, nb = -1, mem;
	ssize_t got;

	if (fstat(fd, &st) || (uint64_t)st.st_ino == mapped_inode(pid, base))
		return true;
	na = wc_elf_build_id_fd(fd, a, sizeof(a));
	snprintf(path, sizeof(path), "/proc/%u/mem", pid);
	mem = na > 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (mem < 0)
		return false;
	got = pread(mem, page, sizeof(page), (off_t)base);
	close(mem);
	if (got > 0)
		nb = wc_elf_build_id_mem(page, (size_t)got, b, sizeof(b));
	return na == nb && !memcmp(a, b, (size_t)na);
}

/*
 * A module's file, as the process maps it: through /proc/PID/map_files (open_mapped()), else
 * through /proc/PID/root, so that a process in another mount namespace (a container), or a
 * recorder in a chroot, gets its own file, but only if it is still the file mapped
 * (same_as_mapped(): a file changed since is refused, counted, and its frames not unwound);
 * the vdso and other names not a path as libdwfl finds them (from the process's memory).  Only
 * regular files: not a mapped device.
 */
int wc_unwind_find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		       char **file_name, Elf **elfp)
{
	char path[4096 + 32];
	struct stat st;
	int fd;

	if (name && name[0] == '/' && cur_pid) {
		bool mapped = true;

		fd = open_mapped(cur_pid, base, path, sizeof(path));
		if (fd < 0 && has_suffix(name, " (deleted)")) { /* replaced or removed since */
			if (cur_changed)
				(*cur_changed)++;
			return -1;
		}
		if (fd < 0) {
			snprintf(path, sizeof(path), "/proc/%u/root%s", cur_pid, name);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			mapped = false;
		}
		if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode)) {
			if (mapped || same_as_mapped(fd, cur_pid, base)) {
				*file_name = strdup(path);
				return fd;
			}
			if (cur_changed)
				(*cur_changed)++;
		}
		if (fd >= 0)
			close(fd);
		return -1; /* never the path as it is: another file, outside the process's root */
	}
	return dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
}

/*
 * No separate debug files: .eh_frame, in the file itself, is what the unwind reads, and a
 * recorder must not go looking elsewhere (dwfl_standard_find_debuginfo() would ask the
 * debuginfod servers of DEBUGINFOD_URLS, over the network, from a production host).
 */
int wc_unwind_no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			   const char *file_name, const char *debuglink_file,
			   GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

void wc_unwind_files_init(void)
{
	no_map_files = getenv("WCREC_FORCE_NO_MAP_FILES") != NULL;
}

void wc_unwind_files_for(uint32_t pid, uint64_t *changed)
{
	cur_pid = pid;
	cur_changed = changed;
}
