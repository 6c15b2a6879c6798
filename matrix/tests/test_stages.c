// SPDX-License-Identifier: GPL-2.0
/*
 * Stage classification from fixtures: a config fragment checked against
 * .config (the dropped symbol is named), and guest consoles classified as
 * panic, no init, no output, hang, QEMU failure or ready to judge.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "boot.h"
#include "build.h"
#include "cell.h"

static bool has_evidence(const struct outcome *o, const char *part)
{
	for (guint i = 0; o->evidence && i < o->evidence->len; i++)
		if (strstr(o->evidence->pdata[i], part))
			return true;
	return false;
}

static void test_config_good(void **state)
{
	struct outcome o = { 0 };

	assert_int_equal(config_verify("fixtures/config/fragment", "fixtures/config/dotconfig-good", &o), 0);
	assert_null(o.verdict);
	outcome_clear(&o);
}

static void test_config_dropped(void **state)
{
	struct outcome o = { 0 };

	/* PL011 missing, LOG_BUF_SHIFT changed, BLOCK set though asked off. */
	assert_int_equal(config_verify("fixtures/config/fragment", "fixtures/config/dotconfig-dropped", &o), 3);
	assert_string_equal(o.verdict, "config-failed");
	assert_non_null(strstr(o.summary, "CONFIG_BLOCK"));
	assert_true(has_evidence(&o, "CONFIG_SERIAL_AMBA_PL011: asked CONFIG_SERIAL_AMBA_PL011=y, .config has nothing"));
	assert_true(has_evidence(&o, "CONFIG_LOG_BUF_SHIFT: asked CONFIG_LOG_BUF_SHIFT=14, .config has CONFIG_LOG_BUF_SHIFT=17"));
	assert_true(has_evidence(&o, "CONFIG_BLOCK: asked CONFIG_BLOCK is not set, .config has CONFIG_BLOCK=y"));
	assert_false(has_evidence(&o, "CONFIG_MODULES"));
	outcome_clear(&o);
}

static struct outcome classify(const char *fixture, struct child *ch)
{
	struct outcome o = { 0 };
	char *path = g_build_filename("fixtures/console", fixture, NULL);
	char *text = NULL;
	bool stop;

	if (!g_file_get_contents(path, &text, NULL, NULL))
		text = g_strdup("");
	stop = boot_classify(text, ch, &o);
	assert_true(stop == (o.verdict != NULL));
	g_free(text);
	g_free(path);
	return o;
}

static void test_panic(void **state)
{
	struct child ch = { .done = true, .status = 0 };
	struct outcome o = classify("panic.log", &ch);

	assert_string_equal(o.verdict, "boot-failed");
	assert_string_equal(o.summary, "kernel panic");
	assert_true(has_evidence(&o, "Kernel panic - not syncing: No working init found"));
	assert_true(has_evidence(&o, "Run /init as init process"));
	outcome_clear(&o);
}

static void test_no_output(void **state)
{
	struct child ch = { .done = true, .killed_by = "no console output" };
	struct outcome o = classify("absent.log", &ch);

	assert_string_equal(o.verdict, "boot-failed");
	assert_string_equal(o.summary, "no console output");
	outcome_clear(&o);
}

/* The firmware's banner on the serial port is not the kernel talking. */
static void test_firmware_only(void **state)
{
	struct child stopped = { .done = true, .killed_by = "no console output" };
	struct child exited = { .done = true, .status = 0 };
	struct outcome o = classify("firmware-only.log", &stopped);

	assert_string_equal(o.verdict, "boot-failed");
	assert_string_equal(o.summary, "no console output");
	assert_true(has_evidence(&o, "QEMU was stopped; the console holds no kernel output"));
	assert_true(has_evidence(&o, "Booting from ROM.."));
	outcome_clear(&o);
	o = classify("firmware-only.log", &exited);
	assert_string_equal(o.summary, "no console output");
	assert_true(has_evidence(&o, "QEMU exited; the console holds no kernel output"));
	outcome_clear(&o);
	assert_false(boot_kernel_spoke("SeaBIOS (version 1.16.2)\nBooting from ROM..\n"));
	assert_true(boot_kernel_spoke("Linux version 5.10.262 (gcc 12)\n"));
	assert_true(boot_kernel_spoke("KMATRIX-INIT-START\n"));
}

