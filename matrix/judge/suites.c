// SPDX-License-Identifier: GPL-2.0
/*
 * A guest console holds one KTAP document per test binary: the native one
 * first, then one after each "KMATRIX-SUITE <name>" line.  Each is parsed
 * on its own (the parser stops at a second document) and the compat
 * suites' cases are named "<suite>.<case>", so a departure of the compat
 * ABI alone shows as such in the results.
 */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "suites.h"

#define SUITE_MARK "KMATRIX-SUITE "

struct segment {
	char *name;		/* NULL: the native suite */
	const char *start;
	size_t len;
};

/* The marker may follow a printk timestamp or text glued before it. */
static const char *suite_mark(const char *line, const char *end, char **name)
{
	const char *m = g_strstr_len(line, end - line, SUITE_MARK);
	const char *n, *e;

	if (!m)
		return NULL;
	n = m + strlen(SUITE_MARK);
	for (e = n; e < end && (g_ascii_isalnum(*e) || *e == '_'); e++)
		;
	if (e == n)
		return NULL;
	*name = g_strndup(n, e - n);
	return m;
}

static GArray *split(const char *text)
{
	GArray *segs = g_array_new(FALSE, TRUE, sizeof(struct segment));
	struct segment cur = { NULL, text, 0 };
	const char *p = text;

	while (*p) {
		const char *end = strchr(p, '\n');
		char *name = NULL;

		if (!end)
			end = p + strlen(p);
		if (suite_mark(p, end, &name)) {
			cur.len = p - cur.start;
			g_array_append_val(segs, cur);
			cur.name = name;
			cur.start = *end ? end + 1 : end;
		}
		p = *end ? end + 1 : end;
	}
	cur.len = p - cur.start;
	g_array_append_val(segs, cur);
	return segs;
}

static void segments_free(GArray *segs)
{
	for (guint i = 0; i < segs->len; i++)
		g_free(g_array_index(segs, struct segment, i).name);
	g_array_free(segs, TRUE);
}

static void add_error(GString *err, const char *suite, const char *what)
{
	if (err->len)
		g_string_append(err, "; ");
	if (suite)
		g_string_append_printf(err, "%s suite: ", suite);
	g_string_append(err, what);
}

/* Move @r's cases into @cases, prefixed with the suite's name. */
static void take_cases(GArray *cases, struct ktap_report *r, const char *suite)
{
	for (size_t i = 0; i < r->ncases; i++) {
		struct ktap_case c = r->cases[i];

		if (suite) {
			char *n = g_strdup_printf("%s.%s", suite, c.name);

			g_free(c.name);
			c.name = n;
			c.suite = g_strdup(suite);
		}
		g_array_append_val(cases, c);
	}
	g_free(r->cases);
	r->cases = NULL;
	r->ncases = 0;
}

static void merge_suite(struct ktap_report *out, GArray *cases, GString *err,
			const struct segment *s)
{
	struct ktap_report r;

	ktap_parse(s->start, s->len, &r);
	if (!s->name)
		out->found = r.found;
	else if (!r.found) {
		out->complete = false;
		add_error(err, s->name, "no KTAP version line in the output");
	}
	if (r.found && r.plan >= 0)
		out->plan = (out->plan < 0 ? 0 : out->plan) + r.plan;
	if (r.found && !r.complete)
		out->complete = false;
	if (r.found && r.error)
		add_error(err, s->name, r.error);
	take_cases(cases, &r, s->name);
	ktap_report_free(&r);
}

void suites_parse(const char *text, const char *compat, struct ktap_report *out)
{
	GArray *segs = split(text ? text : "");
	GArray *cases = g_array_new(FALSE, TRUE, sizeof(struct ktap_case));
	GString *err = g_string_new(NULL);
	bool seen = !compat || !*compat;

	memset(out, 0, sizeof(*out));
	out->plan = -1;
	out->complete = true;
	for (guint i = 0; i < segs->len; i++) {
		const struct segment *s = &g_array_index(segs, struct segment, i);

		if (s->name && compat && !strcmp(s->name, compat))
			seen = true;
		merge_suite(out, cases, err, s);
	}
	if (!out->found) {
		out->complete = false;
		add_error(err, NULL, "no KTAP version line in the output");
	} else if (!seen) {
		/* the guest ran its native tests only: the compat ABI is unproven */
		out->complete = false;
		add_error(err, compat, "missing (no KMATRIX-SUITE line for it on the console)");
	}
	if (out->plan < 0)
		out->complete = false;
	out->ncases = cases->len;
	out->cases = (struct ktap_case *)g_array_free(cases, FALSE);
	out->error = err->len ? g_strdup(err->str) : NULL;
	g_string_free(err, TRUE);
	segments_free(segs);
}

/* "RLIMIT_NICE=13 ... RLIM_INFINITY=0x7fffffff" into an object of numbers. */
static json_t *abi_values(const char *s)
{
	char **words = g_strsplit_set(s, " \t", -1);
	json_t *o = json_object();

	for (int i = 0; words[i]; i++) {
		char *eq = strchr(words[i], '=');
		char *end;
		unsigned long long v;

		if (!eq || eq == words[i])
			continue;
		*eq = '\0';
		v = g_ascii_strtoull(eq + 1, &end, 0);
		if (end == eq + 1 || *end)
			continue;
		/* RLIM_INFINITY does not fit a JSON integer: keep its text */
		if (v > (unsigned long long)G_MAXINT64)
			json_object_set_new(o, words[i], json_string(eq + 1));
		else
			json_object_set_new(o, words[i], json_integer((json_int_t)v));
	}
	g_strfreev(words);
	return o;
}

static void abi_lines(json_t *suite, const struct segment *s)
{
	char *seg = g_strndup(s->start, s->len);
	char **lines = g_strsplit(seg, "\n", -1);

	for (int i = 0; lines[i]; i++) {
		const char *a = strstr(lines[i], "# abi ");
		char src[16];
		int n = 0;

		if (!a || sscanf(a, "# abi %15[a-z] %n", src, &n) != 1 || !n)
			continue;
		if (!json_object_get(suite, src))
			json_object_set_new(suite, src, abi_values(g_strstrip(lines[i] +
							(a - lines[i]) + n)));
	}
	g_strfreev(lines);
	g_free(seg);
}

json_t *suites_abi(const char *text, const char *native)
{
	GArray *segs = split(text ? text : "");
	json_t *all = json_object();

	for (guint i = 0; i < segs->len; i++) {
		const struct segment *s = &g_array_index(segs, struct segment, i);
		json_t *suite = json_object();

		abi_lines(suite, s);
		if (json_object_size(suite))
			json_object_set_new(all, s->name ? s->name : native, suite);
		else
			json_decref(suite);
	}
	segments_free(segs);
	if (!json_object_size(all)) {
		json_decref(all);
		return NULL;
	}
	return all;
}
