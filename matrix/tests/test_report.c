// SPDX-License-Identifier: GPL-2.0
/*
 * Report golden tests: every format from the fixed results fixture (every
 * verdict class, plus a missing, a broken and an unfinished result), with
 * and without a trend.  The goldens are only rewritten when
 * KMATRIX_REGEN_GOLDEN=1 is set, and then the test says so and fails, so a
 * regeneration is never silent.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <jansson.h>

#include "fixture.h"
#include "report.h"
#include "verbs.h"

#define FIX "fixtures/report/"
#define LOG_BASE "https://ci.example.org/kmatrix/run-1"

static char *tmpdir;
static int regenerated;

static int setup(void **state)
{
	g_setenv("KMATRIX_TOP", FIX "top", TRUE);
	tmpdir = fixture_tmpdir("report");
	return tmpdir ? 0 : -1;
}

static int teardown(void **state)
{
	fixture_rm_rf(tmpdir);
	g_free(tmpdir);
	return 0;
}

/* Run `kmatrix report ARGS... -o <tmp>/NAME`; its exit code and output. */
static int run_report(const char *name, char **text, ...)
{
	GPtrArray *argv = g_ptr_array_new();
	char *out = g_build_filename(tmpdir, name, NULL);
	const char *a;
	va_list ap;
	int rc;

	g_ptr_array_add(argv, "report");
	va_start(ap, text);
	while ((a = va_arg(ap, const char *)))
		g_ptr_array_add(argv, (char *)a);
	va_end(ap);
	g_ptr_array_add(argv, "-o");
	g_ptr_array_add(argv, out);
	g_ptr_array_add(argv, NULL);
	g_unlink(out);
	rc = cmd_report(argv->len - 1, (char **)argv->pdata);
	*text = NULL;
	g_file_get_contents(out, text, NULL, NULL);
	g_ptr_array_free(argv, TRUE);
	g_free(out);
	return rc;
}

static void check_golden(const char *golden, const char *text)
{
	char *path = g_build_filename(FIX "golden", golden, NULL);
	char *want = NULL;

	if (g_strcmp0(g_getenv("KMATRIX_REGEN_GOLDEN"), "1") == 0) {
		assert_true(g_file_set_contents(path, text, -1, NULL));
		print_message("regenerated %s: review and commit it\n", path);
		regenerated++;
		g_free(path);
		return;
	}
	if (!g_file_get_contents(path, &want, NULL, NULL))
		fail_msg("no golden %s (create it with KMATRIX_REGEN_GOLDEN=1)", path);
	if (strcmp(want, text)) {
		char *got = g_strconcat(path, ".got", NULL);

		g_file_set_contents(got, text, -1, NULL);
		fail_msg("%s differs: see diff -u %s %s", path, path, got);
	}
	g_free(want);
	g_free(path);
}

static void golden(const char *format, const char *name, bool trend)
{
	char *text;
	int rc;

	/* a --log-base: relative log links would name the temporary directory */
	if (trend)
		rc = run_report(name, &text, "--format", format, "--results",
				FIX "results", "--cache", FIX "cache", "--against",
				FIX "earlier", "--log-base", LOG_BASE, NULL);
	else
		rc = run_report(name, &text, "--format", format, "--results",
				FIX "results", "--cache", FIX "cache", "--log-base",
				LOG_BASE, NULL);
	assert_int_equal(rc, 0);
	assert_non_null(text);
	check_golden(name, text);
	g_free(text);
}

/* A regeneration run fails on purpose: goldens change only by review. */
static void end_golden(void)
{
	if (regenerated)
		fail_msg("%d golden(s) regenerated (KMATRIX_REGEN_GOLDEN=1)",
			 regenerated);
}

static void test_golden_md(void **state)
{
	golden("md", "report.md", false);
	golden("md", "trend.md", true);
	end_golden();
}

static void test_golden_html(void **state)
{
	golden("html", "report.html", false);
	golden("html", "trend.html", true);
	end_golden();
}

static void test_golden_junit(void **state)
{
	golden("junit", "junit.xml", false);
	end_golden();
}

static void test_golden_json(void **state)
{
	golden("json", "report.json", false);
	golden("json", "trend.json", true);
	end_golden();
}

/* The model behind the goldens, checked on its own terms. */
static void test_counts_and_classes(void **state)
{
	json_t *doc, *sum, *by;
	char *text;

	assert_int_equal(run_report("c.json", &text, "--format", "json",
				    "--results", FIX "results", "--cache",
				    FIX "cache", NULL), 0);
	doc = json_loads(text, 0, NULL);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "schema")),
			    REPORT_SCHEMA);
	sum = json_object_get(doc, "summary");
	assert_int_equal(json_integer_value(json_object_get(sum, "planned")), 20);
	assert_int_equal(json_integer_value(json_object_get(sum, "met")), 7);
	assert_int_equal(json_integer_value(json_object_get(sum, "departed")), 9);
	assert_int_equal(json_integer_value(json_object_get(sum, "knock_on")), 1);
	assert_int_equal(json_integer_value(json_object_get(sum, "missing")), 3);
	by = json_object_get(sum, "by_verdict");
	/* ten verdict classes and "missing": the fixture covers them all */
	assert_int_equal(json_object_size(by), 11);
	json_decref(doc);
	g_free(text);
}

