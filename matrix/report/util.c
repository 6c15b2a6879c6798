// SPDX-License-Identifier: GPL-2.0
/*
 * The report's vocabulary, below the model and every format: the stages
 * and verdict styles, reading a result's JSON fields, text made safe for a
 * terminal, XML and HTML, and the table every block is laid out as.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

const char *const report_stages[] = { "apply", "configure", "build", "pack",
				      "boot", "test", NULL };

/* Colours differ per class; the label carries the meaning without them. */
static const struct verdict_style styles[] = {
	{ "pass", "pass", "#d8f0d8", "#14521a", NULL },
	{ "test-failed", "TESTS FAIL", "#f6c6c6", "#7a0c0c", "failure" },
	{ "unexpected-pass", "UNEXP. PASS", "#e6d0f2", "#4a1466", "failure" },
	{ "apply-failed", "APPLY FAIL", "#ffd9b0", "#6b3500", "failure" },
	{ "config-failed", "CONFIG FAIL", "#fff0a8", "#5c4a00", "failure" },
	{ "build-failed", "BUILD FAIL", "#f2a0a0", "#5c0000", "failure" },
	{ "boot-failed", "BOOT FAIL", "#f5b8dc", "#66003d", "failure" },
	{ "timeout", "TIMEOUT", "#c9d8f5", "#0d2f6b", "failure" },
	{ "infra-error", "INFRA ERROR", "#d0d0d0", "#222222", "error" },
	{ "setup-error", "SETUP ERROR", "#bfe6e6", "#0b4d4d", "error" },
	{ "missing", "MISSING", "#ffffff", "#555555", "error" },
};

const struct verdict_style *report_style(const char *verdict)
{
	for (size_t i = 0; i < G_N_ELEMENTS(styles); i++)
		if (!g_strcmp0(styles[i].verdict, verdict))
			return &styles[i];
	return &styles[G_N_ELEMENTS(styles) - 1];
}

const char *jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

double jnum(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : 0.0;
}

double cell_stage(const struct rcell *c, const char *stage)
{
	return c->res ? jnum(json_object_get(c->res, "timings"), stage) : 0.0;
}

char *report_short(const char *sha)
{
	return g_strndup(sha ? sha : "", 12);
}

/*
 * Console logs carry escape sequences and whatever bytes a crashing guest
 * wrote: make the text valid UTF-8 and show control characters as ^X, so
 * that XML and HTML stay well-formed and a terminal is not driven.
 */
char *report_clean(const char *s)
{
	char *valid = g_utf8_make_valid(s ? s : "", -1);
	GString *out = g_string_sized_new(strlen(valid));

	for (const char *p = valid; *p; p++) {
		unsigned char ch = (unsigned char)*p;

		if (ch == '\r')
			continue;
		if (ch == 0x7f)
			g_string_append(out, "^?");
		else if (ch < 0x20 && ch != '\n' && ch != '\t')
			g_string_append_printf(out, "^%c", ch + '@');
		else
			g_string_append_c(out, *p);
	}
	g_free(valid);
	return g_string_free(out, FALSE);
}

const char *report_log_kind(const char *verdict)
{
	if (!strcmp(verdict, "apply-failed"))
		return "apply";
	if (!strcmp(verdict, "config-failed"))
		return "config";
	if (!strcmp(verdict, "build-failed"))
		return "build";
	return "console";
}

static char *report_json_text(json_t *v)
{
	char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS);
	char *out = report_clean(s);

	free(s);
	return out;
}

/* A JSON value as table text: strings bare, scalar lists joined, else JSON. */
char *report_jtext(json_t *v)
{
	GString *out;
	json_t *e;
	size_t i;
	char *s;

	if (json_is_string(v))
		return report_clean(json_string_value(v));
	if (!v)
		return g_strdup("");
	if (json_is_array(v) && !json_array_size(v))
		return g_strdup("none");
	if (json_is_array(v)) {
		bool scalars = true;

		json_array_foreach(v, i, e)
			scalars &= !json_is_object(e) && !json_is_array(e);
		if (scalars) {
			out = g_string_new(NULL);
			json_array_foreach(v, i, e) {
				s = report_jtext(e);
				g_string_append_printf(out, "%s%s", i ? ", " : "", s);
				g_free(s);
			}
			return g_string_free(out, FALSE);
		}
	}
	return report_json_text(v);
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
