// SPDX-License-Identifier: GPL-2.0
/*
 * kmatrix sandbox -- CMD...: run CMD in the sandbox the stages run in, for
 * scripts and people that work in the cache's trees (the ABI check, a look
 * at a failed build).  The trees belong to the build user and untrusted
 * builds wrote them: git or make run there as root could be led to run a
 * planted hook or rule as root.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cache.h"
#include "lock.h"
#include "run.h"
#include "sandbox.h"
#include "verbs.h"

/*
 * The lock decides whether the cache may change owners now: a run on it
 * (perhaps an older kmatrix, as root) must not find its files given away.
 * Without the lock the command runs all the same: reading needs no owner.
 */
static int try_lock(const char *cache, bool *own)
{
	GError *err = NULL;
	int lock = lock_take(cache, &err);

	*own = lock != -1;
	if (err) {
		g_printerr("kmatrix: %s: leaving the owners in the cache as they are\n", err->message);
		g_error_free(err);
	}
	return lock;
}

static int run_in(struct sandbox *sb, char **argv)
{
	struct child c = { .argv = argv, .log = "/dev/stderr", .out = "/dev/stdout" };
	int rc;

	run_signals_install();
	run_set_sandbox(sb);
	rc = run_command(&c);
	if (rc < 0)
		rc = run_stop_signal() ? 128 + run_stop_signal() : 127;
	run_set_sandbox(NULL);
	return rc;
}

int cmd_sandbox(int argc, char **argv)
{
	char *cache_opt = NULL, *results_opt = NULL, **ro = NULL;
	GOptionEntry entries[] = {
		{ "cache", 0, 0, G_OPTION_ARG_FILENAME, &cache_opt, "Cache directory", "DIR" },
		{ "results", 0, 0, G_OPTION_ARG_FILENAME, &results_opt, "Results directory", "DIR" },
		{ "ro", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &ro,
		  "Also show DIR, read-only (e.g. under /tmp, which the sandbox replaces)", "DIR" },
		{ NULL }
	};
	char *cache, *results, *top;
	struct sandbox sb = { 0 };
	GError *err = NULL;
	int lock = -1, rc = 2;
	bool own = false;

	if (!verb_parse("sandbox", "-- COMMAND...",
		       "Run COMMAND as kmatrix's stages run: as the build user, without network,\n"
		       "writing only the cache and results.  Exit status: COMMAND's.",
		       entries, &argc, &argv, &rc))
		goto out;
	/* GOption leaves the "--" that ends kmatrix's own options. */
	if (argc > 1 && !g_strcmp0(argv[1], "--")) {
		argv++;
		argc--;
	}
	rc = 2;
	if (argc < 2) {
		g_printerr("kmatrix sandbox: no command (see kmatrix sandbox --help)\n");
		goto out;
	}
	cache = cache_dir(cache_opt);
	results = cache_results_dir(cache, results_opt);
	top = cache_project_top();
	if (cache_path_allowed(cache, top, &err) && cache_path_allowed(results, top, &err)) {
		lock = try_lock(cache, &own);
		if (sandbox_open(&sb, cache, results, top, own, &err)) {
			for (int i = 0; ro && ro[i]; i++)
				sandbox_show(&sb, ro[i]);
			rc = run_in(&sb, argv + 1);
		}
	}
	if (err) {
		g_printerr("kmatrix: %s\n", err->message);
		g_error_free(err);
	}
	lock_release(lock);
	sandbox_clear(&sb);
	g_free(cache);
	g_free(results);
	g_free(top);
out:
	g_strfreev(ro);
	g_free(cache_opt);
	g_free(results_opt);
	return rc;
}
