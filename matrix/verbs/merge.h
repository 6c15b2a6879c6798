/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmatrix merge: the results directories of several machines (shards of
 * one plan, or runs of different versions) combined into one, which the
 * report verbs read like a single run's.  Results that cannot belong to
 * one matrix are refused: another series, other expectations, another
 * test binary, two shards of different splits, one cell run twice.
 */
#ifndef KMATRIX_MERGE_H
#define KMATRIX_MERGE_H

#include <glib.h>
#include <jansson.h>

struct merge_src {
	char *dir;
	json_t *run;		/* its run.json */
	GPtrArray *cells;	/* char *ids it ran */
};

/* Read DIR/run.json; NULL with @err when it is not a run's results. */
struct merge_src *merge_src_load(const char *dir, GError **err);
void merge_src_free(struct merge_src *s);
/* NULL when @srcs can be merged, else the difference (newly allocated). */
char *merge_check(GPtrArray *srcs);
/* The merged run.json (every source's cells, or the shards' whole plan). */
json_t *merge_run(GPtrArray *srcs);
/* rlimit-abi's blocks: one when they agree, else their union. */
json_t *merge_abi(GPtrArray *srcs);
/* Check, then copy every source's cells and logs into the empty @out. */
int merge_dirs(GPtrArray *srcs, const char *out, GError **err);

#endif
