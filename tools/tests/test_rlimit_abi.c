// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of rlimit-abi's parsers of cpp output, its initializer
 * reading and its checks, on small inputs written here.  The real trees
 * are tools/tests/check-abi.sh's business.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "abi.h"

static void test_parse_defines(void **state)
{
	const char *dm = "#define RLIMIT_CPU 0\n#define RLIM_INFINITY (~0UL)\n"
			 "#define _ASM_RESOURCE_H \n#define RLIMIT_F(x) x\n"
			 "#define RLIM_NLIMITS 16\n";
	GHashTable *h = abi_parse_defines(dm);

	assert_int_equal(g_hash_table_size(h), 3);
	assert_string_equal(g_hash_table_lookup(h, "RLIMIT_CPU"), "0");
	assert_string_equal(g_hash_table_lookup(h, "RLIM_INFINITY"), "(~0UL)");
	assert_null(g_hash_table_lookup(h, "RLIMIT_F"));
	g_hash_table_destroy(h);
}

static void test_parse_def_files(void **state)
{
	const char *dd =
		"# 1 \"/w/usr/include/asm/resource.h\"\n#define RLIMIT_NOFILE 5\n"
		"# 1 \"/w/usr/include/asm-generic/resource.h\" 1\n"
		"#define RLIMIT_CPU 0\n# 20 \"/w/usr/include/asm/resource.h\" 2\n";
	GHashTable *h = abi_parse_def_files(dd);

	assert_string_equal(g_hash_table_lookup(h, "RLIMIT_NOFILE"),
			    "/w/usr/include/asm/resource.h");
	assert_string_equal(g_hash_table_lookup(h, "RLIMIT_CPU"),
			    "/w/usr/include/asm-generic/resource.h");
	g_hash_table_destroy(h);
}

static void test_parse_expansions(void **state)
{
	GHashTable *h = abi_parse_expansions(
		"\"RLIMIT_AS\" = 6\nint x;\n\"RLIM_INFINITY\" = (~0UL)\n");

	assert_int_equal(g_hash_table_size(h), 2);
	assert_string_equal(g_hash_table_lookup(h, "RLIMIT_AS"), "6");
	assert_string_equal(g_hash_table_lookup(h, "RLIM_INFINITY"), "(~0UL)");
	g_hash_table_destroy(h);
}

static void test_parse_literal(void **state)
{
	guint64 v;

	assert_true(abi_parse_literal("13", &v));
	assert_int_equal(v, 13);
	assert_true(abi_parse_literal("0x7fffffffUL", &v));
	assert_int_equal(v, 0x7fffffff);
	assert_true(abi_parse_literal("0x7ffffffffffffffful", &v));
	assert_true(v == 0x7fffffffffffffffULL);
	assert_false(abi_parse_literal("(~0UL)", &v));
	assert_false(abi_parse_literal("RLIMIT_CPU", &v));
	assert_false(abi_parse_literal("1 + 2", &v));
}

static void test_eval(void **state)
{
	GPtrArray *e = g_ptr_array_new();
	guint64 v[2];
	char *err = NULL;

	g_ptr_array_add(e, "(~0UL)");
	g_ptr_array_add(e, "(3 << 2) | 1");
	assert_true(abi_eval(e, v, &err));
	assert_true(v[0] == ~0ULL);
	assert_int_equal(v[1], 13);
	g_ptr_array_free(e, TRUE);
	g_free(err);
}

static void test_designators(void **state)
{
	GPtrArray *e = g_ptr_array_new_with_free_func(g_free);
	char *err = NULL;

	assert_true(abi_designators(
		"{ [RLIMIT_CPU] = { \"a]{\", 0 }, [ 7 ] = { x[1], 2 }, } ;", e,
		&err));
	assert_int_equal(e->len, 2);
	assert_string_equal(e->pdata[0], "RLIMIT_CPU");
	assert_string_equal(e->pdata[1], "7");
	g_ptr_array_set_size(e, 0);
	assert_false(abi_designators("INIT_RLIMITS ;", e, &err));
	assert_non_null(err);
	g_free(err);
	g_ptr_array_free(e, TRUE);
}

static void test_c_initializer(void **state)
{
	const char *src =
		"static const struct limit_names lnames[RLIM_NLIMITS] = {\n"
		"\t[RLIMIT_CPU] = {\"Max cpu time\", \"seconds\"}, /* } */\n"
		"\t[RLIMIT_NICE] = {\"Max nice priority\", NULL},\n};\nint y = { 1 };\n";
	char *init = abi_c_initializer(src, "lnames[");

	assert_non_null(init);
	assert_true(g_str_has_prefix(init, "{\n\t[RLIMIT_CPU]"));
	assert_true(g_str_has_suffix(init, "NULL},\n}"));
	g_free(init);
	assert_null(abi_c_initializer(src, "missing["));
}

