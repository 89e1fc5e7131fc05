/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "trace-util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const uint16_t tu_types[] = {
	WC_REC_HOST,	   WC_REC_CLOCK,   WC_REC_EVENT_ATTR, WC_REC_TP_FORMAT, WC_REC_KALLSYMS,
	WC_REC_COMM,	   WC_REC_FORK,	   WC_REC_EXIT,	      WC_REC_MMAP,	WC_REC_STACK,
	WC_REC_TRACEPOINT, WC_REC_SAMPLE,  WC_REC_LOST,	      WC_REC_ROUND,	WC_REC_THROTTLE,
	WC_REC_NOTE,	   WC_REC_PAYLOAD, WC_REC_TP_INLINE,  WC_REC_KSYM,	WC_REC_SWITCH_IN,
	WC_REC_IMAGE,	   WC_REC_CARRIED,
};
const size_t tu_ntypes = sizeof(tu_types) / sizeof(tu_types[0]);

/* put NUL-terminated strings one after the other; return bytes used */
static uint32_t put_strings(char *dst, const char *const *s, int n)
{
	uint32_t len = 0;

	for (int i = 0; i < n; i++) {
		size_t l = strlen(s[i]) + 1;

		memcpy(dst + len, s[i], l);
		len += (uint32_t)l;
	}
	return len;
}

