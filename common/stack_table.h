/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stack_table.h - give each distinct callchain a dense id, so that a trace stores it once.
 *
 * Memory is bounded by max_bytes (the callchains kept plus the hash index).  When adding a
 * new callchain would pass the bound, the table forgets every callchain it holds and starts
 * over; ids keep counting up and are never reused, so a callchain seen again afterwards is
 * stored again under a new id.  A file stays correct; only its size grows.  Readers must not
 * assume that two ids mean two different callchains.
 */
#ifndef WC_STACK_TABLE_H
#define WC_STACK_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wc_stack_table;

#define WC_STACK_TABLE_DEFAULT_BYTES (64u << 20)

/**
 * wc_stack_table_new() - an empty table
 * @max_bytes: memory bound in bytes, 0 for WC_STACK_TABLE_DEFAULT_BYTES; at least 64 KiB is
 *             used whatever is asked
 *
 * Return: the table, or NULL with errno set (ENOMEM).
 */
struct wc_stack_table *wc_stack_table_new(size_t max_bytes);

/**
 * wc_stack_table_add() - look a callchain up, adding it when it is new
 * @ips:    nr addresses (nr may be 0), copied when new
 * @id:     set to the callchain's id, 1 or more
 * @is_new: set to true when the id was handed out by this call: the caller stores the
 *          callchain under it
 *
 * Return: 0, -EOVERFLOW when 2^32 - 1 ids have been handed out, -E2BIG when one callchain
 * is larger than the bound, -ENOMEM.
 */
int wc_stack_table_add(struct wc_stack_table *t, const uint64_t *ips, uint32_t nr, uint32_t *id,
		       bool *is_new);

struct wc_stack_table_stats {
	uint64_t lookups;  /* calls of wc_stack_table_add() */
	uint64_t distinct; /* ids handed out */
	uint64_t resets;   /* times the bound was reached and the table emptied */
	size_t bytes;	   /* memory in use now */
};

/** wc_stack_table_stats() - figures so far */
void wc_stack_table_stats(const struct wc_stack_table *t, struct wc_stack_table_stats *stats);

/** wc_stack_table_free() - free the table; NULL is a no-op */
void wc_stack_table_free(struct wc_stack_table *t);

#endif /* WC_STACK_TABLE_H */
