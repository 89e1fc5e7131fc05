/* SPDX-License-Identifier: GPL-2.0-or-later */
/* symbolize.c - see symbolize.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/kallsyms.h"
#include "common/wct.h"
#include "common/map64.h"
#include "analyzer/symbols/symbolize.h"

#define UNKNOWN "[unknown]"

struct wc_symbolizer {
	const struct wc_tasks *tasks;
	const struct wc_symbol_paths *paths;
	struct wc_kallsyms *kallsyms;	      /* parsed from the text, owned */
	const struct wc_kallsyms *referenced; /* the KSYM records', borrowed */
	struct wc_elfsym **elf;		      /* by dso index, opened on first use */
	bool *used;			      /* by dso index: a frame was resolved against it */
	size_t nelf;
	struct wc_map64 user;	/* dso << 44 | file offset -> name index */
	struct wc_map64 kernel; /* address -> name index */
	char **names;
	size_t nnames, names_cap;
};

/*
 * The symbols of a kallsyms text in the file at @path (--kallsyms), read to its end: its stat
 * size may be 0, as /proc/kallsyms'.  Return: the symbols, or NULL with errno set.
 */
static struct wc_kallsyms *kallsyms_file(const char *path)
{
	FILE *f = fopen(path, "re");
	struct wc_kallsyms *k = NULL;
	size_t len = 0, cap = 0;
	char *text = NULL;

	if (!f)
		return NULL;
	for (;;) {
		if (len + 65536 > cap) {
			char *t = realloc(text, cap = 2 * cap + 65536);

			if (!t) {
				errno = ENOMEM;
				goto out;
			}
			text = t;
		}
		size_t n = fread(text + len, 1, cap - len, f);

		len += n;
		if (n == 0)
			break;
	}
	if (!ferror(f))
		k = wc_kallsyms_new(text, len);
out:
	free(text);
	fclose(f);
	return k;
}

struct wc_symbolizer *wc_symbolizer_new(const struct wc_tasks *tasks, const char *kallsyms,
					size_t len, const struct wc_kallsyms *referenced,
					const struct wc_symbol_paths *paths)
{
	struct wc_symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->tasks = tasks;
	s->paths = paths;
	s->referenced = referenced;
	if (wc_map64_init(&s->user) || wc_map64_init(&s->kernel))
		goto fail;
	if (kallsyms && len && *kallsyms) {
		s->kallsyms = wc_kallsyms_new(kallsyms, len);
		if (!s->kallsyms)
			goto fail;
	} else if ((!referenced || !wc_kallsyms_count(referenced)) && paths && paths->kallsyms &&
		   (s->kallsyms = kallsyms_file(paths->kallsyms)) == NULL && errno == ENOMEM) {
		goto fail;
	}
	return s;
fail:
	wc_symbolizer_free(s);
	errno = ENOMEM;
	return NULL;
}

void wc_symbolizer_free(struct wc_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nelf; i++)
		wc_elfsym_free(s->elf[i]);
	for (size_t i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->elf);
	free(s->used);
	wc_kallsyms_free(s->kallsyms);
	wc_map64_fini(&s->user);
	wc_map64_fini(&s->kernel);
	free(s);
}

/* Keep @name (taking ownership) and map @key in @m to it.  Return: the name or NULL. */
static const char *keep(struct wc_symbolizer *s, struct wc_map64 *m, uint64_t key, char *name)
{
	if (!name)
		return NULL;
	if (s->nnames == s->names_cap) {
		size_t cap = s->names_cap ? s->names_cap * 2 : 256;
		char **p = realloc(s->names, cap * sizeof(*p));

		if (!p) {
			free(name);
			return NULL;
		}
		s->names = p;
		s->names_cap = cap;
	}
	if (!wc_map64_put(m, key, s->nnames, NULL)) {
		free(name);
		return NULL;
	}
	s->names[s->nnames++] = name;
	return name;
}

static struct wc_elfsym *elf_of(struct wc_symbolizer *s, uint32_t dso)
{
	if (dso >= s->nelf) {
		size_t n = s->tasks->ndsos > dso ? s->tasks->ndsos : (size_t)dso + 1;
		struct wc_elfsym **e = realloc(s->elf, n * sizeof(*e));
		bool *u;

		if (!e)
			return NULL;
		s->elf = e;
		u = realloc(s->used, n * sizeof(*u));
		if (!u)
			return NULL;
		s->used = u;
		memset(s->elf + s->nelf, 0, (n - s->nelf) * sizeof(*e));
		memset(s->used + s->nelf, 0, (n - s->nelf) * sizeof(*u));
		s->nelf = n;
	}
	if (!s->elf[dso]) {
		const struct wc_dso *d = &s->tasks->dsos[dso];
		const uint8_t *id = d->build_id_len ? d->build_id : NULL;

		/* the vdso has no file: the trace carries the recorder's image of it */
		if (!strcmp(d->path, "[vdso]") && s->tasks->vdso_image)
			s->elf[dso] =
				wc_elfsym_open_image(d->path, s->tasks->vdso_image,
						     s->tasks->vdso_image_len, id, d->build_id_len);
		else
			s->elf[dso] = wc_elfsym_open(d->path, id, d->build_id_len, s->paths);
	}
	s->used[dso] = true;
	return s->elf[dso];
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

const char *wc_symbolizer_user(struct wc_symbolizer *s, uint32_t aspace, uint64_t ip)
{
	const struct wc_map *m = wc_tasks_lookup_map(s->tasks, aspace, ip);
	uint64_t off, key, *v;
	const char *name;
	char *text;

	if (ip == WC_CONTEXT_TRUNCATED)
		return "[truncated]";
	if (ip == WC_CONTEXT_UNWIND_FAILED)
		return "[unwind failed]";
	if (!m)
		return UNKNOWN;
	off = ip - m->start + m->pgoff;
	key = (uint64_t)m->dso << 44 | (off & ((1ull << 44) - 1));
	v = wc_map64_get(&s->user, key);
	if (v)
		return s->names[*v];
	struct wc_elfsym *e = elf_of(s, m->dso);

	if (!e)
		return NULL;
	name = wc_elfsym_lookup(e, off, NULL);
	if (name)
		text = strdup(name);
	else if (asprintf(&text, "%s+0x%llx", base_name(s->tasks->dsos[m->dso].path),
			  (unsigned long long)off) < 0)
		text = NULL;
	return keep(s, &s->user, key, text);
}

const char *wc_symbolizer_kernel(struct wc_symbolizer *s, uint64_t ip)
{
	uint64_t *v = wc_map64_get(&s->kernel, ip);
	const char *name;

	if (v)
		return s->names[*v];
	if (s->kallsyms)
		name = wc_kallsyms_lookup(s->kallsyms, ip, NULL, NULL);
	else
		name = s->referenced ? wc_kallsyms_lookup(s->referenced, ip, NULL, NULL) : NULL;
	return keep(s, &s->kernel, ip, strdup(name ? name : UNKNOWN));
}

size_t wc_symbolizer_warn(const struct wc_symbolizer *s, FILE *out, const char *prog)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nelf; i++) {
		enum wc_elfsym_status st;

		if (!s->used[i] || !s->elf[i])
			continue;
		st = wc_elfsym_status(s->elf[i]);
		if (st != WC_ELFSYM_MISMATCH && st != WC_ELFSYM_BAD)
			continue;
		fprintf(out, "%s: %s: %s: its frames are shown as %s+0xOFFSET\n", prog,
			s->tasks->dsos[i].path, wc_elfsym_status_text(st),
			base_name(s->tasks->dsos[i].path));
		n++;
	}
	return n;
}
