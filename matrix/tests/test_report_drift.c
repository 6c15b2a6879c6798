// SPDX-License-Identifier: GPL-2.0
/*
 * Backport drift against real git: two small trees laid by
 * fixtures/report/mktrees.sh, a canonical series and a backport with one
 * identical, one missing, one adapted-code, one extra and one
 * adapted-message patch.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <jansson.h>
#include <stdlib.h>

#include "fixture.h"
#include "report.h"
#include "verbs.h"

#define TOP "fixtures/report/top"

static char *cache;
static char *results;	/* the fixture results naming the laid trees' commits */

static int setup(void **state)
{
	cache = fixture_tmpdir("drift");
	return cache ? 0 : -1;
}

static int teardown(void **state)
{
	fixture_rm_rf(cache);
	g_free(cache);
	g_free(results);
	return 0;
}

static const struct drift *find(GPtrArray *drift, const char *v)
{
	for (guint i = 0; i < drift->len; i++) {
		const struct drift *d = drift->pdata[i];

		if (!strcmp(d->version, v))
			return d;
	}
	fail_msg("no drift entry for %s", v);
	return NULL;
}

static void assert_patch(const struct drift *d, guint i, const char *status,
			 int lines, int message_lines, const char *subject)
{
	const struct drift_patch *p;

	assert_true(i < d->patches->len);
	p = d->patches->pdata[i];
	assert_string_equal(p->status, status);
	assert_int_equal(p->lines, lines);
	assert_int_equal(p->message_lines, message_lines);
	assert_string_equal(p->subject, subject);
}

/* The drift of the results in @res, as the report verb computes it. */
static GPtrArray *drift_of(const char *res)
{
	GError *err = NULL;
	struct run *run = run_load(res, &err);
	GPtrArray *drift;

	assert_non_null(run);
	drift = drift_compute(TOP, cache, run);
	run_free(run);
	return drift;
}

/* Without the trees: what the results name, and that this cache lacks it. */
static void test_unavailable_without_trees(void **state)
{
	GPtrArray *drift = drift_of("fixtures/report/results");
	const char *note;

	assert_int_equal(drift->len, 2);
	assert_int_equal(find(drift, "6.1")->state, DRIFT_UNAVAILABLE);
	note = find(drift, "6.1")->note;
	assert_true(g_str_has_prefix(note, "not measured in these results: the canonical series (7.2): "
					   "they name 7.2 step/baseline "));
	assert_non_null(strstr(note, "commits this cache's tree 7.2 does not hold"));
	assert_null(strstr(note, "not laid"));
	assert_int_equal(find(drift, "7.2")->state, DRIFT_CANONICAL);
	g_ptr_array_free(drift, TRUE);
}

static void lay_trees(void)
{
	char *argv[] = { "sh", "fixtures/report/mktrees.sh", cache, NULL };
	int status;

	assert_true(g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL,
				 NULL, NULL, NULL, &status, NULL));
	assert_true(g_spawn_check_wait_status(status, NULL));
}

static char *git(const char *tree, const char *arg1, const char *arg2)
{
	char *argv[] = { "git", "-C", (char *)tree, (char *)arg1, (char *)arg2, NULL };
	char *out = NULL;

	assert_true(g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL,
				 NULL, &out, NULL, NULL, NULL));
	return out;
}

static const char *cell_version(const char *cell)
{
	return g_str_has_prefix(cell, "6.1/") ? "6.1" : "7.2";
}

/* @res's result @cell with its commit set; from @from's when given. */
static void set_commit(const char *res, const char *cell, const char *commit,
		       const char *from)
{
	char *path = g_strdup_printf("%s/%s.json", res, cell);
	char *src = from ? g_strdup_printf("%s/%s.json", res, from) : g_strdup(path);
	json_t *j = json_load_file(src, 0, NULL);
	char *sha = g_strstrip(g_strdup(commit));

	assert_non_null(j);
	json_object_set_new(j, "commit", json_string(sha));
	if (from)
		json_object_set_new(j, "version", json_string(cell_version(cell)));
	g_free(sha);
	g_free(src);
	assert_int_equal(json_dump_file(j, path, JSON_INDENT(1)), 0);
	json_decref(j);
	g_free(path);
}

/* A copy of the fixture results that names the laid trees' step commits. */
static void results_of_trees(void)
{
	/* the fixture's 6.1/x86_64/rtprio is broken: a good one in its place */
	static const char *const cells[][4] = {
		{ "6.1", "6.1/x86_64/baseline", "step/baseline", NULL },
		{ "6.1", "6.1/x86_64/rtprio", "step/rtprio", "7.2/x86_64/rtprio" },
		{ "7.2", "7.2/x86_64/baseline", "step/baseline", NULL },
		{ "7.2", "7.2/x86_64/rtprio", "step/rtprio", NULL },
	};
	char *cmd;

	results = g_build_filename(cache, "results", NULL);
	cmd = g_strdup_printf("cp -r fixtures/report/results %s", results);
	assert_int_equal(system(cmd), 0);
	g_free(cmd);
	for (size_t i = 0; i < G_N_ELEMENTS(cells); i++) {
		char *tree = g_build_filename(cache, "trees", cells[i][0], NULL);
		char *sha = git(tree, "rev-parse", cells[i][2]);

		set_commit(results, cells[i][1], sha, cells[i][3]);
		g_free(sha);
		g_free(tree);
	}
}

