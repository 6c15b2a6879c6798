// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "own.h"
#include "run.h"
#include "sandbox.h"

#define SANDBOX_ERROR g_quark_from_static_string("kmatrix-sandbox")

bool sandbox_searchable(const struct stat *st, uid_t uid, gid_t gid)
{
	if (st->st_uid == uid)
		return st->st_mode & S_IXUSR;
	if (st->st_gid == gid)
		return st->st_mode & S_IXGRP;
	return st->st_mode & S_IXOTH;
}

char *sandbox_blocked_ancestor(const char *path, uid_t uid, gid_t gid)
{
	char **parts = g_strsplit(path, "/", -1);
	GString *at = g_string_new("");
	char *blocked = NULL;
	struct stat st;

	for (int i = 0; parts[i] && !blocked; i++) {
		if (!*parts[i])
			continue;
		g_string_append_printf(at, "/%s", parts[i]);
		if (stat(at->str, &st) == 0 && S_ISDIR(st.st_mode) &&
		    !sandbox_searchable(&st, uid, gid))
			blocked = g_strdup(at->str);
	}
	g_string_free(at, TRUE);
	g_strfreev(parts);
	return blocked;
}

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return true;
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

static void add(GPtrArray *a, const char *s1, const char *s2, const char *s3)
{
	g_ptr_array_add(a, g_strdup(s1));
	if (s2)
		g_ptr_array_add(a, g_strdup(s2));
	if (s3)
		g_ptr_array_add(a, g_strdup(s3));
}

/* The fresh directory (tmpfs) @path lies under, or NULL. */
static const char *fresh_parent(const struct sandbox *sb, const char *path)
{
	const char *best = under(path, SANDBOX_TMP) ? SANDBOX_TMP : NULL;

	for (guint i = 0; sb->hide && i < sb->hide->len; i++)
		if (under(path, sb->hide->pdata[i]) &&
		    (!best || strlen(sb->hide->pdata[i]) > strlen(best)))
			best = sb->hide->pdata[i];
	return best;
}

/*
 * Mount points under a fresh tmpfs: bubblewrap would make the missing
 * directories mode 0700, which the build user cannot pass through.
 */
static void add_dirs(GPtrArray *a, const char *fresh, const char *path)
{
	char *rel = g_strdup(path + strlen(fresh));
	char **parts = g_strsplit(rel, "/", -1);
	GString *at = g_string_new(fresh);
	guint n = g_strv_length(parts);

	for (guint i = 0; i + 1 < n; i++) {
		if (!*parts[i])
			continue;
		g_string_append_printf(at, "/%s", parts[i]);
		add(a, "--perms", "0755", NULL);
		add(a, "--dir", at->str, NULL);
	}
	g_string_free(at, TRUE);
	g_strfreev(parts);
	g_free(rel);
}

static void add_bind(GPtrArray *a, const struct sandbox *sb, const char *opt,
		     const char *path)
{
	const char *fresh = fresh_parent(sb, path);

	if (fresh)
		add_dirs(a, fresh, path);
	add(a, opt, path, path);
}

static gint by_length(gconstpointer a, gconstpointer b)
{
	const char *x = *(const char **)a, *y = *(const char **)b;
	size_t lx = strlen(x), ly = strlen(y);

	return lx == ly ? strcmp(x, y) : (lx < ly ? -1 : 1);
}

static GPtrArray *sorted(const GPtrArray *in)
{
	GPtrArray *out = g_ptr_array_new();

	for (guint i = 0; in && i < in->len; i++)
		g_ptr_array_add(out, in->pdata[i]);
	g_ptr_array_sort(out, by_length);
	return out;
}

static void add_user(GPtrArray *a, const struct sandbox *sb)
{
	char *uid = g_strdup_printf("--reuid=%u", (unsigned)sb->uid);
	char *gid = g_strdup_printf("--regid=%u", (unsigned)sb->gid);

	/* Everything a setuid-less root keeps is dropped for good. */
	add(a, "setpriv", uid, gid);
	add(a, "--init-groups", "--inh-caps=-all", "--bounding-set=-all");
	add(a, "--no-new-privs", "--", NULL);
	g_free(uid);
	g_free(gid);
}

