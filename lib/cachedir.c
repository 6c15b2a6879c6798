// SPDX-License-Identifier: GPL-2.0
#include "cachedir.h"

char *cache_dir(const char *opt)
{
	const char *env;

	if (opt && *opt)
		return g_canonicalize_filename(opt, NULL);
	env = g_getenv("KMATRIX_CACHE");
	if (env && *env)
		return g_canonicalize_filename(env, NULL);
	env = g_getenv("XDG_CACHE_HOME");
	if (env && *env)
		return g_build_filename(env, "kmatrix", NULL);
	return g_build_filename(g_get_home_dir(), ".cache", "kmatrix", NULL);
}
