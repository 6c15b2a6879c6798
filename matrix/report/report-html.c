// SPDX-License-Identifier: GPL-2.0
/*
 * HTML: one self-contained page, no network and no script.  Every verdict
 * has its own colour and a text label (it reads in grey too); the grid has
 * one element per cell carrying data-cell and data-verdict; each cell
 * expands (<details>) to its KTAP results, log excerpt and timings; an
 * inline SVG chart shows where the run's time went.
 */
#include <string.h>

#include "report.h"

#define LOG_LINES 40
#define CHART_LABEL 190
#define CHART_BARS 640
#define CHART_ROW 18

static const char *const stage_colours[] = {
	"#7b8fc7", "#4fae8f", "#e07b4f", "#c66aa8", "#7fb13a", "#d9b01c",
};

/* Every verdict class, in the legend's order. */
static const char *const legend[] = {
	"pass", "test-failed", "unexpected-pass", "apply-failed", "config-failed",
	"build-failed", "boot-failed", "timeout", "infra-error", "setup-error",
	"missing", NULL
};

static char *anchor(const struct rcell *c)
{
	return g_strdelimit(g_strdup_printf("cell-%s", c->id), "/", '-');
}

static void h_style(GString *out)
{
	g_string_append(out,
		"<style>\n"
		"body{font-family:sans-serif;margin:1.5em;color:#111;background:#fff;max-width:1200px}\n"
		"h1{margin:0 0 .3em}h2{border-bottom:1px solid #999;margin-top:1.6em}\n"
		".verdict{font-size:1.4em;font-weight:bold;padding:.5em .8em;border:3px solid}\n"
		".gate-ship{background:#d8f0d8;border-color:#14521a}.gate-blocked{background:#f6c6c6;border-color:#7a0c0c}\n"
		".gate-incomplete{background:#fff0a8;border-color:#5c4a00}\n"
		"dl.meta{display:grid;grid-template-columns:max-content auto;gap:.1em 1em}dl.meta dt{font-weight:bold}dl.meta dd{margin:0}\n"
		"table{border-collapse:collapse}th,td{border:1px solid #888;padding:.25em .5em;text-align:left;vertical-align:top}\n"
		"table.grid td{text-align:center;font-weight:bold;font-size:.9em;min-width:7em}\n"
		"table.grid td a{color:inherit;text-decoration:none;display:block}\n"
		".v-missing{background:repeating-linear-gradient(45deg,#fff,#fff 6px,#ddd 6px,#ddd 12px)!important}\n"
		".v-excluded{background:#eeeeee;color:#555555}\n"
		"td.abi-break{background:#f6c6c6;color:#7a0c0c;font-weight:bold}td.abi-own{font-style:italic}\n"
		".badge{display:inline-block;padding:0 .4em;border:1px solid;font-weight:bold;font-size:.85em}\n"
		"details{border:1px solid #bbb;margin:.4em 0;padding:.3em .6em}summary{cursor:pointer}\n"
		"pre{background:#f4f4f4;border:1px solid #ccc;padding:.5em;overflow-x:auto;font-size:.85em;white-space:pre-wrap}\n"
		".unmet{background:#f6c6c6}.num{text-align:right}\n"
		"td.knock-on{opacity:.6;font-style:italic}\n");
	for (const char *const *v = legend; *v; v++) {
		const struct verdict_style *s = report_style(*v);

		g_string_append_printf(out, ".v-%s{background:%s;color:%s;border-color:%s}\n",
				       *v, s->bg, s->fg, s->fg);
	}
	g_string_append(out, "</style>\n");
}

static void h_list(GString *out, GPtrArray *a)
{
	for (guint i = 0; i < a->len; i++) {
		g_string_append(out, i ? ", " : "");
		xml_text(out, a->pdata[i]);
	}
}

static const char *run_accel(const struct run *run)
{
	for (guint i = 0; i < run->cells->len; i++) {
		const struct rcell *c = run->cells->pdata[i];

		if (c->res && *jstr(c->res, "accel"))
			return jstr(c->res, "accel");
	}
	return "unknown";
}

