// SPDX-License-Identifier: GPL-2.0
/*
 * Hand-edited input files in error: matrix.conf, arch.conf, an order
 * file, the patches it names and series/expectations.  Each table row is
 * a file's text and the start of the error it must give, "file:line:
 * message" with the file relative to the test's scratch directory; a
 * row whose error is NULL must load.  Then the verbs: run refuses such
 * input with exit 2 before it takes the lock; and the project's own files
 * pass every check.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <glob.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "apply.h"
#include "conf.h"
#include "expect.h"
#include "fixture.h"
#include "plan.h"

struct row {
	const char *text;
	const char *want;	/* "file:line: message" prefix; NULL: it loads */
};

static char *dir;

static char *at(const char *rel)
{
	return g_build_filename(dir, rel, NULL);
}

static void put(const char *rel, const char *text, gssize len)
{
	char *p = at(rel), *d = g_path_get_dirname(p);

	g_mkdir_with_parents(d, 0755);
	assert_true(g_file_set_contents(p, text, len, NULL));
	g_free(d);
	g_free(p);
}

/* @err against row @r: the message must start with <dir>/<r->want>. */
static void assert_row(const struct row *r, gboolean ok, GError *err)
{
	char *want;

	if (!r->want) {
		if (!ok)
			fail_msg("'%s': unexpected error '%s'", r->text, err->message);
		return;
	}
	if (ok)
		fail_msg("'%s': loaded, want '%s'", r->text, r->want);
	want = g_strdup_printf("%s/%s", dir, r->want);
	if (!g_str_has_prefix(err->message, want))
		fail_msg("'%s':\n got  '%s'\n want '%s...'", r->text, err->message, want);
	g_free(want);
}

static int setup(void **state)
{
	char *arches = g_canonicalize_filename("fixtures/conf/top/arch-configs", NULL);
	char *link, *qemu;

	dir = fixture_tmpdir("inputs");
	link = at("arch-configs");
	qemu = at("bin/qemu-ok");
	assert_int_equal(symlink(arches, link), 0);
	put("arch/config.fragment", "CONFIG_PRINTK=y\n", -1);
	put("bin/qemu-ok", "#!/bin/sh\n", -1);
	put("bin/qemu-noexec", "#!/bin/sh\n", -1);
	assert_int_equal(chmod(qemu, 0755), 0);
	put("baseline/0001-base.patch", "From 0 Mon Sep 17 00:00:00 2001\nSubject: base\n", -1);
	put("series/0001-a.patch", "From 0 Mon Sep 17 00:00:00 2001\nSubject: a\n", -1);
	g_free(qemu);
	g_free(link);
	g_free(arches);
	return 0;
}

static int teardown(void **state)
{
	fixture_rm_rf(dir);
	g_free(dir);
	return 0;
}

#define MATRIX "[matrix]\nversions=7.2\narches=x86_64\nexpectations=e\n"
#define VERSION "[version 7.2]\npackage=p\ntarball=t\nbaseline=b\nseries=s\n"

static const struct row matrix_rows[] = {
	{ MATRIX "\n" VERSION, NULL },
	{ MATRIX "expectation=f\n\n" VERSION,
	  "matrix/matrix.conf:5: [matrix]: unknown key 'expectation'" },
	{ MATRIX "\n[version 7.2]\npackage=p\ntarbal=t\nbaseline=b\nseries=s\n",
	  "matrix/matrix.conf:8: [version 7.2]: unknown key 'tarbal'" },
	{ MATRIX "\n" VERSION "\n" VERSION,
	  "matrix/matrix.conf:12: duplicate group [version 7.2]" },
	{ MATRIX "\n[matrix]\n", "matrix/matrix.conf:6: duplicate group [matrix]" },
	{ "[matrix]\nversions=7.2;6.1\narches=x86_64\nexpectations=e\n\n" VERSION,
	  "matrix/matrix.conf:2: version 6.1 is listed but has no [version 6.1] group" },
	{ "[matrix]\nversions=\narches=x86_64\nexpectations=e\n",
	  "matrix/matrix.conf:2: [matrix]: 'versions' is empty" },
	{ "[matrix]\nversions=7.2\narches=\nexpectations=e\n\n" VERSION,
	  "matrix/matrix.conf:3: [matrix]: 'arches' is empty" },
	{ "[matrix]\nversions=7.2;;6.1\narches=x86_64\nexpectations=e\n",
	  "matrix/matrix.conf:2: [matrix]: 'versions' has an empty entry" },
	{ "[matrix]\nversions=7.2\narches=x86_64;x86_64\nexpectations=e\n\n" VERSION,
	  "matrix/matrix.conf:3: [matrix]: 'arches' lists x86_64 twice" },
	{ "[matrix]\nversions=7.2\narches=x86_64;riscv64\nexpectations=e\n\n" VERSION,
	  "matrix/matrix.conf:3: arch riscv64 is listed but " },
	{ MATRIX "\n[verison 7.2]\npackage=p\n",
	  "matrix/matrix.conf:6: unknown group [verison 7.2] (expected [matrix], [version <v>]" },
	{ MATRIX "\n" VERSION "[version]\npackage=p\n",
	  "matrix/matrix.conf:11: unknown group [version] (expected" },
	{ MATRIX "\n" VERSION "[header-only alpha]\nreason=r\n",
	  "matrix/matrix.conf:11: unknown group [header-only alpha]" },
};

