/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * export-trace.c - see export-trace.h.
 */
#include <criterion/criterion.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/wct.h"
#include "export-trace.h"

struct st_trace et_tr;
bool et_rename_b;

void et_init(void)
{
	if (st_begin(&et_tr)) {
		st_remove(&et_tr);
		cr_assert_fail("cannot write the metadata: no testdata/formats/linux-6.18 under "
			       "srcdir=%s?",
			       getenv("srcdir") ? getenv("srcdir") : ".");
	}
}

void et_fini(void)
{
	st_remove(&et_tr);
}

/* A KALLSYMS record with the four functions named above, before any event. */
static void kallsyms(void)
{
	static const char text[] = "ffffffff81000000 T _stext\n"
				   "ffffffff81000100 T __schedule\n"
				   "ffffffff81000200 T schedule\n"
				   "ffffffff81000300 T do_poll\n"
				   "ffffffff81000400 T entry_SYSCALL_64\n"
				   "ffffffff81000500 D some_data\n";
	static uint64_t buf[64];
	struct wc_rec_kallsyms *k = (void *)buf;

	memset(buf, 0, sizeof(buf));
	k->h.type = WC_REC_KALLSYMS;
	k->text_len = sizeof(text);
	memcpy(k->text, text, sizeof(text));
	k->h.size = WC_ALIGN8(sizeof(*k) + sizeof(text));
	cr_assert_eq(wc_writer_add(et_tr.w, buf), 0);
}

/* The trace of export-trace.h. */
uint64_t et_write_trace(uint64_t cut_at)
{
	uint64_t wk_ips[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000310, 0xffffffff81000410,
			      PERF_CONTEXT_USER, 0x400000 };
	uint64_t s1_ips[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000320, 0xffffffff81000420 };
	uint64_t s2_ips[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000430 };
	const char *b = et_rename_b ? "renamed" : "worker";
	uint32_t k1, k2, k3, wk, s1, s2;
	uint64_t frame1 = 0;

	kallsyms();
	k1 = st_kstack(&et_tr, 1);
	k2 = st_kstack(&et_tr, 2);
	k3 = st_kstack(&et_tr, 3);
	wk = st_stack(&et_tr, wk_ips, 5);
	s1 = st_stack(&et_tr, s1_ips, 3);
	s2 = st_stack(&et_tr, s2_ips, 2);
	st_set_pid(&et_tr, B, A);
	st_set_pid(&et_tr, N, A);
	st_comm(&et_tr, 1 * MS, A, A, "app");
	st_comm(&et_tr, 1 * MS, A, B, "worker");
	st_comm(&et_tr, 1 * MS, W, W, "waker");
	st_switch(&et_tr, 1 * MS, 0, 0, "swapper/0", 0, A, "app", 0);
	st_sample(&et_tr, 1500000, 0, A, s1, 500000);
	st_switch(&et_tr, 2 * MS, 1, 0, "swapper/1", 0, B, "worker", 0);
	st_switch(&et_tr, 2500000, 1, B, "worker", ST_S, 0, "swapper/1", k1);
	st_switch(&et_tr, 3 * MS, 0, A, "app", ST_RPLUS, 0, "swapper/0", k2);
	st_round(&et_tr);
	if (cut_at)
		frame1 = st_flush(&et_tr);
	st_wake(&et_tr, 3200000, 1, W, B, "worker", 1, wk);
	st_switch(&et_tr, 3250000, 0, 0, "swapper/0", 0, A, "app", 0);
	st_switch(&et_tr, 3300000, 1, 0, "swapper/1", 0, B, "worker", 0);
	if (et_rename_b)
		st_comm(&et_tr, 3400000, A, B, b);
	st_switch(&et_tr, 3600000, 1, B, b, ST_D, 0, "swapper/1", k3);
	st_switch(&et_tr, 4 * MS, 0, A, "app", ST_S, 0, "swapper/0", k1);
	st_wake(&et_tr, 4100000, 0, W, B, b, 1, wk);
	st_switch(&et_tr, 4400000, 1, 0, "swapper/1", 0, B, b, 0);
	st_task(&et_tr, WC_REC_FORK, 4500000, A, A, N, A);
	st_comm(&et_tr, 4500000, A, N, "worker");
	st_wake_new(&et_tr, 4500000, 0, W, N, "worker", 0);
	st_sample(&et_tr, 4600000, 1, B, s2, 500000);
	st_switch(&et_tr, 4700000, 0, 0, "swapper/0", 0, N, "worker", 0);
	st_switch(&et_tr, 4900000, 0, N, "worker", ST_S, 0, "swapper/0", 0);
	st_switch(&et_tr, 5 * MS, 1, B, b, ST_S, 0, "swapper/1", k1);
	st_round(&et_tr);
	cr_assert_eq(st_end(&et_tr, true, 6 * MS), 0);
	return frame1;
}

/* ---- the checkers ---- */

int et_run(const char *cmd, char *out, size_t size)
{
	FILE *p = popen(cmd, "r");
	size_t n = 0;
	int st;

	cr_assert_not_null(p);
	while (n + 1 < size && fgets(out + n, (int)(size - n), p))
		n += strlen(out + n);
	out[n] = 0;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static const char *srcdir(void)
{
	return getenv("srcdir") ? getenv("srcdir") : ".";
}

int et_py(char *out, const char *fmt, ...)
{
	char args[4096], cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s/testdata/export/%s 2>&1", srcdir(), args);
	return et_run(cmd, out, 8192);
}

void et_save(const char *text, char *path)
{
	int fd;

	strcpy(path, "/tmp/wc-export-XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

void et_patch(char *s, const char *from, const char *to)
{
	char *at = strstr(s, from);

	cr_assert_not_null(at, "no %s to patch", from);
	cr_assert_eq(strlen(from), strlen(to));
	memcpy(at, to, strlen(to));
}
