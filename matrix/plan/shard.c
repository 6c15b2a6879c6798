// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
