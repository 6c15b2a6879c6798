// SPDX-License-Identifier: GPL-2.0
/*
 * The numbering of the kernel uapi headers the binary was compiled
 * against.  <linux/resource.h> defines struct rlimit and the RLIMIT_ names
 * itself, so this file must not see glibc's <sys/resource.h>.
 */
#include <linux/resource.h>

#include "abi.h"

const unsigned long uapi_rlim_infinity = RLIM_INFINITY;

void abi_uapi(struct abi_numbering *n)
{
	static const int idx[ABI_NRES] = ABI_RLIMIT_INDEX;
	int i;

	for (i = 0; i < ABI_NRES; i++)
		n->index[i] = idx[i];
	n->nlimits = RLIM_NLIMITS;
	n->has_infinity = true;
	n->infinity = RLIM_INFINITY;
}
