// SPDX-License-Identifier: GPL-2.0
/*
 * What the renderers walk the same way: the cells that did not meet
 * their expectation, a cell's evidence, and the drift of a backport as a
 * table of text.
 * Each format only decides how a piece looks.
 */
#include <string.h>

#include "report.h"

static bool picked(const struct rcell *c, enum report_pick pick)
{
	switch (pick) {
	case REPORT_DEPARTED:
		return c->res && !c->met && !c->knock_of;
	case REPORT_MISSING:
		return !c->res;
	case REPORT_UNMET:
		return !c->met && !c->knock_of;
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

char *report_knock_text(const struct rcell *c)
{
	return c->knock_of ? g_strdup_printf("not run: %s did not apply", c->knock_of->step) :
			     NULL;
}

GPtrArray *report_knock_ons(const struct report *r, const struct rcell *root)
{
	GPtrArray *out = g_ptr_array_new();

	for (guint i = 0; i < r->run->cells->len; i++) {
		const struct rcell *c = r->run->cells->pdata[i];

		if (c->knock_of == root)
			g_ptr_array_add(out, (gpointer)c);
	}
	return out;
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
