/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hidden re-exec mode of the inheritance case: the binary, exec'd with
 * EXEC_MODE_ARG, prints its limits as "nice CUR MAX rtprio CUR MAX".
 */
#ifndef RLT_LIMITS_EXEC_H
#define RLT_LIMITS_EXEC_H

#define EXEC_MODE_ARG "--print-limits"

int print_limits(void);

#endif
