/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Privilege helpers: limits set as root, the drop to an unprivileged uid,
 * capability probes and the capset that takes CAP_SYS_NICE from root.
 */
#ifndef RLT_PRIV_H
#define RLT_PRIV_H

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>
#include "cases.h"

/* nobody, and a second unprivileged user for the other-user cases. */
#define TEST_UID 65534
#define TEST_GID 65534
#define OTHER_UID 65533
#define OTHER_GID 65533

/* The ABI numbers, used raw so a libc without the names is no excuse. */
#define RES_NICE 13
#define RES_RTPRIO 14

bool have_cap(int cap);
enum case_status set_limit(int res, rlim_t cur, rlim_t max);
enum case_status set_both_limits(rlim_t nice, rlim_t rtprio);
enum case_status drop_to_uid(uid_t uid, gid_t gid);
enum case_status drop_to_user(void);
enum case_status drop_cap(int cap);
struct idle {
	pid_t pid;
	int ctl;
};

int spawn_idle(struct idle *t, uid_t uid, gid_t gid);
void idle_stop(struct idle *t);
enum case_status other_user_then_drop(struct idle *t);

#endif
