/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metadata.c - the records a trace starts with: host, clock, tracepoint formats, kallsyms, the
 * recorder's vdso, and the tasks and executable mappings alive at the start, with build-ids
 * (see metadata.h).
 *
 * Files of /proc and tracefs report a size of 0, so they are read to EOF into a growing buffer.
 * Text records are assembled in that buffer: the file's content lands after room left for the
 * record's header, so a several-MB kallsyms is never copied.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "common/kallsyms.h"
#include "common/wct.h"
#include "common/writer.h"
#include "recorder/buildid.h"
#include "recorder/metadata-priv.h"
#include "recorder/metadata.h"

int wc_meta_slurp(const char *path, struct buf *b, size_t off)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	int err = 0;

	if (fd < 0)
		return -errno;
	b->len = off;
	for (;;) {
		ssize_t n;

		if (b->len + 4096 + 8 > b->cap) {
			size_t cap = b->len + 4096 + 8 > 2 * b->cap ? b->len + 65536 : 2 * b->cap;
			char *p = cap <= WC_REC_MAX_BYTES ? realloc(b->p, cap) : NULL;

			if (!p) {
				err = cap > WC_REC_MAX_BYTES ? -E2BIG : -ENOMEM;
				goto out_close;
			}
			b->p = p;
			b->cap = cap;
		}
		n = read(fd, b->p + b->len, b->cap - b->len - 8);
		if (n <= 0 && (!n || errno != EINTR)) {
			err = n ? -errno : 0;
			break;
		}
		b->len += n > 0 ? (size_t)n : 0;
	}
	if (!err)
		memset(b->p + b->len, 0, 8);
out_close:
	close(fd);
	return err;
}