static void h_header(GString *out, const struct report *r)
{
	json_t *m = r->run->meta;
	GString *sum = g_string_new(NULL), *verdict = g_string_new(NULL);
	char *gate = g_ascii_strdown(report_gate_word(r->gate), -1);

	report_summary_counts(r, sum);
	report_verdict_line(verdict, r);
	g_string_append(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>kmatrix: ");
	xml_text(out, verdict->str);
	g_string_append(out, "</title>\n");
	h_style(out);
	g_string_append(out, "</head>\n<body>\n<header>\n<h1>kmatrix report</h1>\n");
	g_string_truncate(verdict, 0);
	report_verdict_line(verdict, r);
	g_string_append_printf(out, "<p class=\"verdict gate-%s\" id=\"verdict\">", gate);
	xml_text(out, verdict->str);
	g_string_append(out, "</p>\n");
	if (r->mutants) {
		GString *ml = g_string_new(NULL);

		report_mutants_line(ml, r);
		g_string_append_printf(out, "<p class=\"%s\" id=\"mutants-line\">%s",
				       report_mutants_alarm(r) ? "verdict gate-blocked" : "",
				       report_mutants_alarm(r) ? "WARNING: " : "");
		xml_text(out, ml->str);
		g_string_append(out, "</p>\n");
		g_string_free(ml, TRUE);
	}
	g_string_append(out, "<p>");
	xml_text(out, sum->str);
	g_string_append(out, "</p>\n<dl class=\"meta\">\n<dt>What ran</dt><dd>versions ");
	h_list(out, r->run->versions);
	g_string_append(out, "; arches ");
	h_list(out, r->run->arches);
	g_string_append(out, "; steps ");
	h_list(out, r->run->steps);
	g_string_append(out, "</dd>\n<dt>Kernels</dt><dd>");
	for (guint i = 0; i < r->run->versions->len; i++) {
		char *k = report_kernel_of(r->run, r->run->versions->pdata[i]);

		g_string_append(out, i ? "; " : "");
		xml_text(out, r->run->versions->pdata[i]);
		g_string_append(out, ": ");
		xml_text(out, k);
		g_free(k);
	}
	g_string_append(out, "</dd>\n<dt>When</dt><dd>");
	xml_text(out, *jstr(m, "started") ? jstr(m, "started") : "?");
	g_string_append(out, " to ");
	xml_text(out, *jstr(m, "finished") ? jstr(m, "finished") : "?");
	g_string_append(out, "</dd>\n<dt>Where</dt><dd>host ");
	xml_text(out, *jstr(m, "host") ? jstr(m, "host") : "?");
	g_string_append(out, ", QEMU accel ");
	xml_text(out, run_accel(r->run));
	g_string_append(out, "</dd>\n<dt>Project commit</dt><dd><code>");
	xml_text(out, *jstr(m, "project_commit") ? jstr(m, "project_commit") : "unknown");
	g_string_append(out, "</code> (series, expectations and tools)</dd>\n");
	if (r->run->meta_error) {
		g_string_append(out, "<dt>Problem</dt><dd>");
		xml_text(out, r->run->meta_error);
		g_string_append(out, "</dd>\n");
	}
	g_string_append(out, "</dl>\n</header>\n");
	g_string_free(sum, TRUE);
	g_string_free(verdict, TRUE);
	g_free(gate);
}

/* The grid's and a cell's label: a knock-on says it did not run. */
static const char *cell_label(const struct rcell *c)
{
	if (c->met)
		return "pass";
	return c->knock_of ? "NOT RUN" : report_style(c->verdict)->label;
}

static void h_grid_cell(GString *out, const struct rcell *c)
{
	char *a = anchor(c), *knock = report_knock_text(c);

	g_string_append_printf(out, "<td class=\"cell v-%s%s\"", c->verdict,
			       c->knock_of ? " knock-on" : "");
	xml_attr(out, "data-cell", c->id);
	xml_attr(out, "data-verdict", c->verdict);
	xml_attr(out, "title", knock ? knock : c->res ? jstr(c->res, "summary") : c->missing);
	g_string_append_printf(out, "><a href=\"#%s\">%s</a></td>", a, cell_label(c));
	g_free(knock);
	g_free(a);
}

/* No cell here: excluded (with why, linked), or not part of this run. */
static void h_grid_gap(GString *out, json_t *x)
{
	if (!x) {
		g_string_append(out, "<td>not planned</td>");
		return;
	}
	g_string_append(out, "<td class=\"cell v-excluded\"");
	xml_attr(out, "title", jstr(x, "reason"));
	g_string_append(out, "><a href=\"#excluded\">excluded</a></td>");
}

static void h_summary(GString *out, const struct report *r)
{
	GString *s = g_string_new(NULL);

	report_summary(s, r);
	g_string_append(out, "<section id=\"summary\">\n<h2>Summary</h2>\n<pre>");
	xml_text(out, s->str);
	g_string_append(out, "</pre>\n</section>\n");
	g_string_free(s, TRUE);
}

static void h_grid(GString *out, const struct report *r)
{
	const struct run *run = r->run;

	g_string_append(out, "<section id=\"grid\">\n<h2>Grid</h2>\n<table class=\"grid\">\n<thead><tr><th>version</th><th>arch</th>");
	for (guint s = 0; s < run->steps->len; s++) {
		g_string_append(out, "<th>");
		xml_text(out, run->steps->pdata[s]);
		g_string_append(out, "</th>");
	}
	g_string_append(out, "</tr></thead>\n<tbody>\n");
	for (guint v = 0; v < run->versions->len; v++)
		for (guint a = 0; a < run->arches->len; a++) {
			char *k = report_kernel_of(run, run->versions->pdata[v]);

			g_string_append(out, "<tr><th");
			xml_attr(out, "title", k);
			g_string_append_c(out, '>');
			xml_text(out, run->versions->pdata[v]);
			g_string_append(out, "<br><small>");
			xml_text(out, k);
			g_string_append(out, "</small></th><th>");
			g_free(k);
			xml_text(out, run->arches->pdata[a]);
			g_string_append(out, "</th>");
			for (guint s = 0; s < run->steps->len; s++) {
				const struct rcell *c = run_cell_at(run, v, a, s);

				if (c)
					h_grid_cell(out, c);
				else
					h_grid_gap(out, run_excluded_at(run, v, a));
			}
			g_string_append(out, "</tr>\n");
		}
	g_string_append(out, "</tbody>\n</table>\n<p>Legend:");
	for (const char *const *v = legend; *v; v++)
		g_string_append_printf(out, " <span class=\"badge v-%s\">%s</span> %s", *v,
				       report_style(*v)->label, *v);
	g_string_append(out, "</p>\n</section>\n");
}

static void h_evidence(GString *out, const struct rcell *c)
{
	char *ev = report_evidence(c);

	if (!ev)
		return;
	g_string_append(out, "<p>Evidence:</p>\n<pre>");
	xml_text(out, ev);
	g_string_append(out, "\n</pre>\n");
	g_free(ev);
}

static void h_tests(GString *out, const struct rcell *c)
{
	json_t *tests = json_object_get(c->res, "tests"), *t;
	json_t *k = json_object_get(c->res, "ktap");
	size_t i;

	if (!json_array_size(tests)) {
		g_string_append(out, "<p>No KTAP results.</p>\n");
		return;
	}
	g_string_append_printf(out, "<p>KTAP: plan %.0f, ok %.0f, not ok %.0f, skip %.0f.</p>\n",
			       jnum(k, "plan"), jnum(k, "ok"), jnum(k, "not_ok"), jnum(k, "skip"));
	g_string_append(out, "<table class=\"ktap\">\n<tr><th>test</th><th>result</th><th>expected</th><th>met</th><th>diagnostics</th></tr>\n");
	json_array_foreach(tests, i, t) {
		bool met = json_is_true(json_object_get(t, "met"));

		g_string_append_printf(out, "<tr%s><td>", met ? "" : " class=\"unmet\"");
		xml_text(out, jstr(t, "name"));
		g_string_append(out, "</td><td>");
		xml_text(out, jstr(t, "result"));
		g_string_append(out, "</td><td>");
		xml_text(out, jstr(t, "expected"));
		g_string_append_printf(out, "</td><td>%s</td><td>", met ? "yes" : "NO");
		xml_text(out, jstr(t, "diag"));
		g_string_append(out, "</td></tr>\n");
	}
	g_string_append(out, "</table>\n");
}

static void h_timings(GString *out, const struct rcell *c)
{
	g_string_append(out, "<table class=\"timings\"><tr>");
	for (int s = 0; report_stages[s]; s++)
		g_string_append_printf(out, "<th>%s</th>", report_stages[s]);
	g_string_append(out, "<th>total</th></tr>\n<tr>");
	for (int s = 0; report_stages[s]; s++)
		g_string_append_printf(out, "<td class=\"num\">%.1f s</td>",
				       cell_stage(c, report_stages[s]));
	g_string_append_printf(out, "<td class=\"num\">%.1f s</td></tr></table>\n", c->total);
}

static void h_logs(GString *out, const struct report *r, const struct rcell *c)
{
	GPtrArray *links = report_log_links(r, c);

	for (guint i = 0; i < links->len; i++) {
		const struct report_link *l = links->pdata[i];

		g_string_append(out, i ? ", <a" : "<p class=\"logs\">Logs: <a");
		xml_attr(out, "href", l->href);
		g_string_append_c(out, '>');
		xml_text(out, l->name);
		g_string_append(out, "</a>");
	}
	if (links->len)
		g_string_append(out, "</p>\n");
	g_ptr_array_free(links, TRUE);
}

static void h_cell_body(GString *out, const struct report *r,
			const struct rcell *c)
{
	char *which = NULL, *log;

	if (!c->res) {
		g_string_append(out, "<p>No usable result.  Why: ");
		xml_text(out, c->missing);
		g_string_append(out, "</p>\n");
	} else {
		g_string_append(out, "<p>Commit <code>");
		xml_text(out, jstr(c->res, "commit"));
		g_string_append(out, "</code> ");
		xml_text(out, jstr(c->res, "subject"));
		g_string_append(out, "</p>\n");
		h_evidence(out, c);
		h_tests(out, c);
		h_timings(out, c);
	}
	if (!c->met)
		h_logs(out, r, c);
	log = report_log_excerpt(r, c, LOG_LINES, &which);
	if (log) {
		g_string_append_printf(out, "<p>Last lines of %s:</p>\n<pre>", which);
		xml_text(out, log);
		g_string_append(out, "</pre>\n");
	}
	g_free(log);
	g_free(which);
}

static void h_cell(GString *out, const struct report *r,
		   const struct rcell *c, bool open, const char *id)
{
	char *knock = report_knock_text(c);

	g_string_append_printf(out, "<details%s", open ? " open" : "");
	if (id)
		g_string_append_printf(out, " id=\"%s\"", id);
	xml_attr(out, "data-details", c->id);
	g_string_append_printf(out, "><summary><span class=\"badge v-%s\">%s</span> <b>",
			       c->verdict, cell_label(c));
	xml_text(out, c->id);
	g_string_append(out, "</b> ");
	xml_text(out, knock ? knock : c->res ? jstr(c->res, "summary") : c->missing);
	g_string_append(out, "</summary>\n");
	h_cell_body(out, r, c);
	g_string_append(out, "</details>\n");
	g_free(knock);
}

/* A departure, and under it the later steps it stopped, counted once. */
static void h_departure(GString *out, const struct report *r,
			const struct rcell *c)
{
	GPtrArray *k = report_knock_ons(r, c);

	h_cell(out, r, c, false, NULL);
	if (k->len)
		g_string_append_printf(out, "<p class=\"knock-on\">Knock-on (%u, not counted as departures):",
				       k->len);
	for (guint i = 0; i < k->len; i++) {
		const struct rcell *kc = k->pdata[i];
		char *a = anchor(kc), *why = report_knock_text(kc);

		g_string_append_printf(out, "%s <a href=\"#%s\">", i ? "," : "", a);
		xml_text(out, kc->id);
		g_string_append(out, "</a> ");
		xml_text(out, why);
		g_free(why);
		g_free(a);
	}
	if (k->len)
		g_string_append(out, "</p>\n");
	g_ptr_array_free(k, TRUE);
}

static void h_departures(GString *out, const struct report *r)
{
	g_string_append_printf(out, "<section id=\"departures\">\n<h2>Departures (%d), knock-on (%d) and missing results (%d)</h2>\n",
			       r->departed, r->knock_on, r->missing);
	if (!r->departed && !r->missing)
		g_string_append(out, "<p>None: every cell met its expectation.</p>\n");
	else
		g_string_append(out, "<p>Each line opens to its evidence, KTAP results, log excerpt and timings.</p>\n");
	report_walk(out, r, REPORT_UNMET, h_departure);
	g_string_append(out, "</section>\n");
}

static void svg_axis(GString *out, double max, int height)
{
	for (int i = 0; i <= 4; i++) {
		double x = CHART_LABEL + CHART_BARS * i / 4.0;

		g_string_append_printf(out, "<line x1=\"%.1f\" y1=\"24\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ccc\"/>"
				       "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%.0f s</text>\n",
				       x, x, height - 14, x, height - 2, max * i / 4);
	}
}

static void svg_row(GString *out, const struct rcell *c, double max, int y)
{
	double x = CHART_LABEL;

	g_string_append_printf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">",
			       CHART_LABEL - 6, y + 12);
	xml_text(out, c->id);
	g_string_append(out, "</text>\n");
	for (int s = 0; report_stages[s]; s++) {
		double w = cell_stage(c, report_stages[s]) * CHART_BARS / max;

		if (w <= 0)
			continue;
		g_string_append_printf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s %s: %.1f s</title></rect>\n",
				       x, y + 2, w, CHART_ROW - 4, stage_colours[s], c->id,
				       report_stages[s], cell_stage(c, report_stages[s]));
		x += w;
	}
	g_string_append_printf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\">%.1f s</text>\n",
			       x + 4, y + 12, c->total);
}

