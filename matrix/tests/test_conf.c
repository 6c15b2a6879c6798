// SPDX-License-Identifier: GPL-2.0
/*
 * Matrix definition parsing: good files, malformed ones (file:line), quirks;
 * kmatrix conf, which the shell tools read instead of parsing it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "conf.h"
#include "verbs.h"

#define TOP "fixtures/conf/top"

static void test_good_matrix(void **state)
{
	GError *err = NULL;
	struct matrix_conf *m = conf_load(TOP, TOP "/matrix/matrix.conf", &err);
	struct version_conf *v;
	struct arch_conf *a;

	assert_non_null(m);
	assert_null(err);
	assert_int_equal(m->versions->len, 2);
	assert_int_equal(m->arches->len, 2);
	v = conf_version(m, "5.10");
	assert_non_null(v);
	assert_string_equal(v->package, "linux-source-5.10");
	assert_string_equal(v->tarball, "/usr/src/linux-source-5.10.tar.xz");
	assert_string_equal(v->series, TOP "/backports/5.10/series");
	assert_string_equal(conf_version(m, "7.2")->series, TOP "/series");
	assert_null(conf_version(m, "6.1"));
	a = conf_arch(m, "arm64");
	assert_non_null(a);
	assert_string_equal(a->cross_compile, "aarch64-linux-gnu-");
	assert_string_equal(a->image_target, "Image");
	assert_string_equal(a->fragment, TOP "/arch-configs/arm64/config.fragment");
	assert_string_equal(conf_arch(m, "x86_64")->cross_compile, "");
	assert_string_equal(m->expectations, TOP "/series/expectations");
	/* Unset, the arch configs and the guest init are the project's own. */
	assert_string_equal(m->arch_configs, TOP "/arch-configs");
	assert_null(a->init);
	conf_free(m);
}

/* Write @text as matrix.conf of a copy of the fixture top; return the error. */
static char *load_error(const char *text)
{
	char *dir = g_dir_make_tmp("kmatrix-conf-XXXXXX", NULL);
	char *mdir = g_build_filename(dir, "matrix", NULL);
	char *path = g_build_filename(mdir, "matrix.conf", NULL);
	char *arches = g_build_filename(dir, "arch-configs", NULL);
	char *src = g_canonicalize_filename(TOP "/arch-configs", NULL);
	GError *err = NULL;
	struct matrix_conf *m;
	char *msg;

	g_mkdir_with_parents(mdir, 0755);
	assert_int_equal(symlink(src, arches), 0);
	assert_true(g_file_set_contents(path, text, -1, NULL));
	m = conf_load(dir, path, &err);
	assert_null(m);
	assert_non_null(err);
	/* Every message starts with the file's path. */
	assert_true(g_str_has_prefix(err->message, path));
	msg = g_strdup(err->message + strlen(path));
	g_error_free(err);
	unlink(path);
	unlink(arches);
	rmdir(mdir);
	rmdir(dir);
	g_free(dir);
	g_free(mdir);
	g_free(path);
	g_free(arches);
	g_free(src);
	return msg;
}

#define GOOD_VERSION "[version 7.2]\npackage=p\ntarball=t\nbaseline=b\nseries=s\n"

static void assert_error(const char *text, const char *want)
{
	char *msg = load_error(text);

	if (!g_str_has_prefix(msg, want))
		fail_msg("error '%s' does not start with '%s'", msg, want);
	g_free(msg);
}

static void test_syntax_error_line(void **state)
{
	assert_error("[matrix]\nversions=7.2\nthis line is wrong\n",
		     ":3: not a [group], key=value or # comment: this line is wrong");
}

/* Names GKeyFile would refuse without a line number: named here, with one. */
static void test_bad_names(void **state)
{
	assert_error("[matrix]\nversions=7.2\n[version 2.1] 7.2]\n",
		     ":3: a group name cannot hold '[', ']' or control characters");
	assert_error("[matrix]\n[x=1\n", ":2: a key cannot start with '['");
	assert_error("[matrix]\nver\tsions=7.2\n", ":2: a key cannot start with '[' or hold control");
}

static void test_key_before_group(void **state)
{
	assert_error("# comment\nversions=7.2\n[matrix]\n", ":2: key before any [group]");
}

static void test_duplicate_key(void **state)
{
	assert_error("[matrix]\nversions=7.2\narches=x86_64\nversions=5.10\n",
		     ":4: duplicate key versions");
}

