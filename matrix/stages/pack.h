/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest initramfs of an arch: packed by guest-tests/mkinitramfs (which
 * is deterministic) and stored by content under <cache>/initramfs, with
 * <arch>.inputs naming what it was made of, so that a run in which none of
 * that changed takes the stored one instead of packing it again.
 */
#ifndef KMATRIX_PACK_H
#define KMATRIX_PACK_H

#include "cell.h"

struct pack {
	char *test_binary;	/* build/guest/<arch>/rlimit-tests */
	char *test_binary_sha;
	char *compat_binary;	/* build/guest/<arch>/rlimit-tests-<compat>, or NULL */
	char *path;		/* <cache>/initramfs/<arch>-<hash>.cpio.gz */
	char *sha;
	bool reused;		/* the stored one: nothing it is made of changed */
	double seconds;
	struct usage usage;
};

/*
 * The stored initramfs, when nothing it is made of changed: 0 with @p
 * filled and p->reused; 1 when it must be packed; -1 with @o holding the
 * setup-error.  Writes nothing: a run that packs nothing need not own the
 * cache.
 */
int pack_lookup(const char *top, const char *cache, const struct arch_conf *a,
		struct pack *p, struct outcome *o);
/*
 * Pack after pack_lookup() returned 1 for @p: 0, or -1 with @o holding the
 * infra-error.
 */
int pack_make(const char *top, const char *cache, const struct arch_conf *a,
	      struct pack *p, struct outcome *o);
/* pack_lookup(), then packing: 0, or -1 with @o holding the setup-error or infra-error. */
int pack_initramfs(const char *top, const char *cache, const struct arch_conf *a,
		   struct pack *p, struct outcome *o);
void pack_clear(struct pack *p);

#endif
