// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <unistd.h>

#include "apply.h"
#include "cell.h"
#include "key.h"
#include "run.h"
#include "tree.h"

#define APPLY_ERROR g_quark_from_static_string("kmatrix-apply")
#define EVIDENCE_LINES 40

static struct step *step_new(const char *id, const char *patch)
{
	struct step *s = g_new0(struct step, 1);

	s->id = g_strdup(id);
	s->patch = g_strdup(patch);
	s->evidence = g_ptr_array_new_with_free_func(g_free);
	return s;
}

/* The baseline directory holds exactly one format-patch file. */
static struct step *baseline_step(const struct version_conf *v)
{
	GDir *d = g_dir_open(v->baseline, 0, NULL);
	GPtrArray *found = g_ptr_array_new_with_free_func(g_free);
	struct step *s;
	const char *n;

	while (d && (n = g_dir_read_name(d)))
		if (g_str_has_suffix(n, ".patch"))
			g_ptr_array_add(found, g_build_filename(v->baseline, n, NULL));
	if (d)
		g_dir_close(d);
	s = step_new("baseline", found->len == 1 ? found->pdata[0] : NULL);
	if (found->len != 1)
		s->failure = g_strdup_printf("%s holds %u patch files, expected exactly one",
					     v->baseline, found->len);
	g_ptr_array_free(found, TRUE);
	return s;
}

/*
 * A patch git am would take but mangle, or that cannot be one: empty,
 * binary (a NUL byte), or with CRLF line endings (git am strips the CRs,
 * so the key hashes other bytes than the commit holds).  A file kmatrix
 * cannot read is left to apply, which knows whose fault that is.
 */
static gboolean check_patch_file(const char *patch, const char *what, GError **err)
{
	char *text = NULL, *bad;
	gsize len;
	const char *why = NULL;
	int line = 1;

	if (!g_file_get_contents(patch, &text, &len, NULL))
		return TRUE;
	if (!len) {
		why = "empty patch";
	} else if ((bad = memchr(text, '\0', len))) {
		why = "binary file (a NUL byte), not a patch";
	} else if ((bad = strstr(text, "\r\n"))) {
		why = "CRLF line ending (a patch has LF line endings)";
	}
	for (const char *c = text; why && len && c < bad; c++)
		line += *c == '\n';
	if (why)
		g_set_error(err, APPLY_ERROR, 1, "%s:%d: %s (%s)", patch, line, why, what);
	g_free(text);
	return !why;
}

/* Two steps of one patch would be the same commit twice: a slip. */
static struct step *step_of_patch(GPtrArray *steps, const char *patch)
{
	for (guint i = 0; i < steps->len; i++) {
		struct step *s = steps->pdata[i];

		if (s->patch && !strcmp(s->patch, patch))
			return s;
	}
	return NULL;
}

static gboolean check_order_patch(GPtrArray *steps, const char *path, int lineno,
				  const char *id, const char *patch, GError **err)
{
	struct step *twice = step_of_patch(steps, patch);
	char *what;
	gboolean ok;

	if (!g_file_test(patch, G_FILE_TEST_IS_REGULAR)) {
		g_set_error(err, APPLY_ERROR, 1, "%s:%d: %s does not exist", path, lineno, patch);
		return FALSE;
	}
	if (twice) {
		g_set_error(err, APPLY_ERROR, 1, "%s:%d: %s is step %s's patch already",
			    path, lineno, patch, twice->id);
		return FALSE;
	}
	what = g_strdup_printf("step %s, %s:%d", id, path, lineno);
	ok = check_patch_file(patch, what, err);
	g_free(what);
	return ok;
}