static void test_missing_key(void **state)
{
	assert_error("[matrix]\nversions=7.2\narches=x86_64\n\n" GOOD_VERSION,
		     ":1: [matrix]: missing key 'expectations'");
}

static void test_unknown_key(void **state)
{
	assert_error("[matrix]\nversions=7.2\narches=x86_64\nexpectations=e\n\n"
		     "[version 7.2]\npackage=p\ntarbal=t\nbaseline=b\nseries=s\n",
		     ":8: [version 7.2]: unknown key 'tarbal'");
}

static void test_version_without_group(void **state)
{
	assert_error("[matrix]\nversions=7.2;6.1\narches=x86_64\nexpectations=e\n\n" GOOD_VERSION,
		     ":2: version 6.1 is listed but has no [version 6.1] group");
}

static void test_unknown_arch(void **state)
{
	assert_error("[matrix]\nversions=7.2\narches=x86_64;riscv\nexpectations=e\n\n" GOOD_VERSION,
		     ":3: arch riscv is listed but");
}

static void test_empty_list(void **state)
{
	assert_error("[matrix]\nversions=\narches=x86_64\nexpectations=e\n", ":2: [matrix]: 'versions' is empty");
}

#define GOOD_MATRIX "[matrix]\nversions=7.2\narches=x86_64\nexpectations=e\n\n" GOOD_VERSION

/* An exclusion names a planned version and arch once, with its log. */
static void test_bad_exclusion(void **state)
{
	assert_error(GOOD_MATRIX "[exclude 6.1 x86_64]\nreason=r\nevidence=e\n",
		     ":11: [exclude 6.1 x86_64]: version 6.1 is not in [matrix] versions");
	assert_error(GOOD_MATRIX "[exclude 7.2 sparc64]\nreason=r\nevidence=e\n",
		     ":11: [exclude 7.2 sparc64]: arch sparc64 is not in [matrix] arches");
	assert_error(GOOD_MATRIX "[exclude 7.2]\nreason=r\nevidence=e\n",
		     ":11: [exclude 7.2]: expected [exclude <version> <arch>]");
	assert_error(GOOD_MATRIX "[exclude 7.2 x86_64 extra]\nreason=r\nevidence=e\n",
		     ":11: [exclude 7.2 x86_64 extra]: expected [exclude <version> <arch>]");
	assert_error(GOOD_MATRIX "[exclude 7.2 x86_64]\nreason=r\n",
		     ":11: [exclude 7.2 x86_64]: missing key 'evidence'");
	assert_error(GOOD_MATRIX "[exclude 7.2 x86_64]\nreason=r\nevidence=no/such.log\n",
		     ":13: [exclude 7.2 x86_64]: evidence ");
	assert_error(GOOD_MATRIX "[exclude 7.2 x86_64]\nreason=r\nevidence=e\nwhy=w\n",
		     ":14: [exclude 7.2 x86_64]: unknown key 'why'");
}

#define GIT_MATRIX "[matrix]\nversions=6.6\narches=x86_64\nexpectations=e\n\n"

/* A version's tree: a package (package, tarball) or a repository (git, ref). */
static void test_git_version(void **state)
{
	assert_error(GIT_MATRIX "[version 6.6]\ngit=/src/linux\nbaseline=b\nseries=s\n",
		     ":6: [version 6.6]: missing key 'ref'");
	assert_error(GIT_MATRIX "[version 6.6]\ngit=/src/linux\nref=v6.6.60\npackage=p\n"
		     "baseline=b\nseries=s\n",
		     ":9: [version 6.6]: 'package' with 'git': a tree comes from a package");
	assert_error(GIT_MATRIX "[version 6.6]\nbaseline=b\nseries=s\n",
		     ":6: [version 6.6]: missing key 'package'");
}

