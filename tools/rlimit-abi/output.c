// SPDX-License-Identifier: GPL-2.0
/* The table (arch x rlimit, per tree), the report JSON and the cache JSON. */
#include <string.h>

#include "abi.h"

static const char *const state_names[] = {
	[ABI_OK] = "ok",
	[ABI_NO_HEADER] = "no-header",
	[ABI_NOT_EXPORTABLE] = "not-exportable",
	[ABI_ERROR] = "error",
};

const char *abi_state_name(enum abi_state s)
{
	return state_names[s];
}

static enum abi_state state_of(const char *name)
{
	for (guint i = 0; i < G_N_ELEMENTS(state_names); i++)
		if (name && !strcmp(name, state_names[i]))
			return i;
	return ABI_ERROR;
}

static json_t *idx_json(GArray *idx)
{
	json_t *a = json_array();

	for (guint i = 0; i < idx->len; i++)
		json_array_append_new(
			a, json_integer(g_array_index(idx, gint64, i)));
	return a;
}

static void idx_from_json(GArray *idx, json_t *a)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
	{
		gint64 n = json_integer_value(v);

		g_array_append_val(idx, n);
	}
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* Cache form of one arch: everything extracted, nothing judged. */
json_t *abi_arch_to_json(const struct abi_arch *a)
{
	json_t *syms = json_array();

	for (guint i = 0; i < a->syms->len; i++) {
		const struct abi_sym *s = a->syms->pdata[i];
		char *v = g_strdup_printf("%" G_GUINT64_FORMAT, s->value);

		json_array_append_new(syms,
				      json_pack("{s:s, s:s, s:s, s:s?}", "name",
						s->name, "expr", s->expr,
						"value", v, "file", s->file));
		g_free(v);
	}
	return json_pack("{s:s, s:s?, s:o, s:o, s:o, s:o, s:o, s:o}", "state",
			 abi_state_name(a->state), "header_arch", a->hdr_arch,
			 "detail", str_or_null(a->detail), "symbols", syms,
			 "init_rlimits", idx_json(a->init_idx), "init_error",
			 str_or_null(a->init_err), "lnames",
			 idx_json(a->lnames_idx), "lnames_error",
			 str_or_null(a->lnames_err));
}

static char *dup_or_null(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? g_strdup(s) : NULL;
}

struct abi_arch *abi_arch_from_json(const char *name, json_t *o)
{
	struct abi_arch *a = abi_arch_new(name);
	json_t *s;
	size_t i;

	a->state = state_of(json_string_value(json_object_get(o, "state")));
	a->hdr_arch = dup_or_null(o, "header_arch");
	a->detail = dup_or_null(o, "detail");
	a->init_err = dup_or_null(o, "init_error");
	a->lnames_err = dup_or_null(o, "lnames_error");
	json_array_foreach(json_object_get(o, "symbols"), i, s)
	{
		struct abi_sym *sym = abi_sym_new(
			json_string_value(json_object_get(s, "name")),
			json_string_value(json_object_get(s, "expr")),
			json_string_value(json_object_get(s, "file")));

		sym->value = g_ascii_strtoull(
			json_string_value(json_object_get(s, "value")), NULL,
			10);
		g_ptr_array_add(a->syms, sym);
	}
	idx_from_json(a->init_idx, json_object_get(o, "init_rlimits"));
	idx_from_json(a->lnames_idx, json_object_get(o, "lnames"));
	return a;
}

/* Columns: the tree's RLIMIT_* by their most common number, then the two others. */
struct cols {
	GPtrArray *names;
	GHashTable *common; /* name -> most common value (as string) */
};

static void count_value(GHashTable *votes, const char *name, const char *value)
{
	GHashTable *v = g_hash_table_lookup(votes, name);

	if (!v) {
		v = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					  NULL);
		g_hash_table_insert(votes, g_strdup(name), v);
	}
	g_hash_table_insert(
		v, g_strdup(value),
		GINT_TO_POINTER(GPOINTER_TO_INT(g_hash_table_lookup(v, value)) +
				1));
}

static char *cell_value(const struct abi_sym *s)
{
	if (!strcmp(s->name, "RLIM_INFINITY"))
		return g_strdup(s->expr);
	return g_strdup_printf("%" G_GUINT64_FORMAT, s->value);
}

static GHashTable *common_values(const struct abi_tree *t)
{
	GHashTable *votes =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
				      (GDestroyNotify)g_hash_table_destroy);
	GHashTable *common =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	GHashTableIter it, vi;
	gpointer k, v, vk, vv;

	for (guint i = 0; i < t->arches->len; i++) {
		const struct abi_arch *a = t->arches->pdata[i];

		for (guint j = 0; j < a->syms->len; j++) {
			char *val = cell_value(a->syms->pdata[j]);

			count_value(votes,
				    ((struct abi_sym *)a->syms->pdata[j])->name,
				    val);
			g_free(val);
		}
	}
	g_hash_table_iter_init(&it, votes);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		const char *best = NULL;
		int n = 0;

		g_hash_table_iter_init(&vi, v);
		while (g_hash_table_iter_next(&vi, &vk, &vv))
			if (GPOINTER_TO_INT(vv) > n ||
			    (GPOINTER_TO_INT(vv) == n &&
			     strcmp(vk, best) < 0)) {
				n = GPOINTER_TO_INT(vv);
				best = vk;
			}
		g_hash_table_insert(common, g_strdup(k), g_strdup(best));
	}
	g_hash_table_destroy(votes);
	return common;
}

