// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fts.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"
#include "stagelog.h"
#include "tree.h"

char *tree_dir(const char *cache, const char *version)
{
	return g_build_filename(cache, "trees", version, NULL);
}

static char **vargv(const char *first, va_list ap)
{
	GPtrArray *a = g_ptr_array_new();
	const char *s;

	g_ptr_array_add(a, g_strdup(first));
	while ((s = va_arg(ap, const char *)))
		g_ptr_array_add(a, g_strdup(s));
	g_ptr_array_add(a, NULL);
	return (char **)g_ptr_array_free(a, FALSE);
}

char *tree_git(const char *dir, ...)
{
	va_list ap;
	char **argv;
	char *out;

	va_start(ap, dir);
	argv = vargv("git", ap);
	va_end(ap);
	out = run_capture(argv, dir, NULL);
	g_strfreev(argv);
	return out;
}

/*
 * A checkout rewrites every file that differs, and the new mtimes make the
 * next incremental build recompile whatever includes them, though their
 * content is back to what was built.  So a run that did not end on
 * matrix's tip (--steps, a bisect) leaves HEAD detached there, and one
 * that did only points HEAD at the branch again: no file is written, and
 * a run that checked nothing out (a no-op) costs a read of .git/HEAD.
 */
gboolean tree_release(const char *dir)
{
	char *file = g_build_filename(dir, ".git", "HEAD", NULL);
	char *text = NULL, *head = NULL, *tip = NULL, *out = NULL;
	gboolean on = g_file_get_contents(file, &text, NULL, NULL) &&
		      !strcmp(g_strstrip(text), "ref: refs/heads/matrix");

	if (!on) {
		head = tree_git(dir, "rev-parse", "-q", "--verify", "HEAD^{commit}", NULL);
		tip = tree_git(dir, "rev-parse", "-q", "--verify", "refs/heads/matrix^{commit}", NULL);
		if (head && tip && !strcmp(head, tip))
			out = tree_git(dir, "symbolic-ref", "HEAD", "refs/heads/matrix", NULL);
		on = out != NULL;
	}
	g_free(file);
	g_free(text);
	g_free(head);
	g_free(tip);
	g_free(out);
	return on;
}

/* Run argv in cwd with its output appended to log; TRUE on exit 0. */
static gboolean step(const char *cwd, char **env, const char *log, ...)
{
	struct child c = { .cwd = cwd, .env = env, .log = log };
	va_list ap;
	int rc;

	va_start(ap, log);
	c.argv = vargv(va_arg(ap, const char *), ap);
	va_end(ap);
	rc = run_command(&c);
	g_strfreev(c.argv);
	return rc == 0;
}

static char **fixed_identity_env(void)
{
	static const char *const vars[][2] = {
		{ "GIT_AUTHOR_NAME", "kmatrix" }, { "GIT_COMMITTER_NAME", "kmatrix" },
		{ "GIT_AUTHOR_EMAIL", "kmatrix@invalid" },
		{ "GIT_COMMITTER_EMAIL", "kmatrix@invalid" },
		{ "GIT_AUTHOR_DATE", "@0 +0000" }, { "GIT_COMMITTER_DATE", "@0 +0000" },
	};
	char **env = g_get_environ();

	for (size_t i = 0; i < G_N_ELEMENTS(vars); i++)
		env = g_environ_setenv(env, vars[i][0], vars[i][1], TRUE);
	return env;
}

int tree_lay(const char *dir, const char *tarball, const char *package,
	     const char *pkgver, const char *log)
{
	char **env = fixed_identity_env();
	char *subject = g_strdup_printf("stock: %s %s", package, pkgver);
	char *origin = g_strdup_printf("Pristine tree unpacked from %s.", tarball);
	char *trailer = g_strdup_printf("Package: %s\nVersion: %s", package, pkgver);
	gboolean ok;

	ok = g_mkdir_with_parents(dir, 0755) == 0 &&
	     step(NULL, NULL, log, "git", "init", "-q", "-b", "kmatrix", dir, NULL) &&
	     step(NULL, NULL, log, "tar", "-C", dir, "-xJf", tarball,
		  "--strip-components=1", NULL) &&
	     step(dir, NULL, log, "git", "add", "-A", "-f", ".", NULL) &&
	     step(dir, env, log, "git", "-c", "commit.gpgsign=false", "commit", "-q",
		  "-m", subject, "-m", origin, "-m", trailer, NULL) &&
	     step(dir, NULL, log, "git", "tag", "stock", NULL);
	g_strfreev(env);
	g_free(subject);
	g_free(origin);
	g_free(trailer);
	return ok ? 0 : -1;
}

