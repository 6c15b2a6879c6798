// SPDX-License-Identifier: GPL-2.0
/*
 * Steps: a baseline and a series applied with git am onto a laid tree,
 * tagged step/<id>; unchanged steps kept on the next run; a patch that
 * does not apply shows its failing hunk and blocks the later steps, one
 * that cannot be read is a set-up error, one git fails on an
 * infra-error; a
 * malformed order file is named with its line; the end of a run leaves
 * the files where the last build left them; a record of the applied
 * steps stands in for git only while nothing they came from changed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "apply.h"
#include "fixture.h"
#include "run.h"
#include "tree.h"

static char *dir;
/* The paths the tests build, freed with the directory in teardown. */
static GPtrArray *paths;

static char *path(char *p)
{
	g_ptr_array_add(paths, p);
	return p;
}

static int sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	char *argv[] = { "sh", "-ec", NULL, NULL };
	struct child c = { .argv = argv, .log = "/dev/null" };
	int rc;

	va_start(ap, fmt);
	cmd = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	argv[2] = cmd;
	rc = run_command(&c);
	g_free(cmd);
	return rc;
}

#define GIT_ID "git -c user.name=Dev -c user.email=dev@example.org -c commit.gpgsign=false"

/*
 * A stock tree, then in a scratch clone the baseline and two series
 * patches, exported with format-patch into backports/9.9/baseline and
 * series/ like the project's.
 */
static int setup(void **state)
{
	dir = fixture_tmpdir("apply");
	paths = g_ptr_array_new_with_free_func(g_free);
	/* Like the build user: no git identity, none guessed from the host. */
	g_setenv("HOME", dir, TRUE);
	g_setenv("GIT_CONFIG_NOSYSTEM", "1", TRUE);
	g_setenv("GIT_CONFIG_COUNT", "1", TRUE);
	g_setenv("GIT_CONFIG_KEY_0", "user.useConfigOnly", TRUE);
	g_setenv("GIT_CONFIG_VALUE_0", "true", TRUE);
	g_unsetenv("EMAIL");
	return sh("cd %s && mkdir -p src/linux-9.9/kernel && seq 1 40 > src/linux-9.9/kernel/sys.c && "
		  "tar -C src -cJf linux.tar.xz linux-9.9", dir) ||
	       tree_lay(path(g_build_filename(dir, "tree", NULL)),
			path(g_build_filename(dir, "linux.tar.xz", NULL)),
			"linux-source-9.9", "9.9-1", NULL) ||
	       sh("cd %s && git clone -q tree scratch && cd scratch && "
		  "sed -i 's/^10$/ten/' kernel/sys.c && " GIT_ID " commit -qam 'sched: baseline' && "
		  "sed -i 's/^20$/twenty/' kernel/sys.c && " GIT_ID " commit -qam 'resource: add limits' && "
		  "sed -i 's/^30$/thirty/' kernel/sys.c && " GIT_ID " commit -qam 'sched: use limits' && "
		  "mkdir -p ../backports/9.9/baseline ../series && "
		  "git format-patch -q -1 HEAD~2 -o ../backports/9.9/baseline && "
		  "git format-patch -q HEAD~2..HEAD -o ../series && "
		  "cd ../series && printf '# step patch\\nuapi 0001-resource-add-limits.patch\\nnice 0002-sched-use-limits.patch\\n' > order",
		  dir);
}

static int teardown(void **state)
{
	fixture_rm_rf(dir);
	g_free(dir);
	g_ptr_array_free(paths, TRUE);
	return 0;
}

static struct version_conf version(const char *series)
{
	struct version_conf v = {
		.name = "9.9", .package = "linux-source-9.9",
		.baseline = path(g_build_filename(dir, "backports/9.9/baseline", NULL)),
		.series = path(g_build_filename(dir, series, NULL)),
	};
	return v;
}

static struct step *step(GPtrArray *steps, int i)
{
	return steps->pdata[i];
}

/* @name in the fixture's directory, freed in teardown. */
static char *in_dir(const char *name)
{
	return path(g_build_filename(dir, name, NULL));
}