/* --tree V=PATH@REF: a matrix version switches to git; a new one needs a backport. */
static void test_add_tree(void **state)
{
	GError *err = NULL;
	struct matrix_conf *m = conf_load(TOP, TOP "/matrix/matrix.conf", &err);
	struct version_conf *v;

	assert_non_null(m);
	v = conf_add_tree(m, "5.10=/src/linux@v5.10.240", NULL, TRUE, &err);
	assert_non_null(v);
	assert_string_equal(v->git, "/src/linux");
	assert_string_equal(v->ref, "v5.10.240");
	assert_null(v->package);
	assert_string_equal(v->series, TOP "/backports/5.10/series");
	/* the last '@' splits: a path may hold one */
	v = conf_add_tree(m, "5.10=/src/a@b/linux@stable/linux-5.10.y", NULL, TRUE, &err);
	assert_string_equal(v->git, "/src/a@b/linux");
	assert_string_equal(v->ref, "stable/linux-5.10.y");
	assert_null(conf_add_tree(m, "6.6=/src/linux", NULL, TRUE, &err));
	assert_non_null(strstr(err->message, "expected VERSION=PATH@REF"));
	g_clear_error(&err);
	assert_null(conf_add_tree(m, "6.6=/src/linux@v6.6", NULL, TRUE, &err));
	assert_non_null(strstr(err->message, "give --series DIR, or run `kmatrix port 6.6`"));
	g_clear_error(&err);
	/* kmatrix port: the draft's place is enough */
	v = conf_add_tree(m, "6.6=/src/linux@v6.6", NULL, FALSE, &err);
	assert_non_null(v);
	assert_string_equal(v->series, TOP "/backports/6.6/series");
	assert_int_equal(m->versions->len, 3);
	conf_free(m);
}

static void test_bad_arch_conf(void **state)
{
	char *dir = g_dir_make_tmp("kmatrix-arch-XXXXXX", NULL);
	char *path = g_build_filename(dir, "arch.conf", NULL);
	char *frag = g_build_filename(dir, "config.fragment", NULL);
	GError *err = NULL;
	char *want;

	g_file_set_contents(frag, "CONFIG_PRINTK=y\n", -1, NULL);
	g_file_set_contents(path, "[arch]\nkernel_arch=x\ncross_compile=\nguest_cc=gcc\n"
			    "debian_arch=amd64\nimage=i\nimage_target=t\nfragment=config.fragment\n"
			    "[qemu]\nbinary=q\nmachine=pc\ncpu=max\nmemory=256\nconsole=ttyS0\n"
			    "[qemu version~5]\ncpu=other\n", -1, NULL);
	assert_null(arch_conf_load(path, "x", &err));
	want = g_strdup_printf("%s:15: unknown group [qemu version~5]", path);
	assert_true(g_str_has_prefix(err->message, want));
	g_clear_error(&err);
	g_free(want);
	unlink(path);
	unlink(frag);
	rmdir(dir);
	g_free(path);
	g_free(frag);
	g_free(dir);
}

/* The guest keys: userland's two values, a compat suite named with its compiler. */
static void test_guest_keys(void **state)
{
	static const char *const bad[][2] = {
		{ "userland=busybox\n", ":9: userland must be 'debian' or 'none'" },
		{ "compat=i386\n", ":9: [arch]: 'compat' and 'compat_cc' go together" },
		{ "compat_cc=i686-linux-gnu-gcc\n", ":9: [arch]: 'compat' and 'compat_cc' go" },
		{ "compat=I386\ncompat_cc=cc\n", ":9: compat suite name 'I386'" },
	};
	char *dir = g_dir_make_tmp("kmatrix-arch-XXXXXX", NULL);
	char *path = g_build_filename(dir, "arch.conf", NULL);
	char *frag = g_build_filename(dir, "config.fragment", NULL);
	const char *head = "[arch]\nkernel_arch=x\ncross_compile=\nguest_cc=gcc\n"
			   "debian_arch=amd64\nimage=i\nimage_target=t\nfragment=config.fragment\n";
	const char *qemu = "[qemu]\nbinary=q\nmachine=pc\ncpu=max\nmemory=256\nconsole=ttyS0\n";
	GError *err = NULL;
	struct arch_conf *a;
	char *text;

	g_file_set_contents(frag, "CONFIG_PRINTK=y\n", -1, NULL);
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		text = g_strconcat(head, bad[i][0], qemu, NULL);
		g_file_set_contents(path, text, -1, NULL);
		assert_null(arch_conf_load(path, "x", &err));
		if (!strstr(err->message, bad[i][1]))
			fail_msg("%s: got '%s'", bad[i][1], err->message);
		g_clear_error(&err);
		g_free(text);
	}
	text = g_strconcat(head, "userland=none\ncompat=o32\ncompat_cc=mipsel-linux-gnu-gcc\n"
			   "host_packages=a; b ;c\n", qemu, NULL);
	g_file_set_contents(path, text, -1, NULL);
	a = arch_conf_load(path, "x", &err);
	assert_non_null(a);
	assert_string_equal(a->userland, "none");
	assert_string_equal(a->compat, "o32");
	assert_string_equal(a->host_packages, "a b c");
	assert_string_equal(a->guest_packages, "");
	arch_conf_free(a);
	g_free(text);
	/* no userland key: Debian's */
	text = g_strconcat(head, qemu, NULL);
	g_file_set_contents(path, text, -1, NULL);
	a = arch_conf_load(path, "x", &err);
	assert_string_equal(a->userland, "debian");
	arch_conf_free(a);
	g_free(text);
	unlink(path);
	unlink(frag);
	rmdir(dir);
	g_free(path);
	g_free(frag);
	g_free(dir);
}