static GHashTable *col_common;

static int cmp_col(gconstpointer a, gconstpointer b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	bool rx = g_str_has_prefix(x, "RLIMIT_"),
	     ry = g_str_has_prefix(y, "RLIMIT_");
	guint64 vx, vy;

	if (rx != ry)
		return rx ? -1 : 1;
	if (!rx)
		return strcmp(y, x); /* RLIM_NLIMITS before RLIM_INFINITY */
	vx = g_ascii_strtoull(g_hash_table_lookup(col_common, x), NULL, 10);
	vy = g_ascii_strtoull(g_hash_table_lookup(col_common, y), NULL, 10);
	return vx != vy ? (vx < vy ? -1 : 1) : strcmp(x, y);
}

static struct cols cols_of(const struct abi_tree *t)
{
	struct cols c = { g_ptr_array_new_with_free_func(g_free),
			  common_values(t) };
	GHashTableIter it;
	gpointer k;

	g_hash_table_iter_init(&it, c.common);
	while (g_hash_table_iter_next(&it, &k, NULL))
		g_ptr_array_add(c.names, g_strdup(k));
	col_common = c.common;
	g_ptr_array_sort(c.names, cmp_col);
	return c;
}

static void cols_free(struct cols *c)
{
	g_ptr_array_free(c->names, TRUE);
	g_hash_table_destroy(c->common);
}

static const char *short_name(const char *name)
{
	if (g_str_has_prefix(name, "RLIMIT_"))
		return name + strlen("RLIMIT_");
	if (!strcmp(name, "RLIM_NLIMITS"))
		return "NLIMITS";
	return "INFINITY";
}

/* "13", "15!" (a finding involves it), "7*" (differs from most arches), "-" (undefined). */
static char *cell(const struct abi_tree *t, const struct abi_arch *a,
		  const struct cols *c, const char *name, GPtrArray *findings)
{
	const struct abi_sym *s = abi_arch_sym(a, name);
	char *v, *out;

	if (!s)
		return g_strdup(
			abi_finding_marks(findings, t->label, a->name, name) ?
				"-!" :
				"-");
	v = cell_value(s);
	out = g_strconcat(
		v,
		abi_finding_marks(findings, t->label, a->name, name) ? "!" :
		strcmp(v, g_hash_table_lookup(c->common, name))	     ? "*" :
								       "",
		NULL);
	g_free(v);
	return out;
}

char *abi_table(const struct abi_tree *t, GPtrArray *findings)
{
	struct cols c = cols_of(t);
	GString *out = g_string_new(NULL);
	guint *w = g_new0(guint, c.names->len);

	for (guint j = 0; j < c.names->len; j++) {
		w[j] = strlen(short_name(c.names->pdata[j]));
		for (guint i = 0; i < t->arches->len; i++) {
			char *v = cell(t, t->arches->pdata[i], &c,
				       c.names->pdata[j], findings);

			w[j] = MAX(w[j], strlen(v));
			g_free(v);
		}
	}
	g_string_append_printf(out, "%-10s", "arch");
	for (guint j = 0; j < c.names->len; j++)
		g_string_append_printf(out, " %*s", w[j],
				       short_name(c.names->pdata[j]));
	g_string_append_c(out, '\n');
	for (guint i = 0; i < t->arches->len; i++) {
		const struct abi_arch *a = t->arches->pdata[i];

		g_string_append_printf(out, "%-10s", a->name);
		if (a->state != ABI_OK) {
			g_string_append_printf(out, " (%s: %s)\n",
					       abi_state_name(a->state),
					       a->detail ? a->detail : "");
			continue;
		}
		for (guint j = 0; j < c.names->len; j++) {
			char *v = cell(t, a, &c, c.names->pdata[j], findings);

			g_string_append_printf(out, " %*s", w[j], v);
			g_free(v);
		}
		if (strcmp(a->hdr_arch, a->name))
			g_string_append_printf(out, "  (headers of %s)",
					       a->hdr_arch);
		g_string_append_c(out, '\n');
	}
	g_free(w);
	cols_free(&c);
	return g_string_free(out, FALSE);
}

static json_t *tree_row(const struct abi_tree *t, const struct abi_arch *a,
			const struct cols *c, GPtrArray *findings)
{
	json_t *row = json_pack("{s:s, s:s}", "arch", a->name, "state",
				abi_state_name(a->state));

	for (guint j = 0; j < c->names->len; j++) {
		char *v = a->state == ABI_OK ?
				  cell(t, a, c, c->names->pdata[j], findings) :
				  g_strdup("");

		json_object_set_new(row, short_name(c->names->pdata[j]),
				    json_string(v));
		g_free(v);
	}
	return row;
}