/* An arch with the generic numbering 0..n-1, RLIM_NLIMITS n, full tables. */
static struct abi_arch *generic_arch(const char *name, int n, const int *skip)
{
	static const char *const names[] = {
		"RLIMIT_CPU",	   "RLIMIT_FSIZE",  "RLIMIT_DATA",
		"RLIMIT_STACK",	   "RLIMIT_CORE",   "RLIMIT_RSS",
		"RLIMIT_NPROC",	   "RLIMIT_NOFILE", "RLIMIT_MEMLOCK",
		"RLIMIT_AS",	   "RLIMIT_LOCKS",  "RLIMIT_SIGPENDING",
		"RLIMIT_MSGQUEUE", "RLIMIT_NICE",   "RLIMIT_RTPRIO",
		"RLIMIT_RTTIME",
	};
	struct abi_arch *a = abi_arch_new(name);
	struct abi_sym *s;

	a->hdr_arch = g_strdup(name);
	for (gint64 i = 0; i < n; i++) {
		bool skipped = false;

		for (int k = 0; skip && skip[k] >= 0; k++)
			skipped |= skip[k] == i;
		if (skipped)
			continue;
		s = abi_sym_new(names[i], "0",
				"include/uapi/asm-generic/resource.h");
		s->value = i;
		g_ptr_array_add(a->syms, s);
		g_array_append_val(a->init_idx, i);
		g_array_append_val(a->lnames_idx, i);
	}
	s = abi_sym_new("RLIM_NLIMITS", "16",
			"include/uapi/asm-generic/resource.h");
	s->value = n;
	g_ptr_array_add(a->syms, s);
	return a;
}

static struct abi_tree *tree_of(const char *label, bool baseline,
				struct abi_arch *a)
{
	struct abi_tree *t = g_new0(struct abi_tree, 1);

	t->label = g_strdup(label);
	t->baseline = baseline;
	t->arches =
		g_ptr_array_new_with_free_func((GDestroyNotify)abi_arch_free);
	g_ptr_array_add(t->arches, a);
	return t;
}

static GPtrArray *findings_new(void)
{
	return g_ptr_array_new_with_free_func((GDestroyNotify)abi_finding_free);
}

static const struct abi_finding *only(GPtrArray *f, const char *check)
{
	assert_int_equal(f->len, 1);
	assert_string_equal(((struct abi_finding *)f->pdata[0])->check, check);
	return f->pdata[0];
}

static void test_check_clean(void **state)
{
	struct abi_tree *t =
		tree_of("7.2", false, generic_arch("x86", 16, NULL));
	GPtrArray *f = findings_new();

	abi_check_arch(t, t->arches->pdata[0], f);
	assert_int_equal(f->len, 0);
	g_ptr_array_free(f, TRUE);
	abi_tree_free(t);
}

static void test_check_fixed_and_duplicate(void **state)
{
	struct abi_tree *t =
		tree_of("7.2", false, generic_arch("mips", 16, NULL));
	struct abi_sym *rt = abi_arch_sym(t->arches->pdata[0], "RLIMIT_RTPRIO");
	GPtrArray *f = findings_new();

	rt->value = 13;
	abi_check_arch(t, t->arches->pdata[0], f);
	/* a wrong number, and a duplicate of NICE */
	assert_int_equal(f->len, 2);
	assert_string_equal(((struct abi_finding *)f->pdata[0])->check,
			    "fixed-number");
	assert_string_equal(((struct abi_finding *)f->pdata[0])->message,
			    "7.2: mips: RLIMIT_RTPRIO is 13, must be 14 "
			    "(include/uapi/asm-generic/resource.h)");
	assert_string_equal(((struct abi_finding *)f->pdata[1])->check,
			    "duplicate");
	assert_non_null(strstr(((struct abi_finding *)f->pdata[1])->message,
			       "RLIMIT_NICE and RLIMIT_RTPRIO are both 13"));
	g_ptr_array_free(f, TRUE);
	abi_tree_free(t);
}

static void test_check_nlimits(void **state)
{
	struct abi_tree *t =
		tree_of("6.1", false, generic_arch("arm64", 16, NULL));
	GPtrArray *f = findings_new();
	const struct abi_finding *x;

	abi_arch_sym(t->arches->pdata[0], "RLIM_NLIMITS")->value = 15;
	g_array_set_size(((struct abi_arch *)t->arches->pdata[0])->init_idx,
			 15);
	g_array_set_size(((struct abi_arch *)t->arches->pdata[0])->lnames_idx,
			 15);
	abi_check_arch(t, t->arches->pdata[0], f);
	x = only(f, "nlimits");
	assert_string_equal(x->symbol, "RLIM_NLIMITS");
	assert_non_null(strstr(x->message, "RLIM_NLIMITS is 15, must be 16"));
	g_ptr_array_free(f, TRUE);
	abi_tree_free(t);
}