/* Against our own JSON report: the same trend as against the directory. */
static void test_trend_against_json_report(void **state)
{
	char *earlier, *path = g_build_filename(tmpdir, "earlier.json", NULL);
	char *a, *b;

	assert_int_equal(run_report("earlier.json", &earlier, "--format", "json",
				    "--results", FIX "earlier", "--cache",
				    FIX "cache", NULL), 0);
	assert_int_equal(run_report("t1.json", &a, "--format", "json", "--results",
				    FIX "results", "--cache", FIX "cache",
				    "--against", FIX "earlier", NULL), 0);
	assert_int_equal(run_report("t2.json", &b, "--format", "json", "--results",
				    FIX "results", "--cache", FIX "cache",
				    "--against", path, NULL), 0);
	{
		json_t *ja = json_loads(a, 0, NULL), *jb = json_loads(b, 0, NULL);
		json_t *ta = json_object_get(ja, "trend"), *tb = json_object_get(jb, "trend");

		assert_true(json_array_size(json_object_get(ta, "new_departures")) > 0);
		assert_true(json_equal(json_object_get(ta, "new_departures"),
				       json_object_get(tb, "new_departures")));
		assert_true(json_equal(json_object_get(ta, "fixed"),
				       json_object_get(tb, "fixed")));
		assert_true(json_equal(json_object_get(ta, "timing"),
				       json_object_get(tb, "timing")));
		json_decref(ja);
		json_decref(jb);
	}
	g_free(a);
	g_free(b);
	g_free(earlier);
	g_free(path);
}

static void copy_file(const char *from, const char *to)
{
	char *text, *dir = g_path_get_dirname(to);
	size_t len;

	assert_true(g_file_get_contents(from, &text, &len, NULL));
	g_mkdir_with_parents(dir, 0755);
	assert_true(g_file_set_contents(to, text, len, NULL));
	g_free(text);
	g_free(dir);
}

/* An interrupted run: run.json cut short, one good cell, one empty file. */
static void test_interrupted_run(void **state)
{
	char *res = g_build_filename(tmpdir, "cut", NULL);
	char *good = g_build_filename(res, "7.2", "x86_64", "stock.json", NULL);
	char *empty = g_build_filename(res, "7.2", "x86_64", "baseline.json", NULL);
	char *meta = g_build_filename(res, "run.json", NULL);
	char *text;

	copy_file(FIX "results/7.2/x86_64/stock.json", good);
	assert_true(g_file_set_contents(empty, "", 0, NULL));
	assert_true(g_file_set_contents(meta, "{\"schema\": \"kmatrix-run/1\", \"cel", -1, NULL));
	assert_int_equal(run_report("cut.md", &text, "--results", res, "--cache",
				    FIX "cache", NULL), 0);
	assert_non_null(strstr(text, "2 cells planned: 1 met, 0 departed, 1 missing"));
	assert_non_null(strstr(text, "run.json unusable"));
	assert_non_null(strstr(text, "| 7.2 | x86_64 | pass | **MISSING** |"));
	assert_non_null(strstr(text, "- `7.2/x86_64/baseline`: unusable result: 7.2/x86_64/baseline.json"));
	g_free(text);

	/* the planned cells of a valid run.json, none of which has a result */
	assert_true(g_file_set_contents(meta, "{\"schema\": \"kmatrix-run/1\", \"cells\": [\"6.1/arm64/stock\", \"7.2/x86_64/stock\"]}", -1, NULL));
	assert_int_equal(run_report("cut2.md", &text, "--results", res, "--cache",
				    FIX "cache", NULL), 0);
	assert_non_null(strstr(text, "2 cells planned: 1 met, 0 departed, 1 missing"));
	assert_non_null(strstr(text, "- `6.1/arm64/stock`: no result file"));
	g_free(text);
	g_free(res);
	g_free(good);
	g_free(empty);
	g_free(meta);
}

static void test_usage_errors(void **state)
{
	char *text;

	assert_int_equal(run_report("x", &text, "--format", "pdf", NULL), 2);
	assert_null(text);
	assert_int_equal(run_report("x", &text, "--results", FIX "no-such-dir",
				    "--cache", FIX "cache", NULL), 2);
	assert_null(text);
	assert_int_equal(run_report("x", &text, "--results", FIX "results",
				    "--cache", FIX "cache", "--against",
				    FIX "top/matrix/matrix.conf", NULL), 2);
	assert_null(text);
	assert_int_equal(run_report("x", &text, "stray-argument", NULL), 2);
	assert_null(text);
}

/* JSON file @path with @key set to @v (taken). */
static void json_file_set(const char *path, const char *key, json_t *v)
{
	json_t *j = json_load_file(path, 0, NULL);

	assert_non_null(j);
	json_object_set_new(j, key, v);
	assert_int_equal(json_dump_file(j, path, JSON_INDENT(1)), 0);
	json_decref(j);
}

/*
 * The ABI table: a booted suite's runtime numbers beside rlimit-abi's
 * header row for the same tree, a disagreement spelled out, and a
 * headers-only arch with its reason.
 */
