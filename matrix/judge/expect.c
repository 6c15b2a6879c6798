// SPDX-License-Identifier: GPL-2.0
/*
 * Expectations (series/expectations, GKeyFile; matrix/DESIGN.md):
 * [groups] name=glob;...  and per step [step <id>] with fail, skip and pass
 * glob lists that may reference groups as @name.  A test's expected outcome
 * is the first of fail, skip, pass with a matching pattern.
 *
 * GKeyFile does not report line numbers, so a small scan of the file
 * records where every group and key is, and finds syntax errors by line.
 */
#include <string.h>

#include "conf.h"
#include "expect.h"

#define EXPECT_MAX_NESTING 16

enum { K_FAIL, K_SKIP, K_PASS, K_N };
static const char *const key_names[K_N] = { "fail", "skip", "pass" };
static const enum expect_outcome key_outcome[K_N] = {
	EXPECT_FAIL, EXPECT_SKIP, EXPECT_PASS
};

struct step_expect {
	GPtrArray *specs[K_N];	/* GPatternSpec * */
	GPtrArray *texts[K_N];	/* char *: the same patterns, as written */
	GPtrArray *literals[K_N]; /* char *: patterns without wildcards */
	int line;		/* of [step <id>] */
};

/* A glob as written in the file, for checking it against the case list. */
struct written {
	char *pattern;
	char *where;		/* "[step nice] fail", "[groups] nice" */
	int line;
};

struct expectations {
	char *path;
	GHashTable *steps;	/* step id -> struct step_expect * */
	GPtrArray *written;	/* struct written * */
};

struct loader {
	const char *path;
	GKeyFile *kf;
	GHashTable *lines;	/* "group" or "group\nkey" -> line number */
	GPtrArray *written;	/* the expectations' */
};

static void step_free(struct step_expect *s)
{
	for (int k = 0; k < K_N; k++) {
		g_ptr_array_free(s->specs[k], TRUE);
		g_ptr_array_free(s->texts[k], TRUE);
		g_ptr_array_free(s->literals[k], TRUE);
	}
	g_free(s);
}

static void written_free(struct written *w)
{
	g_free(w->pattern);
	g_free(w->where);
	g_free(w);
}

static int line_of(const struct loader *ld, const char *group,
		   const char *key)
{
	char *k = key ? g_strdup_printf("%s\n%s", group, key) :
			g_strdup(group);
	int n = GPOINTER_TO_INT(g_hash_table_lookup(ld->lines, k));

	g_free(k);
	return n;
}

static gboolean fail_at(const struct loader *ld, int line, GError **err,
			const char *fmt, ...) G_GNUC_PRINTF(4, 5);

static gboolean fail_at(const struct loader *ld, int line, GError **err,
			const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	if (line > 0)
		g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE,
			    "%s:%d: %s", ld->path, line, msg);
	else
		g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE,
			    "%s: %s", ld->path, msg);
	g_free(msg);
	return FALSE;
}

/* "group\nkey" for the key of line @l, whose '=' is at @eq. */
static char *group_key(const char *group, const char *l, const char *eq)
{
	char *key = g_strndup(l, eq - l);
	char *gk = g_strdup_printf("%s\n%s", group, g_strstrip(key));

	g_free(key);
	return gk;
}

/*
 * GKeyFile merges a group given twice and keeps the last of a key given
 * twice: in a hand-edited file, either is a slip that changes verdicts.
 */
static gboolean note_line(struct loader *ld, char *id, int line, GError **err)
{
	const char *nl = strchr(id, '\n');
	gboolean ok = !g_hash_table_contains(ld->lines, id);

	if (!ok && nl)
		fail_at(ld, line, err, "duplicate key %s in [%.*s]", nl + 1,
			(int)(nl - id), id);
	else if (!ok)
		fail_at(ld, line, err, "duplicate group [%s]", id);
	if (ok)
		g_hash_table_insert(ld->lines, id, GINT_TO_POINTER(line));
	else
		g_free(id);
	return ok;
}

/* Record the line of every group and key; reject lines GKeyFile would. */
static gboolean scan_lines(struct loader *ld, const char *text, GError **err)
{
	char **lines = g_strsplit(text, "\n", -1);
	char *group = NULL;
	gboolean ok = TRUE;

	for (int i = 0; lines[i] && ok; i++) {
		char *l = g_strstrip(lines[i]);
		char *eq;

		if (!*l || *l == '#')
			continue;
		if (*l == '[' && l[strlen(l) - 1] == ']') {
			g_free(group);
			group = g_strndup(l + 1, strlen(l) - 2);
			ok = note_line(ld, g_strdup(group), i + 1, err);
			continue;
		}
		eq = strchr(l, '=');
		if (!eq || eq == l)
			ok = fail_at(ld, i + 1, err,
				     "not a [group], key=value or comment: '%s'", l);
		else if (!group)
			ok = fail_at(ld, i + 1, err, "key before the first [group]");
		else
			ok = note_line(ld, group_key(group, l, eq), i + 1, err);
	}
	g_free(group);
	g_strfreev(lines);
	return ok;
}

