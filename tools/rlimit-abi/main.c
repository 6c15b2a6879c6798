// SPDX-License-Identifier: GPL-2.0
/*
 * rlimit-abi [--json FILE] [--cache DIR] [--baseline TREE]... TREE...
 *
 * Exit 0 when every check passes, 1 on any ABI break, 2 on usage errors.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "abi.h"
#include "cachedir.h"
#include "run.h"

#define VALUES_SCHEMA "rlimit-abi-values/2"

static char *opt_json;
static char *opt_cache;
static char **opt_baseline;
static gboolean opt_quiet;

static const GOptionEntry entries[] = {
	{ "json", 0, 0, G_OPTION_ARG_FILENAME, &opt_json,
	  "Write the report as JSON to FILE", "FILE" },
	{ "cache", 0, 0, G_OPTION_ARG_FILENAME, &opt_cache,
	  "Cache directory (default $KMATRIX_CACHE, $XDG_CACHE_HOME/kmatrix, ~/.cache/kmatrix)",
	  "DIR" },
	{ "baseline", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_baseline,
	  "A tree that predates RLIMIT_NICE/RLIMIT_RTPRIO (13 and 14 may be absent)",
	  "TREE" },
	{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &opt_quiet, "Print findings only",
	  NULL },
	{ NULL },
};

static bool load_cached(struct abi_tree *t, const char *file)
{
	json_t *root = json_load_file(file, 0, NULL), *arches;
	const char *name;
	json_t *o;

	if (!root)
		return false;
	if (g_strcmp0(json_string_value(json_object_get(root, "schema")),
		      VALUES_SCHEMA)) {
		json_decref(root);
		return false;
	}
	arches = json_object_get(root, "arches");
	json_object_foreach(arches, name, o)
		g_ptr_array_add(t->arches, abi_arch_from_json(name, o));
	json_decref(root);
	return true;
}

static int cmp_arch(gconstpointer a, gconstpointer b)
{
	return strcmp((*(struct abi_arch *const *)a)->name,
		      (*(struct abi_arch *const *)b)->name);
}

static void rm_rf(const char *path)
{
	char *argv[] = { "rm", "-rf", (char *)path, NULL };

	abi_run(argv, NULL, NULL, NULL);
}

/*
 * Install and extract every arch into a private directory, then rename it
 * to abi/<hash>, so concurrent runs on the same tree never share a half.
 */
static bool scan_tree(struct abi_tree *t, const char *dst, GError **error)
{
	char *tmp = g_strdup_printf("%s.%d.tmp", dst, (int)getpid());
	char *file = g_build_filename(tmp, "values.json", NULL);
	GPtrArray *names = abi_tree_arch_names(t->src);
	json_t *root, *arches = json_object();
	char *unifdef;
	bool ok = false;

	rm_rf(tmp);
	unifdef = abi_unifdef(t->src, tmp, error);
	if (!unifdef)
		goto out;
	for (guint i = 0; i < names->len; i++) {
		const char *name = names->pdata[i];
		char *work = g_build_filename(tmp, name, NULL);
		GHashTable *origin = g_hash_table_new_full(
			g_str_hash, g_str_equal, g_free, g_free);
		struct abi_arch *a = abi_arch_new(name);

		if (abi_install_arch(t->src, work, name, a, origin) &&
		    abi_extract_arch(t->src, work, a, origin))
			abi_extract_kernel(t->src, work, a);
		g_ptr_array_add(t->arches, a);
		json_object_set_new(arches, name, abi_arch_to_json(a));
		g_hash_table_destroy(origin);
		g_free(work);
	}
	root = json_pack("{s:s, s:s, s:o}", "schema", VALUES_SCHEMA, "tree",
			 t->hash, "arches", arches);
	ok = json_dump_file(root, file, JSON_INDENT(1) | JSON_SORT_KEYS) == 0;
	json_decref(root);
	if (ok && g_rename(tmp, dst) != 0) {
		/* another run got there first: its result is as good as ours */
		rm_rf(tmp);
	}
	if (!ok)
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
			    "cannot write %s", file);
out:
	g_free(unifdef);
	g_free(tmp);
	g_free(file);
	g_ptr_array_free(names, TRUE);
	return ok;
}

static struct abi_tree *load_tree(const char *spec, bool baseline,
				  const char *cache, GError **error)
{
	struct abi_tree *t = abi_tree_open(spec, baseline, cache, error);
	gint64 start = g_get_monotonic_time();
	char *dst, *file;

	if (!t)
		return NULL;
	dst = g_build_filename(cache, "abi", t->hash, NULL);
	file = g_build_filename(dst, "values.json", NULL);
	t->cached = load_cached(t, file);
	if (!t->cached &&
	    (!abi_tree_materialize(t, error) || !scan_tree(t, dst, error))) {
		abi_tree_free(t);
		t = NULL;
	}
	if (t) {
		g_ptr_array_sort(t->arches, cmp_arch);
		t->seconds = (g_get_monotonic_time() - start) / 1e6;
	}
	g_free(dst);
	g_free(file);
	return t;
}

