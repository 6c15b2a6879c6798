/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cache directory, resolved the same way by every tool of the project
 * (kmatrix, rlimit-abi), so that they always meet in the same cache.
 */
#ifndef KMATRIX_CACHEDIR_H
#define KMATRIX_CACHEDIR_H

#include <glib.h>

/*
 * @opt (from --cache) if set, else $KMATRIX_CACHE, else
 * $XDG_CACHE_HOME/kmatrix, else ~/.cache/kmatrix.  Newly allocated.
 */
char *cache_dir(const char *opt);

#endif
