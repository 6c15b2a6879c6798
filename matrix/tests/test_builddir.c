// SPDX-License-Identifier: GPL-2.0
/*
 * Build directory damage, never a verdict: a .config or image that is not
 * what the last build made is removed, to be made again, and so is every
 * file a build that never ended wrote; a link that fails on a damaged
 * object removes that object, to be made again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "builddir.h"
#include "cell.h"
#include "fixture.h"

static char *dir;
static struct arch_conf arch = { .name = "x86_64", .image = "arch/x86/boot/bzImage" };
static struct version_conf version = { .name = "9.9" };
static struct step step = { .id = "baseline" };
static struct cell cell = { .v = &version, .a = &arch, .step = &step };

static void put(const char *file, const char *text)
{
	char *p = g_build_filename(dir, file, NULL);
	char *d = g_path_get_dirname(p);

	assert_int_equal(g_mkdir_with_parents(d, 0755), 0);
	assert_true(g_file_set_contents(p, text, -1, NULL));
	g_free(d);
	g_free(p);
}

static int setup(void **state)
{
	dir = fixture_tmpdir("builddir");
	cell.build_dir = dir;
	put(".config", "CONFIG_X=y\n");
	put(arch.image, "kernel");
	return 0;
}

static int teardown(void **state)
{
	fixture_rm_rf(dir);
	g_free(dir);
	return 0;
}

static bool exists(const char *file)
{
	char *p = g_build_filename(dir, file, NULL);
	bool there = g_file_test(p, G_FILE_TEST_EXISTS);

	g_free(p);
	return there;
}

/* Repair: @config and @image say which of the two are left in place. */
static void assert_repair(bool config, bool image)
{
	assert_int_equal(builddir_repair(&cell), 0);
	assert_null(cell.out.verdict);
	assert_int_equal(exists(".config"), config);
	assert_int_equal(exists(arch.image), image);
}

static void test_stamp(void **state)
{
	/* no stamp: nothing known, nothing removed */
	assert_repair(true, true);
	builddir_stamp(&cell);
	assert_repair(true, true);
	/* a .config unlike the stamp: configure writes it again */
	put(".config", "CONFIG_X=y\nCONFIG_JUNK\n");
	assert_repair(false, true);
	put(".config", "CONFIG_X=y\n");
	assert_repair(true, true);
	/* an image unlike the stamp: make links it again */
	put(arch.image, "kern");
	assert_repair(true, false);
	/* a missing file is made again by make: nothing to do */
	assert_repair(true, false);
	/* configure and build run without a stamp */
	put(arch.image, "kern");
	builddir_begin(&cell);
	builddir_end(&cell);
	assert_repair(true, true);
}

/* A build killed outright: whatever it wrote may be cut short. */
static void test_unfinished(void **state)
{
	builddir_begin(&cell);
	put("kernel/fork.o", "half an obj");
	put(arch.image, "half a kernel");
	/* what it did not touch stays: the objects of earlier builds */
	assert_repair(true, false);
	assert_false(exists("kernel/fork.o"));
	assert_true(exists("kernel"));
	assert_false(exists(".kmatrix-building"));
	/* once is enough: the next repair finds nothing to remove */
	put(arch.image, "kernel");
	assert_repair(true, true);
	/* a build that ended (made or failed): nothing is removed */
	builddir_begin(&cell);
	put("kernel/fork.o", "obj");
	builddir_end(&cell);
	assert_repair(true, true);
	assert_true(exists("kernel/fork.o"));
}

static char *damaged(const char *log_text)
{
	char *log = g_build_filename(dir, "build.log", NULL);
	char *line;

	assert_true(g_file_set_contents(log, log_text, -1, NULL));
	line = builddir_damaged_object(log);
	g_free(log);
	return line;
}