static void test_abi_runtime_table(void **state)
{
	char *res = g_build_filename(tmpdir, "abi-results", NULL);
	char *cmd = g_strdup_printf("cp -r %s %s", FIX "results", res);
	char *cell = g_build_filename(res, "7.2", "x86_64", "rtprio.json", NULL);
	char *run = g_build_filename(res, "run.json", NULL);
	char *text;

	assert_int_equal(system(cmd), 0);
	json_file_set(cell, "abi_runtime", json_pack(
		"{s:{s:s, s:{s:i, s:i, s:i}, s:{s:i, s:i, s:i}, s:{s:i, s:i, s:i}},"
		" s:{s:s, s:{s:i, s:i}, s:{s:i, s:i}, s:{s:i, s:i}}}",
		"x86_64", "header_arch", "x86",
		"uapi", "RLIMIT_NICE", 13, "RLIMIT_NOFILE", 7, "RLIM_NLIMITS", 16,
		"libc", "RLIMIT_NICE", 13, "RLIMIT_NOFILE", 7, "RLIM_NLIMITS", 16,
		"kernel", "RLIMIT_NICE", 13, "RLIMIT_NOFILE", 7, "RLIM_NLIMITS", 16,
		"i386", "header_arch", "x86",
		"uapi", "RLIMIT_NICE", 13, "RLIMIT_NOFILE", 7,
		"libc", "RLIMIT_NICE", 13, "RLIMIT_NOFILE", 7,
		"kernel", "RLIMIT_NICE", 15, "RLIMIT_NOFILE", 7));
	json_file_set(run, "abi", json_pack(
		"{s:s, s:b, s:[{s:s, s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, s:s}]}",
		"schema", "rlimit-abi/1", "ok", 1, "matrix",
		"trees", "all", "arch", "x86", "NICE", "13", "NOFILE", "7", "NLIMITS", "16",
		"trees", "7.2@stock", "arch", "alpha", "NOFILE", "6*", "NICE", "13"));
	json_file_set(run, "headers_only", json_pack("[{s:s, s:s}]", "arch", "alpha",
						     "reason", "no C library for alpha"));
	assert_int_equal(run_report("abi.md", &text, "--format", "md", "--results", res,
				    "--cache", FIX "cache", NULL), 0);
	assert_non_null(strstr(text, "| 7.2 | x86_64 | x86_64 | rtprio | x86 | - | - | 7 | - | - "
				     "| 13 | - | - | 16 | header = uapi = libc = kernel |"));
	assert_non_null(strstr(text, "| 7.2 | x86_64 | i386 | rtprio | x86 |"));
	assert_non_null(strstr(text, "13/13/13/15!"));
	assert_non_null(strstr(text, "NICE: header 13, uapi 13, libc 13, kernel 15"));
	assert_non_null(strstr(text, "| 7.2 | alpha | - | stock | alpha | - | - | 6 |"));
	assert_non_null(strstr(text, "not booted: no C library for alpha"));
	assert_non_null(strstr(text, "| headers across trees and arches | consistent |"));
	assert_non_null(strstr(text, "| findings | none |"));
	/* 6.1 was not booted with an ABI report: no row */
	assert_null(strstr(text, "| 6.1 | x86_64 | x86_64 |"));
	g_free(text);
	g_free(cell);
	g_free(run);
	g_free(cmd);
	g_free(res);
}

/* One case of a result: name, result, diag, expected, met. */
#define AUDIO_T "{s:s, s:s, s:s, s:s, s:b}"

/* The audio user's row: granted at the last step, refused at the baseline. */
static void test_audio(void **state)
{
	char *res = g_build_filename(tmpdir, "audio-results", NULL);
	char *cmd = g_strdup_printf("cp -r %s %s", FIX "results", res);
	char *fin = g_build_filename(res, "7.2", "x86_64", "rtprio.json", NULL);
	char *base =
		g_build_filename(res, "7.2", "x86_64", "baseline.json", NULL);
	const char *fmt = "[" AUDIO_T "," AUDIO_T "," AUDIO_T "," AUDIO_T "]";
	const char *pkgs =
		"# audio package jackd2 1.9.21~dfsg-3\n# audio package rt-tests 2.4-1";
	char *text;

	assert_int_equal(system(cmd), 0);
	json_file_set(
		fin, "tests",
		json_pack(fmt, "name", "audio_jackd_conf_as_shipped", "result",
			  "ok", "diag", pkgs, "expected", "pass", "met", 1,
			  "name", "audio_jackd_member_cyclictest_fifo95",
			  "result", "ok", "diag", "", "expected", "pass", "met",
			  1, "name", "audio_jackd_member_chrt_f95", "result",
			  "ok", "diag", "", "expected", "pass", "met", 1,
			  "name", "audio_pipewire_member_nice_m19", "result",
			  "ok", "diag", "", "expected", "pass", "met", 1));
	json_file_set(
		base, "tests",
		json_pack(fmt, "name", "audio_jackd_conf_as_shipped", "result",
			  "ok", "diag", pkgs, "expected", "pass", "met", 1,
			  "name", "audio_jackd_member_cyclictest_fifo95",
			  "result", "not ok", "diag", "", "expected", "pass",
			  "met", 1, "name", "audio_jackd_member_chrt_f95",
			  "result", "ok", "diag", "", "expected", "pass", "met",
			  1, "name", "audio_pipewire_member_nice_m19", "result",
			  "not ok", "diag", "", "expected", "pass", "met", 1));
	assert_int_equal(run_report("audio.md", &text, "--format", "md",
				    "--results", res, "--cache", FIX "cache",
				    NULL),
			 0);
	assert_non_null(strstr(text, "## Audio user\n\nA member of audio "));
	/* A grant the baseline let through is named with its result. */
	assert_non_null(strstr(
		text,
		"| 7.2 | x86_64 | rtprio: granted | jackd_member_cyclictest_fifo95 "
		"not ok, jackd_member_chrt_f95 ok, pipewire_member_nice_m19 not ok "
		"| jackd2 1.9.21~dfsg-3, rt-tests 2.4-1 |"));
	/* No audio case in a row: no row. */
	assert_null(strstr(text, "| 6.1 | x86_64 | rtprio"));
	g_free(text);
	assert_int_equal(run_report("audio-none.md", &text, "--format", "md",
				    "--results", FIX "results", "--cache",
				    FIX "cache", NULL),
			 0);
	assert_null(strstr(text, "## Audio user"));
	g_free(text);
	g_free(fin);
	g_free(base);
	g_free(cmd);
	g_free(res);
}

