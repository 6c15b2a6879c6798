// SPDX-License-Identifier: GPL-2.0
/*
 * The command line: global options before the verb, --version, help,
 * unknown verbs and options, and every verb's help within 80 columns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli.h"
#include "colour.h"
#include "fixture.h"
#include "progress.h"
#include "verbs.h"

struct out {
	int rc;
	char *out, *err;
};

static char *redirect(int fd, int *saved)
{
	char *path = g_strdup("/tmp/kmatrix-test-cli.XXXXXX");
	int tmp = mkstemp(path);

	assert_true(tmp >= 0);
	*saved = dup(fd);
	dup2(tmp, fd);
	close(tmp);
	return path;
}

static char *restore(int fd, int saved, char *path)
{
	char *text = NULL;

	dup2(saved, fd);
	close(saved);
	assert_true(g_file_get_contents(path, &text, NULL, NULL));
	unlink(path);
	g_free(path);
	return text;
}

/* kmatrix ARGS... (NULL-terminated): exit code, stdout and stderr. */
static struct out kmatrix(const char *first, ...)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
	struct out o;
	int so, se;
	char *po, *pe, **argv;
	va_list ap;

	g_ptr_array_add(a, g_strdup("kmatrix"));
	va_start(ap, first);
	for (const char *s = first; s; s = va_arg(ap, const char *))
		g_ptr_array_add(a, g_strdup(s));
	va_end(ap);
	/* cli_main() may reorder argv: it gets a copy */
	argv = g_new0(char *, a->len + 1);
	memcpy(argv, a->pdata, a->len * sizeof(char *));
	fflush(stdout);
	fflush(stderr);
	po = redirect(1, &so);
	pe = redirect(2, &se);
	o.rc = cli_main(a->len, argv);
	fflush(stdout);
	fflush(stderr);
	o.out = restore(1, so, po);
	o.err = restore(2, se, pe);
	g_free(argv);
	g_ptr_array_free(a, TRUE);
	return o;
}

static void out_free(struct out *o)
{
	g_free(o->out);
	g_free(o->err);
}

static int widest(const char *text)
{
	g_auto(GStrv) l = g_strsplit(text, "\n", -1);
	int w = 0;

	for (int i = 0; l[i]; i++)
		w = MAX(w, (int)g_utf8_strlen(l[i], -1));
	return w;
}

static void test_version(void **state)
{
	struct out o = kmatrix("--version", NULL);
	char *want = g_strdup_printf("kmatrix %s\n", cli_version());

	assert_int_equal(o.rc, 0);
	assert_string_equal(o.out, want);
	assert_true(*cli_version());
	g_free(want);
	out_free(&o);
}

/* --cache before the verb is the cache of everything after it. */
static void test_global_cache(void **state)
{
	char *dir = g_dir_make_tmp("kmatrix-cli-XXXXXX", NULL);
	struct out o;

	g_unsetenv("KMATRIX_CACHE");
	o = kmatrix("--cache", dir, "conf", "versions", NULL);
	assert_int_equal(o.rc, 0);
	assert_string_equal(g_getenv("KMATRIX_CACHE"), dir);
	assert_non_null(strstr(o.out, "7.2"));
	out_free(&o);
	g_unsetenv("KMATRIX_CACHE");
	o = kmatrix("--cache=", "status", NULL);
	assert_int_equal(o.rc, 2);
	assert_non_null(strstr(o.err, "--cache: empty"));
	out_free(&o);
	o = kmatrix("--color=sometimes", "status", NULL);
	assert_int_equal(o.rc, 2);
	assert_string_equal(o.err, "kmatrix: --color: 'sometimes' is not auto, always or never\n");
	out_free(&o);
	o = kmatrix("--cache", NULL);
	assert_int_equal(o.rc, 2);
	assert_non_null(strstr(o.err, "--cache"));
	out_free(&o);
	rmdir(dir);
	g_free(dir);
}

static void test_unknown(void **state)
{
	struct out o = kmatrix("--bogus", "status", NULL);

	assert_int_equal(o.rc, 2);
	assert_non_null(strstr(o.err, "--bogus"));
	/* one line */
	assert_ptr_equal(strchr(o.err, '\n'), o.err + strlen(o.err) - 1);
	out_free(&o);
	o = kmatrix("stauts", NULL);
	assert_int_equal(o.rc, 2);
	assert_string_equal(o.err, "kmatrix: unknown verb 'stauts'; did you mean 'status'?\n");
	out_free(&o);
	o = kmatrix("frobnicate", NULL);
	assert_int_equal(o.rc, 2);
	assert_string_equal(o.err, "kmatrix: unknown verb 'frobnicate' (see kmatrix help)\n");
	out_free(&o);
	o = kmatrix("help", "rnu", NULL);
	assert_int_equal(o.rc, 2);
	assert_non_null(strstr(o.err, "did you mean 'run'?"));
	out_free(&o);
	assert_string_equal(cli_suggest("plna"), "plan");
	assert_string_equal(cli_suggest("clena"), "clean");
	assert_null(cli_suggest("x"));
	/* bisect-step is not offered */
	assert_null(cli_suggest("bisect-ste"));
}

