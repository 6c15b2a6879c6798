/* SPDX-License-Identifier: GPL-2.0 */
/* Assertions for case bodies: each prints why it failed as KTAP diag. */
#ifndef RLT_CHECK_H
#define RLT_CHECK_H

#include <stdbool.h>
#include "cases.h"

#define PRINTF(a, b) __attribute__((format(printf, a, b)))

void diag(const char *fmt, ...) PRINTF(1, 2);
enum case_status case_skip(const char *fmt, ...) PRINTF(1, 2);
const char *case_skip_reason(void);
void case_reset(void *shared, size_t len);

bool expect_ok(long rc, const char *fmt, ...) PRINTF(2, 3);
bool expect_errno(long rc, int err, const char *fmt, ...) PRINTF(3, 4);
bool expect_eq(long got, long want, const char *fmt, ...) PRINTF(3, 4);

#endif
