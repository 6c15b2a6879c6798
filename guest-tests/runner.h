/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RLT_RUNNER_H
#define RLT_RUNNER_H

#include <stdio.h>
#include "cases.h"
#include "ktap_writer.h"

/* Seconds a case may take before its alarm kills it. */
#define CASE_TIMEOUT 30

void list_cases(const struct section *secs, size_t nsecs, FILE *out);
/* @header, when given, prints diagnostics between version and plan. */
int run_cases(const struct section *secs, size_t nsecs, char *const *globs,
	      void (*header)(struct ktap_writer *w));

#endif
