// SPDX-License-Identifier: GPL-2.0
/*
 * KTAP (Documentation/dev-tools/ktap.rst) out of a guest console log.
 *
 * The console carries more than the test binary's output: firmware noise,
 * kernel messages (with or without "[    1.234567] " timestamps), and
 * kernel messages that land in the middle of a line the test binary was
 * still writing.  Lines that are not KTAP are "unknown lines" and ignored;
 * a line cut by a timestamped kernel message is spliced back together.
 *
 * Nested subtests are flattened: a child's name is "parent.child".  Their
 * result lines come before the parent's, so each nesting level keeps its
 * cases until the parent's result line names them.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "ktap.h"

struct level {
	int plan;		/* -1 until a plan line is seen */
	int next;		/* the number the next result should carry */
	int count;
	GArray *cases;		/* struct ktap_case, names relative to this level */
	GHashTable *seen;	/* numbers already reported */
	GString *diag;		/* '#' lines waiting for the next result */
	char *last;		/* name of the last result, for messages */
};

struct parser {
	GPtrArray *levels;	/* struct level *; [0] is the top level */
	int base;		/* indentation of the top version line */
	bool found;
	bool done;		/* a second top-level document begins: stop */
	GString *err;
	int lineno;
};

static struct level *level_new(void)
{
	struct level *l = g_new0(struct level, 1);

	l->plan = -1;
	l->next = 1;
	l->cases = g_array_new(FALSE, TRUE, sizeof(struct ktap_case));
	l->seen = g_hash_table_new(NULL, NULL);
	l->diag = g_string_new(NULL);
	return l;
}

static void case_clear(struct ktap_case *c)
{
	g_free(c->name);
	g_free(c->directive);
	g_free(c->diag);
	g_free(c->suite);
}

static void level_free(struct level *l)
{
	for (guint i = 0; i < l->cases->len; i++)
		case_clear(&g_array_index(l->cases, struct ktap_case, i));
	g_array_free(l->cases, TRUE);
	g_hash_table_destroy(l->seen);
	g_string_free(l->diag, TRUE);
	g_free(l->last);
	g_free(l);
}

static void perror_add(struct parser *p, const char *fmt, ...)
	G_GNUC_PRINTF(2, 3);

static void perror_add(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	if (p->err->len)
		g_string_append(p->err, "; ");
	va_start(ap, fmt);
	g_string_append_vprintf(p->err, fmt, ap);
	va_end(ap);
}

static int open_depth(const struct parser *p)
{
	return (int)p->levels->len - 1;
}

static struct level *level_at(const struct parser *p, int depth)
{
	return g_ptr_array_index(p->levels, depth);
}

/* Length of a printk timestamp "[   12.345678]" at @s plus one space, or 0. */
static size_t ts_len(const char *s)
{
	const char *q = s;

	if (*q++ != '[')
		return 0;
	while (*q == ' ')
		q++;
	if (!isdigit((unsigned char)*q))
		return 0;
	while (isdigit((unsigned char)*q))
		q++;
	if (*q++ != '.' || !isdigit((unsigned char)*q))
		return 0;
	while (isdigit((unsigned char)*q))
		q++;
	if (*q++ != ']')
		return 0;
	if (*q == ' ')
		q++;
	return q - s;
}

/* Where a timestamp starts inside @s (not at 0), or NULL. */
static const char *ts_inside(const char *s)
{
	/* an empty line (or one that was only a timestamp) has no s + 1 */
	if (!*s)
		return NULL;
	for (const char *q = strchr(s + 1, '['); q; q = strchr(q + 1, '['))
		if (ts_len(q))
			return q;
	return NULL;
}

static bool is_version_line(const char *s)
{
	return g_str_has_prefix(s, "KTAP version ") ||
	       g_str_has_prefix(s, "TAP version ");
}

/* "1..N": returns N, or -1 when @s is not a plan line. */
static int parse_plan(const char *s)
{
	char *end;
	long n;

	if (!g_str_has_prefix(s, "1.."))
		return -1;
	n = strtol(s + 3, &end, 10);
	if (end == s + 3 || n < 0 || n > 1000000)
		return -1;
	while (*end == ' ' || *end == '\t')
		end++;
	/* "1..0 # SKIP reason" is a valid empty plan */
	return (*end == '\0' || *end == '#') ? (int)n : -1;
}

static bool directive_is_skip(const char *d)
{
	return d && g_ascii_strncasecmp(d, "SKIP", 4) == 0 &&
	       (d[4] == '\0' || isspace((unsigned char)d[4]));
}

