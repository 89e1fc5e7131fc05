/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-metadata-tasks.c - the tasks and executable mappings the recorder writes at the start,
 * read back with wc_reader and checked against what the test finds by itself: /proc/self, the
 * threads and processes it starts, the ELF notes of its own binary (parsed here with plain
 * reads, and by readelf when it is installed).  (test-metadata.c: the other records.)
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

/* The build-id of an ELF64 file, parsed with plain reads.  Return: its length, or 0. */
static size_t parse_build_id(const char *file, uint8_t *id)
{
	int efd = open(file, O_RDONLY);
	size_t ret = 0;
	Elf64_Ehdr eh;

	cr_assert_geq(efd, 0);
	cr_assert_eq(pread(efd, &eh, sizeof(eh), 0), (ssize_t)sizeof(eh));
	cr_assert_eq(eh.e_ident[EI_CLASS], ELFCLASS64);
	for (int i = 0; i < eh.e_phnum && !ret; i++) {
		Elf64_Phdr ph;
		uint64_t a, off = 0;
		uint8_t *seg;

		pread(efd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize));
		if (ph.p_type != PT_NOTE)
			continue;
		a = ph.p_align == 8 ? 8 : 4;
		seg = malloc(ph.p_filesz);
		cr_assert_eq(pread(efd, seg, ph.p_filesz, (off_t)ph.p_offset),
			     (ssize_t)ph.p_filesz);
		while (off + 12 <= ph.p_filesz && !ret) {
			uint32_t *n = (uint32_t *)(seg + off); /* namesz, descsz, type */
			uint64_t desc = off + 12 + ((n[0] + a - 1) & ~(a - 1));

			if (n[2] == NT_GNU_BUILD_ID && n[0] == 4 && !memcmp(n + 3, "GNU", 4)) {
				memcpy(id, seg + desc, n[1]);
				ret = n[1];
			}
			off = desc + ((n[1] + a - 1) & ~(a - 1));
		}
		free(seg);
	}
	close(efd);
	return ret;
}

/* ---- tasks and maps ---- */

static pthread_barrier_t barrier;

static const struct wc_rec_comm *find_comm(uint32_t pid, uint32_t tid)
{
	for (size_t i = 0; i < nrecs; i++) {
		const struct wc_rec_comm *c = (const void *)recs[i];

		if (c->h.type == WC_REC_COMM && c->pid == pid && c->tid == tid)
			return c;
	}
	return NULL;
}

/* Records of a type, of one pid (-1: any); COMM and MMAP hold pid at the same offset. */
static size_t count(uint16_t type, long pid)
{
	size_t n = 0;

	static_assert(offsetof(struct wc_rec_comm, pid) == offsetof(struct wc_rec_mmap, pid),
		      "pid at the same offset");
	for (size_t i = 0; i < nrecs; i++) {
		const struct wc_rec_comm *c = (const void *)recs[i];

		n += recs[i]->type == type && (pid < 0 || c->pid == (uint32_t)pid);
	}
	return n;
}

static void *named_thread(void *name)
{
	pthread_setname_np(pthread_self(), name);
	pthread_barrier_wait(&barrier); /* named */
	pthread_barrier_wait(&barrier); /* written */
	return NULL;
}

