/* SPDX-License-Identifier: GPL-2.0 */
/* Scratch directories the unit tests share the handling of. */
#ifndef KMATRIX_TEST_FIXTURE_H
#define KMATRIX_TEST_FIXTURE_H

/* A new empty directory kmatrix-<name>-XXXXXX under $TMPDIR, or NULL. */
char *fixture_tmpdir(const char *name);

/* Remove @dir and everything below it (links are removed, not followed). */
void fixture_rm_rf(const char *dir);

#endif
