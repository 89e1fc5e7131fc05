/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unwind-files.h - the files libdwfl unwinds a process's frames with (recorder/unwind.c):
 * each as the process maps it, never another file at the same path.
 *
 * A module's file is opened through /proc/PID/map_files (root: the mapped inode itself, even
 * where the path now names another file), else through /proc/PID/root (the process's own
 * mount namespace), and then only if it is still the file mapped: the same inode as in
 * /proc/PID/maps, or the same build-id as the image in the process's memory.  A file replaced
 * since it was mapped (its path "(deleted)", or another file at the path) is refused and
 * counted.  No separate debug files and no debuginfod: .eh_frame, in the file, is what the
 * unwind reads.
 */
#ifndef WC_RECORDER_UNWIND_FILES_H
#define WC_RECORDER_UNWIND_FILES_H

#include <elfutils/libdwfl.h>
#include <stdint.h>

/* wc_unwind_files_init() - read WCREC_FORCE_NO_MAP_FILES (tests: open by path, as without
 * CAP_SYS_ADMIN) */
void wc_unwind_files_init(void);

/* wc_unwind_files_for() - the calling thread's next modules are @pid's; refusals are added to
 * *@changed (may be NULL) */
void wc_unwind_files_for(uint32_t pid, uint64_t *changed);

/* wc_unwind_find_elf() - Dwfl_Callbacks.find_elf: the module's file as above (an fd, with
 * *@file_name set, owned by libdwfl), or -1; names that are no path (the vdso) as
 * dwfl_linux_proc_find_elf() finds them, from the process's memory */
int wc_unwind_find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		       char **file_name, Elf **elfp);

/* wc_unwind_no_debuginfo() - Dwfl_Callbacks.find_debuginfo: none (-1), so that a recorder
 * never asks DEBUGINFOD_URLS' servers, over the network, from a production host */
int wc_unwind_no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			   const char *file_name, const char *debuglink_file,
			   GElf_Word debuglink_crc, char **debuginfo_file_name);

#endif /* WC_RECORDER_UNWIND_FILES_H */
