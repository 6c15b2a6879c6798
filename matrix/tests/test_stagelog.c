// SPDX-License-Identifier: GPL-2.0
/*
 * The judging configure and build share (stagelog.c): a log with a
 * compiler error is the kernel's failure with the error lines as
 * evidence, a log of a full disk, a missing tool or no memory is the
 * host's, and a log without error lines shows its end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fixture.h"
#include "stagelog.h"

static const struct stage_failure picks = {
	.stage = "build", .verdict = "build-failed", .error_lines = 30, .tail = 20,
};
static const struct stage_failure tails = {
	.stage = "configure", .verdict = "config-failed", .tail = 15,
};

static guint n_evidence(const struct outcome *o)
{
	return o->evidence ? o->evidence->len : 0;
}

static const char *evidence(const struct outcome *o, guint i)
{
	assert_true(i < n_evidence(o));
	return o->evidence->pdata[i];
}

static void test_compile_error_lines(void **state)
{
	struct outcome o = { 0 };

	stagelog_judge(&o, "fixtures/buildlog/compile-error.log", &picks, "make bzImage", NULL);
	assert_string_equal(o.verdict, "build-failed");
	assert_string_equal(o.summary, "make bzImage failed");
	/* The error and make's three "Error N" lines, in the log's order; no progress. */
	assert_int_equal(n_evidence(&o), 4);
	assert_string_equal(evidence(&o, 0),
			    "/root/.cache/kmatrix/trees/7.2/kernel/sys.c:214:13: error: implicit "
			    "declaration of function 'can_nice2' [-Werror=implicit-function-declaration]");
	assert_true(g_str_has_suffix(evidence(&o, 1), "kernel/sys.o] Error 1"));
	assert_true(g_str_has_suffix(evidence(&o, 3), "Makefile:1948: .] Error 2"));
	outcome_clear(&o);
}

static void test_disk_full_is_infra(void **state)
{
	struct outcome o = { 0 };

	stagelog_judge(&o, "fixtures/buildlog/disk-full.log", &picks, "make bzImage", NULL);
	assert_string_equal(o.verdict, "infra-error");
	assert_string_equal(o.summary, "build: no space left on device");
	assert_int_equal(n_evidence(&o), 2);
	assert_true(g_str_has_suffix(evidence(&o, 0), "/tmp/ccX1.s: No space left on device"));
	outcome_clear(&o);

	/* The same cause for configure, named for its stage; the evidence is the tail. */
	stagelog_judge(&o, "fixtures/buildlog/config-disk-full.log", &tails, "make tinyconfig", NULL);
	assert_string_equal(o.verdict, "infra-error");
	assert_string_equal(o.summary, "configure: no space left on device");
	assert_int_equal(n_evidence(&o), 15);
	assert_string_equal(evidence(&o, 14), "make: *** [Makefile:192: __sub-make] Error 2");
	outcome_clear(&o);
}

/* A tool that names the host's failure without "error:" is evidence too. */
static void test_link_disk_full(void **state)
{
	struct outcome o = { 0 };

	stagelog_judge(&o, "fixtures/buildlog/link-disk-full.log", &picks, "make Image", NULL);
	assert_string_equal(o.summary, "build: no space left on device");
	assert_int_equal(n_evidence(&o), 3);
	assert_string_equal(evidence(&o, 0), "ld: final link failed: No space left on device");
	assert_true(g_str_has_suffix(evidence(&o, 2), "vmlinux_o] Error 2"));
	outcome_clear(&o);
}

static void test_causes(void **state)
{
	assert_string_equal(stagelog_infra_cause("x\nsetpriv: failed to execute gcc: No such file\n"),
			    "a tool is missing");
	assert_string_equal(stagelog_infra_cause("bwrap: execvp make: No such file or directory"),
			    "a tool is missing");
	assert_string_equal(stagelog_infra_cause("kmatrix: cannot run make: ENOENT"),
			    "a tool is missing");
	assert_string_equal(stagelog_infra_cause("cc1: out of memory: Cannot allocate memory"),
			    "out of memory");
	assert_string_equal(stagelog_infra_cause("aarch64-linux-gnu-gcc: fatal error: Killed signal "
						  "terminated program cc1\ncompilation terminated."),
			    "a compiler was killed (out of memory?)");
	/* A full disk wins over what it made fail. */
	assert_string_equal(stagelog_infra_cause("Cannot allocate memory\nNo space left on device"),
			    "no space left on device");
	/* a cache on a read-only mount */
	assert_string_equal(stagelog_infra_cause("tar: x: Cannot open: Read-only file system"),
			    "read-only file system");
	assert_null(stagelog_infra_cause("kernel/sys.c:1:1: error: expected ';'"));
	assert_null(stagelog_infra_cause(""));
}

/* A log of NLINES numbered lines; lines divisible by EVERY are errors. */
static char *numbered_log(const char *dir, int nlines, int every)
{
	char *path = g_build_filename(dir, "stage.log", NULL);
	GString *s = g_string_new(NULL);

	for (int i = 1; i <= nlines; i++)
		g_string_append_printf(s, i % every ? "line %d\n" : "x.c:%d: error: e\n", i);
	assert_true(g_file_set_contents(path, s->str, -1, NULL));
	g_string_free(s, TRUE);
	return path;
}

