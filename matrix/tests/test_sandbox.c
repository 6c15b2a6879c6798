// SPDX-License-Identifier: GPL-2.0
/*
 * sandbox.c: the wrapper argv every child runs under (no network, read-only
 * host, writable cache and results, hidden directories the build user
 * cannot pass, the drop to the build user), which directories it hides, and
 * the refusal of cache and results paths inside the project repository.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "cache.h"
#include "sandbox.h"

static GPtrArray *list(const char *first, ...)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
	va_list ap;

	va_start(ap, first);
	for (const char *s = first; s; s = va_arg(ap, const char *))
		g_ptr_array_add(a, g_strdup(s));
	va_end(ap);
	return a;
}

/* Index of the option @opt followed by @arg (NULL: any), or -1. */
static int find(char **argv, const char *opt, const char *arg)
{
	for (int i = 0; argv[i]; i++)
		if (!strcmp(argv[i], opt) && (!arg || (argv[i + 1] && !strcmp(argv[i + 1], arg))))
			return i;
	return -1;
}

/* The wrapper's own options: everything before the first "--". */
static int end_of_bwrap(char **argv)
{
	return find(argv, "--", NULL);
}

static struct sandbox root_sandbox(void)
{
	struct sandbox sb = {
		.active = true, .user = g_strdup("kmatrix"), .uid = 999, .gid = 995,
		.rw = list("/root/.cache/km", "/root/.cache/kmatrix/ccache", "/srv/results", NULL),
		.ro = list("/root/src/project", NULL),
		.hide = list("/root", NULL),
	};
	return sb;
}

static void test_isolation(void **state)
{
	struct sandbox sb = root_sandbox();
	char *cmd[] = { "make", "-j2", "bzImage", NULL };
	char **a = sandbox_argv(&sb, cmd, "/root/.cache/km/trees/5.10");
	int end = end_of_bwrap(a);

	assert_string_equal(a[0], "bwrap");
	/* No network, no shared IPC, its own pids; dies with kmatrix. */
	assert_in_range(find(a, "--unshare-net", NULL), 1, end);
	assert_in_range(find(a, "--unshare-pid", NULL), 1, end);
	assert_in_range(find(a, "--unshare-ipc", NULL), 1, end);
	assert_in_range(find(a, "--die-with-parent", NULL), 1, end);
	/* The host read-only, first, so every later mount is on top of it. */
	assert_int_equal(find(a, "--ro-bind", "/"), 1 + find(a, "--die-with-parent", NULL) + 5);
	g_strfreev(a);
	/* A distcc farm needs the network: only then is it kept. */
	sb.network = true;
	a = sandbox_argv(&sb, cmd, NULL);
	assert_int_equal(find(a, "--unshare-net", NULL), -1);
	assert_true(find(a, "--unshare-pid", NULL) > 0);
	g_strfreev(a);
	sb.network = false;
	a = sandbox_argv(&sb, cmd, "/root/.cache/km/trees/5.10");
	assert_string_equal(a[find(a, "--ro-bind", "/") + 2], "/");
	/* The host's /tmp read-only; a private, sticky $TMPDIR. */
	assert_int_equal(find(a, "--tmpfs", "/tmp"), -1);
	assert_in_range(find(a, "--tmpfs", SANDBOX_TMP), 1, end);
	assert_string_equal(a[find(a, "--tmpfs", SANDBOX_TMP) - 1], "1777");
	assert_string_equal(a[find(a, "--setenv", "TMPDIR") + 2], SANDBOX_TMP);
	assert_in_range(find(a, "--dev", "/dev"), 1, end);
	assert_in_range(find(a, "--proc", "/proc"), 1, end);
	/* Only the cache and results are writable. */
	assert_in_range(find(a, "--bind", "/root/.cache/km"), 1, end);
	assert_in_range(find(a, "--bind", "/root/.cache/kmatrix/ccache"), 1, end);
	assert_in_range(find(a, "--bind", "/srv/results"), 1, end);
	assert_in_range(find(a, "--ro-bind", "/root/src/project"), 1, end);
	assert_int_equal(find(a, "--bind", "/root/src/project"), -1);
	assert_int_equal(find(a, "--dev-bind", "/dev/kvm"), -1);
	assert_in_range(find(a, "--chdir", "/root/.cache/km/trees/5.10"), 1, end);
	assert_in_range(find(a, "--setenv", SANDBOX_ENV), 1, end);
	assert_string_equal(a[find(a, "--setenv", "GIT_CONFIG_KEY_0") + 2], "safe.directory");
	g_strfreev(a);
	sandbox_clear(&sb);
}