static void test_no_init(void **state)
{
	struct child ch = { .done = true, .timed_out = true, .timeout = 300 };
	struct outcome o = classify("noinit.log", &ch);

	assert_string_equal(o.verdict, "boot-failed");
	assert_non_null(strstr(o.summary, "no init"));
	assert_true(has_evidence(&o, "Switched to clocksource tsc"));
	outcome_clear(&o);
}

static void test_hang(void **state)
{
	struct child ch = { .done = true, .timed_out = true, .timeout = 300 };
	struct outcome o = classify("hang.log", &ch);

	assert_string_equal(o.verdict, "timeout");
	assert_string_equal(o.summary, "guest did not finish in 300 s");
	assert_true(has_evidence(&o, "ok 1 limits_nice_default"));
	outcome_clear(&o);
}

static void test_qemu_failed(void **state)
{
	struct child ch = { .done = true, .status = 1 << 8 };
	struct outcome o = classify("qemu-fail.log", &ch);

	assert_true(WIFEXITED(ch.status));
	assert_string_equal(o.verdict, "infra-error");
	assert_true(has_evidence(&o, "Property 'max-arm-cpu.lpa3' not found"));
	outcome_clear(&o);
}

/* A guest that finished is judged, even when QEMU had to be stopped after it. */
static void test_done(void **state)
{
	struct child ch = { .done = true, .killed_by = "guest did not power off after KMATRIX-DONE" };
	struct outcome o = classify("done.log", &ch);

	assert_null(o.verdict);
	outcome_clear(&o);
}

#define CAP 10000
#define FLOODED { .done = true, .killed_by = "console flood: the console log passed 4 MiB" }

/* @text in a new file, cut at CAP; its bytes after the cut in @cut. */
static char *cut_text(const char *text, gsize *len, off_t *cut)
{
	char *path = NULL, *out = NULL;
	int fd = g_file_open_tmp("kmatrix-console-XXXXXX", &path, NULL);

	close(fd);
	assert_true(g_file_set_contents(path, text, -1, NULL));
	*cut = boot_cut_console(path, CAP);
	assert_true(g_file_get_contents(path, &out, len, NULL));
	unlink(path);
	g_free(path);
	return out;
}

/* The last line of @text: what the cut appended. */
static const char *last_line(const char *text)
{
	const char *nl = text + strlen(text) - 1;

	while (nl > text && nl[-1] != '\n')
		nl--;
	return nl;
}

static GString *many_lines(const char *head, int n)
{
	GString *s = g_string_new(head);

	for (int i = 0; i < n; i++)
		g_string_append_printf(s, "flood line %d\n", i);
	return s;
}

/* Many lines: cut after the last whole line before the cap. */
static void test_cut_lines(void **state)
{
	GString *s = many_lines("", 2000);
	char *mark, *out, *tail;
	gsize len;
	off_t cut;

	out = cut_text(s->str, &len, &cut);
	mark = strstr(out, "kmatrix: console log cut at byte ");
	assert_non_null(mark);
	assert_true(mark - out <= CAP && mark - out > CAP - 20);
	assert_int_equal(cut, s->len - (mark - out));
	assert_int_equal(mark[-1], '\n');
	assert_memory_equal(out, s->str, mark - out);
	assert_ptr_equal(last_line(out), mark);
	tail = g_strdup_printf("(cap %d): %lld bytes of guest output dropped\n", CAP, (long long)cut);
	assert_true(g_str_has_suffix(mark, tail));
	assert_true(len <= CAP + 100);
	g_free(tail);
	g_free(out);
	g_string_free(s, TRUE);
}

/* One line longer than the cap: cut at the cap, the marker on a line of its own. */
static void test_cut_one_line(void **state)
{
	char *line = g_strnfill(3 * CAP, 'x');
	char *out, *mark;
	gsize len;
	off_t cut;

	out = cut_text(line, &len, &cut);
	assert_int_equal(cut, 2 * CAP);
	mark = strstr(out, "kmatrix: console log cut at byte 10000 ");
	assert_non_null(mark);
	assert_int_equal(mark - out, CAP + 1);
	assert_int_equal(out[CAP], '\n');
	assert_true(len <= CAP + 100);
	g_free(out);
	g_free(line);
}