/* Time now on clock id, ns.  The caller has checked that the clock can be read. */
static uint64_t now_ns(clockid_t id)
{
	struct timespec ts = { 0, 0 };

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int wc_meta_write_tp_format(struct wc_writer *w, const char *dir, const char *system,
			    const char *name)
{
	char path[PATH_MAX];
	struct buf b = { NULL, 0, 0 };
	struct wc_rec_tp_format *r;
	size_t off;
	int err;

	err = wc_tracefs_event_path(path, dir, system, name, "format");
	if (err)
		return err;
	off = sizeof(*r) + strlen(system) + 1;
	err = wc_meta_slurp(path, &b, off);
	if (err)
		goto out_free;
	r = (struct wc_rec_tp_format *)b.p;
	memset(r, 0, sizeof(*r));
	r->h.size = WC_ALIGN8(b.len + 1);
	r->h.type = WC_REC_TP_FORMAT;
	r->system_len = (uint32_t)(off - sizeof(*r));
	r->text_len = (uint32_t)(b.len - off + 1);
	memcpy(r->data, system, r->system_len);
	err = wc_writer_add(w, r);
out_free:
	free(b.p);
	return err;
}

/* ---- host, clock, notes, kallsyms ---- */

int wc_meta_write_host(struct wc_writer *w)
{
	struct utsname u;
	const char *s[6] = { u.sysname, u.nodename, u.release,
			     u.version, u.machine,  "wcrec " PACKAGE_VERSION };
	struct wc_rec_host *r;
	long online, conf, page;
	size_t len = 0;
	char *p;
	int err;

	if (uname(&u))
		return -errno;
	errno = 0;
	online = sysconf(_SC_NPROCESSORS_ONLN);
	conf = sysconf(_SC_NPROCESSORS_CONF);
	page = sysconf(_SC_PAGESIZE);
	if (online <= 0 || conf <= 0 || page <= 0)
		return errno ? -errno : -EINVAL;
	for (int i = 0; i < 6; i++)
		len += strlen(s[i]) + 1;
	r = calloc(1, WC_ALIGN8(sizeof(*r) + len));
	if (!r)
		return -ENOMEM;
	r->h.size = WC_ALIGN8(sizeof(*r) + len);
	r->h.type = WC_REC_HOST;
	r->ncpus_online = (uint32_t)online;
	r->ncpus_configured = (uint32_t)conf;
	r->page_size = (uint32_t)page;
	r->strings_len = (uint32_t)len;
	p = r->strings;
	for (int i = 0; i < 6; i++)
		p = stpcpy(p, s[i]) + 1;
	err = wc_writer_add(w, r);
	free(r);
	return err;
}

int wc_meta_write_clock(struct wc_writer *w, int clockid)
{
	clockid_t id = clockid == -1 ? CLOCK_MONOTONIC : (clockid_t)clockid;
	struct wc_rec_clock r = { .h = { sizeof(r), WC_REC_CLOCK, 0 }, .clockid = clockid };
	uint64_t best_gap = UINT64_MAX;
	struct timespec ts;

	if (clock_gettime(id, &ts))
		return -EINVAL;
	/*
	 *   clock:    a ------------- b        clock_ns = (a + b) / 2, error <= (b - a) / 2
	 *   realtime:        rt
	 */
	for (int i = 0; i < 3; i++) {
		uint64_t a = now_ns(id);
		uint64_t rt = now_ns(CLOCK_REALTIME);
		uint64_t b = now_ns(id);

		if (b - a < best_gap) {
			best_gap = b - a;
			r.clock_ns = a + (b - a) / 2;
			r.realtime_ns = rt;
		}
	}
	return wc_writer_add(w, &r);
}

int wc_meta_write_kernel_build_id(struct wc_writer *w)
{
	uint8_t id[WC_BUILD_ID_MAX];
	char hex[2 * WC_BUILD_ID_MAX + 1];
	int n = wc_kernel_build_id(NULL, id, sizeof(id));

	if (n <= 0)
		return 0;
	for (int i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	return wc_meta_write_note(w, "kernel_build_id", hex);
}

int wc_meta_write_note(struct wc_writer *w, const char *key, const char *value)
{
	struct wc_rec_note *r;
	size_t klen, vlen;
	int err;

	if (!key || !value)
		return -EINVAL;
	klen = strlen(key) + 1;
	vlen = strlen(value) + 1;
	if (klen + vlen > WC_REC_MAX_BYTES - sizeof(*r) - 8)
		return -E2BIG;
	r = calloc(1, WC_ALIGN8(sizeof(*r) + klen + vlen));
	if (!r)
		return -ENOMEM;
	r->h.size = WC_ALIGN8(sizeof(*r) + klen + vlen);
	r->h.type = WC_REC_NOTE;
	r->key_len = (uint32_t)klen;
	r->value_len = (uint32_t)vlen;
	memcpy(r->data, key, klen);
	memcpy(r->data + klen, value, vlen);
	err = wc_writer_add(w, r);
	free(r);
	return err;
}

int wc_meta_write_kallsyms(struct wc_writer *w, bool full, struct wc_kallsyms **snapshot,
			   bool *restricted)
{
	struct buf b = { NULL, 0, 0 };
	struct wc_rec_kallsyms *r;
	bool all_zero = true;
	const char *line;
	int err;

	*snapshot = NULL;
	err = wc_meta_slurp("/proc/kallsyms", &b, sizeof(*r));
	if (err)
		goto out_free;
	/* "ffffffff81000000 T _text": hidden addresses read as zeros */
	for (line = b.p + sizeof(*r); all_zero && line; line = strchr(line, '\n')) {
		line += *line == '\n';
		for (; isxdigit((unsigned char)*line); line++)
			all_zero = all_zero && *line == '0';
	}
	if (!full && !all_zero) {
		*snapshot = wc_kallsyms_new(b.p + sizeof(*r), b.len - sizeof(*r));
		if (!*snapshot) {
			err = -errno;
			goto out_free;
		}
	}
	r = (struct wc_rec_kallsyms *)b.p;
	memset(r, 0, sizeof(*r));
	r->h.type = WC_REC_KALLSYMS;
	r->flags = (all_zero ? WC_KALLSYMS_RESTRICTED : 0) | (full ? 0 : WC_KALLSYMS_REFERENCED);
	if (!full) {
		b.len = sizeof(*r);
		memset(b.p + b.len, 0, 8);
	}
	r->h.size = WC_ALIGN8(b.len + 1);
	r->text_len = (uint32_t)(b.len - sizeof(*r) + 1);
	err = wc_writer_add(w, r);
	if (err) {
		wc_kallsyms_free(*snapshot);
		*snapshot = NULL;
	}
	if (restricted)
		*restricted = all_zero;
out_free:
	free(b.p);
	return err;
}

/* ---- the vdso ---- */

/*
 * The length of the mapping of /proc/self/maps that starts at addr and is named name.
 * Return: its bytes, or 0 when there is none.
 */
static uint64_t mapping_len(uint64_t addr, const char *name)
{
	FILE *f = fopen("/proc/self/maps", "re");
	uint64_t len = 0;
	char line[512];

	if (!f)
		return 0;
	while (!len && fgets(line, sizeof(line), f)) {
		unsigned long long start, end;
		char *nl = strchr(line, '\n');
		int n = 0;

		if (nl)
			*nl = '\0';
		/* "7ffd3c5f1000-7ffd3c5f3000 r-xp 00000000 00:00 0                  [vdso]" */
		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &start, &end, &n) != 2 || !n)
			continue;
		if (start == addr && end > start && !strcmp(line + n, name))
			len = end - start;
	}
	fclose(f);
	return len;
}

