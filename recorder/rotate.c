/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rotate.c - the files of a continuous recording (see rotate.h). */
#include "recorder/rotate.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/grow.h"

extern char **environ;

struct wc_rotate {
	struct wc_rotate_opts o;
	char path[PATH_MAX];
	char **closed; /* the closed files on disk, oldest first, owned */
	size_t nclosed, closed_cap;
	pid_t *running; /* --on-rotate commands not yet reaped */
	size_t nrunning, running_cap;
};

int wc_rotate_parse(const char *arg, uint64_t *period_ns, uint64_t *size_bytes)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || !(v > 0) || !end[0] || end[1])
		return -EINVAL;
	switch (end[0]) {
	case 's':
		*period_ns = (uint64_t)(v * 1e9);
		return v >= 0.001 && v <= 1e7 ? 0 : -EINVAL;
	case 'm':
		*period_ns = (uint64_t)(v * 60e9);
		return v <= 1e5 ? 0 : -EINVAL;
	case 'h':
		*period_ns = (uint64_t)(v * 3600e9);
		return v <= 1e4 ? 0 : -EINVAL;
	case 'B':
		*size_bytes = (uint64_t)v;
		break;
	case 'K':
		*size_bytes = (uint64_t)(v * 1024);
		break;
	case 'M':
		*size_bytes = (uint64_t)(v * 1024 * 1024);
		break;
	case 'G':
		*size_bytes = (uint64_t)(v * 1024 * 1024 * 1024);
		break;
	default:
		return -EINVAL;
	}
	return v <= 1e15 && *size_bytes >= 4096 ? 0 : -EINVAL; /* a file holds its metadata */
}

struct wc_rotate *wc_rotate_new(const struct wc_rotate_opts *o)
{
	struct wc_rotate *ro = calloc(1, sizeof(*ro));

	if (ro)
		ro->o = *o;
	return ro;
}

const char *wc_rotate_next_path(struct wc_rotate *ro)
{
	const char *base = ro->o.base, *slash = strrchr(base, '/'), *dot = strrchr(base, '.');
	struct timespec ts;
	char stamp[32];
	struct tm tm;
	size_t stem;
	int n;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	/* the extension: after the last dot of the file name, not a leading one */
	if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : base))
		dot = base + strlen(base);
	stem = (size_t)(dot - base);
	n = snprintf(ro->path, sizeof(ro->path), "%.*s.%s%03ld%s", (int)stem, base, stamp,
		     ts.tv_nsec / 1000000, dot);
	if (n < 0 || (size_t)n >= sizeof(ro->path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return ro->path;
}

bool wc_rotate_due(const struct wc_rotate *ro, uint64_t start_ns, uint64_t now_ns, uint64_t bytes)
{
	return (ro->o.period_ns && now_ns >= start_ns && now_ns - start_ns >= ro->o.period_ns) ||
	       (ro->o.size_bytes && bytes >= ro->o.size_bytes);
}

/*
 * The environment of --on-rotate's command: ours, WCREC_FILE=@path in place of any.  Made
 * before the fork: the recorder has a second thread then (the spilling one, recorder/seam.c),
 * and the child of a threaded process may call only async-signal-safe functions.
 * Return: the array (its strings ours but the one, *@var, to free with it), or NULL on ENOMEM.
 */
static char **command_env(const char *path, char **var)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 2, sizeof(*env));
	*var = malloc(strlen(path) + sizeof("WCREC_FILE="));
	if (!env || !*var) {
		free(env);
		free(*var);
		return NULL;
	}
	strcpy(*var, "WCREC_FILE=");
	strcat(*var, path);
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "WCREC_FILE=", 11))
			env[k++] = environ[i];
	env[k] = *var;
	return env;
}

/* Start --on-rotate's command on path, not waiting for it.  Return: 0 or -ENOMEM. */
static int run_command(struct wc_rotate *ro, const char *path)
{
	char *var, **env;
	pid_t pid;

	if (wc_grow((void **)&ro->running, &ro->running_cap, ro->nrunning + 1,
		    sizeof(*ro->running)))
		return -ENOMEM;
	env = command_env(path, &var);
	if (!env)
		return -ENOMEM;
	pid = fork();
	if (pid == 0) {
		/* not the recorder's SIGINT: a push in flight finishes when wcrec is stopped */
		signal(SIGINT, SIG_IGN);
		execle("/bin/sh", "sh", "-c", ro->o.on_rotate, "sh", path, (char *)NULL, env);
		_exit(127);
	}
	free(env);
	free(var);
	if (pid < 0) {
		fprintf(stderr, "wcrec: --on-rotate: cannot start the command for %s: %s\n", path,
			strerror(errno));
		return 0;
	}
	ro->running[ro->nrunning++] = pid;
	return 0;
}

int wc_rotate_closed(struct wc_rotate *ro, const char *path)
{
	char *copy = strdup(path);
	size_t drop = 0;

	if (!copy ||
	    wc_grow((void **)&ro->closed, &ro->closed_cap, ro->nclosed + 1, sizeof(*ro->closed))) {
		free(copy);
		return -ENOMEM;
	}
	ro->closed[ro->nclosed++] = copy;
	if (ro->o.on_rotate && run_command(ro, path))
		return -ENOMEM;
	/* the last N closed: a file just closed stays a whole period for its command */
	if (ro->o.keep && ro->nclosed > ro->o.keep)
		drop = ro->nclosed - ro->o.keep;
	for (size_t i = 0; i < drop; i++) {
		if (unlink(ro->closed[i]) && errno != ENOENT)
			fprintf(stderr, "wcrec: --keep: cannot remove %s: %s\n", ro->closed[i],
				strerror(errno));
		free(ro->closed[i]);
	}
	memmove(ro->closed, ro->closed + drop, (ro->nclosed - drop) * sizeof(*ro->closed));
	ro->nclosed -= drop;
	return 0;
}

size_t wc_rotate_reap(struct wc_rotate *ro)
{
	size_t n = 0;

	for (size_t i = 0; i < ro->nrunning; i++)
		if (waitpid(ro->running[i], NULL, WNOHANG) == 0)
			ro->running[n++] = ro->running[i]; /* still running */
	ro->nrunning = n;
	return n;
}

void wc_rotate_free(struct wc_rotate *ro)
{
	if (!ro)
		return;
	if (wc_rotate_reap(ro))
		fprintf(stderr, "wcrec: waiting for %zu --on-rotate command%s\n", ro->nrunning,
			ro->nrunning > 1 ? "s" : "");
	for (size_t i = 0; i < ro->nrunning; i++)
		while (waitpid(ro->running[i], NULL, 0) < 0 && errno == EINTR)
			;
	for (size_t i = 0; i < ro->nclosed; i++)
		free(ro->closed[i]);
	free(ro->closed);
	free(ro->running);
	free(ro);
}
