/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run: which cells (version x step x arch) it covers, what each cell's
 * content key is, and which cells can be reused from earlier results.
 */
#ifndef KMATRIX_PLAN_H
#define KMATRIX_PLAN_H

#include <stdbool.h>
#include <jansson.h>

#include "cell.h"
#include "conf.h"
#include "expect.h"
#include "pack.h"
#include "sandbox.h"

struct plan_opts {
	char *versions, *arches, *steps;	/* ';' or ',' separated; NULL: all */
	char *cache, *results, *matrix;
	char *shard;		/* "I/N": run one share of the chains */
	char *timings;		/* results directory the split is balanced by */
	char *reuse;		/* results directory to take matching cells from */
	int shards;		/* plan: split into this many shares (0: none) */
	char *distcc;		/* distcc host list; NULL: $KMATRIX_DISTCC_HOSTS */
	unsigned int jobs;	/* -j: make -j; 0: nproc (distcc: its slots) */
	char **trees;		/* --tree V=PATH@REF, NULL-terminated, or NULL */
	char *series;		/* --series: the backport directory of a --tree */
	gboolean no_backport;	/* port: a --tree version need not have one yet */
	gboolean force;
	gboolean phases;	/* run: print each once-per-run phase's time */
	gboolean no_boot;	/* plan: nothing boots, QEMU need not be installed */
	gboolean no_lay;	/* plan: lay no tree; a tree not laid has no keys */
};

struct version_run {
	const struct version_conf *v;
	char *tree;
	GPtrArray *steps;	/* struct step * */
	const char *setup_error;	/* verdict when the version cannot run */
	char *setup_msg;
	char *unlaid;		/* no_lay: why the tree would be laid first */
	bool recorded;		/* every cell reused: the tree was not checked */
	double lay_seconds;	/* checking (and, when needed, laying) the tree */
	struct usage lay;
};

struct plan {
	struct matrix_conf *m;
	struct expectations *exp;
	char *expectations_sha;
	char *top, *cache, *results;
	bool force;
	bool no_lay;		/* plan_opts.no_lay */
	char *distcc;		/* DISTCC_HOSTS of every build; NULL: local */
	unsigned int jobs;	/* make -j */
	char **versions, **arches, **steps;
	GPtrArray *vruns;	/* struct version_run * */
	GHashTable *packs;	/* arch name -> struct pack * (or NULL: failed) */
	GHashTable *pack_fail;	/* arch name -> struct outcome * */
	GHashTable *toolchains;	/* arch name -> char * */
	GPtrArray *cells;	/* struct cell *, in run order */
	json_t *excluded;	/* version x arch not run: run.json's "excluded" */
	json_t *run;		/* run.json */
	bool keep_checkout;	/* under git bisect: leave HEAD where it is */
	struct sandbox sandbox;	/* every child runs in it */
	int lock;
	/* shards (plan-shard.c): every selected version x arch chain of the plan */
	GPtrArray *chains;	/* struct shard_chain *, in plan order */
	int shard_index;	/* 1-based share this run does; 0: every chain */
	int shard_count;	/* 1 when not sharded */
	double *loads;		/* estimated seconds per share */
	char *split;		/* shard_digest() of the assignment */
	char *timings;		/* results directory the estimates came from */
	char *series_sha;	/* every version's step patches */
	char *reuse;		/* plan_opts.reuse, canonical; NULL: none */
	json_t *phases;		/* run.json's usage.phases: see plan_phase() */
	bool show_phases;	/* plan_opts.phases */
	bool own_failed;	/* the cache could not be given to the build user */
	/*
	 * While a version is planned from its tree's record, what planning
	 * says is held here: said if the record stands, dropped if the
	 * version is planned again on a checked tree, which says it anew.
	 */
	GString *held;
};

/*
 * Parse the common options of run/bisect and read the matrix, the QEMU
 * of its selected arches (unless no_boot) and the expectations; 2 on a
 * usage error or an input file in error (@err names the file and line).
 */
int plan_open(struct plan *p, const struct plan_opts *o, GError **err);
/*
 * Check the expectations' globs against the test binaries' case list (2
 * when one matches no case), then lay, apply, pack and build the list of
 * cells with their keys.
 */
int plan_cells(struct plan *p);
/* plan_open() and plan_cells(), errors printed; plan_close() it after. */
int plan_prepare(struct plan *p, const struct plan_opts *o);
/* Free what the option parser allocated into @o's strings. */
void plan_opts_clear(struct plan_opts *o);
void plan_close(struct plan *p);
/* "kmatrix: <message>\n" on stderr, or held (p->held). */
void plan_say(const struct plan *p, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/* The version_run of @version, or NULL. */
const struct version_run *plan_vrun(const struct plan *p, const char *version);
/* @name is in @list, or @list is NULL (every name). */
static inline bool plan_selected(char **list, const char *name)
{
	return !list || g_strv_contains((const char *const *)list, name);
}

/* Build p->chains from the planned steps and split them (plan-shard.c). */
void shard_plan(struct plan *p, GHashTable *steps_by_version);
bool plan_in_shard(const struct plan *p, const char *version, const char *arch);
/* "kmatrix: shard I/N: <chains> (estimate S s of T s)" on stderr. */
void shard_announce(const struct plan *p);
/* What makes results of two runs comparable, into run.json (plan-shard.c). */
void plan_identity(const struct plan *p, json_t *run);
/* sha256 over every version's step ids and patch contents. */
char *plan_series_sha(const struct matrix_conf *m);

/*
 * Record a once-per-run phase (the ownership walk, a tree's check, a
 * pack): its wall time since @t0 (g_get_monotonic_time()), or with
 * @skipped, why it did not run.  run.json's usage.phases, in order.
 */
void plan_phase(struct plan *p, const char *name, gint64 t0,
		const char *skipped);
/* With --phases: each recorded phase on stderr. */
void plan_print_phases(const struct plan *p);
/* Write the cell's result file; final when the cell is complete. */
void cell_finish(struct plan *p, struct cell *c, bool final);
enum reuse cell_reusable(const struct plan *p, struct cell *c);
/*
 * Give the whole cache to the build user before the first stage that
 * writes there; false (printed) when that cannot be done.  A run whose
 * cells are all reused never calls it: it writes only its results.
 */
bool plan_own_cache(struct plan *p);

int pipeline_run(struct plan *p);
/* Run build/rlimit-abi on every step commit; its JSON goes to run.json. */
void abi_check(struct plan *p);

#endif
