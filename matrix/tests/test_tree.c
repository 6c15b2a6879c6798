// SPDX-License-Identifier: GPL-2.0
/*
 * Tree laying: kmatrix's C code must give the same commit ids as the
 * procedure documented in DESIGN.md (the one the shared trees were laid
 * with), so a series' base-commit means the same on every machine.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fixture.h"
#include "run.h"
#include "tree.h"

static char *dir, *tarball;

static int sh(const char *cmd)
{
	char *argv[] = { "sh", "-c", (char *)cmd, NULL };
	struct child c = { .argv = argv };

	return run_command(&c);
}

/* A small source tarball like linux-source's: one top directory, modes, a link. */
static int setup(void **state)
{
	char *cmd;
	int rc;

	dir = fixture_tmpdir("tree");
	tarball = g_build_filename(dir, "linux-source-9.9.tar.xz", NULL);
	cmd = g_strdup_printf("cd %s && mkdir -p src/linux-source-9.9/scripts src/linux-source-9.9/kernel && "
			      "printf 'obj-y += sys.o\\n' > src/linux-source-9.9/kernel/Makefile && "
			      "printf 'int x;\\n' > src/linux-source-9.9/kernel/sys.c && "
			      "printf '#!/bin/sh\\n' > src/linux-source-9.9/scripts/run.sh && "
			      "chmod +x src/linux-source-9.9/scripts/run.sh && "
			      "printf '*.o\\n' > src/linux-source-9.9/.gitignore && "
			      "printf 'x\\n' > src/linux-source-9.9/kernel/ignored.o && "
			      "ln -s kernel/sys.c src/linux-source-9.9/link.c && "
			      "tar -C src -cJf %s linux-source-9.9", dir, tarball);
	rc = sh(cmd);
	g_free(cmd);
	return rc;
}

static int teardown(void **state)
{
	fixture_rm_rf(dir);
	g_free(dir);
	g_free(tarball);
	return 0;
}

static char *commit_of(const char *tree)
{
	return tree_git(tree, "rev-parse", "stock", NULL);
}

static void test_same_ids_as_documented(void **state)
{
	char *mine = g_build_filename(dir, "c-laid", NULL);
	char *theirs = g_build_filename(dir, "sh-laid", NULL);
	char *cmd = g_strdup_printf("fixtures/tree/lay-documented.sh %s %s linux-source-9.9 9.9.1-1",
				    theirs, tarball);
	char *a, *b, *files;

	assert_int_equal(tree_lay(mine, tarball, "linux-source-9.9", "9.9.1-1", NULL), 0);
	assert_int_equal(sh(cmd), 0);
	a = commit_of(mine);
	b = commit_of(theirs);
	assert_non_null(a);
	assert_string_equal(a, b);
	/* git add -f: files the tree's own .gitignore names are in the commit too. */
	files = tree_git(mine, "ls-files", "kernel/ignored.o", NULL);
	assert_string_equal(files, "kernel/ignored.o");
	g_free(files);
	g_free(a);
	g_free(b);
	g_free(cmd);
	g_free(mine);
	g_free(theirs);
}

static void test_stock_version_recorded(void **state)
{
	char *t = g_build_filename(dir, "versioned", NULL);
	char *v, *subject, *branch;

	assert_int_equal(tree_lay(t, tarball, "linux-source-9.9", "9.9.1-2~deb12u1", NULL), 0);
	v = tree_stock_version(t);
	assert_string_equal(v, "9.9.1-2~deb12u1");
	subject = tree_git(t, "log", "-1", "--format=%s%n%an <%ae> %at", "stock", NULL);
	assert_string_equal(subject, "stock: linux-source-9.9 9.9.1-2~deb12u1\nkmatrix <kmatrix@invalid> 0");
	branch = tree_git(t, "symbolic-ref", "--short", "HEAD", NULL);
	assert_string_equal(branch, "kmatrix");
	g_free(branch);
	/* No steps applied (no branch matrix): the end of a run leaves HEAD alone. */
	assert_false(tree_release(t));
	branch = tree_git(t, "symbolic-ref", "--short", "HEAD", NULL);
	assert_string_equal(branch, "kmatrix");
	g_free(branch);
	g_free(subject);
	g_free(v);
	g_free(t);
}