static void test_help_list(void **state)
{
	struct out a = kmatrix("help", NULL), b = kmatrix("--help", NULL);
	struct out c = kmatrix("-h", NULL), none = kmatrix(NULL);

	assert_int_equal(a.rc, 0);
	assert_string_equal(a.out, b.out);
	assert_string_equal(a.out, c.out);
	for (const struct verb *v = cli_verbs; v->name; v++)
		if (v->help)
			assert_non_null(strstr(a.out, v->name));
	assert_null(strstr(a.out, "bisect-step"));
	assert_non_null(strstr(a.out, "usage: kmatrix [OPTION...] <verb>"));
	assert_true(widest(a.out) <= VERB_WIDTH);
	/* no verb: the list, as an error */
	assert_int_equal(none.rc, 2);
	assert_string_equal(none.err, a.out);
	out_free(&a);
	out_free(&b);
	out_free(&c);
	out_free(&none);
}

/* help VERB is VERB --help, and every verb's help fits 80 columns. */
static void test_verb_help(void **state)
{
	for (const struct verb *v = cli_verbs; v->name; v++) {
		struct out h, o;

		if (!v->fn)
			continue;
		h = kmatrix("help", v->name, NULL);
		o = kmatrix(v->name, "--help", NULL);
		assert_int_equal(h.rc, 0);
		assert_int_equal(o.rc, 0);
		assert_string_equal(h.out, o.out);
		assert_non_null(strstr(h.out, v->name));
		if (widest(h.out) > VERB_WIDTH)
			fail_msg("kmatrix help %s: a line of %d columns", v->name, widest(h.out));
		out_free(&h);
		out_free(&o);
	}
}

static void test_verb_option_error(void **state)
{
	struct out o = kmatrix("status", "--bogus", NULL);

	assert_int_equal(o.rc, 2);
	assert_string_equal(o.err, "kmatrix status: Unknown option --bogus "
				   "(see kmatrix help status)\n");
	out_free(&o);
	o = kmatrix("report", "-f", "json", NULL);
	assert_int_equal(o.rc, 2);
	assert_non_null(strstr(o.err, "Unknown option -f"));
	out_free(&o);
}

/* status: run's checks of the selection, and --results must exist. */
static void test_status_selection(void **state)
{
	struct out o = kmatrix("status", "--versions", "9.9", NULL);

	assert_int_equal(o.rc, 2);
	assert_string_equal(o.err, "kmatrix status: --versions: unknown '9.9' "
				   "(valid: 5.10, 6.1, 6.12, 7.2)\n");
	assert_string_equal(o.out, "");
	out_free(&o);
	o = kmatrix("status", "--arches", "riscv", NULL);
	assert_int_equal(o.rc, 2);
	assert_non_null(strstr(o.err, "--arches: unknown 'riscv' (valid: x86_64, arm64"));
	out_free(&o);
	o = kmatrix("status", "--steps", "", NULL);
	assert_int_equal(o.rc, 2);
	assert_non_null(strstr(o.err, "--steps: no name given (valid: stock, baseline"));
	out_free(&o);
	o = kmatrix("status", "--versions", "", NULL);
	assert_int_equal(o.rc, 2);
	assert_non_null(strstr(o.err, "--versions: no name given"));
	out_free(&o);
	o = kmatrix("status", "--results", "/nonexistent", NULL);
	assert_int_equal(o.rc, 2);
	assert_string_equal(o.err, "kmatrix status: --results /nonexistent: no such directory\n");
	assert_string_equal(o.out, "");
	out_free(&o);
}

/* stdin from /dev/null: no terminal to ask on. */
static int no_tty(void)
{
	int saved = dup(0), fd = open("/dev/null", O_RDONLY);

	dup2(fd, 0);
	close(fd);
	return saved;
}