static void test_check_coverage(void **state)
{
	struct abi_tree *t =
		tree_of("5.10", false, generic_arch("x86", 16, NULL));
	struct abi_arch *a = t->arches->pdata[0];
	GPtrArray *f = findings_new();
	const struct abi_finding *x;

	g_array_remove_index(a->init_idx, 14);
	abi_check_arch(t, a, f);
	x = only(f, "coverage");
	assert_string_equal(x->symbol, "RLIMIT_RTPRIO");
	assert_string_equal(x->file, "include/asm-generic/resource.h");
	assert_non_null(
		strstr(x->message,
		       "INIT_RLIMITS (include/asm-generic/resource.h) has no "
		       "entry for 14 (RLIMIT_RTPRIO)"));
	g_ptr_array_free(f, TRUE);
	abi_tree_free(t);
}

/* A baseline tree: 13 and 14 not defined and not in the tables, 15 and 16 kept. */
static struct abi_tree *baseline_tree(void)
{
	static const int holes[] = { 13, 14, -1 };

	return tree_of("7.2@baseline", true, generic_arch("x86", 16, holes));
}

static void test_check_baseline_holes(void **state)
{
	struct abi_tree *t = baseline_tree();
	GPtrArray *f = findings_new();

	abi_check_arch(t, t->arches->pdata[0], f);
	assert_int_equal(f->len, 0);
	/* the same holes in a tree not given as a baseline are findings */
	t->baseline = false;
	abi_check_arch(t, t->arches->pdata[0], f);
	assert_int_equal(f->len, 4);
	g_ptr_array_free(f, TRUE);
	abi_tree_free(t);
}

static void test_check_trees(void **state)
{
	GPtrArray *trees =
		g_ptr_array_new_with_free_func((GDestroyNotify)abi_tree_free);
	GPtrArray *f = findings_new();
	struct abi_tree *moved =
		tree_of("6.12", false, generic_arch("x86", 16, NULL));
	const struct abi_finding *x;
	struct abi_arch *ba;

	g_ptr_array_add(trees,
			tree_of("7.2", false, generic_arch("x86", 16, NULL)));
	g_ptr_array_add(trees, baseline_tree());
	abi_check_trees(trees, f);
	assert_int_equal(f->len, 0);
	abi_arch_sym(moved->arches->pdata[0], "RLIMIT_LOCKS")->value = 17;
	g_ptr_array_add(trees, moved);
	abi_check_trees(trees, f);
	x = only(f, "moved");
	assert_string_equal(x->tree, "6.12");
	assert_string_equal(
		x->message,
		"6.12: x86: RLIMIT_LOCKS is 10 in 7.2 but 17 in 6.12 "
		"(include/uapi/asm-generic/resource.h)");
	/* a baseline may lack only NICE and RTPRIO */
	ba = ((struct abi_tree *)trees->pdata[1])->arches->pdata[0];
	g_ptr_array_remove_index(trees, 2);
	g_ptr_array_set_size(f, 0);
	g_ptr_array_remove_index(ba->syms, 0);
	abi_check_trees(trees, f);
	x = only(f, "moved");
	assert_string_equal(x->symbol, "RLIMIT_CPU");
	g_ptr_array_free(f, TRUE);
	g_ptr_array_free(trees, TRUE);
}

static void test_check_libc(void **state)
{
	struct abi_tree *t =
		tree_of("7.2", false, generic_arch("mips", 16, NULL));
	GPtrArray *libcs =
		g_ptr_array_new_with_free_func((GDestroyNotify)abi_libc_free);
	struct abi_libc *l = g_new0(struct abi_libc, 1);
	struct abi_arch *a = t->arches->pdata[0];
	GPtrArray *f = findings_new();
	const struct abi_finding *x;

	l->arch = g_strdup("mips");
	l->triple = g_strdup("mips-linux-gnu");
	l->syms = g_ptr_array_new_with_free_func((GDestroyNotify)abi_sym_free);
	for (guint i = 0; i < a->syms->len; i++) {
		const struct abi_sym *s = a->syms->pdata[i];
		struct abi_sym *g = abi_sym_new(s->name, "", l->triple);

		g->value = strcmp(s->name, "RLIMIT_NOFILE") ? s->value : 5;
		g_ptr_array_add(l->syms, g);
	}
	g_ptr_array_add(libcs, l);
	abi_check_libc(t, libcs, f);
	x = only(f, "libc");
	assert_string_equal(
		x->message,
		"7.2: mips: RLIMIT_NOFILE is 7 in the kernel "
		"(include/uapi/asm-generic/resource.h) but 5 in glibc "
		"(mips-linux-gnu)");
	g_ptr_array_free(f, TRUE);
	g_ptr_array_free(libcs, TRUE);
	abi_tree_free(t);
}