static gboolean parse_order_line(GPtrArray *steps, const char *series,
				 const char *path, int lineno, char *line,
				 GError **err)
{
	char **f = g_regex_split_simple("\\s+", g_strstrip(line), 0, 0);
	gboolean ok = g_strv_length(f) == 2 && *f[0] && *f[1];
	char *p = NULL;

	if (!ok)
		g_set_error(err, APPLY_ERROR, 1, "%s:%d: expected 'step-id patch-file': %s",
			    path, lineno, line);
	for (guint i = 0; ok && i < steps->len; i++) {
		struct step *s = steps->pdata[i];

		if (!strcmp(s->id, f[0])) {
			g_set_error(err, APPLY_ERROR, 1, "%s:%d: duplicate step id '%s'",
				    path, lineno, f[0]);
			ok = FALSE;
		}
	}
	if (ok) {
		/* "./x.patch" and "x.patch" are one patch */
		char *base = g_canonicalize_filename(series, NULL);

		p = g_canonicalize_filename(f[1], base);
		g_free(base);
		ok = check_order_patch(steps, path, lineno, f[0], p, err);
	}
	if (ok)
		g_ptr_array_add(steps, step_new(f[0], p));
	g_free(p);
	g_strfreev(f);
	return ok;
}

static gboolean read_order(GPtrArray *steps, const char *series, GError **err)
{
	char *path = g_build_filename(series, "order", NULL);
	char *text = NULL, **lines;
	gboolean ok = TRUE;

	if (!g_file_get_contents(path, &text, NULL, NULL)) {
		/* A version without its series yet still has stock and baseline cells. */
		g_printerr("kmatrix: warning: %s is missing: only stock and baseline run\n", path);
		g_free(path);
		return TRUE;
	}
	lines = g_strsplit(text, "\n", -1);
	for (int i = 0; lines[i] && ok; i++) {
		char *l = g_strstrip(lines[i]);

		if (*l && *l != '#')
			ok = parse_order_line(steps, series, path, i + 1, l, err);
	}
	g_strfreev(lines);
	g_free(text);
	g_free(path);
	return ok;
}

GPtrArray *apply_plan(const struct version_conf *v, GError **err)
{
	GPtrArray *steps = g_ptr_array_new_with_free_func((GDestroyNotify)step_free);
	struct step *base = baseline_step(v);
	char *what = g_strdup_printf("the baseline of %s", v->name);
	gboolean ok = !base->patch || check_patch_file(base->patch, what, err);

	g_free(what);
	g_ptr_array_add(steps, step_new("stock", NULL));
	g_ptr_array_add(steps, base);
	if (!ok || !read_order(steps, v->series, err)) {
		g_ptr_array_free(steps, TRUE);
		return NULL;
	}
	for (guint i = 0; i < steps->len; i++)
		((struct step *)steps->pdata[i])->index = i;
	return steps;
}

static void add_ids(GPtrArray *ids, GPtrArray *steps)
{
	for (guint i = 0; i < steps->len; i++) {
		const struct step *s = steps->pdata[i];

		if (!g_ptr_array_find_with_equal_func(ids, s->id, g_str_equal, NULL))
			g_ptr_array_add(ids, g_strdup(s->id));
	}
}

/* The ids of @series/order, when there is one (a new version has none yet). */
static gboolean add_order_ids(GPtrArray *ids, const char *series, GError **err)
{
	char *order = g_build_filename(series, "order", NULL);
	GPtrArray *steps = g_ptr_array_new_with_free_func((GDestroyNotify)step_free);
	gboolean ok = !g_file_test(order, G_FILE_TEST_IS_REGULAR) ||
		      read_order(steps, series, err);

	add_ids(ids, steps);
	g_ptr_array_free(steps, TRUE);
	g_free(order);
	return ok;
}

char **apply_step_ids(const struct matrix_conf *m, GError **err)
{
	GPtrArray *ids = g_ptr_array_new();
	char *canon = g_build_filename(m->top, "series", NULL);
	gboolean ok = TRUE;

	g_ptr_array_add(ids, g_strdup("stock"));
	g_ptr_array_add(ids, g_strdup("baseline"));
	for (guint i = 0; ok && i < m->versions->len; i++)
		ok = add_order_ids(ids, ((struct version_conf *)m->versions->pdata[i])->series, err);
	ok = ok && add_order_ids(ids, canon, err);
	g_free(canon);
	g_ptr_array_add(ids, NULL);
	if (!ok) {
		g_strfreev((char **)g_ptr_array_free(ids, FALSE));
		return NULL;
	}
	return (char **)g_ptr_array_free(ids, FALSE);
}

