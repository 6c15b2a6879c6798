// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "merge.h"
#include "report.h"
#include "result.h"
#include "verbs.h"

#define MERGE_ERROR g_quark_from_static_string("kmatrix-merge")

/* "version/arch/step", each part a plain name: ids become paths. */
static bool cell_id_ok(const char *id)
{
	char **p = id ? g_strsplit(id, "/", -1) : NULL;
	bool ok = p && g_strv_length(p) == 3;

	for (int i = 0; ok && p[i]; i++)
		ok = *p[i] && strcmp(p[i], ".") && strcmp(p[i], "..");
	g_strfreev(p);
	return ok;
}

struct merge_src *merge_src_load(const char *dir, GError **err)
{
	char *path = g_build_filename(dir, "run.json", NULL);
	json_error_t jerr;
	json_t *run = json_load_file(path, 0, &jerr), *v;
	struct merge_src *s;
	size_t i;

	if (!run || strcmp(jstr(run, "schema"), "kmatrix-run/1") ||
	    !json_is_array(json_object_get(run, "cells"))) {
		g_set_error(err, MERGE_ERROR, 2, "%s: %s", path,
			    run ? "not a kmatrix-run/1 file with a list of cells" : jerr.text);
		json_decref(run);
		g_free(path);
		return NULL;
	}
	g_free(path);
	s = g_new0(struct merge_src, 1);
	s->dir = g_strdup(dir);
	s->run = run;
	s->cells = g_ptr_array_new_with_free_func(g_free);
	json_array_foreach(json_object_get(run, "cells"), i, v) {
		if (!cell_id_ok(json_string_value(v))) {
			g_set_error(err, MERGE_ERROR, 2, "%s/run.json: cell %zu is not version/arch/step",
				    dir, i);
			merge_src_free(s);
			return NULL;
		}
		g_ptr_array_add(s->cells, g_strdup(json_string_value(v)));
	}
	return s;
}

void merge_src_free(struct merge_src *s)
{
	if (!s)
		return;
	g_free(s->dir);
	json_decref(s->run);
	g_ptr_array_free(s->cells, TRUE);
	g_free(s);
}

static char *short_sha(const char *s)
{
	return g_strndup(s, 12);
}

/* A run-level digest every source must record and share. */
static char *same_digest(GPtrArray *srcs, const char *field, const char *what)
{
	const struct merge_src *a = srcs->pdata[0];

	for (guint i = 0; i < srcs->len; i++) {
		const struct merge_src *b = srcs->pdata[i];
		char *x, *y, *msg;

		if (!*jstr(b->run, field))
			return g_strdup_printf("%s/run.json records no %s (written by an older kmatrix): run it again",
					       b->dir, field);
		if (!strcmp(jstr(a->run, field), jstr(b->run, field)))
			continue;
		x = short_sha(jstr(a->run, field));
		y = short_sha(jstr(b->run, field));
		msg = g_strdup_printf("%s differ: %s has %s %s, %s has %s %s", what, a->dir,
				      field, x, b->dir, field, y);
		g_free(x);
		g_free(y);
		return msg;
	}
	return NULL;
}

static char *same_test_binaries(GPtrArray *srcs)
{
	for (guint i = 0; i < srcs->len; i++)
		for (guint k = 0; k < i; k++) {
			const struct merge_src *a = srcs->pdata[k], *b = srcs->pdata[i];
			json_t *ta = json_object_get(a->run, "test_binaries");
			json_t *tb = json_object_get(b->run, "test_binaries"), *v;
			const char *arch;

			json_object_foreach(tb, arch, v) {
				const char *x = jstr(ta, arch);

				if (*x && strcmp(x, json_string_value(v)))
					return g_strdup_printf("test binaries for %s differ: %s has %.12s, %s has %.12s",
							       arch, a->dir, x, b->dir,
							       json_string_value(v));
			}
		}
	return NULL;
}

static char *shard_text(json_t *sh)
{
	if (!sh)
		return g_strdup("not a shard");
	return g_strdup_printf("shard %d/%d", (int)json_integer_value(json_object_get(sh, "index")),
			       (int)json_integer_value(json_object_get(sh, "count")));
}

