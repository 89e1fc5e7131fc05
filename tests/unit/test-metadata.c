/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-metadata.c - metadata records written, read back with wc_reader, and checked against
 * what the test finds by itself: uname, clocks, /proc/kallsyms, the ELF notes of files it
 * writes, tracefs files.  (test-metadata-tasks.c: the tasks and their maps.)
 *
 * The tracefs tests need root; they run in a private mount namespace, where they unmount
 * tracefs and debugfs to exercise the mount paths without touching the machine's mounts.
 */
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

TestSuite(metadata, .fini = metadata_fini);

Test(metadata, host_record_describes_this_machine)
{
	const struct wc_rec_host *h;
	struct utsname u;
	const char *s;

	start();
	cr_assert_eq(wc_meta_write_host(w), 0);
	finish();
	h = only(WC_REC_HOST);
	cr_assert_eq(uname(&u), 0);
	cr_assert_eq(h->ncpus_online, (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
	cr_assert_eq(h->ncpus_configured, (uint32_t)sysconf(_SC_NPROCESSORS_CONF));
	cr_assert_eq(h->page_size, (uint32_t)getpagesize());
	s = h->strings;
	const char *want[6] = { u.sysname, u.nodename, u.release,
				u.version, u.machine,  "wcrec " PACKAGE_VERSION };
	for (int i = 0; i < 6; s += strlen(s) + 1, i++)
		cr_assert_str_eq(s, want[i]);
	cr_assert_eq((size_t)(s - h->strings), h->strings_len);
}

Test(metadata, clock_record_pairs_the_clock_with_realtime)
{
	static const int ids[] = { -1, CLOCK_BOOTTIME };
	uint64_t before[2], after[2];

	start();
	for (int i = 0; i < 2; i++) {
		clockid_t id = ids[i] == -1 ? CLOCK_MONOTONIC : ids[i];

		before[i] = clock_ns(id);
		cr_assert_eq(wc_meta_write_clock(w, ids[i]), 0);
		after[i] = clock_ns(id);
	}
	cr_assert_eq(wc_meta_write_clock(w, 12345), -EINVAL, "an unreadable clock is refused");
	finish();
	cr_assert_eq(nrecs, 2);
	for (int i = 0; i < 2; i++) {
		const struct wc_rec_clock *c = (const void *)recs[i];
		int64_t wall = (int64_t)(c->realtime_ns / 1000000000u) - (int64_t)time(NULL);

		cr_assert_eq(c->h.type, WC_REC_CLOCK);
		cr_assert_eq(c->clockid, ids[i], "the clockid is stored as given");
		cr_assert(c->clock_ns >= before[i] && c->clock_ns <= after[i],
			  "clock %" PRIu64 " outside [%" PRIu64 ", %" PRIu64 "]", c->clock_ns,
			  before[i], after[i]);
		cr_assert(wall >= -1 && wall <= 1, "realtime is %ld s from time()", (long)wall);
		cr_assert_eq(c->flags, 0);
	}
}

Test(metadata, note_round_trips)
{
	const struct wc_rec_note *n;

	start();
	cr_assert_eq(wc_meta_write_note(w, "wakeup_event", "sched_waking"), 0);
	cr_assert_eq(wc_meta_write_note(w, NULL, "x"), -EINVAL);
	finish();
	n = only(WC_REC_NOTE);
	cr_assert_str_eq(n->data, "wakeup_event");
	cr_assert_str_eq(n->data + n->key_len, "sched_waking");
	cr_assert_eq(n->value_len, sizeof("sched_waking"));
}

Test(metadata, kallsyms_record_is_the_whole_file)
{
	const struct wc_rec_kallsyms *k;
	struct wc_kallsyms *snapshot = (void *)1;
	char first[256];
	bool restricted = true;

	start();
	cr_assert_eq(wc_meta_write_kallsyms(w, true, &snapshot, &restricted), 0);
	finish();
	cr_assert_null(snapshot, "no snapshot is handed out with the whole text");
	k = only(WC_REC_KALLSYMS);
	cr_assert_eq(strlen(k->text) + 1, k->text_len);
	cr_assert_gt(k->text_len, 100000, "only %u bytes", k->text_len);
	cr_assert(strstr(k->text, " T schedule\n") || strstr(k->text, " t schedule\n"),
		  "the symbol schedule is there");
	cr_assert_eq(k->text[k->text_len - 2], '\n', "cut at the end of a line");
	read_text("/proc/kallsyms", first, sizeof(first));
	*strchr(first, '\n') = '\0';
	cr_assert_eq(strncmp(k->text, first, strlen(first)), 0, "starts as the file does");
	bool zero = strspn(first, "0") == strcspn(first, " ");
	cr_assert_eq(restricted, zero, "restricted iff the addresses read as zero");
	cr_assert_eq(!!(k->flags & WC_KALLSYMS_RESTRICTED), zero);
	cr_assert_eq(k->flags & WC_KALLSYMS_REFERENCED, 0);
}

/* The address of the first line of /proc/kallsyms naming @name with a text type, or 0. */
static uint64_t kallsyms_addr(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], sym[256], type;
	unsigned long long addr;
	uint64_t found = 0;

	cr_assert_not_null(f);
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 && !strcmp(sym, name) &&
		    (type == 't' || type == 'T'))
			found = addr;
	fclose(f);
	return found;
}

