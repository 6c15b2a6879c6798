// SPDX-License-Identifier: GPL-2.0
/* One kmatrix per cache: a second one is refused and told whose lock it is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lock.h"

static void test_second_refused(void **state)
{
	char *dir = g_dir_make_tmp("kmatrix-lock-XXXXXX", NULL);
	char *pid = g_strdup_printf("(pid %ld)", (long)getpid());
	char *held = g_strdup_printf("%ld", (long)getpid());
	GError *err = NULL;
	int fd = lock_take(dir, &err), again;

	assert_true(fd >= 0);
	again = lock_take(dir, &err);
	assert_int_equal(again, -1);
	assert_non_null(strstr(err->message, pid));
	assert_non_null(strstr(err->message, dir));
	g_clear_error(&err);
	/* kmatrix bisect's children share their parent's lock. */
	g_setenv("KMATRIX_LOCK_HELD", held, TRUE);
	assert_int_equal(lock_take(dir, &err), LOCK_INHERITED);
	g_setenv("KMATRIX_LOCK_HELD", "1", TRUE);
	assert_int_equal(lock_take(dir, &err), -1);
	g_clear_error(&err);
	g_unsetenv("KMATRIX_LOCK_HELD");
	lock_release(fd);
	fd = lock_take(dir, &err);
	assert_true(fd >= 0);
	lock_release(fd);
	g_free(held);
	g_free(pid);
	g_free(dir);
}

/* A pid left in the file by an owner that died does not block the next run. */
static void test_dead_owner(void **state)
{
	char *dir = g_dir_make_tmp("kmatrix-lock-XXXXXX", NULL);
	char *path = g_build_filename(dir, "lock", NULL);
	char *mine = g_strdup_printf("%ld\n", (long)getpid());
	char *text = NULL;
	GError *err = NULL;
	int fd;

	assert_true(g_file_set_contents(path, "4194302\n", -1, NULL));
	fd = lock_take(dir, &err);
	assert_true(fd >= 0);
	assert_null(err);
	assert_true(g_file_get_contents(path, &text, NULL, NULL));
	assert_string_equal(text, mine);
	lock_release(fd);
	g_free(text);
	assert_true(g_file_get_contents(path, &text, NULL, NULL));
	assert_string_equal(text, "");
	g_free(text);
	g_free(mine);
	g_free(path);
	g_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_second_refused),
		cmocka_unit_test(test_dead_owner),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