static char *same_split(GPtrArray *srcs)
{
	const struct merge_src *a = srcs->pdata[0];
	json_t *sa = json_object_get(a->run, "shard");

	for (guint i = 1; i < srcs->len; i++) {
		const struct merge_src *b = srcs->pdata[i];
		json_t *sb = json_object_get(b->run, "shard");
		char *x, *y, *msg = NULL;

		if (!sa && !sb)
			continue;
		x = shard_text(sa);
		y = shard_text(sb);
		if (!sa || !sb || jnum(sa, "count") != jnum(sb, "count"))
			msg = g_strdup_printf("%s is %s, %s is %s: not shards of one split",
					      a->dir, x, b->dir, y);
		else if (strcmp(jstr(sa, "split"), jstr(sb, "split")))
			msg = g_strdup_printf("%s (%s) and %s (%s) were split differently (split %.12s vs %.12s): give every shard the same --timings",
					      a->dir, x, b->dir, y, jstr(sa, "split"), jstr(sb, "split"));
		else if (!json_equal(json_object_get(sa, "plan"), json_object_get(sb, "plan")))
			msg = g_strdup_printf("%s and %s planned different cells", a->dir, b->dir);
		g_free(x);
		g_free(y);
		if (msg)
			return msg;
	}
	return NULL;
}

/* One cell from one source only; shards of the same index twice are that too. */
static char *no_overlap(GPtrArray *srcs)
{
	GHashTable *owner = g_hash_table_new(g_str_hash, g_str_equal);
	char *msg = NULL;

	for (guint i = 0; i < srcs->len && !msg; i++) {
		struct merge_src *s = srcs->pdata[i];

		for (guint c = 0; c < s->cells->len && !msg; c++) {
			const struct merge_src *o = g_hash_table_lookup(owner, s->cells->pdata[c]);

			if (o)
				msg = g_strdup_printf("cell %s is in both %s and %s",
						      (char *)s->cells->pdata[c], o->dir, s->dir);
			g_hash_table_insert(owner, s->cells->pdata[c], s);
		}
	}
	g_hash_table_destroy(owner);
	return msg;
}

static json_t *read_cell(const struct merge_src *s, const char *id)
{
	char **p = g_strsplit(id, "/", 3);
	char *path, *why = NULL;
	json_t *r = NULL;

	if (g_strv_length(p) == 3) {
		path = result_path(s->dir, p[0], p[1], p[2], ".json");
		r = result_read(path, p[0], p[1], p[2], &why);
		g_free(path);
		g_free(why);
	}
	g_strfreev(p);
	return r;
}

/* A cell's own inputs against its run's, and its commit against other runs'. */
static char *cell_check(const struct merge_src *s, const char *id, json_t *r,
			GHashTable *commits)
{
	json_t *in = json_object_get(r, "inputs");
	const char *want_bin = jstr(json_object_get(s->run, "test_binaries"), jstr(r, "arch"));
	char *vs = g_strdup_printf("%s/%s", jstr(r, "version"), jstr(r, "step"));
	const char *seen = g_hash_table_lookup(commits, vs);
	char *msg = NULL;

	if (*jstr(in, "expectations") && strcmp(jstr(in, "expectations"), jstr(s->run, "expectations")))
		msg = g_strdup_printf("expectations differ: %s/%s.json was judged against %.12s, its run against %.12s",
				      s->dir, id, jstr(in, "expectations"), jstr(s->run, "expectations"));
	else if (*jstr(in, "test_binary") && *want_bin && strcmp(jstr(in, "test_binary"), want_bin))
		msg = g_strdup_printf("test binaries differ: %s/%s.json ran %.12s, its run packed %.12s",
				      s->dir, id, jstr(in, "test_binary"), want_bin);
	else if (seen && *jstr(r, "commit") && strcmp(seen, jstr(r, "commit")))
		msg = g_strdup_printf("series differ: step %s is commit %.12s in %s/%s.json, %.12s elsewhere",
				      vs, jstr(r, "commit"), s->dir, id, seen);
	if (!seen && *jstr(r, "commit"))
		g_hash_table_insert(commits, vs, g_strdup(jstr(r, "commit")));
	else
		g_free(vs);
	return msg;
}

