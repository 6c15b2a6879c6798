/* SPDX-License-Identifier: GPL-2.0 */
/* One kmatrix per cache: an flock() on <cache>/lock holding the owner's pid. */
#ifndef KMATRIX_LOCK_H
#define KMATRIX_LOCK_H

#include <glib.h>

/* The lock is held by the kmatrix that started us (KMATRIX_LOCK_HELD=<pid>). */
#define LOCK_INHERITED (-2)

/*
 * Returns the lock's fd (kept open while running), LOCK_INHERITED, or -1
 * with @err set.
 */
int lock_take(const char *cache, GError **err);
void lock_release(int fd);

#endif
