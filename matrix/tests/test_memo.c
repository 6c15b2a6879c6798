// SPDX-License-Identifier: GPL-2.0
/*
 * memo_capture(): a program's answer is remembered until the program
 * file changes; a failed run is not remembered.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <glib.h>

#include "fixture.h"
#include "memo.h"

static char *dir, *prog, *count;

/* A program that says "answer N" and counts its runs in a file. */
static void write_prog(const char *answer, int rc)
{
	char *text = g_strdup_printf("#!/bin/sh\necho run >> %s\necho %s\nexit %d\n",
				     count, answer, rc);

	assert_true(g_file_set_contents(prog, text, -1, NULL));
	assert_int_equal(chmod(prog, 0755), 0);
	g_free(text);
}

static int runs(void)
{
	char *text = NULL;
	int n = 0;

	if (g_file_get_contents(count, &text, NULL, NULL))
		for (char *p = text; (p = strchr(p, '\n')); p++)
			n++;
	g_free(text);
	return n;
}

static int setup(void **state)
{
	dir = fixture_tmpdir("memo");
	prog = g_build_filename(dir, "tool", NULL);
	count = g_build_filename(dir, "runs", NULL);
	return 0;
}

static int teardown(void **state)
{
	fixture_rm_rf(dir);
	g_free(dir);
	g_free(prog);
	g_free(count);
	return 0;
}

static void test_remembered(void **state)
{
	char *argv[] = { prog, "--version", NULL };
	char *a, *b, *c;

	write_prog("answer 1", 0);
	a = memo_capture(dir, argv);
	b = memo_capture(dir, argv);
	assert_string_equal(a, "answer 1");
	assert_string_equal(b, "answer 1");
	assert_int_equal(runs(), 1);
	/* Another argument is another question. */
	argv[1] = "--list";
	g_free(memo_capture(dir, argv));
	assert_int_equal(runs(), 2);
	/* The program replaced (a package upgrade): asked again. */
	argv[1] = "--version";
	sleep(1);
	write_prog("answer 2", 0);
	c = memo_capture(dir, argv);
	assert_string_equal(c, "answer 2");
	assert_int_equal(runs(), 3);
	g_free(a);
	g_free(b);
	g_free(c);
}

static void test_failure_not_remembered(void **state)
{
	char *argv[] = { prog, "--fail", NULL };
	char *none[] = { "kmatrix-no-such-program", NULL };

	unlink(count);
	write_prog("broken", 1);
	assert_null(memo_capture(dir, argv));
	assert_null(memo_capture(dir, argv));
	assert_int_equal(runs(), 2);
	assert_null(memo_capture(dir, none));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_remembered),
		cmocka_unit_test(test_failure_not_remembered),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