/* An excluded version x arch: marked in the grid, explained, a JUnit skip. */
static void test_excluded(void **state)
{
	char *res = g_build_filename(tmpdir, "excl-results", NULL);
	char *cmd = g_strdup_printf("cp -r %s %s", FIX "results", res);
	char *run = g_build_filename(res, "run.json", NULL);
	json_t *meta, *cells = json_array(), *c;
	size_t i;
	char *text;

	assert_int_equal(system(cmd), 0);
	meta = json_load_file(run, 0, NULL);
	json_array_foreach(json_object_get(meta, "cells"), i, c)
		if (!g_str_has_prefix(json_string_value(c), "6.1/arm64/"))
			json_array_append(cells, c);
	json_decref(meta);
	json_file_set(run, "cells", cells);
	json_file_set(run, "excluded", json_pack("[{s:s, s:s, s:s, s:s, s:[s, s]}]",
		"version", "6.1", "arch", "arm64", "reason", "stock does not build",
		"evidence_file", "arch-configs/arm64/exclusions/6.1.log",
		"evidence", "fs/fcntl.c:1169:9: BUILD_BUG_ON", "make: *** Error 1"));
	assert_int_not_equal(run_report("x.md", &text, "--format", "md", "--results", res,
					"--cache", FIX "cache", NULL), 2);
	assert_non_null(strstr(text, "; 1 version x arch excluded"));
	assert_non_null(strstr(text, "| 6.1 | arm64 | excluded | excluded |"));
	assert_non_null(strstr(text, "### 6.1 x arm64\n\nstock does not build (evidence: "
				     "`arch-configs/arm64/exclusions/6.1.log`)\n"));
	assert_non_null(strstr(text, "fs/fcntl.c:1169:9: BUILD_BUG_ON\nmake: *** Error 1\n```"));
	g_free(text);
	run_report("x.html", &text, "--format", "html", "--results", res, "--cache",
		   FIX "cache", NULL);
	assert_non_null(strstr(text, "<td class=\"cell v-excluded\" title=\"stock does not build\">"));
	assert_non_null(strstr(text, "<section id=\"excluded\">"));
	g_free(text);
	run_report("x.xml", &text, "--format", "junit", "--results", res, "--cache",
		   FIX "cache", NULL);
	assert_non_null(strstr(text, "<skipped message=\"stock does not build\"/>"));
	g_free(text);
	g_free(run);
	g_free(cmd);
	g_free(res);
}

/* A "pass" that missed its expectation (a hand-made file) is a failure. */
static void test_junit_unmet_pass(void **state)
{
	char *res = g_build_filename(tmpdir, "unmet-results", NULL);
	char *cmd = g_strdup_printf("cp -r %s %s", FIX "results", res);
	char *cell = g_build_filename(res, "7.2", "x86_64", "stock.json", NULL);
	char *text;

	assert_int_equal(system(cmd), 0);
	json_file_set(cell, "met", json_false());
	run_report("u.xml", &text, "--format", "junit", "--results", res, "--cache",
		   FIX "cache", NULL);
	assert_non_null(strstr(text, "<testcase name=\"pass\""));
	assert_non_null(strstr(text, "<failure message="));
	assert_non_null(strstr(text, " type=\"pass\">"));
	assert_null(strstr(text, "<(null)"));
	g_free(text);
	g_free(cell);
	g_free(cmd);
	g_free(res);
}

