// SPDX-License-Identifier: GPL-2.0
/*
 * Trend: this run against an earlier one (its results directory or its
 * JSON report).  New departures are cells that depart now but met their
 * expectation before, had no result then, or departed differently; fixed
 * cells met now and departed before; a timing change is listed when a
 * cell's total time moved by more than the share asked for, and by at
 * least a second, so that TCG's jitter on short cells is not news.
 */
#include <string.h>

#include "report.h"

#define TREND_MIN_SECONDS 1.0

static bool departs(const struct rcell *c)
{
	/* a knock-on goes with its root, which is compared on its own */
	return c && c->res && !c->met && !c->knock_of;
}

static struct timing_change *timing_of(const struct rcell *now,
				       const struct rcell *then, double share)
{
	struct timing_change *t;
	double best = -1;

	if (!now->res || !then->res || then->total <= 0 ||
	    ABS(now->total - then->total) < TREND_MIN_SECONDS ||
	    ABS(now->total - then->total) <= share * then->total)
		return NULL;
	t = g_new0(struct timing_change, 1);
	t->cell = now;
	t->before = then->total;
	t->after = now->total;
	for (int i = 0; report_stages[i]; i++) {
		double a = cell_stage(then, report_stages[i]);
		double b = cell_stage(now, report_stages[i]);

		if (ABS(b - a) > best) {
			best = ABS(b - a);
			t->stage = report_stages[i];
			t->stage_before = a;
			t->stage_after = b;
		}
	}
	return t;
}

static void compare_cell(struct trend *t, const struct rcell *now,
			 const struct rcell *then)
{
	struct timing_change *tc;

	if (then)
		g_hash_table_insert(t->before, now->id, g_strdup(then->verdict));
	if (departs(now)) {
		if (departs(then) && !strcmp(then->verdict, now->verdict))
			g_ptr_array_add(t->still, (gpointer)now);
		else
			g_ptr_array_add(t->new_departures, (gpointer)now);
	} else if (now->res && departs(then)) {
		g_ptr_array_add(t->fixed, (gpointer)now);
	}
	if (then && (tc = timing_of(now, then, t->share)))
		g_ptr_array_add(t->timing, tc);
}

/* Names in @now that @then does not have. */
static GPtrArray *new_names(GPtrArray *now, GPtrArray *then)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);

	for (guint i = 0; i < now->len; i++) {
		bool seen = false;

		for (guint j = 0; j < then->len && !seen; j++)
			seen = !strcmp(now->pdata[i], then->pdata[j]);
		if (!seen)
			g_ptr_array_add(out, g_strdup(now->pdata[i]));
	}
	return out;
}

struct trend *trend_compute(const struct run *now, const char *against,
			    double share, GError **err)
{
	struct run *then = run_load(against, err);
	struct trend *t;

	if (!then) {
		g_prefix_error(err, "--against: ");
		return NULL;
	}
	t = g_new0(struct trend, 1);
	t->against = g_strdup(against);
	t->share = share;
	t->new_departures = g_ptr_array_new();
	t->fixed = g_ptr_array_new();
	t->still = g_ptr_array_new();
	t->timing = g_ptr_array_new_with_free_func(g_free);
	/* keys are the current run's ids; values outlive the earlier run */
	t->before = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
	for (guint i = 0; i < now->cells->len; i++) {
		const struct rcell *c = now->cells->pdata[i];

		compare_cell(t, c, g_hash_table_lookup(then->by_id, c->id));
	}
	t->new_versions = new_names(now->versions, then->versions);
	t->new_arches = new_names(now->arches, then->arches);
	run_free(then);
	return t;
}

void trend_free(struct trend *t)
{
	if (!t)
		return;
	g_free(t->against);
	g_ptr_array_free(t->new_departures, TRUE);
	g_ptr_array_free(t->fixed, TRUE);
	g_ptr_array_free(t->still, TRUE);
	g_ptr_array_free(t->timing, TRUE);
	g_ptr_array_free(t->new_versions, TRUE);
	g_ptr_array_free(t->new_arches, TRUE);
	g_hash_table_destroy(t->before);
	g_free(t);
}