/* The series in @name planned and applied to the tree: its steps. */
static GPtrArray *apply(const char *name)
{
	struct version_conf v = version(name);
	GPtrArray *steps = apply_plan(&v, NULL);

	assert_non_null(steps);
	assert_int_equal(apply_steps(in_dir("tree"), dir, steps, in_dir("logs")), 0);
	return steps;
}

/* The series copied to @name, changed there by the shell command @edit, applied. */
static GPtrArray *apply_copy(const char *name, const char *edit)
{
	assert_int_equal(sh("cd %s && rm -rf %s && cp -r series %s && %s", dir, name, name, edit), 0);
	return apply(name);
}

static void test_apply_and_keep(void **state)
{
	char *tree = in_dir("tree");
	char *file = g_build_filename(tree, "kernel/sys.c", NULL);
	GPtrArray *steps = apply("series");
	char *tagged, *author, *nice_commit;
	struct stat before, after;

	assert_int_equal(steps->len, 4);
	assert_string_equal(step(steps, 2)->id, "uapi");
	for (int i = 0; i < 4; i++)
		assert_null(step(steps, i)->failure);
	tagged = tree_git(tree, "rev-parse", "step/nice", NULL);
	assert_string_equal(tagged, step(steps, 3)->commit);
	assert_string_equal(step(steps, 3)->subject, "sched: use limits");
	/* git am keeps the author; the committer is kmatrix at the author date. */
	author = tree_git(tree, "log", "-1", "--format=%an %cn %at %ct", "step/uapi", NULL);
	assert_true(g_str_has_prefix(author, "Dev kmatrix "));
	/* git am's CPU time and memory are the step's, not lost with the child. */
	assert_true(step(steps, 2)->usage.cpu > 0);
	assert_true(step(steps, 2)->usage.maxrss_kb > 0);
	nice_commit = g_strdup(step(steps, 3)->commit);
	g_ptr_array_free(steps, TRUE);

	/* Nothing changed: no checkout, so the build directory's mtimes hold. */
	assert_int_equal(stat(file, &before), 0);
	sleep(1);
	steps = apply("series");
	assert_string_equal(step(steps, 3)->commit, nice_commit);
	assert_int_equal(stat(file, &after), 0);
	assert_int_equal(before.st_mtime, after.st_mtime);
	g_ptr_array_free(steps, TRUE);
	g_free(tagged);
	g_free(author);
	g_free(nice_commit);
	g_free(file);

}

/* The steps of the series in @name, planned, not applied. */
static GPtrArray *planned(const char *name)
{
	struct version_conf v = version(name);
	GPtrArray *steps = apply_plan(&v, NULL);

	assert_non_null(steps);
	return steps;
}

/*
 * A record describes the steps without git while the stock and every
 * patch are those applied; anything else, or a failed step, is not
 * taken from it.
 */
static void test_recorded(void **state)
{
	char *tree = in_dir("tree");
	GPtrArray *steps = apply("series"), *again;

	apply_record(tree, steps, "stock-1");
	again = planned("series");
	assert_true(apply_recorded(tree, again, "stock-1"));
	for (guint i = 0; i < steps->len; i++) {
		assert_string_equal(step(again, i)->commit, step(steps, i)->commit);
		assert_string_equal(step(again, i)->tree, step(steps, i)->tree);
		assert_string_equal(step(again, i)->subject, step(steps, i)->subject);
	}
	g_ptr_array_free(again, TRUE);

	/* Another stock (a package upgrade): not described. */
	again = planned("series");
	assert_false(apply_recorded(tree, again, "stock-2"));
	for (guint i = 0; i < again->len; i++)
		assert_null(step(again, i)->commit);
	g_ptr_array_free(again, TRUE);

	/* A patch changed since it was applied. */
	assert_int_equal(sh("cd %s && rm -rf edited && cp -r series edited && "
			    "sed -i 's/^+thirty$/+thirty-one/' edited/0002-sched-use-limits.patch && "
			    "grep -q '^+thirty-one$' edited/0002-sched-use-limits.patch",
			    dir), 0);
	again = planned("edited");
	assert_false(apply_recorded(tree, again, "stock-1"));
	g_ptr_array_free(again, TRUE);

	/* A failed step records nothing, and the old record is gone. */
	step(steps, 3)->failure = g_strdup("0002-sched-use-limits.patch does not apply");
	apply_record(tree, steps, "stock-1");
	again = planned("series");
	assert_false(apply_recorded(tree, again, "stock-1"));
	g_ptr_array_free(again, TRUE);

	/* And apply_unrecord() drops it. */
	g_clear_pointer(&step(steps, 3)->failure, g_free);
	apply_record(tree, steps, "stock-1");
	apply_unrecord(tree);
	again = planned("series");
	assert_false(apply_recorded(tree, again, "stock-1"));
	g_ptr_array_free(again, TRUE);
	g_ptr_array_free(steps, TRUE);
}