/*
 * "<ok|not ok> <number> [- ][<description>][ # <directive>]" into @c;
 * false when @s is not a result line.
 */
static bool parse_result(const char *s, struct ktap_case *c)
{
	enum ktap_result res;
	const char *q, *hash;
	char *end, *name;
	long n;

	if (g_str_has_prefix(s, "ok ")) {
		res = KTAP_OK;
		q = s + 3;
	} else if (g_str_has_prefix(s, "not ok ")) {
		res = KTAP_NOT_OK;
		q = s + 7;
	} else {
		return false;
	}
	n = strtol(q, &end, 10);
	if (end == q || n < 0 || n > 1000000 ||
	    (*end != '\0' && *end != ' ' && *end != '\t'))
		return false;
	hash = strchr(end, '#');
	name = hash ? g_strndup(end, hash - end) : g_strdup(end);
	g_strstrip(name);
	if (name[0] == '-' && (name[1] == ' ' || name[1] == '\0'))
		memmove(name, name + 1, strlen(name));
	g_strstrip(name);
	if (!*name) {
		g_free(name);
		name = g_strdup_printf("%ld", n);
	}
	memset(c, 0, sizeof(*c));
	c->number = (int)n;
	c->name = name;
	c->directive = hash ? g_strstrip(g_strdup(hash + 1)) : NULL;
	c->result = directive_is_skip(c->directive) ? KTAP_SKIP : res;
	return true;
}

/* Append @from's cases to @to, names prefixed "@prefix." when given. */
static void level_merge(struct level *to, struct level *from,
			const char *prefix)
{
	for (guint i = 0; i < from->cases->len; i++) {
		struct ktap_case c = g_array_index(from->cases,
						   struct ktap_case, i);

		if (prefix) {
			char *n = g_strdup_printf("%s.%s", prefix, c.name);

			g_free(c.name);
			c.name = n;
		}
		g_array_append_val(to->cases, c);
	}
	g_array_set_size(from->cases, 0);
}

static void check_plan_met(struct parser *p, struct level *l,
			   const char *what)
{
	if (l->plan >= 0 && l->count < l->plan)
		perror_add(p, "truncated: %s planned %d results, got %d%s%s%s",
			   what, l->plan, l->count, l->last ? " (last: " : "",
			   l->last ? l->last : "", l->last ? ")" : "");
}

/*
 * Close every level deeper than @depth.  The level just below @depth gets
 * @parent (the result line that closed it) as its name prefix; deeper ones
 * never got their result line.
 */
static void close_levels(struct parser *p, int depth, const char *parent)
{
	while (open_depth(p) > depth) {
		int d = open_depth(p);
		struct level *l = level_at(p, d);
		struct level *up = level_at(p, d - 1);
		bool named = d == depth + 1 && parent;
		char *what = named ? g_strdup_printf("subtest '%s'", parent) :
				     g_strdup_printf("subtest at depth %d", d);

		check_plan_met(p, l, what);
		if (!named)
			perror_add(p, "%s ended without its result line", what);
		level_merge(up, l, named ? parent : NULL);
		g_free(what);
		g_ptr_array_remove_index(p->levels, d);
	}
}

static void add_result(struct parser *p, int depth, struct ktap_case *c)
{
	struct level *l;

	if (depth > open_depth(p))
		depth = open_depth(p);
	close_levels(p, depth, c->name);
	l = level_at(p, depth);
	if (g_hash_table_contains(l->seen, GINT_TO_POINTER(c->number)))
		perror_add(p, "duplicate test number %d ('%s', line %d)",
			   c->number, c->name, p->lineno);
	else if (c->number != l->next)
		perror_add(p, "test number %d out of order ('%s', line %d, expected %d)",
			   c->number, c->name, p->lineno, l->next);
	g_hash_table_add(l->seen, GINT_TO_POINTER(c->number));
	l->next = c->number + 1;
	l->count++;
	if (l->plan >= 0 && l->count == l->plan + 1)
		perror_add(p, "more results than the plan 1..%d ('%s', line %d)",
			   l->plan, c->name, p->lineno);
	if (l->diag->len)
		c->diag = g_strdup(l->diag->str);
	g_string_truncate(l->diag, 0);
	g_free(l->last);
	l->last = g_strdup(c->name);
	g_array_append_val(l->cases, *c);
}

static void add_version(struct parser *p, int depth)
{
	if (!p->found) {
		p->found = true;
		g_ptr_array_add(p->levels, level_new());
		return;
	}
	if (depth == 0) {
		/* a second document (another producer, a restarted binary) */
		p->done = true;
		return;
	}
	if (depth <= open_depth(p))
		close_levels(p, depth - 1, NULL);
	g_ptr_array_add(p->levels, level_new());
}

