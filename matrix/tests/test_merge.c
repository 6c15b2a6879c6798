// SPDX-License-Identifier: GPL-2.0
/*
 * kmatrix merge: results of one matrix combine into one directory; results
 * that cannot belong together are refused with a message naming the
 * difference.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "merge.h"
#include "result.h"

#define SHA(c) (c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c \
		c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c)
#define SERIES SHA("5")
#define EXPECT SHA("e")
#define BIN_X SHA("a")
#define BIN_A SHA("b")

static char *tmp;

static int setup(void **state)
{
	tmp = g_dir_make_tmp("kmatrix-merge-XXXXXX", NULL);
	return tmp ? 0 : -1;
}

static int teardown(void **state)
{
	char *argv[] = { "rm", "-rf", tmp, NULL };

	g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
	g_free(tmp);
	return 0;
}

static const char *const plan[] = {
	"5.10/x86_64/stock", "5.10/arm64/stock", "5.10/x86_64/baseline", "5.10/arm64/baseline", NULL
};

/* A result as run writes it, with a console log beside it. */
static void cell(const char *dir, const char *id, const char *commit, const char *expect,
		 const char *bin)
{
	char **p = g_strsplit(id, "/", 3);
	json_t *r = result_new(p[0], p[1], p[2], strcmp(p[2], "stock") ? 1 : 0);
	char *path = result_path(dir, p[0], p[1], p[2], ".json");
	char *log = result_path(dir, p[0], p[1], p[2], ".console.log");

	json_object_set_new(r, "commit", json_string(commit));
	json_object_set_new(r, "key", json_string(SHA("c")));
	json_object_set_new(r, "final", json_true());
	result_set_input(r, "expectations", expect);
	result_set_input(r, "test_binary", bin);
	result_set_verdict(r, "pass", true, "", NULL);
	result_set_timing(r, "build", 10);
	assert_int_equal(result_write(path, r, NULL), 0);
	assert_true(g_file_set_contents(log, "KMATRIX-DONE rc=0\n", -1, NULL));
	json_decref(r);
	g_free(path);
	g_free(log);
	g_strfreev(p);
}

static const char *commit_of(const char *id)
{
	return strstr(id, "stock") ? "1111111111111111111111111111111111111111" :
				     "2222222222222222222222222222222222222222";
}

/* A shard's directory: run.json and the results of @ids (a NULL-ended list). */
static char *shard(const char *name, int index, int count, const char *split,
		   const char *const *ids)
{
	char *dir = g_build_filename(tmp, name, NULL);
	char *path = g_build_filename(dir, "run.json", NULL);
	json_t *cells = json_array(), *whole = json_array();
	json_t *run;

	for (int i = 0; ids[i]; i++) {
		json_array_append_new(cells, json_string(ids[i]));
		cell(dir, ids[i], commit_of(ids[i]), EXPECT, strstr(ids[i], "x86") ? BIN_X : BIN_A);
	}
	for (int i = 0; plan[i]; i++)
		json_array_append_new(whole, json_string(plan[i]));
	run = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:{s:s, s:s}, s:{s:b}}",
			"schema", "kmatrix-run/1", "started", "2026-12-03T10:00:00Z",
			"finished", "2026-12-03T11:00:00Z", "host", name, "project_commit", "abc",
			"cells", cells, "series", SERIES, "expectations", EXPECT,
			"test_binaries", "x86_64", BIN_X, "arm64", BIN_A, "abi", "ok", 1);
	if (index)
		json_object_set_new(run, "shard", json_pack("{s:i, s:i, s:s, s:o}", "index", index,
							    "count", count, "split", split,
							    "plan", whole));
	else
		json_decref(whole);
	assert_int_equal(result_write(path, run, NULL), 0);
	json_decref(run);
	g_free(path);
	return dir;
}

static const char *const x86[] = { "5.10/x86_64/stock", "5.10/x86_64/baseline", NULL };
static const char *const arm[] = { "5.10/arm64/stock", "5.10/arm64/baseline", NULL };

static GPtrArray *load(char *a, char *b)
{
	GPtrArray *srcs = g_ptr_array_new_with_free_func((GDestroyNotify)merge_src_free);
	GError *err = NULL;

	g_ptr_array_add(srcs, merge_src_load(a, &err));
	assert_null(err);
	g_ptr_array_add(srcs, merge_src_load(b, &err));
	assert_null(err);
	g_free(a);
	g_free(b);
	return srcs;
}