char **sandbox_argv(const struct sandbox *sb, char *const *argv, const char *cwd)
{
	GPtrArray *a = g_ptr_array_new();
	GPtrArray *hide = sorted(sb->hide), *rw = sorted(sb->rw), *ro = sorted(sb->ro);

	add(a, "bwrap", "--die-with-parent", NULL);
	if (!sb->network)
		add(a, "--unshare-net", NULL, NULL);
	add(a, "--unshare-ipc", "--unshare-uts", NULL);
	add(a, "--unshare-pid", "--unshare-cgroup-try", NULL);
	add(a, "--ro-bind", "/", "/");
	add(a, "--dev", "/dev", NULL);
	add(a, "--proc", "/proc", NULL);
	/*
	 * The host's /tmp stays visible, read-only (inputs of a test may live
	 * there); temporary files go to a fresh, sticky, world-writable one.
	 */
	add(a, "--perms", "1777", NULL);
	add(a, "--tmpfs", SANDBOX_TMP, NULL);
	add(a, "--setenv", "TMPDIR", SANDBOX_TMP);
	if (sb->kvm)
		add(a, "--dev-bind", "/dev/kvm", "/dev/kvm");
	for (guint i = 0; i < hide->len; i++) {
		add(a, "--perms", "0755", NULL);
		add(a, "--tmpfs", hide->pdata[i], NULL);
	}
	for (guint i = 0; i < ro->len; i++)
		add_bind(a, sb, "--ro-bind", ro->pdata[i]);
	for (guint i = 0; i < rw->len; i++)
		add_bind(a, sb, "--bind", rw->pdata[i]);
	add(a, "--setenv", SANDBOX_ENV, "1");
	/*
	 * git inside works in trees of whichever owner (this repository is
	 * root's): ownership protects a privileged user, and the build user is
	 * the one untrusted already.  No automatic gc: detached, the end of
	 * the pid namespace would kill it and leave its lock behind.
	 */
	add(a, "--setenv", "GIT_CONFIG_COUNT", "2");
	add(a, "--setenv", "GIT_CONFIG_KEY_0", "safe.directory");
	add(a, "--setenv", "GIT_CONFIG_VALUE_0", "*");
	add(a, "--setenv", "GIT_CONFIG_KEY_1", "gc.auto");
	add(a, "--setenv", "GIT_CONFIG_VALUE_1", "0");
	if (cwd)
		add(a, "--chdir", cwd, NULL);
	add(a, "--", NULL, NULL);
	if (sb->user)
		add_user(a, sb);
	/* See run.c: bwrap ignores SIGTERM, the command must not. */
	add(a, "env", "--default-signal=TERM", NULL);
	for (int i = 0; argv[i]; i++)
		add(a, argv[i], NULL, NULL);
	g_ptr_array_add(a, NULL);
	g_ptr_array_free(hide, TRUE);
	g_ptr_array_free(rw, TRUE);
	g_ptr_array_free(ro, TRUE);
	return (char **)g_ptr_array_free(a, FALSE);
}

static char **wrap_argv(const void *sb, char **argv, const char *cwd)
{
	return sandbox_argv(sb, argv, cwd);
}

void run_set_sandbox(const struct sandbox *sb)
{
	if (sb && sb->active)
		run_set_wrap(wrap_argv, sb);
	else
		run_set_wrap(NULL, NULL);
}

static bool listed_under(const GPtrArray *a, const char *path)
{
	for (guint i = 0; i < a->len; i++)
		if (under(path, a->pdata[i]))
			return true;
	return false;
}

/* A writable path: its real location, unless another one already covers it. */
static void add_rw(struct sandbox *sb, const char *path)
{
	char *real = realpath(path, NULL);

	if (!real)
		return;
	if (!listed_under(sb->rw, real))
		g_ptr_array_add(sb->rw, g_strdup(real));
	free(real);
}

/* ccache/ and guest-debs/ may be symlinks to a shared cache: bind the targets. */
static void add_cache_links(struct sandbox *sb, const char *cache)
{
	GDir *d = g_dir_open(cache, 0, NULL);
	const char *n;

	while (d && (n = g_dir_read_name(d))) {
		char *p = g_build_filename(cache, n, NULL);

		if (g_file_test(p, G_FILE_TEST_IS_SYMLINK) && g_file_test(p, G_FILE_TEST_IS_DIR))
			add_rw(sb, p);
		g_free(p);
	}
	if (d)
		g_dir_close(d);
}

static void add_hidden(struct sandbox *sb, const char *path)
{
	char *b = sandbox_blocked_ancestor(path, sb->uid, sb->gid);

	if (b && !listed_under(sb->hide, b))
		g_ptr_array_add(sb->hide, b);
	else
		g_free(b);
}

/*
 * The project, read-only again when it lies under a hidden directory or
 * under the fresh $TMPDIR (a CI job's clone in /var/tmp).
 */
static void add_ro(struct sandbox *sb, const char *top)
{
	char *real = realpath(top, NULL);

	if (real && (listed_under(sb->hide, real) || under(real, SANDBOX_TMP)))
		g_ptr_array_add(sb->ro, g_strdup(real));
	free(real);
}