static void test_no_version_without_tree(void **state)
{
	char *t = g_build_filename(dir, "absent", NULL);

	assert_null(tree_stock_version(t));
	g_free(t);
}

/*
 * dpkg-query stand-in: prints $FAKE_PKGVER for any package, or fails
 * like dpkg-query does for a package that is not installed.
 */
static char *fake_dpkg(void)
{
	char *bin = g_build_filename(dir, "bin", NULL);
	char *cmd = g_strdup_printf("mkdir -p %s && printf '%%s\\n' '#!/bin/sh' "
				    "'[ -n \"$FAKE_PKGVER\" ] || exit 1' "
				    "'printf %%s \"$FAKE_PKGVER\"' > %s/dpkg-query && "
				    "chmod +x %s/dpkg-query", bin, bin, bin);
	char *path = g_strdup_printf("%s:%s", bin, g_getenv("PATH"));

	assert_int_equal(sh(cmd), 0);
	g_setenv("PATH", path, TRUE);
	g_free(path);
	g_free(cmd);
	g_free(bin);
	return g_build_filename(dir, "cache", NULL);
}

static char *laid_marker(const char *t)
{
	return g_build_filename(t, ".git", "kmatrix-test-marker", NULL);
}

/* Laid once, reused while the package version stands, re-laid when it moves. */
static void test_relay_on_package_version(void **state)
{
	char *cache = fake_dpkg();
	struct version_conf v = { .name = "9.9", .package = "linux-source-9.9",
				  .tarball = tarball };
	char *t = tree_dir(cache, "9.9");
	char *marker = laid_marker(t);
	char *msg = NULL, *have;

	g_setenv("FAKE_PKGVER", "9.9.1-1", TRUE);
	assert_int_equal(tree_prepare(cache, &v, &msg), TREE_READY);
	assert_true(g_file_set_contents(marker, "", 0, NULL));

	assert_int_equal(tree_prepare(cache, &v, &msg), TREE_READY);
	assert_true(g_file_test(marker, G_FILE_TEST_EXISTS));

	g_setenv("FAKE_PKGVER", "9.9.1-2", TRUE);
	assert_int_equal(tree_prepare(cache, &v, &msg), TREE_READY);
	assert_false(g_file_test(marker, G_FILE_TEST_EXISTS));
	have = tree_stock_version(t);
	assert_string_equal(have, "9.9.1-2");
	assert_null(msg);
	g_free(have);
	g_free(marker);
	g_free(t);
	g_free(cache);
}

/* The loose object file of @what in @t. */
static char *object_file(const char *t, const char *what)
{
	char *id = tree_git(t, "rev-parse", what, NULL);
	char *sub = g_strndup(id, 2);
	char *f = g_build_filename(t, ".git", "objects", sub, id + 2, NULL);

	g_free(sub);
	g_free(id);
	return f;
}

/* A step that changes kernel/sys.c, tagged as kmatrix tags one. */
static void add_step(const char *t)
{
	char *cmd = g_strdup_printf("cd %s && echo 'int y;' >> kernel/sys.c && "
				    "git -c user.name=k -c user.email=k@invalid commit -qam step && "
				    "git tag step/nice", t);

	assert_int_equal(sh(cmd), 0);
	g_free(cmd);
}

/* Laid afresh: the marker a test leaves in .git is gone. */
static void assert_relaid(const char *cache, struct version_conf *v, const char *marker)
{
	char *msg = NULL;

	assert_true(g_file_set_contents(marker, "", 0, NULL));
	assert_int_equal(tree_prepare(cache, v, &msg), TREE_READY);
	assert_null(msg);
	assert_false(g_file_test(marker, G_FILE_TEST_EXISTS));
}

/*
 * A tree whose objects are damaged is laid again: a missing tree object,
 * a truncated blob a step changes, a damage git met while using it.  A
 * whole one is kept, and its object store recorded: the damage is found
 * all the same.
 */