static char *cells_check(GPtrArray *srcs)
{
	GHashTable *commits = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	char *msg = NULL;

	for (guint i = 0; i < srcs->len && !msg; i++) {
		const struct merge_src *s = srcs->pdata[i];

		for (guint c = 0; c < s->cells->len && !msg; c++) {
			json_t *r = read_cell(s, s->cells->pdata[c]);

			if (r)
				msg = cell_check(s, s->cells->pdata[c], r, commits);
			json_decref(r);
		}
	}
	g_hash_table_destroy(commits);
	return msg;
}

char *merge_check(GPtrArray *srcs)
{
	char *msg = same_digest(srcs, "series", "series");

	if (!msg)
		msg = same_digest(srcs, "expectations", "expectations");
	if (!msg)
		msg = same_test_binaries(srcs);
	if (!msg)
		msg = same_split(srcs);
	if (!msg)
		msg = no_overlap(srcs);
	if (!msg)
		msg = cells_check(srcs);
	return msg;
}

static void add_unique_str(json_t *list, const char *s)
{
	json_t *v;
	size_t i;

	json_array_foreach(list, i, v)
		if (!strcmp(json_string_value(v), s))
			return;
	json_array_append_new(list, json_string(s));
}

/* The cells in plan order: the shards' shared plan, else every source's. */
static json_t *merged_cells(GPtrArray *srcs)
{
	json_t *sh = json_object_get(((struct merge_src *)srcs->pdata[0])->run, "shard");
	json_t *cells;

	if (sh)
		return json_deep_copy(json_object_get(sh, "plan"));
	cells = json_array();
	for (guint i = 0; i < srcs->len; i++) {
		const struct merge_src *s = srcs->pdata[i];

		for (guint c = 0; c < s->cells->len; c++)
			add_unique_str(cells, s->cells->pdata[c]);
	}
	return cells;
}

/* versions and arches in the order of the cells (version/arch/step). */
static void merged_axes(json_t *run, json_t *cells)
{
	json_t *versions = json_array(), *arches = json_array(), *v;
	size_t i;

	json_array_foreach(cells, i, v) {
		char **p = g_strsplit(json_string_value(v), "/", 3);

		if (g_strv_length(p) == 3) {
			add_unique_str(versions, p[0]);
			add_unique_str(arches, p[1]);
		}
		g_strfreev(p);
	}
	json_object_set_new(run, "versions", versions);
	json_object_set_new(run, "arches", arches);
}

static void merged_times(json_t *run, GPtrArray *srcs)
{
	const char *started = NULL, *finished = NULL;
	bool unfinished = false;
	json_t *hosts = json_array(), *bins = json_object();
	char *host;

	for (guint i = 0; i < srcs->len; i++) {
		json_t *r = ((struct merge_src *)srcs->pdata[i])->run;
		const char *s = jstr(r, "started"), *f = jstr(r, "finished");

		if (*s && (!started || strcmp(s, started) < 0))
			started = s;
		if (!*f)
			unfinished = true;
		else if (!finished || strcmp(f, finished) > 0)
			finished = f;
		add_unique_str(hosts, jstr(r, "host"));
		json_object_update_missing(bins, json_object_get(r, "test_binaries"));
	}
	json_object_set_new(run, "started", json_string(started ? started : ""));
	json_object_set_new(run, "finished", unfinished || !finished ? json_null() :
					     json_string(finished));
	host = report_jtext(hosts);
	json_object_set_new(run, "host", json_string(host));
	g_free(host);
	json_object_set_new(run, "test_binaries", bins);
	json_decref(hosts);
}

static json_t *merged_from(GPtrArray *srcs)
{
	json_t *from = json_array();

	for (guint i = 0; i < srcs->len; i++) {
		const struct merge_src *s = srcs->pdata[i];
		json_t *sh = json_object_get(s->run, "shard");
		char *what = shard_text(sh);

		json_array_append_new(from, json_pack("{s:s, s:s, s:s, s:s, s:i}", "dir", s->dir,
			"host", jstr(s->run, "host"), "project_commit", jstr(s->run, "project_commit"),
			"shard", sh ? what : "", "cells", (int)s->cells->len));
		g_free(what);
	}
	return from;
}