Test(metadata, tasks_name_every_thread_of_a_process)
{
	char *names[2] = { "wct-worker-1", "wct-worker-2" };
	struct {
		uint32_t tid;
		char comm[64];
	} proc[64];
	struct wc_meta_task_stats st;
	size_t nproc = 0;
	int self = getpid();
	uint64_t t0, t1;
	struct dirent *e;
	pthread_t t[2];
	DIR *d;

	cr_assert_eq(pthread_barrier_init(&barrier, NULL, 3), 0);
	for (int i = 0; i < 2; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, named_thread, names[i]), 0);
	pthread_barrier_wait(&barrier);
	start();
	t0 = clock_ns(CLOCK_MONOTONIC);
	cr_assert_eq(wc_meta_write_tasks(w, CLOCK_MONOTONIC, &self, 1, -1, &st, NULL), 0);
	t1 = clock_ns(CLOCK_MONOTONIC);
	/* what /proc says, while the threads still live */
	d = opendir("/proc/self/task");
	cr_assert_not_null(d);
	while ((e = readdir(d))) {
		char file[300];

		if (e->d_name[0] == '.')
			continue;
		cr_assert_lt(nproc, 64);
		proc[nproc].tid = (uint32_t)atol(e->d_name);
		snprintf(file, sizeof(file), "/proc/self/task/%s/comm", e->d_name);
		read_text(file, proc[nproc].comm, sizeof(proc[nproc].comm));
		proc[nproc].comm[strcspn(proc[nproc].comm, "\n")] = '\0';
		nproc++;
	}
	closedir(d);
	pthread_barrier_wait(&barrier);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	finish();

	cr_assert_geq(nproc, 3);
	cr_assert_eq(count(WC_REC_COMM, -1), nproc, "one COMM per thread of /proc/self/task");
	for (size_t i = 0; i < nproc; i++) {
		const struct wc_rec_comm *c = find_comm((uint32_t)self, proc[i].tid);

		cr_assert_not_null(c, "a COMM for tid %u", proc[i].tid);
		cr_assert(memchr(c->comm, '\0', sizeof(c->comm)), "comm terminated");
		cr_assert_str_eq(c->comm, proc[i].comm);
		cr_assert_eq(c->flags, WC_TASK_SYNTH);
		cr_assert_eq(c->h.flags & WC_REC_F_TIME, WC_REC_F_TIME);
		cr_assert(c->time_ns >= t0 && c->time_ns <= t1, "read on the clock asked, then");
	}
	for (int i = 0; i < 2; i++) {
		bool found = false;

		for (size_t j = 0; j < nproc; j++)
			found = found || !strcmp(proc[j].comm, names[i]);
		cr_assert(found, "thread %s is named in the trace", names[i]);
	}
	cr_assert_eq(st.processes, 1);
	cr_assert_eq(st.threads, nproc);
	cr_assert_eq(st.maps, count(WC_REC_MMAP, self));
}

/* The build-id readelf -n prints for file, as hex.  Return: false when readelf is missing. */
static bool readelf_build_id(const char *file, char *hex, size_t len)
{
	char cmd[PATH_MAX + 64], line[512];
	FILE *p;

	hex[0] = '\0';
	if (system("command -v readelf >/dev/null 2>&1"))
		return false;
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", file);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		const char *s = strstr(line, "Build ID: ");

		if (s)
			snprintf(hex, len, "%.*s", (int)strcspn(s + 10, " \n"), s + 10);
	}
	pclose(p);
	return true;
}