/* Remember which patch produced which commit, so an unchanged step is kept. */
/*
 * The commit, tree and subject of the tree's stock and step tags, read
 * with one git for the twenty a version's checks would start: a no-op run
 * starts each in a sandbox.  A tag moved or made after it is read with git
 * again (refs NULL), and so is one that is not there or not a commit (a
 * tag object made by hand, which git peels): kmatrix's tags are lightweight.
 */
struct ref {
	char *commit;
	char *tree;
	char *subject;
};

static void ref_free(gpointer p)
{
	struct ref *r = p;

	g_free(r->commit);
	g_free(r->tree);
	g_free(r->subject);
	g_free(r);
}

static GHashTable *read_refs(const char *tree)
{
	GHashTable *refs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, ref_free);
	char *out = tree_git(tree, "for-each-ref",
			     "--format=%(refname)%09%(objecttype)%09%(objectname)%09%(tree)%09%(subject)",
			     "refs/tags/stock", "refs/tags/step/", NULL);
	char **lines = g_strsplit(out ? out : "", "\n", -1);

	for (int i = 0; lines[i]; i++) {
		char **f = g_strsplit(lines[i], "\t", 5);
		struct ref *r;

		if (g_strv_length(f) == 5 && !strcmp(f[1], "commit")) {
			r = g_new0(struct ref, 1);
			r->commit = g_strdup(f[2]);
			r->tree = g_strdup(f[3]);
			r->subject = g_strdup(f[4]);
			g_hash_table_replace(refs, g_strdup(f[0]), r);
		}
		g_strfreev(f);
	}
	g_strfreev(lines);
	g_free(out);
	return refs;
}

/*
 * A step tag deleted by hand (or lost with packed-refs) whose recorded
 * commit is still there on the same parent: tag it again.  Re-applying
 * would check the parent out and rewrite the files the step changes, and
 * their new mtimes would rebuild what uses them.
 */
static char *restore_tag(const char *tree, const struct step *s, const char *commit,
			 const char *parent)
{
	char *obj = g_strconcat(commit, "^{commit}", NULL);
	char *up = g_strconcat(commit, "^", NULL);
	char *tag = g_strdup_printf("step/%s", s->id);
	char *have = tree_git(tree, "rev-parse", "-q", "--verify", obj, NULL);
	char *was = have ? tree_git(tree, "rev-parse", "-q", "--verify", up, NULL) : NULL;
	char *out = was && !strcmp(was, parent) ?
		    tree_git(tree, "tag", "-f", tag, commit, NULL) : NULL;
	gboolean ok = out != NULL;

	if (ok)
		g_printerr("kmatrix: %s: tag %s was missing; tagged again at %.12s, the commit recorded for it\n",
			   tree, tag, commit);
	g_free(obj);
	g_free(up);
	g_free(tag);
	g_free(have);
	g_free(was);
	g_free(out);
	return ok ? g_strdup(commit) : NULL;
}

static gboolean step_still_valid(GKeyFile *st, const char *tree, GHashTable *refs,
				 struct step *s, const char *parent, const char *sha)
{
	char *group = g_strdup_printf("step %s", s->id);
	char *was_parent = g_key_file_get_string(st, group, "parent", NULL);
	char *was_patch = g_key_file_get_string(st, group, "patch", NULL);
	char *was_commit = g_key_file_get_string(st, group, "commit", NULL);
	char *tag = g_strdup_printf("refs/tags/step/%s", s->id);
	struct ref *r = g_hash_table_lookup(refs, tag);
	/* not read at once: missing, or a tag object git peels to its commit */
	char *peel = r ? NULL : g_strconcat(tag, "^{commit}", NULL);
	char *now = r ? g_strdup(r->commit) : tree_git(tree, "rev-parse", "-q", "--verify", peel, NULL);
	gboolean same = was_parent && was_patch && was_commit && *was_commit &&
			!strcmp(was_parent, parent) && !strcmp(was_patch, sha);
	gboolean ok;