static void refused(GPtrArray *srcs, const char *what, const char *also)
{
	char *msg = merge_check(srcs);

	assert_non_null(msg);
	if (!strstr(msg, what) || (also && !strstr(msg, also)))
		fail_msg("'%s' does not say '%s' and '%s'", msg, what, also ? also : "");
	g_free(msg);
	g_ptr_array_free(srcs, TRUE);
}

static void set_run(GPtrArray *srcs, int i, const char *field, json_t *v)
{
	json_object_set_new(((struct merge_src *)srcs->pdata[i])->run, field, v);
}

static void test_merge_shards(void **state)
{
	GPtrArray *srcs = load(shard("one", 1, 2, "s", x86), shard("two", 2, 2, "s", arm));
	char *out = g_build_filename(tmp, "merged", NULL);
	char *path = g_build_filename(out, "run.json", NULL), *log;
	GError *err = NULL;
	json_t *run, *r;
	char *why = NULL;

	assert_int_equal(merge_dirs(srcs, out, &err), 0);
	run = json_load_file(path, 0, NULL);
	assert_non_null(run);
	/* the shards' whole plan, in its order, and no shard of its own */
	assert_int_equal(json_array_size(json_object_get(run, "cells")), 4);
	assert_string_equal(json_string_value(json_array_get(json_object_get(run, "cells"), 1)),
			    "5.10/arm64/stock");
	assert_null(json_object_get(run, "shard"));
	assert_string_equal(json_string_value(json_object_get(run, "series")), SERIES);
	assert_int_equal(json_array_size(json_object_get(run, "merged_from")), 2);
	assert_string_equal(json_string_value(json_object_get(run, "host")), "one, two");
	assert_true(json_is_true(json_object_get(json_object_get(run, "abi"), "ok")));
	for (int i = 0; plan[i]; i++) {
		char **p = g_strsplit(plan[i], "/", 3);
		char *f = result_path(out, p[0], p[1], p[2], ".json");

		r = result_read(f, p[0], p[1], p[2], &why);
		assert_non_null(r);
		json_decref(r);
		g_free(f);
		g_strfreev(p);
	}
	log = result_path(out, "5.10", "arm64", "baseline", ".console.log");
	assert_true(g_file_test(log, G_FILE_TEST_EXISTS));
	/* merging again into the same directory would mix two merges */
	assert_int_equal(merge_dirs(srcs, out, &err), -1);
	assert_non_null(strstr(err->message, "not empty"));
	g_error_free(err);
	json_decref(run);
	g_free(log);
	g_free(path);
	g_free(out);
	g_ptr_array_free(srcs, TRUE);
}

static void test_series_differ(void **state)
{
	GPtrArray *srcs = load(shard("one", 1, 2, "s", x86), shard("two", 2, 2, "s", arm));

	set_run(srcs, 1, "series", json_string(SHA("6")));
	refused(srcs, "series differ", "/two has series 666666666666");
}

static void test_older_run_without_series(void **state)
{
	GPtrArray *srcs = load(shard("one", 1, 2, "s", x86), shard("two", 2, 2, "s", arm));

	json_object_del(((struct merge_src *)srcs->pdata[0])->run, "series");
	refused(srcs, "/one/run.json records no series", "run it again");
}

static void test_expectations_differ(void **state)
{
	GPtrArray *srcs = load(shard("one", 1, 2, "s", x86), shard("two", 2, 2, "s", arm));

	set_run(srcs, 1, "expectations", json_string(SHA("f")));
	refused(srcs, "expectations differ", "/two has expectations ffffffffffff");
}

/* A stale result file judged against other expectations than its run's. */
static void test_cell_expectations_differ(void **state)
{
	char *b = shard("two", 2, 2, "s", arm);

	cell(b, "5.10/arm64/baseline", commit_of("baseline"), SHA("d"), BIN_A);
	refused(load(shard("one", 1, 2, "s", x86), b), "expectations differ",
		"5.10/arm64/baseline.json was judged against dddddddddddd");
}

static void test_test_binary_differs(void **state)
{
	GPtrArray *srcs = load(shard("one", 1, 2, "s", x86), shard("two", 2, 2, "s", arm));

	set_run(srcs, 1, "test_binaries",
		json_pack("{s:s, s:s}", "x86_64", SHA("9"), "arm64", BIN_A));
	refused(srcs, "test binaries for x86_64 differ", "/two has 999999999999");
}

