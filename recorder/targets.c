/* SPDX-License-Identifier: GPL-2.0-or-later */
/* targets.c - see targets.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/targets.h"

/*
 * Read the state and starttime of /proc/@pid/stat (proc(5): fields 3 and 22; the comm, field
 * 2, is in parentheses and may hold spaces and parentheses itself, so fields count from the
 * last ')').  Return: 0, or -ESRCH.
 */
static int read_stat(pid_t pid, char *state, unsigned long long *start_ticks)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd, err;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	err = n < 0 ? errno : 0;
	close(fd);
	if (n < 0) /* ESRCH: it died between the open and the read */
		return err == ESRCH ? -ESRCH : -err;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	/* after ") ": state (3), then 18 fields, then starttime (22) */
	if (!p || sscanf(p + 1,
			 " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
			 "%*s %*s %*s %llu",
			 state, start_ticks) != 2)
		return -EIO;
	return 0;
}

/*
 * A zombie leader whose other threads run on (its main() ended in pthread_exit()) is a live
 * process: /proc/PID/stat shows the leader's state, /proc/PID/status "Threads:" the group's.
 */
static bool group_alive(pid_t pid)
{
	char path[64], line[128];
	unsigned n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f) && sscanf(line, "Threads: %u", &n) != 1)
		;
	fclose(f);
	return n > 1;
}

int wc_target_init(struct wc_target *t, pid_t pid)
{
	char state;

	t->pid = pid;
	if (read_stat(pid, &state, &t->start_ticks) || state == 'X' ||
	    (state == 'Z' && !group_alive(pid)))
		return -ESRCH;
	return 0;
}

bool wc_target_gone(const struct wc_target *t)
{
	unsigned long long start;
	char state;
	int err = read_stat(t->pid, &state, &start);

	if (err) /* only its absence says it is gone: EMFILE, ENOMEM... say nothing */
		return err == -ESRCH;
	return state == 'X' || (state == 'Z' && !group_alive(t->pid)) || start != t->start_ticks;
}

bool wc_targets_gone(const struct wc_target *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!wc_target_gone(&t[i]))
			return false;
	return n > 0;
}

/* The parent (field 4 of proc(5)) of @pid from /proc/@pid/stat.  Return: it, or -1. */
static long parent_of(long pid)
{
	char path[64], buf[1024], *p;
	long ppid = -1;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %ld", &ppid) != 1)
		return -1;
	return ppid;
}

static bool listed(const pid_t *pids, size_t n, long pid)
{
	for (size_t i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

int wc_targets_add_descendants(pid_t *pids, size_t *n, size_t cap, pid_t exclude)
{
	long(*procs)[2] = NULL; /* pid, parent */
	size_t nprocs = 0, procs_cap = 0;
	struct dirent *e;
	bool grew = true;
	DIR *d = opendir("/proc");

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10), ppid;

		if (*end || pid <= 0 || pid == exclude || (ppid = parent_of(pid)) <= 0)
			continue;
		if (nprocs == procs_cap) {
			size_t c = procs_cap ? procs_cap * 2 : 512;
			long(*p)[2] = realloc(procs, c * sizeof(*p));

			if (!p) {
				closedir(d);
				free(procs);
				return -ENOMEM;
			}
			procs = p;
			procs_cap = c;
		}
		procs[nprocs][0] = pid;
		procs[nprocs][1] = ppid;
		nprocs++;
	}
	closedir(d);
	/* until no process is added: a child's children, whatever order /proc lists them in */
	while (grew) {
		grew = false;
		for (size_t i = 0; i < nprocs; i++) {
			if (!listed(pids, *n, procs[i][1]) || listed(pids, *n, procs[i][0]))
				continue;
			if (*n == cap) {
				free(procs);
				return -E2BIG;
			}
			pids[(*n)++] = (pid_t)procs[i][0];
			grew = true;
		}
	}
	free(procs);
	return 0;
}

int wc_command_start(struct wc_command *cmd, char *const argv[], const char *prog,
		     const char **what)
{
	int go[2], err;
	char x;

	cmd->pid = -1;
	cmd->go_fd = -1;
	if (pipe2(go, O_CLOEXEC)) {
		*what = "pipe";
		return -errno;
	}
	cmd->pid = fork();
	if (cmd->pid < 0) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		*what = "fork";
		return err;
	}
	if (cmd->pid == 0) {
		close(go[1]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (read(go[0], &x, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: cannot run %s: %s\n", prog, argv[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	cmd->go_fd = go[1];
	return 0;
}

int wc_command_go(struct wc_command *cmd)
{
	if (write(cmd->go_fd, "x", 1) != 1)
		return errno ? -errno : -EIO;
	close(cmd->go_fd);
	cmd->go_fd = -1;
	return 0;
}

void wc_command_cancel(struct wc_command *cmd)
{
	if (cmd->go_fd >= 0)
		close(cmd->go_fd);
	cmd->go_fd = -1;
}
