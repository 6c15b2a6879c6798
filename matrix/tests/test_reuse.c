// SPDX-License-Identifier: GPL-2.0
/*
 * reuse.c: a cell's result and its logs taken from another results
 * directory, only when this one has none, and never a result without the
 * logs a later judgement reads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "reuse.h"

static char *put(const char *dir, const char *name, const char *text)
{
	char *p = g_build_filename(dir, name, NULL);

	g_mkdir_with_parents(dir, 0755);
	assert_true(g_file_set_contents(p, text, -1, NULL));
	return p;
}

static char *slurp(const char *dir, const char *name)
{
	g_autofree char *p = g_build_filename(dir, name, NULL);
	char *text = NULL;

	if (!g_file_get_contents(p, &text, NULL, NULL))
		return NULL;
	return text;
}

static void test_seed(void **state)
{
	g_autofree char *top = g_dir_make_tmp("kmatrix-reuse-XXXXXX", NULL);
	g_autofree char *from = g_build_filename(top, "merged", NULL);
	g_autofree char *src = g_build_filename(from, "5.10", "x86_64", NULL);
	g_autofree char *res = g_build_filename(top, "results", NULL);
	g_autofree char *dst = g_build_filename(res, "5.10", "x86_64", NULL);
	char *text;

	g_free(put(src, "rt.json", "{\"step\": \"rt\"}"));
	g_free(put(src, "rt.console.log", "KTAP version 1\n"));
	g_free(put(src, "rtprio.json", "{\"step\": \"rtprio\"}"));
	g_mkdir_with_parents(dst, 0755);
	assert_true(reuse_seed(from, res, "5.10", "x86_64", "rt"));
	text = slurp(dst, "rt.console.log");
	assert_string_equal(text, "KTAP version 1\n");
	g_free(text);
	text = slurp(dst, "rt.json");
	assert_string_equal(text, "{\"step\": \"rt\"}");
	g_free(text);
	/* "rt." is not a prefix of "rtprio.": that step is not taken along */
	assert_null(slurp(dst, "rtprio.json"));
	/* a result already here wins: nothing is copied over it */
	g_free(put(dst, "rtprio.json", "{\"here\": true}"));
	assert_false(reuse_seed(from, res, "5.10", "x86_64", "rtprio"));
	text = slurp(dst, "rtprio.json");
	assert_string_equal(text, "{\"here\": true}");
	g_free(text);
	/* nothing to take: a step or an arch the other directory lacks */
	assert_false(reuse_seed(from, res, "5.10", "x86_64", "nice"));
	assert_false(reuse_seed(from, res, "5.10", "arm64", "rt"));
	assert_false(reuse_seed(from, res, "6.1", "x86_64", "rt"));
	g_autofree char *rm = g_strdup_printf("rm -rf '%s'", top);
	assert_int_equal(system(rm), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