int wc_meta_write_vdso(struct wc_writer *w, uint32_t *written)
{
	static const char name[] = "[vdso]";
	uint64_t addr = getauxval(AT_SYSINFO_EHDR), len;
	struct wc_rec_image *r;
	uint32_t size;
	int err;

	if (written)
		*written = 0;
	if (!addr)
		return 0;
	len = mapping_len(addr, name);
	if (!len || len > WC_IMAGE_MAX_BYTES)
		return 0;
	size = WC_ALIGN8((uint32_t)(sizeof(*r) + sizeof(name) + len));
	r = calloc(1, size);
	if (!r)
		return -ENOMEM;
	r->h.size = size;
	r->h.type = WC_REC_IMAGE;
	r->name_len = sizeof(name);
	r->image_len = (uint32_t)len;
	memcpy(r->data, name, sizeof(name));
	/* mapped readable in every process (r-xp), as the dynamic linker reads its ELF header */
	memcpy(r->data + sizeof(name), (const void *)(uintptr_t)addr, len);
	err = wc_writer_add(w, r);
	free(r);
	if (!err && written)
		*written = (uint32_t)len;
	return err;
}

/*
 * The build-id of the file (dev, ino) mapped at [start, end) in pid, read on the first call for
 * that file: through map_files, which is the mapped file even when its path now names another;
 * else through the path, if the file there still has the mapped inode number (st_dev is not
 * compared: on overlayfs maps shows the underlying device).
 * Return: the cache's entry (len -1 when unknown), or NULL when out of memory.
 */
static const struct wc_bid *build_id_of(struct wc_bid_cache *bids, int pid, uint64_t start,
					uint64_t end, const char *name, uint64_t dev, uint64_t ino)
{
	struct wc_bid_key key = { .dev = dev, .ino = ino };
	struct wc_bid *e = wc_bid_cache_get(bids, &key);
	char path[64];
	struct stat st;
	int fd, n;

	if (!e || e->len)
		return e;
	e->len = -1;
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, start, end);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		fd = open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0 && (fstat(fd, &st) || st.st_ino != ino)) {
			close(fd);
			fd = -1;
		}
	}
	if (fd < 0)
		return e;
	n = wc_elf_build_id_fd(fd, e->id, sizeof(e->id));
	close(fd);
	e->len = n > 0 ? (int8_t)n : -1;
	return e;
}

/* ---- tasks and maps ---- */

struct walk {
	struct wc_writer *w;
	clockid_t clock;
	struct buf b;		   /* /proc/PID/maps */
	struct wc_bid_cache *bids; /* the files' build-ids, read once per file in one call */
	struct wc_meta_task_stats st;
	struct wc_meta_snapshot *snap; /* the threads written, or NULL */
};

/* The next number of a /proc or /proc/PID/task listing.  Return: it, or -1 at the end. */
static long next_id(DIR *d)
{
	struct dirent *e;

	while ((e = readdir(d))) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);

		if (!*end && tid > 0)
			return tid;
	}
	return -1;
}

/*
 * The state letter and the parent pid of a thread, from the third and fourth fields of
 * /proc/PID/task/TID/stat (proc(5)): *@ppid is left as it was when the state is unknown.
 * Return: the state, 0 unknown.
 */
