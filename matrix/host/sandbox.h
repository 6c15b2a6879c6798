/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sandbox of every child kmatrix runs (run.c wraps each argv): a
 * series' Makefiles, Kconfig and scripts are untrusted code.  bubblewrap
 * gives the child no network, a read-only view of the host, a private
 * $TMPDIR and write access to the cache and results directories only.  Started as
 * root, kmatrix also runs the child as the build user (setpriv inside the
 * sandbox), gives the cache to that user and does its own writes there as
 * that user, so nothing a build leaves behind can make root write elsewhere.
 */
#ifndef KMATRIX_SANDBOX_H
#define KMATRIX_SANDBOX_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <glib.h>
#include <jansson.h>

#define SANDBOX_ENV "KMATRIX_SANDBOX"
#define SANDBOX_USER "kmatrix"
/* The sandbox's private, writable temporary directory ($TMPDIR). */
#define SANDBOX_TMP "/var/tmp"

struct sandbox {
	bool active;		/* children are wrapped */
	bool inherited;		/* we already run inside a kmatrix sandbox */
	char *user;		/* build user when kmatrix runs as root; else NULL */
	uid_t uid;
	gid_t gid;
	GPtrArray *rw;		/* real paths bound read-write: cache, results */
	GPtrArray *ro;		/* real paths bound read-only under a hidden directory */
	GPtrArray *hide;	/* directories the build user cannot search: fresh tmpfs */
	bool kvm;		/* /dev/kvm is passed through */
	bool network;		/* keep the host's network (a distcc farm) */
	double own_seconds;	/* what giving the cache to the build user cost */
	guint owned;		/* entries whose owner was changed */
	guint own_looked;	/* entries it looked at */
	bool own_pruned;	/* only directories changed since the last walk */
	bool own_full;		/* the whole cache was walked, not the results alone */
};

/* Can uid/gid search (pass through) a directory with this stat? */
bool sandbox_searchable(const struct stat *st, uid_t uid, gid_t gid);
/*
 * The first ancestor of @path (itself included) that uid/gid cannot search,
 * or NULL when every one can.  Newly allocated.
 */
char *sandbox_blocked_ancestor(const char *path, uid_t uid, gid_t gid);

/*
 * The argv that runs @argv (in @cwd, NULL: unchanged) inside the sandbox.
 * A pure function of @sb: the same sandbox gives the same wrapper.
 */
char **sandbox_argv(const struct sandbox *sb, char *const *argv, const char *cwd);

/*
 * From now on every child (lib/run.h) runs inside @sb; NULL or an
 * inactive sandbox: children run as they are (unit tests, report verbs).
 */
void run_set_sandbox(const struct sandbox *sb);

/*
 * Set the sandbox up for a run on @cache and @results (either may not exist
 * yet) reading the project @top.  As root: look up the build user, give it
 * the cache and results (when @own: only under the cache's lock), and
 * switch kmatrix's own file access to it.
 * Inside a kmatrix sandbox (kmatrix bisect-step under git bisect run): no
 * second wrapper.  FALSE with @err naming the fix when it cannot be done.
 */
gboolean sandbox_open(struct sandbox *sb, const char *cache, const char *results,
		      const char *top, bool own, GError **err);
/*
 * As root, give the build user the results (@full false) or the whole
 * cache, later than sandbox_open(@own false): a run that builds nothing
 * writes only its results and need not walk the trees.  A no-op once the
 * whole cache was walked, or when not root.
 */
gboolean sandbox_own(struct sandbox *sb, const char *cache, const char *results,
		     bool full, GError **err);
/*
 * Show @path read-only too, however the build user could reach it (a test's
 * fixture in a private directory under /tmp, say).
 */
void sandbox_show(struct sandbox *sb, const char *path);
void sandbox_clear(struct sandbox *sb);
/* What run.json records about the sandbox. */
json_t *sandbox_json(const struct sandbox *sb);

#endif
