/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Results of another results directory (a CI pipeline's last merged
 * results) taken into this run's before it is planned: a cell whose key
 * still matches is then reused, or judged again from its console.
 */
#ifndef KMATRIX_REUSE_H
#define KMATRIX_REUSE_H

#include <stdbool.h>

/*
 * Copy the cell <version>/<arch>/<step> from the results directory @from
 * into @results (result_copy_cell()) when @results has no result for it
 * yet; true when a result was copied.
 */
bool reuse_seed(const char *from, const char *results, const char *version,
		const char *arch, const char *step);

#endif
