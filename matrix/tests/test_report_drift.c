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

#include "fixture.h"
#include "report.h"
#include "verbs.h"

#define TOP "fixtures/report/top"

static char *cache;

static int setup(void **state)
{
	cache = fixture_tmpdir("drift");
	return cache ? 0 : -1;
}

static int teardown(void **state)
{
	fixture_rm_rf(cache);
	g_free(cache);
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

static void test_unavailable_without_trees(void **state)
{
	GPtrArray *drift = drift_compute(TOP, cache);

	assert_int_equal(drift->len, 2);
	assert_int_equal(find(drift, "6.1")->state, DRIFT_UNAVAILABLE);
	assert_non_null(strstr(find(drift, "6.1")->note, "tree 7.2 is not laid yet"));
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

static void test_range_diff(void **state)
{
	char *t61 = g_build_filename(cache, "trees", "6.1", NULL);
	char *alt = g_build_filename(t61, ".git", "objects", "info", "alternates", NULL);
	char *refs_before, *refs_after, *st;
	GPtrArray *drift;
	const struct drift *d;

	lay_trees();
	refs_before = git(t61, "show-ref", NULL);
	drift = drift_compute(TOP, cache);
	d = find(drift, "6.1");
	assert_int_equal(d->state, DRIFT_COMPARED);
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
	char *argv[] = { "report", "--results", "fixtures/report/results",
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

static void test_backport_tree_not_applied(void **state)
{
	char *t61 = g_build_filename(cache, "trees", "6.1", NULL);
	GPtrArray *drift;
	const struct drift *d;
	char *argv[] = { "git", "-C", t61, "tag", "-d", "step/rtprio", NULL };

	assert_true(g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH |
				 G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
				 NULL, NULL, NULL));
	drift = drift_compute(TOP, cache);
	d = find(drift, "6.1");
	assert_int_equal(d->state, DRIFT_UNAVAILABLE);
	assert_non_null(strstr(d->note, "tree 6.1 has no step/baseline or step/rtprio tag"));
	g_ptr_array_free(drift, TRUE);
	g_free(t61);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unavailable_without_trees),
		cmocka_unit_test(test_range_diff),
		cmocka_unit_test(test_rendered),
		cmocka_unit_test(test_backport_tree_not_applied),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