	if (same && !now)
		now = restore_tag(tree, s, was_commit, parent);
	ok = same && now && !strcmp(was_commit, now);

	g_free(group);
	g_free(was_parent);
	g_free(was_patch);
	g_free(was_commit);
	g_free(tag);
	g_free(peel);
	g_free(now);
	return ok;
}

static void add_lines(GPtrArray *ev, const char *text, const char *from, int max)
{
	char **lines = g_strsplit(text, "\n", -1);
	gboolean on = from == NULL;
	int n = 0;

	for (int i = 0; lines[i] && n < max; i++) {
		if (!on && strstr(lines[i], from))
			on = TRUE;
		if (on && *lines[i]) {
			g_ptr_array_add(ev, g_strdup(lines[i]));
			n++;
		}
	}
	g_strfreev(lines);
}

/* git am says which file failed; git apply -v shows the hunk it looked for. */
static void failing_hunk(struct step *s, const char *tree, const char *log)
{
	char *argv[] = { "git", "apply", "--check", "-v", s->patch, NULL };
	struct child c = { .argv = argv, .cwd = tree, .log = log };
	char *text = NULL;

	run_command(&c);
	if (g_file_get_contents(log, &text, NULL, NULL)) {
		add_lines(s->evidence, text, "error:", EVIDENCE_LINES);
		if (!s->evidence->len)
			add_lines(s->evidence, text, NULL, EVIDENCE_LINES);
	}
	g_free(text);
}

/*
 * git am fails alike on a patch it could not read and on one that does not
 * apply.  The first is the host's fault (a series the build user may not
 * read), not the patch's: a set-up error, and the next run tries again.
 * 1: unreadable, 0: readable, -1: interrupted.
 */
static int unreadable(struct step *s, const char *tree, const char *log)
{
	char *argv[] = { "head", "-c", "0", s->patch, NULL };
	struct child c = { .argv = argv, .cwd = tree, .log = log };
	char *text = NULL;

	if (run_command(&c) == 0)
		return 0;
	if (c.interrupted || c.status < 0)
		return -1;
	s->failure = g_strdup_printf("the build user cannot read %s", s->patch);
	s->verdict = "setup-error";
	if (g_file_get_contents(log, &text, NULL, NULL))
		add_lines(s->evidence, text, "head: ", 1);
	g_free(text);
	return 1;
}

/*
 * The build user has no git identity of its own, and not only git am needs
 * one: git am --abort refuses to run without it, leaving rebase-apply/ to
 * block every later git am in the tree.
 */
#define GIT_AS_KMATRIX "git", "-c", "user.name=kmatrix", "-c", "user.email=kmatrix@invalid"

static int git_am(struct step *s, const char *tree, const char *parent,
		  const char *log)
{
	char *co[] = { "git", "checkout", "-q", "-f", "-B", "matrix", (char *)parent, NULL };
	char *am[] = { GIT_AS_KMATRIX, "-c", "commit.gpgsign=false", "am", "-q",
		       "--committer-date-is-author-date", s->patch, NULL };
	char *abort_am[] = { GIT_AS_KMATRIX, "am", "--abort", NULL };
	struct child c = { .argv = co, .cwd = tree, .log = log };
	char *rebase = g_build_filename(tree, ".git", "rebase-apply", NULL);
	char *base;
	int rc;

	/* An interrupted run can leave git am's state behind. */
	if (g_file_test(rebase, G_FILE_TEST_IS_DIR)) {
		c.argv = abort_am;
		run_command(&c);
		c.argv = co;
	}
	g_free(rebase);
	if (run_command(&c) != 0)
		return -1;
	c.argv = am;
	if (run_command(&c) == 0)
		return 0;
	if (c.interrupted || c.status < 0)
		return -1;
	/* git could not read the tree's own objects: the cache's fault, not the patch's */
	if ((base = tree_damage_line(log))) {
		tree_mark_damaged(tree, base);
		g_free(base);
		c.argv = abort_am;
		run_command(&c);
		return -1;
	}
	rc = unreadable(s, tree, log);
	if (rc == 0) {
		base = g_path_get_basename(s->patch);
		s->failure = g_strdup_printf("%s does not apply", base);
		s->verdict = "apply-failed";
		g_free(base);
		failing_hunk(s, tree, log);
	}
	c.argv = abort_am;
	run_command(&c);
	return rc < 0 ? -1 : 1;
}

