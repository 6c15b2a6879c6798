// SPDX-License-Identifier: GPL-2.0
/*
 * Build directory damage.  make decides by mtimes alone, so a file cut
 * short or overwritten after it was made (a crash mid-write, a full disk, a
 * hand) is trusted as long as it is newer than its sources: a truncated
 * object fails the link as if the kernel did not build, and a damaged image
 * boots as if the kernel did not boot.  Neither may become a verdict.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builddir.h"
#include "cache.h"
#include "cell.h"
#include "key.h"
#include "run.h"
#include "stagelog.h"

#define STAMP_GROUP "build"

static char *stamp_path(const struct cell *c)
{
	return g_build_filename(c->build_dir, ".kmatrix-build", NULL);
}

/* The files the stamp vouches for, by the key it keeps each under. */
static char *stamped_file(const struct cell *c, const char *key)
{
	if (!strcmp(key, "config"))
		return g_build_filename(c->build_dir, ".config", NULL);
	return g_build_filename(c->build_dir, c->a->image, NULL);
}

static const char *const stamp_keys[] = { "config", "image", NULL };

static char *unfinished_path(const struct cell *c)
{
	return g_build_filename(c->build_dir, ".kmatrix-building", NULL);
}

void builddir_begin(const struct cell *c)
{
	char *p = stamp_path(c);
	char *u = unfinished_path(c);

	unlink(p);
	g_mkdir_with_parents(c->build_dir, 0755);
	/* no mark costs a clean-up after a kill, never a verdict */
	unlink(u);
	g_file_set_contents(u, "", 0, NULL);
	g_free(u);
	g_free(p);
}

void builddir_end(const struct cell *c)
{
	char *u = unfinished_path(c);

	unlink(u);
	g_free(u);
}

static bool newer(const struct stat *st, const struct stat *than)
{
	return st->st_mtim.tv_sec > than->st_mtim.tv_sec ||
	       (st->st_mtim.tv_sec == than->st_mtim.tv_sec &&
		st->st_mtim.tv_nsec >= than->st_mtim.tv_nsec);
}

/* Remove the files under @dir written since @since, but @keep; how many, or -1. */
static int remove_newer(const char *dir, const struct stat *since,
			const char *keep)
{
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *n;
	int count = 0;

	if (!d)
		return -1;
	while (count >= 0 && (n = g_dir_read_name(d))) {
		char *p = g_build_filename(dir, n, NULL);
		struct stat st;

		if (lstat(p, &st) != 0) {
			/* gone since the listing: nothing to remove */
		} else if (S_ISDIR(st.st_mode)) {
			int sub = remove_newer(p, since, keep);

			count = sub < 0 ? -1 : count + sub;
		} else if (strcmp(p, keep) && newer(&st, since)) {
			count = unlink(p) == 0 ? count + 1 : -1;
		}
		g_free(p);
	}
	g_dir_close(d);
	return count;
}

/*
 * make deletes a half-made target when it is stopped by a signal, or
 * fails, but not when it is killed outright: the file it was writing stays,
 * newer than its sources, and the next make trusts it (a build cut by
 * SIGKILL once booted as "no console output").
 */
static int remove_unfinished(struct cell *c)
{
	char *u = unfinished_path(c);
	struct stat since;
	int n = 0;

	if (stat(u, &since) == 0) {
		n = remove_newer(c->build_dir, &since, u);
		if (n >= 0)
			g_printerr(
				"kmatrix: %s %s %s: the last build here never ended: "
				"the %d files it wrote are removed, to be made again\n",
				c->v->name, c->a->name, c->step->id, n);
		if (n >= 0)
			unlink(u);
		else
			outcome_set(
				&c->out, "infra-error",
				"cannot remove what an unfinished build wrote in %s: %s",
				c->build_dir, g_strerror(errno));
	}
	g_free(u);
	return n < 0 ? -1 : 0;
}

void builddir_stamp(const struct cell *c)
{
	GKeyFile *k = g_key_file_new();
	char *p = stamp_path(c);

	for (int i = 0; stamp_keys[i]; i++) {
		char *f = stamped_file(c, stamp_keys[i]);
		char *sha = key_file_sha256(f);

		if (sha)
			g_key_file_set_string(k, STAMP_GROUP, stamp_keys[i], sha);
		g_free(sha);
		g_free(f);
	}
	/* no stamp costs a check, never a verdict */
	g_key_file_save_to_file(k, p, NULL);
	g_key_file_free(k);
	g_free(p);
}

/* A file that is there but not what the stamp says was made; missing is fine. */
static char *differs(const struct cell *c, GKeyFile *k, const char *key)
{
	char *want = g_key_file_get_string(k, STAMP_GROUP, key, NULL);
	char *f = stamped_file(c, key);
	char *have = want ? key_file_sha256(f) : NULL;
	char *why = NULL;

	if (have && strcmp(have, want))
		why = g_strdup_printf("%s is not the file the last build made (sha256 %.12s, made %.12s)",
				      f, have, want);
	g_free(want);
	g_free(have);
	g_free(f);
	return why;
}

/*
 * What the linker, ar or make say of an object or a .cmd file that is not
 * whole (ld of a thin archive's member: "member lib/lockref.o in archive
 * is not an object").  A kernel's own error never reads so: its sources are compiled
 * afresh, and only files make left in place can be damaged.
 */
