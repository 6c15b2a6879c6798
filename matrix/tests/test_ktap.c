// SPDX-License-Identifier: GPL-2.0
/* KTAP parser: console noise, nesting, skips, truncation, bad numbering. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <glib.h>

#include "ktap.h"

static void parse_file(const char *name, struct ktap_report *r)
{
	char *path = g_build_filename("fixtures", "ktap", name, NULL);
	char *text;
	size_t len;

	assert_true(g_file_get_contents(path, &text, &len, NULL));
	assert_int_equal(ktap_parse(text, len, r), 0);
	g_free(text);
	g_free(path);
}

static void parse_str(const char *text, struct ktap_report *r)
{
	assert_int_equal(ktap_parse(text, strlen(text), r), 0);
}

static void assert_case(const struct ktap_report *r, size_t i,
			const char *name, enum ktap_result res, int number)
{
	assert_true(i < r->ncases);
	assert_string_equal(r->cases[i].name, name);
	assert_int_equal(r->cases[i].result, res);
	assert_int_equal(r->cases[i].number, number);
}

static void test_console_flat(void **state)
{
	struct ktap_report r;

	parse_file("console-flat.log", &r);
	assert_true(r.found);
	assert_true(r.complete);
	assert_null(r.error);
	assert_int_equal(r.plan, 5);
	assert_int_equal(r.ncases, 5);
	assert_case(&r, 0, "limits_defined", KTAP_OK, 1);
	assert_string_equal(r.cases[0].diag,
			    "# rlimit-tests: RLIMIT_NICE=13 RLIMIT_RTPRIO=14");
	assert_case(&r, 1, "nice_rlim25_to_minus5", KTAP_NOT_OK, 2);
	assert_string_equal(r.cases[1].diag,
			    "# nice: setpriority(-5) with rlim 25: EPERM");
	/* a timestamp before the line is stripped */
	assert_case(&r, 2, "rtprio_rlim10_fifo10", KTAP_OK, 3);
	assert_null(r.cases[2].diag);
	/* a kernel message inside the line is cut out and the line spliced */
	assert_case(&r, 3, "rtprio_rlim10_fifo11_refused", KTAP_OK, 4);
	assert_case(&r, 4, "cap_sys_nice_blanket", KTAP_SKIP, 5);
	assert_string_equal(r.cases[4].directive, "SKIP not root");
	ktap_report_free(&r);
}

static void test_nested(void **state)
{
	static const char *const names[] = {
		"example_test_1.test_1", "example_test_1",
		"example_test_2.test_1", "example_test_2.test_2",
		"example_test_2", "example_test_3.test_1",
		"example_test_3.test_2", "example_test_3.test_3",
		"example_test_3",
	};
	struct ktap_report r;
	size_t i;

	parse_file("nested.log", &r);
	assert_true(r.complete);
	assert_int_equal(r.plan, 1);
	assert_int_equal(r.ncases, G_N_ELEMENTS(names) + 1);
	for (i = 0; i < G_N_ELEMENTS(names); i++) {
		char *full = g_strdup_printf("main_test.%s", names[i]);

		assert_string_equal(r.cases[i].name, full);
		g_free(full);
	}
	assert_case(&r, 0, "main_test.example_test_1.test_1", KTAP_OK, 1);
	assert_string_equal(r.cases[0].diag, "# test_1: initializing test_1");
	assert_case(&r, 2, "main_test.example_test_2.test_1", KTAP_SKIP, 1);
	assert_case(&r, 6, "main_test.example_test_3.test_2", KTAP_NOT_OK, 2);
	assert_string_equal(r.cases[6].diag, "# test_2: FAIL");
	assert_case(&r, 9, "main_test", KTAP_NOT_OK, 1);
	/* the unindented diagnostic belongs to the parent, not its children */
	assert_string_equal(r.cases[9].diag, "# main failed");
	ktap_report_free(&r);
}

static void test_truncated(void **state)
{
	struct ktap_report r;

	parse_file("truncated.log", &r);
	assert_true(r.found);
	assert_false(r.complete);
	assert_int_equal(r.plan, 4);
	assert_int_equal(r.ncases, 2);
	assert_non_null(r.error);
	assert_non_null(strstr(r.error, "truncated"));
	assert_non_null(strstr(r.error, "planned 4 results, got 2"));
	assert_non_null(strstr(r.error, "last: nice_default"));
	ktap_report_free(&r);
}

static void test_truncated_in_subtest(void **state)
{
	struct ktap_report r;

	parse_str("KTAP version 1\n1..2\nok 1 a\n  KTAP version 1\n  1..3\n"
		  "  ok 1 x\n", &r);
	assert_false(r.complete);
	assert_non_null(strstr(r.error, "inside a subtest"));
	/* the child that did report is kept */
	assert_int_equal(r.ncases, 2);
	assert_case(&r, 1, "x", KTAP_OK, 1);
	ktap_report_free(&r);
}