static void add_plan(struct parser *p, int depth, int n)
{
	struct level *l = level_at(p, MIN(depth, open_depth(p)));

	if (l->plan >= 0)
		perror_add(p, "second plan line 1..%d (line %d)", n, p->lineno);
	else
		l->plan = n;
}

static void add_diag(struct parser *p, int depth, const char *s)
{
	struct level *l = level_at(p, MIN(depth, open_depth(p)));

	if (l->diag->len)
		g_string_append_c(l->diag, '\n');
	g_string_append(l->diag, s);
}

static void feed_line(struct parser *p, const char *line)
{
	struct ktap_case c;
	int indent = 0, depth, n;
	const char *s = line;

	while (*s == ' ')
		s++;
	indent = s - line;
	if (!p->found) {
		const char *v = strstr(line, "KTAP version ");

		if (!v)
			v = strstr(line, "TAP version ");
		if (!v)
			return;
		/*
		 * Nesting is relative to the top version line's indentation;
		 * text glued before it (a kernel message without a newline) is
		 * not indentation.
		 */
		p->base = v - line == indent ? indent : 0;
		add_version(p, 0);
		return;
	}
	depth = indent > p->base ? (indent - p->base) / 2 : 0;
	if (is_version_line(s))
		add_version(p, depth);
	else if ((n = parse_plan(s)) >= 0)
		add_plan(p, depth, n);
	else if (parse_result(s, &c))
		add_result(p, depth, &c);
	else if (*s == '#')
		add_diag(p, depth, s);
}

/*
 * Split @text into lines, drop carriage returns, NULs and a leading printk
 * timestamp, and splice a line a kernel message cut in two:
 * "ok 3 na[    2.1] random: crng init done\nme" gives "ok 3 name".
 */
static void feed_text(struct parser *p, const char *text, size_t len)
{
	GString *line = g_string_new(NULL);
	GString *carry = g_string_new(NULL);
	size_t i = 0;

	while (i < len && !p->done) {
		const char *s, *cut;
		size_t t;

		g_string_truncate(line, 0);
		for (; i < len && text[i] != '\n'; i++)
			if (text[i] != '\r' && text[i] != '\0')
				g_string_append_c(line, text[i]);
		i++;
		p->lineno++;
		t = ts_len(line->str);
		s = line->str + t;
		if (!t && carry->len) {
			g_string_prepend(line, carry->str);
			g_string_truncate(carry, 0);
			s = line->str;
		}
		cut = ts_inside(s);
		if (cut) {
			g_string_append_len(carry, s, cut - s);
			continue;
		}
		feed_line(p, s);
	}
	if (carry->len && !p->done)
		feed_line(p, carry->str);
	g_string_free(line, TRUE);
	g_string_free(carry, TRUE);
}

static void finish(struct parser *p, struct ktap_report *out)
{
	struct level *top;

	if (!p->found) {
		out->error = g_strdup("no KTAP version line in the output");
		return;
	}
	if (open_depth(p) > 0) {
		perror_add(p, "truncated inside a subtest (depth %d)",
			   open_depth(p));
		close_levels(p, 0, NULL);
	}
	top = level_at(p, 0);
	out->plan = top->plan;
	if (top->plan < 0)
		perror_add(p, "no plan line (%d results)", top->count);
	else
		check_plan_met(p, top, "the plan");
	out->ncases = top->cases->len;
	out->cases = (struct ktap_case *)g_array_steal(top->cases, NULL);
	out->complete = p->err->len == 0;
	if (p->err->len)
		out->error = g_strdup(p->err->str);
}

/*
 * Always 0: what was found (or not) is in @out's found, complete and error,
 * which the judge turns into a verdict.
 */
int ktap_parse(const char *text, size_t len, struct ktap_report *out)
{
	struct parser p = { 0 };

	memset(out, 0, sizeof(*out));
	out->plan = -1;
	p.levels = g_ptr_array_new_with_free_func((GDestroyNotify)level_free);
	p.err = g_string_new(NULL);
	if (text)
		feed_text(&p, text, len);
	finish(&p, out);
	out->found = p.found;
	g_ptr_array_free(p.levels, TRUE);
	g_string_free(p.err, TRUE);
	return 0;
}

void ktap_report_free(struct ktap_report *r)
{
	for (size_t i = 0; i < r->ncases; i++)
		case_clear(&r->cases[i]);
	g_free(r->cases);
	g_free(r->error);
	memset(r, 0, sizeof(*r));
	r->plan = -1;
}