static void test_gate(void **state)
{
	static const struct {
		int planned, unmet, missing, stale;
		enum report_gate want;
	} cases[] = {
		{ 20, 0, 0, 0, GATE_SHIP },
		{ 20, 1, 0, 0, GATE_BLOCKED },
		{ 20, 1, 3, 2, GATE_BLOCKED },	/* a departure outranks a gap */
		{ 20, 0, 1, 0, GATE_INCOMPLETE },
		{ 20, 0, 0, 1, GATE_INCOMPLETE },
		{ 0, 0, 0, 0, GATE_INCOMPLETE },	/* nothing planned ships nothing */
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
		assert_int_equal(report_gate(cases[i].planned, cases[i].unmet, cases[i].missing,
					     cases[i].stale), cases[i].want);
}

/* A copy of the fixture results whose run.json plans only @ids. */
static char *results_with(const char *name, const char *const *ids)
{
	char *res = g_build_filename(tmpdir, name, NULL);
	char *cmd = g_strdup_printf("cp -r %s %s", FIX "results", res);
	char *run = g_build_filename(res, "run.json", NULL);
	json_t *cells = json_array();

	assert_int_equal(system(cmd), 0);
	for (int i = 0; ids[i]; i++)
		json_array_append_new(cells, json_string(ids[i]));
	json_file_set(run, "cells", cells);
	g_free(run);
	g_free(cmd);
	return res;
}

/* --format summary: the verdict first, one line a cell, exit 0/1/3. */
static void test_summary(void **state)
{
	static const char *const met[] = { "6.1/x86_64/stock", "7.2/x86_64/stock",
					   "7.2/x86_64/rtprio", NULL };
	static const char *const gap[] = { "6.1/x86_64/stock", "7.2/arm64/rtprio", NULL };
	char *res, *text;

	assert_int_equal(run_report("s.txt", &text, "--format", "summary", "--results",
				    FIX "results", "--cache", FIX "cache", "--against",
				    FIX "earlier", NULL), GATE_BLOCKED);
	assert_true(g_str_has_prefix(text, "BLOCKED: 9 of 20 cells did not meet their expectations, "
					   "1 more not run after a step that did not apply\n"));
	assert_non_null(strstr(text, "  fixed (1): 6.1/x86_64/stock\n"));
	assert_non_null(strstr(text, "  6.1/arm64/uapi           build-failed    kernel/sys.c:1532:14: "
				     "error: 'RLIMIT_NICE' undeclared"));
	assert_non_null(strstr(text, "  7.2/arm64/rtprio         missing         no result file"));
	g_free(text);
	res = results_with("ship", met);
	assert_int_equal(run_report("s.txt", &text, "--format", "summary", "--results", res,
				    "--cache", FIX "cache", NULL), GATE_SHIP);
	assert_true(g_str_has_prefix(text, "SHIP: all 3 planned cells met"));
	assert_non_null(strstr(text, "\nNot met (0): none\n"));
	g_free(text);
	g_free(res);
	res = results_with("gap", gap);
	assert_int_equal(run_report("s.txt", &text, "--format", "summary", "--results", res,
				    "--cache", FIX "cache", NULL), GATE_INCOMPLETE);
	assert_true(g_str_has_prefix(text, "INCOMPLETE: 1 of 2 cells met, 1 missing, 0 stale"));
	g_free(text);
	g_free(res);
}

/* The verdict @fmt heads with: its first "SHIP|BLOCKED|INCOMPLETE" word. */
static char *headline(const char *res, const char *fmt)
{
	GRegex *re = g_regex_new("\\b(SHIP|BLOCKED|INCOMPLETE)\\b", 0, 0, NULL);
	GMatchInfo *m = NULL;
	char *text, *word = NULL;
	json_t *doc;

	run_report("v.out", &text, "--format", fmt, "--results", res, "--cache",
		   FIX "cache", NULL);
	assert_non_null(text);
	if (!strcmp(fmt, "json")) {
		doc = json_loads(text, 0, NULL);
		word = g_strdup(json_string_value(json_object_get(
			json_object_get(doc, "summary"), "verdict")));
		json_decref(doc);
	} else {
		/* the headline, not the summary block further down */
		char *end = strstr(text, !strcmp(fmt, "html") ? "<section" : "\n## ");

		if (end)
			*end = '\0';
		if (g_regex_match(re, text, 0, &m))
			word = g_match_info_fetch(m, 1);
	}
	if (m)
		g_match_info_free(m);
	assert_null(strstr(text, "ALL MET"));
	g_regex_unref(re);
	g_free(text);
	return word;
}

/* One verdict, the first word of every format, the same in each. */
static void test_one_verdict(void **state)
{
	static const char *const gap[] = { "6.1/x86_64/stock", "7.2/arm64/rtprio", NULL };
	static const char *const fmts[] = { "md", "html", "summary", "json", NULL };
	char *res = results_with("verdict-gap", gap);
	const struct {
		const char *res, *want;
	} runs[] = { { FIX "results", "BLOCKED" }, { res, "INCOMPLETE" } };

	for (size_t i = 0; i < G_N_ELEMENTS(runs); i++)
		for (int f = 0; fmts[f]; f++) {
			char *w = headline(runs[i].res, fmts[f]);

			if (g_strcmp0(w, runs[i].want))
				fail_msg("%s of %s heads with %s, not %s", fmts[f],
					 runs[i].res, w, runs[i].want);
			g_free(w);
		}
	g_free(res);
}

/* Every id of @html once, and every "#fragment" link naming one. */
static void assert_ids(const char *html)
{
	GRegex *ids = g_regex_new("\\sid=\"([^\"]*)\"", 0, 0, NULL);
	GRegex *refs = g_regex_new("\\shref=\"#([^\"]*)\"", 0, 0, NULL);
	GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	GMatchInfo *m;

	g_regex_match(ids, html, 0, &m);
	for (; g_match_info_matches(m); g_match_info_next(m, NULL)) {
		char *id = g_match_info_fetch(m, 1);

		if (!g_hash_table_add(seen, id))
			fail_msg("id=\"%s\" appears twice", id);
	}
	g_match_info_free(m);
	assert_true(g_hash_table_size(seen) > 10);
	g_regex_match(refs, html, 0, &m);
	for (; g_match_info_matches(m); g_match_info_next(m, NULL)) {
		char *id = g_match_info_fetch(m, 1);

		if (!g_hash_table_contains(seen, id))
			fail_msg("a link to #%s, which no element has", id);
		g_free(id);
	}
	g_match_info_free(m);
	g_hash_table_destroy(seen);
	g_regex_unref(refs);
	g_regex_unref(ids);
}

/* The HTML's ids are unique and its in-page links land, with and without a trend. */
static void test_html_ids(void **state)
{
	char *text;

	assert_int_equal(run_report("ids.html", &text, "--format", "html", "--results",
				    FIX "results", "--cache", FIX "cache", NULL), 0);
	assert_ids(text);
	g_free(text);
	assert_int_equal(run_report("ids.html", &text, "--format", "html", "--results",
				    FIX "results", "--cache", FIX "cache", "--against",
				    FIX "earlier", NULL), 0);
	assert_ids(text);
	g_free(text);
}

/* The ABI section in words, never rlimit-abi's keys or JSON literals. */
static void test_abi_words(void **state)
{
	char *res = g_build_filename(tmpdir, "abi-words", NULL);
	char *cmd = g_strdup_printf("cp -r %s %s", FIX "results", res);
	char *run = g_build_filename(res, "run.json", NULL);
	static const char *const fmts[] = { "md", "html", NULL };
	json_t *meta, *abi;
	char *text, *sec;

	assert_int_equal(system(cmd), 0);
	meta = json_load_file(run, 0, NULL);
	abi = json_deep_copy(json_object_get(meta, "abi"));
	json_array_append_new(json_object_get(abi, "findings"), json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:s}", "check", "libc-agrees", "tree", "7.2",
		"arch", "mips", "symbol", "RLIMIT_NICE", "file", "bits/resource.h",
		"message", "glibc says 14, the uapi 13"));
	json_object_set_new(abi, "findings_count", json_integer(2));
	json_decref(meta);
	json_file_set(run, "abi", abi);
	for (int f = 0; fmts[f]; f++) {
		assert_int_equal(run_report("w.out", &text, "--format", fmts[f], "--results",
					    res, "--cache", FIX "cache", NULL), 0);
		sec = strstr(text, !strcmp(fmts[f], "md") ? "## ABI" : "<section id=\"abi\">");
		assert_non_null(sec);
		assert_non_null(strstr(sec, "2 findings"));
		assert_non_null(strstr(sec, "differs: RLIM_NLIMITS is 15 in 6.1 but 16 in 7.2; "
					    "glibc says 14, the uapi 13"));
		assert_non_null(strstr(sec, "6.1 (3 of 3 arches), 7.2 (3 of 3 arches)"));
		assert_null(strstr(sec, "findings_count"));
		assert_null(strstr(sec, "false"));
		assert_null(strstr(sec, "rlimit-abi/1"));
		g_free(text);
	}
	g_free(run);
	g_free(cmd);
	g_free(res);
}

