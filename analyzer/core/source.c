/* SPDX-License-Identifier: GPL-2.0-or-later */
/* source.c - see source.h: the one table of input sources, chosen by magic. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/core/source.h"

/* By magic, the first row the default for a file no row claims. */
static const struct {
	char magic[WC_SOURCE_MAGIC_LEN];
	const struct wc_source_ops *ops;
} sources[] = {
	{ WC_FILE_MAGIC, &wc_source_wct },
	{ "PERFILE2", &wc_source_perf },
	{ "2ELIFREP", &wc_source_perf }, /* perf.data of the other byte order: refused there */
};

struct wc_source {
	const struct wc_source_ops *ops;
	void *priv;
};

/* The source of the file at @fd by the magic at its offset 0, read without moving it. */
static const struct wc_source_ops *choose(int fd)
{
	char magic[WC_SOURCE_MAGIC_LEN];

	if (pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic))
		for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
			if (!memcmp(magic, sources[i].magic, sizeof(magic)))
				return sources[i].ops;
	return sources[0].ops;
}

struct wc_source *wc_source_open(const char *path)
{
	struct wc_source *s;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	s->ops = choose(fd);
	s->priv = s->ops->open(fd);
	if (!s->priv) {
		int e = errno;

		free(s);
		errno = e;
		return NULL;
	}
	return s;
}

int wc_source_next(struct wc_source *s, const struct wc_rec_header **rec)
{
	return s->ops->next(s->priv, rec);
}

enum wc_reader_state wc_source_state(const struct wc_source *s)
{
	return s->ops->state(s->priv);
}

const char *wc_source_error(const struct wc_source *s)
{
	return s->ops->error(s->priv);
}

uint64_t wc_source_error_offset(const struct wc_source *s)
{
	return s->ops->error_offset(s->priv);
}

uint64_t wc_source_offset(const struct wc_source *s)
{
	return s->ops->offset(s->priv);
}

uint64_t wc_source_size(const struct wc_source *s)
{
	return s->ops->size(s->priv);
}

const char *wc_source_name(const struct wc_source *s)
{
	return s->ops->name;
}

void wc_source_free(struct wc_source *s)
{
	if (!s)
		return;
	s->ops->free(s->priv);
	free(s);
}