/* Within the cap, or no log at all: nothing is cut. */
static void test_cut_nothing(void **state)
{
	char *out;
	gsize len;
	off_t cut;

	out = cut_text("Linux version 5.10\nKMATRIX-INIT-START\n", &len, &cut);
	assert_int_equal(cut, 0);
	assert_string_equal(out, "Linux version 5.10\nKMATRIX-INIT-START\n");
	g_free(out);
	assert_int_equal(boot_cut_console("/nonexistent/console.log", CAP), 0);
}

/* Every evidence line is clipped: an endless line is not a megabyte of it. */
static void assert_clipped(const struct outcome *o)
{
	for (guint i = 0; i < o->evidence->len; i++)
		assert_true(strlen(o->evidence->pdata[i]) < 600);
}

static void test_flood_after_init(void **state)
{
	GString *s = many_lines("Linux version 5.10\nKMATRIX-INIT-START\n", 2000);
	struct child ch = FLOODED;
	struct outcome o = { 0 };
	off_t cut;
	gsize len;
	char *out = cut_text(s->str, &len, &cut);

	assert_true(boot_classify(out, &ch, &o));
	assert_string_equal(o.verdict, "boot-failed");
	assert_string_equal(o.summary, "console flood after init started: more than 4 MiB on the console");
	assert_int_equal(o.evidence->len, 25);
	assert_true(has_evidence(&o, "kmatrix: console log cut at byte "));
	assert_true(has_evidence(&o, "flood line "));
	outcome_clear(&o);
	g_free(out);
	g_string_free(s, TRUE);
}

/*
 * An endless line before init, and QEMU gone before the watch saw the cap:
 * the cut's line alone says it flooded.
 */
static void test_flood_before_init(void **state)
{
	GString *s = g_string_new("Linux version 5.10\n");
	struct child ch = { .done = true, .status = 0 };
	struct outcome o = { 0 };
	off_t cut;
	gsize len;
	char *out;

	for (int i = 0; i < 3000; i++)
		g_string_append(s, "endless ");
	out = cut_text(s->str, &len, &cut);
	assert_true(cut > 0);
	assert_true(boot_classify(out, &ch, &o));
	assert_string_equal(o.verdict, "boot-failed");
	assert_string_equal(o.summary, "console flood before init started: more than 4 MiB on the console");
	assert_true(has_evidence(&o, "endless endless"));
	assert_true(has_evidence(&o, "more bytes cut]"));
	assert_true(has_evidence(&o, "kmatrix: console log cut at byte "));
	assert_clipped(&o);
	outcome_clear(&o);
	g_free(out);
	g_string_free(s, TRUE);
}

/* A flood after the tests finished did not hide them: they are judged. */
static void test_flood_after_done(void **state)
{
	GString *s = many_lines("Linux version 5.10\nKMATRIX-INIT-START\nKMATRIX-DONE rc=0\n", 2000);
	struct child ch = FLOODED;
	struct outcome o = { 0 };
	off_t cut;
	gsize len;
	char *out = cut_text(s->str, &len, &cut);

	assert_false(boot_classify(out, &ch, &o));
	assert_null(o.verdict);
	outcome_clear(&o);
	g_free(out);
	g_string_free(s, TRUE);
}

static void test_build_error_lines(void **state)
{
	struct outcome o = { 0 };

	build_evidence(&o, "fixtures/buildlog/compile-error.log", "bzImage", NULL);
	assert_string_equal(o.verdict, "build-failed");
	assert_string_equal(o.summary, "make bzImage failed");
	assert_true(has_evidence(&o, "sys.c:214:13: error: implicit declaration of function 'can_nice2'"));
	assert_true(has_evidence(&o, "kernel/sys.o] Error 1"));
	assert_false(has_evidence(&o, "CC      kernel/sched/core.o"));
	outcome_clear(&o);
}

static void test_build_disk_full(void **state)
{
	struct outcome o = { 0 };

	build_evidence(&o, "fixtures/buildlog/disk-full.log", "bzImage", NULL);
	assert_string_equal(o.verdict, "infra-error");
	assert_string_equal(o.summary, "build: no space left on device");
	assert_true(has_evidence(&o, "No space left on device"));
	outcome_clear(&o);
}