/*
 * What kmatrix and its tools make at the cache's top.  Anything else there
 * (another tool's directory) is left to its owner.
 */
static const char *const cache_entries[] = {
	"lock", "trees", "build", "images", "ccache", "initramfs", "results", "abi", "work",
	"guest-debs", "kvm-probe.log", NULL
};

/* Not in cache_entries: root's record of the last walk stays root's. */
#define OWN_STAMP "own-stamp"

/* Is @path under one of @a's first @n entries? */
static bool under_any(char **a, int n, const char *path)
{
	for (int i = 0; i < n; i++)
		if (under(path, a[i]))
			return true;
	return false;
}

/* The cache's own entries, the results and the targets of the symlinks. */
static char **own_roots(const struct sandbox *sb, const char *real, const char *res)
{
	int n = 0, max = G_N_ELEMENTS(cache_entries) + sb->rw->len + 1;
	char **roots = g_new0(char *, max + 1);

	for (int i = 0; cache_entries[i]; i++)
		roots[n++] = g_build_filename(real, cache_entries[i], NULL);
	if (res && !under_any(roots, n, res))
		roots[n++] = g_strdup(res);
	for (guint i = 0; i < sb->rw->len; i++)
		if (strcmp(sb->rw->pdata[i], real) && !under_any(roots, n, sb->rw->pdata[i]))
			roots[n++] = g_strdup(sb->rw->pdata[i]);
	return roots;
}

/*
 * Give the build user what it writes: the cache's own entries, the results
 * and the targets of the cache's symlinks, or with !@full the results
 * alone.  Idempotent and done by every root run, under the lock: a cache
 * filled by root (an older kmatrix, a tool run by hand) keeps working.
 * own.c prunes what did not change.
 */
static gboolean own_all(struct sandbox *sb, const char *cache, const char *results,
			bool full, GError **err)
{
	gint64 t0 = g_get_monotonic_time();
	char *real = realpath(cache, NULL);
	char *res = realpath(results, NULL);
	struct own_walk w = { .uid = sb->uid, .gid = sb->gid };
	char *only[] = { res, NULL };
	char **roots;
	gboolean ok;

	if (!real || (!full && !res)) {
		w.failed = g_strdup(real ? results : cache);
		w.err = errno;
	} else if (own_entry(&w, real)) { /* the top alone: the rest is another tool's */
		roots = full ? own_roots(sb, real, res) : g_strdupv(only);
		w.stamp = g_build_filename(real, OWN_STAMP, NULL);
		own_trees(&w, (const char *const *)roots);
		g_free((char *)w.stamp);
		g_strfreev(roots);
	}
	sb->owned += w.given;
	sb->own_looked += w.looked;
	sb->own_pruned = w.pruned;
	sb->own_seconds += (g_get_monotonic_time() - t0) / 1e6;
	sb->own_full = full;
	/* a cache on a read-only mount: the path says which */
	if (w.failed)
		g_set_error(err, SANDBOX_ERROR, 1, "cannot give %s to the build user %s: %s",
			    w.failed, sb->user, strerror(w.err));
	ok = !w.failed;
	g_free(w.failed);
	free(real);
	free(res);
	return ok;
}

static int capset_read_search(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	d[CAP_TO_INDEX(CAP_DAC_READ_SEARCH)].effective |= CAP_TO_MASK(CAP_DAC_READ_SEARCH);
	return syscall(SYS_capset, &h, d);
}

/*
 * kmatrix's own files in the cache (results, logs, directories) are made
 * as the build user: created with its owner, and a symlink a build left
 * there cannot lead a root write elsewhere.  Reading and passing through
 * root's directories stays possible (CAP_DAC_READ_SEARCH); children are
 * exec'ed with root's credentials again and drop them in the sandbox.
 */
static gboolean drop_fs(struct sandbox *sb, GError **err)
{
	int n = 64;
	gid_t groups[64];

	if (getgrouplist(sb->user, sb->gid, groups, &n) < 0)
		n = 1, groups[0] = sb->gid;
	if (setgroups(n, groups) < 0 || (setfsgid(sb->gid), setfsgid(-1)) != (int)sb->gid ||
	    (setfsuid(sb->uid), setfsuid(-1)) != (int)sb->uid || capset_read_search() < 0) {
		g_set_error(err, SANDBOX_ERROR, 1, "cannot switch file access to the build user %s: %s",
			    sb->user, strerror(errno));
		return FALSE;
	}
	return TRUE;
}

