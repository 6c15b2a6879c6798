// SPDX-License-Identifier: GPL-2.0
/*
 * kmatrix report: builds the model every format renders.  The planned
 * cells come from <results>/run.json; each cell's result is read and
 * validated like the runner does, and a planned cell without a usable
 * result (an interrupted run, a broken file) is listed as missing with
 * the reason, never dropped.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "result.h"

static char *results_dir_of(const struct report *r)
{
	return g_file_test(r->run->dir, G_FILE_TEST_IS_DIR) ?
		       g_strdup(r->run->dir) : NULL;
}

/* The last @max_lines lines of the log that explains @c's verdict. */
char *report_log_excerpt(const struct report *r, const struct rcell *c,
			 int max_lines, char **which)
{
	static const char *const order[] = { "console", "build", "config",
					     "apply", NULL };
	char *dir = results_dir_of(r), *text = NULL, *path = NULL, *out;
	const char *kind = report_log_kind(c->verdict);
	const char *start;
	size_t len = 0;
	int n = 0;

	*which = NULL;
	for (int i = -1; dir && !text && (i < 0 || order[i]); i++) {
		const char *k = i < 0 ? kind : order[i];
		char *suffix = g_strdup_printf(".%s.log", k);

		path = result_path(dir, c->version, c->arch, c->step, suffix);
		g_free(suffix);
		/* an empty log (a step that applied cleanly) explains nothing */
		if (!g_file_get_contents(path, &text, &len, NULL) || !len) {
			g_clear_pointer(&text, g_free);
			g_free(path);
			path = NULL;
		}
	}
	g_free(dir);
	if (!text)
		return NULL;
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		text[--len] = '\0';
	for (start = text + len; start > text; start--)
		if (start[-1] == '\n' && ++n == max_lines)
			break;
	out = report_clean(start);
	*which = g_path_get_basename(path);
	g_free(path);
	g_free(text);
	return out;
}

static void add_unique(GPtrArray *a, const char *s);

/* @to relative to the directory @from (both made absolute first). */
static char *relative_path(const char *from, const char *to)
{
	char *af = g_canonicalize_filename(from, NULL);
	char *at = g_canonicalize_filename(to, NULL);
	char **f = g_strsplit(af, "/", -1), **t = g_strsplit(at, "/", -1);
	GString *out = g_string_new(NULL);
	int i = 0;

	while (f[i] && t[i] && !strcmp(f[i], t[i]))
		i++;
	for (int j = i; f[j]; j++)
		if (*f[j])
			g_string_append(out, "../");
	for (int j = i; t[j]; j++)
		g_string_append_printf(out, "%s%s", t[j], t[j + 1] ? "/" : "");
	g_strfreev(f);
	g_strfreev(t);
	g_free(af);
	g_free(at);
	return g_string_free(out, FALSE);
}

static void link_free(struct report_link *l)
{
	g_free(l->name);
	g_free(l->href);
	g_free(l);
}

static void add_link(const struct report *r, GPtrArray *out, const char *dir, char *rel)
{
	char *path = g_build_filename(dir, rel, NULL);
	struct report_link *l;

	for (guint i = 0; i < out->len; i++)
		if (!strcmp(((struct report_link *)out->pdata[i])->name, rel))
			goto done;
	if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
		goto done;
	l = g_new0(struct report_link, 1);
	l->name = g_strdup(rel);
	if (r->log_base) {
		char *esc = g_uri_escape_string(rel, "/", FALSE);

		l->href = g_strdup_printf("%s%s%s", r->log_base,
					  g_str_has_suffix(r->log_base, "/") ? "" : "/", esc);
		g_free(esc);
	} else {
		l->href = relative_path(r->link_from ? r->link_from : ".", path);
	}
	g_ptr_array_add(out, l);
done:
	g_free(path);
	g_free(rel);
}

