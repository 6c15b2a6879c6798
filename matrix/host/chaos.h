/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A test hook for tests/chaos/run.sh, which SIGKILLs kmatrix at random
 * moments.  Two moments are too short to hit by timing, so kmatrix kills
 * itself there when told to: KMATRIX_CHAOS_KILL=<point>[:<n>] raises
 * SIGKILL the n-th time (default: the first) kmatrix passes <point>.
 *   own     after each entry the hand-over to the build user changed
 *   result  a result's temporary file half written, not yet renamed
 * Unset (always, outside that test), a point costs one getenv().
 */
#ifndef KMATRIX_CHAOS_H
#define KMATRIX_CHAOS_H

void chaos_point(const char *name);

#endif
