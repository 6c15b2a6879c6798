// SPDX-License-Identifier: GPL-2.0
/* Expectations: loading, malformed files (file and line), lookup, judging. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "expect.h"

#define FIX "fixtures/expect/"

static struct expectations *load_good(void)
{
	GError *err = NULL;
	struct expectations *e = expect_load(FIX "good.conf", &err);

	assert_null(err);
	assert_non_null(e);
	return e;
}

static void test_lookup_order(void **state)
{
	struct expectations *e = load_good();

	assert_true(expect_has_step(e, "stock"));
	assert_true(expect_has_step(e, "baseline"));
	assert_false(expect_has_step(e, "uapi"));
	assert_int_equal(expect_lookup(e, "stock", "nice_rlim25_to_minus5"),
			 EXPECT_PASS);
	/* @feature expands @limits, @nice_grant and @rtprio_grant */
	assert_int_equal(expect_lookup(e, "baseline", "limits_defined"),
			 EXPECT_FAIL);
	assert_int_equal(expect_lookup(e, "baseline", "nice_rlim25_to_minus5"),
			 EXPECT_FAIL);
	assert_int_equal(expect_lookup(e, "baseline", "rtprio_rlim10_fifo10"),
			 EXPECT_FAIL);
	/* skip is tried before pass, fail before skip */
	assert_int_equal(expect_lookup(e, "baseline", "cap_sys_nice"),
			 EXPECT_SKIP);
	assert_int_equal(expect_lookup(e, "baseline", "other"), EXPECT_PASS);
	assert_int_equal(expect_lookup(e, "nice", "nice_rlim25_to_minus6"),
			 EXPECT_FAIL);
	assert_int_equal(expect_lookup(e, "nice", "nice_rlim25_to_minus5"),
			 EXPECT_PASS);
	/* no pattern matches: an error for the judge to report */
	assert_int_equal(expect_lookup(e, "partial", "other"), EXPECT_NONE);
	assert_int_equal(expect_lookup(e, "nosuchstep", "x"), EXPECT_NONE);
	expect_free(e);
}

static void assert_load_error(const char *file, const char *where,
			      const char *what)
{
	GError *err = NULL;
	struct expectations *e = expect_load(file, &err);

	assert_null(e);
	assert_non_null(err);
	if (!strstr(err->message, where) || !strstr(err->message, what))
		fail_msg("'%s' lacks '%s' or '%s'", err->message, where, what);
	g_error_free(err);
}

static void test_malformed(void **state)
{
	assert_load_error(FIX "junk-line.conf", FIX "junk-line.conf:6:",
			  "'this line is junk'");
	assert_load_error(FIX "unknown-ref.conf", FIX "unknown-ref.conf:5:",
			  "unknown group @nice");
	assert_load_error(FIX "loop.conf", FIX "loop.conf:", "references loop");
	assert_load_error(FIX "unknown-key.conf", FIX "unknown-key.conf:3:",
			  "unknown key 'xfail'");
	assert_load_error(FIX "unknown-group.conf", FIX "unknown-group.conf:4:",
			  "unknown group [stage stock]");
	assert_load_error(FIX "no-step.conf", FIX "no-step.conf", "no [step");
	assert_load_error(FIX "key-before-group.conf",
			  FIX "key-before-group.conf:1:", "before the first");
	assert_load_error(FIX "does-not-exist.conf", FIX "does-not-exist.conf",
			  "No such file");
}

static struct ktap_case mk(int n, const char *name, enum ktap_result r)
{
	struct ktap_case c = { .number = n, .name = (char *)name, .result = r };

	return c;
}

static bool has_evidence(const struct judgement *j, const char *s)
{
	for (guint i = 0; i < j->evidence->len; i++)
		if (strstr(j->evidence->pdata[i], s))
			return true;
	return false;
}

static void judge(const struct expectations *e, const char *step,
		  struct ktap_case *cases, size_t n, bool complete,
		  struct judgement *j)
{
	struct ktap_report r = {
		.found = true, .plan = (int)n, .cases = cases, .ncases = n,
		.complete = complete,
		.error = complete ? NULL : "truncated: the plan planned 9 results, got 3",
	};

	assert_int_equal(expect_judge(e, step, &r, j), 0);
}

