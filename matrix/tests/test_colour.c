// SPDX-License-Identifier: GPL-2.0
/* When verdicts get colour: a terminal, NO_COLOR, --color. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "colour.h"

static void test_decide(void **state)
{
	/* auto: a terminal, and NO_COLOR unset or empty */
	assert_true(colour_decide(COLOUR_AUTO, true, NULL));
	assert_true(colour_decide(COLOUR_AUTO, true, ""));
	assert_false(colour_decide(COLOUR_AUTO, true, "1"));
	assert_false(colour_decide(COLOUR_AUTO, false, NULL));
	/* the command line wins over the environment (no-color.org) */
	assert_true(colour_decide(COLOUR_ALWAYS, false, "1"));
	assert_false(colour_decide(COLOUR_NEVER, true, NULL));
}

static void test_parse(void **state)
{
	enum colour_when w = COLOUR_NEVER;

	assert_true(colour_parse("auto", &w));
	assert_int_equal(w, COLOUR_AUTO);
	assert_true(colour_parse("always", &w));
	assert_int_equal(w, COLOUR_ALWAYS);
	assert_true(colour_parse("never", &w));
	assert_int_equal(w, COLOUR_NEVER);
	assert_false(colour_parse("yes", &w));
	assert_false(colour_parse("", &w));
	assert_int_equal(w, COLOUR_NEVER);
}

/* stdout here is a pipe or a file: no colour unless always. */
static void test_escapes(void **state)
{
	int fd = dup(STDOUT_FILENO);
	int p[2];

	assert_int_equal(pipe(p), 0);
	dup2(p[1], STDOUT_FILENO);
	colour_set(COLOUR_AUTO);
	assert_string_equal(colour_good(STDOUT_FILENO), "");
	assert_string_equal(colour_off(STDOUT_FILENO), "");
	colour_set(COLOUR_ALWAYS);
	setenv("NO_COLOR", "1", 1);
	assert_string_equal(colour_bad(STDOUT_FILENO), "\033[1;31m");
	assert_string_equal(colour_good(STDOUT_FILENO), "\033[32m");
	assert_string_equal(colour_off(STDOUT_FILENO), "\033[m");
	colour_set(COLOUR_NEVER);
	unsetenv("NO_COLOR");
	assert_string_equal(colour_bad(STDOUT_FILENO), "");
	colour_set(COLOUR_AUTO);
	dup2(fd, STDOUT_FILENO);
	close(fd);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_escapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
