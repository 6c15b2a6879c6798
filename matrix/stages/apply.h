/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Steps of a version: stock, the baseline, then the series' patches in
 * `order`, applied with git am on branch `matrix` and tagged step/<id>.
 */
#ifndef KMATRIX_APPLY_H
#define KMATRIX_APPLY_H

#include <glib.h>
#include "cell.h"
#include "conf.h"

/*
 * The version's steps from its baseline directory and series `order`.
 * Returns NULL with @err (file:line) on a malformed order file, one
 * naming a patch that is missing or already a step's, and on a patch
 * file that is empty, binary or has CRLF line endings.
 */
GPtrArray *apply_plan(const struct version_conf *v, GError **err);
/*
 * Every step id of @m: stock, baseline, the ids of every version's order
 * and of the canonical series/ (a run of a variant series shares its
 * expectations).  NULL with @err when an order file is malformed.
 */
char **apply_step_ids(const struct matrix_conf *m, GError **err);
/*
 * Bring tags step/<id> up to date in @tree (re-applying only from the first
 * step whose patch or parent changed) and fill in each step's commit or
 * failure.  @logdir receives <step>.apply.log.  A step git itself failed
 * on is an infra-error step (the later ones with it).  Returns 0, or -1
 * when interrupted or when the steps' state could not be saved.
 */
int apply_steps(const char *tree, const char *top, GPtrArray *steps,
		const char *logdir);
/*
 * After apply_steps() applied every step of a tree laid from @stock_id
 * (tree_stock_identity()): record each step's patch, commit, tree and
 * subject.  A step that failed, or a NULL @stock_id, records nothing.
 */
void apply_record(const char *tree, GPtrArray *steps, const char *stock_id);
/* Drop the record: the tree is about to change. */
void apply_unrecord(const char *tree);
/*
 * Describe @steps from the record without running git: TRUE when the
 * tree was laid from the same @stock_id and every step's patch is the
 * one recorded, so the recorded commits and trees are what apply_steps()
 * would find.  Else FALSE, with the steps undescribed.
 */
gboolean apply_recorded(const char *tree, GPtrArray *steps, const char *stock_id);
/* Forget the steps' commits, trees and subjects. */
void apply_undescribe(GPtrArray *steps);

#endif