static gboolean damage_line(const char *l)
{
	return strstr(l, "file truncated") || strstr(l, "file format not recognized") ||
	       strstr(l, "file not recognized") || strstr(l, "in archive is not an object") ||
	       strstr(l, "malformed archive") || (strstr(l, ".cmd:") && strstr(l, "*** "));
}

char *builddir_damaged_object(const char *log)
{
	char *found = stagelog_first_line(log, damage_line);

	return found ? g_strstrip(found) : NULL;
}

/*
 * A stamped file is made again without the objects: configure writes
 * .config anew (tinyconfig, the fragment, olddefconfig) and kbuild
 * recompiles what a changed option touches; make links a missing image
 * again from vmlinux.  Only a damaged object needs the directory cleaned.
 */
int builddir_repair(struct cell *c)
{
	GKeyFile *k;
	char *p;
	int rc = remove_unfinished(c);

	if (rc != 0)
		return rc;
	k = g_key_file_new();
	p = stamp_path(c);

	if (g_key_file_load_from_file(k, p, G_KEY_FILE_NONE, NULL))
		for (int i = 0; stamp_keys[i] && rc == 0; i++) {
			char *why = differs(c, k, stamp_keys[i]);
			char *f = stamped_file(c, stamp_keys[i]);

			if (why)
				g_printerr("kmatrix: %s %s %s: the build directory is damaged: %s; removed, to be made again\n",
					   c->v->name, c->a->name, c->step->id, why);
			if (why && unlink(f) < 0) {
				outcome_set(&c->out, "infra-error", "cannot remove the damaged %s: %s",
					    f, g_strerror(errno));
				rc = -1;
			}
			g_free(why);
			g_free(f);
		}
	g_key_file_free(k);
	g_free(p);
	return rc;
}

/* A path a damage line may name: an object, an archive or a .cmd file. */
static bool build_file_name(const char *t)
{
	return *t && *t != '/' && !strstr(t, "..") &&
	       (g_str_has_suffix(t, ".o") || g_str_has_suffix(t, ".a") ||
		g_str_has_suffix(t, ".cmd"));
}

/*
 * The file a damage line names, relative to the build directory: a thin
 * archive's member ("member lib/lockref.o in archive"), else the first
 * object, archive or .cmd file it names; NULL when it names none.
 */
char *builddir_damaged_file(const char *line)
{
	const char *m = strstr(line, "member ");
	char **t = g_strsplit_set(m ? m + strlen("member ") : line, " :", -1);
	char *found = NULL;

	for (int i = 0; t[i] && !found; i++)
		if (build_file_name(t[i]))
			found = g_strdup(t[i]);
	g_strfreev(t);
	return found;
}

/*
 * Remove @rel of the build directory when it is a regular file there:
 * the directory is the untrusted build's, so a component that leads out
 * of it (a symlink) is refused, not followed.
 */
static int remove_inside(const struct cell *c, const char *rel)
{
	char *p = g_build_filename(c->build_dir, rel, NULL);
	char *parent = g_path_get_dirname(p);
	struct stat st;
	int rc = -1;

	if (cache_path_under(parent, c->build_dir) && lstat(p, &st) == 0 && S_ISREG(st.st_mode))
		rc = unlink(p);
	g_free(parent);
	g_free(p);
	return rc;
}

/* kbuild's dir/.name.o.cmd is the command of dir/name.o. */
static char *cmd_target(const char *rel)
{
	char *dir = g_path_get_dirname(rel);
	char *base = g_path_get_basename(rel);
	char *t = NULL;

	if (base[0] == '.' && g_str_has_suffix(base, ".cmd")) {
		base[strlen(base) - strlen(".cmd")] = '\0';
		t = g_build_filename(dir, base + 1, NULL);
	}
	g_free(base);
	g_free(dir);
	return t;
}

/*
 * make trusts a damaged file for as long as it is newer than its
 * sources, and remakes a missing one: removing the file the damage line
 * names builds it again and keeps every other object.
 */
int builddir_remove_damaged(struct cell *c, const char *why)
{
	char *rel = builddir_damaged_file(why);
	char *target = rel ? cmd_target(rel) : NULL;
	int rc = rel ? remove_inside(c, rel) : -1;

	if (rc == 0 && target)
		remove_inside(c, target);
	if (rc == 0)
		g_printerr("kmatrix: %s %s %s: the build directory is damaged: %s; %s removed, to be made again\n",
			   c->v->name, c->a->name, c->step->id, why, rel);
	g_free(target);
	g_free(rel);
	return rc;
}

int builddir_clean(struct cell *c, const char *why)
{
	char *argv[] = { "rm", "-rf", c->build_dir, NULL };
	struct child ch = { .argv = argv };
	int rc;

	g_printerr("kmatrix: %s %s %s: the build directory is damaged: %s; building it again from clean\n",
		   c->v->name, c->a->name, c->step->id, why);
	rc = run_command(&ch);
	if (rc != 0 && !run_stop_signal())
		outcome_set(&c->out, "infra-error", "cannot remove the damaged build directory %s",
			    c->build_dir);
	return rc;
}