/*
 * 6.1/x86_64/uapi did not apply, so nice is apply-failed too: a knock-on,
 * shown under uapi and counted once, in every format; still BLOCKED.
 */
static void test_knock_on(void **state)
{
	static const char *const row[] = { "6.1/x86_64/stock", "6.1/x86_64/uapi",
					   "6.1/x86_64/nice", NULL };
	char *res = results_with("knock", row), *text;
	json_t *doc, *c;
	size_t i;

	assert_int_equal(run_report("k.txt", &text, "--format", "summary", "--results", res,
				    "--cache", FIX "cache", NULL), GATE_BLOCKED);
	assert_true(g_str_has_prefix(text, "BLOCKED: 1 of 3 cells did not meet their expectations, "
					   "1 more not run after a step that did not apply\n"));
	assert_non_null(strstr(text, "Not met (1, and 1 knock-on):\n  6.1/x86_64/uapi "));
	assert_non_null(strstr(text, "resource.h:42\n    6.1/x86_64/nice        knock-on        "
				     "not run: uapi did not apply\n"));
	g_free(text);
	run_report("k.md", &text, "--format", "md", "--results", res, "--cache", FIX "cache", NULL);
	assert_non_null(strstr(text, "3 cells planned: 1 met, 1 departed, 1 knock-on, 0 missing"));
	assert_non_null(strstr(text, "| 6.1 | x86_64 | pass | **APPLY FAIL** | not run (uapi) |"));
	assert_non_null(strstr(text, "\n## Departures (1)\n"));
	assert_non_null(strstr(text, "Knock-on (1, not counted as departures):\n\n"
				     "- `6.1/x86_64/nice`: not run: uapi did not apply\n"));
	assert_null(strstr(text, "### 6.1/x86_64/nice"));
	g_free(text);
	run_report("k.html", &text, "--format", "html", "--results", res, "--cache", FIX "cache",
		   NULL);
	assert_non_null(strstr(text, "Departures (1), knock-on (1) and missing results (0)"));
	assert_non_null(strstr(text, "Knock-on (1, not counted as departures): "
				     "<a href=\"#cell-6.1-x86_64-nice\">6.1/x86_64/nice</a> not run: "
				     "uapi did not apply</p>"));
	assert_non_null(strstr(text, "<a href=\"#cell-6.1-x86_64-nice\">NOT RUN</a>"));
	g_free(text);
	run_report("k.json", &text, "--format", "json", "--results", res, "--cache", FIX "cache",
		   NULL);
	doc = json_loads(text, 0, NULL);
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "summary"),
							      "verdict")), "BLOCKED");
	json_array_foreach(json_object_get(doc, "cells"), i, c) {
		const char *of = json_string_value(json_object_get(c, "knock_on_of"));

		if (!strcmp(jstr(c, "id"), "6.1/x86_64/nice"))
			assert_string_equal(of, "6.1/x86_64/uapi");
		else
			assert_null(of);
	}
	json_decref(doc);
	g_free(text);
	run_report("k.xml", &text, "--format", "junit", "--results", res, "--cache", FIX "cache",
		   NULL);
	/* stock's 6 tests, uapi's verdict case, nice's skipped knock-on case */
	assert_non_null(strstr(text, "tests=\"8\" failures=\"1\" errors=\"0\" skipped=\"1\""));
	assert_non_null(strstr(text, "<testcase name=\"knock-on\" classname=\"kmatrix.linux-6_1.x86_64.nice\" "
				     "time=\"0.000\">\n      <skipped message=\"not run: uapi did not apply\"/>"));
	g_free(text);
	run_report("k.kcidb", &text, "--format", "kcidb", "--results", res, "--cache", FIX "cache",
		   NULL);
	assert_non_null(strstr(text, "\"knock_on_of\": \"6.1/x86_64/uapi\""));
	assert_non_null(strstr(text, "6.1/x86_64/nice: not run: uapi did not apply"));
	g_free(text);
	g_free(res);
}