Test(metadata, tasks_map_the_test_binary_with_its_build_id)
{
	char exe[PATH_MAX], maps[1 << 16], hex[2 * WC_BUILD_ID_MAX + 1] = "", want[80];
	uint8_t parsed[64], got[WC_BUILD_ID_MAX];
	const struct wc_rec_mmap *text = NULL;
	struct wc_meta_task_stats st;
	size_t nparsed, nmaps = 0, nbid = 0;
	int self = getpid(), ngot;
	bool vdso = false, anon = false;
	void *jit = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ssize_t n;

	cr_assert_neq(jit, MAP_FAILED);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	cr_assert_gt(n, 0);
	exe[n] = '\0';
	start();
	cr_assert_eq(wc_meta_write_tasks(w, -1, &self, 1, -1, &st, NULL), 0);
	read_text("/proc/self/maps", maps, sizeof(maps));
	finish();

	for (size_t i = 0; i < nrecs; i++) {
		const struct wc_rec_mmap *m = (const void *)recs[i];
		char prefix[64], perms[5], name[PATH_MAX] = "", rest[PATH_MAX + 64];
		unsigned long long pgoff, ino;
		unsigned int maj, min;
		const char *line;

		if (m->h.type != WC_REC_MMAP)
			continue;
		nmaps++;
		nbid += m->build_id_size != 0;
		cr_assert_eq(m->pid, (uint32_t)self);
		cr_assert_eq(m->tid, (uint32_t)self);
		cr_assert_eq(m->task_flags, WC_TASK_SYNTH);
		cr_assert_eq(m->h.flags & WC_REC_F_TIME, WC_REC_F_TIME);
		/* the same line in /proc/self/maps, parsed here */
		snprintf(prefix, sizeof(prefix), "\n%08" PRIx64 "-%08" PRIx64 " ", m->addr,
			 m->addr + m->len);
		line = strstr(maps, prefix);
		if (!line && !strncmp(maps, prefix + 1, strlen(prefix + 1)))
			line = maps - 1;
		cr_assert_not_null(line, "%s is in /proc/self/maps", prefix + 1);
		line += strlen(prefix);
		snprintf(rest, sizeof(rest), "%.*s", (int)strcspn(line, "\n"), line);
		cr_assert_geq(sscanf(rest, "%4s %llx %x:%x %llu %4095[^\n]", perms, &pgoff, &maj,
				     &min, &ino, name),
			      5);
		cr_assert_eq(perms[2], 'x', "only executable mappings");
		cr_assert_eq(m->prot, (perms[0] == 'r' ? PROT_READ : 0u) |
					      (perms[1] == 'w' ? PROT_WRITE : 0u) | PROT_EXEC);
		cr_assert_eq(m->flags, perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE);
		cr_assert_eq(m->pgoff, pgoff);
		cr_assert_eq(m->maj, maj);
		cr_assert_eq(m->min, min);
		cr_assert_eq(m->ino, ino);
		cr_assert_str_eq(m->filename, name[0] ? name : "//anon");
		if (!strcmp(m->filename, exe))
			text = m;
		if (m->addr <= (uintptr_t)jit && (uintptr_t)jit < m->addr + m->len) {
			anon = true;
			cr_assert_str_eq(m->filename, "//anon", "unnamed, as perf names it");
			cr_assert_eq(m->ino + m->build_id_size, 0);
		}
		if (!strcmp(m->filename, "[vdso]")) {
			vdso = true;
			cr_assert_eq(m->build_id_size, 0);
		}
	}
	cr_assert_eq(nmaps, st.maps);
	cr_assert_eq(nbid, st.build_ids);
	cr_assert_eq(vdso, strstr(maps, "[vdso]") != NULL, "[vdso] kept with its name");
	cr_assert_not_null(text, "an MMAP of the test binary %s", exe);
	cr_assert(anon, "an MMAP of the executable anonymous mapping at %p", jit);

	nparsed = parse_build_id(exe, parsed);
	ngot = wc_elf_build_id(exe, got, sizeof(got));
	if (!nparsed) {
		cr_log_warn("%s has no build-id (linked with --build-id=none?)", exe);
		cr_assert_eq(ngot, -ENODATA);
		cr_assert_eq(text->build_id_size, 0);
		return;
	}
	cr_assert_eq(ngot, (int)nparsed);
	cr_assert_arr_eq(got, parsed, nparsed, "wc_elf_build_id agrees with the plain parse");
	cr_assert_eq(text->build_id_size, nparsed);
	cr_assert_arr_eq(text->build_id, parsed, nparsed, "the MMAP carries the build-id");
	for (size_t i = 0; i < nparsed; i++)
		sprintf(want + 2 * i, "%02x", parsed[i]);
	if (readelf_build_id(exe, hex, sizeof(hex)))
		cr_assert_str_eq(hex, want, "readelf -n agrees");
	else
		cr_log_warn("readelf is not installed: build-id checked by the plain parse only");
}

static void *sleep_forever(void *arg)
{
	int out = *(int *)arg;

	if (write(out, "x", 1) != 1)
		_exit(3);
	for (;;)
		pause();
	return NULL;
}

static void *spin_forever(void *arg)
{
	int out = *(int *)arg;
	volatile unsigned long n = 0;

	if (write(out, "x", 1) != 1)
		_exit(3);
	for (;;)
		n++;
	return NULL;
}

/* The state letter /proc shows for @pid/@tid now (0 when unreadable). */
static char proc_state(int pid, uint32_t tid)
{
	char file[64], buf[512], *p;

	snprintf(file, sizeof(file), "/proc/%d/task/%u/stat", pid, tid);
	read_text(file, buf, sizeof(buf));
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* The snapshot's COMMs carry each thread's state (a thread blocked in read(2) S, one spinning
 * R) and its process's parent (1.4: 56-byte records; the child's is this process); once the
 * process is killed, wc_meta_write_gone() writes an EXIT for each of its threads and none for
 * the live caller's. */
