/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd-flamegraph.c - `wcanalyze flamegraph`: the wall-clock profile (profile.h) drawn as an
 * interactive SVG flame graph (flamegraph.h; man/wcanalyze-flamegraph.1).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/cli/outfile.h"
#include "analyzer/cli/cli.h"
#include "analyzer/output/flamegraph.h"
#include "analyzer/output/output.h"
#include "analyzer/reports/profile.h"

static const char usage[] =
	"usage: wcanalyze flamegraph [options] FILE...   the wall-clock profile as an SVG "
	"flame graph\n"
	"  --per-file             with several files, stacks keyed by file name first\n"
	"  -o, --output FILE      write the SVG to FILE (default stdout)\n"
	"  --title TEXT           the title (default from --mode, e.g. Wall-clock Flame Graph)\n"
	"  --width PX             image width in pixels (default 1200)\n"
	"  --minwidth PX|PCT%     merge frames narrower than this (default 0.1 px)\n"
	"  --inverted             icicle graph: the roots at the top\n"
	"  --colors hot|io|wakeup|chain  palette (default hot: on-CPU warm, off-CPU blue)\n"
	"  --waker                blocked time by target and waker stacks (offwaketime), as a\n"
	"                         chain graph: the wakers' frames above a \"--\" frame, in aqua\n" WC_CLI_HELP_FILTER
		WC_CLI_HELP_OFFCPU WC_CLI_HELP_STACKS
	"  --annotate             (always on: kernel frames are told apart by colour)\n" WC_CLI_HELP_SYMBOLS
		WC_CLI_HELP_MEMORY;

enum { O_TITLE = 512, O_WIDTH, O_MINWIDTH, O_INVERTED, O_COLORS, O_WAKER };

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "title", required_argument, NULL, O_TITLE },
	{ "width", required_argument, NULL, O_WIDTH },
	{ "minwidth", required_argument, NULL, O_MINWIDTH },
	{ "inverted", no_argument, NULL, O_INVERTED },
	{ "colors", required_argument, NULL, O_COLORS },
	{ "waker", no_argument, NULL, O_WAKER },
	{ 0 },
};

struct fg_args {
	struct wc_flamegraph_opts o;
	const char *output;
	bool colors_set, waker;
};

static int handle(void *ctx, int opt, const char *arg)
{
	struct fg_args *x = ctx;
	char *end;
	long w;

	switch (opt) {
	case 'o':
		x->output = arg;
		return 0;
	case O_TITLE:
		x->o.title = arg;
		return 0;
	case O_WIDTH:
		errno = 0;
		w = strtol(arg, &end, 10);
		if (errno || end == arg || *end || w < 100 || w > 100000)
			return wc_cli_bad("--width wants pixels from 100 to 100000", arg);
		x->o.width_px = (unsigned)w;
		return 0;
	case O_MINWIDTH:
		/* flamegraph.pl's --minwidth: pixels, or a percentage of the total with '%' */
		x->o.minwidth = strtod(arg, &end);
		x->o.minwidth_pct = *end == '%';
		if (end == arg || *end == '-' || x->o.minwidth < 0 || x->o.minwidth > 1e9 ||
		    x->o.minwidth != x->o.minwidth || (*end && strcmp(end, "%") != 0))
			return wc_cli_bad("--minwidth wants pixels, or a percentage with %", arg);
		return 0;
	case O_INVERTED:
		x->o.inverted = true;
		return 0;
	case O_WAKER:
		x->waker = true;
		return 0;
	case O_COLORS:
		x->colors_set = true;
		if (!strcmp(arg, "hot"))
			x->o.palette = WC_FG_HOT;
		else if (!strcmp(arg, "io"))
			x->o.palette = WC_FG_IO;
		else if (!strcmp(arg, "wakeup"))
			x->o.palette = WC_FG_WAKEUP;
		else if (!strcmp(arg, "chain"))
			x->o.palette = WC_FG_CHAIN;
		else
			return wc_cli_bad("--colors is hot, io, wakeup or chain", arg);
		return 0;
	}
	return WC_EXIT_USAGE;
}