GPtrArray *report_log_links(const struct report *r, const struct rcell *c)
{
	static const char *const kinds[] = { "console", "build", "config", "apply", NULL };
	GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)link_free);
	char *dir = results_dir_of(r);

	if (!dir)
		return out;
	/* the log that explains the verdict first */
	add_link(r, out, dir, g_strdup_printf("%s/%s/%s.%s.log", c->version, c->arch, c->step,
					      report_log_kind(c->verdict)));
	for (int i = 0; kinds[i]; i++)
		add_link(r, out, dir, g_strdup_printf("%s/%s/%s.%s.log", c->version, c->arch,
						      c->step, kinds[i]));
	/* git am's log is written once per version */
	add_link(r, out, dir, g_strdup_printf("%s/%s.apply.log", c->version, c->step));
	g_free(dir);
	return out;
}

static bool is_object_list(json_t *v)
{
	json_t *o;
	size_t i;

	if (!json_is_array(v) || !json_array_size(v))
		return false;
	json_array_foreach(v, i, o)
		if (!json_is_object(o))
			return false;
	return true;
}

/* "k" for a plain member, "k.sub" for each member of an object member. */
static void abi_columns(struct report_table *t, json_t *o)
{
	const char *k, *k2;
	json_t *v, *v2;

	json_object_foreach(o, k, v) {
		if (is_object_list(v))
			continue;
		if (!json_is_object(v)) {
			add_unique(t->cols, k);
			continue;
		}
		json_object_foreach(v, k2, v2) {
			char *c = g_strdup_printf("%s.%s", k, k2);

			add_unique(t->cols, c);
			g_free(c);
		}
	}
}

static json_t *abi_cell(json_t *o, const char *col)
{
	const char *dot = strchr(col, '.');
	json_t *v = json_object_get(o, col);
	char *k;

	if (v || !dot)
		return v;
	k = g_strndup(col, dot - col);
	v = json_object_get(json_object_get(o, k), dot + 1);
	g_free(k);
	return v;
}

/* The row's name in a sub-table title: its first string member. */
static const char *abi_ident(json_t *o)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v)
		if (json_is_string(v))
			return json_string_value(v);
	return "?";
}

/*
 * A list of objects: one column per key, members that are objects spread
 * over "key.member" columns, members that are lists of objects as tables
 * of their own after this one.
 */
static void abi_list(GPtrArray *out, const char *title, json_t *list)
{
	struct report_table *t = report_table_new(title);
	const char *k;
	json_t *o, *v;
	size_t i;

	json_array_foreach(list, i, o)
		abi_columns(t, o);
	g_ptr_array_add(out, t);
	json_array_foreach(list, i, o) {
		GPtrArray *row = g_ptr_array_new_with_free_func(g_free);

		for (guint c = 0; c < t->cols->len; c++)
			g_ptr_array_add(row, report_jtext(abi_cell(o, t->cols->pdata[c])));
		g_ptr_array_add(t->rows, row);
	}
	json_array_foreach(list, i, o)
		json_object_foreach(o, k, v)
			if (is_object_list(v)) {
				char *sub = g_strdup_printf("%s %s: %s", title,
							    abi_ident(o), k);

				abi_list(out, sub, v);
				g_free(sub);
			}
}

/* A list of objects of rlimit-abi's JSON as a generic table (see abi_list). */
void report_abi_list(GPtrArray *out, const char *title, json_t *list)
{
	abi_list(out, title, list);
}

static void rcell_free(struct rcell *c)
{
	g_free(c->id);
	g_free(c->version);
	g_free(c->arch);
	g_free(c->step);
	g_free(c->missing);
	json_decref(c->res);
	g_free(c);
}

static struct run *run_new(const char *dir)
{
	struct run *run = g_new0(struct run, 1);