/*
 * A build tells ccache where to log each compilation's outcome (the cell's
 * <step>.ccache.log), and an earlier build's log does not survive.
 */
static void test_build_ccache_log(void **state)
{
	char *dir = g_dir_make_tmp("kmatrix-build-XXXXXX", NULL);
	struct arch_conf a = { .name = "x86_64", .kernel_arch = "x86_64", .cross_compile = "",
			       .image = "arch/x86/boot/bzImage", .image_target = "bzImage" };
	struct step s = { .id = "uapi" };
	struct cell c = { .a = &a, .step = &s, .src = dir, .cache = dir, .logdir = dir };
	char *mk = g_build_filename(dir, "Makefile", NULL);
	char *stats, *image, *text = NULL;
	char *rm[] = { "rm", "-rf", dir, NULL };

	c.build_dir = g_build_filename(dir, "b", NULL);
	stats = cell_log(&c, "ccache");
	image = g_build_filename(c.build_dir, a.image, NULL);
	assert_true(g_file_set_contents(mk, "bzImage:\n\t@mkdir -p $(O)/arch/x86/boot && "
					"printf '%s' \"$$CCACHE_STATSLOG\" >$(O)/arch/x86/boot/bzImage\n",
					-1, NULL));
	assert_true(g_file_set_contents(stats, "# stale.c\ncache_miss\n", -1, NULL));
	assert_int_equal(build_cell(&c), 0);
	assert_null(c.out.verdict);
	assert_true(g_file_get_contents(image, &text, NULL, NULL));
	assert_string_equal(text, stats);
	assert_true(g_str_has_suffix(stats, "/uapi.ccache.log"));
	assert_false(g_file_test(stats, G_FILE_TEST_EXISTS));
	g_spawn_sync(NULL, rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
	g_free(text);
	g_free(image);
	g_free(stats);
	g_free(mk);
	g_free(c.build_dir);
	g_free(dir);
}

/* A full disk while configuring is the host's failure, named as such. */
static void test_configure_disk_full(void **state)
{
	struct outcome o = { 0 };

	configure_evidence(&o, "fixtures/buildlog/config-disk-full.log", "make tinyconfig", NULL);
	assert_string_equal(o.verdict, "infra-error");
	assert_string_equal(o.summary, "configure: no space left on device");
	assert_true(has_evidence(&o, "scripts/kconfig/util.o: No space left on device"));
	outcome_clear(&o);
	configure_evidence(&o, "fixtures/buildlog/compile-error.log", "make olddefconfig", NULL);
	assert_string_equal(o.verdict, "config-failed");
	assert_string_equal(o.summary, "make olddefconfig failed");
	outcome_clear(&o);
}

/* In the sandbox a missing tool is reported by setpriv (or bwrap), not run.c. */
static void test_build_tool_missing(void **state)
{
	struct outcome o = { 0 };

	build_evidence(&o, "fixtures/buildlog/tool-missing.log", "Image", NULL);
	assert_string_equal(o.verdict, "infra-error");
	assert_string_equal(o.summary, "build: a tool is missing");
	assert_true(has_evidence(&o, "setpriv: failed to execute aarch64-linux-gnu-gcc"));
	outcome_clear(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_good),
		cmocka_unit_test(test_config_dropped),
		cmocka_unit_test(test_panic),
		cmocka_unit_test(test_no_output),
		cmocka_unit_test(test_firmware_only),
		cmocka_unit_test(test_no_init),
		cmocka_unit_test(test_hang),
		cmocka_unit_test(test_qemu_failed),
		cmocka_unit_test(test_done),
		cmocka_unit_test(test_cut_lines),
		cmocka_unit_test(test_cut_one_line),
		cmocka_unit_test(test_cut_nothing),
		cmocka_unit_test(test_flood_after_init),
		cmocka_unit_test(test_flood_before_init),
		cmocka_unit_test(test_flood_after_done),
		cmocka_unit_test(test_build_error_lines),
		cmocka_unit_test(test_build_disk_full),
		cmocka_unit_test(test_build_ccache_log),
		cmocka_unit_test(test_configure_disk_full),
		cmocka_unit_test(test_build_tool_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
