/* SPDX-License-Identifier: GPL-2.0-or-later */
/* source.c - see source.h: the one table of input sources, chosen by magic. */
#include <errno.h>
#include <stdbool.h>
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

/*
 * The source of the file at @fd by the magic at its offset 0, read without moving it; of a
 * pipe, by the magic read from it into @magic (*@stream set).  NULL: a pipe too short.
 */
static const struct wc_source_ops *choose(int fd, char *magic, bool *stream)
{
	size_t got = 0;

	*stream = false;
	if (pread(fd, magic, WC_SOURCE_MAGIC_LEN, 0) == WC_SOURCE_MAGIC_LEN)
		got = WC_SOURCE_MAGIC_LEN;
	else if (errno == ESPIPE) {
		*stream = true;
		while (got < WC_SOURCE_MAGIC_LEN) {
			ssize_t n = read(fd, magic + got, WC_SOURCE_MAGIC_LEN - got);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return NULL;
			got += (size_t)n;
		}
	}
	if (got == WC_SOURCE_MAGIC_LEN)
		for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
			if (!memcmp(magic, sources[i].magic, WC_SOURCE_MAGIC_LEN))
				return sources[i].ops;
	return sources[0].ops;
}

struct wc_source *wc_source_open(const char *path)
{
	char magic[WC_SOURCE_MAGIC_LEN];
	struct wc_source *s;
	bool stream;
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC)
				   : fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);

	if (fd < 0)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	s->ops = choose(fd, magic, &stream);
	if (!s->ops || (stream && !s->ops->open_stream)) {
		close(fd);
		free(s);
		errno = ESPIPE;
		return NULL;
	}
	s->priv = stream ? s->ops->open_stream(fd, magic) : s->ops->open(fd);
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

int wc_source_set_symfs(struct wc_source *s, const char *dir)
{
	return s->ops->set_symfs ? s->ops->set_symfs(s->priv, dir) : 0;
}

void wc_source_free(struct wc_source *s)
{
	if (!s)
		return;
	s->ops->free(s->priv);
	free(s);
}
