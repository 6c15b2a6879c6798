// SPDX-License-Identifier: GPL-2.0
/*
 * Shards: whole version x arch chains, balanced by their estimates, and the
 * same split whatever order the chains come in.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "result.h"
#include "shard.h"

static const char *const steps[] = { "stock", "baseline", "uapi", "helper", "nice", "rtprio" };

/* A chain of every step, each recorded at @per_step seconds. */
static struct shard_chain *chain(const char *v, const char *a, double per_step)
{
	struct shard_chain *c = shard_chain_new(v, a);

	for (size_t i = 0; i < G_N_ELEMENTS(steps); i++)
		shard_chain_add(c, steps[i], per_step);
	return c;
}

static GPtrArray *chains(void)
{
	GPtrArray *a = g_ptr_array_new_with_free_func((GDestroyNotify)shard_chain_free);

	g_ptr_array_add(a, chain("5.10", "x86_64", 50));	/* 300 s */
	g_ptr_array_add(a, chain("5.10", "arm64", 40));		/* 240 s */
	g_ptr_array_add(a, chain("6.1", "x86_64", 100));	/* 600 s */
	g_ptr_array_add(a, chain("6.1", "arm64", 90));		/* 540 s */
	g_ptr_array_add(a, chain("7.2", "x86_64", 20));		/* 120 s */
	g_ptr_array_add(a, chain("7.2", "arm64", 10));		/* 60 s */
	return a;
}

static int shard_of(GPtrArray *a, const char *id)
{
	for (guint i = 0; i < a->len; i++)
		if (!strcmp(((struct shard_chain *)a->pdata[i])->id, id))
			return ((struct shard_chain *)a->pdata[i])->shard;
	fail_msg("no chain %s", id);
	return 0;
}

static void test_balanced(void **state)
{
	GPtrArray *a = chains();
	double *load = shard_split(a, 2);

	/*
	 * longest first to the lighter shard (ties: the lower): 600|540,
	 * +300 -> 600|840, +240 -> 840|840, +120 -> 960|840, +60 -> 960|900
	 */
	assert_float_equal(load[0], 960, 0.001);
	assert_float_equal(load[1], 900, 0.001);
	/* greedy's bound: the spread is below the longest chain */
	assert_true(load[0] - load[1] < 600);
	assert_int_equal(shard_of(a, "6.1/x86_64"), 1);
	assert_int_equal(shard_of(a, "6.1/arm64"), 2);
	assert_int_equal(shard_of(a, "5.10/x86_64"), 2);
	assert_int_equal(shard_of(a, "5.10/arm64"), 1);
	assert_int_equal(shard_of(a, "7.2/x86_64"), 1);
	assert_int_equal(shard_of(a, "7.2/arm64"), 2);
	g_free(load);
	g_ptr_array_free(a, TRUE);
}

/* Every chain is in exactly one shard with all its steps in order. */
static void test_whole_chains(void **state)
{
	GPtrArray *a = chains();
	double *load = shard_split(a, 4);
	double sum = 0;

	for (guint i = 0; i < a->len; i++) {
		struct shard_chain *c = a->pdata[i];

		assert_in_range(c->shard, 1, 4);
		assert_int_equal(c->steps->len, G_N_ELEMENTS(steps));
		for (guint s = 0; s < c->steps->len; s++)
			assert_string_equal(c->steps->pdata[s], steps[s]);
	}
	for (int s = 0; s < 4; s++)
		sum += load[s];
	assert_float_equal(sum, 1860, 0.001);
	/* the two longest chains never share a shard when there are more */
	assert_int_not_equal(shard_of(a, "6.1/x86_64"), shard_of(a, "6.1/arm64"));
	g_free(load);
	g_ptr_array_free(a, TRUE);
}

/* Another machine lists the chains in another order: same split, same digest. */
static void test_deterministic(void **state)
{
	GPtrArray *a = chains(), *b = chains();
	double *la = shard_split(a, 3), *lb;
	char *da, *db;

	for (guint i = 0; i < b->len / 2; i++) {
		gpointer t = b->pdata[i];

		b->pdata[i] = b->pdata[b->len - 1 - i];
		b->pdata[b->len - 1 - i] = t;
	}
	lb = shard_split(b, 3);
	for (guint i = 0; i < a->len; i++) {
		struct shard_chain *c = a->pdata[i];

		assert_int_equal(c->shard, shard_of(b, c->id));
	}
	for (int s = 0; s < 3; s++)
		assert_float_equal(la[s], lb[s], 0.001);
	/* the digest is over the plan order, so order b back first */
	g_ptr_array_free(b, TRUE);
	b = chains();
	g_free(lb);
	lb = shard_split(b, 3);
	da = shard_digest(a, 3);
	db = shard_digest(b, 3);
	assert_string_equal(da, db);
	g_free(db);
	db = shard_digest(b, 2);
	assert_string_not_equal(da, db);
	g_free(da);
	g_free(db);
	g_free(la);
	g_free(lb);
	g_ptr_array_free(a, TRUE);
	g_ptr_array_free(b, TRUE);
}