static void test_hidden_directories(void **state)
{
	struct sandbox sb = root_sandbox();
	char *cmd[] = { "true", NULL };
	char **a = sandbox_argv(&sb, cmd, NULL);
	int tmpfs = find(a, "--tmpfs", "/root");
	int dir = find(a, "--dir", "/root/.cache");
	int bind = find(a, "--bind", "/root/.cache/km");

	/* tmpfs over /root, a passable /root/.cache in it, then the binds. */
	assert_true(tmpfs > find(a, "--ro-bind", "/"));
	assert_string_equal(a[tmpfs - 2], "--perms");
	assert_string_equal(a[tmpfs - 1], "0755");
	assert_true(dir > tmpfs && bind > dir);
	assert_string_equal(a[dir - 1], "0755");
	assert_true(find(a, "--dir", "/root/.cache/kmatrix") > tmpfs);
	assert_true(find(a, "--dir", "/root/src") > tmpfs);
	/* Not under a hidden directory: no directories made for it. */
	assert_int_equal(find(a, "--dir", "/srv"), -1);
	assert_int_equal(find(a, "--chdir", NULL), -1);
	g_strfreev(a);
	sandbox_clear(&sb);
}

static void test_user_drop(void **state)
{
	struct sandbox sb = root_sandbox();
	char *cmd[] = { "git", "am", "-q", "/p/0001.patch", NULL };
	char **a = sandbox_argv(&sb, cmd, NULL);
	int end = end_of_bwrap(a), n = g_strv_length(a);

	assert_string_equal(a[end + 1], "setpriv");
	assert_in_range(find(a, "--reuid=999", NULL), end, n);
	assert_in_range(find(a, "--regid=995", NULL), end, n);
	assert_in_range(find(a, "--bounding-set=-all", NULL), end, n);
	assert_in_range(find(a, "--inh-caps=-all", NULL), end, n);
	assert_in_range(find(a, "--no-new-privs", NULL), end, n);
	/* The command comes last, word for word, with SIGTERM's default back. */
	assert_string_equal(a[n - 7], "--");
	assert_string_equal(a[n - 6], "env");
	assert_string_equal(a[n - 5], "--default-signal=TERM");
	for (int i = 0; cmd[i]; i++)
		assert_string_equal(a[n - 4 + i], cmd[i]);
	g_strfreev(a);
	sandbox_clear(&sb);
}

static void test_unprivileged_and_kvm(void **state)
{
	struct sandbox sb = { .active = true, .uid = 1000, .gid = 1000,
			      .rw = list("/home/u/.cache/kmatrix", NULL), .kvm = true };
	char *cmd[] = { "qemu-system-x86_64", "-nographic", NULL };
	char **a = sandbox_argv(&sb, cmd, NULL);
	int end = end_of_bwrap(a);

	/* Already unprivileged: bwrap's own user namespace, no setpriv. */
	assert_int_equal(find(a, "setpriv", NULL), -1);
	assert_string_equal(a[end + 3], "qemu-system-x86_64");
	assert_in_range(find(a, "--dev-bind", "/dev/kvm"), 1, end);
	assert_true(find(a, "--dev-bind", "/dev/kvm") > find(a, "--dev", "/dev"));
	g_strfreev(a);
	sandbox_clear(&sb);
}

