/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The configure and build stages of a cell (configure.c, build.c), and the
 * .config reading they share.
 */
#ifndef KMATRIX_BUILD_H
#define KMATRIX_BUILD_H

#include <glib.h>

#include "cell.h"

/* Symbol -> value ("" for "is not set") of a .config or a fragment. */
GHashTable *config_read(const char *path);
/* Count the fragment's symbols .config does not hold as asked; each is evidence. */
int config_verify(const char *fragment, const char *config, struct outcome *o);
int configure_cell(struct cell *c);
int build_cell(struct cell *c);
/*
 * A failed build's verdict from its log: the compiler's error lines, or
 * infra-error (also when @dir, the build directory, is on a full disk).
 */
void build_evidence(struct outcome *o, const char *log, const char *target, const char *dir);
/* A failed configure step's verdict from its log: config-failed, or infra-error. */
void configure_evidence(struct outcome *o, const char *log, const char *what,
			const char *dir);

#endif
