// SPDX-License-Identifier: GPL-2.0
/*
 * The command line: the options before the verb, the verb table and
 * `help`.  The verbs' own options are verb_parse()'s (verb_parse.c).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "colour.h"
#include "kmatrix-version.h"
#include "run.h"
#include "verbs.h"

const struct verb cli_verbs[] = {
	{ "run", cmd_run, "run the matrix (apply, build, boot, test every cell)" },
	{ "port", cmd_port, "try the series on a version without a backport" },
	{ "plan", cmd_plan, "list the cells, their keys and chains; build nothing" },
	{ "status", cmd_status, "print the grid of cached results" },
	{ "bisect", cmd_bisect, "find the first step that departs from its expectation" },
	{ "report", cmd_report, "write the report (md, html, junit, json, summary, kcidb)" },
	{ "merge", cmd_merge, "combine several machines' results directories" },
	{ "ci", cmd_ci, "write a GitLab or GitHub pipeline running the shards" },
	{ "clean", cmd_clean, "remove build directories, results or trees" },
	{ "conf", cmd_conf, "print the matrix as kmatrix reads it" },
	{ "sandbox", cmd_sandbox, "run a command as the stages run" },
	{ "help", NULL, "print a verb's help, or this list" },
	/* git bisect run's script: one cell at the checked-out commit. */
	{ "bisect-step", cmd_bisect_step, NULL },
	{ NULL }
};

const char *cli_version(void)
{
	return KMATRIX_VERSION;
}

const struct verb *cli_verb(const char *name)
{
	for (const struct verb *v = cli_verbs; v->name; v++)
		if (!strcmp(v->name, name))
			return v;
	return NULL;
}

/* Levenshtein distance, one row at a time. */
static guint distance(const char *a, const char *b)
{
	size_t n = strlen(b);
	g_autofree guint *row = g_new(guint, n + 1);

	for (size_t j = 0; j <= n; j++)
		row[j] = j;
	for (size_t i = 1; a[i - 1]; i++) {
		guint diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= n; j++) {
			guint up = row[j];
			guint sub = diag + (a[i - 1] != b[j - 1]);

			row[j] = MIN(sub, MIN(up, row[j - 1]) + 1);
			diag = up;
		}
	}
	return row[n];
}

const char *cli_suggest(const char *name)
{
	const char *best = NULL;
	guint best_d = G_MAXUINT;

	for (const struct verb *v = cli_verbs; v->name; v++) {
		guint d;

		if (!v->help)
			continue;
		d = distance(name, v->name);
		if (d < best_d) {
			best_d = d;
			best = v->name;
		}
	}
	/* close: at most two edits, and fewer than the name has letters */
	return best && best_d <= 2 && best_d < strlen(name) ? best : NULL;
}

static int list_verbs(FILE *f)
{
	fprintf(f, "usage: kmatrix [OPTION...] <verb> [ARG...]\n\n"
		   "Options:\n"
		   "  --cache=DIR     the cache directory of every verb (sets KMATRIX_CACHE)\n"
		   "  --color=WHEN    colour verdicts: auto (on a terminal, unless NO_COLOR),\n"
		   "                  always or never\n"
		   "  --version       print kmatrix's version\n"
		   "  -h, --help      print this list\n\n"
		   "Verbs:\n");
	for (const struct verb *v = cli_verbs; v->name; v++)
		if (v->help)
			fprintf(f, "  %-8s  %s\n", v->name, v->help);
	fprintf(f, "\n'kmatrix help VERB' (or 'kmatrix VERB --help') prints a verb's options.\n");
	return f == stdout ? 0 : 2;
}

static int unknown_verb(const char *name)
{
	const char *close = cli_suggest(name);

	if (close)
		g_printerr("kmatrix: unknown verb '%s'; did you mean '%s'?\n", name, close);
	else
		g_printerr("kmatrix: unknown verb '%s' (see kmatrix help)\n", name);
	return 2;
}

/* kmatrix help [VERB]: the list, or VERB --help. */
static int help(int argc, char **argv)
{
	char *vargv[] = { argv[1], "--help", NULL };
	const struct verb *v;

	if (argc < 2)
		return list_verbs(stdout);
	if (argc > 2) {
		g_printerr("kmatrix help: expected one verb, got %d words\n", argc - 1);
		return 2;
	}
	v = cli_verb(argv[1]);
	if (!v)
		return unknown_verb(argv[1]);
	if (!v->fn)
		return list_verbs(stdout);
	return v->fn(2, vargv);
}

struct global {
	char *cache, *color;
	gboolean version, help;
};

/* Parse the options before the verb; -1 to go on, else the exit code. */
static int parse_global(struct global *g, int *argc, char ***argv)
{
	GOptionEntry entries[] = {
		{ "cache", 0, 0, G_OPTION_ARG_FILENAME, &g->cache, NULL, "DIR" },
		{ "color", 0, 0, G_OPTION_ARG_STRING, &g->color, NULL, "WHEN" },
		{ "version", 0, 0, G_OPTION_ARG_NONE, &g->version, NULL, NULL },
		{ "help", 'h', 0, G_OPTION_ARG_NONE, &g->help, NULL, NULL },
		{ NULL }
	};
	GOptionContext *ctx = g_option_context_new(NULL);
	GError *err = NULL;
	enum colour_when when = COLOUR_AUTO;
	int rc = -1;

	g_option_context_set_help_enabled(ctx, FALSE);
	/* everything from the verb on is the verb's */
	g_option_context_set_strict_posix(ctx, TRUE);
	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, argc, argv, &err)) {
		g_printerr("kmatrix: %s (see kmatrix --help)\n", err->message);
		g_error_free(err);
		rc = 2;
	} else if (g->cache && !*g->cache) {
		g_printerr("kmatrix: --cache: empty directory name\n");
		rc = 2;
	} else if (g->color && !colour_parse(g->color, &when)) {
		g_printerr("kmatrix: --color: '%s' is not auto, always or never\n", g->color);
		rc = 2;
	} else {
		colour_set(when);
	}
	g_option_context_free(ctx);
	return rc;
}

static int apply_global(const struct global *g)
{
	if (g->cache) {
		g_autofree char *abs = g_canonicalize_filename(g->cache, NULL);

		g_setenv("KMATRIX_CACHE", abs, TRUE);
	}
	if (g->version) {
		printf("kmatrix %s\n", cli_version());
		return 0;
	}
	if (g->help)
		return list_verbs(stdout);
	return -1;
}

int cli_main(int argc, char **argv)
{
	struct global g = { 0 };
	const struct verb *v;
	int rc;

	/* what the stage logs' causes match (judge/stagelog.c) */
	run_set_name("kmatrix");
	rc = parse_global(&g, &argc, &argv);
	if (rc < 0)
		rc = apply_global(&g);
	g_free(g.cache);
	g_free(g.color);
	if (rc >= 0)
		return rc;
	if (argc < 2)
		return list_verbs(stderr);
	v = cli_verb(argv[1]);
	if (!v)
		return unknown_verb(argv[1]);
	if (!v->fn)
		return help(argc - 1, argv + 1);
	return v->fn(argc - 1, argv + 1);
}