static void test_clean(void **state)
{
	char *cache = g_dir_make_tmp("kmatrix-cli-clean-XXXXXX", NULL);
	char *build = g_build_filename(cache, "build", "5.10", NULL);
	char *results = g_build_filename(cache, "results", "6.1", NULL);
	int saved = no_tty();
	struct out o;

	g_mkdir_with_parents(build, 0755);
	g_mkdir_with_parents(results, 0755);
	o = kmatrix("--cache", cache, "clean", "--versions", "9.9", NULL);
	assert_int_equal(o.rc, 2);
	assert_string_equal(o.err, "kmatrix clean: --versions: unknown '9.9' "
				   "(valid: 5.10, 6.1, 6.12, 7.2)\n");
	out_free(&o);
	o = kmatrix("--cache", cache, "clean", "--versions=", NULL);
	assert_int_equal(o.rc, 2);
	assert_non_null(strstr(o.err, "--versions: no name given"));
	out_free(&o);
	/* everything, without a terminal and without --yes: refused */
	o = kmatrix("--cache", cache, "clean", NULL);
	assert_int_equal(o.rc, 2);
	assert_non_null(strstr(o.err, "give --yes"));
	assert_true(g_file_test(build, G_FILE_TEST_IS_DIR));
	out_free(&o);
	o = kmatrix("--cache", cache, "clean", "-n", NULL);
	assert_int_equal(o.rc, 0);
	assert_non_null(strstr(o.out, "would remove "));
	assert_non_null(strstr(o.out, "/build\n"));
	assert_non_null(strstr(o.out, "/results\n"));
	assert_true(g_file_test(build, G_FILE_TEST_IS_DIR));
	assert_true(g_file_test(results, G_FILE_TEST_IS_DIR));
	out_free(&o);
	o = kmatrix("--cache", cache, "clean", "--versions", "6.1", NULL);
	assert_int_equal(o.rc, 0);
	assert_false(g_file_test(results, G_FILE_TEST_EXISTS));
	assert_true(g_file_test(build, G_FILE_TEST_IS_DIR));
	out_free(&o);
	o = kmatrix("--cache", cache, "clean", "--yes", NULL);
	assert_int_equal(o.rc, 0);
	assert_false(g_file_test(build, G_FILE_TEST_EXISTS));
	out_free(&o);
	dup2(saved, 0);
	close(saved);
	g_unsetenv("KMATRIX_CACHE");
	fixture_rm_rf(cache);
	g_free(build);
	g_free(results);
	g_free(cache);
}

static void test_jobs(void **state)
{
	static const char *const bad[] = { "0", "x", "", "-1", "5x", "99999", NULL };
	GError *err = NULL;
	unsigned int j = 7;
	struct out o;

	assert_true(verb_jobs(NULL, &j, &err));
	assert_int_equal(j, 0);
	assert_true(verb_jobs("4", &j, &err));
	assert_int_equal(j, 4);
	for (int i = 0; bad[i]; i++) {
		assert_false(verb_jobs(bad[i], &j, &err));
		assert_non_null(strstr(err->message, "-j/--jobs"));
		g_clear_error(&err);
	}
	/* -j0, -j 0 and --jobs=x: exit 2 before any work */
	o = kmatrix("run", "-j0", NULL);
	assert_int_equal(o.rc, 2);
	assert_string_equal(o.err, "kmatrix run: -j/--jobs: '0' is not a number of jobs "
				   "from 1 to 4096\n");
	out_free(&o);
	o = kmatrix("bisect", "--jobs=x", "7.2", "x86_64", NULL);
	assert_int_equal(o.rc, 2);
	assert_non_null(strstr(o.err, "kmatrix bisect: -j/--jobs: 'x'"));
	out_free(&o);
	/* -j4 is read as -j 4: the next check is the selection's */
	o = kmatrix("run", "-j4", "--versions", "9.9", NULL);
	assert_int_equal(o.rc, 2);
	assert_non_null(strstr(o.err, "--versions: unknown '9.9'"));
	out_free(&o);
}

/* One spelling per concept: --format json, --shards. */
static void test_spellings(void **state)
{
	struct out o = kmatrix("plan", "--json", NULL);

	assert_int_equal(o.rc, 2);
	assert_non_null(strstr(o.err, "Unknown option --json"));
	out_free(&o);
	o = kmatrix("plan", "--format", "yaml", NULL);
	assert_int_equal(o.rc, 2);
	assert_string_equal(o.err, "kmatrix plan: unknown format 'yaml' (text, json)\n");
	out_free(&o);
	o = kmatrix("ci", "-n", "3", "gitlab", NULL);
	assert_int_equal(o.rc, 2);
	assert_non_null(strstr(o.err, "Unknown option -n"));
	out_free(&o);
	o = kmatrix("ci", "--shards", "3", "gitlab", NULL);
	assert_int_equal(o.rc, 0);
	assert_non_null(strstr(o.out, "--shard"));
	out_free(&o);
}

