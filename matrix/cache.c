// SPDX-License-Identifier: GPL-2.0
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"

char *cache_results_dir(const char *cache, const char *opt)
{
	if (opt && *opt)
		return g_canonicalize_filename(opt, NULL);
	return g_build_filename(cache, "results", NULL);
}

char *cache_project_top(void)
{
	const char *env = g_getenv("KMATRIX_TOP");
	char exe[PATH_MAX];
	ssize_t n;
	char *dir, *top;

	if (env && *env)
		return g_canonicalize_filename(env, NULL);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return g_get_current_dir();
	exe[n] = '\0';
	/* build/kmatrix or build/tests/test_x: climb to the directory holding matrix/ */
	dir = g_path_get_dirname(exe);
	while (strcmp(dir, "/") != 0) {
		char *conf = g_build_filename(dir, "matrix", "matrix.conf", NULL);
		gboolean found = g_file_test(conf, G_FILE_TEST_EXISTS);

		g_free(conf);
		if (found)
			return dir;
		top = g_path_get_dirname(dir);
		g_free(dir);
		dir = top;
	}
	g_free(dir);
	return g_get_current_dir();
}

gboolean cache_path_allowed(const char *path, const char *top, GError **err)
{
	char *p = g_canonicalize_filename(path, NULL);
	char *t = g_canonicalize_filename(top, NULL);
	size_t tl = strlen(t);
	gboolean inside = strncmp(p, t, tl) == 0 &&
			  (p[tl] == '/' || p[tl] == '\0');

	if (inside)
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "%s is inside the project repository %s: kernel trees, build directories and the cache must live outside it",
			    p, t);
	g_free(p);
	g_free(t);
	return !inside;
}