static bool write_json(json_t *report, const char *path)
{
	if (!strcmp(path, "-"))
		return json_dumpf(report, stdout, JSON_INDENT(1)) == 0 &&
		       puts("") >= 0;
	return json_dump_file(report, path, JSON_INDENT(1)) == 0;
}

static void print_report(GPtrArray *trees, GPtrArray *libcs,
			 GPtrArray *findings)
{
	for (guint i = 0; !opt_quiet && i < trees->len; i++) {
		const struct abi_tree *t = trees->pdata[i];
		char *table = abi_table(t, findings);

		printf("== %s%s  tree %s  %s %.1f s\n%s\n", t->label,
		       t->baseline ? " (baseline)" : "", t->hash,
		       t->cached ? "cached" : "scanned", t->seconds, table);
		g_free(table);
	}
	if (!opt_quiet) {
		printf("glibc:");
		for (guint i = 0; i < libcs->len; i++) {
			const struct abi_libc *l = libcs->pdata[i];

			printf(" %s=%s", l->arch,
			       l->detail ? "skipped" : l->triple);
		}
		printf("\nmarks: ! finding, * differs from most arches, - not defined\n");
	}
	for (guint i = 0; i < findings->len; i++)
		printf("FAIL [%s] %s\n",
		       ((struct abi_finding *)findings->pdata[i])->check,
		       ((struct abi_finding *)findings->pdata[i])->message);
	printf("rlimit-abi: %u tree(s), %u finding(s)\n", trees->len,
	       findings->len);
}

static int run(char **specs, int n)
{
	char *cache = cache_dir(opt_cache);
	GPtrArray *trees =
		g_ptr_array_new_with_free_func((GDestroyNotify)abi_tree_free);
	GPtrArray *findings = g_ptr_array_new_with_free_func(
		(GDestroyNotify)abi_finding_free);
	GPtrArray *libcs = NULL;
	int rc = 2;

	for (int i = 0;
	     i < n + (opt_baseline ? (int)g_strv_length(opt_baseline) : 0);
	     i++) {
		bool baseline = i >= n;
		GError *error = NULL;
		struct abi_tree *t =
			load_tree(baseline ? opt_baseline[i - n] : specs[i],
				  baseline, cache, &error);

		if (!t) {
			fprintf(stderr, "rlimit-abi: %s\n", error->message);
			g_error_free(error);
			goto out;
		}
		g_ptr_array_add(trees, t);
	}
	libcs = abi_libc_scan(cache);
	for (guint i = 0; i < trees->len; i++) {
		const struct abi_tree *t = trees->pdata[i];

		for (guint k = 0; k < t->arches->len; k++)
			abi_check_arch(t, t->arches->pdata[k], findings);
		abi_check_libc(t, libcs, findings);
	}
	abi_check_trees(trees, findings);
	print_report(trees, libcs, findings);
	rc = findings->len ? 1 : 0;
	if (opt_json) {
		json_t *report = abi_report_json(trees, libcs, findings);

		if (!write_json(report, opt_json)) {
			fprintf(stderr, "rlimit-abi: cannot write %s\n",
				opt_json);
			rc = 2;
		}
		json_decref(report);
	}
out:
	if (libcs)
		g_ptr_array_free(libcs, TRUE);
	g_ptr_array_free(findings, TRUE);
	g_ptr_array_free(trees, TRUE);
	g_free(cache);
	return rc;
}

int main(int argc, char **argv)
{
	GOptionContext *ctx = g_option_context_new(
		"TREE... - check the rlimit uapi ABI of kernel trees");
	GError *error = NULL;
	int rc;

	run_set_name("rlimit-abi");

	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_description(
		ctx,
		"TREE is a kernel source directory or DIR@REV (a git revision of DIR).\n"
		"Exit status: 0 clean, 1 ABI break, 2 usage error.\n");
	if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
		fprintf(stderr, "rlimit-abi: %s\n", error->message);
		g_error_free(error);
		g_option_context_free(ctx);
		return 2;
	}
	g_option_context_free(ctx);
	if (argc < 2 && !opt_baseline) {
		fprintf(stderr,
			"usage: rlimit-abi [--json FILE] [--cache DIR] [--baseline TREE]... TREE...\n");
		return 2;
	}
	rc = run(argv + 1, argc - 1);
	g_free(opt_json);
	g_free(opt_cache);
	g_strfreev(opt_baseline);
	return rc;
}