static void test_arch_json_roundtrip(void **state)
{
	struct abi_arch *a = generic_arch("alpha", 16, NULL), *b;
	json_t *j, *k;

	abi_arch_sym(a, "RLIMIT_CPU")->value = ~0ULL;
	a->lnames_err = g_strdup("no lnames[] initializer");
	j = abi_arch_to_json(a);
	b = abi_arch_from_json("alpha", j);
	k = abi_arch_to_json(b);
	assert_true(json_equal(j, k));
	assert_true(abi_arch_sym(b, "RLIMIT_CPU")->value == ~0ULL);
	assert_int_equal(b->init_idx->len, 16);
	assert_string_equal(b->lnames_err, "no lnames[] initializer");
	json_decref(j);
	json_decref(k);
	abi_arch_free(a);
	abi_arch_free(b);
}

static void test_table_marks(void **state)
{
	struct abi_tree *t =
		tree_of("7.2", false, generic_arch("x86", 16, NULL));
	struct abi_arch *m = generic_arch("mips", 16, NULL);
	GPtrArray *f = findings_new();
	char *table, *x86;

	abi_arch_sym(m, "RLIMIT_RTPRIO")->value = 16;
	g_ptr_array_add(t->arches, generic_arch("arm64", 16, NULL));
	g_ptr_array_add(t->arches, m);
	abi_check_arch(t, m, f);
	table = abi_table(t, f);
	/* mips' RTPRIO carries a finding; nothing else of x86 is marked */
	assert_non_null(strstr(table, "16!"));
	x86 = strstr(table, "\nx86");
	assert_non_null(x86);
	x86 = g_strndup(x86 + 1, strcspn(x86 + 1, "\n"));
	assert_null(strchr(x86, '!'));
	g_free(x86);
	g_free(table);
	g_ptr_array_free(f, TRUE);
	abi_tree_free(t);
}

static void test_report_groups_rows(void **state)
{
	GPtrArray *trees =
		g_ptr_array_new_with_free_func((GDestroyNotify)abi_tree_free);
	GPtrArray *f = findings_new();
	json_t *r, *m, *row;

	g_ptr_array_add(trees,
			tree_of("6.12", false, generic_arch("x86", 16, NULL)));
	g_ptr_array_add(trees,
			tree_of("7.2", false, generic_arch("x86", 16, NULL)));
	g_ptr_array_add(trees,
			tree_of("7.2@x", false, generic_arch("x86", 16, NULL)));
	abi_arch_sym(((struct abi_tree *)trees->pdata[2])->arches->pdata[0],
		     "RLIMIT_AS")
		->value = 99;
	abi_check_trees(trees, f);
	r = abi_report_json(trees, NULL, f);
	m = json_object_get(r, "matrix");
	assert_int_equal(json_array_size(m), 2);
	row = json_array_get(m, 0);
	assert_string_equal(json_string_value(json_object_get(row, "trees")),
			    "all but 7.2@x");
	row = json_array_get(m, 1);
	assert_string_equal(json_string_value(json_object_get(row, "trees")),
			    "7.2@x");
	assert_string_equal(json_string_value(json_object_get(row, "AS")),
			    "99!");
	assert_false(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	g_ptr_array_free(f, TRUE);
	g_ptr_array_free(trees, TRUE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_defines),
		cmocka_unit_test(test_parse_def_files),
		cmocka_unit_test(test_parse_expansions),
		cmocka_unit_test(test_parse_literal),
		cmocka_unit_test(test_eval),
		cmocka_unit_test(test_designators),
		cmocka_unit_test(test_c_initializer),
		cmocka_unit_test(test_check_clean),
		cmocka_unit_test(test_check_fixed_and_duplicate),
		cmocka_unit_test(test_check_nlimits),
		cmocka_unit_test(test_check_coverage),
		cmocka_unit_test(test_check_baseline_holes),
		cmocka_unit_test(test_check_trees),
		cmocka_unit_test(test_check_libc),
		cmocka_unit_test(test_arch_json_roundtrip),
		cmocka_unit_test(test_table_marks),
		cmocka_unit_test(test_report_groups_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
