// SPDX-License-Identifier: GPL-2.0
/*
 * JSON: the merged results, schema "kmatrix-report/1" documented in
 * matrix/REPORT-SCHEMA.md.  It is also what --against reads back, so a CI
 * job can keep one file per run and compare with it later.
 */
#include <stdlib.h>

#include "report.h"

static json_t *strv(GPtrArray *a)
{
	json_t *out = json_array();

	for (guint i = 0; i < a->len; i++)
		json_array_append_new(out, json_string(a->pdata[i]));
	return out;
}

static json_t *meta_str(json_t *meta, const char *key)
{
	const char *s = jstr(meta, key);

	return *s ? json_string(s) : json_null();
}

static json_t *kernels(const struct run *run)
{
	json_t *out = json_object();

	for (guint i = 0; i < run->versions->len; i++) {
		char *k = report_kernel_of(run, run->versions->pdata[i]);

		json_object_set_new(out, run->versions->pdata[i], json_string(k));
		g_free(k);
	}
	return out;
}

static json_t *run_json(const struct run *run)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "started", meta_str(run->meta, "started"),
			 "finished", meta_str(run->meta, "finished"),
			 "host", meta_str(run->meta, "host"),
			 "project_commit", meta_str(run->meta, "project_commit"),
			 "versions", strv(run->versions),
			 "arches", strv(run->arches),
			 "steps", strv(run->steps), "kernels", kernels(run),
			 "problem", run->meta_error ? json_string(run->meta_error) :
						      json_null());
}

static json_t *summary_json(const struct report *r)
{
	json_t *by = json_object();

	for (guint i = 0; i < r->run->cells->len; i++) {
		const struct rcell *c = r->run->cells->pdata[i];
		json_t *n = json_object_get(by, c->verdict);

		json_object_set_new(by, c->verdict,
				    json_integer(n ? json_integer_value(n) + 1 : 1));
	}
	GString *line = g_string_new(NULL);
	json_t *out;

	report_verdict_line(line, r);
	out = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:o, s:O}",
			"verdict", report_gate_word(r->gate), "verdict_line", line->str,
			"planned", r->planned, "met", r->met, "departed", r->departed,
			"knock_on", r->knock_on,
			"missing", r->missing, "stale", r->stale, "by_verdict", by,
			"excluded", run_excluded(r->run));
	g_string_free(line, TRUE);
	return out;
}

static json_t *cell_json(const struct rcell *c)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:o, s:o, s:O}",
			 "id", c->id, "version", c->version, "arch", c->arch,
			 "step", c->step, "verdict", c->verdict, "met", c->met,
			 "missing", c->missing ? json_string(c->missing) : json_null(),
			 "knock_on_of", c->knock_of ? json_string(c->knock_of->id) : json_null(),
			 "result", c->res ? c->res : json_null());
}

static json_t *trend_cells(const struct trend *t, GPtrArray *cells)
{
	json_t *out = json_array();

	for (guint i = 0; i < cells->len; i++) {
		const struct rcell *c = cells->pdata[i];
		const char *was = g_hash_table_lookup(t->before, c->id);

		json_array_append_new(out, json_pack("{s:s, s:s, s:o}", "id", c->id,
						     "verdict", c->verdict, "was",
						     was ? json_string(was) : json_null()));
	}
	return out;
}

static json_t *trend_json(const struct trend *t)
{
	json_t *timing;

	if (!t)
		return json_null();
	timing = json_array();
	for (guint i = 0; i < t->timing->len; i++) {
		const struct timing_change *tc = t->timing->pdata[i];

		json_array_append_new(timing, json_pack("{s:s, s:f, s:f, s:s, s:f, s:f}",
			"id", tc->cell->id, "before", tc->before, "after", tc->after,
			"stage", tc->stage, "stage_before", tc->stage_before,
			"stage_after", tc->stage_after));
	}
	return json_pack("{s:s, s:f, s:o, s:o, s:o, s:o}", "against", t->against,
			 "share", t->share,
			 "new_departures", trend_cells(t, t->new_departures),
			 "fixed", trend_cells(t, t->fixed),
			 "still", trend_cells(t, t->still), "timing", timing);
}

static json_t *opt_str(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *drift_json(GPtrArray *drift)
{
	static const char *const states[] = { "canonical", "compared", "unavailable" };
	json_t *out = json_array();

	for (guint i = 0; drift && i < drift->len; i++) {
		const struct drift *d = drift->pdata[i];
		json_t *patches = json_array();

		for (guint p = 0; p < d->patches->len; p++) {
			const struct drift_patch *dp = d->patches->pdata[p];

			json_array_append_new(patches, json_pack("{s:s, s:i, s:i, s:o, s:o, s:s}",
				"status", dp->status, "lines", dp->lines,
				"message_lines", dp->message_lines,
				"canonical", opt_str(dp->canonical),
				"backport", opt_str(dp->backport), "subject", dp->subject));
		}
		json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:o}",
			"version", d->version, "state", states[d->state],
			"note", d->note, "patches", patches));
	}
	return out;
}

json_t *report_json_value(const struct report *r)
{
	json_t *cells = json_array();
	json_t *abi = json_object_get(r->run->meta, "abi");

	for (guint i = 0; i < r->run->cells->len; i++)
		json_array_append_new(cells, cell_json(r->run->cells->pdata[i]));
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:O, s:o}",
			 "schema", REPORT_SCHEMA, "run", run_json(r->run),
			 "summary", summary_json(r), "cells", cells,
			 "trend", trend_json(r->trend), "drift", drift_json(r->drift),
			 "abi", json_is_object(abi) ? abi : json_null(),
			 "mutants", report_mutants_json(r));
}

void report_json(GString *out, const struct report *r)
{
	json_t *v = report_json_value(r);
	char *s = json_dumps(v, JSON_INDENT(2) | JSON_SORT_KEYS |
			     JSON_REAL_PRECISION(10));

	g_string_append(out, s);
	g_string_append_c(out, '\n');
	free(s);
	json_decref(v);
}