/* ci --run-args: selection options only, into the run and the verdict. */
static void test_ci_run_args(void **state)
{
	static const char *const bad[] = { "-j 4", "--versions", "--versions 5.10;ls",
					   "--steps 'stock'", "", "--force" };
	struct out o = kmatrix("ci", "--run-args", "--versions 5.10 --arches=x86_64", "gitlab",
			       NULL);

	assert_int_equal(o.rc, 0);
	assert_non_null(strstr(o.out, "/results\\\" --versions 5.10 --arches=x86_64 || rc=$?"));
	assert_non_null(strstr(o.out, "status --results kmatrix-merged --versions 5.10 "
				      "--arches=x86_64\"\n"));
	out_free(&o);
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		o = kmatrix("ci", "--run-args", bad[i], "github", NULL);
		assert_int_equal(o.rc, 2);
		assert_non_null(strstr(o.err, "takes --versions, --arches and --steps"));
		assert_string_equal(o.out, "");
		out_free(&o);
	}
}

static void run_progress(void)
{
	struct version_conf v = { .name = "7.2" };
	struct arch_conf a = { .name = "x86_64" };
	struct step st = { .id = "nice" };
	struct cell c = { .v = &v, .a = &a, .step = &st };

	progress_begin(1, 0);
	progress_stage(&c, "apply");
	progress_note("kmatrix: a note");
	progress_done(&c, "pass", true, false);
	progress_end();
}

/* Without a terminal, stage lines and notes on stderr; stdout the cells. */
static void test_streams(void **state)
{
	int so, se;
	char *po, *pe, *out, *err;

	fflush(stdout);
	fflush(stderr);
	po = redirect(1, &so);
	pe = redirect(2, &se);
	run_progress();
	fflush(stdout);
	fflush(stderr);
	out = restore(1, so, po);
	err = restore(2, se, pe);
	assert_string_equal(out, "7.2   x86_64  nice      pass             met\n");
	g_free(out);
	g_free(err);
	/* --color=always: the verdict in colour even into a file */
	colour_set(COLOUR_ALWAYS);
	po = redirect(1, &so);
	pe = redirect(2, &se);
	run_progress();
	fflush(stdout);
	fflush(stderr);
	out = restore(1, so, po);
	err = restore(2, se, pe);
	colour_set(COLOUR_AUTO);
	assert_string_equal(out, "7.2   x86_64  nice      \033[32mpass             met\033[m\n");
	assert_null(strchr(err, '\033'));
	assert_non_null(strstr(err, "kmatrix: 7.2 x86_64 nice: apply\n"));
	assert_non_null(strstr(err, "kmatrix: a note\n"));
	assert_non_null(strstr(err, "kmatrix: 1 cells in 0:00\n"));
	g_free(out);
	g_free(err);
}

/* plan on a fresh cache lays nothing and says what it cannot know. */
static void test_plan_lays_nothing(void **state)
{
	char *cache = g_dir_make_tmp("kmatrix-cli-plan-XXXXXX", NULL);
	char *trees = g_build_filename(cache, "trees", NULL);
	struct out o = kmatrix("--cache", cache, "plan", "--versions", "5.10",
			       "--arches", "x86_64", NULL);

	assert_int_equal(o.rc, 0);
	assert_non_null(strstr(o.out, "5.10/x86_64"));
	assert_non_null(strstr(o.out, "would run: tree not laid\n"));
	assert_non_null(strstr(o.err, "is not laid yet: its cells' keys are known once "
				      "kmatrix run lays it"));
	assert_false(g_file_test(trees, G_FILE_TEST_EXISTS));
	out_free(&o);
	o = kmatrix("--cache", cache, "plan", "--format", "json", "--versions", "5.10",
		    "--arches", "x86_64", "--steps", "stock", NULL);
	assert_int_equal(o.rc, 0);
	assert_non_null(strstr(o.out, "\"unknown\": \"tree "));
	assert_non_null(strstr(o.out, "\"key\": null"));
	assert_false(g_file_test(trees, G_FILE_TEST_EXISTS));
	out_free(&o);
	g_unsetenv("KMATRIX_CACHE");
	fixture_rm_rf(cache);
	g_free(trees);
	g_free(cache);
}

static void test_wrap(void **state)
{
	char *w = verb_wrap("  --opt=X     one two three four five six", 30);

	assert_string_equal(w, "  --opt=X     one two three\n"
			       "              four five six");
	g_free(w);
	w = verb_wrap("a summary line that is longer than twenty\nshort", 20);
	assert_string_equal(w, "a summary line that\nis longer than\ntwenty\nshort");
	g_free(w);
	/* a word longer than the width stays whole */
	w = verb_wrap("x abcdefghijklmnopqrstuvwxyz", 10);
	assert_string_equal(w, "x\nabcdefghijklmnopqrstuvwxyz");
	g_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_global_cache),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_help_list),
		cmocka_unit_test(test_verb_help),
		cmocka_unit_test(test_verb_option_error),
		cmocka_unit_test(test_status_selection),
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_jobs),
		cmocka_unit_test(test_spellings),
		cmocka_unit_test(test_ci_run_args),
		cmocka_unit_test(test_streams),
		cmocka_unit_test(test_plan_lays_nothing),
		cmocka_unit_test(test_wrap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