/*
 * The scan and GKeyFile both stop at a NUL byte: whatever follows one
 * would silently not be there.
 */
static gboolean check_text(const struct loader *ld, const char *text, gsize len,
			   GError **err)
{
	int line = text_nul_line(text, len);

	return !line || fail_at(ld, line, err, "a NUL byte: not a text file");
}

static gboolean add_patterns(const struct loader *ld, struct step_expect *s,
			     int k, const char *group, const char *key,
			     int nesting, GError **err);

/* Each glob once, where it is written (nesting 0: a step's or [groups]'). */
static void note_written(const struct loader *ld, const char *group,
			 const char *key, const char *pat)
{
	struct written *w = g_new0(struct written, 1);

	w->pattern = g_strdup(pat);
	w->where = g_strdup_printf("[%s] %s", group, key);
	w->line = line_of(ld, group, key);
	g_ptr_array_add(ld->written, w);
}

/* Add one pattern of @group/@key (expanding @refs) to @s's list @k. */
static gboolean add_pattern(const struct loader *ld, struct step_expect *s,
			    int k, const char *group, const char *key,
			    const char *pat, int nesting, GError **err)
{
	if (pat[0] != '@') {
		g_ptr_array_add(s->specs[k], g_pattern_spec_new(pat));
		g_ptr_array_add(s->texts[k], g_strdup(pat));
		if (!strpbrk(pat, "*?"))
			g_ptr_array_add(s->literals[k], g_strdup(pat));
		if (!nesting)
			note_written(ld, group, key, pat);
		return TRUE;
	}
	if (!g_key_file_has_key(ld->kf, "groups", pat + 1, NULL))
		return fail_at(ld, line_of(ld, group, key), err,
			       "[%s] %s: unknown group %s (no %s= in [groups])",
			       group, key, pat, pat + 1);
	if (nesting >= EXPECT_MAX_NESTING)
		return fail_at(ld, line_of(ld, "groups", pat + 1), err,
			       "[groups] %s: references loop", pat + 1);
	return add_patterns(ld, s, k, "groups", pat + 1, nesting + 1, err);
}

static gboolean add_patterns(const struct loader *ld, struct step_expect *s,
			     int k, const char *group, const char *key,
			     int nesting, GError **err)
{
	char **pats = g_key_file_get_string_list(ld->kf, group, key, NULL,
						 NULL);
	gboolean ok = TRUE;

	for (int i = 0; pats && pats[i] && ok; i++) {
		char *p = g_strstrip(pats[i]);

		if (*p)
			ok = add_pattern(ld, s, k, group, key, p, nesting, err);
	}
	g_strfreev(pats);
	return ok;
}

static struct step_expect *step_new(void)
{
	struct step_expect *s = g_new0(struct step_expect, 1);

	for (int k = 0; k < K_N; k++) {
		s->specs[k] = g_ptr_array_new_with_free_func(
			(GDestroyNotify)g_pattern_spec_free);
		s->texts[k] = g_ptr_array_new_with_free_func(g_free);
		s->literals[k] = g_ptr_array_new_with_free_func(g_free);
	}
	return s;
}

/* The pattern of list @k that takes @pat (@pat itself or a glob), or NULL. */
static const char *taken_by(const struct step_expect *s, int k,
			    const char *pat)
{
	bool literal = !strpbrk(pat, "*?");

	for (guint i = 0; i < s->texts[k]->len; i++) {
		const char *t = s->texts[k]->pdata[i];

		if (!strcmp(t, pat) ||
		    (literal &&
		     g_pattern_spec_match_string(s->specs[k]->pdata[i], pat)))
			return t;
	}
	return NULL;
}

/* Does a key before @k take @pat, the pattern of key @k? */
static gboolean check_taken(const struct loader *ld, const char *group,
			    const struct step_expect *s, int k,
			    const char *pat, GError **err)
{
	int line = line_of(ld, group, key_names[k]);

	for (int e = 0; e < k; e++) {
		const char *t = taken_by(s, e, pat);

		if (t && !strcmp(t, pat))
			return fail_at(ld, line, err, "[%s]: %s is in both %s= and %s=",
				       group, pat, key_names[e], key_names[k]);
		if (t)
			return fail_at(ld, line, err,
				       "[%s]: %s is in both %s= (as %s) and %s=",
				       group, pat, key_names[e], t, key_names[k]);
	}
	return TRUE;
}

