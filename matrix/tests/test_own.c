// SPDX-License-Identifier: GPL-2.0
/*
 * own.c: the hand-over of trees to the build user.  A first walk gives
 * every entry; a walk after it looks only at the entries of directories
 * changed since, or not the build user's; a stamp of another user is not
 * trusted, and each root has its own record.  One test waits a second.
 * Giving files away needs root: as another user the tests skip (make
 * check runs as root).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "fixture.h"
#include "own.h"

/* Not a user of this machine: nothing else owns files as it. */
#define UID 54321
#define GID 54322

struct tree {
	char *dir; /* holds the stamp and the root */
	char *root;
	char *stamp;
	const char *roots[3];
};

static char *at(const struct tree *t, const char *rel)
{
	return g_build_filename(t->root, rel, NULL);
}

static void write_file(const struct tree *t, const char *rel)
{
	char *p = at(t, rel);

	assert_true(g_file_set_contents(p, "x", 1, NULL));
	g_free(p);
}

static uid_t owner(const struct tree *t, const char *rel)
{
	char *p = at(t, rel);
	struct stat st;

	assert_int_equal(lstat(p, &st), 0);
	g_free(p);
	return st.st_uid;
}

static void give_root(const struct tree *t, const char *rel)
{
	char *p = at(t, rel);

	assert_int_equal(lchown(p, 0, 0), 0);
	g_free(p);
}

/* root/f1, root/a/b/f2, root/a/l -> b/f2: six entries, three directories. */
static int setup(void **state)
{
	struct tree *t = g_new0(struct tree, 1);
	char *p;

	if (geteuid() != 0) {
		g_free(t);
		return 0;
	}
	t->dir = fixture_tmpdir("own");
	t->root = g_build_filename(t->dir, "root", NULL);
	t->stamp = g_build_filename(t->dir, "stamp", NULL);
	t->roots[0] = t->root;
	p = at(t, "a/b");
	assert_int_equal(g_mkdir_with_parents(p, 0755), 0);
	g_free(p);
	write_file(t, "f1");
	write_file(t, "a/b/f2");
	p = at(t, "a/l");
	assert_int_equal(symlink("b/f2", p), 0);
	g_free(p);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tree *t = *state;

	if (t) {
		fixture_rm_rf(t->dir);
		g_free(t->dir);
		g_free(t->root);
		g_free(t->stamp);
		g_free(t);
	}
	return 0;
}

static struct own_walk walk(const struct tree *t)
{
	struct own_walk w = { .uid = UID, .gid = GID, .stamp = t->stamp };

	assert_true(own_trees(&w, t->roots));
	assert_null(w.failed);
	return w;
}

/* Wait out the slack own.c gives the coarse clock of file times. */
static void settle(void)
{
	g_usleep(1100 * 1000);
}

/*
 * Move the stamp's start 2 s on: as if the last walk had come well after
 * every change made so far, which no waiting can give an entry changed
 * just before the test's walk.
 */
static void age_stamp(const struct tree *t)
{
	char *text, **lines;
	GString *aged = g_string_new(NULL);

	assert_true(g_file_get_contents(t->stamp, &text, NULL, NULL));
	lines = g_strsplit(text, "\n", -1);
	g_string_append_printf(aged, "%s\n", lines[0]);
	for (int i = 1; lines[i] && *lines[i]; i++) {
		long long start;
		int n;

		assert_int_equal(sscanf(lines[i], "%lld%n", &start, &n), 1);
		g_string_append_printf(aged, "%lld%s\n", start + 2000000000LL,
				       lines[i] + n);
	}
	assert_true(g_file_set_contents(t->stamp, aged->str, -1, NULL));
	g_string_free(aged, TRUE);
	g_strfreev(lines);
	g_free(text);
}

static bool stamp_has(const struct tree *t, const char *root)
{
	char *text, *line = g_strdup_printf(" %s\n", root);
	bool has;

	assert_true(g_file_get_contents(t->stamp, &text, NULL, NULL));
	has = strstr(text, line);
	g_free(line);
	g_free(text);
	return has;
}