/* mutants_load(@text)'s error, which must name the file and @want. */
static void assert_bad_score(const char *text, const char *want)
{
	char *path = g_build_filename(tmpdir, "bad-score.json", NULL);
	GError *err = NULL;

	assert_true(g_file_set_contents(path, text, -1, NULL));
	assert_null(mutants_load(path, &err));
	assert_non_null(err);
	if (!strstr(err->message, path) || !strstr(err->message, want))
		fail_msg("'%s' does not name %s and '%s'", err->message, path, want);
	g_error_free(err);
	g_free(path);
}

/*
 * The mutation score beside the verdict: N of M killed, the survivor
 * named and warned about, the verdict itself unchanged; a bad score file
 * is refused, naming the file and what is wrong.
 */
static void test_mutants(void **state)
{
	static const char *const met[] = { "6.1/x86_64/stock", "7.2/x86_64/stock", NULL };
	static const char *const fmts[] = { "md", "html", "summary", "json", NULL };
	char *res = results_with("mutants-ship", met), *text, *copy;
	json_t *doc, *m;

	for (int f = 0; fmts[f]; f++) {
		int rc = run_report("m.out", &text, "--format", fmts[f], "--results", res,
				    "--cache", FIX "cache", "--mutants", FIX "mutants.json", NULL);

		/* a survivor judges the tests, not the series: still SHIP */
		assert_int_equal(rc, !strcmp(fmts[f], "summary") ? GATE_SHIP : 0);
		if (!strcmp(fmts[f], "json")) {
			doc = json_loads(text, 0, NULL);
			m = json_object_get(doc, "mutants");
			assert_int_equal(json_integer_value(json_object_get(m, "killed")), 2);
			assert_int_equal(json_integer_value(json_object_get(m, "total")), 3);
			assert_string_equal(json_string_value(json_array_get(
				json_object_get(m, "survivors"), 0)), "08-can-nice-lt (x86_64)");
			assert_string_equal(jstr(json_object_get(doc, "summary"), "verdict"), "SHIP");
			json_decref(doc);
		} else {
			assert_non_null(strstr(text, "WARNING: Mutation testing: 2 of 3 killed; "
						     "SURVIVED: 08-can-nice-lt (x86_64)"));
			assert_non_null(strstr(text, "SHIP: all 2 planned cells met"));
		}
		g_free(text);
	}
	/* picked up from the results directory */
	copy = g_build_filename(res, "mutants.json", NULL);
	copy_file(FIX "mutants.json", copy);
	run_report("m.md", &text, "--results", res, "--cache", FIX "cache", NULL);
	assert_non_null(strstr(text, "## Mutation testing\n\n2 of 3 killed"));
	assert_non_null(strstr(text, "| 08-can-nice-lt | x86_64 | SURVIVED |  |"));
	assert_non_null(strstr(text, "| 12-rt-policy-switch | x86_64 | killed | (boot-failed) kernel panic"));
	g_free(text);
	assert_true(g_file_set_contents(copy, "{\"killed\": 1", -1, NULL));
	assert_int_equal(run_report("m.md", &text, "--results", res, "--cache", FIX "cache",
				    NULL), 2);
	g_free(text);
	assert_bad_score("{\"killed\": 1", "line 1");
	assert_bad_score("[]", "not a JSON object");
	assert_bad_score("{\"killed\": 1, \"total\": 1, \"mutants\": []}",
			 "'total' is 1 but 'mutants' lists 0");
	assert_bad_score("{\"killed\": 1, \"total\": 1, \"mutants\": [{\"mutant\": \"a\", "
			 "\"arch\": \"x86_64\", \"status\": \"maybe\", \"cases\": []}]}",
			 "status 'maybe' is none of killed, survived, defect");
	assert_bad_score("{\"killed\": 0, \"total\": 1, \"mutants\": [{\"mutant\": \"a\", "
			 "\"arch\": \"x86_64\", \"status\": \"killed\", \"cases\": []}]}",
			 "'killed' is 0 but 1 entries are killed");
	g_free(copy);
	g_free(res);
}

/* Each failed cell's log: its own link, and where the fixture has it. */
static const char *const failed_logs[] = {
	"6.1/x86_64/uapi.apply.log", "6.1/arm64/baseline.config.log",
	"6.1/arm64/uapi.build.log", "7.2/x86_64/nice.console.log",
	"7.2/arm64/uapi.console.log", "7.2/arm64/nice.console.log", NULL
};

/*
 * The links of @text in @fmt: with --log-base each is base/<log>; without,
 * it resolves from @from (the report's directory) to the fixture's file.
 */