static void test_damaged_tree(void **state)
{
	char *cache = fake_dpkg();
	struct version_conf v = { .name = "9.9", .package = "linux-source-9.9",
				  .tarball = tarball };
	char *t = tree_dir(cache, "9.9"), *marker = laid_marker(t);
	char *msg = NULL, *f;

	g_setenv("FAKE_PKGVER", "9.9.1-1", TRUE);
	assert_int_equal(tree_prepare(cache, &v, &msg), TREE_READY);
	add_step(t);
	assert_true(g_file_set_contents(marker, "", 0, NULL));
	assert_int_equal(tree_prepare(cache, &v, &msg), TREE_READY);
	assert_true(g_file_test(marker, G_FILE_TEST_EXISTS));

	f = object_file(t, "stock:kernel");
	assert_int_equal(unlink(f), 0);
	g_free(f);
	assert_relaid(cache, &v, marker);

	/* found sound, its object store is recorded; damage after it is seen */
	add_step(t);
	assert_true(g_file_set_contents(marker, "", 0, NULL));
	assert_int_equal(tree_prepare(cache, &v, &msg), TREE_READY);
	assert_true(g_file_test(marker, G_FILE_TEST_EXISTS));
	f = g_build_filename(t, ".git", "kmatrix-sound", NULL);
	assert_true(g_file_test(f, G_FILE_TEST_IS_REGULAR));
	g_free(f);
	f = object_file(t, "stock:kernel/sys.c");
	/* loose objects are read-only: truncate as a crash would */
	assert_int_equal(truncate(f, 10), 0);
	g_free(f);
	assert_relaid(cache, &v, marker);

	tree_mark_damaged(t, "error: inflate: data stream error (incorrect header check)");
	assert_relaid(cache, &v, marker);
	g_free(marker);
	g_free(t);
	g_free(cache);
}

/* The line of a git log that tells damage from a patch's fault. */
static void test_damage_line(void **state)
{
	char *log = g_build_filename(dir, "git.log", NULL);
	char *line;

	assert_true(g_file_set_contents(log, "Applying: x\nerror: inflate: data stream error\n"
					"fatal: loose object 1234 (stored in .git/objects/12/34) is corrupt\n",
					-1, NULL));
	line = tree_damage_line(log);
	assert_string_equal(line, "error: inflate: data stream error");
	g_free(line);
	assert_true(g_file_set_contents(log, "error: patch failed: kernel/sys.c:1419\n"
					"error: kernel/sys.c: patch does not apply\n"
					"Patch failed at 0001 mm: read a corrupt object\n"
					"error: corrupt patch at line 12\n", -1, NULL));
	assert_null(tree_damage_line(log));
	g_free(log);
}

/* Laying where nothing can be written names the path and its error, and leaves nothing. */
static void test_lay_fails(void **state)
{
	char *cache = fake_dpkg();
	char *trees = g_build_filename(cache, "trees", NULL);
	struct version_conf v = { .name = "9.7", .package = "linux-source-9.7",
				  .tarball = tarball };
	char *t = tree_dir(cache, "9.7"), *tmp = g_strconcat(t, ".tmp", NULL);
	char *msg = NULL, *broken = g_build_filename(dir, "broken.tar.xz", NULL);
	char *cmd = g_strdup_printf("head -c 100 %s > %s", tarball, broken);

	g_setenv("FAKE_PKGVER", "9.7.1-1", TRUE);
	/* a tarball cut short: tar fails half-way, after laying some of it */
	assert_int_equal(sh(cmd), 0);
	v.tarball = broken;
	assert_int_equal(tree_prepare(cache, &v, &msg), TREE_FAILED);
	assert_non_null(strstr(msg, tmp));
	assert_false(g_file_test(tmp, G_FILE_TEST_EXISTS));
	assert_false(g_file_test(t, G_FILE_TEST_EXISTS));
	g_clear_pointer(&msg, g_free);
	/* trees/ is not a directory: the error names it */
	v.tarball = tarball;
	v.name = "9.6";
	g_free(cmd);
	cmd = g_strdup_printf("mkdir -p %s && rm -rf %s/trees && touch %s/trees", cache, cache, cache);
	assert_int_equal(sh(cmd), 0);
	assert_int_equal(tree_prepare(cache, &v, &msg), TREE_FAILED);
	assert_non_null(strstr(msg, trees));
	assert_non_null(strstr(msg, "Not a directory"));
	unlink(trees);
	g_free(msg);
	g_free(cmd);
	g_free(broken);
	g_free(tmp);
	g_free(t);
	g_free(trees);
	g_free(cache);
}