char *tree_stock_version(const char *dir)
{
	char *body = tree_git(dir, "log", "-1", "--format=%B", "stock", NULL);
	char **lines, *ver = NULL;

	if (!body)
		return NULL;
	lines = g_strsplit(body, "\n", -1);
	for (int i = 0; lines[i] && !ver; i++)
		if (g_str_has_prefix(lines[i], "Version: "))
			ver = g_strdup(g_strstrip(lines[i] + strlen("Version: ")));
	g_strfreev(lines);
	g_free(body);
	return ver;
}

static char *package_version(const char *package)
{
	char *argv[] = { "dpkg-query", "-W", "-f=${Version}", (char *)package, NULL };
	char *v = run_capture(argv, NULL, NULL);

	if (v && !*v)
		g_clear_pointer(&v, g_free);
	return v;
}

static gboolean remove_tree(const char *dir, const char *log)
{
	return !g_file_test(dir, G_FILE_TEST_EXISTS) ||
	       step(NULL, NULL, log, "rm", "-rf", dir, NULL);
}

/* Of git's complaint, the line that names the object: fsck's "missing blob ...". */
static const char *telling_line(const char *text)
{
	static const char *const starts[] = { "missing ", "error: ", "fatal: ", NULL };

	for (int i = 0; starts[i]; i++) {
		const char *l = strstr(text, starts[i]);

		while (l && l != text && l[-1] != '\n')
			l = strstr(l + 1, starts[i]);
		if (l)
			return l;
	}
	return text;
}

/*
 * What git said when @argv failed in @dir (its first line), or NULL when it
 * did not.  @out: where its stdout goes, NULL with what it says.
 */
static char *git_complaint(const char *dir, char **argv, const char *out)
{
	char *text = NULL, *why = NULL;
	struct child c = { .argv = argv, .cwd = dir, .out = out };

	/* not done: no temporary file, so nothing ran to complain */
	if (run_into_temp(&c, true, &text) != 0 && c.done && !c.interrupted) {
		why = g_strdup(text && *g_strstrip(text) ? telling_line(text) : "git failed");
		why[strcspn(why, "\n")] = '\0';
	}
	g_free(text);
	return why;
}

/* The directory a tree is laid in, made here so that its errno can be told. */
static char *make_tree_dir(const char *tmp)
{
	char *parent = g_path_get_dirname(tmp);
	char *why = NULL;

	if (g_mkdir_with_parents(parent, 0755) < 0)
		why = g_strdup_printf("cannot create %s: %s", parent, g_strerror(errno));
	else if (mkdir(tmp, 0755) < 0)
		why = g_strdup_printf("cannot create %s: %s", tmp, g_strerror(errno));
	g_free(parent);
	return why;
}

/*
 * Why laying in @tmp failed, in the host's words.  A full disk may leave
 * no room for the log to say so: a file system with almost nothing free
 * says it too, and how full it is goes in the message either way.
 */
static char *lay_failure(const char *tmp, const char *log)
{
	char *text = NULL, *parent = g_path_get_dirname(tmp), *full, *why;
	const char *cause;

	if (!g_file_get_contents(log, &text, NULL, NULL))
		text = g_strdup("");
	cause = stagelog_host_cause(text, parent, &full);
	why = g_strdup_printf("laying %s failed%s%s (%s%ssee %s)", tmp, cause ? ": " : "",
			      cause ? cause : "", full ? full : "", full ? "; " : "", log);
	g_free(full);
	g_free(text);
	g_free(parent);
	return why;
}

static enum tree_state lay(const char *cache, const struct version_conf *v,
			   const char *dir, const char *pkgver, char **msg)
{
	char *tmp = g_strconcat(dir, ".tmp", NULL);
	char *log = g_strconcat(dir, ".lay.log", NULL);
	enum tree_state st = TREE_FAILED;

	unlink(log);
	g_printerr("kmatrix: laying %s from %s (%s %s)\n", dir, v->tarball,
		   v->package, pkgver);
	if (!remove_tree(tmp, log) || !remove_tree(dir, log))
		*msg = g_strdup_printf("cannot remove the old tree %s (see %s)", dir, log);
	else if ((*msg = make_tree_dir(tmp)))
		;
	else if (tree_lay(tmp, v->tarball, v->package, pkgver, log) < 0)
		*msg = lay_failure(tmp, log);
	else if (rename(tmp, dir) < 0)
		*msg = g_strdup_printf("cannot rename %s to %s: %s", tmp, dir, g_strerror(errno));
	else
		st = TREE_READY;
	/* a partial tree is no tree: it must not take the disk it filled */
	if (st != TREE_READY && !run_stop_signal())
		remove_tree(tmp, NULL);
	g_free(tmp);
	g_free(log);
	return st;
}

