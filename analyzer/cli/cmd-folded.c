/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-folded.c - `wcanalyze folded`: the wall-clock profile as folded stacks (profile.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/cli/cli.h"
#include "analyzer/reports/info.h"
#include "analyzer/output/names.h"
#include "analyzer/output/output.h"
#include "common/grow.h"
#include "analyzer/reports/profile.h"

static const char usage[] =
	"usage: wcanalyze folded [options] FILE...   folded stacks of the wall-clock profile\n"
	"  --per-file             with several files, stacks keyed by file name first\n" WC_CLI_HELP_FILTER
		WC_CLI_HELP_OFFCPU WC_CLI_HELP_STACKS
	"  --annotate             kernel frames get the _[k] suffix\n"
	"  --waker                blocked time by target and waker stacks (offwaketime), in\n"
	"                         FlameGraph's --colors chain layout\n" WC_CLI_HELP_SYMBOLS
		WC_CLI_HELP_MEMORY;

enum { O_WAKER = 512 };

static int folded_option(void *ctx, int opt, const char *arg)
{
	bool *waker = ctx;

	(void)arg;
	if (opt == O_WAKER)
		*waker = true;
	return 0;
}

/* Several files' lines merged: each distinct folded text, its ns summed over the files. */
struct merged {
	struct wc_names texts; /* by id */
	uint64_t *ns;	       /* by id */
	size_t nvals, cap;
	const char *label; /* --per-file: the file's name, the first frame */
	struct wc_strbuf key;
};

static int merge_line(void *ctx, const struct wc_out_line *l)
{
	struct merged *m = ctx;
	int64_t id;

	wc_strbuf_reset(&m->key);
	if (m->label) {
		wc_strbuf_put(&m->key, m->label);
		wc_strbuf_put(&m->key, ";");
	}
	wc_strbuf_put(&m->key, l->folded);
	if (m->key.oom)
		return -ENOMEM;
	id = wc_names_intern(&m->texts, m->key.s, m->key.len);
	if (id < 0 || wc_grow((void **)&m->ns, &m->cap, (size_t)id + 1, sizeof(*m->ns)))
		return -ENOMEM;
	while (m->nvals <= (size_t)id) /* a new text */
		m->ns[m->nvals++] = 0;
	m->ns[id] += l->value; /* ns: the runs' unit */
	return 0;
}

static const struct wc_names *sort_texts;

static int by_text(const void *a, const void *b)
{
	return strcmp(wc_names_get(sort_texts, *(const uint32_t *)a),
		      wc_names_get(sort_texts, *(const uint32_t *)b));
}

/* --per-file's name of @path: its base name, less a ".wct" ending. */
static const char *file_label(const char *path, char *buf, size_t len)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = strlen(b);
	if (n > 4 && !strcmp(b + n - 4, ".wct"))
		n -= 4;
	snprintf(buf, len, "%.*s", (int)n, b);
	return buf;
}

/* The merged lines, sorted by text, in the unit asked for (rounded as one profile's are). */
static int write_merged(struct merged *m, enum wc_unit unit_of)
{
	uint64_t unit = wc_unit_ns(unit_of);
	uint32_t *order = malloc((m->texts.n + 1) * sizeof(*order));

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < m->texts.n; i++)
		order[i] = (uint32_t)i;
	sort_texts = &m->texts;
	qsort(order, m->texts.n, sizeof(*order), by_text);
	for (size_t i = 0; i < m->texts.n; i++) {
		uint64_t v = (m->ns[order[i]] + unit / 2) / unit;

		if (v && printf("%s %llu\n", wc_names_get(&m->texts, order[i]),
				(unsigned long long)v) < 0)
			break;
	}
	free(order);
	return fflush(stdout) || ferror(stdout) ? -EIO : 0;
}

/*
 * Several FILEs (or --per-file): each analysed alone (its own time base, --time from its own
 * start), the lines of all merged by text and summed, in ns until they are written.
 * Return: an exit status: the worst of the files' (a file that cannot be read is said and
 * skipped), WC_EXIT_BAD_FILE when the output cannot be written.
 */
static int folded_files(struct wc_cli *c, bool waker)
{
	enum wc_unit unit = c->prof.unit;
	struct merged m = { 0 };
	int worst = WC_EXIT_OK, err = 0;
	char label[256];

	c->prof.unit = WC_UNIT_NS;
	for (int i = 0; i < c->nfiles && !err; i++) {
		struct wc_cli_session s = { 0 };
		struct wc_profile *p = NULL;
		int ret;

		c->file = c->files[i];
		m.label = c->per_file ? file_label(c->file, label, sizeof(label)) : NULL;
		ret = wc_cli_profile_run(&s, c, waker, &p);
		if (ret < 0) {
			err = wc_profile_lines(p, s.a, s.sym, merge_line, &m);
			wc_cli_profile_notes(&s, p, c->file, stderr);
			wc_info_counts_line(s.a, stderr);
			s.counts_shown = true;
		}
		ret = wc_cli_end(&s, ret);
		wc_profile_free(p);
		if (ret > worst && ret != WC_EXIT_USAGE)
			worst = ret;
		if (ret == WC_EXIT_USAGE)
			err = -EINVAL; /* the same options for every file: stop */
	}
	if (!err)
		err = write_merged(&m, unit);
	wc_names_fini(&m.texts);
	free(m.ns);
	wc_strbuf_fini(&m.key);
	if (err == -EINVAL)
		return WC_EXIT_USAGE;
	if (err) {
		fprintf(stderr, "wcanalyze: writing the output: %s\n", strerror(-err));
		return WC_EXIT_BAD_FILE;
	}
	return worst;
}

int wc_cmd_folded(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "waker", no_argument, NULL, O_WAKER },
		{ 0 },
	};
	bool waker = false;
	struct wc_cli_extra x = { .longopts = longopts, .handle = folded_option, .ctx = &waker };
	struct wc_cli_session s = { 0 };
	struct wc_profile *p;
	struct wc_cli c;
	int ret = wc_cli_parse(&c, argc, argv, WC_CLI_PROFILE | WC_CLI_FILES, &x, usage);

	if (ret >= 0)
		return ret;
	if (c.nfiles > 1 || c.per_file)
		return folded_files(&c, waker);
	ret = wc_cli_profile_run(&s, &c, waker, &p);
	if (ret < 0) {
		struct wc_out_args args = {
			.out = stdout, .a = s.a, .file = c.file, .prof = &c.prof
		};
		int err = wc_output_run(&wc_output_folded, &args, p, s.sym, NULL);

		if (err) {
			fprintf(stderr, "wcanalyze: writing the output: %s\n", strerror(-err));
			ret = WC_EXIT_BAD_FILE;
		}
		/* the folded lines have no room for them: a footer on stderr */
		wc_cli_profile_notes(&s, p, c.file, stderr);
		wc_info_counts_line(s.a, stderr);
		s.counts_shown = true;
	}
	ret = wc_cli_end(&s, ret);
	wc_profile_free(p);
	return ret;
}