	run->dir = g_strdup(dir);
	run->versions = g_ptr_array_new_with_free_func(g_free);
	run->arches = g_ptr_array_new_with_free_func(g_free);
	run->steps = g_ptr_array_new_with_free_func(g_free);
	run->cells = g_ptr_array_new_with_free_func((GDestroyNotify)rcell_free);
	run->by_id = g_hash_table_new(g_str_hash, g_str_equal);
	return run;
}

void run_free(struct run *run)
{
	if (!run)
		return;
	g_hash_table_destroy(run->by_id);
	g_ptr_array_free(run->cells, TRUE);
	g_ptr_array_free(run->versions, TRUE);
	g_ptr_array_free(run->arches, TRUE);
	g_ptr_array_free(run->steps, TRUE);
	json_decref(run->meta);
	g_free(run->meta_error);
	g_free(run->dir);
	g_free(run);
}

static void add_unique(GPtrArray *a, const char *s)
{
	for (guint i = 0; i < a->len; i++)
		if (!strcmp(a->pdata[i], s))
			return;
	g_ptr_array_add(a, g_strdup(s));
}

static void cell_set_result(struct rcell *c, json_t *res)
{
	c->res = res;
	c->verdict = jstr(res, "verdict");
	c->met = json_is_true(json_object_get(res, "met"));
	for (int i = 0; report_stages[i]; i++)
		c->total += cell_stage(c, report_stages[i]);
}

static struct rcell *cell_add(struct run *run, const char *v, const char *a,
			      const char *s)
{
	struct rcell *c = g_new0(struct rcell, 1);

	c->version = g_strdup(v);
	c->arch = g_strdup(a);
	c->step = g_strdup(s);
	c->id = g_strdup_printf("%s/%s/%s", v, a, s);
	c->verdict = "missing";
	g_ptr_array_add(run->cells, c);
	g_hash_table_insert(run->by_id, c->id, c);
	return c;
}

/* Drop the results directory from a message: it names the file within. */
static char *strip_dir(const char *why, const char *dir)
{
	char *prefix = g_strconcat(dir, "/", NULL);
	char *out = g_str_has_prefix(why, prefix) ?
			    g_strdup(why + strlen(prefix)) : g_strdup(why);

	g_free(prefix);
	return out;
}

static void cell_read(struct run *run, struct rcell *c)
{
	char *path = result_path(run->dir, c->version, c->arch, c->step, ".json");
	char *why = NULL;
	json_t *res;

	if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
		c->missing = g_strdup("no result file (not run yet, or the run stopped before it)");
		g_free(path);
		return;
	}
	res = result_read(path, c->version, c->arch, c->step, &why);
	g_free(path);
	if (!res) {
		char *w = strip_dir(why, run->dir);

		c->missing = g_strdup_printf("unusable result: %s", w);
		g_free(w);
		g_free(why);
	} else {
		/*
		 * final=false only means "run it again next time" (infra-error,
		 * setup-error, apply-failed): the verdict stands for this run.
		 */
		cell_set_result(c, res);
	}
}

/* "v/arch/step" into its parts; FALSE when it does not have three. */
static gboolean split_id(const char *id, char ***parts)
{
	*parts = g_strsplit(id, "/", 3);
	if (g_strv_length(*parts) == 3 && **parts[0] && (*parts)[1][0] &&
	    (*parts)[2][0])
		return TRUE;
	g_strfreev(*parts);
	return FALSE;
}

static gboolean meta_check(json_t *meta, char **why)
{
	if (!json_is_object(meta))
		*why = g_strdup("not a JSON object");
	else if (strcmp(jstr(meta, "schema"), "kmatrix-run/1"))
		*why = g_strdup("schema is not kmatrix-run/1");
	else if (!json_is_array(json_object_get(meta, "cells")))
		*why = g_strdup("'cells' is missing or not a list");
	else
		return TRUE;
	return FALSE;
}