char *tree_steps_file(const char *tree)
{
	return g_build_filename(tree, ".git", "kmatrix-steps", NULL);
}

char **tree_recorded_commits(const char *tree)
{
	char *path = tree_steps_file(tree);
	GKeyFile *st = g_key_file_new();
	GPtrArray *out = g_ptr_array_new();
	char **groups = NULL;

	if (g_key_file_load_from_file(st, path, G_KEY_FILE_NONE, NULL))
		groups = g_key_file_get_groups(st, NULL);
	for (int i = 0; groups && groups[i]; i++) {
		char *c = g_key_file_get_string(st, groups[i], "commit", NULL);

		if (c && *c)
			g_ptr_array_add(out, c);
		else
			g_free(c);
	}
	g_ptr_array_add(out, NULL);
	g_strfreev(groups);
	g_key_file_free(st);
	g_free(path);
	return (char **)g_ptr_array_free(out, FALSE);
}

/*
 * Why the laid tree's objects cannot be trusted, or NULL.  What kmatrix
 * reads of a laid tree: its refs and every commit and tree they reach
 * (connectivity, 1.6 s on a 5.10 tree), and the blobs of the files a step
 * changes, which apply and every checkout between steps read.  A full fsck,
 * inflating every blob, costs 24 s on the same tree: not on every run.
 */
static char *tree_damage(const char *dir)
{
	char **commits = tree_recorded_commits(dir);
	GPtrArray *argv = g_ptr_array_new();
	char *fsck[] = { "git", "fsck", "--connectivity-only", "--no-dangling",
			 "--no-progress", NULL };
	/* fsck names what is broken or missing on its stdout */
	char *why = git_complaint(dir, fsck, NULL);

	g_ptr_array_add(argv, "git");
	g_ptr_array_add(argv, "log");
	g_ptr_array_add(argv, "-p");
	g_ptr_array_add(argv, "--no-renames");
	g_ptr_array_add(argv, "--format=%H");
	g_ptr_array_add(argv, "--tags=step/*");
	g_ptr_array_add(argv, "^stock");
	for (int i = 0; commits[i]; i++)
		g_ptr_array_add(argv, commits[i]);
	g_ptr_array_add(argv, NULL);
	if (!why)
		why = git_complaint(dir, (char **)argv->pdata, "/dev/null");
	g_ptr_array_free(argv, TRUE);
	g_strfreev(commits);
	return why;
}

/*
 * A tree from a maintainer's repository: an empty repository whose
 * alternates point at theirs, so no object is copied and nothing of theirs
 * (refs, config, index, hooks, reflogs) is ever written.  Its stock commit
 * is their ref's commit itself.
 */
static char *git_in(const char *repo, const char *a1, const char *a2, const char *a3,
		    const char *a4)
{
	char *out = tree_git(repo, a1, a2, a3, a4, NULL);

	if (out)
		g_strstrip(out);
	return out;
}

/* Why @v's repository or ref cannot be used, as something to act on. */
static char *git_problem(const struct version_conf *v)
{
	char *dotgit = g_build_filename(v->git, ".git", NULL);
	char *objects = g_build_filename(v->git, "objects", NULL);
	bool exists = g_file_test(dotgit, G_FILE_TEST_EXISTS) ||
		      g_file_test(objects, G_FILE_TEST_IS_DIR);
	char *shallow, *msg;

	g_free(dotgit);
	g_free(objects);
	if (!g_file_test(v->git, G_FILE_TEST_IS_DIR))
		return g_strdup_printf("no git repository at %s (git= of [version %s])",
				       v->git, v->name);
	msg = git_in(v->git, "rev-parse", "--git-dir", NULL, NULL);
	if (!msg)
		return g_strdup_printf(exists ? "the build user cannot read the git repository %s: "
						"give it read access (e.g. `chmod -R o+rX %s`)" :
						"%s is not a git repository%s",
				       v->git, exists ? v->git : "");
	g_free(msg);
	shallow = git_in(v->git, "rev-parse", "--is-shallow-repository", NULL, NULL);
	if (shallow && !strcmp(shallow, "true"))
		msg = g_strdup_printf("ref %s is not in %s, a shallow clone: "
				      "`git -C %s fetch --unshallow`", v->ref, v->git, v->git);
	else
		msg = g_strdup_printf("ref %s is not in %s: `git -C %s fetch <remote> %s`",
				      v->ref, v->git, v->git, v->ref);
	g_free(shallow);
	return msg;
}

