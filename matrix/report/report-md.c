// SPDX-License-Identifier: GPL-2.0
/*
 * Markdown, for a mailing list or a merge request: the summary line first,
 * then the grid, every departure with its evidence, missing cells, trend,
 * drift, ABI and where the time went.
 */
#include <string.h>

#include "report.h"

/* Table cells: no line breaks, no bare '|'. */
static void md_cell(GString *out, const char *s)
{
	char *c = report_clean(s);

	for (const char *p = c; *p; p++) {
		if (*p == '|')
			g_string_append(out, "\\|");
		else if (*p == '\n')
			g_string_append_c(out, ' ');
		else
			g_string_append_c(out, *p);
	}
	g_free(c);
}

/* A fenced block that the text itself cannot close. */
static void md_block(GString *out, const char *text)
{
	char *c = report_clean(text);
	char **lines = g_strsplit(c, "\n", -1);

	g_string_append(out, "\n```text\n");
	for (int i = 0; lines[i]; i++)
		g_string_append_printf(out, "%s%s\n",
				       g_str_has_prefix(lines[i], "```") ? " " : "",
				       lines[i]);
	g_string_append(out, "```\n");
	g_strfreev(lines);
	g_free(c);
}

static void md_header(GString *out, const struct report *r)
{
	json_t *m = r->run->meta;
	char *commit = report_short(jstr(m, "project_commit"));

	g_string_append(out, "# kmatrix report\n\n**");
	report_verdict_line(out, r);
	g_string_append(out, "**\n\n");
	if (r->mutants) {
		g_string_append(out, report_mutants_alarm(r) ? "**WARNING: " : "");
		report_mutants_line(out, r);
		g_string_append(out, report_mutants_alarm(r) ? "**\n\n" : "\n\n");
	}
	report_summary_counts(r, out);
	g_string_append(out, ".\n\n");
	g_string_append_printf(out, "Run %s to %s on `%s`, project commit `%s`.  ",
			       *jstr(m, "started") ? jstr(m, "started") : "?",
			       *jstr(m, "finished") ? jstr(m, "finished") : "?",
			       *jstr(m, "host") ? jstr(m, "host") : "?",
			       *commit ? commit : "?");
	g_string_append(out, "Arches:");
	for (guint i = 0; i < r->run->arches->len; i++)
		g_string_append_printf(out, " %s", (char *)r->run->arches->pdata[i]);
	g_string_append(out, "; steps:");
	for (guint i = 0; i < r->run->steps->len; i++)
		g_string_append_printf(out, " %s", (char *)r->run->steps->pdata[i]);
	g_string_append(out, ".\n\n| version | kernel |\n|---|---|\n");
	for (guint i = 0; i < r->run->versions->len; i++) {
		char *k = report_kernel_of(r->run, r->run->versions->pdata[i]);

		g_string_append_printf(out, "| %s | ", (char *)r->run->versions->pdata[i]);
		md_cell(out, k);
		g_string_append(out, " |\n");
		g_free(k);
	}
	if (r->run->meta_error)
		g_string_append_printf(out, "\n> %s\n", r->run->meta_error);
	g_free(commit);
}

static void md_summary(GString *out, const struct report *r)
{
	GString *s = g_string_new(NULL);

	report_summary(s, r);
	while (s->len && s->str[s->len - 1] == '\n')
		g_string_truncate(s, s->len - 1);
	g_string_append(out, "\n## Summary\n");
	md_block(out, s->str);
	g_string_free(s, TRUE);
}