static char task_state(int pid, long tid, uint32_t *ppid)
{
	char path[64], buf[512], *p;
	unsigned long pp;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%ld/stat", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the comm may hold spaces and parentheses */
	if (!p || p[1] != ' ' || p[2] < 'A' || p[2] > 'z')
		return 0;
	if (sscanf(p + 3, " %lu", &pp) == 1 && pp <= UINT32_MAX)
		*ppid = (uint32_t)pp;
	return p[2];
}

/* Note pid/tid in k->snap.  Return: 0 or -ENOMEM. */
static int snap_add(struct walk *k, int pid, long tid)
{
	struct wc_meta_snapshot *s = k->snap;

	if (!s)
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		uint32_t(*ids)[2] = realloc(s->ids, cap * sizeof(*ids));

		if (!ids)
			return -ENOMEM;
		s->ids = ids;
		s->cap = cap;
	}
	s->ids[s->n][0] = (uint32_t)pid;
	s->ids[s->n][1] = (uint32_t)tid;
	s->n++;
	return 0;
}

/* A COMM per thread of pid.  Return: 0, 1 when the process is gone, or the writer's error. */
static int write_comms(struct walk *k, int pid)
{
	char path[64], comm[80];
	long tid;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return errno == ENOMEM ? -ENOMEM : 1;
	while (!err && (tid = next_id(d)) > 0) {
		struct wc_rec_comm_proc rp = { .c = { .h = { sizeof(rp), WC_REC_COMM,
							     WC_REC_F_TIME },
						      .flags = WC_TASK_SYNTH } };
		struct wc_rec_comm *r = &rp.c;
		ssize_t n;
		int fd;

		snprintf(path, sizeof(path), "/proc/%d/task/%ld/comm", pid, tid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue; /* the thread exited */
		n = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		if (n <= 0)
			continue;
		comm[n] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		/* the kernel's comm has at most 15 characters; /proc may show more for kthreads */
		memcpy(r->comm, comm, strnlen(comm, sizeof(r->comm) - 1));
		r->state = task_state(pid, tid, &rp.ppid);
		r->time_ns = now_ns(k->clock);
		r->pid = (uint32_t)pid;
		r->tid = (uint32_t)tid;
		err = wc_writer_add(k->w, &rp);
		if (!err) {
			k->st.threads++;
			err = snap_add(k, pid, tid);
		}
	}
	closedir(d);
	return err;
}

/* One line of /proc/PID/maps, NUL-terminated: an MMAP if executable.  Return: 0 or -errno. */
static int write_map(struct walk *k, int pid, const char *line)
{
	union {
		struct wc_rec_mmap m;
		uint64_t raw[(sizeof(struct wc_rec_mmap) + PATH_MAX + 8) / 8];
	} u;
	struct wc_rec_mmap *m = &u.m;
	uint64_t start, end, pgoff, ino;
	unsigned int maj, min;
	char perms[5];
	const char *name;
	size_t nlen;
	int pos = -1, err;

	/* 7f2c1a000000-7f2c1a028000 r-xp 00028000 fd:01 1311   /usr/lib/libc.so.6 */
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 " %n", &start,
		   &end, perms, &pgoff, &maj, &min, &ino, &pos) != 7 ||
	    pos < 0)
		return 0;
	if (strlen(perms) < 4 || perms[2] != 'x')
		return 0;
	name = line[pos] ? line + pos : "//anon";
	nlen = strnlen(name, PATH_MAX - 1);
	*m = (struct wc_rec_mmap){
		.h = { WC_ALIGN8(sizeof(*m) + nlen + 1), WC_REC_MMAP, WC_REC_F_TIME },
		.pid = (uint32_t)pid,
		.tid = (uint32_t)pid,
		.addr = start,
		.len = end - start,
		.pgoff = pgoff,
		.ino = ino,
		.maj = maj,
		.min = min,
		.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
			PROT_EXEC,
		.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE,
		.task_flags = WC_TASK_SYNTH,
	};
	memset(m->filename, 0, m->h.size - sizeof(*m));
	memcpy(m->filename, name, nlen);
	if (ino && name[0] == '/') {
		const struct wc_bid *e =
			build_id_of(k->bids, pid, start, end, name, makedev(maj, min), ino);

		if (!e)
			return -ENOMEM;
		if (e->len > 0) {
			m->build_id_size = (uint8_t)e->len;
			memcpy(m->build_id, e->id, (size_t)e->len);
		}
	}
	m->time_ns = now_ns(k->clock);
	err = wc_writer_add(k->w, m);
	if (!err) {
		k->st.maps++;
		k->st.build_ids += m->build_id_size != 0;
	}
	return err;
}

