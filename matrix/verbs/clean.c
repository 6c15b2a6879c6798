// SPDX-License-Identifier: GPL-2.0
/*
 * kmatrix clean: remove what a run made in the cache.  Build directories
 * and results by default; trees (re-laid from the packages) and ccache only
 * when asked.
 */
#include <stdio.h>

#include "cache.h"
#include "lock.h"
#include "run.h"
#include "sandbox.h"
#include "verbs.h"

static int remove_dir(const char *path)
{
	char *argv[] = { "rm", "-rf", (char *)path, NULL };
	struct child c = { .argv = argv };

	if (!g_file_test(path, G_FILE_TEST_EXISTS))
		return 0;
	printf("kmatrix: removing %s\n", path);
	return run_command(&c) == 0 ? 0 : 1;
}

static int remove_each(const char *parent, char **versions)
{
	int rc = 0;

	if (!versions)
		return remove_dir(parent);
	for (int i = 0; versions[i]; i++) {
		char *p = g_build_filename(parent, versions[i], NULL);

		rc |= remove_dir(p);
		g_free(p);
	}
	return rc;
}

int cmd_clean(int argc, char **argv)
{
	gboolean trees = FALSE, ccache = FALSE, keep_results = FALSE;
	char *cache_opt = NULL, *results_opt = NULL, *versions_opt = NULL;
	GOptionEntry entries[] = {
		{ "versions", 0, 0, G_OPTION_ARG_STRING, &versions_opt, "Only these versions", "LIST" },
		{ "trees", 0, 0, G_OPTION_ARG_NONE, &trees, "Also remove the kernel trees (re-laid from the packages)", NULL },
		{ "ccache", 0, 0, G_OPTION_ARG_NONE, &ccache, "Also empty the compiler cache", NULL },
		{ "keep-results", 0, 0, G_OPTION_ARG_NONE, &keep_results, "Keep the results", NULL },
		{ "cache", 0, 0, G_OPTION_ARG_FILENAME, &cache_opt, "Cache directory", "DIR" },
		{ "results", 0, 0, G_OPTION_ARG_FILENAME, &results_opt, "Results directory", "DIR" },
		{ NULL }
	};
	char **versions;
	char *cache, *results, *dir, *top;
	struct sandbox sb = { 0 };
	GError *err = NULL;
	int lock, rc = 0;

	if (!verb_parse("clean", NULL,
		       "Remove build directories and results from the cache (trees and ccache on request).",
		       entries, &argc, &argv, &rc))
		return rc;
	cache = cache_dir(cache_opt);
	results = cache_results_dir(cache, results_opt);
	top = cache_project_top();
	lock = -1;
	if (!cache_path_allowed(cache, top, &err) || !cache_path_allowed(results, top, &err) ||
	    (lock = lock_take(cache, &err)) < 0 || !sandbox_open(&sb, cache, results, top, true, &err)) {
		g_printerr("kmatrix: %s\n", err->message);
		g_error_free(err);
		lock_release(lock);
		sandbox_clear(&sb);
		return 2;
	}
	run_set_sandbox(&sb);
	versions = versions_opt ? g_strsplit_set(versions_opt, ",;", -1) : NULL;
	dir = g_build_filename(cache, "build", NULL);
	rc |= remove_each(dir, versions);
	g_free(dir);
	/* stored images are not per version: any clean drops them all */
	dir = g_build_filename(cache, "images", NULL);
	rc |= remove_dir(dir);
	g_free(dir);
	if (!keep_results)
		rc |= remove_each(results, versions);
	if (trees) {
		dir = g_build_filename(cache, "trees", NULL);
		rc |= remove_each(dir, versions);
		g_free(dir);
	}
	if (ccache) {
		dir = g_build_filename(cache, "ccache", NULL);
		rc |= remove_dir(dir);
		g_free(dir);
	}
	lock_release(lock);
	run_set_sandbox(NULL);
	sandbox_clear(&sb);
	g_strfreev(versions);
	g_free(results);
	g_free(cache);
	g_free(top);
	return rc;
}