static void md_grid(GString *out, const struct report *r)
{
	const struct run *run = r->run;

	g_string_append(out, "\n## Grid\n\n| version | arch |");
	for (guint s = 0; s < run->steps->len; s++)
		g_string_append_printf(out, " %s |", (char *)run->steps->pdata[s]);
	g_string_append(out, "\n|---|---|");
	for (guint s = 0; s < run->steps->len; s++)
		g_string_append(out, "---|");
	g_string_append_c(out, '\n');
	for (guint v = 0; v < run->versions->len; v++)
		for (guint a = 0; a < run->arches->len; a++) {
			g_string_append_printf(out, "| %s | %s |",
					       (char *)run->versions->pdata[v],
					       (char *)run->arches->pdata[a]);
			for (guint s = 0; s < run->steps->len; s++) {
				const struct rcell *c = run_cell_at(run, v, a, s);

				if (!c)
					g_string_append(out, run_excluded_at(run, v, a) ?
							     " excluded |" : " |");
				else if (c->met)
					g_string_append(out, " pass |");
				else if (c->knock_of)
					g_string_append_printf(out, " not run (%s) |",
							       c->knock_of->step);
				else
					g_string_append_printf(out, " **%s** |",
							       report_style(c->verdict)->label);
			}
			g_string_append_c(out, '\n');
		}
}

/* Every excluded version x arch: why, and the log that shows it. */
static void md_excluded(GString *out, const struct report *r)
{
	json_t *x, *line;
	size_t i, j;

	if (!json_array_size(run_excluded(r->run)))
		return;
	g_string_append(out, "\n## Excluded\n");
	json_array_foreach(run_excluded(r->run), i, x) {
		GString *ev = g_string_new(NULL);

		g_string_append_printf(out, "\n### %s x %s\n\n", jstr(x, "version"),
				       jstr(x, "arch"));
		md_cell(out, jstr(x, "reason"));
		g_string_append_printf(out, " (evidence: `%s`)\n", jstr(x, "evidence_file"));
		json_array_foreach(json_object_get(x, "evidence"), j, line)
			g_string_append_printf(ev, "%s%s", j ? "\n" : "", json_string_value(line));
		if (ev->len)
			md_block(out, ev->str);
		g_string_free(ev, TRUE);
	}
}

static void md_failed_tests(GString *out, const struct rcell *c)
{
	json_t *t;
	size_t i;
	bool any = false;

	json_array_foreach(json_object_get(c->res, "tests"), i, t) {
		if (json_is_true(json_object_get(t, "met")))
			continue;
		if (!any)
			g_string_append(out, "\nTests that departed:\n\n");
		any = true;
		g_string_append_printf(out, "- `%s`: expected %s, got %s",
				       jstr(t, "name"), jstr(t, "expected"),
				       jstr(t, "result"));
		if (*jstr(t, "diag")) {
			g_string_append(out, " (");
			md_cell(out, jstr(t, "diag"));
			g_string_append_c(out, ')');
		}
		g_string_append_c(out, '\n');
	}
}

static void md_logs(GString *out, const struct report *r, const struct rcell *c)
{
	GPtrArray *links = report_log_links(r, c);

	for (guint i = 0; i < links->len; i++) {
		const struct report_link *l = links->pdata[i];

		g_string_append_printf(out, "%s[%s](<%s>)", i ? ", " : "\nLogs: ", l->name,
				       l->href);
	}
	if (links->len)
		g_string_append_c(out, '\n');
	g_ptr_array_free(links, TRUE);
}

/* The later steps this one stopped: counted here, once. */
static void md_knock_ons(GString *out, const struct report *r, const struct rcell *c)
{
	GPtrArray *k = report_knock_ons(r, c);

	if (k->len)
		g_string_append_printf(out, "\nKnock-on (%u, not counted as departures):\n\n",
				       k->len);
	for (guint i = 0; i < k->len; i++) {
		char *why = report_knock_text(k->pdata[i]);

		g_string_append_printf(out, "- `%s`: %s\n",
				       ((const struct rcell *)k->pdata[i])->id, why);
		g_free(why);
	}
	g_ptr_array_free(k, TRUE);
}

