// SPDX-License-Identifier: GPL-2.0
/*
 * kmatrix plan: what a run would do, without building anything: the cells
 * with their content keys (computed exactly as run computes them, so the
 * steps are applied to the laid trees first), the chains of one version x
 * arch that share a build directory, and with --shards N how they split.
 * It lays no tree: the cells of a version whose tree is not laid (or would
 * be laid again) would run, and their keys are not known yet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "run.h"
#include "shard.h"
#include "verbs.h"

static const char *const reuse_names[] = {
	[REUSE_NONE] = "run", [REUSE_CACHED] = "cached", [REUSE_REJUDGED] = "rejudge",
};

static const struct shard_chain *chain_of(const struct plan *p, const struct cell *c)
{
	for (guint i = 0; i < p->chains->len; i++) {
		const struct shard_chain *ch = p->chains->pdata[i];

		if (!strcmp(ch->version, c->v->name) && !strcmp(ch->arch, c->a->name))
			return ch;
	}
	return NULL;
}

/* The cell built before @c in its build directory, or NULL. */
static const struct cell *previous(const struct plan *p, guint i)
{
	const struct cell *c = p->cells->pdata[i];

	while (i-- > 0) {
		const struct cell *b = p->cells->pdata[i];

		if (!strcmp(b->build_dir, c->build_dir))
			return b;
	}
	return NULL;
}

static json_t *jstr_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *cell_json(struct plan *p, guint i)
{
	struct cell *c = p->cells->pdata[i];
	const struct cell *b = previous(p, i);
	double rec = shard_recorded(p->timings, c->v->name, c->a->name, c->step->id);
	json_t *o = json_pack("{s:o, s:s, s:s, s:s, s:i, s:s, s:o, s:o, s:o, s:o, s:o}",
			      "id", json_sprintf("%s/%s/%s", c->v->name, c->a->name, c->step->id),
			      "version", c->v->name, "arch", c->a->name, "step", c->step->id,
			      "step_index", c->step->index, "chain", chain_of(p, c)->id,
			      "after", b ? json_sprintf("%s/%s/%s", b->v->name, b->a->name,
							b->step->id) : json_null(),
			      "commit", jstr_or_null(c->step->commit),
			      "tree", jstr_or_null(c->step->tree),
			      "key", jstr_or_null(c->key), "build_key", jstr_or_null(c->build_key));

	json_object_set_new(o, "recorded_seconds", rec >= 0 ? json_real(rec) : json_null());
	if (plan_vrun(p, c->v->name)->unlaid) {
		/* nothing laid, nothing known: a run lays it and runs the cell */
		json_object_set_new(o, "reuse", json_string("run"));
		json_object_set_new(o, "unknown", json_string(plan_vrun(p, c->v->name)->unlaid));
	} else if (c->out.verdict) {
		/* Decided before any build: no key, the verdict is known now. */
		json_t *d = json_pack("{s:s, s:s}", "verdict", c->out.verdict,
				      "summary", c->out.summary ? c->out.summary : "");

		json_object_set_new(o, "decided", d);
		json_object_set_new(o, "reuse", json_string("run"));
	} else {
		json_object_set_new(o, "reuse", json_string(reuse_names[cell_reusable(p, c)]));
		/* inputs.config is the hash of the .config configure writes */
		json_object_set_new(o, "known_after_build", json_pack("[s]", "inputs.config"));
	}
	return o;
}

static json_t *chain_json(const struct plan *p, const struct shard_chain *c)
{
	json_t *steps = json_array();
	char *dir = g_build_filename(p->cache, "build", c->version, c->arch, NULL);
	json_t *o;

	for (guint s = 0; s < c->steps->len; s++)
		json_array_append_new(steps, json_string(c->steps->pdata[s]));
	o = json_pack("{s:s, s:s, s:s, s:s, s:o, s:f, s:i, s:i}", "id", c->id,
		      "version", c->version, "arch", c->arch, "build_dir", dir,
		      "steps", steps, "estimate", c->seconds, "recorded", c->recorded,
		      "shard", c->shard);
	g_free(dir);
	return o;
}