/*
 * The first key with a matching pattern decides, so a case named in pass=
 * that fail= takes already is dead text saying the opposite of what holds.
 * Without the case list only the provable overlaps: the same pattern in
 * two keys, or a name a glob of an earlier key matches.
 */
static gboolean check_overlap(const struct loader *ld, const char *group,
			      const struct step_expect *s, GError **err)
{
	for (int k = 1; k < K_N; k++)
		for (guint i = 0; i < s->texts[k]->len; i++)
			if (!check_taken(ld, group, s, k, s->texts[k]->pdata[i], err))
				return FALSE;
	return TRUE;
}

static struct step_expect *load_step(const struct loader *ld,
				     const char *group, GError **err)
{
	struct step_expect *s = step_new();
	char **keys = g_key_file_get_keys(ld->kf, group, NULL, NULL);
	gboolean ok = TRUE;

	for (int i = 0; keys && keys[i] && ok; i++) {
		int k;

		for (k = 0; k < K_N; k++)
			if (!strcmp(keys[i], key_names[k]))
				break;
		if (k == K_N)
			ok = fail_at(ld, line_of(ld, group, keys[i]), err,
				     "[%s]: unknown key '%s' (fail, skip, pass)",
				     group, keys[i]);
		else
			ok = add_patterns(ld, s, k, group, keys[i], 0, err);
	}
	g_strfreev(keys);
	ok = ok && check_overlap(ld, group, s, err);
	s->line = line_of(ld, group, NULL);
	if (!ok) {
		step_free(s);
		return NULL;
	}
	return s;
}

/* Every @ref in [groups] must resolve, even one no step uses. */
static gboolean check_groups(const struct loader *ld, GError **err)
{
	char **keys = g_key_file_get_keys(ld->kf, "groups", NULL, NULL);
	gboolean ok = TRUE;

	for (int i = 0; keys && keys[i] && ok; i++) {
		struct step_expect *s = step_new();

		ok = add_patterns(ld, s, K_PASS, "groups", keys[i], 0, err);
		step_free(s);
	}
	g_strfreev(keys);
	return ok;
}

static gboolean load_groups(struct expectations *e, const struct loader *ld,
			    GError **err)
{
	char **groups = g_key_file_get_groups(ld->kf, NULL);
	gboolean ok = TRUE;

	if (g_key_file_has_group(ld->kf, "groups"))
		ok = check_groups(ld, err);
	for (int i = 0; groups[i] && ok; i++) {
		const char *g = groups[i];
		struct step_expect *s;

		if (!strcmp(g, "groups"))
			continue;
		if (!g_str_has_prefix(g, "step ") || !g[5])
			ok = fail_at(ld, line_of(ld, g, NULL), err,
				     "unknown group [%s] ([groups] or [step <id>])", g);
		else if (!(s = load_step(ld, g, err)))
			ok = FALSE;
		else
			g_hash_table_insert(e->steps, g_strdup(g + 5), s);
	}
	g_strfreev(groups);
	return ok;
}

struct expectations *expect_load(const char *path, GError **err)
{
	struct expectations *e = g_new0(struct expectations, 1);
	struct loader ld = { .path = path };
	GError *kerr = NULL;
	char *text = NULL;
	gsize len;
	gboolean ok;

	e->path = g_strdup(path);
	e->steps = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					 (GDestroyNotify)step_free);
	e->written = g_ptr_array_new_with_free_func(
		(GDestroyNotify)written_free);
	ld.kf = g_key_file_new();
	ld.lines = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	ld.written = e->written;
	ok = g_file_get_contents(path, &text, &len, &kerr);
	if (!ok)
		fail_at(&ld, 0, err, "%s", kerr->message);
	else
		ok = check_text(&ld, text, len, err) && scan_lines(&ld, text, err);
	if (ok && !g_key_file_load_from_data(ld.kf, text, -1,
					     G_KEY_FILE_NONE, &kerr))
		ok = fail_at(&ld, 0, err, "%s", kerr->message);
	if (ok)
		ok = load_groups(e, &ld, err);
	if (ok && !g_hash_table_size(e->steps))
		ok = fail_at(&ld, 0, err, "no [step <id>] group");
	g_clear_error(&kerr);
	g_free(text);
	g_key_file_free(ld.kf);
	g_hash_table_destroy(ld.lines);
	if (!ok) {
		expect_free(e);
		return NULL;
	}
	return e;
}

