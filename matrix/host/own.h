/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Giving directory trees to the build user: root's half of the sandbox's
 * hand-over.  Every run started as root does it, so the walk is pruned:
 * the entries of a directory are looked at only when the directory
 * changed since the last complete walk (its ctime, which tar, cp -a and
 * touch cannot set back) or is not the build user's.  A directory is
 * always looked at, and always given.
 */
#ifndef KMATRIX_OWN_H
#define KMATRIX_OWN_H

#include <stdbool.h>
#include <sys/types.h>
#include <glib.h>

struct own_walk {
	uid_t uid;
	gid_t gid;
	const char *stamp; /* record of the last complete walk; NULL: walk all */
	/* filled in, added to by each call: start with them zero */
	guint given; /* entries whose owner was changed */
	guint looked; /* entries looked at (directories included) */
	bool pruned; /* the stamp held for one root or more */
	char *failed; /* the first entry it could not give (free it) */
	int err; /* and why: an errno */
};

/*
 * Give everything under @roots (NULL-terminated; a missing one is skipped)
 * to w->uid:w->gid, not crossing mount points and not following symlinks.
 * The stamp records, per root, the start of its last walk that gave
 * everything; a root not walked keeps its record.  A walk killed halfway
 * leaves the previous stamp, and its directories are looked at again;
 * a root that failed loses its record.  False when an entry could not be
 * given: see w->failed.
 */
bool own_trees(struct own_walk *w, const char *const *roots);

/* Give @path alone, not what is under it: the same test, count and error. */
bool own_entry(struct own_walk *w, const char *path);

#endif