static gboolean record(GKeyFile *st, const char *tree, struct step *s,
		       const char *parent, const char *sha)
{
	char *group = g_strdup_printf("step %s", s->id);
	char *tag = g_strdup_printf("step/%s", s->id);
	char *head = tree_git(tree, "rev-parse", "HEAD", NULL);
	char *out = head ? tree_git(tree, "tag", "-f", tag, head, NULL) : NULL;

	g_key_file_set_string(st, group, "parent", parent);
	g_key_file_set_string(st, group, "patch", sha);
	g_key_file_set_string(st, group, "commit", head ? head : "");
	g_free(group);
	g_free(tag);
	g_free(head);
	g_free(out);
	return out != NULL;
}

static void describe(struct step *s, const char *tree, GHashTable *refs, const char *rev)
{
	char *full = g_strconcat("refs/tags/", rev, NULL);
	struct ref *r = refs ? g_hash_table_lookup(refs, full) : NULL;
	char *t;

	g_free(full);
	if (r) {
		s->commit = g_strdup(r->commit);
		s->tree = g_strdup(r->tree);
		s->subject = g_strdup(r->subject);
		return;
	}
	t = g_strconcat(rev, "^{tree}", NULL);
	s->commit = tree_git(tree, "rev-parse", rev, NULL);
	s->tree = tree_git(tree, "rev-parse", "--verify", "-q", t, NULL);
	g_free(t);
	s->subject = tree_git(tree, "log", "-1", "--format=%s", rev, NULL);
}

/* A later step cannot run when an earlier one did not apply. */
static void blocked(struct step *s, const struct step *by)
{
	g_free(s->failure);
	g_ptr_array_set_size(s->evidence, 0);
	s->failure = g_strdup_printf("earlier step %s did not apply", by->id);
	s->verdict = by->verdict;
	g_ptr_array_add(s->evidence, g_strdup_printf("step %s: %s", by->id, by->failure));
}

static char *base_commit(const char *patch)
{
	char *dir = g_path_get_dirname(patch);
	char *cover = g_build_filename(dir, "0000-cover-letter.patch", NULL);
	const char *files[] = { cover, patch };
	char *found = NULL;

	for (int i = 0; i < 2 && !found; i++) {
		char *text = NULL;
		GMatchInfo *m = NULL;
		GRegex *re = g_regex_new("^base-commit: ([0-9a-f]{40})", G_REGEX_MULTILINE, 0, NULL);

		if (g_file_get_contents(files[i], &text, NULL, NULL) &&
		    g_regex_match(re, text, 0, &m))
			found = g_match_info_fetch(m, 1);
		if (m)
			g_match_info_free(m);
		g_regex_unref(re);
		g_free(text);
	}
	g_free(cover);
	g_free(dir);
	return found;
}

/*
 * A series' base-commit must be the baseline it is applied on.  The
 * canonical series, shared by several versions, names the base of one of
 * them: an id this tree does not have is that other version's, not an error.
 */
static gboolean check_base(struct step *s, const char *tree, const char *top,
			   const char *baseline)
{
	char *base = base_commit(s->patch);
	char *canon = g_build_filename(top, "series", NULL);
	char *dir = g_path_get_dirname(s->patch);
	char *obj = base ? g_strconcat(base, "^{commit}", NULL) : NULL;
	char *here = obj ? tree_git(tree, "rev-parse", "-q", "--verify", obj, NULL) : NULL;
	gboolean strict = strcmp(canon, dir) != 0 || here;
	gboolean ok = !base || !strict || !strcmp(base, baseline);

	if (!ok) {
		s->failure = g_strdup_printf("series base-commit %.12s is not the baseline %.12s",
					     base, baseline);
		s->verdict = "apply-failed";
		g_ptr_array_add(s->evidence, g_strdup_printf("base-commit: %s (in %s)", base, dir));
		g_ptr_array_add(s->evidence, g_strdup_printf("step/baseline: %s", baseline));
	}
	g_free(base);
	g_free(canon);
	g_free(dir);
	g_free(obj);
	g_free(here);
	return ok;
}