static void h_chart(GString *out, const struct report *r)
{
	double max = 0;
	int rows = 0, height, y = 26;

	for (guint i = 0; i < r->run->cells->len; i++) {
		const struct rcell *c = r->run->cells->pdata[i];

		if (c->res) {
			rows++;
			max = MAX(max, c->total);
		}
	}
	g_string_append(out, "<section id=\"time\">\n<h2>Where the time went</h2>\n");
	if (!rows || max <= 0) {
		g_string_append(out, "<p>No timings recorded.</p>\n</section>\n");
		return;
	}
	height = 26 + rows * CHART_ROW + 20;
	g_string_append_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"time per cell and stage\">\n",
			       CHART_LABEL + CHART_BARS + 60, height,
			       CHART_LABEL + CHART_BARS + 60, height);
	for (int s = 0; report_stages[s]; s++)
		g_string_append_printf(out, "<rect x=\"%d\" y=\"4\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"14\" font-size=\"11\">%s</text>\n",
				       CHART_LABEL + s * 95, stage_colours[s],
				       CHART_LABEL + s * 95 + 16, report_stages[s]);
	svg_axis(out, max, height);
	for (guint i = 0; i < r->run->cells->len; i++) {
		const struct rcell *c = r->run->cells->pdata[i];

		if (!c->res)
			continue;
		svg_row(out, c, max, y);
		y += CHART_ROW;
	}
	g_string_append(out, "</svg>\n</section>\n");
}