static void plan_row(struct run *run, GHashTable *planned, const char *v,
		     const char *a)
{
	for (guint s = 0; s < run->steps->len; s++) {
		const char *step = run->steps->pdata[s];
		char *id = g_strdup_printf("%s/%s/%s", v, a, step);

		if (g_hash_table_contains(planned, id))
			cell_read(run, cell_add(run, v, a, step));
		g_free(id);
	}
}

/* The planned cells, in grid order: versions x arches x steps. */
static void plan_from_meta(struct run *run)
{
	GHashTable *planned = g_hash_table_new_full(g_str_hash, g_str_equal,
						    g_free, NULL);
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(run->meta, "cells"), i, v) {
		char **p;

		if (!json_is_string(v) || !split_id(json_string_value(v), &p))
			continue;
		add_unique(run->versions, p[0]);
		add_unique(run->arches, p[1]);
		add_unique(run->steps, p[2]);
		g_hash_table_add(planned, g_strdup(json_string_value(v)));
		g_strfreev(p);
	}
	for (guint a = 0; a < run->versions->len; a++)
		for (guint b = 0; b < run->arches->len; b++)
			plan_row(run, planned, run->versions->pdata[a],
				 run->arches->pdata[b]);
	g_hash_table_destroy(planned);
}

static int cmp_version(gconstpointer a, gconstpointer b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_str(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_dir(const char *dir, GPtrArray *into)
{
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *name;

	while (d && (name = g_dir_read_name(d))) {
		char *p = g_build_filename(dir, name, NULL);

		if (g_file_test(p, G_FILE_TEST_IS_DIR))
			add_unique(into, name);
		g_free(p);
	}
	if (d)
		g_dir_close(d);
}

static void list_results(const struct run *run, const char *v,
			 const char *a, json_t *cells)
{
	char *dir = g_build_filename(run->dir, v, a, NULL);
	GDir *d = g_dir_open(dir, 0, NULL);
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	const char *n;

	while (d && (n = g_dir_read_name(d)))
		if (g_str_has_suffix(n, ".json"))
			g_ptr_array_add(names, g_strdup_printf("%s/%s/%.*s", v, a,
							       (int)strlen(n) - 5, n));
	g_ptr_array_sort(names, cmp_str);
	for (guint i = 0; i < names->len; i++)
		json_array_append_new(cells, json_string(names->pdata[i]));
	g_ptr_array_free(names, TRUE);
	if (d)
		g_dir_close(d);
	g_free(dir);
}

/* Without run.json: every result file there is, as if it was planned. */
static void plan_from_scan(struct run *run)
{
	GPtrArray *versions = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *arches = g_ptr_array_new_with_free_func(g_free);
	json_t *cells = json_array();

	list_dir(run->dir, versions);
	g_ptr_array_sort(versions, cmp_version);
	for (guint v = 0; v < versions->len; v++) {
		char *vd = g_build_filename(run->dir, versions->pdata[v], NULL);

		list_dir(vd, arches);
		g_free(vd);
	}
	g_ptr_array_sort(arches, cmp_str);
	for (guint v = 0; v < versions->len; v++)
		for (guint a = 0; a < arches->len; a++)
			list_results(run, versions->pdata[v], arches->pdata[a], cells);
	json_decref(run->meta);
	run->meta = json_pack("{s:s, s:o}", "schema", "kmatrix-run/1",
			      "cells", cells);
	plan_from_meta(run);
	g_ptr_array_free(versions, TRUE);
	g_ptr_array_free(arches, TRUE);
}

static int cmp_step_rank(gconstpointer a, gconstpointer b, gpointer rank)
{
	int ra = GPOINTER_TO_INT(g_hash_table_lookup(rank, *(char *const *)a));
	int rb = GPOINTER_TO_INT(g_hash_table_lookup(rank, *(char *const *)b));

	return ra - rb;
}

/*
 * Steps in series order, by the step_index of the results read; a step
 * no result names keeps its place after them.
 */
static void sort_steps(struct run *run)
{
	GHashTable *rank = g_hash_table_new(g_str_hash, g_str_equal);

	for (guint i = 0; i < run->steps->len; i++)
		g_hash_table_insert(rank, run->steps->pdata[i],
				    GINT_TO_POINTER(100000 + (int)i));
	for (guint i = 0; i < run->cells->len; i++) {
		struct rcell *c = run->cells->pdata[i];
		json_t *idx = c->res ? json_object_get(c->res, "step_index") : NULL;

		if (json_is_integer(idx) && json_integer_value(idx) < 100000)
			g_hash_table_insert(rank, c->step, GINT_TO_POINTER(
				(int)json_integer_value(idx)));
	}
	g_ptr_array_sort_with_data(run->steps, cmp_step_rank, rank);
	g_hash_table_destroy(rank);
}

/* Cells in grid order once the steps are in series order. */
static void order_cells(struct run *run)
{
	GPtrArray *old = run->cells;

	run->cells = g_ptr_array_new_with_free_func((GDestroyNotify)rcell_free);
	for (guint v = 0; v < run->versions->len; v++)
		for (guint a = 0; a < run->arches->len; a++)
			for (guint s = 0; s < run->steps->len; s++) {
				struct rcell *c = run_cell_at(run, v, a, s);

				if (c)
					g_ptr_array_add(run->cells, c);
			}
	g_ptr_array_set_free_func(old, NULL);
	g_ptr_array_free(old, TRUE);
}

/*
 * Steps apply in order: once one does not apply, every later step of the
 * version x arch is apply-failed for that reason alone (apply.c's
 * blocked()).  Those are knock-ons of the first, not departures of
 * their own.
 */
static void mark_knock_ons(struct run *run)
{
	for (guint v = 0; v < run->versions->len; v++)
		for (guint a = 0; a < run->arches->len; a++) {
			const struct rcell *root = NULL;

			for (guint s = 0; s < run->steps->len; s++) {
				struct rcell *c = run_cell_at(run, v, a, s);

				if (!c || !c->res || strcmp(c->verdict, "apply-failed"))
					continue;
				if (root)
					c->knock_of = root;
				else
					root = c;
			}
		}
}

/* An earlier run kept as our own JSON report (kmatrix-report/1). */
static struct run *run_from_report(const char *path, json_t *doc, GError **err)
{
	struct run *run = run_new(path);
	json_t *c;
	size_t i;

	if (strcmp(jstr(doc, "schema"), REPORT_SCHEMA)) {
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "%s: not a %s document", path, REPORT_SCHEMA);
		run_free(run);
		json_decref(doc);
		return NULL;
	}
	run->meta = json_incref(json_object_get(doc, "run"));
	json_array_foreach(json_object_get(doc, "cells"), i, c) {
		struct rcell *rc;

		if (!*jstr(c, "version") || !*jstr(c, "arch") || !*jstr(c, "step"))
			continue;
		add_unique(run->versions, jstr(c, "version"));
		add_unique(run->arches, jstr(c, "arch"));
		add_unique(run->steps, jstr(c, "step"));
		rc = cell_add(run, jstr(c, "version"), jstr(c, "arch"), jstr(c, "step"));
		if (json_is_object(json_object_get(c, "result")))
			cell_set_result(rc, json_incref(json_object_get(c, "result")));
		else
			rc->missing = g_strdup(jstr(c, "missing"));
	}
	json_decref(doc);
	mark_knock_ons(run);
	return run;
}

struct run *run_load(const char *dir, GError **err)
{
	struct run *run;
	json_error_t jerr;
	char *meta_path;

	if (g_file_test(dir, G_FILE_TEST_IS_REGULAR)) {
		json_t *doc = json_load_file(dir, 0, &jerr);

		if (!doc) {
			g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s:%d: %s",
				    dir, jerr.line, jerr.text);
			return NULL;
		}
		return run_from_report(dir, doc, err);
	}
	if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_NOENT,
			    "%s: no such results directory", dir);
		return NULL;
	}
	run = run_new(dir);
	meta_path = g_build_filename(dir, "run.json", NULL);
	run->meta = json_load_file(meta_path, 0, &jerr);
	if (!run->meta)
		run->meta_error = g_strdup(jerr.text);
	else
		meta_check(run->meta, &run->meta_error);
	if (run->meta_error) {
		char *e = g_strdup_printf("run.json unusable (%s): the cells found on disk are shown",
					  run->meta_error);

		g_free(run->meta_error);
		run->meta_error = e;
		plan_from_scan(run);
	} else {
		plan_from_meta(run);
	}
	sort_steps(run);
	order_cells(run);
	mark_knock_ons(run);
	g_free(meta_path);
	return run;
}