static void test_damaged_object(void **state)
{
	static const char *const yes[] = {
		"  LD      vmlinux.o\nld: kernel/fork.o: file not recognized: file truncated\nmake: *** [Makefile:1179: vmlinux] Error 1\n",
		"ar: kernel/fork.o: file format not recognized\n",
		"ld: lib/built-in.a: member lib/lockref.o in archive is not an object\n",
		"kernel/.fork.o.cmd:3: *** missing separator.  Stop.\n",
	};
	static const char *const no[] = {
		"kernel/sys.c:1425:9: error: 'x' undeclared (first use in this function)\n",
		"ld: kernel/sys.o: in function `f':\nsys.c:(.text+0x1): undefined reference to `g'\n",
		"Makefile:12: *** missing separator.  Stop.\n",
	};
	char *line;

	for (guint i = 0; i < G_N_ELEMENTS(yes); i++) {
		line = damaged(yes[i]);
		assert_non_null(line);
		assert_null(strchr(line, '\n'));
		g_free(line);
	}
	for (guint i = 0; i < G_N_ELEMENTS(no); i++)
		assert_null(damaged(no[i]));
	line = damaged(yes[0]);
	assert_string_equal(line, "ld: kernel/fork.o: file not recognized: file truncated");
	g_free(line);
}

static void test_damaged_file(void **state)
{
	static const char *const lines[][2] = {
		{ "ld: kernel/fork.o: file not recognized: file truncated", "kernel/fork.o" },
		{ "ar: kernel/fork.o: file format not recognized", "kernel/fork.o" },
		{ "ld: lib/built-in.a: member lib/lockref.o in archive is not an object",
		  "lib/lockref.o" },
		{ "kernel/.fork.o.cmd:3: *** missing separator.  Stop.", "kernel/.fork.o.cmd" },
		{ "ld: lib/built-in.a: malformed archive", "lib/built-in.a" },
		{ "ld: /etc/passwd.o: file truncated", NULL },
		{ "ld: ../../trees/x.o: file truncated", NULL },
		{ "ld: file truncated", NULL },
	};

	for (guint i = 0; i < G_N_ELEMENTS(lines); i++) {
		char *f = builddir_damaged_file(lines[i][0]);

		assert_string_equal(f ? f : "(none)", lines[i][1] ? lines[i][1] : "(none)");
		g_free(f);
	}
}

/* The named file goes, and the .cmd's target with it; nothing else. */
static void test_remove_damaged(void **state)
{
	char *elsewhere = fixture_tmpdir("builddir-out");
	char *out = g_build_filename(elsewhere, "outside.o", NULL);
	char *link = g_build_filename(dir, "lnk", NULL);

	put("kernel/fork.o", "obj");
	put("kernel/exit.o", "obj");
	put("kernel/.sys.o.cmd", "cmd");
	put("kernel/sys.o", "obj");
	assert_int_equal(builddir_remove_damaged(&cell,
		"ld: kernel/fork.o: file not recognized: file truncated"), 0);
	assert_false(exists("kernel/fork.o"));
	assert_true(exists("kernel/exit.o"));
	assert_int_equal(builddir_remove_damaged(&cell,
		"kernel/.sys.o.cmd:3: *** missing separator.  Stop."), 0);
	assert_false(exists("kernel/.sys.o.cmd"));
	assert_false(exists("kernel/sys.o"));
	/* gone already, or never a file of the directory: cleaned instead */
	assert_int_equal(builddir_remove_damaged(&cell, "ld: kernel/fork.o: file truncated"), -1);
	assert_int_equal(builddir_remove_damaged(&cell, "ld: file truncated"), -1);
	/* a directory the build made a symlink out of the build directory */
	assert_true(g_file_set_contents(out, "obj", -1, NULL));
	assert_int_equal(symlink(elsewhere, link), 0);
	assert_int_equal(builddir_remove_damaged(&cell, "ld: lnk/outside.o: file truncated"), -1);
	assert_true(g_file_test(out, G_FILE_TEST_EXISTS));
	unlink(link);
	fixture_rm_rf(elsewhere);
	g_free(elsewhere);
	g_free(link);
	g_free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stamp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unfinished, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_damaged_object, setup,
						teardown),
		cmocka_unit_test(test_damaged_file),
		cmocka_unit_test_setup_teardown(test_remove_damaged, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