static void md_departure(GString *out, const struct report *r,
			 const struct rcell *c)
{
	char *commit = report_short(jstr(c->res, "commit"));
	char *ev = report_evidence(c);

	g_string_append_printf(out, "\n### %s: %s\n\n`%s` ", c->id, c->verdict,
			       commit);
	md_cell(out, jstr(c->res, "subject"));
	g_string_append(out, "  \n");
	md_cell(out, jstr(c->res, "summary"));
	g_string_append_c(out, '\n');
	if (ev && *ev)
		md_block(out, ev);
	md_logs(out, r, c);
	md_failed_tests(out, c);
	md_knock_ons(out, r, c);
	g_free(ev);
	g_free(commit);
}

static void md_missing(GString *out, const struct report *r,
		       const struct rcell *c)
{
	g_string_append_printf(out, "- `%s`: ", c->id);
	md_cell(out, c->missing);
	g_string_append_c(out, '\n');
}

static void md_departures(GString *out, const struct report *r)
{
	g_string_append_printf(out, "\n## Departures (%d)\n", r->departed);
	if (!r->departed)
		g_string_append(out, "\nNone.\n");
	report_walk(out, r, REPORT_DEPARTED, md_departure);
	if (!r->missing)
		return;
	g_string_append_printf(out, "\n## Missing results (%d)\n\n", r->missing);
	report_walk(out, r, REPORT_MISSING, md_missing);
}

static void md_cell_list(GString *out, const char *title, GPtrArray *cells,
			 const struct trend *t)
{
	g_string_append_printf(out, "\n%s (%u):%s\n", title, cells->len,
			       cells->len ? "\n" : " none.");
	for (guint i = 0; i < cells->len; i++) {
		const struct rcell *c = cells->pdata[i];
		const char *was = g_hash_table_lookup(t->before, c->id);

		g_string_append_printf(out, "- `%s`: %s (was %s)\n", c->id,
				       c->verdict, was ? was : "not run");
	}
}

static void md_trend(GString *out, const struct report *r)
{
	const struct trend *t = r->trend;

	if (!t)
		return;
	g_string_append_printf(out, "\n## Trend against `%s`\n", t->against);
	md_cell_list(out, "New departures", t->new_departures, t);
	md_cell_list(out, "Fixed", t->fixed, t);
	md_cell_list(out, "Still departing", t->still, t);
	g_string_append_printf(out, "\nTiming changes over %.0f%% (%u):%s\n",
			       t->share * 100, t->timing->len,
			       t->timing->len ? "\n" : " none.");
	for (guint i = 0; i < t->timing->len; i++) {
		const struct timing_change *tc = t->timing->pdata[i];

		g_string_append_printf(out, "- `%s`: %.1f s -> %.1f s (%+.0f%%), mostly %s %.1f s -> %.1f s\n",
				       tc->cell->id, tc->before, tc->after,
				       (tc->after - tc->before) * 100 / tc->before,
				       tc->stage, tc->stage_before, tc->stage_after);
	}
}

/* A header row, the rule, a line per row; the caller writes the title. */
static void md_table(GString *out, const struct report_table *t)
{
	g_string_append_c(out, '|');
	for (guint c = 0; c < t->cols->len; c++) {
		g_string_append_c(out, ' ');
		md_cell(out, t->cols->pdata[c]);
		g_string_append(out, " |");
	}
	g_string_append(out, "\n|");
	for (guint c = 0; c < t->cols->len; c++)
		g_string_append(out, "---|");
	for (guint row = 0; row < t->rows->len; row++) {
		GPtrArray *cells = t->rows->pdata[row];

		g_string_append(out, "\n|");
		for (guint c = 0; c < cells->len; c++) {
			g_string_append_c(out, ' ');
			md_cell(out, cells->pdata[c]);
			g_string_append(out, " |");
		}
	}
	g_string_append_c(out, '\n');
}

