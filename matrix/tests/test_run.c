// SPDX-License-Identifier: GPL-2.0
/*
 * run.c: exit codes, logs, time limits and the kill of a child's whole
 * process group (with sleep grandchildren), on timeout, on a watch's
 * request and on SIGTERM to kmatrix.
 */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "run.h"

static double now(void)
{
	return g_get_monotonic_time() / 1e6;
}

/*
 * Nothing of the child's group may be left: kill(-pgid, 0) finds nobody.
 * Orphans of a killed group come to us (kmatrix is a subreaper) and are
 * zombies until a poll reaps them, as kmatrix's own polls do.
 */
static void assert_group_gone(pid_t pgid)
{
	for (int i = 0; i < 200 && kill(-pgid, 0) == 0; i++) {
		run_poll();
		g_usleep(10000);
	}
	assert_int_equal(kill(-pgid, 0), -1);
}

static void test_exit_codes(void **state)
{
	char *ok[] = { "true", NULL };
	char *three[] = { "sh", "-c", "exit 3", NULL };
	char *missing[] = { "/nonexistent/tool", NULL };
	struct child c = { .argv = ok };

	assert_int_equal(run_command(&c), 0);
	c.argv = three;
	assert_int_equal(run_command(&c), 3);
	c.argv = missing;
	assert_int_equal(run_command(&c), 127);
}

static void test_log_and_capture(void **state)
{
	char *log = NULL;
	int fd = g_file_open_tmp("kmatrix-run-XXXXXX", &log, NULL);
	char *argv[] = { "sh", "-c", "echo out; echo err >&2", NULL };
	char *pwd[] = { "pwd", NULL };
	struct child c = { .argv = argv };
	char *text = NULL, *out;

	close(fd);
	c.log = log;
	assert_int_equal(run_command(&c), 0);
	assert_true(g_file_get_contents(log, &text, NULL, NULL));
	assert_non_null(strstr(text, "out\n"));
	assert_non_null(strstr(text, "err\n"));
	out = run_capture(pwd, "/tmp", NULL);
	assert_string_equal(out, "/tmp");
	g_free(out);
	g_free(text);
	unlink(log);
	g_free(log);
}

/* A child cannot make a file grow past max_file, however much it writes. */
static void test_max_file(void **state)
{
	char *log = NULL;
	int fd = g_file_open_tmp("kmatrix-run-XXXXXX", &log, NULL);
	char *argv[] = { "sh", "-c", "head -c 100000 /dev/zero; echo after", NULL };
	struct child c = { .argv = argv, .max_file = 4096 };
	char *text = NULL;
	gsize len = 0;

	close(fd);
	c.log = log;
	run_command(&c);
	assert_true(g_file_get_contents(log, &text, &len, NULL));
	assert_int_equal(len, 4096);
	g_free(text);
	unlink(log);
	g_free(log);
}

static void test_timeout_kills_group(void **state)
{
	/* The shell's own children must die too, not just the shell. */
	char *argv[] = { "sh", "-c", "sleep 30 & sleep 30 & wait", NULL };
	struct child c = { .argv = argv, .timeout = 0.5 };
	double t0 = now();
	char *why;

	assert_int_equal(run_command(&c), -1);
	assert_true(c.timed_out);
	assert_true(now() - t0 < 5);
	assert_group_gone(c.pid);
	why = run_describe(&c);
	assert_string_equal(why, "timed out after 0 s");
	g_free(why);
}

/* A child that ignores SIGTERM is killed after the grace period. */
static void test_timeout_escalates(void **state)
{
	char *argv[] = { "sh", "-c", "trap '' TERM; sleep 30 & wait; wait", NULL };
	struct child c = { .argv = argv, .timeout = 0.3 };
	double t0 = now();

	assert_int_equal(run_command(&c), -1);
	assert_true(c.timed_out);
	assert_true(now() - t0 < 6);
	assert_group_gone(c.pid);
}

static const char *stop_at_once(struct child *c, void *data)
{
	int *calls = data;

	return ++*calls > 3 ? "watch said stop" : NULL;
}

static void test_watch(void **state)
{
	char *argv[] = { "sleep", "30", NULL };
	int calls = 0;
	struct child c = { .argv = argv, .watch = stop_at_once, .watch_data = &calls };
	char *why;

	assert_int_equal(run_command(&c), -1);
	assert_string_equal(c.killed_by, "watch said stop");
	assert_false(c.timed_out);
	why = run_describe(&c);
	assert_string_equal(why, "watch said stop");
	g_free(why);
}

/* Two children at once: waiting for one enforces the other's limit. */
static void test_parallel_limits(void **state)
{
	char *slow[] = { "sleep", "30", NULL };
	char *work[] = { "sleep", "1", NULL };
	struct child a = { .argv = slow, .timeout = 0.3 };
	struct child b = { .argv = work };

	assert_int_equal(run_start(&a), 0);
	assert_int_equal(run_start(&b), 0);
	assert_int_equal(run_wait(&b), 0);
	assert_true(a.done);
	assert_true(a.timed_out);
	assert_int_equal(run_wait(&a), -1);
}

