// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI section's own table: for each version x booted arch and suite,
 * the rlimit numbering the guest saw at run time (the uapi it was built
 * against, its C library, the running kernel's /proc/self/limits) beside
 * rlimit-abi's numbers for the same tree's headers; and the arches only
 * rlimit-abi sees, with the reason none of them is booted.
 */
#include <string.h>

#include "report.h"

/* rlimit-abi's column and the runtime name of the same number. */
static const char *const abi_names[][2] = {
	{ "RSS", "RLIMIT_RSS" },	 { "NPROC", "RLIMIT_NPROC" },
	{ "NOFILE", "RLIMIT_NOFILE" },	 { "MEMLOCK", "RLIMIT_MEMLOCK" },
	{ "AS", "RLIMIT_AS" },		 { "NICE", "RLIMIT_NICE" },
	{ "RTPRIO", "RLIMIT_RTPRIO" },	 { "RTTIME", "RLIMIT_RTTIME" },
	{ "NLIMITS", "RLIM_NLIMITS" },
};
static const char *const sources[] = { "uapi", "libc", "kernel" };

/* Does rlimit-abi's "trees" text ("all", "all but a, b", "a, b") cover @label? */
static bool trees_cover(const char *trees, const char *label)
{
	char **l;
	bool in = false;

	if (!trees)
		return false;
	if (!strcmp(trees, "all"))
		return true;
	l = g_strsplit(g_str_has_prefix(trees, "all but ") ? trees + 8 : trees, ", ", -1);
	for (int i = 0; l[i]; i++)
		in |= !strcmp(l[i], label);
	g_strfreev(l);
	return g_str_has_prefix(trees, "all but ") ? !in : in;
}

static json_t *header_row(json_t *abi, const char *arch, const char *label)
{
	json_t *row;
	size_t i;

	json_array_foreach(json_object_get(abi, "matrix"), i, row)
		if (!g_strcmp0(jstr(row, "arch"), arch) &&
		    trees_cover(jstr(row, "trees"), label))
			return row;
	return NULL;
}

/* "8*" -> 8; -1 when absent. */
static long header_value(json_t *row, const char *col)
{
	const char *v = jstr(row, col);
	char *end;
	long n;

	if (!v || !*v)
		return -1;
	n = strtol(v, &end, 10);
	return end == v ? -1 : n;
}

static long runtime_value(json_t *suite, const char *src, const char *name)
{
	json_t *v = json_object_get(json_object_get(suite, src), name);

	return json_is_integer(v) ? (long)json_integer_value(v) : -1;
}

static void add_row(struct report_table *t, char **cells)
{
	GPtrArray *row = g_ptr_array_new_with_free_func(g_free);

	for (int i = 0; cells[i]; i++)
		g_ptr_array_add(row, cells[i]);
	g_ptr_array_add(t->rows, row);
}

/* One number column: the agreed value, or every source's where they differ. */
static char *number_cell(long h, const long rt[3], GString *diff, const char *col)
{
	bool same = true;
	long ref = rt[2] >= 0 ? rt[2] : h;

	for (int s = 0; s < 3; s++)
		same &= rt[s] < 0 || rt[s] == ref;
	same &= h < 0 || h == ref;
	if (same)
		return ref < 0 ? g_strdup("-") : g_strdup_printf("%ld", ref);
	g_string_append_printf(diff, "%s%s: header %ld, uapi %ld, libc %ld, kernel %ld",
			       diff->len ? "; " : "", col, h, rt[0], rt[1], rt[2]);
	return g_strdup_printf("%ld/%ld/%ld/%ld!", h, rt[0], rt[1], rt[2]);
}

static void suite_row(struct report_table *t, json_t *abi, const struct rcell *c,
		      const char *suite, json_t *s)
{
	const char *harch = jstr(s, "header_arch");
	char *label = g_strdup_printf("%s@%s%s", c->version,
				      strcmp(c->step, "stock") ? "step/" : "", c->step);
	json_t *row = harch ? header_row(abi, harch, label) : NULL;
	char *cells[G_N_ELEMENTS(abi_names) + 7] = { 0 };
	GString *diff = g_string_new(NULL);
	int n = 0;

	cells[n++] = g_strdup(c->version);
	cells[n++] = g_strdup(c->arch);
	cells[n++] = g_strdup(suite);
	cells[n++] = g_strdup(c->step);
	cells[n++] = g_strdup(harch ? harch : "-");
	for (size_t i = 0; i < G_N_ELEMENTS(abi_names); i++) {
		long rt[3];

		for (int k = 0; k < 3; k++)
			rt[k] = runtime_value(s, sources[k], abi_names[i][1]);
		cells[n++] = number_cell(row ? header_value(row, abi_names[i][0]) : -1,
					 rt, diff, abi_names[i][0]);
	}
	cells[n++] = diff->len ? g_strdup(diff->str) :
		     g_strdup(row ? "header = uapi = libc = kernel" :
				    "uapi = libc = kernel (no header row)");
	add_row(t, cells);
	g_string_free(diff, TRUE);
	g_free(label);
}

/* The version x arch's last step that ran its tests. */
static const struct rcell *last_judged(const struct run *run, guint v, guint a)
{
	for (guint s = run->steps->len; s-- > 0;) {
		const struct rcell *c = run_cell_at(run, v, a, s);

		if (c && c->res && json_object_get(c->res, "abi_runtime"))
			return c;
	}
	return NULL;
}

static void headers_only_rows(struct report_table *t, json_t *abi, const struct run *run)
{
	json_t *h;
	size_t i;

	json_array_foreach(json_object_get(run->meta, "headers_only"), i, h) {
		for (guint v = 0; v < run->versions->len; v++) {
			const char *ver = run->versions->pdata[v];
			char *label = g_strdup_printf("%s@stock", ver);
			json_t *row = header_row(abi, jstr(h, "arch"), label);
			char *cells[G_N_ELEMENTS(abi_names) + 7] = { 0 };
			int n = 0;

			cells[n++] = g_strdup(ver);
			cells[n++] = g_strdup(jstr(h, "arch"));
			cells[n++] = g_strdup("-");
			cells[n++] = g_strdup("stock");
			cells[n++] = g_strdup(jstr(h, "arch"));
			for (size_t k = 0; k < G_N_ELEMENTS(abi_names); k++) {
				long x = row ? header_value(row, abi_names[k][0]) : -1;

				cells[n++] = x < 0 ? g_strdup("-") : g_strdup_printf("%ld", x);
			}
			cells[n++] = g_strdup_printf("not booted: %s", jstr(h, "reason"));
			add_row(t, cells);
			g_free(label);
		}
	}
}

/* The runtime numbering of the booted suites; NULL if none. */
static struct report_table *report_abi_runtime(const struct report *r)
{
	const struct run *run = r->run;
	json_t *abi = json_object_get(run->meta, "abi");
	struct report_table *t = report_table_new(
		"Booted: the numbering at run time beside the headers' (header/uapi/libc/kernel where they differ)");
	static const char *const head[] = { "version", "arch", "suite", "step", "header" };

	for (size_t i = 0; i < G_N_ELEMENTS(head); i++)
		g_ptr_array_add(t->cols, g_strdup(head[i]));
	for (size_t i = 0; i < G_N_ELEMENTS(abi_names); i++)
		g_ptr_array_add(t->cols, g_strdup(abi_names[i][0]));
	g_ptr_array_add(t->cols, g_strdup("check"));
	for (guint v = 0; v < run->versions->len; v++)
		for (guint a = 0; a < run->arches->len; a++) {
			const struct rcell *c = last_judged(run, v, a);
			const char *k;
			json_t *all, *s;

			if (!c)
				continue;
			all = json_object_get(c->res, "abi_runtime");

			/* the native suite first, then the compat ones */
			if ((s = json_object_get(all, c->arch)))
				suite_row(t, abi, c, c->arch, s);
			json_object_foreach(all, k, s)
				if (strcmp(k, c->arch))
					suite_row(t, abi, c, k, s);
		}
	headers_only_rows(t, abi, run);
	if (!t->rows->len) {
		report_table_free(t);
		return NULL;
	}
	return t;
}

static void words_row(struct report_table *t, const char *what, char *text)
{
	char *cells[] = { g_strdup(what), text, NULL };

	add_row(t, cells);
}

static char *plural(size_t n, const char *one)
{
	return n ? g_strdup_printf("%zu %s%s", n, one, n == 1 ? "" : "s") :
		   g_strdup("none");
}

/* "consistent", or "differs: " and each finding's message. */
static char *abi_verdict(json_t *abi)
{
	json_t *findings = json_object_get(abi, "findings"), *f;
	GString *out;
	size_t i;

	if (json_is_true(json_object_get(abi, "ok")) && !json_array_size(findings))
		return g_strdup("consistent");
	out = g_string_new("differs: ");
	json_array_foreach(findings, i, f)
		g_string_append_printf(out, "%s%s", i ? "; " : "", jstr(f, "message"));
	if (!json_array_size(findings))
		g_string_append(out, "rlimit-abi found a disagreement but named none");
	return g_string_free(out, FALSE);
}

/* "6.1 (3 of 3 arches), 7.2 (2 of 3 arches; baseline)" */
static char *abi_trees(json_t *trees)
{
	GString *out = g_string_new(NULL);
	json_t *t;
	size_t i;

	json_array_foreach(trees, i, t)
		g_string_append_printf(out, "%s%s (%.0f of %.0f arches%s)", i ? ", " : "",
				       jstr(t, "tree"), jnum(t, "arches_checked"),
				       jnum(t, "arches"),
				       json_is_true(json_object_get(t, "baseline")) ?
					       "; baseline" : "");
	if (!out->len)
		g_string_append(out, "none");
	return g_string_free(out, FALSE);
}

/* "x86_64 (x86_64-linux-gnu): checked" for each C library */
static char *abi_libcs(json_t *libc)
{
	GString *out = g_string_new(NULL);
	json_t *l;
	size_t i;

	json_array_foreach(libc, i, l)
		g_string_append_printf(out, "%s%s (%s): %s", i ? "; " : "", jstr(l, "arch"),
				       jstr(l, "triple"), jstr(l, "status"));
	if (!out->len)
		g_string_append(out, "none checked");
	return g_string_free(out, FALSE);
}

static void findings_table(GPtrArray *out, json_t *findings)
{
	static const char *const cols[][2] = {
		{ "check", "check" }, { "tree", "tree" }, { "arch", "arch" },
		{ "symbol", "symbol" }, { "file", "header" }, { "message", "what differs" },
	};
	struct report_table *t = report_table_new("What differs");
	json_t *f;
	size_t i;

	for (size_t c = 0; c < G_N_ELEMENTS(cols); c++)
		g_ptr_array_add(t->cols, g_strdup(cols[c][1]));
	json_array_foreach(findings, i, f) {
		GPtrArray *row = g_ptr_array_new_with_free_func(g_free);

		for (size_t c = 0; c < G_N_ELEMENTS(cols); c++)
			g_ptr_array_add(row, report_clean(jstr(f, cols[c][0])));
		g_ptr_array_add(t->rows, row);
	}
	g_ptr_array_add(out, t);
}

/*
 * rlimit-abi's JSON in a uapi maintainer's words: whether the headers
 * agree and what differs, the trees and C libraries checked, then the
 * numbers per arch and tree.  Lists it adds later still show, generically.
 */
GPtrArray *report_abi_tables(json_t *abi)
{
	static const char *const known[] = { "schema", "ok", "findings_count", "findings",
					     "trees", "libc", "matrix", "error", "exit",
					     "log", NULL };
	GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)report_table_free);
	struct report_table *kv = report_table_new("");
	json_t *findings = json_object_get(abi, "findings"), *v;
	const char *k;

	g_ptr_array_add(kv->cols, g_strdup("rlimit-abi"));
	g_ptr_array_add(kv->cols, g_strdup("result"));
	g_ptr_array_add(out, kv);
	if (*jstr(abi, "error")) {
		words_row(kv, "headers", g_strdup_printf("not checked: %s (exit %.0f; log %s)",
							 jstr(abi, "error"), jnum(abi, "exit"),
							 jstr(abi, "log")));
		return out;
	}
	words_row(kv, "headers across trees and arches", abi_verdict(abi));
	words_row(kv, "findings", plural(json_array_size(findings), "finding"));
	words_row(kv, "trees checked", abi_trees(json_object_get(abi, "trees")));
	words_row(kv, "C libraries", abi_libcs(json_object_get(abi, "libc")));
	if (json_array_size(findings))
		findings_table(out, findings);
	if (json_array_size(json_object_get(abi, "matrix")))
		report_abi_list(out, "RLIMIT numbers in the headers, per arch and tree",
				json_object_get(abi, "matrix"));
	json_object_foreach(abi, k, v)
		if (!g_strv_contains(known, k) && json_is_array(v) && json_array_size(v) &&
		    json_is_object(json_array_get(v, 0)))
			report_abi_list(out, k, v);
	return out;
}

GPtrArray *report_abi_section(const struct report *r)
{
	json_t *abi = json_object_get(r->run->meta, "abi");
	struct report_table *rt = report_abi_runtime(r);
	GPtrArray *tables;

	if (!json_is_object(abi) && !rt)
		return NULL;
	tables = json_is_object(abi) ? report_abi_tables(abi) :
		 g_ptr_array_new_with_free_func((GDestroyNotify)report_table_free);
	if (rt)
		g_ptr_array_insert(tables, 0, rt);
	return tables;
}