/* A step that no longer applies must not leave a stale tag for bisect or reports. */
static void forget(GKeyFile *st, const char *tree, struct step *s)
{
	char *group = g_strdup_printf("step %s", s->id);
	char *tag = g_strdup_printf("step/%s", s->id);

	g_key_file_remove_group(st, group, NULL);
	g_free(tree_git(tree, "tag", "-d", tag, NULL));
	g_free(group);
	g_free(tag);
}

/* 1: applied or kept, 0: did not apply, -1: git failed. */
static int apply_one(GKeyFile *st, const char *tree, GHashTable *refs, const char *top,
		     struct step *s, const char *parent, gboolean *dirty, const char *logdir)
{
	char *sha = key_file_sha256(s->patch);
	char *log = g_strdup_printf("%s/%s.apply.log", logdir, s->id);
	gint64 t0 = g_get_monotonic_time();
	struct usage *prev = run_usage_sink(&s->usage);
	int rc = 1;

	unlink(log);
	if (s->index == 2 && !check_base(s, tree, top, parent)) {
		rc = 0;
	} else if (*dirty || !step_still_valid(st, tree, refs, s, parent, sha)) {
		/* Once one step is re-applied, every later one must be too. */
		*dirty = TRUE;
		rc = git_am(s, tree, parent, log);
		rc = rc < 0 ? -1 : rc == 0 ? (record(st, tree, s, parent, sha) ? 1 : -1) : 0;
	}
	s->seconds = (g_get_monotonic_time() - t0) / 1e6;
	run_usage_sink(prev);
	g_free(sha);
	g_free(log);
	return rc;
}

/*
 * git itself failed on a step (a lock left in the tree, a full disk, git
 * missing): the host's fault, shown with git's last words, and the later
 * steps cannot be applied either.  Earlier steps stand.
 */
static void git_failed(struct step *s, const char *logdir)
{
	char *log = g_strdup_printf("%s/%s.apply.log", logdir, s->id);

	s->failure = g_strdup_printf("git failed while applying step %s", s->id);
	s->verdict = "infra-error";
	evidence_add_log(s->evidence, log, EVIDENCE_LINES / 4, true);
	if (!s->evidence->len)
		g_ptr_array_add(s->evidence, g_strdup_printf("%s: nothing logged", log));
	g_free(log);
}

int apply_steps(const char *tree, const char *top, GPtrArray *steps,
		const char *logdir)
{
	char *path = tree_steps_file(tree);
	GKeyFile *st = g_key_file_new();
	struct step *prev = steps->pdata[0], *bad = NULL;
	GHashTable *refs = read_refs(tree);
	gboolean dirty = FALSE;
	int rc = 0;

	g_mkdir_with_parents(logdir, 0755);
	g_key_file_load_from_file(st, path, G_KEY_FILE_NONE, NULL);
	describe(prev, tree, refs, "stock");
	for (guint i = 1; i < steps->len && rc == 0; i++) {
		struct step *s = steps->pdata[i];
		char *tag = g_strdup_printf("step/%s", s->id);
		int r;

		if (bad || s->failure) {
			if (bad)
				blocked(s, bad);
			bad = bad ? bad : s;
			forget(st, tree, s);
			g_free(tag);
			continue;
		}
		r = apply_one(st, tree, refs, top, s, prev->commit, &dirty, logdir);
		if (r < 0 && run_stop_signal()) {
			rc = -1;
		} else if (r < 0) {
			git_failed(s, logdir);
			bad = s;
			forget(st, tree, s);
		} else if (r == 0) {
			bad = s;
			forget(st, tree, s);
		} else {
			/* a step applied again has moved its tag */
			describe(s, tree, dirty ? NULL : refs, tag);
		}
		prev = r > 0 ? s : prev;
		g_free(tag);
	}
	if (!g_key_file_save_to_file(st, path, NULL))
		rc = -1;
	g_hash_table_destroy(refs);
	g_key_file_free(st);
	g_free(path);
	return rc;
}

