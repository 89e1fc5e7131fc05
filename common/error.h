/* SPDX-License-Identifier: GPL-2.0-or-later */
/* error.h - the project's own error codes, beside errno values. */
#ifndef WC_ERROR_H
#define WC_ERROR_H

/*
 * Functions returning int return 0 or a negative error: -errno, or -WC_E* for what errno has
 * no name for.  The WC_E* values are above any errno value.
 */
enum wc_error {
	WC_EFIRST = 4096,
	WC_ECORRUPT = WC_EFIRST, /* the trace file is damaged */
	WC_ETRUNCATED,		 /* the trace file ends early */
	WC_EVERSION,		 /* the trace file's version or features are not supported */
	WC_EZSTD,		 /* zstd failed for a reason other than the data */
	WC_ELAST
};

/**
 * wc_strerror() - describe an error code
 * @err: an errno value or a WC_E* value, either sign
 *
 * Return: a static string; never NULL.
 */
const char *wc_strerror(int err);

#endif /* WC_ERROR_H */