/* A step tag deleted by hand is tagged again at its commit, without a checkout. */
static void test_lost_tag(void **state)
{
	char *tree = in_dir("tree");
	char *file = g_build_filename(tree, "kernel/sys.c", NULL);
	GPtrArray *steps = apply("series");
	char *uapi, *tagged, **recorded;
	struct stat before, after;

	uapi = g_strdup(step(steps, 2)->commit);
	g_ptr_array_free(steps, TRUE);
	assert_int_equal(sh("git -C %s tag -d step/uapi", tree), 0);
	assert_int_equal(stat(file, &before), 0);
	sleep(1);
	steps = apply("series");
	assert_string_equal(step(steps, 2)->commit, uapi);
	tagged = tree_git(tree, "rev-parse", "step/uapi", NULL);
	assert_string_equal(tagged, uapi);
	assert_int_equal(stat(file, &after), 0);
	assert_int_equal(before.st_mtime, after.st_mtime);
	/* what the check of a laid tree reads: every recorded step commit */
	recorded = tree_recorded_commits(tree);
	assert_int_equal(g_strv_length(recorded), 3);
	assert_true(g_strv_contains((const char *const *)recorded, uapi));
	g_strfreev(recorded);
	g_ptr_array_free(steps, TRUE);
	g_free(tagged);
	g_free(uapi);
	g_free(file);

}

static bool has_evidence(struct step *s, const char *part)
{
	for (guint i = 0; i < s->evidence->len; i++)
		if (strstr(s->evidence->pdata[i], part))
			return true;
	return false;
}

static void test_failing_hunk(void **state)
{
	/* The uapi patch's context no longer matches: line 19 changed. */
	GPtrArray *steps = apply_copy("broken",
				      "sed -i 's/^ 19$/ nineteen/' broken/0001-resource-add-limits.patch");
	char *tree = in_dir("tree");
	char *gone, *rebase;

	assert_null(step(steps, 1)->failure);
	assert_non_null(step(steps, 2)->failure);
	assert_non_null(strstr(step(steps, 2)->failure, "0001-resource-add-limits.patch does not apply"));
	assert_string_equal(step(steps, 2)->verdict, "apply-failed");
	assert_true(has_evidence(step(steps, 2), "patch failed: kernel/sys.c"));
	assert_true(has_evidence(step(steps, 2), "nineteen"));
	assert_non_null(strstr(step(steps, 3)->failure, "earlier step uapi did not apply"));
	assert_null(step(steps, 3)->commit);
	/* No stale tag survives for bisect or reports. */
	gone = tree_git(tree, "rev-parse", "-q", "--verify", "step/nice", NULL);
	assert_null(gone);
	/* git am was aborted, or the next run's git am could not start. */
	rebase = g_build_filename(tree, ".git", "rebase-apply", NULL);
	assert_false(g_file_test(rebase, G_FILE_TEST_EXISTS));
	g_free(rebase);
	g_ptr_array_free(steps, TRUE);
}

/*
 * The host, not the patch, stopped step uapi: it has @verdict, a failure
 * naming @failure and evidence showing @evidence; nice is blocked with the
 * same verdict; the baseline before them stands.
 */
