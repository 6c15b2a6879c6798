// SPDX-License-Identifier: GPL-2.0
/*
 * memo_capture(): a program's answer is remembered until the program
 * file changes; a failed run is not remembered.  memo_file_sha256(): a
 * settled file's hash is remembered until the file changes, a file
 * changed this second is hashed but not remembered.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>
#include <glib.h>

#include "fixture.h"
#include "key.h"
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

/* Entries in the memo directory of the cache @c. */
static int memos(const char *c)
{
	char *d = g_build_filename(c, "work", "memo", NULL);
	GDir *gd = g_dir_open(d, 0, NULL);
	int n = 0;

	while (gd && g_dir_read_name(gd))
		n++;
	if (gd)
		g_dir_close(gd);
	g_free(d);
	return n;
}

/* @file written with @text and its mtime @age seconds ago. */
static void write_aged(const char *file, const char *text, int age)
{
	struct timespec t[2] = { { .tv_sec = time(NULL) - age },
				 { .tv_sec = time(NULL) - age } };

	assert_true(g_file_set_contents(file, text, -1, NULL));
	assert_int_equal(utimensat(AT_FDCWD, file, t, 0), 0);
}

static void test_file_sha(void **state)
{
	char *c = g_build_filename(dir, "shacache", NULL);
	char *file = g_build_filename(dir, "packed", NULL);
	char *want, *got;

	write_aged(file, "one\n", 0);
	got = memo_file_sha256(c, file);
	want = key_file_sha256(file);
	assert_string_equal(got, want);
	assert_int_equal(memos(c), 0);	/* racy: not remembered */
	g_free(got);
	g_free(want);

	write_aged(file, "two\n", 10);
	sleep(2);	/* the ctime settles */
	got = memo_file_sha256(c, file);
	want = key_file_sha256(file);
	assert_string_equal(got, want);
	assert_int_equal(memos(c), 1);
	g_free(got);
	got = memo_file_sha256(c, file);
	assert_string_equal(got, want);
	assert_int_equal(memos(c), 1);	/* recalled, not stored again */
	g_free(got);
	g_free(want);

	/* Same size, same old mtime, new content: the ctime tells. */
	write_aged(file, "six\n", 10);
	got = memo_file_sha256(c, file);
	want = key_file_sha256(file);
	assert_string_equal(got, want);
	g_free(got);
	g_free(want);
	assert_null(memo_file_sha256(c, "/nonexistent/kmatrix-memo"));
	g_free(file);
	g_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_remembered),
		cmocka_unit_test(test_failure_not_remembered),
		cmocka_unit_test(test_file_sha),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
