/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shards: the cells of a run split over N machines.  The unit is a chain,
 * every planned step of one version x arch: its commits share one build
 * directory and are built in step order, so a chain never splits.  The
 * split is a pure function of the chains and their estimates, so every
 * machine given the same plan and timings computes the same one.
 */
#ifndef KMATRIX_SHARD_H
#define KMATRIX_SHARD_H

#include <stdbool.h>
#include <glib.h>

/*
 * Estimates for a cell without a recorded result: a cold build directory
 * (the chain's first step) costs a full build, a later step an incremental
 * one; both include the boot.
 */
#define SHARD_DEFAULT_FIRST_S 600.0
#define SHARD_DEFAULT_NEXT_S 180.0

struct shard_chain {
	char *id;		/* "<version>/<arch>" */
	char *version, *arch;
	GPtrArray *steps;	/* char *: step ids in build order */
	double seconds;		/* estimate for the whole chain */
	int recorded;		/* steps whose estimate came from a result */
	int shard;		/* 1-based, after shard_split() */
};

struct shard_chain *shard_chain_new(const char *version, const char *arch);
void shard_chain_free(struct shard_chain *c);
/* Add a step: @seconds is its recorded time, or < 0 for the default. */
void shard_chain_add(struct shard_chain *c, const char *step, double seconds);

/*
 * Assign every chain of @chains to one of @n shards, longest chain first
 * to the least loaded shard (ties: the chain id, the lower shard).  Fills
 * each chain's shard and returns the n loads (seconds; g_free them).
 */
double *shard_split(GPtrArray *chains, int n);
/* sha256 over the assignment: equal on every machine that split alike. */
char *shard_digest(GPtrArray *chains, int n);

/* "I/N" with 1 <= I <= N; FALSE with @err otherwise. */
gboolean shard_parse(const char *s, int *index, int *count, GError **err);

/* The recorded seconds of a result file (every stage), or -1. */
double shard_recorded(const char *results, const char *version,
		      const char *arch, const char *step);

#endif