/* Each chain is in one shard: so is its exclusion. */
static json_t *merged_excluded(GPtrArray *srcs)
{
	json_t *all = json_array();

	for (guint i = 0; i < srcs->len; i++) {
		const struct merge_src *s = srcs->pdata[i];
		json_t *x = json_object_get(s->run, "excluded");

		if (json_is_array(x))
			json_array_extend(all, x);
	}
	return all;
}

json_t *merge_run(GPtrArray *srcs)
{
	json_t *first = ((struct merge_src *)srcs->pdata[0])->run;
	json_t *cells = merged_cells(srcs), *abi = merge_abi(srcs);
	json_t *run = json_pack("{s:s, s:s, s:s, s:s, s:o}", "schema", "kmatrix-run/1",
				"project_commit", jstr(first, "project_commit"),
				"series", jstr(first, "series"),
				"expectations", jstr(first, "expectations"),
				"merged_from", merged_from(srcs));

	merged_times(run, srcs);
	merged_axes(run, cells);
	json_object_set_new(run, "cells", cells);
	if (abi)
		json_object_set_new(run, "abi", abi);
	/* the same matrix.conf for every shard: the first one's says it */
	if (json_object_get(first, "headers_only"))
		json_object_set(run, "headers_only", json_object_get(first, "headers_only"));
	json_object_set_new(run, "excluded", merged_excluded(srcs));
	return run;
}

/* rlimit-abi's block without what differs between two runs of one check. */
static json_t *abi_stable(json_t *abi)
{
	json_t *a = json_deep_copy(abi), *t;
	size_t i;

	json_array_foreach(json_object_get(a, "trees"), i, t) {
		json_object_del(t, "seconds");
		json_object_del(t, "cached");
		json_object_del(t, "spec");
	}
	return a;
}

static void union_into(json_t *all, json_t *list)
{
	json_t *v, *w;
	size_t i, k;

	json_array_foreach(list, i, v) {
		bool dup = false;

		json_array_foreach(all, k, w)
			dup |= json_equal(v, w);
		if (!dup)
			json_array_append(all, v);
	}
}

/*
 * Shards of different versions each checked their own trees: keep every
 * tree, finding and row.  Checks across versions ("moved") ran only within
 * each shard's trees, which the note says.
 */
static json_t *abi_union(GPtrArray *blocks)
{
	json_t *out = json_pack("{s:s, s:b, s:[], s:[], s:[], s:[]}", "schema", "rlimit-abi/1",
				"ok", 1, "trees", "findings", "libc", "matrix");
	static const char *const lists[] = { "trees", "findings", "libc", "matrix" };

	for (guint i = 0; i < blocks->len; i++) {
		json_t *b = blocks->pdata[i];

		for (size_t l = 0; l < G_N_ELEMENTS(lists); l++)
			union_into(json_object_get(out, lists[l]), json_object_get(b, lists[l]));
		if (!json_is_true(json_object_get(b, "ok")))
			json_object_set_new(out, "ok", json_false());
	}
	json_object_set_new(out, "findings_count",
			    json_integer(json_array_size(json_object_get(out, "findings"))));
	json_object_set_new(out, "note", json_sprintf(
		"merged from %u shards' checks: rows and the 'moved' check hold within each shard's trees",
		blocks->len));
	return out;
}

json_t *merge_abi(GPtrArray *srcs)
{
	GPtrArray *blocks = g_ptr_array_new_with_free_func((GDestroyNotify)json_decref);
	json_t *first = NULL, *out;
	bool same = true;

	for (guint i = 0; i < srcs->len; i++) {
		json_t *abi = json_object_get(((struct merge_src *)srcs->pdata[i])->run, "abi");

		if (!json_is_object(abi))
			continue;
		if (!first)
			first = abi;
		g_ptr_array_add(blocks, abi_stable(abi));
		same &= json_equal(blocks->pdata[0], blocks->pdata[blocks->len - 1]);
	}
	if (!first)
		out = NULL;
	else if (same)
		out = json_deep_copy(first);
	else
		out = abi_union(blocks);
	g_ptr_array_free(blocks, TRUE);
	return out;
}