/* matrix.conf: the fixture's arches (x86_64, arm64), a version of its own. */
static void test_matrix_conf(void **state)
{
	char *path = at("matrix/matrix.conf");

	for (size_t i = 0; i < G_N_ELEMENTS(matrix_rows); i++) {
		GError *err = NULL;
		struct matrix_conf *m;

		put("matrix/matrix.conf", matrix_rows[i].text, -1);
		m = conf_load(dir, path, &err);
		assert_row(&matrix_rows[i], m != NULL, err);
		conf_free(m);
		g_clear_error(&err);
	}
	g_free(path);
}

#define ARCH "[arch]\nkernel_arch=x\ncross_compile=\nguest_cc=gcc\ndebian_arch=amd64\n" \
	     "image=i\nimage_target=t\nfragment=config.fragment\n"
#define QEMU_REST "machine=pc\ncpu=max\nmemory=256\nconsole=ttyS0\n"

static const struct row arch_rows[] = {
	{ ARCH "[qemu]\nbinary=qemu-ok\n" QEMU_REST, NULL },
	{ "[arch]\nkernel_arch=x\ncross_compile=\nguest_cc=gcc\ndebian_arch=amd64\n"
	  "image_target=t\nfragment=config.fragment\n[qemu]\nbinary=qemu-ok\n" QEMU_REST,
	  "arch/arch.conf:1: [arch]: missing key 'image'" },
	{ ARCH "[qemu]\nbinary=qemu-ok\nmachine=pc\ncpu=max\nmemory=256\n",
	  "arch/arch.conf:9: [qemu]: missing key 'console'" },
	{ ARCH "[qemu]\nmachine=pc\ncpu=max\nmemory=256\nconsole=ttyS0\n",
	  "arch/arch.conf:9: [qemu]: missing key 'binary'" },
	{ ARCH "[qemu]\nbinary=qemu-ok\n" QEMU_REST "bios=b\n",
	  "arch/arch.conf:15: [qemu]: unknown key 'bios'" },
	{ ARCH "[qemu]\nbinary=qemu-ok\n" QEMU_REST "[qemu version~5]\ncpu=c\n",
	  "arch/arch.conf:15: unknown group [qemu version~5]" },
	/* the QEMU binary, looked for on a PATH of the scratch bin/ alone */
	{ ARCH "[qemu]\nbinary=qemu-system-none\n" QEMU_REST,
	  "arch/arch.conf:10: [qemu]: QEMU binary qemu-system-none not found on PATH" },
	{ ARCH "[qemu]\nbinary=qemu-noexec\n" QEMU_REST,
	  "arch/arch.conf:10: [qemu]: QEMU binary qemu-noexec not found on PATH" },
	{ ARCH "[qemu]\nbinary=/no/such/qemu\n" QEMU_REST,
	  "arch/arch.conf:10: [qemu]: QEMU binary /no/such/qemu not found (" },
	{ ARCH "[qemu]\nbinary=\n" QEMU_REST, "arch/arch.conf:10: [qemu]: 'binary' is empty" },
	{ ARCH "[qemu]\nbinary=qemu-ok\n" QEMU_REST "\n[qemu version<5.12]\nbinary=qemu-old\n",
	  "arch/arch.conf:17: [qemu version<5.12]: QEMU binary qemu-old not found on PATH" },
};

