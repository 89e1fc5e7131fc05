/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rectypes.h - the one table of record types (enum wc_rec_type of wct.h): each type's name,
 * the least size of a valid record and its class.  The reader checks sizes and time flags
 * by it, the replay routes records by their class, tests print names from it.  A new record
 * type is one enum value in wct.h, one struct there and one row in rectypes.c.
 */
#ifndef WC_RECTYPES_H
#define WC_RECTYPES_H

#include <stdint.h>

#include "wct.h"

/* wc_rec_type_info.flags */
#define WC_RECT_TIMED	 0x1u /* carries a time: WC_REC_F_TIME is required */
#define WC_RECT_QUEUED	 0x2u /* an event: reordered by time and handed to the consumer */
#define WC_RECT_METADATA 0x4u /* describes the recording: kept in struct wc_replay_meta */
/* none of QUEUED and METADATA: STACK and PAYLOAD (kept by id), ROUND, TRAILER (control) */

struct wc_rec_type_info {
	const char *name;  /* "tracepoint": lower case, as tests print it; NULL: no such type */
	uint32_t min_size; /* bytes: the fixed part, header included, and any least tail */
	uint32_t flags;	   /* WC_RECT_* */
};

/* By type, 0..WC_REC_TYPE_COUNT-1; row 0 (no type) is all zero. */
extern const struct wc_rec_type_info wc_rec_types[WC_REC_TYPE_COUNT];

/**
 * wc_rec_type_flags() - the WC_RECT_* class of record type @type
 * Return: its flags, 0 for 0 and for a type this version does not know.
 */
static inline uint32_t wc_rec_type_flags(uint32_t type)
{
	return type < WC_REC_TYPE_COUNT ? wc_rec_types[type].flags : 0;
}

/**
 * wc_rec_type_name() - the name of record type @type ("sample")
 * Return: a static string, or NULL for 0 and for a type this version does not know.
 */
static inline const char *wc_rec_type_name(uint32_t type)
{
	return type < WC_REC_TYPE_COUNT ? wc_rec_types[type].name : NULL;
}

#endif /* WC_RECTYPES_H */
