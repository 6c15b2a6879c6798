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

/*
 * Where @path really is: symlinks resolved in the part that exists, the
 * rest (not made yet) appended as it is.
 */
static char *real_location(const char *path)
{
	char *p = g_canonicalize_filename(path, NULL);
	char *base = g_strdup(p), *rest = g_strdup(""), *real, *out;

	while (!(real = realpath(base, NULL)) && strcmp(base, "/")) {
		char *name = g_path_get_basename(base), *dir = g_path_get_dirname(base);
		char *r = *rest ? g_build_filename(name, rest, NULL) : g_strdup(name);

		g_free(rest);
		g_free(name);
		g_free(base);
		rest = r;
		base = dir;
	}
	out = real ? g_build_filename(real, rest, NULL) : g_strdup(p);
	free(real);
	g_free(base);
	g_free(rest);
	g_free(p);
	return out;
}

gboolean cache_path_under(const char *path, const char *dir)
{
	char *p = real_location(path);
	char *d = real_location(dir);
	size_t n = strlen(d);
	gboolean under = strncmp(p, d, n) == 0 && (p[n] == '/' || p[n] == '\0');

	g_free(p);
	g_free(d);
	return under;
}

gboolean cache_path_allowed(const char *path, const char *top, GError **err)
{
	gboolean inside = cache_path_under(path, top);

	if (inside) {
		char *p = real_location(path), *t = real_location(top);

		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "%s is inside the project repository %s: kernel trees, build directories, the cache and results must live outside it",
			    p, t);
		g_free(p);
		g_free(t);
	}
	return !inside;
}
