// SPDX-License-Identifier: GPL-2.0
/*
 * The release manager's page: one screen of plain text that answers "can
 * this go out?" first, then what changed since the run given to --against,
 * every cell that is not met (one line each, its class and the first line
 * of its evidence), and what is stale or missing.  It also heads the
 * Markdown and HTML reports.  The gate is report_gate(), which `kmatrix
 * status` uses too, so both always give the same answer.
 */
#include <string.h>

#include "report.h"
#include "result.h"

/* The first line of what explains a cell: evidence, summary, or why missing. */
static char *first_evidence(const struct rcell *c)
{
	json_t *ev = c->res ? json_object_get(c->res, "evidence") : NULL;
	const char *s = c->missing;
	char *line, *nl;

	if (json_array_size(ev))
		s = json_string_value(json_array_get(ev, 0));
	else if (c->res)
		s = jstr(c->res, "summary");
	line = report_clean(s ? s : "");
	nl = strchr(line, '\n');
	if (nl)
		*nl = '\0';
	g_strstrip(line);
	/* one line a cell: long compiler errors are cut, the log has them */
	if (strlen(line) > 110)
		strcpy(line + 107, "...");
	return line;
}

/*
 * Stale: a met result that is not final (the next run does it again), or
 * one judged against other expectations than this run's.  A result that
 * did not meet its expectation is listed as such already.
 */
static const char *stale_reason(const struct report *r, const struct rcell *c)
{
	return c->res ? result_stale(c->res, jstr(r->run->meta, "expectations")) : NULL;
}

int report_stale(const struct report *r)
{
	int n = 0;

	for (guint i = 0; i < r->run->cells->len; i++)
		n += stale_reason(r, r->run->cells->pdata[i]) != NULL;
	return n;
}

enum report_gate report_gate(int planned, int unmet, int missing, int stale)
{
	if (unmet)
		return GATE_BLOCKED;
	if (missing || stale || !planned)
		return GATE_INCOMPLETE;
	return GATE_SHIP;
}

const char *report_gate_word(enum report_gate g)
{
	switch (g) {
	case GATE_SHIP:
		return "SHIP";
	case GATE_BLOCKED:
		return "BLOCKED";
	case GATE_INCOMPLETE:
		break;
	}
	return "INCOMPLETE";
}

void report_tally(struct report *r)
{
	r->planned = r->with_result = r->met = r->departed = r->missing = 0;
	r->knock_on = 0;
	for (guint i = 0; i < r->run->cells->len; i++) {
		const struct rcell *c = r->run->cells->pdata[i];

		r->planned++;
		if (!c->res) {
			r->missing++;
			continue;
		}
		r->with_result++;
		if (c->met)
			r->met++;
		else if (c->knock_of)
			r->knock_on++;
		else
			r->departed++;
	}
	r->stale = report_stale(r);
	/* a knock-on is unmet too; its root is a departure, so it never ships */
	r->gate = r->run->meta_error ? GATE_INCOMPLETE :
		  report_gate(r->planned, r->departed + r->knock_on, r->missing, r->stale);
}

int report_gate_status(const struct report *r)
{
	return r->gate;
}

void report_verdict_line(GString *out, const struct report *r)
{
	size_t nx = json_array_size(run_excluded(r->run));

	g_string_append_printf(out, "%s: ", report_gate_word(r->gate));
	switch (r->gate) {
	case GATE_SHIP:
		g_string_append_printf(out, "all %d planned cells met their expectations",
				       r->planned);
		break;
	case GATE_BLOCKED:
		g_string_append_printf(out, "%d of %d cells did not meet their expectations",
				       r->departed, r->planned);
		if (r->knock_on)
			g_string_append_printf(out, ", %d more not run after a step that did not apply",
					       r->knock_on);
		break;
	case GATE_INCOMPLETE:
		g_string_append_printf(out, "%d of %d cells met, %d missing, %d stale%s",
				       r->met, r->planned, r->missing, r->stale,
				       r->run->meta_error ? ", run.json unusable" : "");
		break;
	}
	if (nx)
		g_string_append_printf(out, " (%zu version x arch excluded)", nx);
}

static void verdict_line(GString *out, const struct report *r)
{
	report_verdict_line(out, r);
	g_string_append_c(out, '\n');
}

