/* SPDX-License-Identifier: GPL-2.0-or-later */
/* targets.c - see targets.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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
	if (!p || sscanf(p + 1, " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
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