/* The tree's own objects, its alternates (their objects), branch and stock tag. */
static gboolean git_lay(const char *dir, const char *objects, const char *commit,
			const char *log)
{
	char *alt = g_build_filename(dir, ".git", "objects", "info", "alternates", NULL);
	char *line = g_strconcat(objects, "\n", NULL);
	gboolean ok;

	ok = (g_file_test(dir, G_FILE_TEST_IS_DIR) ||
	      step(NULL, NULL, log, "git", "init", "-q", "-b", "kmatrix", dir, NULL)) &&
	     g_file_set_contents(alt, line, -1, NULL) &&
	     step(dir, NULL, log, "git", "config", "kmatrix.source", objects, NULL) &&
	     step(dir, NULL, log, "git", "checkout", "-q", "-f", "-B", "kmatrix", commit, NULL) &&
	     step(dir, NULL, log, "git", "tag", "-f", "stock", commit, NULL);
	g_free(alt);
	g_free(line);
	return ok;
}

/*
 * What a git-sourced tree wants and has: the ref's commit and the source
 * repository's object store, against the tree's recorded source and its
 * stock commit.  prepare_git() acts on it, tree_unlaid() only says it.
 */
struct git_want {
	char *commit, *common, *objects, *source, *have;
};

enum git_need { GIT_NEED_NONE, GIT_NEED_LAY, GIT_NEED_MOVE };

static void git_want_read(const struct version_conf *v, const char *dir, struct git_want *w)
{
	char *ref = g_strconcat(v->ref, "^{commit}", NULL);

	w->commit = git_in(v->git, "rev-parse", "-q", "--verify", ref);
	w->common = w->commit ? git_in(v->git, "rev-parse", "--path-format=absolute",
				       "--git-common-dir", NULL) : NULL;
	w->objects = w->common ? g_build_filename(w->common, "objects", NULL) : NULL;
	w->source = git_in(dir, "config", "kmatrix.source", NULL, NULL);
	w->have = git_in(dir, "rev-parse", "-q", "--verify", "stock^{commit}");
	g_free(ref);
}

/* Only with w->objects known: a package's tree, or another repository's, or a moved ref. */
static enum git_need git_want_need(const struct git_want *w)
{
	if (!w->source || strcmp(w->source, w->objects))
		return GIT_NEED_LAY;
	if (!w->have || strcmp(w->have, w->commit))
		return GIT_NEED_MOVE;
	return GIT_NEED_NONE;
}

static void git_want_free(struct git_want *w)
{
	g_free(w->commit);
	g_free(w->common);
	g_free(w->objects);
	g_free(w->source);
	g_free(w->have);
}

static enum tree_state prepare_git(const char *cache, const struct version_conf *v,
				   const char *dir, char **msg)
{
	char *log = g_strconcat(dir, ".lay.log", NULL);
	enum tree_state st = TREE_READY;
	struct git_want w;
	enum git_need need;

	git_want_read(v, dir, &w);
	need = w.objects ? git_want_need(&w) : GIT_NEED_NONE;
	if (!w.objects) {
		*msg = git_problem(v);
		st = TREE_SETUP_ERROR;
	} else if (need == GIT_NEED_LAY) {
		/* a package's tree, or another repository's: start afresh */
		char *parent = g_path_get_dirname(dir);

		g_mkdir_with_parents(parent, 0755);
		g_free(parent);
		unlink(log);
		g_printerr("kmatrix: laying %s from %s at %s (%.12s)\n", dir, v->git, v->ref,
			   w.commit);
		if (!remove_tree(dir, log) || !git_lay(dir, w.objects, w.commit, log))
			st = TREE_FAILED;
	} else if (need == GIT_NEED_MOVE) {
		/* the ref moved: only the files that differ are rewritten */
		g_printerr("kmatrix: %s: %s moved to %.12s\n", dir, v->ref, w.commit);
		if (!git_lay(dir, w.objects, w.commit, log))
			st = TREE_FAILED;
	}
	if (st == TREE_FAILED)
		*msg = g_strdup_printf("laying %s from %s failed (see %s)", dir, v->git, log);
	git_want_free(&w);
	g_free(log);
	return st;
}

