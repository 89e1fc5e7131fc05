/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-tpdecode-errors.c - what the sched payload decoder refuses: missing fields and formats,
 * fields of the wrong shape, payloads of every short length, unknown ids, formats added twice,
 * garbage, cut and mutated format texts (test-tpdecode.c: the sound decodes).
 *
 * Payloads sit at the end of exactly-sized heap blocks, so that AddressSanitizer catches a
 * read past the end.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "analyzer/core/tpdecode.h"
#include "common/wct.h"
#include "tests/unit/tpdecode-util.h"

TestSuite(tpdecode, .fini = tpdecode_fini);

/* ---- errors ---- */

Test(tpdecode, missing_field_is_named)
{
	const char *text =
		rename_field(format("linux-6.18", "sched_switch"), "prev_state", "prev_st");

	d = wc_tpdecode_new();
	cr_assert_not_null(d);
	add(text);
	cr_assert_eq(wc_tpdecode_bind(d, 1, "sched:sched_switch", WC_TP_SWITCH), -EINVAL);
	cr_assert_str_eq(wc_tpdecode_error(d), "sched:sched_switch: no field prev_state");
	cr_assert_eq(wc_tpdecode_decode_switch(d, 1, "", 0, &(struct wc_switch){ 0 }), -ENOENT);

	text = rename_field(format("linux-4.14", "sched_wakeup"), "pid", "tgid");
	add(text);
	cr_assert_eq(wc_tpdecode_bind(d, 2, "sched:sched_wakeup", WC_TP_WAKEUP), -EINVAL);
	cr_assert_str_eq(wc_tpdecode_error(d), "sched:sched_wakeup: no field pid");
}

Test(tpdecode, field_of_the_wrong_shape)
{
	const char *text =
		edit(format("linux-6.18", "sched_switch"), "int prev_prio;\toffset:28;\tsize:4",
		     "int prev_prio;\toffset:28;\tsize:3");

	d = wc_tpdecode_new();
	cr_assert_not_null(d);
	add(text);
	cr_assert_eq(wc_tpdecode_bind(d, 1, "sched:sched_switch", WC_TP_SWITCH), -EINVAL);
	cr_expect(strstr(wc_tpdecode_error(d), "sched:sched_switch: field prev_prio"), "%s",
		  wc_tpdecode_error(d));
}

Test(tpdecode, missing_format)
{
	d = wc_tpdecode_new();
	cr_assert_not_null(d);
	add(format("linux-6.18", "sched_waking"));
	cr_assert_eq(wc_tpdecode_bind(d, 1, "sched:sched_switch", WC_TP_SWITCH), -ENOENT);
	cr_assert_str_eq(wc_tpdecode_error(d), "sched:sched_switch: no format");
	cr_assert_eq(wc_tpdecode_bind(d, 1, "sched_switch", WC_TP_SWITCH), -EINVAL);
	cr_assert_eq(wc_tpdecode_bind(d, 1, "sched:", WC_TP_SWITCH), -EINVAL);
	cr_assert_eq(wc_tpdecode_bind(d, 1, NULL, WC_TP_SWITCH), -EINVAL);
	cr_assert_eq(wc_tpdecode_bind(d, 1, "sched:sched_waking", (enum wc_tp_role)9), -EINVAL);
}

Test(tpdecode, short_payload_every_length)
{
	const char *text = switch_of("linux-6.18");
	size_t full;
	uint8_t *good = payload(text, &full);
	struct wc_switch sw;

	put(good, text, "prev_state", 1);
	for (size_t n = 0; n < 56 + 8; n++) {
		uint8_t *buf = malloc(n ? n : 1);
		int ret;

		cr_assert_not_null(buf);
		memcpy(buf, good, n < full ? n : full);
		ret = wc_tpdecode_decode_switch(d, 1, buf, n, &sw);
		free(buf);
		if (n < full) {
			cr_assert_eq(ret, -EINVAL, "length %zu", n);
			cr_assert(strstr(wc_tpdecode_error(d), "sched:sched_switch: payload of"));
		} else {
			cr_assert_eq(ret, 0, "length %zu", n);
		}
	}
	cr_assert_eq(wc_tpdecode_decode_switch(d, 1, NULL, 100, &sw), -EINVAL);
	cr_assert_eq(wc_tpdecode_decode_switch(d, 1, good, 35, &sw), -EINVAL);
	cr_assert_str_eq(wc_tpdecode_error(d), "sched:sched_switch: payload of 35 bytes ends "
					       "before field prev_state (bytes 32 to 40)");
	free(good);
}

Test(tpdecode, unknown_id_and_wrong_role)
{
	const char *text = switch_of("linux-6.18");
	size_t size;
	uint8_t *buf = payload(text, &size);
	struct wc_wakeup wk;
	struct wc_switch sw;

	cr_assert_eq(wc_tpdecode_decode_switch(d, 2, buf, size, &sw), -ENOENT);
	cr_assert_str_eq(wc_tpdecode_error(d), "event id 2 is not bound");
	cr_assert_eq(wc_tpdecode_decode_switch(d, 65535, buf, size, &sw), -ENOENT);
	cr_assert_eq(wc_tpdecode_decode_wakeup(d, 1, buf, size, &wk), -EINVAL);
	cr_assert(strstr(wc_tpdecode_error(d), "sched:sched_switch"), "%s", wc_tpdecode_error(d));
	cr_assert_eq(wc_tpdecode_bind(d, 1, "sched:sched_switch", WC_TP_SWITCH), -EEXIST);
	tp_bind(65535, "sched:sched_switch", WC_TP_SWITCH); /* two ids, one event: fine */
	cr_assert_eq(wc_tpdecode_decode_switch(d, 65535, buf, size, &sw), 0);
	free(buf);
}

