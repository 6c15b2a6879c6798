/* SPDX-License-Identifier: GPL-2.0 */
/* Where kmatrix keeps trees, build directories, ccache and results. */
#ifndef KMATRIX_CACHE_H
#define KMATRIX_CACHE_H

#include <glib.h>

#include "cachedir.h"	/* cache_dir(), shared with rlimit-abi */

/* <cache>/results unless @opt (from --results) is set.  Newly allocated. */
char *cache_results_dir(const char *cache, const char *opt);

/*
 * The project repository's top directory (where matrix/matrix.conf lives):
 * $KMATRIX_TOP, else found from the running binary (build/kmatrix).
 */
char *cache_project_top(void);

/* Is @path @dir or below it, symlinks resolved in both? */
gboolean cache_path_under(const char *path, const char *dir);

/*
 * Refuse a path inside the project repository (symlinks resolved), so that
 * a kernel tree or a build directory can never be committed by accident.
 */
gboolean cache_path_allowed(const char *path, const char *top, GError **err);

#endif