/* Evidence is bounded: the first error lines, or the log's last lines. */
static void test_limits(void **state)
{
	char *dir = fixture_tmpdir("stagelog");
	struct outcome o = { 0 };
	char *log;

	assert_non_null(dir);
	log = numbered_log(dir, 100, 2);
	stagelog_judge(&o, log, &picks, "make Image", NULL);
	assert_int_equal(n_evidence(&o), 30);
	assert_string_equal(evidence(&o, 0), "x.c:2: error: e");
	assert_string_equal(evidence(&o, 29), "x.c:60: error: e");
	outcome_clear(&o);
	g_free(log);

	/* No error line (make killed, say): the last 20 lines instead. */
	log = numbered_log(dir, 100, 1000);
	stagelog_judge(&o, log, &picks, "make Image", NULL);
	assert_string_equal(o.verdict, "build-failed");
	assert_int_equal(n_evidence(&o), 20);
	assert_string_equal(evidence(&o, 0), "line 81");
	assert_string_equal(evidence(&o, 19), "line 100");
	outcome_clear(&o);

	/* A tail-only stage shows its end even when it holds errors. */
	stagelog_judge(&o, log, &tails, "make olddefconfig", NULL);
	assert_string_equal(o.summary, "make olddefconfig failed");
	assert_int_equal(n_evidence(&o), 15);
	assert_string_equal(evidence(&o, 0), "line 86");
	outcome_clear(&o);
	g_free(log);

	log = numbered_log(dir, 40, 2);
	stagelog_judge(&o, log, &tails, "make tinyconfig", NULL);
	assert_string_equal(o.verdict, "config-failed");
	assert_int_equal(n_evidence(&o), 15);
	assert_string_equal(evidence(&o, 14), "x.c:40: error: e");
	outcome_clear(&o);
	g_free(log);
	fixture_rm_rf(dir);
	g_free(dir);
}

/*
 * A tool that does not say the disk is full (ar's short write): the log
 * alone is the kernel's failure; the disk is looked at (below) when the
 * build directory is known.
 */
static void test_silent_short_write(void **state)
{
	struct outcome o = { 0 };

	stagelog_judge(&o, "fixtures/buildlog/disk-full-ar.log", &picks, "make bzImage", NULL);
	assert_string_equal(o.verdict, "build-failed");
	assert_true(g_str_has_suffix(evidence(&o, 0), "libsubcmd.a] Error 1"));
	outcome_clear(&o);
}

/* Full is under 64 MiB or 1024 inodes available, whatever the block size. */
static void test_space_low(void **state)
{
	struct statvfs s = { .f_frsize = 4096, .f_blocks = 1 << 20, .f_files = 1 << 16 };

	s.f_bavail = (64 << 20) / 4096;
	s.f_favail = 1 << 15;
	assert_false(stagelog_space_low(&s));
	s.f_bavail--;
	assert_true(stagelog_space_low(&s));
	s.f_bavail = 1 << 19;
	s.f_favail = 1023;
	assert_true(stagelog_space_low(&s));
	/* A filesystem without an inode count (btrfs says 0) is judged by space. */
	s.f_files = s.f_favail = 0;
	assert_false(stagelog_space_low(&s));
	s.f_frsize = 1024;
	s.f_bavail = 60 << 10;
	assert_true(stagelog_space_low(&s));
}

/* A log that is not there (the stage could not even start it) still gives a verdict. */
static void test_missing_log(void **state)
{
	struct outcome o = { 0 };

	stagelog_judge(&o, "fixtures/buildlog/no-such.log", &picks, "make bzImage", NULL);
	assert_string_equal(o.verdict, "build-failed");
	assert_int_equal(n_evidence(&o), 0);
	outcome_clear(&o);
}

/* The line of a failed tool's log that says why. */
static void test_reason(void **state)
{
	char *dir = g_dir_make_tmp("kmatrix-stagelog-XXXXXX", NULL);
	char *log = g_build_filename(dir, "x.log", NULL);
	char *why;

	assert_null(stagelog_reason(log, "mkinitramfs: "));
	assert_true(g_file_set_contents(log, "", -1, NULL));
	assert_null(stagelog_reason(log, "mkinitramfs: "));
	/* the tool's own word over the last line */
	assert_true(g_file_set_contents(log, "copying\nmkinitramfs: no arm64 root /srv/r "
					"(tools/setup-host)\nexit 1\n", -1, NULL));
	why = stagelog_reason(log, "mkinitramfs: ");
	assert_string_equal(why, "mkinitramfs: no arm64 root /srv/r (tools/setup-host)");
	g_free(why);
	/* a host cause over the tool's word */
	assert_true(g_file_set_contents(log, "mkinitramfs: cpio failed\n"
					"cpio: write error: No space left on device\n", -1, NULL));
	why = stagelog_reason(log, "mkinitramfs: ");
	assert_string_equal(why, "cpio: write error: No space left on device");
	g_free(why);
	/* neither: the last line */
	assert_true(g_file_set_contents(log, "one\ntwo\n\n", -1, NULL));
	why = stagelog_reason(log, "mkinitramfs: ");
	assert_string_equal(why, "two");
	g_free(why);
	unlink(log);
	rmdir(dir);
	g_free(log);
	g_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compile_error_lines),
		cmocka_unit_test(test_disk_full_is_infra),
		cmocka_unit_test(test_causes),
		cmocka_unit_test(test_link_disk_full),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_missing_log),
		cmocka_unit_test(test_reason),
		cmocka_unit_test(test_silent_short_write),
		cmocka_unit_test(test_space_low),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