static json_t *plan_json(struct plan *p)
{
	json_t *chains = json_array(), *cells = json_array(), *loads = json_array();
	json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:s}", "schema", "kmatrix-plan/1",
			      "cache", p->cache, "timings", p->timings,
			      "shards", p->shard_count, "split", p->split);

	plan_identity(p, o);
	for (int s = 0; s < p->shard_count; s++)
		json_array_append_new(loads, json_real(p->loads[s]));
	for (guint i = 0; i < p->chains->len; i++)
		json_array_append_new(chains, chain_json(p, p->chains->pdata[i]));
	for (guint i = 0; i < p->cells->len; i++)
		json_array_append_new(cells, cell_json(p, i));
	json_object_set_new(o, "loads", loads);
	json_object_set_new(o, "chains", chains);
	json_object_set_new(o, "cells", cells);
	return o;
}

static void plan_text(const struct plan *p)
{
	for (int s = 1; s <= p->shard_count; s++) {
		printf("shard %d/%d: estimate %.0f s\n", s, p->shard_count, p->loads[s - 1]);
		for (guint i = 0; i < p->chains->len; i++) {
			const struct shard_chain *c = p->chains->pdata[i];

			const struct version_run *vr = plan_vrun(p, c->version);

			if (c->shard != s)
				continue;
			printf("  %-16s %2u steps  %6.0f s (%d recorded)", c->id,
			       c->steps->len, c->seconds, c->recorded);
			if (vr && vr->unlaid)
				printf("  would run: tree not laid");
			printf("\n");
		}
	}
}

static int print_plan(struct plan_opts *o, bool as_json)
{
	struct plan p;
	int rc;

	/* Planning boots nothing: a machine without QEMU can split the work. */
	o->no_boot = TRUE;
	/* Nor lays trees: hours of disk and CPU are a run's, not a plan's. */
	o->no_lay = TRUE;
	rc = plan_prepare(&p, o);
	if (!rc && as_json) {
		json_t *j = plan_json(&p);

		json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
		putchar('\n');
		json_decref(j);
	} else if (!rc) {
		plan_text(&p);
	}
	plan_close(&p);
	return rc;
}

int cmd_plan(int argc, char **argv)
{
	struct plan_opts o = { 0 };
	g_autofree char *format = NULL;
	GOptionEntry entries[] = {
		{ "format", 0, 0, G_OPTION_ARG_STRING, &format,
		  "text (default: the shards and their chains) or json (schema kmatrix-plan/1: "
		  "cells with keys, chains)", "FORMAT" },
		{ "shards", 0, 0, G_OPTION_ARG_INT, &o.shards,
		  "Split the chains into N shares as run --shard I/N does", "N" },
		{ "timings", 0, 0, G_OPTION_ARG_FILENAME, &o.timings,
		  "Results directory whose timings balance the shards (default: --results)", "DIR" },
		{ "versions", 0, 0, G_OPTION_ARG_STRING, &o.versions, "Kernel versions", "LIST" },
		{ "arches", 0, 0, G_OPTION_ARG_STRING, &o.arches, "Architectures", "LIST" },
		{ "steps", 0, 0, G_OPTION_ARG_STRING, &o.steps, "Steps", "LIST" },
		{ "cache", 0, 0, G_OPTION_ARG_FILENAME, &o.cache, "Cache directory", "DIR" },
		{ "results", 0, 0, G_OPTION_ARG_FILENAME, &o.results,
		  "Results directory (default: <cache>/results)", "DIR" },
		{ "matrix", 0, 0, G_OPTION_ARG_FILENAME, &o.matrix, "Matrix definition", "FILE" },
		{ NULL }
	};
	int rc;

	if (!verb_parse("plan", NULL,
		       "The cells a run would run, with their content keys, and the version x arch\n"
		       "chains that share a build directory.  Applies the steps to the laid trees\n"
		       "like run (the keys need the step commits); lays no tree, builds and boots\n"
		       "nothing.  The cells of a tree not laid yet would run, keys unknown.",
		       entries, &argc, &argv, &rc)) {
		plan_opts_clear(&o);
		return rc;
	}
	if (argc > 1 || o.shards < 0 || o.shards > 1000) {
		g_printerr("kmatrix plan: unexpected argument (see kmatrix plan --help)\n");
		rc = 2;
	} else if (format && strcmp(format, "text") && strcmp(format, "json")) {
		g_printerr("kmatrix plan: unknown format '%s' (text, json)\n", format);
		rc = 2;
	} else {
		rc = print_plan(&o, format && !strcmp(format, "json"));
	}
	plan_opts_clear(&o);
	return rc;
}
