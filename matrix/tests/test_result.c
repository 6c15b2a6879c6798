// SPDX-License-Identifier: GPL-2.0
/* Cell results: a written result reads back equal; a broken one is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fixture.h"
#include "result.h"

#define KEY "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static char *dir;

static int setup(void **state)
{
	dir = fixture_tmpdir("result");
	return dir ? 0 : -1;
}

static int teardown(void **state)
{
	fixture_rm_rf(dir);
	g_free(dir);
	return 0;
}

static json_t *sample(void)
{
	json_t *r = result_new("7.2", "x86_64", "baseline", 1);
	GPtrArray *ev = g_ptr_array_new();

	g_ptr_array_add(ev, "nice_rlim20_to_0: expected fail, got ok");
	json_object_set_new(r, "key", json_string(KEY));
	json_object_set_new(r, "final", json_true());
	result_set_verdict(r, "unexpected-pass", false, "1 case passed that should fail", ev);
	result_set_timing(r, "build", 123.5);
	result_set_usage(r, "build", 230.25, 412345);
	result_set_span(r, "build", 1796292000.5, 1796292124.0);
	result_set_input(r, "config", "abc");
	json_array_append_new(json_object_get(r, "tests"),
			      json_pack("{s:s, s:s, s:s, s:b, s:s}", "name", "nice_rlim20_to_0",
					"result", "ok", "expected", "fail", "met", 0, "diag", ""));
	g_ptr_array_free(ev, TRUE);
	return r;
}

static char *write_text(const char *name, const char *text)
{
	char *p = g_build_filename(dir, name, NULL);

	assert_true(g_file_set_contents(p, text, -1, NULL));
	return p;
}

static void test_round_trip(void **state)
{
	char *p = result_path(dir, "7.2", "x86_64", "baseline", ".json");
	json_t *r = sample(), *back;
	char *why = NULL;

	assert_int_equal(result_write(p, r, NULL), 0);
	back = result_read(p, "7.2", "x86_64", "baseline", &why);
	assert_non_null(back);
	assert_true(json_equal(r, back));
	assert_string_equal(json_string_value(json_object_get(back, "verdict")), "unexpected-pass");
	json_decref(back);
	json_decref(r);
	g_free(p);
}

/*
 * A run killed while writing a result left its temporary file: the next
 * write of that result removes it, and leaves other names alone.
 */
static void test_stale_temp(void **state)
{
	char *p = result_path(dir, "7.2", "x86_64", "stock", ".json");
	char *stale = g_strconcat(p, ".Ab3xYz", NULL);
	char *other = g_strconcat(p, ".keep", NULL);
	json_t *r = sample();

	assert_int_equal(result_write(p, r, NULL), 0);
	assert_true(g_file_set_contents(stale, "{\"half\": ", -1, NULL));
	assert_true(g_file_set_contents(other, "x", -1, NULL));
	assert_int_equal(result_write(p, r, NULL), 0);
	assert_false(g_file_test(stale, G_FILE_TEST_EXISTS));
	assert_true(g_file_test(other, G_FILE_TEST_EXISTS));
	assert_true(g_file_test(p, G_FILE_TEST_EXISTS));
	json_decref(r);
	g_free(other);
	g_free(stale);
	g_free(p);
}

static void assert_refused(const char *text, const char *why_part)
{
	char *p = write_text("bad.json", text);
	char *why = NULL;

	assert_null(result_read(p, NULL, NULL, NULL, &why));
	assert_non_null(why);
	if (!strstr(why, why_part))
		fail_msg("reason '%s' lacks '%s'", why, why_part);
	g_free(why);
	g_free(p);
}

static char *sample_text(void)
{
	json_t *r = sample();
	char *t = json_dumps(r, 0);

	json_decref(r);
	return t;
}

static void test_truncated(void **state)
{
	char *t = sample_text();

	t[strlen(t) / 2] = '\0';
	assert_refused(t, "bad.json");
	free(t);
}

static void test_empty_and_garbage(void **state)
{
	assert_refused("", "bad.json");
	assert_refused("[1, 2]", "not a JSON object");
	assert_refused("{\"schema\": \"kmatrix-cell/1\"}", "is missing or not a string");
}

static void mutate_and_refuse(const char *field, json_t *value, const char *why)
{
	json_t *r = sample();
	char *t;

	if (value)
		json_object_set_new(r, field, value);
	else
		json_object_del(r, field);
	t = json_dumps(r, 0);
	assert_refused(t, why);
	free(t);
	json_decref(r);
}

static void test_invalid_fields(void **state)
{
	mutate_and_refuse("schema", json_string("kmatrix-cell/0"), "schema is not");
	mutate_and_refuse("verdict", json_string("maybe"), "unknown verdict");
	mutate_and_refuse("key", json_string("short"), "without a valid key");
	mutate_and_refuse("met", json_string("yes"), "'met' is missing");
	mutate_and_refuse("tests", json_pack("[{s:s}]", "name", "x"), "tests[0]");
	mutate_and_refuse("evidence", NULL, "'evidence' or 'tests'");
	mutate_and_refuse("step_index", json_string("1"), "step_index");
}

static void mutate_usage_and_refuse(const char *field, const char *stage, json_t *value)
{
	json_t *r = sample();
	char *t;

	json_object_set_new(json_object_get(r, field), stage, value);
	t = json_dumps(r, 0);
	assert_refused(t, field);
	free(t);
	json_decref(r);
}