/* A missing package is a set-up error naming the apt command; no tree is laid. */
static void test_missing_package(void **state)
{
	char *cache = fake_dpkg();
	struct version_conf v = { .name = "9.8", .package = "linux-source-9.8",
				  .tarball = tarball };
	char *t = tree_dir(cache, "9.8");
	char *msg = NULL;

	g_unsetenv("FAKE_PKGVER");
	assert_int_equal(tree_prepare(cache, &v, &msg), TREE_SETUP_ERROR);
	assert_non_null(strstr(msg, "apt-get install linux-source-9.8"));
	assert_false(g_file_test(t, G_FILE_TEST_EXISTS));
	g_free(msg);
	g_free(t);
	g_free(cache);
}

/*
 * A maintainer's repository: two commits on a branch, a tag, a second
 * branch whose tip has the first one's tree (a re-tag of the same code).
 */
static char *make_repo(const char *name)
{
	char *repo = g_build_filename(dir, name, NULL);
	char *cmd = g_strdup_printf(
		"set -e; git init -q -b main %s; cd %s; git config user.name m; "
		"git config user.email m@example.org; mkdir kernel; "
		"echo 'int x;' > kernel/sys.c; git add .; git commit -qm one; git tag v9.9.1; "
		"echo 'int y;' >> kernel/sys.c; git commit -qam two; git tag v9.9.2; "
		"git checkout -q -b same v9.9.1; git commit -q --allow-empty -m empty; "
		"git checkout -q main", repo, repo);

	assert_int_equal(sh(cmd), 0);
	g_free(cmd);
	return repo;
}

/* Everything a read could change: refs, config, reflogs, index, every file. */
static char *repo_state(const char *repo)
{
	char *cmd = g_strdup_printf("cd %s && git for-each-ref && cat .git/config && "
				    "find . -type f | sort | xargs sha256sum && "
				    "find . | sort | xargs stat -c '%%n %%s %%a %%Y'", repo);
	char *argv[] = { "sh", "-c", cmd, NULL };
	char *out = run_capture(argv, NULL, NULL);

	g_free(cmd);
	assert_non_null(out);
	return out;
}

static enum tree_state prepare(const char *cache, const char *repo, const char *ref,
			       char **msg)
{
	struct version_conf v = { .name = "9.9", .git = (char *)repo, .ref = (char *)ref };

	*msg = NULL;
	return tree_prepare(cache, &v, msg);
}

static char *rev(const char *d, const char *what)
{
	char *s = tree_git(d, "rev-parse", what, NULL);

	assert_non_null(s);
	return g_strstrip(s);
}

static void test_git_tree(void **state)
{
	char *repo = make_repo("linux"), *cache = g_build_filename(dir, "gcache", NULL);
	char *tree = tree_dir(cache, "9.9"), *before = repo_state(repo), *after, *msg;
	char *a, *b, *t1, *t2;

	sleep(1);	/* an mtime a write would change */
	assert_int_equal(prepare(cache, repo, "v9.9.1", &msg), TREE_READY);
	a = rev(tree, "stock");
	b = rev(repo, "v9.9.1^{commit}");
	assert_string_equal(a, b);	/* the stock step is their commit itself */
	g_free(a);
	g_free(b);
	/* the ref moves: the tree follows, in place */
	assert_int_equal(prepare(cache, repo, "v9.9.2", &msg), TREE_READY);
	a = rev(tree, "stock");
	b = rev(repo, "v9.9.2");
	assert_string_equal(a, b);
	g_free(a);
	g_free(b);
	/* another commit, the same tree: the tree id the cell keys use is unchanged */
	assert_int_equal(prepare(cache, repo, "same", &msg), TREE_READY);
	t1 = rev(tree, "stock^{tree}");
	t2 = rev(repo, "v9.9.1^{tree}");
	assert_string_equal(t1, t2);
	after = repo_state(repo);
	assert_string_equal(before, after);	/* nothing of theirs was written */
	g_free(t1);
	g_free(t2);
	g_free(after);
	g_free(before);
	g_free(tree);
	g_free(cache);
	g_free(repo);
}