uint32_t tu_make_record(void *buf, uint16_t type, uint32_t seq)
{
	struct wc_rec_header *h = buf;
	uint64_t time = 1000000 + (uint64_t)seq * 1234567u;
	uint32_t size = 0;
	char name[64];

	memset(buf, 0, 65536);
	snprintf(name, sizeof(name), "thing-%u", seq);
	switch (type) {
	case WC_REC_HOST: {
		struct wc_rec_host *x = buf;
		const char *s[] = { "Linux", "host", "6.18.0", "#1 SMP", "x86_64", name };

		x->ncpus_online = 2 + seq % 3;
		x->ncpus_configured = 4;
		x->page_size = 4096;
		x->strings_len = put_strings(x->strings, s, 6);
		size = sizeof(*x) + x->strings_len;
		break;
	}
	case WC_REC_CLOCK: {
		struct wc_rec_clock *x = buf;

		x->clockid = 1;
		x->clock_ns = time;
		x->realtime_ns = 1700000000000000000ull + seq;
		size = sizeof(*x);
		break;
	}
	case WC_REC_EVENT_ATTR: {
		struct wc_rec_event_attr *x = buf;

		x->event_id = seq % 7;
		x->kind = WC_EVENT_SWITCH;
		x->attr_size = 136;
		for (uint32_t i = 0; i < x->attr_size; i++)
			x->data[i] = (uint8_t)(i * 7 + seq);
		x->name_len = (uint32_t)strlen(name) + 1;
		memcpy(x->data + x->attr_size, name, x->name_len);
		size = sizeof(*x) + x->attr_size + x->name_len;
		break;
	}
	case WC_REC_TP_FORMAT: {
		struct wc_rec_tp_format *x = buf;
		const char *s[] = { "sched",
				    "name: sched_switch\nID: 316\nformat:\n\tfield:...\n" };

		x->system_len = 6;
		x->text_len = (uint32_t)strlen(s[1]) + 1;
		put_strings(x->data, s, 2);
		size = sizeof(*x) + x->system_len + x->text_len;
		break;
	}
	case WC_REC_KALLSYMS: {
		struct wc_rec_kallsyms *x = buf;
		uint32_t len = 0;

		for (uint32_t i = 0; i < 50 + seq % 50; i++)
			len += (uint32_t)sprintf(x->text + len, "ffffffff8100%04x T func_%u\n", i,
						 i);
		x->text_len = len + 1;
		size = sizeof(*x) + x->text_len;
		break;
	}
	case WC_REC_COMM: {
		struct wc_rec_comm *x = buf;

		x->h.flags = WC_REC_F_TIME;
		x->time_ns = time;
		x->pid = 100 + seq;
		x->tid = 101 + seq;
		x->flags = WC_COMM_EXEC;
		memcpy(x->comm, name, strlen(name) < 15 ? strlen(name) + 1 : 15);
		size = sizeof(*x);
		break;
	}
	case WC_REC_FORK:
	case WC_REC_EXIT: {
		struct wc_rec_task *x = buf;

		x->h.flags = WC_REC_F_TIME;
		x->time_ns = time;
		x->pid = seq;
		x->ppid = seq + 1;
		x->tid = seq + 2;
		x->ptid = seq + 3;
		size = sizeof(*x);
		break;
	}
	case WC_REC_MMAP: {
		struct wc_rec_mmap *x = buf;

		x->h.flags = WC_REC_F_TIME;
		x->time_ns = time;
		x->pid = seq;
		x->tid = seq;
		x->addr = 0x555500000000ull + seq * 4096ull;
		x->len = 8192;
		x->pgoff = 4096;
		x->ino = 12345;
		x->maj = 8;
		x->min = 1;
		x->prot = 5;
		x->flags = 2;
		x->build_id_size = 20;
		for (int i = 0; i < 20; i++)
			x->build_id[i] = (uint8_t)(i + seq);
		sprintf(x->filename, "/usr/lib/lib%u.so", seq);
		size = sizeof(*x) + (uint32_t)strlen(x->filename) + 1;
		break;
	}
	case WC_REC_STACK: {
		struct wc_rec_stack *x = buf;

		x->id = seq + 1;
		x->nr = seq % 40;
		for (uint32_t i = 0; i < x->nr; i++)
			x->ips[i] = 0xffffffff81000000ull + i * 16 + seq;
		size = sizeof(*x) + x->nr * 8u;
		break;
	}
	case WC_REC_TRACEPOINT: {
		struct wc_rec_tracepoint *x = buf;

		x->h.flags = WC_REC_F_TIME;
		x->time_ns = time;
		x->cpu = seq % 4;
		x->pid = 200 + seq % 5;
		x->tid = 300 + seq % 9;
		x->stack_id = seq % 11;
		x->payload_id = seq % 13;
		x->event_id = 2;
		size = sizeof(*x);
		break;
	}
	case WC_REC_PAYLOAD: {
		struct wc_rec_payload *x = buf;

		x->id = seq + 1;
		x->event_id = 2;
		x->size = (uint16_t)(60 + seq % 8);
		for (uint32_t i = 0; i < x->size; i++)
			x->data[i] = (uint8_t)(i ^ seq);
		size = sizeof(*x) + x->size;
		break;
	}
	case WC_REC_TP_INLINE: {
		struct wc_rec_tp_inline *x = buf;

		x->h.flags = WC_REC_F_TIME;
		x->time_ns = time;
		x->cpu = seq % 2;
		x->pid = 20;
		x->tid = 21 + seq % 3;
		x->event_id = 3;
		x->size = (uint16_t)(36 + seq % 8);
		for (uint32_t i = 0; i < x->size; i++)
			x->data[i] = (uint8_t)(i * 7 ^ seq);
		size = sizeof(*x) + x->size;
		break;
	}
	case WC_REC_SWITCH_IN: {
		struct wc_rec_switch_in *x = buf;

		x->h.flags = WC_REC_F_TIME;
		x->time_ns = time;
		x->cpu = seq % 2;
		x->tid = 40 + seq % 5;
		x->pid = 40;
		x->prev_tid = seq % 3 ? 0 : 41;
		x->prev_pid = x->prev_tid ? 40 : 0;
		x->delay_ns = 1000 + seq % 7 * 125;
		size = sizeof(*x);
		break;
	}
	case WC_REC_CARRIED: {
		struct wc_rec_carried *x = buf;

		x->h.flags = WC_REC_F_TIME;
		x->time_ns = time;
		x->since_ns = time - 1000 * (seq % 9);
		x->tid = 40 + seq % 5;
		x->pid = 40;
		x->cpu = seq % 2;
		x->flags = seq % 2 ? WC_CARRIED_ON_CPU : 0;
		size = sizeof(*x);
		break;
	}
	case WC_REC_IMAGE: {
		struct wc_rec_image *x = buf;

		x->name_len = sizeof("[vdso]");
		x->image_len = 100 + seq % 50;
		memcpy(x->data, "[vdso]", x->name_len);
		for (uint32_t i = 0; i < x->image_len; i++)
			x->data[x->name_len + i] = (uint8_t)(seq + i);
		size = sizeof(*x) + x->name_len + x->image_len;
		break;
	}
	case WC_REC_KSYM: {
		struct wc_rec_ksym *x = buf;
		const char *str[2] = { seq % 2 ? "ext4_fn" : "vfs_read", seq % 2 ? "ext4" : "" };

		x->start = 0xffffffff81000000ull + seq * 0x100ull;
		x->end = x->start + 0x40 + seq % 0x80;
		x->strings_len = put_strings(x->strings, str, 2);
		size = sizeof(*x) + x->strings_len;
		break;
	}
	case WC_REC_SAMPLE: {
		struct wc_rec_sample *x = buf;

		x->h.flags = WC_REC_F_TIME;
		x->time_ns = time;
		x->cpu = seq % 2;
		x->pid = 10;
		x->tid = 11 + seq % 3;
		x->stack_id = seq;
		x->period = 10101010 + seq;
		x->event_id = 1;
		size = sizeof(*x);
		break;
	}
	case WC_REC_LOST: {
		struct wc_rec_lost *x = buf;

		x->h.flags = WC_REC_F_TIME;
		x->time_ns = time;
		x->cpu = 1;
		x->kind = WC_LOST_RECORDS;
		x->count = seq * 3ull;
		size = sizeof(*x);
		break;
	}
	case WC_REC_ROUND:
		size = sizeof(*h);
		break;
	case WC_REC_THROTTLE: {
		struct wc_rec_throttle *x = buf;

		x->h.flags = WC_REC_F_TIME;
		x->time_ns = time;
		x->cpu = seq % 2;
		x->event_id = 1;
		x->throttled = seq % 2;
		size = sizeof(*x);
		break;
	}
	case WC_REC_NOTE: {
		struct wc_rec_note *x = buf;
		const char *s[] = { "wakeup_event", name };

		x->key_len = 13;
		x->value_len = (uint32_t)strlen(name) + 1;
		put_strings(x->data, s, 2);
		size = sizeof(*x) + x->key_len + x->value_len;
		break;
	}
	default: /* a type from the future: a timed record of some size */
		h->flags = WC_REC_F_TIME;
		memcpy((uint8_t *)buf + 8, &time, 8);
		size = 16 + 8 * (seq % 5);
		break;
	}
	size = WC_ALIGN8(size);
	h->size = size;
	h->type = type;
	return size;
}