static void test_version_cmp(void **state)
{
	assert_true(version_cmp("5.10", "5.9") > 0);
	assert_true(version_cmp("5.9", "5.10") < 0);
	assert_int_equal(version_cmp("6.12", "6.12"), 0);
	assert_true(version_cmp("7", "6.12") > 0);
	assert_true(version_cmp("5.12", "5.12.1") < 0);
}

static void test_range(void **state)
{
	assert_int_equal(version_range_match("version<5.12", "5.10"), 1);
	assert_int_equal(version_range_match("version<5.12", "5.12"), 0);
	assert_int_equal(version_range_match("version<5.12", "6.1"), 0);
	assert_int_equal(version_range_match("version>=6.1", "6.1"), 1);
	assert_int_equal(version_range_match("version>=6.1", "5.10"), 0);
	assert_int_equal(version_range_match("version>=5.4,<5.12", "5.10"), 1);
	assert_int_equal(version_range_match("version>=5.4,<5.12", "5.12"), 0);
	assert_int_equal(version_range_match("version=7.2", "7.2"), 1);
	assert_int_equal(version_range_match("version~5", "5.10"), -1);
	assert_int_equal(version_range_match("version<", "5.10"), -1);
	assert_int_equal(version_range_match("kernel<5", "5.10"), -1);
}

static void test_quirk_selection(void **state)
{
	GError *err = NULL;
	struct matrix_conf *m = conf_load(TOP, TOP "/matrix/matrix.conf", &err);
	struct arch_conf *a = conf_arch(m, "arm64");
	struct qemu_conf q;

	assert_int_equal(conf_qemu(a, "5.10", &q, &err), 0);
	assert_string_equal(q.cpu, "max,lpa2=off");
	assert_string_equal(q.memory, "256");
	assert_string_equal(q.quirks, "qemu version<5.12");
	assert_int_equal(q.timeout, 120);
	qemu_conf_clear(&q);
	assert_int_equal(conf_qemu(a, "5.4", &q, &err), 0);
	assert_string_equal(q.cpu, "max,lpa2=off");
	assert_string_equal(q.memory, "512");
	assert_string_equal(q.quirks, "qemu version<5.12;qemu version>=5.4,<5.6");
	qemu_conf_clear(&q);
	assert_int_equal(conf_qemu(a, "7.2", &q, &err), 0);
	assert_string_equal(q.cpu, "max");
	assert_string_equal(q.quirks, "");
	assert_string_equal(q.console, "ttyAMA0");
	qemu_conf_clear(&q);
	assert_int_equal(conf_qemu(conf_arch(m, "x86_64"), "5.10", &q, &err), 0);
	assert_int_equal(q.timeout, 300);
	qemu_conf_clear(&q);
	conf_free(m);
}

static void test_conf_line(void **state)
{
	const char *p = TOP "/arch-configs/arm64/arch.conf";

	assert_int_equal(conf_line(p, "arch", NULL), 1);
	assert_int_equal(conf_line(p, "qemu", "console"), 15);
	assert_int_equal(conf_line(p, "qemu version<5.12", "cpu"), 20);
	assert_int_equal(conf_line(p, "qemu", "nothing"), 0);
}