Test(metadata, tasks_snapshot_states_and_the_gone)
{
	struct wc_meta_snapshot snap = { 0 };
	int fds[2], block[2], child, self = getpid(), pids[2];
	uint32_t exits[8];
	size_t nexit = 0, ncomm = 0;
	uint64_t gone = 0;
	char c;

	cr_assert_eq(pipe(fds), 0);
	cr_assert_eq(pipe(block), 0);
	child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		pthread_t t;

		close(fds[0]);
		close(block[1]);
		if (pthread_create(&t, NULL, spin_forever, &fds[1]))
			_exit(2);
		if (read(block[0], &c, 1) < 0) /* S until killed */
			_exit(4);
		_exit(5);
	}
	close(fds[1]);
	close(block[0]);
	cr_assert_eq(read(fds[0], &c, 1), 1, "the child's spinning thread runs");
	for (int i = 0; i < 200 && proc_state(child, (uint32_t)child) != 'S'; i++)
		usleep(10000); /* until the main thread blocks: up to 2 s */
	pids[0] = child;
	pids[1] = self;
	start();
	cr_assert_eq(wc_meta_write_tasks(w, -1, pids, 2, -1, NULL, &snap), 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	cr_assert_eq(wc_meta_write_gone(w, -1, &snap, &gone), 0);
	finish();
	cr_assert_eq(gone, 2, "the child's two threads are gone");
	for (size_t i = 0; i < nrecs; i++) {
		const struct wc_rec_comm *m = (const void *)recs[i];
		const struct wc_rec_task *e = (const void *)recs[i];

		if (recs[i]->type == WC_REC_COMM && m->pid == (uint32_t)child) {
			const struct wc_rec_comm_proc *mp = (const void *)recs[i];

			ncomm++;
			cr_assert_eq(m->h.size, sizeof(*mp));
			cr_expect_eq(mp->ppid, (uint32_t)self, "the child's parent: %u", mp->ppid);
			if (m->tid == (uint32_t)child)
				cr_expect_eq(m->state, 'S', "the blocked main thread: %c",
					     m->state);
			else
				cr_expect_eq(m->state, 'R', "the spinning thread: %c", m->state);
		} else if (recs[i]->type == WC_REC_COMM) {
			const struct wc_rec_comm_proc *mp = (const void *)recs[i];

			cr_expect_neq(m->state, 0, "every thread of ours has a state");
			cr_expect_eq(mp->ppid, (uint32_t)getppid(), "our parent: %u", mp->ppid);
		}
		if (recs[i]->type != WC_REC_EXIT)
			continue;
		cr_assert_lt(nexit, 8);
		cr_expect_eq(e->pid, (uint32_t)child, "only the child's threads are gone");
		cr_expect_eq(e->ppid, 0);
		cr_expect_eq(e->ptid, 0);
		exits[nexit++] = e->tid;
	}
	cr_expect_eq(ncomm, 2);
	cr_assert_eq(nexit, 2);
	cr_expect(exits[0] == (uint32_t)child || exits[1] == (uint32_t)child,
		  "one EXIT for the main thread");
	cr_expect_neq(exits[0], exits[1]);
	wc_meta_snapshot_fini(&snap);
	cr_expect_null(snap.ids);
	close(fds[0]);
	close(block[1]);
}

/* A process whose main thread has exited while another goes on: /proc/PID/maps is empty
 * then (the zombie leader has no mm), and the maps come from the live thread's. */