static void assert_host_failure(GPtrArray *steps, const char *verdict, const char *failure,
				const char *evidence)
{
	assert_null(step(steps, 1)->failure);
	assert_non_null(step(steps, 1)->commit);
	assert_string_equal(step(steps, 2)->verdict, verdict);
	assert_non_null(strstr(step(steps, 2)->failure, failure));
	assert_true(has_evidence(step(steps, 2), evidence));
	assert_string_equal(step(steps, 3)->verdict, verdict);
	assert_non_null(strstr(step(steps, 3)->failure, "earlier step uapi"));
}

/*
 * A patch the build user cannot read is the host's failure, not the
 * patch's.  Root reads any file, so a patch gone after planning stands in.
 */
static void test_unreadable(void **state)
{
	struct version_conf v = version("gone");
	GPtrArray *steps;

	assert_int_equal(sh("cd %s && rm -rf gone && cp -r series gone", dir), 0);
	steps = apply_plan(&v, NULL);
	assert_int_equal(sh("rm %s/gone/0001-resource-add-limits.patch", dir), 0);
	assert_int_equal(apply_steps(in_dir("tree"), dir, steps, in_dir("logs")), 0);
	assert_host_failure(steps, "setup-error", "the build user cannot read",
			    "No such file or directory");
	g_ptr_array_free(steps, TRUE);
}

/*
 * git itself failing on a step (here: a stale index.lock) is the host's
 * fault: that step and the later ones are infra-errors with git's words,
 * the steps before it stand.
 */
static void test_git_fails(void **state)
{
	/* Another uapi patch: it must be applied again, not kept. */
	GPtrArray *steps = apply_copy("locked",
				      "sed -i 's/^Subject: .*/&, again/' locked/0001-resource-add-limits.patch && "
				      ": >tree/.git/index.lock");

	unlink(in_dir("tree/.git/index.lock"));
	assert_host_failure(steps, "infra-error", "git failed while applying step uapi",
			    "index.lock");
	assert_string_equal(step(steps, 2)->failure, "git failed while applying step uapi");
	g_ptr_array_free(steps, TRUE);
}

/* A series must sit on the baseline it names; the tree's own ids make that checkable. */
static void test_base_commit(void **state)
{
	char *base = tree_git(in_dir("tree"), "rev-parse", "step/baseline", NULL);
	char *edit = g_strdup_printf("printf 'base-commit: %s\\n' >> based/0001-resource-add-limits.patch",
				     "0123456789012345678901234567890123456789");
	GPtrArray *steps = apply_copy("based", edit);

	assert_non_null(strstr(step(steps, 2)->failure, "series base-commit 012345678901 is not the baseline"));
	assert_true(has_evidence(step(steps, 2), "base-commit: 0123456789012345678901234567890123456789"));
	g_ptr_array_free(steps, TRUE);
	g_free(edit);

	edit = g_strdup_printf("printf 'base-commit: %s\\n' >> based/0001-resource-add-limits.patch", base);
	steps = apply_copy("based", edit);
	assert_null(step(steps, 2)->failure);
	assert_null(step(steps, 3)->failure);
	g_ptr_array_free(steps, TRUE);
	g_free(edit);
	g_free(base);
}

static void test_bad_order(void **state)
{
	struct version_conf v = version("badorder");
	GError *err = NULL;
	char *want;

	assert_int_equal(sh("cd %s && mkdir -p badorder && cp series/0001-*.patch badorder/a.patch && "
			    "cp series/0002-*.patch badorder/b.patch && "
			    "printf 'uapi a.patch\\n\\nnice\\n' > badorder/order", dir), 0);
	assert_null(apply_plan(&v, &err));
	want = g_strdup_printf("%s/badorder/order:3: expected 'step-id patch-file'", dir);
	assert_true(g_str_has_prefix(err->message, want));
	g_free(want);
	g_clear_error(&err);
	assert_int_equal(sh("cd %s && printf 'uapi a.patch\\nuapi b.patch\\n' > badorder/order", dir), 0);
	assert_null(apply_plan(&v, &err));
	assert_non_null(strstr(err->message, "order:2: duplicate step id 'uapi'"));
	g_clear_error(&err);
}