static void test_searchable(void **state)
{
	struct stat st = { .st_uid = 0, .st_gid = 0, .st_mode = S_IFDIR | 0700 };

	assert_false(sandbox_searchable(&st, 999, 995));
	st.st_mode = S_IFDIR | 0711;
	assert_true(sandbox_searchable(&st, 999, 995));
	st.st_mode = S_IFDIR | 0750;
	st.st_gid = 995;
	assert_true(sandbox_searchable(&st, 999, 995));
	st.st_uid = 999;
	st.st_mode = S_IFDIR | 0077;
	/* The owner's bits decide for the owner, even when others may pass. */
	assert_false(sandbox_searchable(&st, 999, 995));
}

static void test_blocked_ancestor(void **state)
{
	char *top = g_dir_make_tmp("kmatrix-sandbox-XXXXXX", NULL);
	char *closed = g_build_filename(top, "closed", NULL);
	char *deep = g_build_filename(closed, "a", "b", NULL);
	char *open_dir = g_build_filename(top, "open", NULL);
	char *b;

	assert_int_equal(g_mkdir_with_parents(deep, 0755), 0);
	assert_int_equal(g_mkdir_with_parents(open_dir, 0755), 0);
	assert_int_equal(chmod(top, 0755), 0);
	assert_int_equal(chmod(closed, 0700), 0);
	b = sandbox_blocked_ancestor(deep, 65534, 65534);
	assert_non_null(b);
	assert_string_equal(b, closed);
	g_free(b);
	assert_null(sandbox_blocked_ancestor(open_dir, 65534, 65534));
	/* Not yet made: what exists decides. */
	b = g_build_filename(open_dir, "new", "dir", NULL);
	assert_null(sandbox_blocked_ancestor(b, 65534, 65534));
	g_free(b);
	rmdir(deep);
	b = g_path_get_dirname(deep);
	rmdir(b);
	g_free(b);
	rmdir(closed);
	rmdir(open_dir);
	rmdir(top);
	g_free(deep);
	g_free(closed);
	g_free(open_dir);
	g_free(top);
}

/* Cache, trees, build directories and results never inside the repository. */
static void test_paths_in_repository(void **state)
{
	char *top = g_dir_make_tmp("kmatrix-top-XXXXXX", NULL);
	char *outside = g_dir_make_tmp("kmatrix-out-XXXXXX", NULL);
	char *link = g_build_filename(outside, "link", NULL);
	char *via_link = g_build_filename(link, "cache", NULL);
	char *inside = g_build_filename(top, "cache", "trees", NULL);
	char *sibling = g_strconcat(top, "-cache", NULL);
	GError *err = NULL;

	assert_false(cache_path_allowed(inside, top, &err));
	assert_non_null(strstr(err->message, "inside the project repository"));
	g_clear_error(&err);
	assert_false(cache_path_allowed(top, top, &err));
	g_clear_error(&err);
	/* A symlink into the repository is still inside it. */
	assert_int_equal(symlink(top, link), 0);
	assert_false(cache_path_allowed(via_link, top, &err));
	g_clear_error(&err);
	assert_true(cache_path_allowed(sibling, top, NULL));
	assert_true(cache_path_allowed(outside, top, NULL));
	unlink(link);
	rmdir(outside);
	rmdir(top);
	g_free(top);
	g_free(outside);
	g_free(link);
	g_free(via_link);
	g_free(inside);
	g_free(sibling);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_isolation),
		cmocka_unit_test(test_hidden_directories),
		cmocka_unit_test(test_user_drop),
		cmocka_unit_test(test_unprivileged_and_kvm),
		cmocka_unit_test(test_searchable),
		cmocka_unit_test(test_blocked_ancestor),
		cmocka_unit_test(test_paths_in_repository),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