static void test_cell_test_binary_differs(void **state)
{
	char *b = shard("two", 2, 2, "s", arm);

	cell(b, "5.10/arm64/stock", commit_of("stock"), EXPECT, SHA("8"));
	refused(load(shard("one", 1, 2, "s", x86), b), "test binaries differ",
		"5.10/arm64/stock.json ran 888888888888");
}

/* Same series digest, yet a step is another commit: the trees differ. */
static void test_commit_differs(void **state)
{
	char *b = shard("two", 2, 2, "s", arm);

	cell(b, "5.10/arm64/baseline", "3333333333333333333333333333333333333333", EXPECT, BIN_A);
	refused(load(shard("one", 1, 2, "s", x86), b), "series differ",
		"step 5.10/baseline is commit 333333333333");
}

static void test_split_differs(void **state)
{
	refused(load(shard("one", 1, 2, "s", x86), shard("two", 2, 2, "t", arm)),
		"split differently", "same --timings");
}

static void test_shard_and_whole_run(void **state)
{
	refused(load(shard("one", 1, 2, "s", x86), shard("two", 0, 0, NULL, arm)),
		"is shard 1/2", "/two is not a shard");
}

static void test_same_cell_twice(void **state)
{
	refused(load(shard("one", 0, 0, NULL, x86), shard("two", 0, 0, NULL, x86)),
		"cell 5.10/x86_64/stock is in both", "/one");
}

static void test_bad_cell_id(void **state)
{
	char *a = shard("one", 0, 0, NULL, x86);
	char *path = g_build_filename(a, "run.json", NULL);
	json_t *run = json_load_file(path, 0, NULL);
	GError *err = NULL;

	json_array_append_new(json_object_get(run, "cells"), json_string("5.10/../../etc"));
	json_dump_file(run, path, 0);
	assert_null(merge_src_load(a, &err));
	assert_non_null(strstr(err->message, "not version/arch/step"));
	g_error_free(err);
	json_decref(run);
	g_free(path);
	g_free(a);
}

static json_t *abi(double seconds, const char *arch_state)
{
	return json_pack("{s:s, s:b, s:i, s:[{s:s, s:s, s:f, s:b}], s:[], s:[], s:[{s:s, s:s}]}",
			 "schema", "rlimit-abi/1", "ok", !strcmp(arch_state, "ok"),
			 "findings_count", 0, "trees", "tree", "5.10@stock", "spec", "/x@1",
			 "seconds", seconds, "cached", seconds < 1, "findings", "libc",
			 "matrix", "arch", "mips", "state", arch_state);
}

/* One check's block twice (times and paths aside) is kept as it is. */
static void test_abi_same(void **state)
{
	GPtrArray *srcs = load(shard("one", 1, 2, "s", x86), shard("two", 2, 2, "s", arm));
	json_t *m;

	set_run(srcs, 0, "abi", abi(0.01, "ok"));
	set_run(srcs, 1, "abi", abi(3.5, "ok"));
	m = merge_abi(srcs);
	assert_null(json_object_get(m, "note"));
	assert_true(json_equal(m, json_object_get(((struct merge_src *)srcs->pdata[0])->run, "abi")));
	json_decref(m);
	g_ptr_array_free(srcs, TRUE);
}

static void test_abi_union(void **state)
{
	GPtrArray *srcs = load(shard("one", 1, 2, "s", x86), shard("two", 2, 2, "s", arm));
	json_t *m;

	set_run(srcs, 0, "abi", abi(0.01, "ok"));
	set_run(srcs, 1, "abi", abi(0.01, "broken"));
	m = merge_abi(srcs);
	assert_true(json_is_false(json_object_get(m, "ok")));
	assert_int_equal(json_array_size(json_object_get(m, "matrix")), 2);
	assert_int_equal(json_array_size(json_object_get(m, "trees")), 1);
	assert_non_null(strstr(json_string_value(json_object_get(m, "note")), "2 shards"));
	json_decref(m);
	g_ptr_array_free(srcs, TRUE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_merge_shards, setup, teardown),
		cmocka_unit_test_setup_teardown(test_series_differ, setup, teardown),
		cmocka_unit_test_setup_teardown(test_older_run_without_series, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expectations_differ, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cell_expectations_differ, setup, teardown),
		cmocka_unit_test_setup_teardown(test_test_binary_differs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cell_test_binary_differs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commit_differs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_differs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shard_and_whole_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_cell_twice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_cell_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abi_same, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abi_union, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