/* The branch HEAD is on, "matrix" or NULL when detached. */
static char *branch(const char *tree)
{
	return tree_git(tree, "symbolic-ref", "-q", "--short", "HEAD", NULL);
}

static void assert_same_mtime(const struct stat *a, const char *file)
{
	struct stat b;

	assert_int_equal(stat(file, &b), 0);
	assert_int_equal(a->st_mtim.tv_sec, b.st_mtim.tv_sec);
	assert_int_equal(a->st_mtim.tv_nsec, b.st_mtim.tv_nsec);
}

/*
 * The end of a run that built a step short of the tip leaves the files
 * as built (HEAD detached there), the next run's apply works from there,
 * and a run that ended on the tip is back on branch matrix.
 */
static void test_end_of_run(void **state)
{
	char *tree = in_dir("tree");
	char *file = g_build_filename(tree, "kernel/sys.c", NULL);
	GPtrArray *steps = apply("series");
	char *uapi, *nice, *head, *on, *text = NULL;
	struct stat built;

	uapi = g_strdup(step(steps, 2)->commit);
	nice = g_strdup(step(steps, 3)->commit);
	g_ptr_array_free(steps, TRUE);

	/* A run of --steps stock,baseline,uapi built uapi last. */
	assert_int_equal(sh("cd %s && git checkout -q -f --detach %s", tree, uapi), 0);
	assert_int_equal(stat(file, &built), 0);
	sleep(1);
	assert_false(tree_release(tree));
	head = tree_git(tree, "rev-parse", "HEAD", NULL);
	assert_string_equal(head, uapi);
	assert_null(branch(tree));
	assert_same_mtime(&built, file);
	assert_true(g_file_get_contents(file, &text, NULL, NULL));
	assert_non_null(strstr(text, "\ntwenty\n"));
	assert_null(strstr(text, "thirty"));
	g_free(text);
	g_free(head);

	/* The next run keeps every step without a checkout... */
	steps = apply("series");
	assert_string_equal(step(steps, 3)->commit, nice);
	assert_same_mtime(&built, file);
	g_ptr_array_free(steps, TRUE);

	/* ...and re-applies a changed step onto matrix from the detached HEAD. */
	steps = apply_copy("changed", "sed -i 's/^+thirty$/+THIRTY/' changed/0002-sched-use-limits.patch");
	assert_null(step(steps, 3)->failure);
	assert_string_equal(step(steps, 2)->commit, uapi);
	assert_string_not_equal(step(steps, 3)->commit, nice);
	on = branch(tree);
	assert_string_equal(on, "matrix");
	g_free(on);
	head = tree_git(tree, "rev-parse", "matrix", NULL);
	assert_string_equal(head, step(steps, 3)->commit);
	g_free(head);

	/* A run whose last build was the tip ends on branch matrix, files untouched. */
	assert_int_equal(sh("cd %s && git checkout -q -f --detach %s", tree, step(steps, 3)->commit), 0);
	assert_int_equal(stat(file, &built), 0);
	sleep(1);
	assert_true(tree_release(tree));
	on = branch(tree);
	assert_string_equal(on, "matrix");
	assert_same_mtime(&built, file);
	/* HEAD only pointed at the branch: the index and files agree with it */
	text = tree_git(tree, "status", "--porcelain", "--untracked-files=no", NULL);
	assert_string_equal(text, "");
	g_free(text);
	/* on the branch already: nothing to do, and said so */
	assert_true(tree_release(tree));
	g_ptr_array_free(steps, TRUE);
	g_free(on);
	g_free(uapi);
	g_free(nice);
	g_free(file);

}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_apply_and_keep),
		cmocka_unit_test(test_lost_tag),
		cmocka_unit_test(test_recorded),
		cmocka_unit_test(test_failing_hunk),
		cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_git_fails),
		cmocka_unit_test(test_base_commit),
		cmocka_unit_test(test_bad_order),
		cmocka_unit_test(test_end_of_run),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