/* The project's own definition must load, and arm64 5.10 must get lpa2=off. */
/* Copy the fixture arm64 arch into @dir/arches with @init_line in [arch]. */
static char *fixture_arches(const char *dir, const char *init_line)
{
	char *arches = g_build_filename(dir, "arches", NULL);
	char *adir = g_build_filename(arches, "arm64", NULL);
	char *conf = NULL, *frag = NULL, *p;
	char **parts;

	assert_true(g_file_get_contents(TOP "/arch-configs/arm64/arch.conf", &conf, NULL, NULL));
	assert_true(g_file_get_contents(TOP "/arch-configs/arm64/config.fragment", &frag, NULL,
					NULL));
	parts = g_strsplit(conf, "[arch]\n", 2);
	g_free(conf);
	conf = g_strconcat(parts[0], "[arch]\n", init_line, parts[1], NULL);
	g_mkdir_with_parents(adir, 0755);
	p = g_build_filename(adir, "arch.conf", NULL);
	assert_true(g_file_set_contents(p, conf, -1, NULL));
	g_free(p);
	p = g_build_filename(adir, "config.fragment", NULL);
	assert_true(g_file_set_contents(p, frag, -1, NULL));
	g_free(p);
	p = g_build_filename(adir, "guest-init", NULL);
	assert_true(g_file_set_contents(p, "#!/bin/sh\n", -1, NULL));
	g_free(p);
	g_strfreev(parts);
	g_free(conf);
	g_free(frag);
	g_free(adir);
	return arches;
}

/* A matrix may take its arches, and an arch its guest init, from elsewhere. */
static void test_arch_configs_and_init(void **state)
{
	char *dir = g_dir_make_tmp("kmatrix-conf-XXXXXX", NULL);
	char *path = g_build_filename(dir, "matrix.conf", NULL);
	char *arches = fixture_arches(dir, "init=guest-init\n");
	char *text = g_strdup_printf("[matrix]\nversions=7.2\narches=arm64\n"
				     "expectations=e\narch_configs=%s\n" GOOD_VERSION, arches);
	char *init = g_build_filename(arches, "arm64", "guest-init", NULL);
	char *frag = g_build_filename(arches, "arm64", "config.fragment", NULL);
	char *rm[] = { "rm", "-rf", dir, NULL };
	GError *err = NULL;
	struct matrix_conf *m;

	assert_true(g_file_set_contents(path, text, -1, NULL));
	m = conf_load("/top", path, &err);
	if (!m)
		fail_msg("%s", err->message);
	assert_string_equal(m->arch_configs, arches);
	assert_string_equal(conf_arch(m, "arm64")->init, init);
	assert_string_equal(conf_arch(m, "arm64")->fragment, frag);
	conf_free(m);
	g_free(arches);
	/* An init that is not there is an error naming the line. */
	arches = fixture_arches(dir, "init=no-such-init\n");
	m = conf_load("/top", path, &err);
	assert_null(m);
	assert_non_null(strstr(err->message, "init "));
	assert_non_null(strstr(err->message, "no-such-init does not exist"));
	g_error_free(err);
	assert_true(g_spawn_sync(NULL, rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL,
				 NULL, NULL));
	g_free(dir);
	g_free(path);
	g_free(arches);
	g_free(text);
	g_free(init);
	g_free(frag);
}

static void test_project_matrix(void **state)
{
	GError *err = NULL;
	struct matrix_conf *m = conf_load("../..", "../../matrix/matrix.conf", &err);
	const struct exclusion *x;
	struct qemu_conf q;

	if (!m)
		fail_msg("%s", err->message);
	assert_int_equal(conf_qemu(conf_arch(m, "arm64"), "5.10", &q, &err), 0);
	assert_non_null(strstr(q.cpu, "lpa2=off"));
	qemu_conf_clear(&q);
	assert_int_equal(conf_qemu(conf_arch(m, "arm64"), "6.1", &q, &err), 0);
	assert_null(strstr(q.cpu, "lpa2=off"));
	qemu_conf_clear(&q);
	/* 6.12's stock tree does not build for sparc64: evidence kept */
	x = conf_excluded(m, "6.12", "sparc64");
	assert_non_null(x);
	assert_true(g_file_test(x->evidence, G_FILE_TEST_IS_REGULAR));
	assert_int_equal(strlen(x->stock_tree), 40);
	assert_null(conf_excluded(m, "6.12", "x86_64"));
	conf_free(m);
}