static void cell_line(GString *out, const struct rcell *c, const char *why)
{
	char *ev = why ? g_strdup(why) : first_evidence(c);

	g_string_append_printf(out, "  %-24s %-15s %s\n", c->id, c->verdict, ev);
	g_free(ev);
}

static void id_list(GString *out, const char *title, GPtrArray *cells)
{
	if (!cells->len)
		return;
	g_string_append_printf(out, "  %s (%u):", title, cells->len);
	for (guint i = 0; i < cells->len; i++)
		g_string_append_printf(out, " %s", ((const struct rcell *)cells->pdata[i])->id);
	g_string_append_c(out, '\n');
}

static void str_list(GString *out, const char *title, GPtrArray *names)
{
	if (!names->len)
		return;
	g_string_append_printf(out, "  %s:", title);
	for (guint i = 0; i < names->len; i++)
		g_string_append_printf(out, " %s", (const char *)names->pdata[i]);
	g_string_append_c(out, '\n');
}

static void changes(GString *out, const struct report *r)
{
	const struct trend *t = r->trend;

	if (!t) {
		g_string_append(out, "\nChanges: no earlier run given (--against)\n");
		return;
	}
	g_string_append_printf(out, "\nChanges since %s:\n", t->against);
	if (!t->new_departures->len && !t->fixed->len && !t->new_versions->len &&
	    !t->new_arches->len)
		g_string_append(out, "  none\n");
	id_list(out, "new departures", t->new_departures);
	id_list(out, "fixed", t->fixed);
	str_list(out, "new versions", t->new_versions);
	str_list(out, "new arches", t->new_arches);
}

/* Under its root, each knock-on cell and why it did not run. */
static void knock_lines(GString *out, const struct report *r, const struct rcell *root)
{
	GPtrArray *k = report_knock_ons(r, root);

	for (guint i = 0; i < k->len; i++) {
		const struct rcell *c = k->pdata[i];
		char *why = report_knock_text(c);

		g_string_append_printf(out, "    %-22s %-15s %s\n", c->id, "knock-on", why);
		g_free(why);
	}
	g_ptr_array_free(k, TRUE);
}

static void unmet(GString *out, const struct report *r)
{
	g_string_append_printf(out, "\nNot met (%d", r->departed);
	if (r->knock_on)
		g_string_append_printf(out, ", and %d knock-on", r->knock_on);
	g_string_append_printf(out, "):%s\n", r->departed ? "" : " none");
	for (guint i = 0; i < r->run->cells->len; i++) {
		const struct rcell *c = r->run->cells->pdata[i];

		if (c->res && !c->met && !c->knock_of) {
			cell_line(out, c, NULL);
			knock_lines(out, r, c);
		}
	}
}

static void stale_missing(GString *out, const struct report *r)
{
	g_string_append_printf(out, "\nMissing (%d), stale (%d):%s\n", r->missing, r->stale,
			       r->missing || r->stale ? "" : " none");
	if (r->run->meta_error)
		g_string_append_printf(out, "  run.json: %s\n", r->run->meta_error);
	for (guint i = 0; i < r->run->cells->len; i++) {
		const struct rcell *c = r->run->cells->pdata[i];
		const char *why = stale_reason(r, c);

		if (!c->res)
			cell_line(out, c, c->missing);
		else if (why)
			cell_line(out, c, why);
	}
}

static void excluded(GString *out, const struct report *r)
{
	json_t *x;
	size_t i;

	json_array_foreach(run_excluded(r->run), i, x) {
		if (!i)
			g_string_append(out, "\nExcluded (not run, not counted):\n");
		g_string_append_printf(out, "  %s/%s: %s\n", jstr(x, "version"), jstr(x, "arch"),
				       jstr(x, "reason"));
	}
}

/*
 * The score goes beside the verdict, not into it: the matrix judges the
 * series (does every cell meet its expectation?), the score judges the
 * tests (would they catch a wrong backport?).  A survivor is a hole in
 * the tests that a SHIP does not excuse, so it is said right under it.
 */
static void mutants(GString *out, const struct report *r)
{
	if (!r->mutants)
		return;
	if (report_mutants_alarm(r))
		g_string_append(out, "WARNING: ");
	report_mutants_line(out, r);
	g_string_append_c(out, '\n');
}

void report_summary(GString *out, const struct report *r)
{
	verdict_line(out, r);
	mutants(out, r);
	changes(out, r);
	unmet(out, r);
	stale_missing(out, r);
	excluded(out, r);
}