Test(metadata, kallsyms_referenced_record_and_snapshot)
{
	const struct wc_rec_kallsyms *k;
	struct wc_kallsyms *snapshot = NULL;
	uint64_t sched = kallsyms_addr("schedule");
	struct wc_ksym f;
	bool restricted = true;

	start();
	cr_assert_eq(wc_meta_write_kallsyms(w, false, &snapshot, &restricted), 0);
	finish();
	k = only(WC_REC_KALLSYMS);
	cr_assert_eq(k->flags & WC_KALLSYMS_REFERENCED, WC_KALLSYMS_REFERENCED);
	cr_assert_eq(k->h.size, 24, "an empty text: the header, the flags and one padded NUL");
	cr_assert_eq(k->text_len, 1);
	for (size_t i = 0; i < 8; i++)
		cr_assert_eq(k->text[i], '\0', "padding byte %zu is zero", i);
	if (restricted || !sched) {
		cr_assert_null(snapshot);
		cr_skip_test("kernel addresses are hidden here (kptr_restrict)");
	}
	cr_assert_not_null(snapshot);
	cr_assert_gt(wc_kallsyms_count(snapshot), 10000);
	cr_assert_neq(wc_kallsyms_find(snapshot, sched + 1, &f), SIZE_MAX);
	cr_assert_eq(f.start, sched);
	cr_assert_str_eq(f.name, "schedule");
	cr_assert_gt(f.end, sched + 1);
	wc_kallsyms_free(snapshot);
}

/* ---- ELF build-ids ---- */

Test(metadata, elf_build_id_from_segment_and_from_section)
{
	static const uint8_t id[20] = {
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23,
		0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67
	};
	const char *elf = elf_path[0];
	uint8_t got[WC_BUILD_ID_MAX], big[32] = { 7 };

	for (int as_section = 0; as_section < 2; as_section++) {
		write_elf(elf_path[0], id, sizeof(id), as_section);
		memset(got, 0, sizeof(got));
		cr_assert_eq(wc_elf_build_id(elf, got, sizeof(got)), 20, "section %d", as_section);
		cr_assert_arr_eq(got, id, sizeof(id));
		unlink(elf);
	}
	write_elf(elf_path[0], id, 8, false);
	cr_assert_eq(wc_elf_build_id(elf, got, sizeof(got)), 8, "an md5-sized build-id");
	unlink(elf);
	write_elf(elf_path[0], big, sizeof(big), false);
	cr_assert_eq(wc_elf_build_id(elf, got, sizeof(got)), -ERANGE, "too long for the buffer");
	unlink(elf);
	write_elf(elf_path[0], NULL, 0, false);
	cr_assert_eq(wc_elf_build_id(elf, got, sizeof(got)), -ENODATA, "no build-id");
	cr_assert_eq(truncate(elf, 10), 0);
	cr_assert_eq(wc_elf_build_id(elf, got, sizeof(got)), -ENOEXEC, "not ELF");
	cr_assert_eq(wc_elf_build_id("/proc/self/status", got, sizeof(got)), -ENOEXEC);
	cr_assert_eq(wc_elf_build_id("/nonexistent/x", got, sizeof(got)), -ENOENT);
}

/* ---- tracefs (root) ---- */

static void unmount_all(const char *dir)
{
	while (!umount2(dir, MNT_DETACH))
		;
}