/* What kmatrix plan asks: would the tree be laid?  Asking lays nothing. */
static void test_unlaid(void **state)
{
	char *repo = make_repo("plan-linux"), *cache = g_build_filename(dir, "pcache", NULL);
	struct version_conf v = { .name = "9.9", .git = repo, .ref = "v9.9.1" };
	struct version_conf pkg = { .name = "9.8", .package = "linux-source-9.8",
				    .tarball = tarball };
	char *tree = tree_dir(cache, "9.9"), *pcache = fake_dpkg(), *ptree, *why, *msg = NULL;

	why = tree_unlaid(cache, &v);
	assert_non_null(why);
	assert_non_null(strstr(why, "is not laid yet"));
	assert_false(g_file_test(tree, G_FILE_TEST_EXISTS));
	g_free(why);
	assert_int_equal(tree_prepare(cache, &v, &msg), TREE_READY);
	assert_null(tree_unlaid(cache, &v));
	v.ref = "v9.9.2";
	why = tree_unlaid(cache, &v);
	assert_non_null(why);
	assert_non_null(strstr(why, "v9.9.2 moved to"));
	g_free(why);

	/* a package's tree: not laid, laid, then another package version */
	ptree = tree_dir(pcache, "9.8");
	g_setenv("FAKE_PKGVER", "9.8.1-1", TRUE);
	why = tree_unlaid(pcache, &pkg);
	assert_non_null(why);
	assert_non_null(strstr(why, "is not laid yet"));
	assert_false(g_file_test(ptree, G_FILE_TEST_EXISTS));
	g_free(why);
	assert_int_equal(tree_prepare(pcache, &pkg, &msg), TREE_READY);
	assert_null(tree_unlaid(pcache, &pkg));
	g_setenv("FAKE_PKGVER", "9.8.1-2", TRUE);
	why = tree_unlaid(pcache, &pkg);
	assert_non_null(why);
	assert_non_null(strstr(why, "9.8.1-1, the installed one is 9.8.1-2"));
	g_free(why);
	/* not installed: tree_prepare's set-up error, nothing to lay */
	g_unsetenv("FAKE_PKGVER");
	assert_null(tree_unlaid(pcache, &pkg));
	g_free(ptree);
	g_free(pcache);
	g_free(tree);
	g_free(cache);
	g_free(repo);
}

static void assert_setup_error(const char *cache, const char *repo, const char *ref,
			       const char *want)
{
	char *msg;

	assert_int_equal(prepare(cache, repo, ref, &msg), TREE_SETUP_ERROR);
	if (!strstr(msg, want))
		fail_msg("'%s' does not say '%s'", msg, want);
	g_free(msg);
}

static void test_git_errors(void **state)
{
	char *repo = make_repo("errs"), *cache = g_build_filename(dir, "ecache", NULL);
	char *shallow = g_build_filename(dir, "shallow", NULL);
	char *plain = g_build_filename(dir, "plain", NULL);
	char *cmd = g_strdup_printf("git clone -q --depth 1 --branch v9.9.2 file://%s %s && "
				    "mkdir %s", repo, shallow, plain);

	assert_int_equal(sh(cmd), 0);
	assert_setup_error(cache, "/nonexistent/linux", "v1", "no git repository at /nonexistent/linux");
	assert_setup_error(cache, plain, "v1", "is not a git repository");
	assert_setup_error(cache, repo, "v9.9.9", "ref v9.9.9 is not in ");
	assert_setup_error(cache, repo, "v9.9.9", "`git -C ");
	/* the shallow clone has v9.9.2's commit but not its parent */
	assert_setup_error(cache, shallow, "HEAD~1", "a shallow clone: `git -C ");
	assert_setup_error(cache, shallow, "HEAD~1", " fetch --unshallow`");
	g_free(cmd);
	g_free(plain);
	g_free(shallow);
	g_free(cache);
	g_free(repo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_ids_as_documented),
		cmocka_unit_test(test_stock_version_recorded),
		cmocka_unit_test(test_no_version_without_tree),
		cmocka_unit_test(test_relay_on_package_version),
		cmocka_unit_test(test_missing_package),
		cmocka_unit_test(test_damaged_tree),
		cmocka_unit_test(test_damage_line),
		cmocka_unit_test(test_lay_fails),
		cmocka_unit_test(test_git_tree),
		cmocka_unit_test(test_unlaid),
		cmocka_unit_test(test_git_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