/*
 * The trees a row holds for: "all" when every tree with the arch, "all but
 * X, Y" when most, else the list.
 */
static char *tree_names(GPtrArray *trees, const char *arch, GPtrArray *l)
{
	GPtrArray *others = g_ptr_array_new();
	char *out;
	guint n = 0;

	for (guint i = 0; i < trees->len; i++) {
		const struct abi_tree *t = trees->pdata[i];
		bool has = false, in = false;

		for (guint k = 0; k < t->arches->len; k++)
			has |= !strcmp(
				((struct abi_arch *)t->arches->pdata[k])->name,
				arch);
		for (guint k = 0; k < l->len; k++)
			in |= l->pdata[k] == t->label;
		n += has;
		if (has && !in)
			g_ptr_array_add(others, t->label);
	}
	g_ptr_array_add(others, NULL);
	g_ptr_array_add(l, NULL);
	if (n > 1 && others->len == 1) {
		out = g_strdup("all");
	} else if (n > 2 && others->len - 1 < l->len - 1) {
		char *but = g_strjoinv(", ", (char **)others->pdata);

		out = g_strconcat("all but ", but, NULL);
		g_free(but);
	} else {
		out = g_strjoinv(", ", (char **)l->pdata);
	}
	g_ptr_array_free(others, TRUE);
	return out;
}

/*
 * One row per arch and distinct row of values, naming the trees it holds
 * for ("all" when every tree with the arch): a matrix of many steps stays
 * as short as its departures.
 */
static json_t *matrix_rows(GPtrArray *trees, GPtrArray *findings)
{
	GPtrArray *rows =
		g_ptr_array_new_with_free_func((GDestroyNotify)json_decref);
	GPtrArray *labels = g_ptr_array_new_with_free_func(
		(GDestroyNotify)g_ptr_array_unref);
	json_t *out = json_array();

	for (guint i = 0; i < trees->len; i++) {
		const struct abi_tree *t = trees->pdata[i];
		struct cols c = cols_of(t);

		for (guint k = 0; k < t->arches->len; k++) {
			json_t *row =
				tree_row(t, t->arches->pdata[k], &c, findings);
			guint r = 0;

			while (r < rows->len &&
			       !json_equal(rows->pdata[r], row))
				r++;
			if (r == rows->len) {
				g_ptr_array_add(rows, json_incref(row));
				g_ptr_array_add(labels, g_ptr_array_new());
			}
			g_ptr_array_add(labels->pdata[r], t->label);
			json_decref(row);
		}
		cols_free(&c);
	}
	for (guint r = 0; r < rows->len; r++) {
		GPtrArray *l = labels->pdata[r];
		json_t *row = json_object(), *v;
		const char *k;
		char *names;

		names = tree_names(trees,
				   json_string_value(json_object_get(
					   rows->pdata[r], "arch")),
				   l);
		json_object_set_new(row, "trees", json_string(names));
		json_object_foreach(rows->pdata[r], k, v)
			json_object_set(row, k, v);
		json_array_append_new(out, row);
		g_free(names);
	}
	g_ptr_array_free(labels, TRUE);
	g_ptr_array_free(rows, TRUE);
	return out;
}

json_t *abi_report_json(GPtrArray *trees, GPtrArray *libcs, GPtrArray *findings)
{
	json_t *jt = json_array(), *jl = json_array(), *jf = json_array();

	for (guint i = 0; i < trees->len; i++) {
		const struct abi_tree *t = trees->pdata[i];
		guint ok = 0;

		for (guint k = 0; k < t->arches->len; k++)
			ok += ((struct abi_arch *)t->arches->pdata[k])->state ==
			      ABI_OK;
		json_array_append_new(
			jt,
			json_pack("{s:s, s:s, s:s, s:b, s:b, s:f, s:i, s:i}",
				  "tree", t->label, "spec", t->spec, "hash",
				  t->hash, "baseline", t->baseline, "cached",
				  t->cached, "seconds", t->seconds, "arches",
				  (int)t->arches->len, "arches_checked",
				  (int)ok));
	}
	for (guint i = 0; libcs && i < libcs->len; i++) {
		const struct abi_libc *l = libcs->pdata[i];

		json_array_append_new(
			jl, json_pack("{s:s, s:s, s:s}", "arch", l->arch,
				      "triple", l->triple, "status",
				      l->detail ? l->detail : "checked"));
	}
	for (guint i = 0; i < findings->len; i++) {
		const struct abi_finding *f = findings->pdata[i];

		json_array_append_new(
			jf, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "check",
				      f->check, "tree", f->tree, "arch",
				      f->arch, "symbol", f->symbol, "file",
				      f->file, "message", f->message));
	}
	return json_pack("{s:s, s:b, s:i, s:o, s:o, s:o, s:o}", "schema",
			 ABI_SCHEMA, "ok", findings->len == 0, "findings_count",
			 (int)findings->len, "trees", jt, "findings", jf,
			 "libc", jl, "matrix", matrix_rows(trees, findings));
}