static void h_trend_list(GString *out, const char *title, GPtrArray *cells,
			 const struct trend *t)
{
	g_string_append_printf(out, "<h3>%s (%u)</h3>\n<ul>\n", title, cells->len);
	for (guint i = 0; i < cells->len; i++) {
		const struct rcell *c = cells->pdata[i];
		const char *was = g_hash_table_lookup(t->before, c->id);
		char *a = anchor(c);

		g_string_append_printf(out, "<li><a href=\"#%s\">", a);
		xml_text(out, c->id);
		g_string_append_printf(out, "</a>: <span class=\"badge v-%s\">%s</span> (was %s)</li>\n",
				       c->verdict, cell_label(c), was ? was : "not run");
		g_free(a);
	}
	g_string_append(out, "</ul>\n");
}

static void h_trend(GString *out, const struct report *r)
{
	const struct trend *t = r->trend;

	if (!t)
		return;
	g_string_append(out, "<section id=\"trend\">\n<h2>Trend against ");
	xml_text(out, t->against);
	g_string_append(out, "</h2>\n");
	h_trend_list(out, "New departures", t->new_departures, t);
	h_trend_list(out, "Fixed", t->fixed, t);
	h_trend_list(out, "Still departing", t->still, t);
	g_string_append_printf(out, "<h3>Timing changes over %.0f%% (%u)</h3>\n<ul>\n",
			       t->share * 100, t->timing->len);
	for (guint i = 0; i < t->timing->len; i++) {
		const struct timing_change *tc = t->timing->pdata[i];

		g_string_append(out, "<li>");
		xml_text(out, tc->cell->id);
		g_string_append_printf(out, ": %.1f s &#8594; %.1f s (%+.0f%%), mostly %s %.1f s &#8594; %.1f s</li>\n",
				       tc->before, tc->after,
				       (tc->after - tc->before) * 100 / tc->before,
				       tc->stage, tc->stage_before, tc->stage_after);
	}
	g_string_append(out, "</ul>\n</section>\n");
}

