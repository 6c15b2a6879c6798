// SPDX-License-Identifier: GPL-2.0
/*
 * What the renderers walk the same way: the grid's cells, the cells that
 * did not meet their expectation, a cell's evidence, and the tables (the
 * drift of a backport, rlimit-abi's blocks) as columns and rows of text.
 * Each format only decides how a piece looks.
 */
#include <string.h>

#include "report.h"

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

static bool picked(const struct rcell *c, enum report_pick pick)
{
	switch (pick) {
	case REPORT_DEPARTED:
		return c->res && !c->met;
	case REPORT_MISSING:
		return !c->res;
	case REPORT_UNMET:
		return !c->met;
	}
	return false;
}

void report_walk(GString *out, const struct report *r, enum report_pick pick,
		 report_cell_fn fn)
{
	for (guint i = 0; i < r->run->cells->len; i++) {
		const struct rcell *c = r->run->cells->pdata[i];

		if (picked(c, pick))
			fn(out, r, c);
	}
}

char *report_evidence(const struct rcell *c)
{
	json_t *ev = c->res ? json_object_get(c->res, "evidence") : NULL;
	GString *text;
	json_t *e;
	size_t i;

	if (!json_array_size(ev))
		return NULL;
	text = g_string_new(NULL);
	json_array_foreach(ev, i, e)
		g_string_append_printf(text, "%s%s", i ? "\n" : "",
				       json_string_value(e) ? json_string_value(e) : "");
	return g_string_free(text, FALSE);
}

void xml_text(GString *out, const char *s)
{
	char *c = report_clean(s);
	char *e = g_markup_escape_text(c, -1);

	g_string_append(out, e);
	g_free(e);
	g_free(c);
}

void xml_attr(GString *out, const char *name, const char *s)
{
	g_string_append_printf(out, " %s=\"", name);
	xml_text(out, s);
	g_string_append_c(out, '"');
}

struct report_table *report_table_new(const char *title)
{
	struct report_table *t = g_new0(struct report_table, 1);

	t->title = g_strdup(title);
	t->cols = g_ptr_array_new_with_free_func(g_free);
	t->rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
	return t;
}

void report_table_free(struct report_table *t)
{
	g_free(t->title);
	g_ptr_array_free(t->cols, TRUE);
	g_ptr_array_free(t->rows, TRUE);
	g_free(t);
}

/* A row of the drift table: canonical, backport, drift, subject. */
static GPtrArray *drift_row(const struct drift_patch *dp)
{
	GPtrArray *row = g_ptr_array_new_with_free_func(g_free);

	g_ptr_array_add(row, g_strdup(dp->canonical ? dp->canonical : "-"));
	g_ptr_array_add(row, g_strdup(dp->backport ? dp->backport : "-"));
	if (!strcmp(dp->status, "adapted"))
		g_ptr_array_add(row, g_strdup_printf("%s: %d lines (message: %d)",
						     dp->status, dp->lines,
						     dp->message_lines));
	else
		g_ptr_array_add(row, g_strdup(dp->status));
	g_ptr_array_add(row, g_strdup(dp->subject));
	return row;
}

struct report_table *report_drift_table(const struct drift *d)
{
	static const char *const cols[] = { "canonical", "backport", "drift", "subject" };
	struct report_table *t = report_table_new("");

	for (guint c = 0; c < G_N_ELEMENTS(cols); c++)
		g_ptr_array_add(t->cols, g_strdup(cols[c]));
	for (guint p = 0; p < d->patches->len; p++)
		g_ptr_array_add(t->rows, drift_row(d->patches->pdata[p]));
	return t;
}