/* arch.conf as loaded, then its QEMU binaries as a run checks them. */
static void test_arch_conf(void **state)
{
	char *path = at("arch/arch.conf"), *bin = at("bin");

	for (size_t i = 0; i < G_N_ELEMENTS(arch_rows); i++) {
		GError *err = NULL;
		struct arch_conf *a;
		gboolean ok;

		put("arch/arch.conf", arch_rows[i].text, -1);
		a = arch_conf_load(path, "x", &err);
		ok = a && conf_check_qemu(a, bin, &err);
		assert_row(&arch_rows[i], ok, err);
		arch_conf_free(a);
		g_clear_error(&err);
	}
	g_free(path);
	g_free(bin);
}

static struct version_conf version(void)
{
	struct version_conf v = {
		.name = "9.9", .baseline = at("baseline"), .series = at("series"),
	};

	return v;
}

static void version_clear(struct version_conf *v)
{
	g_free(v->baseline);
	g_free(v->series);
}

static const struct row order_rows[] = {
	{ "# step patch\nuapi 0001-a.patch\n", NULL },
	{ "uapi 0001-a.patch\nnice 0009-none.patch\n", "series/order:2: " },
	{ "uapi 0001-a.patch\nnice 0001-a.patch\n", "series/order:2: " },
	{ "uapi 0001-a.patch\n\nnice ./0001-a.patch\n", "series/order:3: " },
	{ "uapi 0001-a.patch\nuapi 0002-b.patch\n", "series/order:2: duplicate step id 'uapi'" },
	{ "uapi\n", "series/order:1: expected 'step-id patch-file': uapi" },
};

/* What the order rows' messages say after the file and line. */
static const char *const order_what[] = {
	NULL, "series/0009-none.patch does not exist", "series/0001-a.patch is step uapi's",
	"series/0001-a.patch is step uapi's", NULL, NULL,
};

static void test_order(void **state)
{
	struct version_conf v = version();

	for (size_t i = 0; i < G_N_ELEMENTS(order_rows); i++) {
		GError *err = NULL;
		GPtrArray *steps;
		char *what;

		put("series/order", order_rows[i].text, -1);
		steps = apply_plan(&v, &err);
		assert_row(&order_rows[i], steps != NULL, err);
		what = order_what[i] ? g_strdup_printf(": %s/%s", dir, order_what[i]) : NULL;
		if (what && !strstr(err->message, what))
			fail_msg("'%s' lacks '%s'", err->message, what);
		g_free(what);
		if (steps)
			g_ptr_array_free(steps, TRUE);
		g_clear_error(&err);
	}
	version_clear(&v);
}

struct patch_row {
	const char *file;	/* under the scratch dir */
	const char *text;
	size_t len;
	const char *want;
};

#define P(s) s, sizeof(s) - 1
#define HEAD "From 0 Mon Sep 17 00:00:00 2001\nSubject: b\n"

static const struct patch_row patch_rows[] = {
	{ "series/0002-b.patch", P(HEAD "\n---\n"), NULL },
	{ "series/0002-b.patch", P(""),
	  "series/0002-b.patch:1: empty patch (step nice, " },
	{ "series/0002-b.patch", P(HEAD "\x1f\x8b\x08\0\0"),
	  "series/0002-b.patch:3: binary file (a NUL byte), not a patch (step nice, " },
	{ "series/0002-b.patch", P(HEAD "diff --git a/x b/x\r\n+y\r\n"),
	  "series/0002-b.patch:3: CRLF line ending" },
	{ "series/0002-b.patch", P("From 0 Mon Sep 17 00:00:00 2001\r\n"),
	  "series/0002-b.patch:1: CRLF line ending" },
	{ "baseline/0001-base.patch", P(HEAD "\r\n"),
	  "baseline/0001-base.patch:3: CRLF line ending (a patch has LF line endings) "
	  "(the baseline of 9.9)" },
};

/* A patch is checked when the order names it: the patch's own file and line. */
static void test_patch_files(void **state)
{
	struct version_conf v = version();

	put("series/order", "uapi 0001-a.patch\nnice 0002-b.patch\n", -1);
	for (size_t i = 0; i < G_N_ELEMENTS(patch_rows); i++) {
		const struct patch_row *r = &patch_rows[i];
		struct row row = { r->file, r->want };
		GError *err = NULL;
		GPtrArray *steps;

		put("baseline/0001-base.patch", HEAD "\n", -1);
		put("series/0002-b.patch", HEAD "\n", -1);
		put(r->file, r->text, r->len);
		steps = apply_plan(&v, &err);
		assert_row(&row, steps != NULL, err);
		if (steps)
			g_ptr_array_free(steps, TRUE);
		g_clear_error(&err);
	}
	put("baseline/0001-base.patch", HEAD "\n", -1);
	version_clear(&v);
}

