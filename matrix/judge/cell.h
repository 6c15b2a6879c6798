/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One cell of the matrix (version x arch x step) as it moves through the
 * stages, and what a stage reports back.
 */
#ifndef KMATRIX_CELL_H
#define KMATRIX_CELL_H

#include <stdbool.h>
#include <glib.h>
#include <jansson.h>

#include "conf.h"
#include "run.h"

/* A step of a version: stock, the baseline or a patch of the series (apply.c). */
struct step {
	char *id;
	int index;
	char *patch;		/* absolute; NULL for stock */
	char *commit;		/* NULL when it did not apply */
	char *tree;
	char *subject;
	char *failure;		/* summary when it did not apply */
	const char *verdict;	/* with failure: apply-failed, or setup-error or
				 * infra-error when the host, not the patch, stopped it */
	GPtrArray *evidence;	/* char *: the failing hunk, ... */
	double seconds;		/* time spent applying */
	struct usage usage;	/* what applying cost */
};

void step_free(struct step *s);

/* What a stage found: verdict NULL means it passed. */
struct outcome {
	const char *verdict;
	char *summary;
	GPtrArray *evidence;	/* char * */
};

/* Whether a cell's stored result stands (plan.c decides). */
enum reuse {
	REUSE_NONE,
	REUSE_CACHED,		/* same key: the stored result stands */
	REUSE_REJUDGED,		/* only the expectations changed: judged again */
};

struct cell {
	enum reuse reuse;	/* with reuse_known: decided while planning */
	bool reuse_known;
	const struct version_conf *v;
	const struct arch_conf *a;
	struct step *step;
	struct qemu_conf qemu;
	const char *cache;
	const char *distcc;	/* DISTCC_HOSTS for ccache's misses; NULL: local */
	unsigned int jobs;	/* make -j; 0: the local CPUs */
	const char *src;	/* the version's tree */
	char *build_dir;	/* <cache>/build/<v>/<arch> */
	char *logdir;		/* <results>/<v>/<arch> */
	char *path;		/* the result file */
	char *initramfs;	/* packed, content-addressed */
	char *key;
	char *build_key;	/* the key without the expectations */
	char *image_key;	/* what the kernel image is made of (images.c) */
	char *image;		/* the stored image to boot, or NULL: the build dir's */
	json_t *result;
	struct outcome out;
	double eta;		/* seconds this cell took last time, 0 if unknown */
};

void outcome_set(struct outcome *o, const char *verdict, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);
void outcome_add(struct outcome *o, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
void outcome_clear(struct outcome *o);
/* Append up to @max lines of @path (the last ones when @tail) to @to. */
void evidence_add_log(GPtrArray *to, const char *path, int max, bool tail);
/* The same as the outcome's evidence. */
void outcome_add_log(struct outcome *o, const char *path, int max, bool tail);

char *cell_log(const struct cell *c, const char *stage);
/* environ + CCACHE_DIR (+ distcc's); make's variables for the arch. */
char **cell_make_env(const struct cell *c);
GPtrArray *cell_make_argv(const struct cell *c, const char *target);
char *cell_cc(const struct arch_conf *a);

#endif
