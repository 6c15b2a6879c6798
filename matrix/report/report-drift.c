// SPDX-License-Identifier: GPL-2.0
/*
 * Backport drift: for every version whose series is not the canonical
 * one, `git range-diff` of the canonical series (step/baseline..last step
 * in a tree that carries it) against the backport's (same range in the
 * version's tree), summarised per patch: identical, adapted (changed code
 * lines, and changed message lines apart), missing, extra.
 *
 * The two series live in different repositories; git reads the canonical
 * tree's objects through GIT_ALTERNATE_OBJECT_DIRECTORIES, so neither tree
 * is written to.
 */
#include <string.h>

#include "report.h"

#define CANONICAL_SERIES "series"
#define NOT_MEASURED "not measured in these results"

static void patch_free(struct drift_patch *p)
{
	g_free(p->status);
	g_free(p->canonical);
	g_free(p->backport);
	g_free(p->subject);
	g_free(p);
}

void drift_free(struct drift *d)
{
	g_free(d->version);
	g_free(d->note);
	if (d->patches)
		g_ptr_array_free(d->patches, TRUE);
	g_free(d);
}

static struct drift *drift_new(const char *version, enum drift_state st,
			       char *note)
{
	struct drift *d = g_new0(struct drift, 1);

	d->version = g_strdup(version);
	d->state = st;
	d->note = note;
	/* every reason reads as what these results do not measure */
	if (st == DRIFT_UNAVAILABLE && !g_str_has_prefix(note, NOT_MEASURED)) {
		d->note = g_strdup_printf("%s: %s", NOT_MEASURED, note);
		g_free(note);
	}
	d->patches = g_ptr_array_new_with_free_func((GDestroyNotify)patch_free);
	return d;
}

static char *side(const char *num, const char *sha)
{
	return strcmp(num, "-") ? g_strdup_printf("%s: %s", num, sha) : NULL;
}

/* A pair line: "1:  abc1234 ! 1:  def5678 subject". */
static struct drift_patch *parse_pair(GRegex *re, const char *line)
{
	static const char *const status[] = { "=", "identical", "!", "adapted",
					      "<", "missing", ">", "extra" };
	struct drift_patch *p = NULL;
	GMatchInfo *m;

	if (g_regex_match(re, line, 0, &m)) {
		char **f = g_match_info_fetch_all(m);

		p = g_new0(struct drift_patch, 1);
		for (size_t i = 0; i < G_N_ELEMENTS(status); i += 2)
			if (!strcmp(f[3], status[i]))
				p->status = g_strdup(status[i + 1]);
		p->canonical = side(f[1], f[2]);
		p->backport = side(f[4], f[5]);
		p->subject = g_strdup(f[6]);
		g_strfreev(f);
	}
	g_match_info_free(m);
	return p;
}

/*
 * The diff of diffs is split in sections, "## Commit message ##",
 * "## Metadata ##" or "## <path> ##", after the 4-space indent, the outer
 * marker and the inner one.  True when @l is such a header.
 */
static bool section_header(const char *l, bool *in_message)
{
	const char *p = l + 5;
	size_t n;

	if (*p == ' ' || *p == '+' || *p == '-')
		p++;
	n = strlen(p);
	if (!g_str_has_prefix(p, "## ") || n < 6 || strcmp(p + n - 3, " ##"))
		return false;
	*in_message = g_str_has_prefix(p, "## Commit message ##") ||
		      g_str_has_prefix(p, "## Metadata ##");
	return true;
}

GPtrArray *drift_parse_range_diff(const char *text)
{
	GRegex *re = g_regex_new("^\\s*(\\d+|-):\\s+([0-9a-f]+|-+) ([=!<>]) \\s*(\\d+|-):\\s+([0-9a-f]+|-+) ?(.*)$",
				 0, 0, NULL);
	GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)patch_free);
	char **lines = g_strsplit(text, "\n", -1);
	struct drift_patch *cur = NULL;
	bool in_message = false;

	for (int i = 0; lines[i]; i++) {
		const char *l = lines[i];
		struct drift_patch *p = parse_pair(re, l);

		if (p) {
			g_ptr_array_add(out, p);
			cur = p;
			in_message = false;
			continue;
		}
		if (!cur || !g_str_has_prefix(l, "    ") || strlen(l) < 5)
			continue;
		if (section_header(l, &in_message))
			continue;
		if (l[4] == '+' || l[4] == '-') {
			if (in_message)
				cur->message_lines++;
			else
				cur->lines++;
		}
	}
	g_strfreev(lines);
	g_regex_unref(re);
	return out;
}