static void test_judge(void **state)
{
	struct expectations *e = load_good();
	struct ktap_case base[] = {
		mk(1, "limits_defined", KTAP_NOT_OK),
		mk(2, "nice_rlim25_to_minus5", KTAP_NOT_OK),
		mk(3, "cap_sys_nice", KTAP_SKIP),
		mk(4, "nice_default", KTAP_OK),
	};
	struct judgement j;

	judge(e, "baseline", base, 4, true, &j);
	assert_string_equal(j.verdict, "pass");
	assert_true(j.met);
	assert_int_equal(j.ncases, 4);
	assert_int_equal(j.cases[0].expected, EXPECT_FAIL);
	assert_true(j.cases[2].met);
	assert_int_equal(j.evidence->len, 0);
	judgement_free(&j);

	/* the feature leaks into the baseline: unexpected-pass */
	base[1].result = KTAP_OK;
	judge(e, "baseline", base, 4, true, &j);
	assert_string_equal(j.verdict, "unexpected-pass");
	assert_false(j.met);
	assert_false(j.cases[1].met);
	assert_true(has_evidence(&j, "nice_rlim25_to_minus5: expected fail, got ok"));
	judgement_free(&j);

	/* a failure too: test-failed wins; the runner's last word is shown */
	base[3].result = KTAP_NOT_OK;
	base[3].diag = "ran as uid 0\ncase killed by signal 11 (Segmentation fault)";
	judge(e, "baseline", base, 4, true, &j);
	assert_string_equal(j.verdict, "test-failed");
	assert_true(has_evidence(&j, "nice_default: expected pass, got not ok: "
				 "case killed by signal 11 (Segmentation fault)"));
	assert_true(has_evidence(&j, "nice_rlim25_to_minus5: expected fail, got ok"));
	judgement_free(&j);
	expect_free(e);
}

static void test_judge_incomplete_missing_unmatched(void **state)
{
	struct expectations *e = load_good();
	struct ktap_case c[] = {
		mk(1, "limits_defined", KTAP_OK),
		mk(2, "stray", KTAP_OK),
	};
	struct judgement j;

	judge(e, "stock", c, 1, false, &j);
	assert_string_equal(j.verdict, "test-failed");
	assert_true(has_evidence(&j, "KTAP: truncated"));
	judgement_free(&j);

	/* "partial" names nice_rlim25_to_minus5 literally; it never ran */
	judge(e, "partial", c, 2, true, &j);
	assert_string_equal(j.verdict, "test-failed");
	assert_true(has_evidence(&j, "nice_rlim25_to_minus5: missing (expected fail)"));
	assert_true(has_evidence(&j, "stray: no expectation matches it at step partial"));
	assert_int_equal(j.cases[1].expected, EXPECT_NONE);
	assert_false(j.cases[1].met);
	assert_true(j.cases[0].met);
	judgement_free(&j);

	/* a skip where a pass was expected is a failure, not a pass */
	c[0].result = KTAP_SKIP;
	judge(e, "stock", c, 1, true, &j);
	assert_string_equal(j.verdict, "test-failed");
	judgement_free(&j);
	expect_free(e);
}

static void test_judge_no_output_and_no_step(void **state)
{
	struct expectations *e = load_good();
	struct ktap_report r = { .plan = -1, .error = "no KTAP version line in the output" };
	struct judgement j;

	assert_int_equal(expect_judge(e, "stock", &r, &j), 0);
	assert_string_equal(j.verdict, "test-failed");
	assert_true(has_evidence(&j, "KTAP: no KTAP version line"));
	judgement_free(&j);

	/* an empty plan is complete KTAP, and still no evidence of a pass */
	r.found = true;
	r.complete = true;
	r.plan = 0;
	r.error = NULL;
	assert_int_equal(expect_judge(e, "stock", &r, &j), 0);
	assert_string_equal(j.verdict, "test-failed");
	assert_true(has_evidence(&j, "the plan is empty"));
	judgement_free(&j);

	assert_int_equal(expect_judge(e, "uapi", &r, &j), -1);
	assert_false(j.met);
	assert_true(has_evidence(&j, "no [step uapi] group"));
	judgement_free(&j);
	expect_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup_order),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_judge_incomplete_missing_unmatched),
		cmocka_unit_test(test_judge_no_output_and_no_step),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