/* What git says of an object or index it cannot read, as opposed to a patch's fault. */
static gboolean damage_words(const char *l)
{
	static const char *const words[] = {
		"loose object", "unable to read", "inflate", "bad object", "invalid object",
		"unable to unpack", "packfile", "index file", "bad tree object", NULL
	};

	if (!g_str_has_prefix(l, "error: ") && !g_str_has_prefix(l, "fatal: "))
		return FALSE;
	for (int i = 0; words[i]; i++)
		if (strstr(l, words[i]))
			return TRUE;
	return FALSE;
}

char *tree_damage_line(const char *log)
{
	return stagelog_first_line(log, damage_words);
}

static char *damage_mark(const char *dir)
{
	return g_build_filename(dir, ".git", "kmatrix-damaged", NULL);
}

char *tree_stock_identity(const char *dir, const struct version_conf *v)
{
	char *mark = damage_mark(dir);
	bool marked = g_file_test(mark, G_FILE_TEST_EXISTS);
	struct stat st;

	g_free(mark);
	if (v->git || !v->tarball || marked || stat(v->tarball, &st))
		return NULL;
	return g_strdup_printf("%s %s %lu %lld %lld.%09ld %lld.%09ld", v->package,
			       v->tarball, (unsigned long)st.st_ino, (long long)st.st_size,
			       (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			       (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
}

void tree_mark_damaged(const char *dir, const char *why)
{
	char *mark = damage_mark(dir);
	char *line = g_strconcat(why, "\n", NULL);

	g_printerr("kmatrix: %s is damaged: %s; the next run lays it again\n", dir, why);
	g_file_set_contents(mark, line, -1, NULL);
	g_free(line);
	g_free(mark);
}

static int by_name(const FTSENT **a, const FTSENT **b)
{
	return strcmp((*a)->fts_name, (*b)->fts_name);
}

/*
 * Every file of the tree's object store, by name, size, inode and times:
 * a file cut short, removed, replaced or written changes it.  lstat of
 * the 75 000 files of a 5.10 tree costs a tenth of what tree_damage()'s
 * git commands do.  NULL when the store cannot be read.
 */
static char *objects_print(const char *dir)
{
	char *objects = g_build_filename(dir, ".git", "objects", NULL);
	char *const paths[] = { objects, NULL };
	FTS *fts = fts_open(paths, FTS_PHYSICAL | FTS_NOCHDIR, by_name);
	GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
	char *print = NULL;
	FTSENT *p;
	bool ok = fts != NULL;

	while (ok && (p = fts_read(fts))) {
		const struct stat *st = p->fts_statp;
		char *line;

		if (p->fts_info == FTS_DNR || p->fts_info == FTS_ERR || p->fts_info == FTS_NS) {
			ok = false;
			break;
		}
		line = g_strdup_printf("%s %o %lld %llu %lld.%09ld %lld.%09ld\n",
				       p->fts_path + strlen(objects), st->st_mode,
				       (long long)st->st_size, (unsigned long long)st->st_ino,
				       (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
				       (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
		g_checksum_update(sum, (const guchar *)line, -1);
		g_free(line);
	}
	if (ok)
		print = g_strdup(g_checksum_get_string(sum));
	if (fts)
		fts_close(fts);
	g_checksum_free(sum);
	g_free(objects);
	return print;
}

/* The object store's print when tree_damage() last found nothing. */
static char *sound_mark(const char *dir)
{
	return g_build_filename(dir, ".git", "kmatrix-sound", NULL);
}

/*
 * tree_damage(), unless the object store is, file for file, the one it
 * last found sound: a no-op run reads 1.8 s less of each tree.
 */
static char *store_damage(const char *dir)
{
	char *mark = sound_mark(dir);
	char *print = objects_print(dir), *was = NULL, *why = NULL;

	if (!print || !g_file_get_contents(mark, &was, NULL, NULL) || strcmp(g_strstrip(was), print)) {
		why = tree_damage(dir);
		if (!why && print)
			g_file_set_contents(mark, print, -1, NULL);
	}
	g_free(was);
	g_free(print);
	g_free(mark);
	return why;
}

/* A damaged tree is laid again: said once, with git's own words. */
static gboolean damaged(const char *dir)
{
	char *mark = damage_mark(dir), *why = NULL;
	gboolean bad;

	if (!g_file_get_contents(mark, &why, NULL, NULL))
		why = store_damage(dir);
	bad = why != NULL;
	if (bad)
		g_printerr("kmatrix: %s is damaged: %s; laying it again\n", dir, g_strstrip(why));
	g_free(mark);
	g_free(why);
	return bad;
}

/* Each *.lock in @dir, and with @deep in its subdirectories (refs/). */
static void remove_stale_locks_in(const char *dir, bool deep)
{
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *n;

	while (d && (n = g_dir_read_name(d))) {
		char *p = g_build_filename(dir, n, NULL);

		if (deep && g_file_test(p, G_FILE_TEST_IS_DIR) &&
		    !g_file_test(p, G_FILE_TEST_IS_SYMLINK))
			remove_stale_locks_in(p, deep);
		else if (g_str_has_suffix(n, ".lock") && unlink(p) == 0)
			g_printerr("kmatrix: removed %s, left by a git that was killed\n", p);
		g_free(p);
	}
	if (d)
		g_dir_close(d);
}

/*
 * A git killed with kmatrix (kill -9 of the run, its sandbox gone with
 * it) leaves its index.lock or a ref's lock, and every later git in the
 * tree refuses to run: each cell an infra-error, run after run.  Under
 * the cache's lock no git of ours runs there yet, so any lock is stale.
 */
static void remove_stale_locks(const char *dir)
{
	char *git = g_build_filename(dir, ".git", NULL);
	char *refs = g_build_filename(git, "refs", NULL);

	remove_stale_locks_in(git, false);
	remove_stale_locks_in(refs, true);
	g_free(refs);
	g_free(git);
}

static char *git_unlaid(const struct version_conf *v, const char *dir)
{
	struct git_want w;
	char *why = NULL;

	git_want_read(v, dir, &w);
	switch (w.objects ? git_want_need(&w) : GIT_NEED_NONE) {
	case GIT_NEED_LAY:
		why = g_strdup_printf("tree %s is not laid yet (from %s at %s)", dir, v->git,
				      v->ref);
		break;
	case GIT_NEED_MOVE:
		why = g_strdup_printf("tree %s is at %.12s, %s moved to %.12s", dir,
				      w.have ? w.have : "nothing", v->ref, w.commit);
		break;
	case GIT_NEED_NONE:
		break;
	}
	git_want_free(&w);
	return why;
}

char *tree_unlaid(const char *cache, const struct version_conf *v)
{
	char *dir = tree_dir(cache, v->name);
	char *pkgver = NULL, *have = NULL, *why = NULL;

	if (v->git) {
		why = git_unlaid(v, dir);
		g_free(dir);
		return why;
	}
	pkgver = v->package ? package_version(v->package) : NULL;
	if (pkgver && g_file_test(v->tarball, G_FILE_TEST_IS_REGULAR)) {
		have = tree_stock_version(dir);
		if (!have)
			why = g_strdup_printf("tree %s is not laid yet", dir);
		else if (strcmp(have, pkgver))
			why = g_strdup_printf("tree %s is of %s %s, the installed one is %s", dir,
					      v->package, have, pkgver);
	}
	g_free(have);
	g_free(pkgver);
	g_free(dir);
	return why;
}

enum tree_state tree_prepare(const char *cache, const struct version_conf *v,
			     char **msg)
{
	char *pkgver = v->package ? package_version(v->package) : NULL;
	char *dir = tree_dir(cache, v->name);
	char *have = NULL;
	enum tree_state st = TREE_READY;

	remove_stale_locks(dir);
	if (v->git) {
		g_free(pkgver);
		st = prepare_git(cache, v, dir, msg);
		g_free(dir);
		return st;
	}
	if (!pkgver) {
		*msg = g_strdup_printf("%s is not installed: run `apt-get install %s` (or tools/setup-host)",
				       v->package, v->package);
		st = TREE_SETUP_ERROR;
	} else if (!g_file_test(v->tarball, G_FILE_TEST_IS_REGULAR)) {
		*msg = g_strdup_printf("%s %s is installed but %s is missing: run `apt-get install --reinstall %s`",
				       v->package, pkgver, v->tarball, v->package);
		st = TREE_SETUP_ERROR;
	} else {
		have = tree_stock_version(dir);
		if (!have || strcmp(have, pkgver) || damaged(dir))
			st = lay(cache, v, dir, pkgver, msg);
	}
	g_free(have);
	g_free(dir);
	g_free(pkgver);
	return st;
}