Test(metadata, tasks_map_a_process_whose_main_thread_exited)
{
	struct wc_meta_task_stats st;
	int fds[2], child, nmaps = 0, ncomm = 0;
	char file[64], c;

	cr_assert_eq(pipe(fds), 0);
	child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		pthread_t t;

		close(fds[0]);
		if (pthread_create(&t, NULL, sleep_forever, &fds[1]))
			_exit(2);
		pthread_exit(NULL);
	}
	close(fds[1]);
	cr_assert_eq(read(fds[0], &c, 1), 1, "the child's second thread runs");
	close(fds[0]);
	snprintf(file, sizeof(file), "/proc/%d/maps", child);
	for (int i = 0; i < 200; i++) { /* until the leader is a zombie: up to 2 s */
		char maps[64] = "";
		int in = open(file, O_RDONLY);
		ssize_t n = in >= 0 ? read(in, maps, sizeof(maps)) : -1;

		if (in >= 0)
			close(in);
		if (n == 0)
			break;
		usleep(10000);
	}
	start();
	cr_assert_eq(wc_meta_write_tasks(w, -1, &child, 1, -1, &st, NULL), 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	finish();
	for (size_t i = 0; i < nrecs; i++) {
		const struct wc_rec_mmap *m = (const void *)recs[i];

		if (recs[i]->type == WC_REC_COMM)
			ncomm++;
		if (recs[i]->type != WC_REC_MMAP)
			continue;
		cr_assert_eq(m->pid, (uint32_t)child);
		nmaps++;
	}
	cr_assert_geq(ncomm, 1, "a COMM for the live thread (and the zombie leader's)");
	cr_assert_gt(nmaps, 1, "the process's executable mappings, from its live thread");
	cr_assert_eq((size_t)nmaps, st.maps);
}

Test(metadata, tasks_skip_the_excluded_and_the_vanished)
{
	struct wc_meta_task_stats st;
	char file[64], comm[32] = "";
	pid_t dead, live;
	int pids[3], err;

	dead = fork();
	cr_assert_geq(dead, 0);
	if (!dead)
		_exit(0);
	waitpid(dead, NULL, 0);
	live = fork();
	cr_assert_geq(live, 0);
	if (!live) {
		prctl(PR_SET_NAME, "wct-child");
		for (;;)
			pause();
	}
	snprintf(file, sizeof(file), "/proc/%d/comm", live);
	for (int i = 0; i < 500 && strcmp(comm, "wct-child\n"); i++) {
		usleep(10000);
		read_text(file, comm, sizeof(comm));
	}
	pids[0] = getpid();
	pids[1] = dead;
	pids[2] = live;
	start();
	err = wc_meta_write_tasks(w, -1, pids, 3, getpid(), &st, NULL);
	kill(live, SIGKILL);
	waitpid(live, NULL, 0);
	cr_assert_eq(err, 0);
	finish();

	cr_assert_eq(st.processes, 1, "only the live child");
	cr_assert_eq(count(WC_REC_COMM, -1), count(WC_REC_COMM, live));
	cr_assert_eq(count(WC_REC_MMAP, -1), count(WC_REC_MMAP, live));
	cr_assert_str_eq(find_comm((uint32_t)live, (uint32_t)live)->comm, "wct-child");
	cr_assert_gt(st.maps, 0);
	cr_assert_eq(st.maps, count(WC_REC_MMAP, live));
}

Test(metadata, tasks_of_a_kernel_thread_are_comm_only)
{
	struct wc_meta_task_stats st;
	char comm[32] = "";
	int kthreadd = 2;
	FILE *f = fopen("/proc/2/comm", "r");

	if (!f || !fgets(comm, sizeof(comm), f) || strcmp(comm, "kthreadd\n"))
		cr_skip_test("pid 2 is not kthreadd here (a pid namespace?)");
	fclose(f);
	start();
	cr_assert_eq(wc_meta_write_tasks(w, CLOCK_MONOTONIC, &kthreadd, 1, -1, &st, NULL), 0);
	finish();
	cr_assert_eq(st.processes, 1);
	cr_assert_eq(st.threads, 1);
	cr_assert_eq(st.maps, 0);
	cr_assert_eq(count(WC_REC_MMAP, -1), 0);
	cr_assert_str_eq(((const struct wc_rec_comm *)only(WC_REC_COMM))->comm, "kthreadd");
}