/* The last step id of @dir/order ("# step-id  patch-file" lines). */
static char *last_step(const char *dir)
{
	char *path = g_build_filename(dir, "order", NULL);
	char *text = NULL, *last = NULL;
	char **lines;

	if (g_file_get_contents(path, &text, NULL, NULL)) {
		lines = g_strsplit(text, "\n", -1);
		for (int i = 0; lines[i]; i++) {
			char **w = g_strsplit_set(g_strstrip(lines[i]), " \t", 2);

			if (w[0] && w[0][0] && w[0][0] != '#') {
				g_free(last);
				last = g_strdup(w[0]);
			}
			g_strfreev(w);
		}
		g_strfreev(lines);
	}
	g_free(text);
	g_free(path);
	return last;
}

static char *git_out(const char *tree, char **env, const char *const *args,
		     char **err_text)
{
	GPtrArray *argv = g_ptr_array_new();
	char *out = NULL, *err = NULL;
	int status = 0;
	gboolean ok;

	g_ptr_array_add(argv, "git");
	g_ptr_array_add(argv, "-C");
	g_ptr_array_add(argv, (char *)tree);
	for (int i = 0; args[i]; i++)
		g_ptr_array_add(argv, (char *)args[i]);
	g_ptr_array_add(argv, NULL);
	ok = g_spawn_sync(NULL, (char **)argv->pdata, env, G_SPAWN_SEARCH_PATH,
			  NULL, NULL, &out, &err, &status, NULL) &&
	     g_spawn_check_wait_status(status, NULL);
	g_ptr_array_free(argv, TRUE);
	if (err_text)
		*err_text = err ? g_strstrip(err) : NULL;
	else
		g_free(err);
	if (!ok) {
		g_free(out);
		return NULL;
	}
	return out;
}

/* Does @tree hold the commit @sha? */
static bool has_commit(const char *tree, const char *sha)
{
	char *obj = g_strdup_printf("%s^{commit}", sha);
	const char *args[] = { "cat-file", "-e", obj, NULL };
	char *out = git_out(tree, NULL, args, NULL);

	g_free(obj);
	g_free(out);
	return out != NULL;
}

/*
 * The commit the results record for step @step of version @v (every arch
 * of a version applies the same commits); NULL with why when none does.
 */
static char *results_commit(const struct run *run, const char *v,
			    const char *step, char **why)
{
	GString *seen = g_string_new(NULL);

	for (guint i = 0; i < run->cells->len; i++) {
		const struct rcell *c = run->cells->pdata[i];

		if (strcmp(c->version, v) || strcmp(c->step, step))
			continue;
		if (c->res && *jstr(c->res, "commit")) {
			g_string_free(seen, TRUE);
			return g_strdup(jstr(c->res, "commit"));
		}
		g_string_append_printf(seen, "%s%s %s", seen->len ? ", " : "",
				       c->id, c->verdict);
	}
	*why = seen->len ?
		g_strdup_printf("no result of %s's step %s names a commit (%s)", v, step,
				seen->str) :
		g_strdup_printf("the run did not plan %s's step %s", v, step);
	g_string_free(seen, TRUE);
	return NULL;
}

/* A version's side of the diff, as the results record it. */
struct side {
	char *tree, *base, *tip, *why;
	const char *version, *tip_step;
};

static void side_clear(struct side *s)
{
	g_free(s->tree);
	g_free(s->base);
	g_free(s->tip);
	g_free(s->why);
}

/*
 * The commits come from the results, not from whatever the reader's
 * trees hold now: the tree only lends git the objects to diff them.
 */
static bool side_find(struct side *s, const char *cache, const struct run *run,
		      const char *v, const char *tip_step)
{
	memset(s, 0, sizeof(*s));
	s->version = v;
	s->tip_step = tip_step;
	s->tree = g_build_filename(cache, "trees", v, NULL);
	if (!tip_step)
		s->why = g_strdup("no step in its series' order file");
	else if (!g_ptr_array_find_with_equal_func(run->versions, v, g_str_equal, NULL))
		s->why = g_strdup_printf("the run did not include %s", v);
	else if ((s->base = results_commit(run, v, "baseline", &s->why)) &&
		 (s->tip = results_commit(run, v, tip_step, &s->why)) &&
		 !(has_commit(s->tree, s->base) && has_commit(s->tree, s->tip)))
		s->why = g_strdup_printf("they name %s step/baseline %.12s..step/%s %.12s, commits this cache's tree %s does not hold (report beside the trees the run laid to measure it)",
					 v, s->base, tip_step, s->tip, v);
	return !s->why;
}