/* The caller writes the title; @cls, when set, is the table's class. */
/*
 * In the ABI tables a number ending in '!' is a break (the header, uapi,
 * libc and kernel disagree) and one ending in '*' an arch's own numbering:
 * marked, so neither hides among the numbers that agree.
 */
static const char *abi_mark(const char *cls, const char *text)
{
	size_t n = strlen(text);

	if (!cls || strcmp(cls, "abi") || !n)
		return "";
	if (text[n - 1] == '!')
		return " class=\"abi-break\"";
	if (text[n - 1] == '*')
		return " class=\"abi-own\"";
	return "";
}

static void h_table(GString *out, const struct report_table *t, const char *cls)
{
	g_string_append(out, "<table");
	if (cls)
		xml_attr(out, "class", cls);
	g_string_append(out, "><tr>");
	for (guint c = 0; c < t->cols->len; c++) {
		g_string_append(out, "<th>");
		xml_text(out, t->cols->pdata[c]);
		g_string_append(out, "</th>");
	}
	g_string_append(out, "</tr>\n");
	for (guint row = 0; row < t->rows->len; row++) {
		GPtrArray *cells = t->rows->pdata[row];

		g_string_append(out, "<tr>");
		for (guint c = 0; c < cells->len; c++) {
			g_string_append_printf(out, "<td%s>", abi_mark(cls, cells->pdata[c]));
			xml_text(out, cells->pdata[c]);
			g_string_append(out, "</td>");
		}
		g_string_append(out, "</tr>\n");
	}
	g_string_append(out, "</table>\n");
}

