// SPDX-License-Identifier: GPL-2.0
/*
 * own.c: give directory trees to the build user, looking only at the
 * entries of directories changed since the last complete walk (own.h).
 *
 * A new, removed or renamed entry changes its directory's ctime; so does
 * giving the directory to another owner.  What a pruned walk misses is a
 * file whose owner was changed in place (chown) in a directory that did
 * not change and is the build user's: no kmatrix stage and no tool of the
 * project does that, and removing the stamp makes the next walk whole.
 */
#include <errno.h>
#include <fts.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "chaos.h"
#include "own.h"

/* File times come from a coarse clock, which may lag the real one. */
#define SLACK_NS 1000000000LL

struct state {
	struct own_walk *w;
	gint64 since; /* entries of directories changed since: looked at */
};

static gint64 ns(const struct timespec *t)
{
	return t->tv_sec * 1000000000LL + t->tv_nsec;
}

static gint root_cmp(gconstpointer a, gconstpointer b, gpointer unused)
{
	return strcmp(a, b);
}

/*
 * The stamp: "<uid> <gid>", then "<start, ns> <root>" for each root whose
 * last walk was complete.  Per root, so that a run with other results
 * (each suite of make check has its own) does not make the next run walk
 * every tree whole again.
 */
static GTree *stamp_read(const struct own_walk *w)
{
	GTree *t = g_tree_new_full(root_cmp, NULL, g_free, g_free);
	char *text = NULL, **lines;
	unsigned int uid, gid;
	int n = 0;

	if (!w->stamp || !g_file_get_contents(w->stamp, &text, NULL, NULL))
		return t;
	lines = g_strsplit(text, "\n", -1);
	if (sscanf(lines[0], "%u %u%n", &uid, &gid, &n) == 2 && !lines[0][n] &&
	    uid == w->uid && gid == w->gid) {
		for (int i = 1; lines[i]; i++) {
			long long start;
			int at = 0;

			if (sscanf(lines[i], "%lld %n", &start, &at) == 1 &&
			    at && lines[i][at] == '/')
				g_tree_replace(t, g_strdup(lines[i] + at),
					       g_memdup2(&start,
							 sizeof(start)));
		}
	}
	g_strfreev(lines);
	g_free(text);
	return t;
}

static gint64 stamp_since(GTree *stamp, const char *root)
{
	long long *start = g_tree_lookup(stamp, root);

	return start ? *start - SLACK_NS : G_MININT64;
}

/*
 * A root that is not there (results of a removed run, or not made yet)
 * is dropped: it is new when it comes.
 */
static gboolean stamp_line(gpointer root, gpointer start, gpointer s)
{
	if (!access(root, F_OK))
		g_string_append_printf(s, "%lld %s\n", *(long long *)start,
				       (char *)root);
	return FALSE;
}

/* Not fatal: without it the next walk is whole, as the first one was. */
static void stamp_write(const struct own_walk *w, GTree *stamp)
{
	GString *s = g_string_new(NULL);

	g_string_printf(s, "%u %u\n", (unsigned int)w->uid,
			(unsigned int)w->gid);
	g_tree_foreach(stamp, stamp_line, s);
	if (w->stamp)
		g_file_set_contents(w->stamp, s->str, s->len, NULL);
	g_string_free(s, TRUE);
}

static void fail(struct state *s, const char *path, int err)
{
	if (s->w->failed)
		return;
	s->w->failed = g_strdup(path);
	s->w->err = err;
}

static void give(struct state *s, const char *path, const struct stat *st)
{
	s->w->looked++;
	if (st->st_uid == s->w->uid && st->st_gid == s->w->gid)
		return;
	if (lchown(path, s->w->uid, s->w->gid) < 0)
		fail(s, path, errno);
	else
		s->w->given++;
	chaos_point("own");
}

/* Are a directory's entries to be looked at? */
static bool fresh(const struct state *s, const struct stat *st)
{
	return ns(&st->st_ctim) >= s->since || st->st_uid != s->w->uid ||
	       st->st_gid != s->w->gid;
}

/*
 * Give the entry @p.  Under FTS_NOSTAT glibc keeps no stat buffer at all,
 * for directories too (fts_statp is NULL): the entry is stat'd here.
 */
static bool give_entry(struct state *s, FTSENT *p, bool *dir_fresh)
{
	struct stat st;

	if (lstat(p->fts_accpath, &st) < 0) {
		if (errno != ENOENT) /* gone since readdir: nothing to give */
			fail(s, p->fts_path, errno);
		return false;
	}
	if (dir_fresh)
		*dir_fresh = fresh(s, &st);
	give(s, p->fts_path, &st);
	return true;
}

static void entry(struct state *s, FTSENT *p)
{
	bool dir_fresh = false;

	switch (p->fts_info) {
	case FTS_D:
		give_entry(s, p, &dir_fresh);
		p->fts_number = dir_fresh;
		break;
	case FTS_DP:
		break;
	case FTS_NS:
		if (p->fts_level > 0 || p->fts_errno != ENOENT)
			fail(s, p->fts_path, p->fts_errno);
		break;
	case FTS_DNR:
	case FTS_ERR:
		fail(s, p->fts_path, p->fts_errno);
		break;
	default: /* a file, a link: looked at in a fresh directory */
		if (p->fts_level == 0 || p->fts_parent->fts_number)
			give_entry(s, p, NULL);
	}
}

static void walk(struct state *s, const char *root)
{
	char *const paths[] = { (char *)root, NULL };
	FTS *fts = fts_open(paths,
			    FTS_PHYSICAL | FTS_NOCHDIR | FTS_NOSTAT | FTS_XDEV,
			    NULL);
	FTSENT *p;

	if (!fts) {
		fail(s, root, errno);
		return;
	}
	errno = 0;
	while ((p = fts_read(fts)))
		entry(s, p);
	if (errno)
		fail(s, root, errno);
	fts_close(fts);
}

bool own_entry(struct own_walk *w, const char *path)
{
	struct state s = { .w = w };
	struct stat st;

	if (lstat(path, &st) < 0)
		fail(&s, path, errno);
	else
		give(&s, path, &st);
	return !w->failed;
}

bool own_trees(struct own_walk *w, const char *const *roots)
{
	GTree *stamp = stamp_read(w);
	struct timespec now;
	long long start;

	clock_gettime(CLOCK_REALTIME, &now);
	start = ns(&now);
	for (int i = 0; roots[i]; i++) {
		struct state s = { .w = w,
				   .since = stamp_since(stamp, roots[i]) };
		bool whole_before = !w->failed;

		w->pruned |= s.since != G_MININT64;
		walk(&s, roots[i]);
		if (whole_before && !w->failed)
			g_tree_replace(stamp, g_strdup(roots[i]),
				       g_memdup2(&start, sizeof(start)));
		else
			g_tree_remove(stamp, roots[i]);
	}
	stamp_write(w, stamp);
	g_tree_destroy(stamp);
	return !w->failed;
}
