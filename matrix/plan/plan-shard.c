// SPDX-License-Identifier: GPL-2.0
/*
 * The plan's side of sharding: the chains of the planned cells, the share
 * this run does, and what makes the results of two runs (or two shards of
 * one) comparable.  Above plan.c's data and shard.c's pure split.
 */
#include <stdio.h>
#include <string.h>

#include "apply.h"
#include "key.h"
#include "pack.h"
#include "plan.h"
#include "shard.h"

/* The chains of the run, each step estimated from p->timings. */
static void plan_chains(struct plan *p, GHashTable *steps_by_version)
{
	p->chains = g_ptr_array_new_with_free_func((GDestroyNotify)shard_chain_free);
	for (guint i = 0; i < p->m->versions->len; i++) {
		const struct version_conf *v = p->m->versions->pdata[i];
		GPtrArray *steps = g_hash_table_lookup(steps_by_version, v->name);

		for (guint k = 0; steps && k < p->m->arches->len; k++) {
			const struct arch_conf *a = p->m->arches->pdata[k];
			struct shard_chain *c;

			if (!plan_selected(p->arches, a->name))
				continue;
			c = shard_chain_new(v->name, a->name);
			for (guint s = 0; s < steps->len; s++) {
				const struct step *st = steps->pdata[s];
				double rec;

				if (!plan_selected(p->steps, st->id))
					continue;
				rec = shard_recorded(p->timings, v->name, a->name, st->id);
				shard_chain_add(c, st->id, rec);
			}
			g_ptr_array_add(p->chains, c);
		}
	}
}

void shard_plan(struct plan *p, GHashTable *steps_by_version)
{
	plan_chains(p, steps_by_version);
	p->loads = shard_split(p->chains, p->shard_count);
	p->split = shard_digest(p->chains, p->shard_count);
}

bool plan_in_shard(const struct plan *p, const char *version, const char *arch)
{
	if (!p->shard_index)
		return true;
	for (guint i = 0; i < p->chains->len; i++) {
		const struct shard_chain *c = p->chains->pdata[i];

		if (!strcmp(c->version, version) && !strcmp(c->arch, arch))
			return c->shard == p->shard_index;
	}
	return false;
}

char *plan_series_sha(const struct matrix_conf *m)
{
	GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
	char *hex;

	for (guint i = 0; i < m->versions->len; i++) {
		const struct version_conf *v = m->versions->pdata[i];
		GPtrArray *steps = apply_plan(v, NULL);

		for (guint s = 0; steps && s < steps->len; s++) {
			const struct step *st = steps->pdata[s];
			char *patch = st->patch ? key_file_sha256(st->patch) : NULL;
			char *line = g_strdup_printf("%s %s %s\n", v->name, st->id,
						     patch ? patch : "-");

			g_checksum_update(sum, (const guchar *)line, -1);
			g_free(line);
			g_free(patch);
		}
		if (!steps)
			g_checksum_update(sum, (const guchar *)v->name, -1);
		else
			g_ptr_array_free(steps, TRUE);
	}
	hex = g_strdup(g_checksum_get_string(sum));
	g_checksum_free(sum);
	return hex;
}

static json_t *plan_cell_ids(const struct plan *p)
{
	json_t *ids = json_array();

	/* The order a single run plans them in: version, step, arch. */
	for (guint i = 0; i < p->m->versions->len; i++) {
		const char *v = ((struct version_conf *)p->m->versions->pdata[i])->name;
		GPtrArray *order = NULL;

		for (guint k = 0; k < p->chains->len && !order; k++) {
			const struct shard_chain *c = p->chains->pdata[k];

			if (!strcmp(c->version, v))
				order = c->steps;
		}
		for (guint s = 0; order && s < order->len; s++)
			for (guint k = 0; k < p->chains->len; k++) {
				const struct shard_chain *c = p->chains->pdata[k];
				const char *step = order->pdata[s];

				if (!strcmp(c->version, v))
					json_array_append_new(ids, json_sprintf("%s/%s", c->id, step));
			}
	}
	return ids;
}

static json_t *shard_json(const struct plan *p)
{
	json_t *chains = json_array();

	for (guint i = 0; i < p->chains->len; i++) {
		const struct shard_chain *c = p->chains->pdata[i];

		if (c->shard == p->shard_index)
			json_array_append_new(chains, json_string(c->id));
	}
	return json_pack("{s:i, s:i, s:s, s:f, s:o, s:o}", "index", p->shard_index,
			 "count", p->shard_count, "split", p->split,
			 "estimate", p->loads[p->shard_index - 1], "chains", chains,
			 "plan", plan_cell_ids(p));
}

void plan_identity(const struct plan *p, json_t *run)
{
	json_t *bins = json_object();
	GHashTableIter it;
	gpointer k, v;

	g_hash_table_iter_init(&it, p->packs);
	while (g_hash_table_iter_next(&it, &k, &v))
		json_object_set_new(bins, k, json_string(((struct pack *)v)->test_binary_sha));
	json_object_set_new(run, "series", json_string(p->series_sha ? p->series_sha : ""));
	json_object_set_new(run, "expectations", json_string(p->expectations_sha ?
							       p->expectations_sha : ""));
	json_object_set_new(run, "test_binaries", bins);
	if (p->shard_index)
		json_object_set_new(run, "shard", shard_json(p));
}

void shard_announce(const struct plan *p)
{
	GString *ids = g_string_new(NULL);
	double all = 0;

	for (int s = 0; s < p->shard_count; s++)
		all += p->loads[s];
	for (guint i = 0; i < p->chains->len; i++) {
		const struct shard_chain *c = p->chains->pdata[i];

		if (c->shard == p->shard_index)
			g_string_append_printf(ids, "%s%s", ids->len ? " " : "", c->id);
	}
	g_printerr("kmatrix: shard %d/%d: %s (estimate %.0f s of %.0f s; split %.12s)\n",
		   p->shard_index, p->shard_count, ids->len ? ids->str : "no chain",
		   p->loads[p->shard_index - 1], all, p->split);
	g_string_free(ids, TRUE);
}
