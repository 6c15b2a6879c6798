// SPDX-License-Identifier: GPL-2.0
/*
 * The cache directory (lib/cachedir.c, which rlimit-abi links too): --cache
 * first, then $KMATRIX_CACHE, $XDG_CACHE_HOME/kmatrix, ~/.cache/kmatrix.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cache.h"

static void expect_dir(const char *opt, const char *want)
{
	char *got = cache_dir(opt);

	assert_string_equal(got, want);
	g_free(got);
}

static void test_precedence(void **state)
{
	char *home = g_build_filename(g_get_home_dir(), ".cache", "kmatrix", NULL);

	g_unsetenv("KMATRIX_CACHE");
	g_unsetenv("XDG_CACHE_HOME");
	expect_dir(NULL, home);
	g_setenv("XDG_CACHE_HOME", "/xdg", TRUE);
	expect_dir(NULL, "/xdg/kmatrix");
	/* empty means unset, as a shell's VAR= does */
	g_setenv("KMATRIX_CACHE", "", TRUE);
	expect_dir("", "/xdg/kmatrix");
	g_setenv("KMATRIX_CACHE", "/km/./c/", TRUE);
	expect_dir(NULL, "/km/c");
	expect_dir("/opt/../o", "/o");
	g_free(home);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_precedence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