static void h_drift(GString *out, const struct report *r)
{
	g_string_append(out, "<section id=\"drift\">\n<h2>Backport drift</h2>\n");
	if (!r->drift || !r->drift->len)
		g_string_append(out, "<p>No matrix definition found.</p>\n");
	for (guint i = 0; r->drift && i < r->drift->len; i++) {
		const struct drift *d = r->drift->pdata[i];

		g_string_append(out, "<h3>");
		xml_text(out, d->version);
		g_string_append(out, "</h3>\n<p>");
		if (d->state == DRIFT_UNAVAILABLE)
			g_string_append(out, "Drift ");
		xml_text(out, d->note);
		g_string_append(out, "</p>\n");
		if (d->state == DRIFT_COMPARED) {
			struct report_table *t = report_drift_table(d);

			h_table(out, t, "drift");
			report_table_free(t);
		}
	}
	g_string_append(out, "</section>\n");
}

static void h_abi(GString *out, const struct report *r)
{
	GPtrArray *tables = report_abi_section(r);

	if (!tables)
		return;
	g_string_append(out, "<section id=\"abi\">\n<h2>ABI (rlimit-abi)</h2>\n");
	for (guint i = 0; i < tables->len; i++) {
		const struct report_table *t = tables->pdata[i];

		if (*t->title) {
			g_string_append(out, "<h3>");
			xml_text(out, t->title);
			g_string_append(out, "</h3>\n");
		}
		h_table(out, t, "abi");
	}
	g_string_append(out, "</section>\n");
	g_ptr_array_free(tables, TRUE);
}