/* The steps of the matrix and the case list the expectation rows are checked against. */
static const char *const steps[] = { "stock", "baseline", "uapi", "nice", NULL };
static const char *const cases[] = { "limits_defined", "nice_a", "nice_b", "rt_fifo", NULL };

static const struct row expect_rows[] = {
	{ "[groups]\nn=nice_*\n[step stock]\npass=*\n[step nice]\nfail=@n\npass=*\n", NULL },
	{ "[step stock]\npass=@nosuch\n",
	  "series/expectations:2: [step stock] pass: unknown group @nosuch" },
	{ "[stage stock]\npass=*\n", "series/expectations:1: unknown group [stage stock]" },
	{ "[groups]\nn=nice_*\n[step stock]\npass=*\n[nice]\nx=y\n",
	  "series/expectations:5: unknown group [nice]" },
	{ "[step stock]\nfail=nice_x*\npass=*\n",
	  "series/expectations:2: [step stock] fail: nice_x* matches no case of "
	  "rlimit-tests --list" },
	{ "[groups]\nn=nice_?;rt_rr\n[step stock]\npass=*\n",
	  "series/expectations:2: [groups] n: rt_rr matches no case" },
	{ "[step stock]\npass=*\n\n[step nicee]\npass=*\n",
	  "series/expectations:4: [step nicee]: no order file has a step nicee "
	  "(steps: stock baseline uapi nice)" },
	{ "[step nice]\nfail=nice_a\npass=nice_a;*\n",
	  "series/expectations:3: [step nice]: nice_a is in both fail= and pass=" },
	{ "[groups]\nn=nice_*\n[step nice]\nfail=@n\nskip=rt_*\npass=nice_b;*\n",
	  "series/expectations:6: [step nice]: nice_b is in both fail= (as nice_*) and pass=" },
	{ "[step nice]\nskip=*\npass=*\n", "series/expectations:3: [step nice]: * is in both" },
	{ "[step stock]\npass=*\n[step stock]\nfail=nice_a\n",
	  "series/expectations:3: duplicate group [step stock]" },
	{ "[step stock]\npass=*\nfail=nice_a\npass=nice_b\n",
	  "series/expectations:4: duplicate key pass in [step stock]" },
};

/* Loaded, then checked as a run checks it: its steps, its globs. */
static void test_expectations(void **state)
{
	char *path = at("series/expectations");

	for (size_t i = 0; i < G_N_ELEMENTS(expect_rows); i++) {
		GError *err = NULL;
		struct expectations *e;
		gboolean ok;

		put("series/expectations", expect_rows[i].text, -1);
		e = expect_load(path, &err);
		ok = e && expect_check_steps(e, steps, &err) && expect_check_cases(e, cases, &err);
		assert_row(&expect_rows[i], ok, err);
		expect_free(e);
		g_clear_error(&err);
	}
	g_free(path);
}

static void test_list_cases(void **state)
{
	char **l = expect_list_cases("limits_defined uapi\n\n  nice_a nice\nrt_fifo\n");

	assert_int_equal(g_strv_length(l), 3);
	assert_string_equal(l[0], "limits_defined");
	assert_string_equal(l[1], "nice_a");
	assert_string_equal(l[2], "rt_fifo");
	g_strfreev(l);
	l = expect_list_cases("");
	assert_null(l[0]);
	g_strfreev(l);
}

/*
 * kmatrix run and bisect open their plan with plan_open(): each input in
 * error is exit status 2 before the lock is taken (the cache here is a
 * scratch one all the same).
 */
static void assert_plan_refuses(const char *path_env, const char *want)
{
	char *matrix = at("verb/matrix.conf"), *cache = at("verb/cache");
	char *saved = g_strdup(g_getenv("PATH"));
	struct plan_opts o = { .matrix = matrix, .cache = cache };
	struct plan p;
	GError *err = NULL;
	char *full = g_strdup_printf("%s/%s", dir, want);
	int rc;

	g_setenv("PATH", path_env, TRUE);
	rc = plan_open(&p, &o, &err);
	g_setenv("PATH", saved, TRUE);
	assert_int_equal(rc, 2);
	if (!g_str_has_prefix(err->message, full))
		fail_msg("got '%s', want '%s...'", err->message, full);
	assert_false(g_file_test(cache, G_FILE_TEST_EXISTS));
	g_error_free(err);
	plan_close(&p);
	g_free(full);
	g_free(saved);
	g_free(matrix);
	g_free(cache);
}