/*
 * The maps of pid through one of its threads, into k->b: /proc/PID/maps is empty when the
 * main thread has exited and others go on (a zombie leader has no mm), while every live
 * thread's /proc/PID/task/TID/maps shows the process's.  Kernel threads have none at all.
 * Return: 0 (k->b.len stays 0 when no thread shows any), or -ENOMEM.
 */
static int slurp_task_maps(struct walk *k, int pid)
{
	char path[64];
	long tid;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return 0;
	while (!k->b.len && (tid = next_id(d)) > 0) {
		if (tid == pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/maps", pid, tid);
		err = wc_meta_slurp(path, &k->b, 0);
		if (err == -ENOMEM)
			break;
		if (err)
			k->b.len = 0;
		err = 0;
	}
	closedir(d);
	return err;
}

/* COMMs, then MMAPs of one process.  Return: 0 or -errno (only -ENOMEM and writer errors). */
static int write_process(struct walk *k, int pid)
{
	char path[64], *line, *save;
	int err;

	err = write_comms(k, pid);
	if (err)
		return err < 0 ? err : 0;
	k->st.processes++;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	err = wc_meta_slurp(path, &k->b, 0);
	if (!err && !k->b.len)
		err = slurp_task_maps(k, pid);
	if (err) /* gone, or not ours to read: the COMMs stay */
		return err == -ENOMEM ? err : 0;
	for (line = strtok_r(k->b.p, "\n", &save); line && !err; line = strtok_r(NULL, "\n", &save))
		err = write_map(k, pid, line);
	return err;
}

int wc_meta_write_tasks(struct wc_writer *w, int clockid, const int *pids, size_t npids,
			int exclude_pid, struct wc_meta_task_stats *stats,
			struct wc_meta_snapshot *snap)
{
	struct walk k = { .w = w,
			  .clock = clockid == -1 ? CLOCK_MONOTONIC : (clockid_t)clockid,
			  .snap = snap };
	struct timespec ts;
	long pid;
	DIR *d;
	int err = 0;

	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (clock_gettime(k.clock, &ts) || (npids && !pids))
		return -EINVAL;
	k.bids = wc_bid_cache_new();
	if (!k.bids)
		return -ENOMEM;
	for (size_t i = 0; i < npids && !err; i++)
		if (pids[i] > 0 && pids[i] != exclude_pid)
			err = write_process(&k, pids[i]);
	if (!npids) {
		d = opendir("/proc");
		if (!d) {
			err = -errno;
			goto out_free;
		}
		while (!err && (pid = next_id(d)) > 0)
			if (pid <= INT_MAX && pid != exclude_pid)
				err = write_process(&k, (int)pid);
		closedir(d);
	}
out_free:
	free(k.b.p);
	wc_bid_cache_free(k.bids);
	if (stats)
		*stats = k.st;
	return err;
}

int wc_meta_write_gone(struct wc_writer *w, int clockid, const struct wc_meta_snapshot *snap,
		       uint64_t *gone)
{
	clockid_t clock = clockid == -1 ? CLOCK_MONOTONIC : (clockid_t)clockid;
	struct timespec ts;
	int err = 0;

	if (gone)
		*gone = 0;
	if (clock_gettime(clock, &ts))
		return -EINVAL;
	for (size_t i = 0; i < snap->n && !err; i++) {
		struct wc_rec_task r = { .h = { sizeof(r), WC_REC_EXIT, WC_REC_F_TIME } };
		char path[64];
		struct stat st;

		snprintf(path, sizeof(path), "/proc/%u/task/%u", snap->ids[i][0], snap->ids[i][1]);
		if (!stat(path, &st) || errno != ENOENT)
			continue; /* there, or not known to be gone */
		r.time_ns = now_ns(clock);
		r.pid = snap->ids[i][0];
		r.tid = snap->ids[i][1];
		err = wc_writer_add(w, &r);
		if (!err && gone)
			(*gone)++;
	}
	return err;
}

void wc_meta_snapshot_fini(struct wc_meta_snapshot *snap)
{
	free(snap->ids);
	*snap = (struct wc_meta_snapshot){ 0 };
}