static gboolean find_user(struct sandbox *sb, GError **err)
{
	const char *name = g_getenv("KMATRIX_BUILD_USER");
	struct passwd *pw;

	if (!name || !*name)
		name = SANDBOX_USER;
	pw = getpwnam(name);
	if (!pw || !pw->pw_uid) {
		g_set_error(err, SANDBOX_ERROR, 2,
			    "the build user %s does not exist (or is root): run tools/setup-host as root, which creates it",
			    name);
		return FALSE;
	}
	sb->user = g_strdup(name);
	sb->uid = pw->pw_uid;
	sb->gid = pw->pw_gid;
	return TRUE;
}

static gboolean find_tools(bool root, GError **err)
{
	const char *tools[] = { "bwrap", root ? "setpriv" : NULL };
	const char *pkg[] = { "bubblewrap", "util-linux" };

	for (int i = 0; i < 2 && tools[i]; i++) {
		char *p = g_find_program_in_path(tools[i]);

		g_free(p);
		if (!p) {
			g_set_error(err, SANDBOX_ERROR, 2,
				    "%s is missing: run `apt-get install %s` (or tools/setup-host)",
				    tools[i], pkg[i]);
			return FALSE;
		}
	}
	return TRUE;
}

gboolean sandbox_open(struct sandbox *sb, const char *cache, const char *results,
		      const char *top, bool own, GError **err)
{
	bool root = geteuid() == 0;

	memset(sb, 0, sizeof(*sb));
	sb->rw = g_ptr_array_new_with_free_func(g_free);
	sb->ro = g_ptr_array_new_with_free_func(g_free);
	sb->hide = g_ptr_array_new_with_free_func(g_free);
	if (g_getenv(SANDBOX_ENV)) {
		sb->inherited = true;
		return TRUE;
	}
	if (!find_tools(root, err) || (root && !find_user(sb, err)))
		return FALSE;
	if (!root) {
		sb->uid = getuid();
		sb->gid = getgid();
	}
	g_mkdir_with_parents(cache, 0755);
	g_mkdir_with_parents(results, 0755);
	add_rw(sb, cache);
	add_rw(sb, results);
	add_cache_links(sb, cache);
	for (guint i = 0; i < sb->rw->len; i++)
		add_hidden(sb, sb->rw->pdata[i]);
	add_hidden(sb, top);
	add_ro(sb, top);
	sb->kvm = g_file_test("/dev/kvm", G_FILE_TEST_EXISTS);
	if (root && ((own && !own_all(sb, cache, results, true, err)) || !drop_fs(sb, err)))
		return FALSE;
	sb->active = true;
	return TRUE;
}

gboolean sandbox_own(struct sandbox *sb, const char *cache, const char *results,
		     bool full, GError **err)
{
	gboolean ok;

	if (!sb->active || !sb->user || sb->own_full)
		return TRUE;
	/* chown needs root's file access back: CAP_CHOWN returns with fsuid 0 */
	setfsuid(0);
	setfsgid(0);
	ok = own_all(sb, cache, results, full, err);
	return drop_fs(sb, ok ? err : NULL) && ok;
}

void sandbox_show(struct sandbox *sb, const char *path)
{
	char *real = realpath(path, NULL);

	if (!real)
		return;
	add_hidden(sb, real);
	g_ptr_array_add(sb->ro, g_strdup(real));
	free(real);
}

void sandbox_clear(struct sandbox *sb)
{
	g_free(sb->user);
	if (sb->rw)
		g_ptr_array_free(sb->rw, TRUE);
	if (sb->ro)
		g_ptr_array_free(sb->ro, TRUE);
	if (sb->hide)
		g_ptr_array_free(sb->hide, TRUE);
	memset(sb, 0, sizeof(*sb));
}

static json_t *strings(const GPtrArray *a)
{
	json_t *j = json_array();

	for (guint i = 0; a && i < a->len; i++)
		json_array_append_new(j, json_string(a->pdata[i]));
	return j;
}

json_t *sandbox_json(const struct sandbox *sb)
{
	if (sb->inherited)
		return json_pack("{s:s}", "mode", "inherited");
	return json_pack("{s:s, s:s?, s:i, s:b, s:o, s:o, s:b, s:f, s:i, s:i, s:b}",
			 "mode", sb->user ? "bwrap+setpriv" : "bwrap",
			 "user", sb->user, "uid", (int)sb->uid, "network", sb->network,
			 "writable", strings(sb->rw), "hidden", strings(sb->hide),
			 "kvm", sb->kvm, "own_seconds", sb->own_seconds,
			 "owned", (int)sb->owned, "own_looked", (int)sb->own_looked,
			 "own_pruned", sb->own_pruned);
}