void expect_free(struct expectations *e)
{
	if (!e)
		return;
	g_hash_table_destroy(e->steps);
	g_ptr_array_free(e->written, TRUE);
	g_free(e->path);
	g_free(e);
}

static gboolean check_fail(const struct expectations *e, int line,
			   GError **err, const char *fmt, ...)
	G_GNUC_PRINTF(4, 5);

static gboolean check_fail(const struct expectations *e, int line,
			   GError **err, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
		    "%s:%d: %s", e->path, line, msg);
	g_free(msg);
	return FALSE;
}

gboolean expect_check_steps(const struct expectations *e,
			    const char *const *steps, GError **err)
{
	GHashTableIter it;
	gpointer id, v;
	const struct step_expect *first = NULL;
	const char *first_id = NULL;
	char *known;
	gboolean ok;

	/* the earliest in the file, so the message does not depend on hashing */
	g_hash_table_iter_init(&it, e->steps);
	while (g_hash_table_iter_next(&it, &id, &v)) {
		const struct step_expect *s = v;

		if (g_strv_contains(steps, id) || (first && first->line < s->line))
			continue;
		first = s;
		first_id = id;
	}
	if (!first)
		return TRUE;
	known = g_strjoinv(" ", (char **)steps);
	ok = check_fail(e, first->line, err,
			"[step %s]: no order file has a step %s (steps: %s)",
			first_id, first_id, known);
	g_free(known);
	return ok;
}

static bool matches_any(const char *pattern, const char *const *cases)
{
	GPatternSpec *spec = g_pattern_spec_new(pattern);
	bool found = false;

	for (int i = 0; cases[i] && !found; i++)
		found = g_pattern_spec_match_string(spec, cases[i]);
	g_pattern_spec_free(spec);
	return found;
}

gboolean expect_check_cases(const struct expectations *e,
			    const char *const *cases, GError **err)
{
	for (guint i = 0; i < e->written->len; i++) {
		const struct written *w = e->written->pdata[i];

		if (!matches_any(w->pattern, cases))
			return check_fail(e, w->line, err,
					  "%s: %s matches no case of "
					  "rlimit-tests --list",
					  w->where, w->pattern);
	}
	return TRUE;
}

char **expect_list_cases(const char *text)
{
	char **lines = g_strsplit(text ? text : "", "\n", -1);
	GPtrArray *cases = g_ptr_array_new();

	for (int i = 0; lines[i]; i++) {
		char *l = g_strstrip(lines[i]);
		size_t n = strcspn(l, " \t");

		if (n)
			g_ptr_array_add(cases, g_strndup(l, n));
	}
	g_strfreev(lines);
	g_ptr_array_add(cases, NULL);
	return (char **)g_ptr_array_free(cases, FALSE);
}

bool expect_has_step(const struct expectations *e, const char *step)
{
	return g_hash_table_contains(e->steps, step);
}

enum expect_outcome expect_lookup(const struct expectations *e,
				  const char *step, const char *test)
{
	struct step_expect *s = g_hash_table_lookup(e->steps, step);

	if (!s)
		return EXPECT_NONE;
	for (int k = 0; k < K_N; k++)
		for (guint i = 0; i < s->specs[k]->len; i++)
			if (g_pattern_spec_match_string(s->specs[k]->pdata[i],
							test))
				return key_outcome[k];
	return EXPECT_NONE;
}

static const char *outcome_name(enum expect_outcome o)
{
	switch (o) {
	case EXPECT_PASS:
		return "pass";
	case EXPECT_FAIL:
		return "fail";
	case EXPECT_SKIP:
		return "skip";
	default:
		return "none";
	}
}

static const char *result_name(enum ktap_result r)
{
	return r == KTAP_OK ? "ok" : r == KTAP_NOT_OK ? "not ok" : "skip";
}

static enum expect_outcome actual_outcome(enum ktap_result r)
{
	return r == KTAP_OK ? EXPECT_PASS :
	       r == KTAP_NOT_OK ? EXPECT_FAIL : EXPECT_SKIP;
}

struct tally {
	bool failed;		/* -> test-failed */
	bool unexpected;	/* -> unexpected-pass */
};

/*
 * "name: expected pass, got not ok", and the case's last diagnostic line:
 * the runner's word on how the case ended (a signal, a timeout).
 */