int tu_write_trace(struct tu_trace *t, size_t nrec, size_t flush_every, int close_it,
		   const struct wc_writer_opts *opts)
{
	static uint64_t buf[65536 / 8];
	struct wc_writer_stats st;
	struct wc_writer *w;
	size_t first_in_frame = 0;
	int fd, err = 0;

	memset(t, 0, sizeof(*t));
	strcpy(t->path, "/tmp/wct-test-XXXXXX");
	fd = mkstemp(t->path);
	if (fd < 0)
		return -errno;
	t->recs = calloc(nrec + 1, sizeof(*t->recs));
	t->frame_end = calloc(nrec + 1, sizeof(*t->frame_end));
	t->frame_start = calloc(nrec + 1, sizeof(*t->frame_start));
	w = wc_writer_new(fd, opts);
	if (!w || !t->recs || !t->frame_end || !t->frame_start) {
		err = -ENOMEM;
		goto out;
	}
	t->frame_start[0] = sizeof(struct wc_file_header);
	for (size_t i = 0; i < nrec; i++) {
		uint32_t size = tu_make_record(buf, tu_types[i % tu_ntypes], (uint32_t)i);

		t->recs[i] = malloc(size);
		memcpy(t->recs[i], buf, size);
		err = wc_writer_add(w, buf);
		if (err)
			goto out;
		t->nrec++;
		if (flush_every && (i + 1) % flush_every == 0) {
			err = wc_writer_flush(w);
			if (err)
				goto out;
			wc_writer_stats(w, &st);
			for (size_t j = first_in_frame; j <= i; j++)
				t->frame_end[j] = st.bytes_written;
			first_in_frame = i + 1;
			t->frame_start[i + 1] = st.bytes_written;
		}
	}
	if (close_it)
		err = wc_writer_close(w, 999999999999ull, 0);
	else
		err = wc_writer_flush(w);
	wc_writer_stats(w, &st);
	for (size_t j = first_in_frame; j < nrec; j++)
		t->frame_end[j] = st.bytes_written;
	t->file_size = st.bytes_written;
out:
	wc_writer_free(w);
	close(fd);
	return err;
}

void tu_trace_free(struct tu_trace *t)
{
	if (t->path[0])
		unlink(t->path);
	for (size_t i = 0; t->recs && i < t->nrec; i++)
		free(t->recs[i]);
	free(t->recs);
	free(t->frame_end);
	free(t->frame_start);
	memset(t, 0, sizeof(*t));
}

int tu_copy_prefix(const char *src, uint64_t len, char *dst)
{
	static uint8_t buf[1 << 16];
	int in, out, err = 0;

	strcpy(dst, "/tmp/wct-cut-XXXXXX");
	in = open(src, O_RDONLY);
	out = mkstemp(dst);
	if (in < 0 || out < 0)
		return -errno;
	while (len) {
		ssize_t n = read(in, buf, len < sizeof(buf) ? len : sizeof(buf));

		if (n <= 0 || write(out, buf, (size_t)n) != n) {
			err = -EIO;
			break;
		}
		len -= (uint64_t)n;
	}
	close(in);
	close(out);
	return err;
}