static void test_verbs_exit_2(void **state)
{
	char *text = g_strdup_printf("[matrix]\nversions=9.9\narches=x86_64\n"
				     "expectations=%s/verb/expectations\n"
				     "arch_configs=%s/arch-configs\n"
				     "[version 9.9]\npackage=p\ntarball=t\nbaseline=%s/baseline\n"
				     "series=%s/series\n", dir, dir, dir, dir);
	char *bin = at("bin"), *qemu = at("bin/qemu-system-x86_64");

	put("verb/matrix.conf", text, -1);
	put("verb/expectations", "[step stock]\npass=*\n[step uapi]\npass=*\n", -1);
	put("series/order", "uapi 0001-a.patch\n", -1);
	assert_plan_refuses(bin, "arch-configs/x86_64/arch.conf:11: [qemu]: QEMU binary "
			    "qemu-system-x86_64 not found on PATH");
	put("bin/qemu-system-x86_64", "#!/bin/sh\n", -1);
	chmod(qemu, 0755);
	put("verb/expectations", "[step stock]\npass=*\n\n[step uapii]\npass=*\n", -1);
	assert_plan_refuses(bin, "verb/expectations:4: [step uapii]: no order file has a step");
	put("verb/expectations", "[step stock]\npass=*\n[step uapi]\npass=*\n", -1);
	put("series/order", "uapi 0001-a.patch\nnice 0001-a.patch\n", -1);
	assert_plan_refuses(bin, "series/order:2: ");
	put("series/order", "uapi 0001-a.patch\n", -1);
	unlink(qemu);
	g_free(qemu);
	g_free(bin);
	g_free(text);
}

/*
 * Is @bin older than the expectations or a guest-tests source?  Then its
 * list may lack the cases an edit in progress adds (make rebuilds it
 * before a run, check-matrix-unit does not).
 */
static bool stale(const char *bin)
{
	const char *const globs[] = {
		"../../series/expectations", "../../guest-tests/*.[ch]", NULL
	};
	struct stat b, s;
	glob_t g = { 0 };
	bool old = stat(bin, &b) != 0;

	for (int i = 0; globs[i]; i++)
		glob(globs[i], i ? GLOB_APPEND : 0, NULL, &g);
	for (size_t i = 0; !old && i < g.gl_pathc; i++)
		old = stat(g.gl_pathv[i], &s) == 0 && s.st_mtime > b.st_mtime;
	globfree(&g);
	return old;
}

/*
 * The project's own inputs pass the checks a run makes: its expectations
 * name only steps its order files have, and (where the x86_64 test binary
 * is built, up to date and runs) every glob matches a case.
 */
static void test_project_inputs(void **state)
{
	GError *err = NULL;
	struct matrix_conf *m = conf_load("../..", "../../matrix/matrix.conf", &err);
	struct expectations *e;
	char *argv[] = { "../../build/guest/x86_64/rlimit-tests", "--list", NULL };
	char *out = NULL, **ids, **list;
	int status = -1;

	if (!m)
		fail_msg("%s", err->message);
	e = expect_load(m->expectations, &err);
	if (!e)
		fail_msg("%s", err->message);
	ids = apply_step_ids(m, &err);
	if (!ids || !expect_check_steps(e, (const char *const *)ids, &err))
		fail_msg("%s", err->message);
	if (!stale(argv[0]) &&
	    g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
			 &status, NULL) && status == 0) {
		list = expect_list_cases(out);
		assert_true(g_strv_length(list) > 50);
		if (!expect_check_cases(e, (const char *const *)list, &err))
			fail_msg("%s", err->message);
		g_strfreev(list);
	} else {
		print_message("# %s is not built, out of date or does not run here: "
			      "globs not checked\n", argv[0]);
	}
	g_free(out);
	g_strfreev(ids);
	expect_free(e);
	conf_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matrix_conf),
		cmocka_unit_test(test_arch_conf),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_patch_files),
		cmocka_unit_test(test_expectations),
		cmocka_unit_test(test_list_cases),
		cmocka_unit_test(test_verbs_exit_2),
		cmocka_unit_test(test_project_inputs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