static void assert_log_links(const char *text, const char *fmt, const char *from)
{
	for (int i = 0; failed_logs[i]; i++) {
		char *cwd = g_get_current_dir(), *want, *rel = NULL;
		char *abs = g_build_filename(cwd, FIX "results", failed_logs[i], NULL);


		if (from) {
			GRegex *re = g_regex_new(!strcmp(fmt, "md") ? "\\]\\(<([^>]*)>\\)" :
							   "href=\"([^\"#]*)\"", 0, 0, NULL);
			GMatchInfo *m;

			g_regex_match(re, text, 0, &m);
			for (; g_match_info_matches(m) && !rel; g_match_info_next(m, NULL)) {
				char *href = g_match_info_fetch(m, 1);
				char *path = g_build_filename(from, href, NULL);
				char *canon = g_canonicalize_filename(path, NULL);

				if (!strcmp(canon, abs))
					rel = g_strdup(href);
				g_free(canon);
				g_free(path);
				g_free(href);
			}
			g_match_info_free(m);
			g_regex_unref(re);
			if (!rel)
				fail_msg("%s: no link resolves to %s", fmt, abs);
		} else {
			want = g_strdup_printf(!strcmp(fmt, "md") ? "](<%s/%s>)" : "href=\"%s/%s\"",
					       LOG_BASE, failed_logs[i]);
			if (!strstr(text, want))
				fail_msg("%s: no link %s", fmt, want);
			g_free(want);
		}
		g_free(rel);
		g_free(abs);
		g_free(cwd);
	}
}

static void test_log_links(void **state)
{
	static const char *const fmts[] = { "md", "html", NULL };
	char *sub = g_build_filename(tmpdir, "links", "deep", NULL);
	char *text;

	g_mkdir_with_parents(sub, 0755);
	for (int f = 0; fmts[f]; f++) {
		char *name = g_strdup_printf("links/deep/r.%s", fmts[f]);

		run_report(name, &text, "--format", fmts[f], "--results", FIX "results",
			   "--cache", FIX "cache", NULL);
		assert_log_links(text, fmts[f], sub);
		g_free(text);
		run_report(name, &text, "--format", fmts[f], "--results", FIX "results",
			   "--cache", FIX "cache", "--log-base", LOG_BASE, NULL);
		assert_log_links(text, fmts[f], NULL);
		/* a log the results do not hold gets no link */
		assert_null(strstr(text, "6.1/x86_64/nice.apply.log"));
		g_free(text);
		g_free(name);
	}
	g_free(sub);
}

/*
 * Each version's exact kernel in the header: from a result's "kernel"
 * (7.2), from the stock subject of results that predate it, or said to be
 * unrecorded.
 */
static void test_kernels(void **state)
{
	static const char *const ids[] = { "6.1/x86_64/stock", "6.1/x86_64/baseline",
					   "7.2/x86_64/stock", "7.2/arm64/baseline", NULL };
	char *res = results_with("kernels", ids), *text, *stock;
	json_t *doc, *k;

	run_report("k.md", &text, "--results", res, "--cache", FIX "cache", NULL);
	assert_non_null(strstr(text, "| 7.2 | linux-source-7.2 7.2.3-1, Linux 7.2.3 |"));
	assert_non_null(strstr(text, "| 6.1 | linux-source-6.1 (version and release not recorded) |"));
	g_free(text);
	stock = g_build_filename(res, "6.1", "x86_64", "stock.json", NULL);
	json_file_set(stock, "subject", json_string("stock: linux-source-6.1 6.1.158-1"));
	run_report("k.html", &text, "--format", "html", "--results", res, "--cache", FIX "cache",
		   NULL);
	assert_non_null(strstr(text, "<dt>Kernels</dt><dd>6.1: linux-source-6.1 6.1.158-1 (release "
				     "not recorded); 7.2: linux-source-7.2 7.2.3-1, Linux 7.2.3</dd>"));
	g_free(text);
	json_file_set(stock, "subject", json_string("something else"));
	run_report("k.json", &text, "--format", "json", "--results", res, "--cache", FIX "cache",
		   NULL);
	doc = json_loads(text, 0, NULL);
	k = json_object_get(json_object_get(doc, "run"), "kernels");
	assert_string_equal(jstr(k, "6.1"), "exact kernel not recorded in these results");
	assert_string_equal(jstr(k, "7.2"), "linux-source-7.2 7.2.3-1, Linux 7.2.3");
	json_decref(doc);
	g_free(text);
	g_free(stock);
	g_free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_abi_runtime_table),
		cmocka_unit_test(test_audio),
		cmocka_unit_test(test_excluded),
		cmocka_unit_test(test_gate),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_one_verdict),
		cmocka_unit_test(test_html_ids),
		cmocka_unit_test(test_abi_words),
		cmocka_unit_test(test_knock_on),
		cmocka_unit_test(test_mutants),
		cmocka_unit_test(test_log_links),
		cmocka_unit_test(test_kernels),
		cmocka_unit_test(test_golden_md),
		cmocka_unit_test(test_golden_html),
		cmocka_unit_test(test_golden_junit),
		cmocka_unit_test(test_junit_unmet_pass),
		cmocka_unit_test(test_golden_json),
		cmocka_unit_test(test_counts_and_classes),
		cmocka_unit_test(test_trend_against_json_report),
		cmocka_unit_test(test_interrupted_run),
		cmocka_unit_test(test_usage_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
