// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "key.h"
#include "pack.h"
#include "plan.h"
#include "result.h"
#include "shard.h"

#define SHARD_ERROR g_quark_from_static_string("kmatrix-shard")

struct shard_chain *shard_chain_new(const char *version, const char *arch)
{
	struct shard_chain *c = g_new0(struct shard_chain, 1);

	c->id = g_strdup_printf("%s/%s", version, arch);
	c->version = g_strdup(version);
	c->arch = g_strdup(arch);
	c->steps = g_ptr_array_new_with_free_func(g_free);
	return c;
}

void shard_chain_free(struct shard_chain *c)
{
	if (!c)
		return;
	g_free(c->id);
	g_free(c->version);
	g_free(c->arch);
	g_ptr_array_free(c->steps, TRUE);
	g_free(c);
}

void shard_chain_add(struct shard_chain *c, const char *step, double seconds)
{
	if (seconds >= 0) {
		c->seconds += seconds;
		c->recorded++;
	} else {
		c->seconds += c->steps->len ? SHARD_DEFAULT_NEXT_S : SHARD_DEFAULT_FIRST_S;
	}
	g_ptr_array_add(c->steps, g_strdup(step));
}

static int by_cost(gconstpointer a, gconstpointer b)
{
	const struct shard_chain *x = *(struct shard_chain *const *)a;
	const struct shard_chain *y = *(struct shard_chain *const *)b;

	if (x->seconds != y->seconds)
		return x->seconds > y->seconds ? -1 : 1;
	return strcmp(x->id, y->id);
}

double *shard_split(GPtrArray *chains, int n)
{
	GPtrArray *order = g_ptr_array_new();
	double *load = g_new0(double, n);

	for (guint i = 0; i < chains->len; i++)
		g_ptr_array_add(order, chains->pdata[i]);
	g_ptr_array_sort(order, by_cost);
	for (guint i = 0; i < order->len; i++) {
		struct shard_chain *c = order->pdata[i];
		int best = 0;

		for (int s = 1; s < n; s++)
			if (load[s] < load[best])
				best = s;
		c->shard = best + 1;
		load[best] += c->seconds;
	}
	g_ptr_array_free(order, TRUE);
	return load;
}

char *shard_digest(GPtrArray *chains, int n)
{
	GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
	char *hex, *line = g_strdup_printf("shards %d\n", n);

	g_checksum_update(sum, (const guchar *)line, -1);
	g_free(line);
	for (guint i = 0; i < chains->len; i++) {
		const struct shard_chain *c = chains->pdata[i];

		line = g_strdup_printf("%d %s", c->shard, c->id);
		g_checksum_update(sum, (const guchar *)line, -1);
		for (guint s = 0; s < c->steps->len; s++) {
			g_checksum_update(sum, (const guchar *)" ", 1);
			g_checksum_update(sum, c->steps->pdata[s], -1);
		}
		g_checksum_update(sum, (const guchar *)"\n", 1);
		g_free(line);
	}
	hex = g_strdup(g_checksum_get_string(sum));
	g_checksum_free(sum);
	return hex;
}

gboolean shard_parse(const char *s, int *index, int *count, GError **err)
{
	char *end1 = NULL, *end2 = NULL;
	long i = strtol(s, &end1, 10), n = 0;

	if (end1 != s && *end1 == '/')
		n = strtol(end1 + 1, &end2, 10);
	if (end1 == s || *end1 != '/' || !end2 || end2 == end1 + 1 || *end2 ||
	    n < 1 || n > 1000 || i < 1 || i > n) {
		g_set_error(err, SHARD_ERROR, 2,
			    "--shard takes I/N with 1 <= I <= N <= 1000, not '%s'", s);
		return FALSE;
	}
	*index = i;
	*count = n;
	return TRUE;
}

double shard_recorded(const char *results, const char *version,
		      const char *arch, const char *step)
{
	char *path = result_path(results, version, arch, step, ".json");
	char *why = NULL;
	json_t *r = result_read(path, version, arch, step, &why), *v;
	const char *k;
	double s = 0;

	g_free(path);
	g_free(why);
	if (!r)
		return -1;
	json_object_foreach(json_object_get(r, "timings"), k, v)
		s += json_number_value(v);
	json_decref(r);
	/* A cell that never got to build (set-up error) says nothing of its cost. */
	return s > 0 ? s : -1;
}

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
	printf("kmatrix: shard %d/%d: %s (estimate %.0f s of %.0f s; split %.12s)\n",
	       p->shard_index, p->shard_count, ids->len ? ids->str : "no chain",
	       p->loads[p->shard_index - 1], all, p->split);
	fflush(stdout);
	g_string_free(ids, TRUE);
}