static void md_drift(GString *out, const struct report *r)
{
	struct report_table *t;

	g_string_append(out, "\n## Backport drift\n");
	if (!r->drift || !r->drift->len)
		g_string_append(out, "\nNo matrix definition found.\n");
	for (guint i = 0; r->drift && i < r->drift->len; i++) {
		const struct drift *d = r->drift->pdata[i];

		if (d->state != DRIFT_COMPARED) {
			g_string_append_printf(out, "\n- %s: %s%s\n", d->version,
					       d->state == DRIFT_CANONICAL ? "" : "drift ",
					       d->note);
			continue;
		}
		g_string_append_printf(out, "\n### %s (%s)\n\n", d->version, d->note);
		t = report_drift_table(d);
		md_table(out, t);
		report_table_free(t);
	}
}

static void md_abi(GString *out, const struct report *r)
{
	GPtrArray *tables = report_abi_section(r);

	if (!tables)
		return;
	g_string_append(out, "\n## ABI (rlimit-abi)\n");
	for (guint i = 0; i < tables->len; i++) {
		const struct report_table *t = tables->pdata[i];

		g_string_append_printf(out, "\n%s%s", t->title,
				       *t->title ? ":\n\n" : "");
		md_table(out, t);
	}
	g_ptr_array_free(tables, TRUE);
}

static void md_timings(GString *out, const struct report *r)
{
	double sums[8] = { 0 }, all = 0;
	int n = 0;

	g_string_append(out, "\n## Timings (seconds)\n\n| cell |");
	for (int s = 0; report_stages[s]; s++)
		g_string_append_printf(out, " %s |", report_stages[s]);
	g_string_append(out, " total |\n|---|");
	for (int s = 0; report_stages[s]; s++)
		g_string_append(out, "---:|");
	g_string_append(out, "---:|\n");
	for (guint i = 0; i < r->run->cells->len; i++) {
		const struct rcell *c = r->run->cells->pdata[i];

		if (!c->res)
			continue;
		g_string_append_printf(out, "| %s |", c->id);
		for (int s = 0; report_stages[s]; s++) {
			sums[s] += cell_stage(c, report_stages[s]);
			g_string_append_printf(out, " %.1f |", cell_stage(c, report_stages[s]));
		}
		g_string_append_printf(out, " %.1f |\n", c->total);
		all += c->total;
		n++;
	}
	g_string_append(out, "| **all** |");
	for (int s = 0; report_stages[s]; s++)
		g_string_append_printf(out, " %.1f |", sums[s]);
	g_string_append_printf(out, " %.1f |\n\n%d cells took %.1f s", all, n, all);
	if (all > 0) {
		int best = 0;

		for (int s = 1; report_stages[s]; s++)
			if (sums[s] > sums[best])
				best = s;
		g_string_append_printf(out, "; most of it in %s (%.0f%%)",
				       report_stages[best], sums[best] * 100 / all);
	}
	g_string_append(out, ".\n");
}

static void md_mutants(GString *out, const struct report *r)
{
	struct report_table *t;

	if (!r->mutants)
		return;
	g_string_append_printf(out, "\n## Mutation testing\n\n%d of %d killed (`%s`).\n\n",
			       r->mutants->killed, r->mutants->total, r->mutants->file);
	t = report_mutants_table(r);
	md_table(out, t);
	report_table_free(t);
}

static void md_audio(GString *out, const struct report *r)
{
	struct report_table *t = report_audio_table(r);

	if (!t)
		return;
	g_string_append_printf(out, "\n## Audio user\n\n%s\n\n", t->title);
	md_table(out, t);
	report_table_free(t);
}

void report_md(GString *out, const struct report *r)
{
	md_header(out, r);
	md_summary(out, r);
	md_grid(out, r);
	md_excluded(out, r);
	md_trend(out, r);
	md_departures(out, r);
	md_drift(out, r);
	md_abi(out, r);
	md_audio(out, r);
	md_mutants(out, r);
	md_timings(out, r);
}