Test(metadata, tracefs_find_mounts_tracefs_when_allowed)
{
	bool mounted = true, fallback = true;
	char dir[64] = "";

	private_mounts();
	unmount_all("/sys/kernel/tracing");
	unmount_all("/sys/kernel/debug");
	cr_assert_eq(wc_tracefs_find(dir, sizeof(dir), 0, &mounted, &fallback), -ENOENT,
		     "nothing mounted, and not allowed to mount");
	cr_assert_not(mounted);
	cr_assert_eq(wc_tracefs_find(dir, sizeof(dir), WC_TRACEFS_MOUNT, &mounted, &fallback), 0);
	cr_assert_str_eq(dir, "/sys/kernel/tracing");
	cr_assert(mounted);
	cr_assert_not(fallback);
	cr_assert_eq(access("/sys/kernel/tracing/events/sched/sched_switch/id", R_OK), 0);
	cr_assert_eq(wc_tracefs_find(dir, sizeof(dir), WC_TRACEFS_MOUNT, &mounted, &fallback), 0);
	cr_assert_not(mounted, "already mounted: not mounted again");
	cr_assert_eq(wc_tracefs_find(dir, 8, WC_TRACEFS_MOUNT, NULL, NULL), -ENAMETOOLONG);
}

Test(metadata, tracefs_find_falls_back_to_debugfs)
{
	bool mounted = false, fallback = false;
	char dir[64] = "";

	private_mounts();
	unmount_all("/sys/kernel/debug");
	cr_assert_eq(wc_tracefs_find(dir, sizeof(dir), WC_TRACEFS_MOUNT | WC_TRACEFS_FORCE_DEBUGFS,
				     &mounted, &fallback),
		     0);
	cr_assert_str_eq(dir, "/sys/kernel/debug/tracing");
	cr_assert(mounted, "debugfs was mounted");
	cr_assert(fallback);
	cr_assert_geq(wc_tracefs_event_id(dir, "sched", "sched_switch"), 0);
	cr_assert_eq(
		wc_tracefs_find(dir, sizeof(dir), WC_TRACEFS_FORCE_DEBUGFS, &mounted, &fallback),
		0);
	cr_assert_not(mounted);
	cr_assert(fallback);
}

Test(metadata, tracefs_find_returns_the_mount_error)
{
	bool mounted = true;
	char dir[64];

	private_mounts();
	unmount_all("/sys/kernel/tracing");
	unmount_all("/sys/kernel/debug");
	cr_assert_eq(setresgid(65534, 65534, 65534), 0);
	cr_assert_eq(setresuid(65534, 65534, 65534), 0, "become nobody");
	cr_assert_eq(wc_tracefs_find(dir, sizeof(dir), WC_TRACEFS_MOUNT, &mounted, NULL), -EPERM);
	cr_assert_not(mounted);
}

Test(metadata, tracefs_event_id_is_the_id_file)
{
	char dir[64], file[PATH_MAX], text[32];
	static const char *const names[] = { "sched_switch", "sched_wakeup", "sched_process_exit" };

	private_mounts();
	cr_assert_eq(wc_tracefs_find(dir, sizeof(dir), WC_TRACEFS_MOUNT, NULL, NULL), 0);
	for (int i = 0; i < 3; i++) {
		snprintf(file, sizeof(file), "%s/events/sched/%s/id", dir, names[i]);
		read_text(file, text, sizeof(text));
		cr_assert_eq(wc_tracefs_event_id(dir, "sched", names[i]), atoi(text), "%s",
			     names[i]);
	}
	cr_assert_eq(wc_tracefs_event_id(dir, "sched", "no_such_tracepoint"), -ENOENT);
	cr_assert_eq(wc_tracefs_event_id(dir, "no_such_system", "sched_switch"), -ENOENT);
	cr_assert_eq(wc_tracefs_event_id(dir, "sched", ""), -EINVAL);
}

Test(metadata, tp_format_record_holds_the_format_text)
{
	static char want[1 << 16];
	const struct wc_rec_tp_format *f;
	char dir[64], file[PATH_MAX];
	const char *text;

	private_mounts();
	cr_assert_eq(wc_tracefs_find(dir, sizeof(dir), WC_TRACEFS_MOUNT, NULL, NULL), 0);
	start();
	cr_assert_eq(wc_meta_write_tp_format(w, dir, "sched", "sched_switch"), 0);
	cr_assert_eq(wc_meta_write_tp_format(w, dir, "sched", "no_such_tracepoint"), -ENOENT);
	finish();
	f = only(WC_REC_TP_FORMAT);
	cr_assert_str_eq(f->data, "sched");
	cr_assert_eq(f->system_len, sizeof("sched"));
	text = f->data + f->system_len;
	cr_assert_eq(strlen(text) + 1, f->text_len);
	cr_assert_not_null(strstr(text, "name: sched_switch\n"));
	cr_assert_not_null(strstr(text, "prev_state"));
	snprintf(file, sizeof(file), "%s/events/sched/sched_switch/format", dir);
	read_text(file, want, sizeof(want));
	cr_assert_str_eq(text, want, "the format file, whole");
}