static char *kernel_text(json_t *k)
{
	const char *pkg = jstr(k, "package"), *ver = jstr(k, "package_version");
	const char *rel = jstr(k, "release");
	GString *out = g_string_new(NULL);

	if (*pkg)
		g_string_append_printf(out, "%s %s", pkg, *ver ? ver : "(version not recorded)");
	if (*rel)
		g_string_append_printf(out, "%sLinux %s", out->len ? ", " : "", rel);
	return out->len ? g_string_free(out, FALSE) : (g_string_free(out, TRUE), NULL);
}

char *report_kernel_of(const struct run *run, const char *version)
{
	const struct rcell *stock = NULL;
	char *text = NULL;

	for (guint i = 0; i < run->cells->len && !text; i++) {
		const struct rcell *c = run->cells->pdata[i];

		if (strcmp(c->version, version) || !c->res)
			continue;
		text = kernel_text(json_object_get(c->res, "kernel"));
		if (!stock && !strcmp(c->step, "stock"))
			stock = c;
	}
	/* before results had "kernel", the stock commit said "stock: <package> <version>" */
	if (!text && stock && g_str_has_prefix(jstr(stock->res, "subject"), "stock: ")) {
		const char *pkg = jstr(stock->res, "subject") + strlen("stock: ");

		text = g_strdup_printf("%s (%srelease not recorded)", pkg,
				       strchr(pkg, ' ') ? "" : "version and ");
	}
	return text ? text : g_strdup("exact kernel not recorded in these results");
}

