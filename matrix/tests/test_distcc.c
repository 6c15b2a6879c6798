// SPDX-License-Identifier: GPL-2.0
/*
 * Distributed compiling: the host list comes from the option or the
 * environment, reaches ccache and distcc only through the environment, and
 * leaves make's command line exactly as a local build has it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "cell.h"
#include "distcc.h"

static void test_hosts_option_then_env(void **state)
{
	char *h;

	g_setenv(DISTCC_HOSTS_ENV, "198.18.1.2/2 198.18.2.2/2", TRUE);
	h = distcc_hosts(NULL);
	assert_string_equal(h, "198.18.1.2/2 198.18.2.2/2");
	g_free(h);
	h = distcc_hosts(" farm1/8 ");
	assert_string_equal(h, "farm1/8");
	g_free(h);
	/* An empty option turns the environment's farm off for one run. */
	assert_null(distcc_hosts(""));
	g_setenv(DISTCC_HOSTS_ENV, "  ", TRUE);
	assert_null(distcc_hosts(NULL));
	g_unsetenv(DISTCC_HOSTS_ENV);
	assert_null(distcc_hosts(NULL));
}

static struct cell *fake_cell(struct arch_conf *a, const char *distcc)
{
	struct cell *c = g_new0(struct cell, 1);

	a->kernel_arch = "arm64";
	a->cross_compile = "aarch64-linux-gnu-";
	c->a = a;
	c->cache = "/var/cache/km";
	c->build_dir = "/var/cache/km/build/5.10/arm64";
	c->distcc = distcc;
	return c;
}

static char *joined(GPtrArray *argv)
{
	g_ptr_array_add(argv, NULL);
	return g_strjoinv("|", (char **)argv->pdata);
}

static void test_make_line_unchanged(void **state)
{
	struct arch_conf a = { 0 };
	struct cell *local = fake_cell(&a, NULL);
	struct cell *farm = fake_cell(&a, "198.18.1.2/2");
	GPtrArray *la = cell_make_argv(local, "olddefconfig");
	GPtrArray *fa = cell_make_argv(farm, "olddefconfig");
	char *l = joined(la), *f = joined(fa);

	assert_string_equal(l, f);
	assert_non_null(strstr(l, "|CC=ccache aarch64-linux-gnu-gcc|"));
	g_free(l);
	g_free(f);
	g_ptr_array_free(la, TRUE);
	g_ptr_array_free(fa, TRUE);
	g_free(local);
	g_free(farm);
}

static void test_env(void **state)
{
	struct arch_conf a = { 0 };
	struct cell *local = fake_cell(&a, NULL);
	struct cell *farm = fake_cell(&a, "198.18.1.2/2 198.18.2.2/2");
	char **le, **fe;

	g_unsetenv("CCACHE_PREFIX");
	g_unsetenv("DISTCC_HOSTS");
	le = cell_make_env(local);
	fe = cell_make_env(farm);
	assert_null(g_environ_getenv(le, "CCACHE_PREFIX"));
	assert_null(g_environ_getenv(le, "DISTCC_HOSTS"));
	assert_string_equal(g_environ_getenv(fe, "CCACHE_PREFIX"), "distcc");
	assert_string_equal(g_environ_getenv(fe, "DISTCC_HOSTS"),
			    "198.18.1.2/2 198.18.2.2/2");
	assert_string_equal(g_environ_getenv(fe, "CCACHE_DIR"),
			    "/var/cache/km/ccache");
	assert_string_equal(g_environ_getenv(le, "CCACHE_DIR"),
			    "/var/cache/km/ccache");
	assert_string_equal(g_environ_getenv(le, "CCACHE_BASEDIR"), "/");
	g_strfreev(le);
	g_strfreev(fe);
	g_free(local);
	g_free(farm);
}

static void skip_without_distcc(void)
{
	char *path = g_find_program_in_path("distcc");

	if (!path)
		skip();
	g_free(path);
}

/* distcc counts the slots itself; nothing is contacted for that. */
static void test_jobs(void **state)
{
	GError *err = NULL;

	skip_without_distcc();
	assert_int_equal(distcc_jobs("198.18.1.2/3 198.18.2.2/2", 2, &err), 5);
	assert_null(err);
	/* Never fewer jobs than the local CPUs: preprocessing runs here. */
	assert_int_equal(distcc_jobs("198.18.1.2/1", 2, &err), 2);
	assert_null(err);
	assert_int_equal(distcc_jobs("198.18.1.2/x/y:::", 2, &err), 0);
	assert_non_null(err);
	assert_non_null(
		strstr(err->message, "no usable host in '198.18.1.2/x/y:::'"));
	g_error_free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hosts_option_then_env),
		cmocka_unit_test(test_make_line_unchanged),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_jobs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