/* The cell's result and logs (<step>.*), and its version's apply log. */
static int copy_cell(const struct merge_src *s, const char *id, const char *out, GError **err)
{
	char **p = g_strsplit(id, "/", 3);
	int rc = result_copy_cell(s->dir, out, p[0], p[1], p[2], err);

	g_strfreev(p);
	return rc;
}

static gboolean dir_empty(const char *dir)
{
	GDir *d = g_dir_open(dir, 0, NULL);
	gboolean empty = !d || !g_dir_read_name(d);

	if (d)
		g_dir_close(d);
	return empty;
}

int merge_dirs(GPtrArray *srcs, const char *out, GError **err)
{
	char *msg = merge_check(srcs), *path;
	json_t *run;
	int rc = 0;

	if (msg) {
		g_set_error(err, MERGE_ERROR, 2, "refusing to merge: %s", msg);
		g_free(msg);
		return -1;
	}
	if (!dir_empty(out)) {
		g_set_error(err, MERGE_ERROR, 2, "%s is not empty: merge writes a new results directory", out);
		return -1;
	}
	g_mkdir_with_parents(out, 0755);
	for (guint i = 0; i < srcs->len && !rc; i++) {
		const struct merge_src *s = srcs->pdata[i];

		for (guint c = 0; c < s->cells->len && !rc; c++)
			rc = copy_cell(s, s->cells->pdata[c], out, err);
	}
	if (rc)
		return -1;
	run = merge_run(srcs);
	path = g_build_filename(out, "run.json", NULL);
	rc = result_write(path, run, err);
	g_free(path);
	json_decref(run);
	return rc;
}

static guint count_results(const char *out, json_t *run)
{
	guint n = 0;
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(run, "cells"), i, v) {
		char **p = g_strsplit(json_string_value(v), "/", 3);
		char *path = result_path(out, p[0], p[1], p[2], ".json");

		n += g_file_test(path, G_FILE_TEST_EXISTS);
		g_free(path);
		g_strfreev(p);
	}
	return n;
}

int cmd_merge(int argc, char **argv)
{
	char *out = NULL;
	GOptionEntry entries[] = {
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &out,
		  "The merged results directory (new or empty)", "DIR" },
		{ NULL }
	};
	GPtrArray *srcs = g_ptr_array_new_with_free_func((GDestroyNotify)merge_src_free);
	GError *err = NULL;
	int rc = 0;

	if (!verb_parse("merge", "DIR...",
		       "Combine results directories (the shards of run --shard, or runs of other\n"
		       "versions on other machines) into one that report and status read.  Refuses\n"
		       "results whose series, expectations or test binary differ.",
		       entries, &argc, &argv, &rc))
		return rc;
	if (!out || argc < 2) {
		g_printerr("kmatrix merge: needs -o DIR and at least one results directory\n");
		return 2;
	}
	for (int i = 1; i < argc && !rc; i++) {
		struct merge_src *s = merge_src_load(argv[i], &err);

		if (s)
			g_ptr_array_add(srcs, s);
		else
			rc = 2;
	}
	if (!rc && merge_dirs(srcs, out, &err) < 0)
		rc = 2;
	if (rc) {
		g_printerr("kmatrix merge: %s\n", err->message);
		g_error_free(err);
	} else {
		char *path = g_build_filename(out, "run.json", NULL);
		json_t *run = json_load_file(path, 0, NULL);
		size_t planned = json_array_size(json_object_get(run, "cells"));

		g_printerr("kmatrix: merged %u of %zu planned cells from %u directories into %s\n",
			   count_results(out, run), planned, srcs->len, out);
		json_decref(run);
		g_free(path);
	}
	g_ptr_array_free(srcs, TRUE);
	g_free(out);
	return rc;
}