Test(metadata, tasks_of_every_process)
{
	struct wc_meta_task_stats st;
	uint64_t processes = 0;

	start();
	cr_assert_eq(wc_meta_write_tasks(w, -1, NULL, 0, getpid(), &st, NULL), 0);
	finish();
	cr_assert_eq(count(WC_REC_COMM, getpid()) + count(WC_REC_MMAP, getpid()), 0, "excluded");
	cr_assert_not_null(find_comm(1, 1), "init is there");
	cr_assert_eq(count(WC_REC_COMM, -1), st.threads);
	cr_assert_eq(count(WC_REC_MMAP, -1), st.maps);
	cr_assert_gt(st.build_ids, 0);
	for (size_t i = 0; i < nrecs; i++) {
		const struct wc_rec_comm *c = (const void *)recs[i];
		const struct wc_rec_mmap *m = (const void *)recs[i];

		if (c->h.type == WC_REC_COMM) {
			processes += c->pid == c->tid;
			cr_assert(memchr(c->comm, '\0', sizeof(c->comm)),
				  "at most 15 characters, as the kernel's comm, even where /proc "
				  "shows more (kworker/0:1-events)");
		}
		if (m->h.type != WC_REC_MMAP || !m->build_id_size)
			continue;
		/* a file has one build-id, whichever process maps it */
		for (size_t j = i + 1; j < nrecs; j++) {
			const struct wc_rec_mmap *o = (const void *)recs[j];

			if (o->h.type == WC_REC_MMAP && o->ino == m->ino && o->maj == m->maj &&
			    o->min == m->min)
				cr_assert(
					o->build_id_size == m->build_id_size &&
						!memcmp(o->build_id, m->build_id, m->build_id_size),
					"%s and %s", m->filename, o->filename);
		}
	}
	cr_assert_eq(processes, st.processes, "one main thread per process");
}

/* The MMAP of path, among recs[]. */
static const struct wc_rec_mmap *find_mmap(const char *file)
{
	for (size_t i = 0; i < nrecs; i++) {
		const struct wc_rec_mmap *m = (const void *)recs[i];

		if (m->h.type == WC_REC_MMAP && !strcmp(m->filename, file))
			return m;
	}
	cr_assert_fail("no MMAP of %s", file);
	return NULL;
}

Test(metadata, tasks_never_give_the_build_id_of_another_file)
{
	static const uint8_t ids[3][20] = { { 0xaa, 1 }, { 0xbb, 2 }, { 0xcc, 3 } };
	const struct wc_rec_mmap *m;
	int self = getpid(), status;
	pid_t child;

	private_mounts();
	for (int i = 0; i < 3; i++)
		write_elf(elf_path[i], ids[i], 20, false);
	for (int i = 0; i < 3; i += 2) { /* 0 and 2 are mapped, executable */
		int efd = open(elf_path[i], O_RDONLY);
		void *map = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, efd, 0);

		close(efd);
		if (map == MAP_FAILED)
			cr_skip_test("cannot map a file of /tmp executable: %s", strerror(errno));
	}
	/* and the path of file 0 now names file 1, as a path seen from another namespace may */
	cr_assert_eq(mount(elf_path[1], elf_path[0], NULL, MS_BIND, NULL), 0);

	/* root reads the mapped files themselves, through /proc/PID/map_files */
	start();
	cr_assert_eq(wc_meta_write_tasks(w, -1, &self, 1, -1, NULL, NULL), 0);
	finish();
	for (int i = 0; i < 3; i += 2) {
		m = find_mmap(elf_path[i]);
		cr_assert_eq(m->build_id_size, 20);
		cr_assert_arr_eq(m->build_id, ids[i], 20, "the build-id of the file mapped");
	}

	/* nobody cannot: it goes by the path, and checks the inode */
	drop_trace();
	start();
	child = fork();
	cr_assert_geq(child, 0);
	if (!child) {
		int me = getpid();

		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		_exit(wc_meta_write_tasks(w, -1, &me, 1, -1, NULL, NULL) ||
		      wc_writer_close(w, 0, 0));
	}
	cr_assert_eq(waitpid(child, &status, 0), child);
	cr_assert(WIFEXITED(status) && !WEXITSTATUS(status), "the child as nobody: %#x", status);
	read_back();
	m = find_mmap(elf_path[2]);
	cr_assert_eq(m->build_id_size, 20, "by the path, while the path names the file mapped");
	cr_assert_arr_eq(m->build_id, ids[2], 20);
	m = find_mmap(elf_path[0]);
	cr_assert_eq(m->build_id_size, 0, "not the build-id of the file the path names now");
}
