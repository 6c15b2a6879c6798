// SPDX-License-Identifier: GPL-2.0
/*
 * The suites of a console: the native KTAP, a compat suite after its
 * KMATRIX-SUITE line, a compat suite that is missing or cut short, and the
 * "# abi" numbering lines.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <glib.h>

#include "expect.h"
#include "suites.h"

#define NATIVE								\
	"[    0.5] Run /init as init process\n"				\
	"KMATRIX-INIT-START\n"						\
	"KTAP version 1\n"						\
	"# abi uapi RLIMIT_NOFILE=5 RLIMIT_NICE=13 RLIM_NLIMITS=16 "	\
	"RLIM_INFINITY=0xffffffffffffffff\n"				\
	"# abi kernel RLIMIT_NICE=13 RLIM_NLIMITS=16\n"			\
	"1..2\n"							\
	"ok 1 limits_nice_defined\n"					\
	"not ok 2 nice_rlim25_to_m5\n"

#define COMPAT								\
	"[    1.2] KMATRIX-SUITE o32\n"					\
	"KTAP version 1\n"						\
	"# abi uapi RLIMIT_NICE=13 RLIM_INFINITY=0x7fffffff\n"		\
	"1..2\n"							\
	"ok 1 limits_nice_defined\n"					\
	"ok 2 nice_rlim25_to_m5\n"

static void test_native_and_compat(void **state)
{
	struct ktap_report r;

	suites_parse(NATIVE COMPAT "KMATRIX-DONE rc=1\n", "o32", &r);
	assert_true(r.found);
	assert_true(r.complete);
	assert_null(r.error);
	assert_int_equal(r.plan, 4);
	assert_int_equal(r.ncases, 4);
	assert_string_equal(r.cases[1].name, "nice_rlim25_to_m5");
	assert_null(r.cases[1].suite);
	assert_string_equal(r.cases[3].name, "o32.nice_rlim25_to_m5");
	assert_string_equal(r.cases[3].suite, "o32");
	assert_int_equal(r.cases[3].result, KTAP_OK);
	ktap_report_free(&r);
}

static void test_compat_missing(void **state)
{
	struct ktap_report r;

	suites_parse(NATIVE "KMATRIX-DONE rc=0\n", "i386", &r);
	assert_true(r.found);
	assert_false(r.complete);
	assert_non_null(strstr(r.error, "i386 suite: missing"));
	assert_int_equal(r.ncases, 2);
	ktap_report_free(&r);
	/* an arch without a compat suite needs none */
	suites_parse(NATIVE, "", &r);
	assert_true(r.complete);
	ktap_report_free(&r);
}

static void test_compat_truncated(void **state)
{
	struct ktap_report r;

	suites_parse(NATIVE "KMATRIX-SUITE armhf\nKTAP version 1\n1..3\nok 1 a\n",
		     "armhf", &r);
	assert_false(r.complete);
	assert_non_null(strstr(r.error, "armhf suite: "));
	assert_int_equal(r.plan, 5);
	assert_int_equal(r.ncases, 3);
	assert_string_equal(r.cases[2].name, "armhf.a");
	ktap_report_free(&r);
	suites_parse(NATIVE "KMATRIX-SUITE armhf\nSegmentation fault\n", "armhf", &r);
	assert_false(r.complete);
	assert_non_null(strstr(r.error, "armhf suite: no KTAP version line"));
	ktap_report_free(&r);
}

static void test_abi_lines(void **state)
{
	json_t *abi = suites_abi(NATIVE COMPAT, "mips64el");
	json_t *n, *c;

	assert_non_null(abi);
	n = json_object_get(abi, "mips64el");
	c = json_object_get(abi, "o32");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(n, "uapi"),
							    "RLIMIT_NOFILE")), 5);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(n, "kernel"),
							    "RLIM_NLIMITS")), 16);
	/* too large for a JSON integer: kept as its text */
	assert_string_equal(json_string_value(json_object_get(json_object_get(n, "uapi"),
							      "RLIM_INFINITY")),
			    "0xffffffffffffffff");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(c, "uapi"),
							    "RLIM_INFINITY")), 0x7fffffff);
	json_decref(abi);
	assert_null(suites_abi("KTAP version 1\n1..0\n", "x86_64"));
}

/* A compat case is judged by its own name against the same expectations. */
static void test_compat_judged(void **state)
{
	const char *exp = "[step uapi]\nfail=nice_*\npass=*\n";
	char *path = g_build_filename(g_get_tmp_dir(), "kmatrix-suites-exp", NULL);
	struct expectations *e;
	struct ktap_report r;
	struct judgement j;

	assert_true(g_file_set_contents(path, exp, -1, NULL));
	e = expect_load(path, NULL);
	assert_non_null(e);
	suites_parse(NATIVE COMPAT, "o32", &r);
	assert_int_equal(expect_judge(e, "uapi", &r, &j), 0);
	assert_true(j.cases[1].met);
	/* the o32 suite granted what the native one refused */
	assert_false(j.cases[3].met);
	assert_string_equal(j.verdict, "unexpected-pass");
	assert_non_null(strstr(j.evidence->pdata[0], "o32.nice_rlim25_to_m5"));
	judgement_free(&j);
	ktap_report_free(&r);
	expect_free(e);
	unlink(path);
	g_free(path);
}

/* An arch whose guest has no clients expects their cases to skip. */
static void test_arch_skip(void **state)
{
	const char *exp = "[step rtprio]\npass=*\n";
	const char *const skip[] = { "client_*", NULL };
	const char *text = "KTAP version 1\n1..3\nok 1 limits_nice_defined\n"
			   "ok 2 client_chrt_rlim10_to_10 # SKIP client chrt absent\n"
			   "ok 3 client_nice_rlim25_to_m5\n";
	char *path = g_build_filename(g_get_tmp_dir(), "kmatrix-suites-skip", NULL);
	struct expectations *e;
	struct ktap_report r;
	struct judgement j;

	assert_true(g_file_set_contents(path, exp, -1, NULL));
	e = expect_load(path, NULL);
	suites_parse(text, NULL, &r);
	assert_int_equal(expect_judge_arch(e, "rtprio", skip, &r, &j), 0);
	assert_true(j.cases[0].met);
	assert_true(j.cases[1].met);
	/* a client case that ran where none can is a departure */
	assert_false(j.cases[2].met);
	judgement_free(&j);
	ktap_report_free(&r);
	expect_free(e);
	unlink(path);
	g_free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_native_and_compat),
		cmocka_unit_test(test_compat_missing),
		cmocka_unit_test(test_compat_truncated),
		cmocka_unit_test(test_abi_lines),
		cmocka_unit_test(test_compat_judged),
		cmocka_unit_test(test_arch_skip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