/* kmatrix conf ARGS... on the project's matrix: its stdout and exit status. */
static char *conf_verb(int *rc, char **args)
{
	char path[] = "/tmp/kmatrix-test-conf.XXXXXX";
	int fd = mkstemp(path), saved = dup(1), argc = 1;
	char *argv[8] = { "conf" }, *text = NULL;

	for (; args[argc - 1]; argc++)
		argv[argc] = args[argc - 1];
	assert_true(fd >= 0 && saved >= 0);
	fflush(stdout);
	dup2(fd, 1);
	*rc = cmd_conf(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(fd);
	assert_true(g_file_get_contents(path, &text, NULL, NULL));
	unlink(path);
	return text;
}

static void test_conf_pick(void **state)
{
	static const char *const known[] = { "5.10", "6.1", "7.2", NULL };
	GError *err = NULL;
	char **out = NULL;

	(void)state;
	assert_true(conf_pick("--versions", NULL, known, &out, &err));
	assert_null(out);
	assert_true(conf_pick("--versions", "7.2,5.10", known, &out, &err));
	assert_int_equal(g_strv_length(out), 2);
	assert_string_equal(out[0], "7.2");
	assert_string_equal(out[1], "5.10");
	g_strfreev(out);
	assert_false(conf_pick("--versions", "9.9", known, &out, &err));
	assert_string_equal(err->message,
			    "--versions: unknown '9.9' (valid: 5.10, 6.1, 7.2)");
	g_clear_error(&err);
	/* an empty list is an error, not "all" */
	assert_false(conf_pick("--versions", "", known, &out, &err));
	assert_string_equal(err->message,
			    "--versions: no name given (valid: 5.10, 6.1, 7.2)");
	assert_null(out);
	g_clear_error(&err);
	assert_false(conf_pick("--steps", " ", known, &out, &err));
	assert_non_null(strstr(err->message, "no name given"));
	g_clear_error(&err);
	assert_false(conf_pick("--arches", ",", known, &out, &err));
	assert_string_equal(err->message,
			    "--arches: no name given (valid: 5.10, 6.1, 7.2)");
	g_clear_error(&err);
}

static void test_conf_verb(void **state)
{
	char *out;
	int rc;

	g_setenv("KMATRIX_TOP", "../..", TRUE);
	out = conf_verb(&rc, (char *[]){ "versions", NULL });
	assert_int_equal(rc, 0);
	assert_string_equal(out, "5.10\n6.1\n6.12\n7.2\n");
	g_free(out);
	out = conf_verb(&rc, (char *[]){ "version", "7.2", "series", NULL });
	assert_int_equal(rc, 0);
	assert_true(g_str_has_suffix(out, "/series\n") && out[0] == '/');
	g_free(out);
	/* stock has no patch; the baseline is step 2, then the order file's. */
	out = conf_verb(&rc, (char *[]){ "steps", "5.10", NULL });
	assert_int_equal(rc, 0);
	assert_true(g_str_has_prefix(out, "stock\nbaseline /"));
	assert_non_null(strstr(out, "\nuapi /"));
	assert_non_null(strstr(out, "/backports/5.10/series/0004-"));
	g_free(out);
	out = conf_verb(&rc, (char *[]){ "arch", "arm64", "cross_compile", NULL });
	assert_int_equal(rc, 0);
	assert_string_equal(out, "aarch64-linux-gnu-\n");
	g_free(out);
	out = conf_verb(&rc, (char *[]){ "arch", "arm64", "nosuchkey", NULL });
	assert_int_equal(rc, 2);
	g_free(out);
	out = conf_verb(&rc, (char *[]){ "steps", "9.9", NULL });
	assert_int_equal(rc, 2);
	assert_string_equal(out, "");
	g_free(out);
	out = conf_verb(&rc, (char *[]){ "versions", "extra", NULL });
	assert_int_equal(rc, 2);
	g_free(out);
	g_unsetenv("KMATRIX_TOP");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_matrix),
		cmocka_unit_test(test_conf_pick),
		cmocka_unit_test(test_syntax_error_line),
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_key_before_group),
		cmocka_unit_test(test_duplicate_key),
		cmocka_unit_test(test_missing_key),
		cmocka_unit_test(test_unknown_key),
		cmocka_unit_test(test_version_without_group),
		cmocka_unit_test(test_unknown_arch),
		cmocka_unit_test(test_empty_list),
		cmocka_unit_test(test_bad_exclusion),
		cmocka_unit_test(test_git_version),
		cmocka_unit_test(test_add_tree),
		cmocka_unit_test(test_bad_arch_conf),
		cmocka_unit_test(test_guest_keys),
		cmocka_unit_test(test_version_cmp),
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_quirk_selection),
		cmocka_unit_test(test_conf_line),
		cmocka_unit_test(test_arch_configs_and_init),
		cmocka_unit_test(test_project_matrix),
		cmocka_unit_test(test_conf_verb),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
