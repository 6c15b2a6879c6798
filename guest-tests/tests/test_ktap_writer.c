// SPDX-License-Identifier: GPL-2.0
/* cmocka tests for the guest's KTAP writer: exact bytes of each line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ktap_writer.h"

struct buf {
	char *text;
	size_t len;
	FILE *f;
};

static int setup(void **state)
{
	struct buf *b = calloc(1, sizeof(*b));

	b->f = open_memstream(&b->text, &b->len);
	*state = b;
	return b->f ? 0 : -1;
}

static int teardown(void **state)
{
	struct buf *b = *state;

	fclose(b->f);
	free(b->text);
	free(b);
	return 0;
}

static const char *text(struct buf *b)
{
	fflush(b->f);
	return b->text;
}

static void test_header_and_plan(void **state)
{
	struct buf *b = *state;
	struct ktap_writer w;

	kw_begin(&w, b->f, 3);
	assert_string_equal(text(b), "KTAP version 1\n1..3\n");
}

static void test_results_numbered_in_order(void **state)
{
	struct buf *b = *state;
	struct ktap_writer w;

	kw_begin(&w, b->f, 3);
	assert_int_equal(kw_result(&w, KW_PASS, "nice_rlim20_to_0", NULL), 0);
	assert_int_equal(kw_result(&w, KW_FAIL, "rt_fifo_x", "ignored"), 0);
	assert_int_equal(kw_result(&w, KW_SKIP, "client_chrt",
				   "client /usr/bin/chrt absent"),
			 0);
	assert_string_equal(
		text(b),
		"KTAP version 1\n1..3\n"
		"ok 1 nice_rlim20_to_0\n"
		"not ok 2 rt_fifo_x\n"
		"ok 3 client_chrt # SKIP client /usr/bin/chrt absent\n");
}

static void test_skip_without_reason(void **state)
{
	struct buf *b = *state;
	struct ktap_writer w;

	kw_begin(&w, b->f, 1);
	kw_result(&w, KW_SKIP, "a", "");
	assert_non_null(strstr(text(b), "ok 1 a # SKIP\n"));
}

static void test_reason_stays_on_one_line(void **state)
{
	struct buf *b = *state;
	struct ktap_writer w;

	kw_begin(&w, b->f, 1);
	kw_result(&w, KW_SKIP, "a", "two\nlines\tand tab");
	assert_non_null(strstr(text(b), "ok 1 a # SKIP two lines and tab\n"));
}

static void test_totals_and_status(void **state)
{
	struct buf *b = *state;
	struct ktap_writer w;

	kw_begin(&w, b->f, 3);
	kw_result(&w, KW_PASS, "a", NULL);
	kw_result(&w, KW_SKIP, "b", "why");
	kw_result(&w, KW_PASS, "c", NULL);
	assert_int_equal(kw_end(&w), 0);
	assert_non_null(strstr(
		text(b),
		"# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:1 error:0\n"));
}

static void test_failure_makes_status_1(void **state)
{
	struct buf *b = *state;
	struct ktap_writer w;

	kw_begin(&w, b->f, 1);
	kw_result(&w, KW_FAIL, "a", NULL);
	assert_int_equal(kw_end(&w), 1);
	assert_non_null(strstr(text(b), "pass:0 fail:1 "));
}

/* A run that stops short of its plan is not a success. */
static void test_short_run_makes_status_1(void **state)
{
	struct buf *b = *state;
	struct ktap_writer w;

	kw_begin(&w, b->f, 2);
	kw_result(&w, KW_PASS, "a", NULL);
	assert_int_equal(kw_end(&w), 1);
}

static void test_diag_prefixes_every_line(void **state)
{
	struct buf *b = *state;
	struct ktap_writer w;

	kw_begin(&w, b->f, 0);
	kw_diag(&w, "one\ntwo\n");
	assert_string_equal(text(b), "KTAP version 1\n1..0\n# one\n# two\n");
}

/* Diagnostics between the version line and the plan (the "# abi" lines). */
static void test_diag_before_plan(void **state)
{
	struct buf *b = *state;
	struct ktap_writer w;

	kw_header(&w, b->f);
	kw_diag(&w, "abi uapi RLIMIT_NICE=13");
	kw_plan(&w, 1);
	kw_result(&w, KW_PASS, "a", NULL);
	assert_int_equal(kw_end(&w), 0);
	assert_string_equal(text(b), "KTAP version 1\n"
				     "# abi uapi RLIMIT_NICE=13\n"
				     "1..1\n"
				     "ok 1 a\n"
				     "# Totals: pass:1 fail:0 xfail:0 xpass:0 "
				     "skip:0 error:0\n");
}

static void test_names(void **state)
{
	struct buf *b = *state;
	struct ktap_writer w;

	assert_true(kw_valid_name("nice_rlim20_to_m1_refused"));
	assert_true(kw_valid_name("rt_rr_setattr_rlim99_to_99"));
	assert_false(kw_valid_name(""));
	assert_false(kw_valid_name(NULL));
	assert_false(kw_valid_name("Nice"));
	assert_false(kw_valid_name("9lives"));
	assert_false(kw_valid_name("a b"));
	assert_false(kw_valid_name("a#b"));
	assert_false(kw_valid_name("a-b"));
	kw_begin(&w, b->f, 1);
	assert_int_equal(kw_result(&w, KW_PASS, "bad name", NULL), -1);
	assert_string_equal(text(b), "KTAP version 1\n1..1\n");
	assert_int_equal(w.next, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_header_and_plan, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_results_numbered_in_order,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_skip_without_reason, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reason_stays_on_one_line,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_totals_and_status, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_failure_makes_status_1,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_short_run_makes_status_1,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_diag_prefixes_every_line,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_diag_before_plan, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_names, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
