/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel trees: <cache>/trees/<v>, one git repository per version laid from
 * the installed linux-source package exactly as matrix/DESIGN.md "Trees"
 * says, so the commit ids are the same on every machine.
 */
#ifndef KMATRIX_TREE_H
#define KMATRIX_TREE_H

#include <glib.h>
#include "conf.h"

enum tree_state {
	TREE_READY,
	TREE_SETUP_ERROR,	/* package or tarball missing: *msg says what to install */
	TREE_FAILED,		/* laying failed (disk full, tool missing): infra-error */
};

char *tree_dir(const char *cache, const char *version);
/*
 * Lay the tree unless it exists for the installed package version and is
 * whole: its refs reach every commit and tree, the blobs the steps change
 * read back, and no use of it found it damaged (tree_mark_damaged()).  A
 * failed laying removes what it laid; *msg names the path and the cause.
 */
enum tree_state tree_prepare(const char *cache, const struct version_conf *v,
			     char **msg);
/*
 * Why tree_prepare() would lay (or re-lay, or check out anew) @v's tree:
 * "not laid yet", another package version, a ref that moved; NULL when
 * it would only check it (a missing package is its set-up error, not a
 * laying).  Reads and writes nothing of the cache: kmatrix plan asks.
 */
char *tree_unlaid(const char *cache, const struct version_conf *v);
/* The documented procedure itself: @dir must not exist; 0 on success. */
int tree_lay(const char *dir, const char *tarball, const char *package,
	     const char *pkgver, const char *log);
/*
 * Say that git found @dir's objects damaged while using it (@why, its
 * words), and have the next tree_prepare() lay it again.
 */
void tree_mark_damaged(const char *dir, const char *why);
/* The line of a git log that says an object or the index is damaged, or NULL. */
char *tree_damage_line(const char *log);
/* The package version recorded in the tree's stock commit, or NULL. */
char *tree_stock_version(const char *dir);

/*
 * The end of a run in the tree @dir: HEAD back on branch matrix when it is
 * at matrix's tip, else left detached where it is (the last commit built).
 * TRUE when HEAD is on matrix afterwards.
 */
gboolean tree_release(const char *dir);

/* git -C dir args... with its stdout, or NULL on failure. */
char *tree_git(const char *dir, ...) G_GNUC_NULL_TERMINATED;

/*
 * The steps' state of a laid tree: what apply_steps() recorded of each
 * step (its commit, or why it failed), kept in the tree's .git.
 */
char *tree_steps_file(const char *tree);
/*
 * What the stock tree @dir was laid from, as the file system shows it:
 * the package, its tarball and the tarball's inode, size and times.  A
 * package upgrade replaces the tarball, and the string changes with it.
 * NULL for a git tree, a tree marked damaged or a tarball not there.
 */
char *tree_stock_identity(const char *dir, const struct version_conf *v);
/* The step commits recorded in @tree's steps' state (NULL-terminated). */
char **tree_recorded_commits(const char *tree);

#endif