Test(tpdecode, formats_added_twice)
{
	const char *sw = format("linux-6.18", "sched_switch");

	d = wc_tpdecode_new();
	cr_assert_not_null(d);
	add(sw);
	cr_assert_eq(wc_tpdecode_add_format(d, "sched", sw), -EEXIST);
	cr_assert(strstr(wc_tpdecode_error(d), "sched:sched_switch"));
	/* Another event under an ID already taken. */
	cr_assert_eq(wc_tpdecode_add_format(d, "sched", edit(sw, "name: sched_switch", "name: x")),
		     -EEXIST);
	cr_assert(strstr(wc_tpdecode_error(d), "ID 372"), "%s", wc_tpdecode_error(d));
	/* The same name in another system is another event, given another ID. */
	cr_assert_eq(wc_tpdecode_add_format(d, "other", edit(sw, "ID: 372", "ID: 9999")), 0);
	cr_assert_eq(wc_tpdecode_role_of_kind(WC_EVENT_SWITCH), WC_TP_SWITCH);
	cr_assert_eq(wc_tpdecode_role_of_kind(WC_EVENT_WAKING), WC_TP_WAKEUP);
	cr_assert_eq(wc_tpdecode_role_of_kind(WC_EVENT_WAKEUP_NEW), WC_TP_WAKEUP);
	cr_assert_eq(wc_tpdecode_role_of_kind(WC_EVENT_MIGRATE), WC_TP_MIGRATE);
	cr_assert_eq(wc_tpdecode_role_of_kind(WC_EVENT_SAMPLE), 0);
}

Test(tpdecode, garbage_formats)
{
	static const char *const junk[] = {
		"",
		"hello world",
		"name: x\nID: abc\n",
		"name: x\nID: 5\nformat:\n\tfield:int;\n",
		"name:\n",
		"\xff\xfe",
		"name: z\nID: 7\nformat:\n\tfield:int a;\toffset:-8;\tsize:4;\n\nprint fmt: \"\"\n",
		/* valid layout, absurd field: may be added, refused at bind */
		"name: y\nID: 6\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\n\n"
		"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
		"\tfield:int pid;\toffset:4294967295;\tsize:99999999;\tsigned:1;\n"
		"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
		"\nprint fmt: \"%d\", REC->pid\n",
	};

	d = wc_tpdecode_new();
	cr_assert_not_null(d);
	cr_assert_eq(wc_tpdecode_add_format(d, "sched", NULL), -EINVAL);
	cr_assert_eq(wc_tpdecode_add_format(d, NULL, "name: x\n"), -EINVAL);
	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		int ret = wc_tpdecode_add_format(d, "sched", junk[i]);

		cr_assert(ret == -EINVAL || ret == 0, "junk %zu: %d", i, ret);
		cr_assert(ret == 0 || wc_tpdecode_error(d)[0], "junk %zu has no error text", i);
	}
	/* The last one parses; its field is refused at bind. */
	cr_assert_eq(wc_tpdecode_bind(d, 1, "sched:y", WC_TP_WAKEUP), -EINVAL);
	cr_assert_str_eq(wc_tpdecode_error(d),
			 "sched:y: field pid has an impossible offset or size");
}

/* Every prefix of a real format: refused or accepted, never a crash or an over-read. */
Test(tpdecode, truncated_formats)
{
	const char *text = format("linux-6.18", "sched_switch");
	size_t len = strlen(text), size;
	uint8_t *buf = payload(text, &size);

	for (size_t n = 0; n < len; n++) {
		char *cut = strndup(text, n);
		struct wc_switch sw;
		int ret;

		cr_assert_not_null(cut);
		d = wc_tpdecode_new();
		cr_assert_not_null(d);
		ret = wc_tpdecode_add_format(d, "sched", cut);
		cr_assert(ret == 0 || ret == -EINVAL, "prefix %zu: %d", n, ret);
		if (!ret && !wc_tpdecode_bind(d, 1, "sched:sched_switch", WC_TP_SWITCH)) {
			ret = wc_tpdecode_decode_switch(d, 1, buf, size, &sw);
			cr_assert(ret == 0 || ret == -EINVAL, "prefix %zu: %d", n, ret);
		}
		wc_tpdecode_free(d);
		d = NULL;
		free(cut);
	}
	free(buf);
}

/* Random byte changes in a format text, then random payloads. */
Test(tpdecode, mutated_formats)
{
	const char *text = format("linux-6.18", "sched_switch");
	size_t len = strlen(text);
	unsigned seed = 12345;

	for (int round = 0; round < 300; round++) {
		char *m = strdup(text);
		uint8_t buf[80];
		struct wc_switch sw;

		cr_assert_not_null(m);
		for (int k = 0; k < 1 + round % 4; k++)
			m[rand_r(&seed) % len] = " 0123456789;:[]abc\t\n"[rand_r(&seed) % 20];
		d = wc_tpdecode_new();
		cr_assert_not_null(d);
		if (!wc_tpdecode_add_format(d, "sched", m) &&
		    !wc_tpdecode_bind(d, 1, "sched:sched_switch", WC_TP_SWITCH)) {
			for (int p = 0; p < 20; p++) {
				size_t n = (size_t)rand_r(&seed) % sizeof(buf);
				uint8_t *pl = malloc(n ? n : 1);

				cr_assert_not_null(pl);
				for (size_t i = 0; i < n; i++)
					pl[i] = (uint8_t)rand_r(&seed);
				(void)wc_tpdecode_decode_switch(d, 1, pl, n, &sw);
				free(pl);
			}
		}
		wc_tpdecode_free(d);
		d = NULL;
		free(m);
	}
}

Test(tpdecode, free_null)
{
	wc_tpdecode_free(NULL);
}
