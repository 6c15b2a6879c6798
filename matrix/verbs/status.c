// SPDX-License-Identifier: GPL-2.0
/*
 * kmatrix status: the grid of cached results (no building, no lock), exit
 * 0 only when every cell of the matrix has a result that met expectations.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "apply.h"
#include "cache.h"
#include "colour.h"
#include "conf.h"
#include "key.h"
#include "plan.h"
#include "report.h"
#include "result.h"
#include "tree.h"
#include "verbs.h"

struct grid {
	struct matrix_conf *m;
	char *results, *cache;
	char **versions, **arches, **steps;	/* NULL: every one */
	char *expectations;	/* sha256 of the expectations file */
	int met, unmet, missing, excluded, stale;
	GPtrArray *shown;	/* const struct exclusion *, listed under the grid */
};

/*
 * @v x @a's exclusion, unless the laid stock tree is not the one it was
 * recorded for: the next run runs those cells, so their results show.
 */
static const struct exclusion *grid_excluded(struct grid *g, const char *v, const char *a)
{
	const struct exclusion *x = conf_excluded(g->m, v, a);
	char *dir, *safe, *tree;
	bool stale;

	if (!x || !x->stock_tree)
		return x;
	dir = tree_dir(g->cache, v);
	/* the build user owns the tree: reading it is safe */
	safe = g_strconcat("safe.directory=", dir, NULL);
	tree = tree_git(dir, "-c", safe, "rev-parse", "-q", "--verify", "stock^{tree}",
			NULL);
	stale = tree && strcmp(g_strstrip(tree), x->stock_tree);
	g_free(tree);
	g_free(safe);
	g_free(dir);
	return stale ? NULL : x;
}

static const char *cell_text(struct grid *g, const char *v, const char *a,
			     const char *s, char *buf, size_t n)
{
	const struct exclusion *x = grid_excluded(g, v, a);
	char *path, *why = NULL;
	json_t *r;

	if (x) {
		g->excluded++;
		for (guint i = 0; i < g->shown->len; i++)
			if (g->shown->pdata[i] == x)
				return "excluded";
		g_ptr_array_add(g->shown, (gpointer)x);
		return "excluded";
	}
	path = result_path(g->results, v, a, s, ".json");
	r = result_read(path, v, a, s, &why);
	g_free(path);
	g_free(why);
	if (!r) {
		g->missing++;
		return "-";
	}
	if (json_is_true(json_object_get(r, "met")))
		g->met++;
	else
		g->unmet++;
	if (result_stale(r, g->expectations))
		g->stale++;
	snprintf(buf, n, "%s%s%s",
		 json_string_value(json_object_get(r, "verdict")),
		 json_is_true(json_object_get(r, "met")) ? "" : "!",
		 json_is_true(json_object_get(r, "final")) ? "" : "?");
	json_decref(r);
	return buf;
}

/* A verdict that met in green, one that did not in red, on a terminal. */
static void print_cell(const char *text)
{
	const char *on = "";

	if (strchr(text, '!'))
		on = colour_bad(STDOUT_FILENO);
	else if (strcmp(text, "-") && strcmp(text, "excluded"))
		on = colour_good(STDOUT_FILENO);
	printf(" %s%-18s%s", on, text, *on ? colour_off(STDOUT_FILENO) : "");
}

static void print_version(struct grid *g, const struct version_conf *v)
{
	GError *err = NULL;
	GPtrArray *steps = apply_plan(v, &err);
	char buf[64];
	int shown = 0;

	if (!steps) {
		printf("%-6s %s\n", v->name, err->message);
		g_error_free(err);
		g->missing++;
		return;
	}
	for (guint s = 0; s < steps->len; s++) {
		struct step *st = steps->pdata[s];

		if (!plan_selected(g->steps, st->id))
			continue;
		printf("%-6s %-10s", shown++ ? "" : v->name, st->id);
		for (guint k = 0; k < g->m->arches->len; k++) {
			struct arch_conf *a = g->m->arches->pdata[k];

			if (plan_selected(g->arches, a->name))
				print_cell(cell_text(g, v->name, a->name, st->id, buf, sizeof(buf)));
		}
		printf("\n");
	}
	g_ptr_array_free(steps, TRUE);
}

