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

	dir = g_dir_make_tmp("kmatrix-tree-XXXXXX", NULL);
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
	char *cmd = g_strdup_printf("rm -rf %s", dir);

	sh(cmd);
	g_free(cmd);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_ids_as_documented),
		cmocka_unit_test(test_stock_version_recorded),
		cmocka_unit_test(test_no_version_without_tree),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
