/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "error.h"

#include <stdlib.h>
#include <string.h>

const char *wc_strerror(int err)
{
	err = abs(err);
	switch (err) {
	case WC_ECORRUPT:
		return "trace file is corrupt";
	case WC_ETRUNCATED:
		return "trace file is truncated";
	case WC_EVERSION:
		return "trace file version or features not supported";
	case WC_EZSTD:
		return "zstd error";
	default:
		return strerror(err);
	}
}