void report_summary_counts(const struct report *r, GString *out)
{
	size_t nx = json_array_size(run_excluded(r->run));

	g_string_append_printf(out, "%d cell%s planned: %d met, %d departed, ",
			       r->planned, r->planned == 1 ? "" : "s", r->met, r->departed);
	if (r->knock_on)
		g_string_append_printf(out, "%d knock-on, ", r->knock_on);
	g_string_append_printf(out, "%d missing", r->missing);
	if (nx)
		g_string_append_printf(out, "; %zu version x arch excluded", nx);
}

struct rcell *run_cell_at(const struct run *run, guint v, guint a, guint s)
{
	char *id = g_strdup_printf("%s/%s/%s", (char *)run->versions->pdata[v],
				   (char *)run->arches->pdata[a],
				   (char *)run->steps->pdata[s]);
	struct rcell *c = g_hash_table_lookup(run->by_id, id);

	g_free(id);
	return c;
}

json_t *run_excluded(const struct run *run)
{
	static json_t *none;
	json_t *x = json_object_get(run->meta, "excluded");

	if (json_is_array(x))
		return x;
	if (!none)
		none = json_array();
	return none;
}

json_t *run_excluded_at(const struct run *run, guint v, guint a)
{
	json_t *x;
	size_t i;

	json_array_foreach(run_excluded(run), i, x)
		if (!g_strcmp0(jstr(x, "version"), run->versions->pdata[v]) &&
		    !g_strcmp0(jstr(x, "arch"), run->arches->pdata[a]))
			return x;
	return NULL;
}
