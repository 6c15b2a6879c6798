// SPDX-License-Identifier: GPL-2.0
/*
 * The mutation score of tests/mutants/run.sh (its score.json): how many of
 * the series' mutants the guest tests kill, and which survive.  It is read
 * with the report and shown beside the verdict, never folded into it.
 */
#include <string.h>

#include "report.h"

static const char *const statuses[] = { "killed", "survived", "defect", NULL };

void mutants_free(struct mutants *m)
{
	if (!m)
		return;
	g_free(m->file);
	json_decref(m->doc);
	g_ptr_array_free(m->survivors, TRUE);
	g_ptr_array_free(m->defects, TRUE);
	g_free(m);
}

static bool is_count(json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 0;
}

static bool strings(json_t *a)
{
	json_t *e;
	size_t i;

	if (!json_is_array(a))
		return false;
	json_array_foreach(a, i, e)
		if (!json_is_string(e))
			return false;
	return true;
}

/* What is wrong with mutants[@i], or NULL. */
static char *entry_problem(json_t *e, size_t i)
{
	if (!json_is_object(e))
		return g_strdup_printf("mutants[%zu] is not an object", i);
	if (!*jstr(e, "mutant") || !*jstr(e, "arch"))
		return g_strdup_printf("mutants[%zu] has no 'mutant' or 'arch' string", i);
	if (!g_strv_contains(statuses, jstr(e, "status")))
		return g_strdup_printf("mutants[%zu] (%s): status '%s' is none of killed, survived, defect",
				       i, jstr(e, "mutant"), jstr(e, "status"));
	if (!strings(json_object_get(e, "cases")))
		return g_strdup_printf("mutants[%zu] (%s): 'cases' is not a list of strings",
				       i, jstr(e, "mutant"));
	return NULL;
}

static char *doc_problem(json_t *doc)
{
	json_t *list = json_object_get(doc, "mutants"), *e;
	size_t i, killed = 0;
	char *why;

	if (!json_is_object(doc))
		return g_strdup("not a JSON object");
	if (!is_count(json_object_get(doc, "killed")) || !is_count(json_object_get(doc, "total")))
		return g_strdup("'killed' and 'total' must be counts (integers >= 0)");
	if (!json_is_array(list))
		return g_strdup("'mutants' is missing or not a list");
	json_array_foreach(list, i, e) {
		why = entry_problem(e, i);
		if (why)
			return why;
		killed += !strcmp(jstr(e, "status"), "killed");
	}
	if (json_integer_value(json_object_get(doc, "total")) != (json_int_t)json_array_size(list))
		return g_strdup_printf("'total' is %" JSON_INTEGER_FORMAT " but 'mutants' lists %zu",
				       json_integer_value(json_object_get(doc, "total")),
				       json_array_size(list));
	if (json_integer_value(json_object_get(doc, "killed")) != (json_int_t)killed)
		return g_strdup_printf("'killed' is %" JSON_INTEGER_FORMAT " but %zu entries are killed",
				       json_integer_value(json_object_get(doc, "killed")), killed);
	return NULL;
}

struct mutants *mutants_load(const char *path, GError **err)
{
	json_error_t jerr;
	json_t *doc = json_load_file(path, 0, &jerr), *e;
	struct mutants *m;
	char *why;
	size_t i;

	if (!doc) {
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL, "--mutants %s: %s (line %d)",
			    path, jerr.text, jerr.line);
		return NULL;
	}
	why = doc_problem(doc);
	if (why) {
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "--mutants %s: not a tests/mutants/run.sh score: %s", path, why);
		g_free(why);
		json_decref(doc);
		return NULL;
	}
	m = g_new0(struct mutants, 1);
	m->file = g_strdup(path);
	m->doc = doc;
	m->killed = json_integer_value(json_object_get(doc, "killed"));
	m->total = json_integer_value(json_object_get(doc, "total"));
	m->survivors = g_ptr_array_new_with_free_func(g_free);
	m->defects = g_ptr_array_new_with_free_func(g_free);
	json_array_foreach(json_object_get(doc, "mutants"), i, e) {
		char *name = g_strdup_printf("%s (%s)", jstr(e, "mutant"), jstr(e, "arch"));

		if (!strcmp(jstr(e, "status"), "survived"))
			g_ptr_array_add(m->survivors, name);
		else if (!strcmp(jstr(e, "status"), "defect"))
			g_ptr_array_add(m->defects, name);
		else
			g_free(name);
	}
	return m;
}

static void name_list(GString *out, const char *title, GPtrArray *names)
{
	if (!names->len)
		return;
	g_string_append_printf(out, "; %s:", title);
	for (guint i = 0; i < names->len; i++)
		g_string_append_printf(out, "%s %s", i ? "," : "", (char *)names->pdata[i]);
}

void report_mutants_line(GString *out, const struct report *r)
{
	const struct mutants *m = r->mutants;

	g_string_append_printf(out, "Mutation testing: %d of %d killed", m->killed, m->total);
	name_list(out, "SURVIVED", m->survivors);
	name_list(out, "not built (defects of the mutant)", m->defects);
	g_string_append_printf(out, " (%s %s at %s)",
			       m->survivors->len || m->defects->len ?
				       "the tests miss a wrong backport;" : "series",
			       jstr(m->doc, "version"), jstr(m->doc, "commit"));
}

bool report_mutants_alarm(const struct report *r)
{
	return r->mutants && (r->mutants->survivors->len || r->mutants->defects->len);
}

struct report_table *report_mutants_table(const struct report *r)
{
	static const char *const cols[] = { "mutant", "arch", "result", "caught by" };
	struct report_table *t = report_table_new("");
	json_t *e;
	size_t i;

	for (guint c = 0; c < G_N_ELEMENTS(cols); c++)
		g_ptr_array_add(t->cols, g_strdup(cols[c]));
	json_array_foreach(json_object_get(r->mutants->doc, "mutants"), i, e) {
		GPtrArray *row = g_ptr_array_new_with_free_func(g_free);
		const char *st = jstr(e, "status");

		g_ptr_array_add(row, report_clean(jstr(e, "mutant")));
		g_ptr_array_add(row, report_clean(jstr(e, "arch")));
		g_ptr_array_add(row, g_strdup(!strcmp(st, "survived") ? "SURVIVED" : st));
		g_ptr_array_add(row, json_array_size(json_object_get(e, "cases")) ?
					     report_jtext(json_object_get(e, "cases")) :
					     report_clean(jstr(e, "detail")));
		g_ptr_array_add(t->rows, row);
	}
	return t;
}

static json_t *copy_or_null(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return v ? json_incref(v) : json_null();
}

json_t *report_mutants_json(const struct report *r)
{
	const struct mutants *m = r->mutants;
	json_t *surv, *def;

	if (!m)
		return json_null();
	surv = json_array();
	def = json_array();
	for (guint i = 0; i < m->survivors->len; i++)
		json_array_append_new(surv, json_string(m->survivors->pdata[i]));
	for (guint i = 0; i < m->defects->len; i++)
		json_array_append_new(def, json_string(m->defects->pdata[i]));
	return json_pack("{s:s, s:o, s:o, s:i, s:i, s:o, s:o, s:O}", "file", m->file,
			 "version", copy_or_null(m->doc, "version"),
			 "commit", copy_or_null(m->doc, "commit"),
			 "killed", m->killed, "total", m->total, "survivors", surv,
			 "defects", def, "mutants", json_object_get(m->doc, "mutants"));
}