/* The measurements round-trip and a wrong shape is refused, naming the field. */
static void test_usage_fields(void **state)
{
	json_t *r = sample();

	assert_true(json_real_value(json_object_get(json_object_get(r, "cpu"), "build")) == 230.25);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "maxrss_kb"),
							      "build")), 412345);
	assert_int_equal(json_array_size(json_object_get(json_object_get(r, "spans"), "build")), 2);
	assert_null(result_validate(r));
	json_decref(r);
	mutate_usage_and_refuse("cpu", "build", json_string("fast"));
	mutate_usage_and_refuse("cpu", "boot", json_real(-1));
	mutate_usage_and_refuse("maxrss_kb", "build", json_real(1.5));
	mutate_usage_and_refuse("spans", "build", json_pack("[f, f]", 20.0, 10.0));
	mutate_usage_and_refuse("spans", "boot", json_pack("[f]", 20.0));
	mutate_usage_and_refuse("timings", "test", json_null());
	mutate_and_refuse("cpu", json_array(), "'cpu' must map");
}

/* Results written before the measurements existed stay valid: no re-run. */
static void test_usage_optional(void **state)
{
	json_t *r = sample();

	json_object_del(r, "cpu");
	json_object_del(r, "maxrss_kb");
	json_object_del(r, "spans");
	assert_null(result_validate(r));
	json_decref(r);
}

static void test_identity_mismatch(void **state)
{
	char *t = sample_text();
	char *p = write_text("moved.json", t);
	char *why = NULL;

	assert_null(result_read(p, "7.2", "arm64", "baseline", &why));
	assert_non_null(strstr(why, "'arch' is x86_64, expected arm64"));
	g_free(why);
	g_free(p);
	free(t);
}

/* A result that is not final (an interrupted or set-up failure) needs no key. */
static void test_not_final_without_key(void **state)
{
	json_t *r = result_new("5.10", "arm64", "stock", 0);
	char *p = g_build_filename(dir, "nf.json", NULL);
	char *why = NULL;
	json_t *back;

	result_set_verdict(r, "setup-error", false, "linux-source-5.10 is not installed", NULL);
	assert_int_equal(result_write(p, r, NULL), 0);
	back = result_read(p, "5.10", "arm64", "stock", &why);
	assert_non_null(back);
	json_decref(back);
	json_decref(r);
	g_free(p);
}

/* Text past RESULT_TEXT_MAX is clipped, and not inside a UTF-8 character. */
static void test_text_clipped(void **state)
{
	GString *s = g_string_new("x");
	json_t *j;
	const char *t;

	for (int i = 0; i < 100000; i++)
		g_string_append(s, "\u00e9");
	j = result_text(s->str);
	t = json_string_value(j);
	assert_true(strlen(t) <= RESULT_TEXT_MAX + 40);
	assert_true(g_str_has_suffix(t, " [kmatrix: 195906 more bytes cut]"));
	assert_null(strstr(t, "\ufffd"));
	json_decref(j);
	j = result_text("a short line");
	assert_string_equal(json_string_value(j), "a short line");
	json_decref(j);
	g_string_free(s, TRUE);
}

static void test_verdicts(void **state)
{
	assert_true(result_verdict_known("pass"));
	assert_true(result_verdict_known("setup-error"));
	assert_false(result_verdict_known("passed"));
	assert_false(result_verdict_known(NULL));
}

/* The release of a top-level Makefile, and the "kernel" block of a result. */
static void test_kernel_identity(void **state)
{
	static const char *const mk =
		"# SPDX-License-Identifier: GPL-2.0\nVERSION = 6\nPATCHLEVEL = 1\n"
		"SUBLEVEL = 158\nEXTRAVERSION =\nNAME = Curry Ramen\n";
	json_t *r = result_new("6.1", "x86_64", "stock", 0), *k;
	char *rel = result_kernel_release(mk);

	assert_string_equal(rel, "6.1.158");
	g_free(rel);
	rel = result_kernel_release("VERSION = 7\nPATCHLEVEL = 2\nSUBLEVEL = 0\nEXTRAVERSION = -rc3\n");
	assert_string_equal(rel, "7.2.0-rc3");
	g_free(rel);
	assert_null(result_kernel_release("all:\n\t@true\n"));
	assert_null(result_kernel_release(NULL));
	result_set_kernel(r, "linux-source-6.1", "6.1.158-1", mk);
	k = json_object_get(r, "kernel");
	assert_string_equal(json_string_value(json_object_get(k, "package")), "linux-source-6.1");
	assert_string_equal(json_string_value(json_object_get(k, "package_version")), "6.1.158-1");
	assert_string_equal(json_string_value(json_object_get(k, "release")), "6.1.158");
	/* a git tree: no package; an unreadable Makefile: no release */
	result_set_kernel(r, NULL, NULL, NULL);
	k = json_object_get(r, "kernel");
	assert_true(json_is_null(json_object_get(k, "package")));
	assert_true(json_is_null(json_object_get(k, "release")));
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_stale_temp),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_empty_and_garbage),
		cmocka_unit_test(test_invalid_fields),
		cmocka_unit_test(test_usage_fields),
		cmocka_unit_test(test_usage_optional),
		cmocka_unit_test(test_identity_mismatch),
		cmocka_unit_test(test_not_final_without_key),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_text_clipped),
		cmocka_unit_test(test_kernel_identity),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