static char *departure(const struct ktap_case *c, enum expect_outcome expected)
{
	GString *s = g_string_new(NULL);
	const char *last = c->diag ? strrchr(c->diag, '\n') : NULL;

	g_string_printf(s, "%s: expected %s, got %s", c->name, outcome_name(expected),
			result_name(c->result));
	if (c->directive)
		g_string_append_printf(s, " # %s", c->directive);
	if (c->diag && *c->diag)
		g_string_append_printf(s, ": %s", last ? last + 1 : c->diag);
	return g_string_free(s, FALSE);
}

static bool arch_skips(const char *const *arch_skip, const char *name)
{
	for (int i = 0; arch_skip && arch_skip[i]; i++)
		if (g_pattern_match_simple(arch_skip[i], name))
			return true;
	return false;
}

static void judge_case(const struct expectations *e, const char *step,
		       const char *const *arch_skip, const struct ktap_case *c,
		       struct judged_case *jc, struct judgement *out, struct tally *t)
{
	enum expect_outcome got = actual_outcome(c->result);
	/* a compat suite's "i386.name" is judged as "name" */
	const char *name = c->suite ? c->name + strlen(c->suite) + 1 : c->name;

	jc->c = c;
	/* what the arch's guest cannot run skips at every step (arch.conf) */
	jc->expected = arch_skips(arch_skip, name) ? EXPECT_SKIP :
		       expect_lookup(e, step, name);
	jc->met = jc->expected == got;
	if (jc->met)
		return;
	if (jc->expected == EXPECT_NONE) {
		t->failed = true;
		g_ptr_array_add(out->evidence,
				g_strdup_printf("%s: no expectation matches it at step %s",
						c->name, step));
		return;
	}
	/* a pass where failure or a skip was expected is the feature leaking */
	if (got == EXPECT_PASS)
		t->unexpected = true;
	else
		t->failed = true;
	g_ptr_array_add(out->evidence, departure(c, jc->expected));
}

static bool reported(const struct ktap_report *r, const char *name)
{
	for (size_t i = 0; i < r->ncases; i++)
		if (!strcmp(r->cases[i].name, name))
			return true;
	return false;
}

/* Tests the expectations name literally but the output lacks. */
static void judge_missing(const struct step_expect *s,
			  const struct ktap_report *r, struct judgement *out,
			  struct tally *t)
{
	for (int k = 0; k < K_N; k++)
		for (guint i = 0; i < s->literals[k]->len; i++) {
			const char *name = s->literals[k]->pdata[i];

			if (reported(r, name))
				continue;
			t->failed = true;
			g_ptr_array_add(out->evidence,
					g_strdup_printf("%s: missing (expected %s)",
							name, key_names[k]));
		}
}

int expect_judge(const struct expectations *e, const char *step,
		 const struct ktap_report *r, struct judgement *out)
{
	return expect_judge_arch(e, step, NULL, r, out);
}

int expect_judge_arch(const struct expectations *e, const char *step,
		      const char *const *arch_skip, const struct ktap_report *r,
		      struct judgement *out)
{
	const struct step_expect *s = g_hash_table_lookup(e->steps, step);
	struct tally t = { 0 };

	memset(out, 0, sizeof(*out));
	out->evidence = g_ptr_array_new_with_free_func(g_free);
	out->verdict = "test-failed";
	if (!s) {
		g_ptr_array_add(out->evidence,
				g_strdup_printf("%s: no [step %s] group", e->path,
						step));
		return -1;
	}
	if (!r->found || !r->complete) {
		t.failed = true;
		g_ptr_array_add(out->evidence,
				g_strdup_printf("KTAP: %s", r->error ? r->error :
						"incomplete output"));
	} else if (!r->ncases) {
		/* "1..0" proves nothing about the kernel: not a pass */
		t.failed = true;
		g_ptr_array_add(out->evidence,
				g_strdup("KTAP: the plan is empty, no case ran"));
	}
	out->ncases = r->ncases;
	out->cases = g_new0(struct judged_case, r->ncases ? r->ncases : 1);
	for (size_t i = 0; i < r->ncases; i++)
		judge_case(e, step, arch_skip, &r->cases[i], &out->cases[i], out, &t);
	judge_missing(s, r, out, &t);
	out->met = !t.failed && !t.unexpected;
	out->verdict = t.failed ? "test-failed" :
		       t.unexpected ? "unexpected-pass" : "pass";
	return 0;
}

void judgement_free(struct judgement *j)
{
	g_free(j->cases);
	if (j->evidence)
		g_ptr_array_free(j->evidence, TRUE);
	memset(j, 0, sizeof(*j));
}
