/* SPDX-License-Identifier: GPL-2.0-or-later */
/* debuginfod.c - files fetched by build-id through libdebuginfod (see debuginfod.h). */
#include "analyzer/symbols/debuginfod.h"

#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct wc_debuginfod {
	debuginfod_client *client;
};

struct wc_debuginfod *wc_debuginfod_new(const char *urls)
{
	struct wc_debuginfod *d;
	const char *env;

	if (urls && setenv(DEBUGINFOD_URLS_ENV_VAR, urls, 1))
		return NULL;
	env = getenv(DEBUGINFOD_URLS_ENV_VAR);
	if (!env || !*env) {
		errno = ENOENT;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->client = debuginfod_begin();
	if (!d->client) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	return d;
}

void wc_debuginfod_free(struct wc_debuginfod *d)
{
	if (!d)
		return;
	debuginfod_end(d->client);
	free(d);
}

struct wc_elfsym *wc_debuginfod_open(struct wc_debuginfod *d, const uint8_t *id, size_t len,
				     const char *local)
{
	char *exec_path = NULL, *debug_path = NULL;
	struct wc_elfsym *e = NULL;
	int fd;

	if (!local) {
		fd = debuginfod_find_executable(d->client, id, (int)len, &exec_path);
		if (fd >= 0)
			close(fd);
	}
	fd = debuginfod_find_debuginfo(d->client, id, (int)len, &debug_path);
	if (fd >= 0)
		close(fd);
	if (local || exec_path)
		e = wc_elfsym_open_pair(local ? local : exec_path, debug_path, id, len);
	else
		errno = ENOENT;
	free(exec_path);
	free(debug_path);
	return e;
}
