/* SPDX-License-Identifier: GPL-2.0 */
/* Scheduler syscalls the C library does not wrap, and small helpers. */
#ifndef RLT_SCHED_UTIL_H
#define RLT_SCHED_UTIL_H

#include <sched.h>
#include <stdint.h>
#include <sys/types.h>

#ifndef SCHED_FLAG_RESET_ON_FORK
#define SCHED_FLAG_RESET_ON_FORK 0x01
#endif

/* struct sched_attr, first published size (SCHED_ATTR_SIZE_VER0). */
struct rlt_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

int rlt_sched_setattr(pid_t pid, int policy, int nice, int prio,
		      uint64_t flags);
int rlt_sched_getattr(pid_t pid, struct rlt_sched_attr *a);
int set_sched(pid_t pid, int policy, int prio);
int set_param(pid_t pid, int prio);
int get_nice(void);
int set_nice(int nice);
const char *policy_name(int policy);

#endif