/*
 * A child's usage covers the descendants it waited for: the 64 MiB buffer
 * of a dd under sh is sh's peak memory, and a shell loop's CPU is counted.
 */
static void test_usage_of_tree(void **state)
{
	char *big[] = { "sh", "-c", "dd if=/dev/zero of=/dev/null bs=64M count=1 2>/dev/null; true",
			NULL };
	char *busy[] = { "sh", "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done",
			 NULL };
	struct child a = { .argv = big }, b = { .argv = busy };

	assert_int_equal(run_command(&a), 0);
	assert_true(a.used.maxrss_kb >= 64 * 1024);
	assert_int_equal(run_command(&b), 0);
	assert_true(b.used.cpu > 0.01);
	assert_true(b.used.cpu <= b.elapsed * g_get_num_processors() + 0.05);
	assert_true(b.used.maxrss_kb < a.used.maxrss_kb);
}

/*
 * bwrap's outer process exits without waiting for its init, which carries
 * the command's usage: a descendant that outlives its parent, is
 * reparented to kmatrix and still counts for its child (process group).
 * About 35 ms of CPU: well inside the half second a group is waited for,
 * even on a machine loaded tenfold (100,000 rounds once took longer).
 */
static void test_usage_of_orphan(void **state)
{
	char *orphan[] = { "sh", "-c",
			   "(i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done) & exit 0", NULL };
	struct child c = { .argv = orphan };

	assert_int_equal(run_command(&c), 0);
	assert_true(c.used.cpu > 0.01);
	/* Done means the whole group is: nothing of it is left running. */
	assert_int_equal(kill(-c.pid, 0), -1);
}

/* A sink adds up the children started while it is set; a child's own usage wins. */
static void test_usage_sink(void **state)
{
	char *big[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=32M", "count=1", NULL };
	char *busy[] = { "sh", "-c", "i=0; while [ $i -lt 50000 ]; do i=$((i+1)); done",
			 NULL };
	struct usage stage = { 0 }, own = { 0 }, saved, *prev;
	struct child a = { .argv = big }, b = { .argv = busy };
	struct child c = { .argv = busy, .usage = &own };

	prev = run_usage_sink(&stage);
	assert_int_equal(run_command(&a), 0);
	assert_int_equal(run_command(&b), 0);
	assert_int_equal(run_command(&c), 0);
	assert_ptr_equal(run_usage_sink(prev), &stage);
	assert_true(fabs(stage.cpu - (a.used.cpu + b.used.cpu)) < 1e-9);
	assert_int_equal(stage.maxrss_kb, MAX(a.used.maxrss_kb, b.used.maxrss_kb));
	assert_true(stage.maxrss_kb >= 32 * 1024);
	assert_true(fabs(own.cpu - c.used.cpu) < 1e-9);
	assert_true(own.cpu > 0);
	/* Once the sink is put back, later children no longer add to it. */
	saved = stage;
	assert_int_equal(run_command(&b), 0);
	assert_true(b.used.cpu > 0);
	assert_memory_equal(&stage, &saved, sizeof(stage));
}

static const char *send_term(struct child *c, void *data)
{
	if (c->elapsed == 0 && g_get_monotonic_time() - c->started > 200000)
		raise(SIGTERM);
	return NULL;
}

/* Last: the stop signal is sticky for the rest of the process. */
static void test_sigterm_kills_children(void **state)
{
	char *argv[] = { "sh", "-c", "sleep 30 & sleep 30 & wait", NULL };
	char *other[] = { "sleep", "30", NULL };
	struct child c = { .argv = argv, .watch = send_term };
	struct child bg = { .argv = other };
	char *after[] = { "true", NULL };
	struct child late = { .argv = after };
	double t0 = now();

	run_signals_install();
	assert_int_equal(run_start(&bg), 0);
	assert_int_equal(run_command(&c), -1);
	assert_true(c.interrupted);
	assert_int_equal(run_stop_signal(), SIGTERM);
	run_kill_all();
	assert_true(bg.done);
	assert_true(now() - t0 < 6);
	assert_group_gone(c.pid);
	assert_group_gone(bg.pid);
	/* Nothing new starts once kmatrix was told to stop. */
	assert_int_equal(run_command(&late), -1);
	assert_true(late.interrupted);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_log_and_capture),
		cmocka_unit_test(test_max_file),
		cmocka_unit_test(test_timeout_kills_group),
		cmocka_unit_test(test_timeout_escalates),
		cmocka_unit_test(test_watch),
		cmocka_unit_test(test_parallel_limits),
		cmocka_unit_test(test_usage_of_tree),
		cmocka_unit_test(test_usage_of_orphan),
		cmocka_unit_test(test_usage_sink),
		cmocka_unit_test(test_sigterm_kills_children),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
