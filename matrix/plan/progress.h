/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Progress of a run: on a terminal one live line (cell, stage, elapsed,
 * ETA of the whole run from earlier runs' timings); otherwise one plain
 * line per stage.  Those and the notes go to stderr; stdout carries only
 * the product, one line per finished cell.
 */
#ifndef KMATRIX_PROGRESS_H
#define KMATRIX_PROGRESS_H

#include "cell.h"

void progress_begin(int cells, double eta);
void progress_stage(const struct cell *c, const char *stage);
void progress_done(const struct cell *c, const char *verdict, bool met, bool reused);
/* Called while waiting for children: redraws the live line once a second. */
void progress_tick(void);
void progress_end(void);
void progress_note(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

#endif