static void test_range_diff(void **state)
{
	char *t61 = g_build_filename(cache, "trees", "6.1", NULL);
	char *alt = g_build_filename(t61, ".git", "objects", "info", "alternates", NULL);
	char *refs_before, *refs_after, *st;
	GPtrArray *drift;
	const struct drift *d;

	lay_trees();
	results_of_trees();
	refs_before = git(t61, "show-ref", NULL);
	drift = drift_of(results);
	d = find(drift, "6.1");
	if (d->state != DRIFT_COMPARED)
		fail_msg("6.1 not compared: %s", d->note);
	assert_int_equal(d->patches->len, 5);
	assert_patch(d, 0, "identical", 0, 0, "resource: add RLIMIT_NICE and RLIMIT_RTPRIO");
	assert_patch(d, 1, "missing", 0, 0, "sched: add nice_to_rlimit helper");
	assert_null(((struct drift_patch *)d->patches->pdata[1])->backport);
	/* the changed comment context (-/+) and the changed ceiling (-+/++) */
	assert_patch(d, 2, "adapted", 4, 0, "sched: let RLIMIT_NICE raise the nice ceiling");
	assert_patch(d, 3, "extra", 0, 0, "sched: add the rlimit() accessor 6.1 lacks");
	assert_null(((struct drift_patch *)d->patches->pdata[3])->canonical);
	assert_patch(d, 4, "adapted", 0, 2, "sched: let RLIMIT_RTPRIO grant SCHED_FIFO/RR");
	assert_int_equal(find(drift, "7.2")->state, DRIFT_CANONICAL);
	g_ptr_array_free(drift, TRUE);

	/* read-only: no alternates file, no new refs, a clean worktree */
	assert_false(g_file_test(alt, G_FILE_TEST_EXISTS));
	refs_after = git(t61, "show-ref", NULL);
	assert_string_equal(refs_before, refs_after);
	st = git(t61, "status", "--porcelain");
	assert_string_equal(st, "");
	g_free(st);
	g_free(refs_before);
	g_free(refs_after);
	g_free(alt);
	g_free(t61);
}

/* `kmatrix report --format FORMAT` over the fixture results, as text. */
static char *render(const char *format)
{
	char *out = g_strdup_printf("%s/drift.%s", cache, format);
	char *argv[] = { "report", "--results", results,
			 "--cache", cache, "--format", (char *)format, "-o", out,
			 NULL };
	char *text = NULL;

	g_setenv("KMATRIX_TOP", TOP, TRUE);
	assert_int_equal(cmd_report(G_N_ELEMENTS(argv) - 1, argv), 0);
	assert_true(g_file_get_contents(out, &text, NULL, NULL));
	g_free(out);
	return text;
}

/* The markdown and HTML reports carry the table. */
static void test_rendered(void **state)
{
	char *text = render("md");

	assert_non_null(strstr(text, "### 6.1 (git range-diff of 7.2 step/baseline..step/rtprio (canonical series) against 6.1 step/baseline..step/rtprio (backports/6.1/series))"));
	assert_non_null(strstr(text, "| identical | resource: add RLIMIT_NICE and RLIMIT_RTPRIO |"));
	assert_non_null(strstr(text, "| - | missing | sched: add nice_to_rlimit helper |"));
	assert_non_null(strstr(text, "| adapted: 4 lines (message: 0) | sched: let RLIMIT_NICE raise the nice ceiling |"));
	assert_non_null(strstr(text, "| - | 3: "));
	assert_non_null(strstr(text, "| adapted: 0 lines (message: 2) | sched: let RLIMIT_RTPRIO grant SCHED_FIFO/RR |"));
	assert_non_null(strstr(text, "- 7.2: canonical series"));
	g_free(text);
	text = render("html");
	assert_non_null(strstr(text, "<table class=\"drift\"><tr><th>canonical</th><th>backport</th><th>drift</th><th>subject</th></tr>\n"));
	assert_non_null(strstr(text, "<td>-</td><td>missing</td><td>sched: add nice_to_rlimit helper</td></tr>\n"));
	assert_non_null(strstr(text, "<td>adapted: 4 lines (message: 0)</td><td>sched: let RLIMIT_NICE raise the nice ceiling</td></tr>\n"));
	g_free(text);
}

/* The tree's tags moved since the run: the results' commits still count. */
static void test_results_not_tags(void **state)
{
	char *t61 = g_build_filename(cache, "trees", "6.1", NULL);
	char *argv[] = { "git", "-C", t61, "tag", "-f", "step/rtprio", "step/nice", NULL };
	GPtrArray *drift;

	assert_true(g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH |
				 G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
				 NULL, NULL, NULL, NULL, NULL, NULL));
	drift = drift_of(results);
	assert_int_equal(find(drift, "6.1")->state, DRIFT_COMPARED);
	assert_int_equal(find(drift, "6.1")->patches->len, 5);
	g_ptr_array_free(drift, TRUE);
	g_free(t61);
}

/* The backport's last step has no commit in the results: said from them. */
static void test_backport_not_applied(void **state)
{
	GPtrArray *drift;
	const struct drift *d;

	set_commit(results, "6.1/x86_64/rtprio", "", NULL);
	drift = drift_of(results);
	d = find(drift, "6.1");
	assert_int_equal(d->state, DRIFT_UNAVAILABLE);
	assert_non_null(strstr(d->note, "not measured in these results: no result of 6.1's step "
					"rtprio names a commit (6.1/x86_64/rtprio pass, "
					"6.1/arm64/rtprio missing)"));
	g_ptr_array_free(drift, TRUE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unavailable_without_trees),
		cmocka_unit_test(test_range_diff),
		cmocka_unit_test(test_rendered),
		cmocka_unit_test(test_results_not_tags),
		cmocka_unit_test(test_backport_not_applied),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