/*
 * The SVG of profile @p (its options in @x) on x->output (outfile.h), or stdout when NULL;
 * with @s NULL, that of every file of @c (wc_cli_profile_files()), @p unused.
 * Return: 0 or an exit status; *@total: the graph's total (0: nothing drawn).
 */
static int draw(struct wc_cli_session *s, struct wc_cli *c, bool waker, const struct fg_args *x,
		struct wc_profile *p, uint64_t *total)
{
	struct wc_out_args args = { .file = c->file, .prof = &c->prof, .svg = &x->o };
	struct wc_out_result res = { 0 };
	struct wc_outfile out;
	int err = wc_cli_output_ok(x->output), cerr, ret = 0;

	if (err)
		return err;
	err = wc_outfile_open(&out, x->output);
	if (err) {
		fprintf(stderr, "wcanalyze: %s: %s\n", x->output, strerror(-err));
		return WC_EXIT_BAD_FILE;
	}
	args.out = out.f;
	if (s) {
		args.a = s->a;
		err = wc_output_run(&wc_output_svg, &args, p, s->sym, &res);
	} else {
		bool written = false;

		ret = wc_cli_profile_files(c, waker, &wc_output_svg, &args, &res, &written);
		err = written ? 0 : -EINVAL; /* said */
	}
	cerr = wc_outfile_close(&out, !err);
	*total = res.items;
	if (!s && (err || !cerr))
		return ret;
	if (!err && !cerr)
		return 0;
	if (err && err != -EIO)
		fprintf(stderr, "wcanalyze: building the flame graph: %s\n", strerror(-err));
	else
		fprintf(stderr, "wcanalyze: writing %s: %s\n", x->output ? x->output : "the output",
			strerror(err ? -err : -cerr));
	return WC_EXIT_BAD_FILE;
}

int wc_cmd_flamegraph(int argc, char **argv)
{
	struct fg_args x = { .o = { .minwidth = -1 } };
	struct wc_cli_extra extra = { longopts, "o:", handle, &x };
	struct wc_cli_session s = { 0 };
	struct wc_profile *p = NULL;
	struct wc_cli c;
	int ret = wc_cli_parse(&c, argc, argv, WC_CLI_PROFILE | WC_CLI_FILES | WC_CLI_PER_FILE,
			       &extra, usage);

	if (ret >= 0)
		return ret;
	if (x.waker && !x.colors_set) /* as folded --waker, drawn as flamegraph.pl --colors chain */
		x.o.palette = WC_FG_CHAIN;
	/* kernel frames carry _[k] for the colours; it is not shown */
	c.prof.annotate = !c.prof.user_only;
	/* the title by mode, subtitle, legend and unit are the svg row's (output.h) */
	if (c.nfiles > 1 || c.per_file) {
		uint64_t total = 0;

		ret = draw(NULL, &c, x.waker, &x, NULL, &total);
		if (ret != WC_EXIT_USAGE && ret != WC_EXIT_BAD_FILE && !total)
			fprintf(stderr, "wcanalyze: warning: no stacks to draw (nothing passed the "
					"options)\n");
		return ret;
	}
	ret = wc_cli_profile_run(&s, &c, x.waker, &p);
	if (ret < 0) {
		uint64_t total = 0;

		ret = draw(&s, &c, x.waker, &x, p, &total);
		if (!ret)
			wc_cli_profile_notes(&s, p, c.file, stderr);
		if (!ret && !total)
			fprintf(stderr,
				"wcanalyze: warning: %s: no stacks to draw (nothing passed "
				"the options)\n",
				c.file);
		ret = ret ? ret : -1;
	}
	ret = wc_cli_end(&s, ret);
	wc_profile_free(p);
	return ret;
}
