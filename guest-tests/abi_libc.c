// SPDX-License-Identifier: GPL-2.0
/*
 * The numbering of glibc's <sys/resource.h>: what a program that uses
 * the C library's names asks the kernel for.  RLIM_INFINITY is glibc's
 * rlim_t, 32 bits wide on a 32-bit ABI without _FILE_OFFSET_BITS=64.
 */
#include <sys/resource.h>

#include "abi.h"

void abi_libc(struct abi_numbering *n)
{
	static const int idx[ABI_NRES] = ABI_RLIMIT_INDEX;
	int i;

	for (i = 0; i < ABI_NRES; i++)
		n->index[i] = idx[i];
	n->nlimits = RLIM_NLIMITS;
	n->has_infinity = true;
	n->infinity = (rlim_t)RLIM_INFINITY;
}