static void test_subtest_short_of_plan(void **state)
{
	struct ktap_report r;

	parse_str("KTAP version 1\n1..1\n  KTAP version 1\n  1..3\n"
		  "  ok 1 x\nok 1 p\n", &r);
	assert_false(r.complete);
	assert_non_null(strstr(r.error, "subtest 'p' planned 3 results, got 1"));
	assert_case(&r, 0, "p.x", KTAP_OK, 1);
	ktap_report_free(&r);
}

static void test_duplicate_and_order(void **state)
{
	struct ktap_report r;

	parse_str("KTAP version 1\n1..3\nok 1 a\nok 1 b\nok 3 c\n", &r);
	assert_false(r.complete);
	assert_int_equal(r.ncases, 3);
	assert_non_null(strstr(r.error, "duplicate test number 1 ('b'"));
	ktap_report_free(&r);

	parse_str("KTAP version 1\n1..3\nok 1 a\nok 3 c\nok 2 b\n", &r);
	assert_false(r.complete);
	assert_non_null(strstr(r.error, "test number 3 out of order ('c'"));
	ktap_report_free(&r);
}

static void test_too_many(void **state)
{
	struct ktap_report r;

	parse_str("KTAP version 1\n1..1\nok 1 a\nok 2 b\n", &r);
	assert_false(r.complete);
	assert_non_null(strstr(r.error, "more results than the plan 1..1"));
	ktap_report_free(&r);
}

static void test_no_ktap(void **state)
{
	struct ktap_report r;

	parse_str("[    0.1] Kernel panic - not syncing: VFS\nok 1 lookalike\n", &r);
	assert_false(r.found);
	assert_false(r.complete);
	assert_int_equal(r.ncases, 0);
	assert_string_equal(r.error, "no KTAP version line in the output");
	ktap_report_free(&r);

	parse_str("", &r);
	assert_false(r.found);
	ktap_report_free(&r);
}

static void test_no_plan(void **state)
{
	struct ktap_report r;

	parse_str("TAP version 13\nok 1 a\nnot ok 2 - b # TIMEOUT 30 seconds\n",
		  &r);
	assert_true(r.found);
	assert_false(r.complete);
	assert_int_equal(r.plan, -1);
	assert_non_null(strstr(r.error, "no plan line (2 results)"));
	/* TAP's "- " before the description is not part of the name */
	assert_case(&r, 1, "b", KTAP_NOT_OK, 2);
	assert_string_equal(r.cases[1].directive, "TIMEOUT 30 seconds");
	ktap_report_free(&r);
}

static void test_trailing_plan_and_empty(void **state)
{
	struct ktap_report r;

	parse_str("KTAP version 1\nok 1 a\nnot ok 2 b # SKIP no rt\n1..2\n", &r);
	assert_true(r.complete);
	assert_case(&r, 1, "b", KTAP_SKIP, 2);
	ktap_report_free(&r);

	parse_str("KTAP version 1\n1..0 # SKIP nothing to do\n", &r);
	assert_true(r.complete);
	assert_int_equal(r.plan, 0);
	assert_int_equal(r.ncases, 0);
	ktap_report_free(&r);
}

static void test_second_document_ignored(void **state)
{
	struct ktap_report r;

	parse_str("KTAP version 1\n1..1\nok 1 a\nKTAP version 1\n1..1\nnot ok 1 z\n",
		  &r);
	assert_true(r.complete);
	assert_int_equal(r.ncases, 1);
	assert_case(&r, 0, "a", KTAP_OK, 1);
	ktap_report_free(&r);
}

/* KTAP glued to a kernel message, and KTAP indented as a whole. */
static void test_offset_document(void **state)
{
	struct ktap_report r;

	parse_str("[    1.1] random: crng init doneKTAP version 1\n1..1\n"
		  "  KTAP version 1\n  1..1\n  ok 1 child\nok 1 parent\n", &r);
	assert_true(r.complete);
	assert_int_equal(r.ncases, 2);
	assert_case(&r, 0, "parent.child", KTAP_OK, 1);
	ktap_report_free(&r);

	parse_str("    KTAP version 1\n    1..1\n      KTAP version 1\n"
		  "      1..1\n      not ok 1 child\n    not ok 1 parent\n", &r);
	assert_true(r.complete);
	assert_case(&r, 0, "parent.child", KTAP_NOT_OK, 1);
	assert_case(&r, 1, "parent", KTAP_NOT_OK, 1);
	ktap_report_free(&r);
}

static void test_unnamed_case(void **state)
{
	struct ktap_report r;

	parse_str("KTAP version 1\n1..1\nnot ok 1\n", &r);
	assert_true(r.complete);
	assert_case(&r, 0, "1", KTAP_NOT_OK, 1);
	assert_null(r.cases[0].directive);
	ktap_report_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_console_flat),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_truncated_in_subtest),
		cmocka_unit_test(test_subtest_short_of_plan),
		cmocka_unit_test(test_duplicate_and_order),
		cmocka_unit_test(test_too_many),
		cmocka_unit_test(test_no_ktap),
		cmocka_unit_test(test_no_plan),
		cmocka_unit_test(test_trailing_plan_and_empty),
		cmocka_unit_test(test_second_document_ignored),
		cmocka_unit_test(test_offset_document),
		cmocka_unit_test(test_unnamed_case),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