static void print_grid(struct grid *g)
{
	printf("%-6s %-10s", "", "");
	for (guint k = 0; k < g->m->arches->len; k++) {
		struct arch_conf *a = g->m->arches->pdata[k];

		if (plan_selected(g->arches, a->name))
			printf(" %-18s", a->name);
	}
	printf("\n");
	for (guint i = 0; i < g->m->versions->len; i++) {
		struct version_conf *v = g->m->versions->pdata[i];

		if (plan_selected(g->versions, v->name))
			print_version(g, v);
	}
	printf("\n%d met, %d not met (!), %d without a result (-), %d excluded; "
	       "? marks a result that is not final\n", g->met, g->unmet, g->missing, g->excluded);
	if (g->stale)
		printf("%d met result%s stale (not final, or judged against other expectations): "
		       "kmatrix run judges them again\n", g->stale, g->stale == 1 ? " is" : "s are");
	for (guint i = 0; i < g->shown->len; i++) {
		const struct exclusion *x = g->shown->pdata[i];

		printf("excluded %s x %s: %s (%s:%d; evidence %s)\n", x->version, x->arch,
		       x->reason, g->m->path, x->line, x->evidence);
	}
}

/*
 * --versions, --arches and --steps, each name known, and an explicit
 * --results that exists: run's checks, so a typo is not an empty grid.
 */
static gboolean check_selection(struct grid *g, const char *versions, const char *arches,
				const char *steps, const char *results, GError **err)
{
	g_auto(GStrv) vs = conf_version_names(g->m);
	g_auto(GStrv) as = conf_arch_names(g->m);
	g_auto(GStrv) ss = NULL;

	if (!conf_pick("--versions", versions, (const char *const *)vs, &g->versions, err) ||
	    !conf_pick("--arches", arches, (const char *const *)as, &g->arches, err))
		return FALSE;
	if (steps) {
		ss = apply_step_ids(g->m, err);
		if (!ss || !conf_pick("--steps", steps, (const char *const *)ss, &g->steps, err))
			return FALSE;
	}
	if (results && !g_file_test(results, G_FILE_TEST_IS_DIR)) {
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_NOENT,
			    "--results %s: no such directory", results);
		return FALSE;
	}
	return TRUE;
}

static void grid_free(struct grid *g)
{
	conf_free(g->m);
	g_strfreev(g->versions);
	g_strfreev(g->arches);
	g_strfreev(g->steps);
	if (g->shown)
		g_ptr_array_free(g->shown, TRUE);
	g_free(g->expectations);
	g_free(g->results);
	g_free(g->cache);
}

int cmd_status(int argc, char **argv)
{
	g_autofree char *cache = NULL, *results = NULL, *matrix = NULL;
	g_autofree char *versions = NULL, *arches = NULL, *steps = NULL;
	GOptionEntry entries[] = {
		{ "versions", 0, 0, G_OPTION_ARG_STRING, &versions, "Versions to show", "LIST" },
		{ "arches", 0, 0, G_OPTION_ARG_STRING, &arches, "Architectures to show", "LIST" },
		{ "steps", 0, 0, G_OPTION_ARG_STRING, &steps, "Steps to show", "LIST" },
		{ "cache", 0, 0, G_OPTION_ARG_FILENAME, &cache, "Cache directory", "DIR" },
		{ "results", 0, 0, G_OPTION_ARG_FILENAME, &results, "Results directory", "DIR" },
		{ "matrix", 0, 0, G_OPTION_ARG_FILENAME, &matrix, "Matrix definition", "FILE" },
		{ NULL }
	};
	struct grid g = { 0 };
	char *top, *path;
	GError *err = NULL;
	int rc;

	if (!verb_parse("status", NULL,
		       "Print the grid of cached results.  Exit status, as report --format summary's: 0 every cell met (or is excluded), 1 some did not, 3 none departed but some are missing or stale; 2 a usage error.",
		       entries, &argc, &argv, &rc))
		return rc;
	if (argc > 1) {
		g_printerr("kmatrix status: unexpected argument '%s'\n", argv[1]);
		return 2;
	}
	top = cache_project_top();
	path = matrix ? g_strdup(matrix) : g_build_filename(top, "matrix", "matrix.conf", NULL);
	g.m = conf_load(top, path, &err);
	if (!g.m || !check_selection(&g, versions, arches, steps, results, &err)) {
		g_printerr("kmatrix status: %s\n", err->message);
		g_error_free(err);
		grid_free(&g);
		g_free(path);
		g_free(top);
		return 2;
	}
	g.cache = cache_dir(cache);
	g.shown = g_ptr_array_new();
	g.results = cache_results_dir(g.cache, results);
	g.expectations = key_file_sha256(g.m->expectations);
	print_grid(&g);
	rc = report_gate(g.met + g.unmet + g.missing, g.unmet, g.missing, g.stale);
	grid_free(&g);
	g_free(path);
	g_free(top);
	return rc;
}