/* Equal estimates: the chain ids decide, not the order given. */
static void test_ties(void **state)
{
	GPtrArray *a = g_ptr_array_new_with_free_func((GDestroyNotify)shard_chain_free);
	double *load;

	g_ptr_array_add(a, chain("7.2", "arm64", 10));
	g_ptr_array_add(a, chain("5.10", "x86_64", 10));
	g_ptr_array_add(a, chain("6.1", "arm64", 10));
	load = shard_split(a, 2);
	assert_int_equal(shard_of(a, "5.10/x86_64"), 1);
	assert_int_equal(shard_of(a, "6.1/arm64"), 2);
	assert_int_equal(shard_of(a, "7.2/arm64"), 1);
	g_free(load);
	g_ptr_array_free(a, TRUE);
}

/* No recorded result: the first step costs a cold build, later ones less. */
static void test_default_estimate(void **state)
{
	struct shard_chain *c = shard_chain_new("7.2", "arm64");

	shard_chain_add(c, "stock", -1);
	shard_chain_add(c, "baseline", -1);
	shard_chain_add(c, "uapi", 42);
	assert_float_equal(c->seconds, SHARD_DEFAULT_FIRST_S + SHARD_DEFAULT_NEXT_S + 42, 0.001);
	assert_int_equal(c->recorded, 1);
	shard_chain_free(c);
}

static void test_more_shards_than_chains(void **state)
{
	GPtrArray *a = g_ptr_array_new_with_free_func((GDestroyNotify)shard_chain_free);
	double *load;

	g_ptr_array_add(a, chain("5.10", "x86_64", 10));
	g_ptr_array_add(a, chain("5.10", "arm64", 20));
	load = shard_split(a, 3);
	assert_int_equal(shard_of(a, "5.10/arm64"), 1);
	assert_int_equal(shard_of(a, "5.10/x86_64"), 2);
	assert_float_equal(load[2], 0, 0.001);
	g_free(load);
	g_ptr_array_free(a, TRUE);
}

static void test_parse(void **state)
{
	static const char *const bad[] = { "", "1", "0/2", "3/2", "1/0", "a/2", "1/2x",
					   "1//2", "/2", "1/", "-1/2", "1/1001", NULL };
	GError *err = NULL;
	int i = 0, n = 0;

	assert_true(shard_parse("2/3", &i, &n, NULL));
	assert_int_equal(i, 2);
	assert_int_equal(n, 3);
	assert_true(shard_parse("1/1", &i, &n, NULL));
	for (int k = 0; bad[k]; k++) {
		assert_false(shard_parse(bad[k], &i, &n, &err));
		assert_non_null(strstr(err->message, "I/N"));
		g_clear_error(&err);
	}
}

/* Timings come from result files; an unusable or empty one is no record. */
static void test_recorded(void **state)
{
	char *dir = g_dir_make_tmp("kmatrix-shard-XXXXXX", NULL);
	char *path = result_path(dir, "6.1", "arm64", "nice", ".json");
	char *argv[] = { "rm", "-rf", dir, NULL };
	json_t *r = result_new("6.1", "arm64", "nice", 4);

	result_set_timing(r, "build", 100.5);
	result_set_timing(r, "boot", 20);
	assert_int_equal(result_write(path, r, NULL), 0);
	assert_float_equal(shard_recorded(dir, "6.1", "arm64", "nice"), 120.5, 0.001);
	assert_float_equal(shard_recorded(dir, "6.1", "arm64", "rtprio"), -1, 0.001);
	json_decref(r);
	r = result_new("6.1", "arm64", "nice", 4);
	assert_int_equal(result_write(path, r, NULL), 0);
	assert_float_equal(shard_recorded(dir, "6.1", "arm64", "nice"), -1, 0.001);
	g_file_set_contents(path, "{\"schema\":", -1, NULL);
	assert_float_equal(shard_recorded(dir, "6.1", "arm64", "nice"), -1, 0.001);
	json_decref(r);
	g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
	g_free(path);
	g_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_balanced),
		cmocka_unit_test(test_whole_chains),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_default_estimate),
		cmocka_unit_test(test_more_shards_than_chains),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_recorded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