static void test_first_walk_gives_all(void **state)
{
	struct tree *t = *state;
	struct own_walk w;

	if (!t)
		skip();
	w = walk(t);
	assert_false(w.pruned);
	assert_int_equal(w.given, 6);
	assert_int_equal(w.looked, 6);
	assert_int_equal(owner(t, "a/l"), UID);
	assert_true(g_file_test(t->stamp, G_FILE_TEST_EXISTS));
	/* again, nothing to give: the stamp is trusted */
	w = walk(t);
	assert_true(w.pruned);
	assert_int_equal(w.given, 0);
}

static void test_unchanged_directories_pruned(void **state)
{
	struct tree *t = *state;
	struct own_walk w;

	if (!t)
		skip();
	/* the second walk trusts the first's stamp: from its start, 1 s slack */
	walk(t);
	settle();
	walk(t);
	w = walk(t);
	assert_true(w.pruned);
	assert_int_equal(w.looked, 3);
	/* a new file of root's changes its directory: seen */
	write_file(t, "a/b/f3");
	w = walk(t);
	assert_int_equal(w.given, 1);
	assert_int_equal(w.looked, 5);
	assert_int_equal(owner(t, "a/b/f3"), UID);
	/* what a pruned walk cannot see, and why the stamp can be removed */
	give_root(t, "f1");
	assert_int_equal(walk(t).given, 0);
	assert_int_equal(owner(t, "f1"), 0);
	assert_int_equal(unlink(t->stamp), 0);
	assert_int_equal(walk(t).given, 1);
	assert_int_equal(owner(t, "f1"), UID);
}

/* A tree moved in whole keeps its old ctimes: its directories are root's. */
static void test_directory_of_another_owner(void **state)
{
	struct tree *t = *state;
	struct own_walk w;

	if (!t)
		skip();
	walk(t);
	give_root(t, "a/b/f2");
	give_root(t, "a/b");
	age_stamp(t);
	w = walk(t);
	assert_true(w.pruned);
	assert_int_equal(w.given, 2);
	assert_int_equal(owner(t, "a/b/f2"), UID);
}

/* A stamp of another build user is not trusted. */
static void test_stamp_of_other_user(void **state)
{
	struct tree *t = *state;
	struct own_walk w = { .uid = UID + 1,
			      .gid = GID,
			      .stamp = t ? t->stamp : NULL };

	if (!t)
		skip();
	walk(t);
	age_stamp(t);
	assert_true(own_trees(&w, t->roots));
	assert_false(w.pruned);
	assert_int_equal(w.given, 6);
}

/*
 * Each root has its own record: a new root is walked whole beside a
 * pruned one, and a walk without a root keeps that root's record.
 */
static void test_stamp_per_root(void **state)
{
	struct tree *t = *state;
	struct own_walk w;
	char *other, *f;

	if (!t)
		skip();
	other = g_build_filename(t->dir, "other", NULL);
	f = g_build_filename(other, "f", NULL);
	assert_int_equal(g_mkdir_with_parents(other, 0755), 0);
	assert_true(g_file_set_contents(f, "x", 1, NULL));
	walk(t);
	age_stamp(t);
	t->roots[1] = other;
	w = walk(t);
	assert_true(w.pruned);
	assert_int_equal(w.looked, 3 + 2); /* root's directories; other whole */
	assert_int_equal(w.given, 2);
	/* the first root alone, then both again: other's record was kept */
	t->roots[1] = NULL;
	age_stamp(t);
	assert_int_equal(walk(t).looked, 3);
	age_stamp(t);
	t->roots[1] = other;
	assert_int_equal(walk(t).looked, 3 + 1);
	/* a root removed since is dropped from the stamp */
	fixture_rm_rf(other);
	t->roots[1] = NULL;
	walk(t);
	assert_false(stamp_has(t, other));
	g_free(f);
	g_free(other);
}

/* A root that is not there (no results yet) is not an error. */
static void test_missing_root(void **state)
{
	struct tree *t = *state;
	struct own_walk w;
	char *gone;

	if (!t)
		skip();
	gone = g_build_filename(t->dir, "gone", NULL);
	t->roots[1] = gone;
	w = walk(t);
	assert_int_equal(w.given, 6);
	t->roots[1] = NULL;
	g_free(gone);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_first_walk_gives_all,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_unchanged_directories_pruned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_directory_of_another_owner,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_stamp_of_other_user, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_stamp_per_root, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_missing_root, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
