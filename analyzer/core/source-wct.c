/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source-wct.c - the .wct source (magic "WCTRACE\0"): common/reader.c behind source.h.  The
 * reader already hands out records in the wct model, checked, with absolute times.
 */
#include "analyzer/core/source.h"

static void *wct_open(int fd)
{
	return wc_reader_open_fd(fd);
}

static int wct_next(void *priv, const struct wc_rec_header **rec)
{
	return wc_reader_next(priv, rec);
}

static enum wc_reader_state wct_state(const void *priv)
{
	return wc_reader_state(priv);
}

static const char *wct_error(const void *priv)
{
	return wc_reader_error(priv);
}

static uint64_t wct_error_offset(const void *priv)
{
	return wc_reader_error_offset(priv);
}

static uint64_t wct_offset(const void *priv)
{
	return wc_reader_offset(priv);
}

static uint64_t wct_size(const void *priv)
{
	return wc_reader_file_size(priv);
}

static void wct_free(void *priv)
{
	wc_reader_free(priv);
}

const struct wc_source_ops wc_source_wct = {
	.name = "wct",
	.open = wct_open,
	.next = wct_next,
	.state = wct_state,
	.error = wct_error,
	.error_offset = wct_error_offset,
	.offset = wct_offset,
	.size = wct_size,
	.free = wct_free,
};