static void h_audio(GString *out, const struct report *r)
{
	struct report_table *t = report_audio_table(r);

	if (!t)
		return;
	g_string_append(out,
			"<section id=\"audio\">\n<h2>Audio user</h2>\n<p>");
	xml_text(out, t->title);
	g_string_append(out, "</p>\n");
	h_table(out, t, "audio");
	report_table_free(t);
	g_string_append(out, "</section>\n");
}

static void h_mutants(GString *out, const struct report *r)
{
	struct report_table *t;

	if (!r->mutants)
		return;
	g_string_append_printf(out, "<section id=\"mutants\">\n<h2>Mutation testing</h2>\n<p>%d of %d killed (<code>",
			       r->mutants->killed, r->mutants->total);
	xml_text(out, r->mutants->file);
	g_string_append(out, "</code>).</p>\n");
	t = report_mutants_table(r);
	h_table(out, t, "mutants");
	report_table_free(t);
	g_string_append(out, "</section>\n");
}

static void h_excluded(GString *out, const struct report *r)
{
	json_t *x, *line;
	size_t i, j;

	if (!json_array_size(run_excluded(r->run)))
		return;
	g_string_append(out, "<section id=\"excluded\">\n<h2>Excluded</h2>\n");
	json_array_foreach(run_excluded(r->run), i, x) {
		g_string_append(out, "<h3>");
		xml_text(out, jstr(x, "version"));
		g_string_append(out, " x ");
		xml_text(out, jstr(x, "arch"));
		g_string_append(out, "</h3>\n<p>");
		xml_text(out, jstr(x, "reason"));
		g_string_append(out, " (evidence: <code>");
		xml_text(out, jstr(x, "evidence_file"));
		g_string_append(out, "</code>)</p>\n<pre>");
		json_array_foreach(json_object_get(x, "evidence"), j, line) {
			xml_text(out, json_string_value(line));
			g_string_append_c(out, '\n');
		}
		g_string_append(out, "</pre>\n");
	}
	g_string_append(out, "</section>\n");
}

static void h_all_cells(GString *out, const struct report *r)
{
	g_string_append(out, "<section id=\"cells\">\n<h2>Every cell</h2>\n");
	for (guint i = 0; i < r->run->cells->len; i++) {
		const struct rcell *c = r->run->cells->pdata[i];
		char *a = anchor(c);

		h_cell(out, r, c, false, a);
		g_free(a);
	}
	g_string_append(out, "</section>\n");
}

void report_html(GString *out, const struct report *r)
{
	h_header(out, r);
	h_summary(out, r);
	h_grid(out, r);
	h_excluded(out, r);
	/* what changed since the last run is the first question after the grid */
	h_trend(out, r);
	h_departures(out, r);
	h_chart(out, r);
	h_drift(out, r);
	h_abi(out, r);
	h_audio(out, r);
	h_mutants(out, r);
	h_all_cells(out, r);
	g_string_append(out, "</body>\n</html>\n");
}
