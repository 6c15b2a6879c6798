// SPDX-License-Identifier: GPL-2.0
/*
 * kmatrix clean: remove what a run made in the cache.  Build directories
 * and results by default; trees (re-laid from the packages) and ccache only
 * when asked.  Every version's (no --versions) only when confirmed: y on a
 * terminal, or --yes.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "conf.h"
#include "lock.h"
#include "run.h"
#include "sandbox.h"
#include "verbs.h"

static bool dry_run;

static int remove_dir(const char *path)
{
	char *argv[] = { "rm", "-rf", (char *)path, NULL };
	struct child c = { .argv = argv };

	if (!g_file_test(path, G_FILE_TEST_EXISTS))
		return 0;
	if (dry_run) {
		/* the product of a dry run: the list, on stdout */
		printf("would remove %s\n", path);
		return 0;
	}
	g_printerr("kmatrix: removing %s\n", path);
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

/* --versions, each one of the matrix's (the default matrix.conf). */
static gboolean pick_versions(const char *top, const char *arg, char ***out, GError **err)
{
	struct matrix_conf *m;
	char **names;
	gboolean ok;

	*out = NULL;
	if (!arg)
		return TRUE;
	m = conf_open(top, NULL, err);
	if (!m)
		return FALSE;
	names = conf_version_names(m);
	ok = conf_pick("--versions", arg, (const char *const *)names, out, err);
	g_strfreev(names);
	conf_free(m);
	return ok;
}

/*
 * Cleaning every version: asked on a terminal, refused without one unless
 * --yes (a script that means it says so).
 */
static gboolean confirmed(const char *cache, gboolean yes, GError **err)
{
	char answer[16] = "";

	if (yes || dry_run)
		return TRUE;
	if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO)) {
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_PERM,
			    "without --versions this removes every version's build "
			    "directories and results under %s: give --yes (or see --dry-run)", cache);
		return FALSE;
	}
	fprintf(stderr, "kmatrix: remove every version's build directories and results "
		"under %s? [y/N] ", cache);
	if (!fgets(answer, sizeof(answer), stdin) || (strcmp(answer, "y\n") &&
						      strcmp(answer, "yes\n"))) {
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_PERM, "nothing removed");
		return FALSE;
	}
	return TRUE;
}

int cmd_clean(int argc, char **argv)
{
	gboolean trees = FALSE, ccache = FALSE, keep_results = FALSE, dry = FALSE, yes = FALSE;
	g_autofree char *cache_opt = NULL, *results_opt = NULL, *versions_opt = NULL;
	GOptionEntry entries[] = {
		{ "versions", 0, 0, G_OPTION_ARG_STRING, &versions_opt, "Only these versions", "LIST" },
		{ "trees", 0, 0, G_OPTION_ARG_NONE, &trees, "Also remove the kernel trees (re-laid from the packages)", NULL },
		{ "ccache", 0, 0, G_OPTION_ARG_NONE, &ccache, "Also empty the compiler cache", NULL },
		{ "keep-results", 0, 0, G_OPTION_ARG_NONE, &keep_results, "Keep the results", NULL },
		{ "dry-run", 'n', 0, G_OPTION_ARG_NONE, &dry,
		  "List what would be removed; remove nothing", NULL },
		{ "yes", 0, 0, G_OPTION_ARG_NONE, &yes,
		  "Without --versions: remove every version's without asking", NULL },
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
		       "Remove build directories and results from the cache (trees and ccache on request).  "
		       "Without --versions every version's: asked on a terminal, else only with --yes.  "
		       "Exit status: 0 removed, 1 a removal failed, 2 a usage error or not confirmed.",
		       entries, &argc, &argv, &rc))
		return rc;
	if (argc > 1) {
		g_printerr("kmatrix clean: unexpected argument '%s'\n", argv[1]);
		return 2;
	}
	dry_run = dry;
	cache = cache_dir(cache_opt);
	results = cache_results_dir(cache, results_opt);
	top = cache_project_top();
	lock = -1;
	versions = NULL;
	if (!pick_versions(top, versions_opt, &versions, &err) ||
	    !cache_path_allowed(cache, top, &err) || !cache_path_allowed(results, top, &err) ||
	    (!versions && !confirmed(cache, yes, &err)) ||
	    (lock = lock_take(cache, &err)) < 0 || !sandbox_open(&sb, cache, results, top, true, &err)) {
		g_printerr("kmatrix clean: %s\n", err->message);
		g_error_free(err);
		lock_release(lock);
		sandbox_clear(&sb);
		g_strfreev(versions);
		g_free(results);
		g_free(cache);
		g_free(top);
		return 2;
	}
	run_set_sandbox(&sb);
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