/* The step ids in order: a step's commit depends on those before it. */
static char *step_order(GPtrArray *steps)
{
	GString *o = g_string_new(NULL);

	for (guint i = 0; i < steps->len; i++)
		g_string_append_printf(o, "%s%s", i ? " " : "",
				       ((struct step *)steps->pdata[i])->id);
	return g_string_free(o, FALSE);
}

static char *record_file(const char *tree)
{
	return g_build_filename(tree, ".git", "kmatrix-recorded", NULL);
}

void apply_record(const char *tree, GPtrArray *steps, const char *stock_id)
{
	char *path = record_file(tree);
	GKeyFile *k = g_key_file_new();
	bool whole = stock_id != NULL;
	char *order = step_order(steps);

	for (guint i = 0; i < steps->len && whole; i++) {
		const struct step *s = steps->pdata[i];
		char *group = g_strdup_printf("step %s", s->id);
		char *sha = s->patch ? key_file_sha256(s->patch) : g_strdup("");

		whole = !s->failure && s->commit && s->tree && s->subject && sha;
		if (whole) {
			g_key_file_set_string(k, group, "patch", sha);
			g_key_file_set_string(k, group, "commit", s->commit);
			g_key_file_set_string(k, group, "tree", s->tree);
			g_key_file_set_string(k, group, "subject", s->subject);
		}
		g_free(group);
		g_free(sha);
	}
	unlink(path);
	if (whole) {
		g_key_file_set_string(k, "recorded", "stock", stock_id);
		g_key_file_set_string(k, "recorded", "order", order);
		g_key_file_save_to_file(k, path, NULL);
	}
	g_key_file_free(k);
	g_free(order);
	g_free(path);
}

void apply_unrecord(const char *tree)
{
	char *path = record_file(tree);

	unlink(path);
	g_free(path);
}

/* Step @s as recorded in @k, when its patch is still the one applied. */
static bool recorded_step(GKeyFile *k, struct step *s)
{
	char *group = g_strdup_printf("step %s", s->id);
	char *want = g_key_file_get_string(k, group, "patch", NULL);
	char *have = s->patch ? key_file_sha256(s->patch) : g_strdup("");
	bool ok = want && have && !strcmp(want, have);

	if (ok) {
		s->commit = g_key_file_get_string(k, group, "commit", NULL);
		s->tree = g_key_file_get_string(k, group, "tree", NULL);
		s->subject = g_key_file_get_string(k, group, "subject", NULL);
		ok = s->commit && s->tree && s->subject;
	}
	g_free(group);
	g_free(want);
	g_free(have);
	return ok;
}

gboolean apply_recorded(const char *tree, GPtrArray *steps, const char *stock_id)
{
	char *path = record_file(tree);
	GKeyFile *k = g_key_file_new();
	char *stock = NULL, *order = NULL, *want = step_order(steps);
	bool ok = stock_id && g_key_file_load_from_file(k, path, G_KEY_FILE_NONE, NULL);

	if (ok) {
		stock = g_key_file_get_string(k, "recorded", "stock", NULL);
		order = g_key_file_get_string(k, "recorded", "order", NULL);
	}
	ok = stock && order && !strcmp(stock, stock_id) && !strcmp(order, want);
	for (guint i = 0; i < steps->len && ok; i++)
		ok = recorded_step(k, steps->pdata[i]);
	if (!ok)
		apply_undescribe(steps);
	g_key_file_free(k);
	g_free(order);
	g_free(want);
	g_free(stock);
	g_free(path);
	return ok;
}

void apply_undescribe(GPtrArray *steps)
{
	for (guint i = 0; i < steps->len; i++) {
		struct step *s = steps->pdata[i];

		g_clear_pointer(&s->commit, g_free);
		g_clear_pointer(&s->tree, g_free);
		g_clear_pointer(&s->subject, g_free);
	}
}