static void compare(struct drift *d, const struct side *canon,
		    const struct side *bp)
{
	char *objects = g_build_filename(canon->tree, ".git", "objects", NULL);
	char **env = g_environ_setenv(g_get_environ(),
				      "GIT_ALTERNATE_OBJECT_DIRECTORIES",
				      objects, TRUE);
	char *a = g_strdup_printf("%s..%s", canon->base, canon->tip);
	char *b = g_strdup_printf("%s..%s", bp->base, bp->tip);
	const char *args[] = { "range-diff", "--no-color", a, b, NULL };
	char *err = NULL;
	char *out = git_out(bp->tree, env, args, &err);

	if (out) {
		d->state = DRIFT_COMPARED;
		g_ptr_array_free(d->patches, TRUE);
		d->patches = drift_parse_range_diff(out);
	} else {
		d->state = DRIFT_UNAVAILABLE;
		g_free(d->note);
		d->note = g_strdup_printf(NOT_MEASURED ": git range-diff failed: %s",
					  err && *err ? err : "no message");
	}
	g_free(out);
	g_free(err);
	g_free(a);
	g_free(b);
	g_strfreev(env);
	g_free(objects);
}

static char *series_of(GKeyFile *kf, const char *v)
{
	char *group = g_strdup_printf("version %s", v);
	char *s = g_key_file_get_string(kf, group, "series", NULL);

	g_free(group);
	if (s)
		g_strchomp(s);
	while (s && g_str_has_suffix(s, "/") && strlen(s) > 1)
		s[strlen(s) - 1] = '\0';
	return s;
}

/* The canonical series as applied in the last version that uses it. */
static bool canonical_side(GKeyFile *kf, char **versions, const char *cache,
			   const struct run *run, const char *tip, struct side *canon,
			   char **why)
{
	for (int i = (int)g_strv_length(versions) - 1; i >= 0; i--) {
		char *s = series_of(kf, versions[i]);
		bool canonical = s && !strcmp(s, CANONICAL_SERIES);

		g_free(s);
		if (!canonical)
			continue;
		if (side_find(canon, cache, run, versions[i], tip))
			return true;
		/* the newest version is the one worth naming */
		if (!*why)
			*why = g_strdup_printf("%s: the canonical series (%s): %s",
					       NOT_MEASURED, versions[i], canon->why);
		side_clear(canon);
	}
	if (!*why)
		*why = g_strdup_printf("%s: no version of the matrix carries the canonical series",
				       NOT_MEASURED);
	return false;
}

static struct drift *drift_version(GKeyFile *kf, const char *top,
				   const char *cache, const struct run *run, const char *v,
				   const struct side *canon, const char *cwhy)
{
	char *series = series_of(kf, v);
	char *dir, *tip;
	struct side bp;
	struct drift *d;

	if (!series)
		return drift_new(v, DRIFT_UNAVAILABLE,
				 g_strdup("no series= in its [version] group"));
	if (!strcmp(series, CANONICAL_SERIES)) {
		g_free(series);
		return drift_new(v, DRIFT_CANONICAL, g_strdup("canonical series"));
	}
	dir = g_build_filename(top, series, NULL);
	tip = last_step(dir);
	if (!tip)
		d = drift_new(v, DRIFT_UNAVAILABLE,
			      g_strdup_printf("%s/order lists no step (no backport series yet)",
					      series));
	else if (!canon)
		d = drift_new(v, DRIFT_UNAVAILABLE, g_strdup(cwhy));
	else if (!side_find(&bp, cache, run, v, tip))
		d = drift_new(v, DRIFT_UNAVAILABLE, g_strdup_printf("%s: %s", NOT_MEASURED, bp.why));
	else
		d = drift_new(v, DRIFT_COMPARED,
			      g_strdup_printf("git range-diff of %s step/baseline..step/%s (canonical series) against %s step/baseline..step/%s (%s)",
					      canon->version, canon->tip_step, v, tip, series));
	if (d->state == DRIFT_COMPARED)
		compare(d, canon, &bp);
	if (tip && canon)
		side_clear(&bp);
	g_free(tip);
	g_free(dir);
	g_free(series);
	return d;
}

GPtrArray *drift_compute(const char *top, const char *cache, const struct run *run)
{
	GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)drift_free);
	char *conf = g_build_filename(top, "matrix", "matrix.conf", NULL);
	char *canon_dir = g_build_filename(top, CANONICAL_SERIES, NULL);
	char *tip = last_step(canon_dir);
	GKeyFile *kf = g_key_file_new();
	char **versions = NULL, *why = NULL;
	struct side canon = { 0 };
	bool have;

	if (!g_key_file_load_from_file(kf, conf, G_KEY_FILE_NONE, NULL) ||
	    !(versions = g_key_file_get_string_list(kf, "matrix", "versions",
						    NULL, NULL)))
		goto out;
	have = canonical_side(kf, versions, cache, run, tip, &canon, &why);
	for (int i = 0; versions[i]; i++)
		g_ptr_array_add(out, drift_version(kf, top, cache, run, versions[i],
						   have ? &canon : NULL, why));
	if (have)
		side_clear(&canon);
out:
	g_strfreev(versions);
	g_key_file_free(kf);
	g_free(why);
	g_free(tip);
	g_free(canon_dir);
	g_free(conf);
	return out;
}
