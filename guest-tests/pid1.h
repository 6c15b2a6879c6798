/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PID-1 mode: rlimit-tests as the guest's /init, for an arch without a
 * userland to run guest-tests/init.
 */
#ifndef RLT_PID1_H
#define RLT_PID1_H

int pid1_main(const char *argv0);

#endif
