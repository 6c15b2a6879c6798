// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sched_util.h"

int rlt_sched_setattr(pid_t pid, int policy, int nice, int prio, uint64_t flags)
{
	struct rlt_sched_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sched_policy = policy;
	a.sched_flags = flags;
	a.sched_nice = nice;
	a.sched_priority = prio;
	return syscall(SYS_sched_setattr, pid, &a, 0);
}

int rlt_sched_getattr(pid_t pid, struct rlt_sched_attr *a)
{
	memset(a, 0, sizeof(*a));
	return syscall(SYS_sched_getattr, pid, a, sizeof(*a), 0);
}

int set_sched(pid_t pid, int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	return sched_setscheduler(pid, policy, &sp);
}

int set_param(pid_t pid, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	return sched_setparam(pid, &sp);
}

/* getpriority() returns the nice value, which may be -1: clear errno. */
int get_nice(void)
{
	errno = 0;
	return getpriority(PRIO_PROCESS, 0);
}

int set_nice(int nice)
{
	return setpriority(PRIO_PROCESS, 0, nice);
}

const char *policy_name(int policy)
{
	switch (policy & ~SCHED_RESET_ON_FORK) {
	case SCHED_OTHER:
		return "SCHED_OTHER";
	case SCHED_FIFO:
		return "SCHED_FIFO";
	case SCHED_RR:
		return "SCHED_RR";
	case SCHED_BATCH:
		return "SCHED_BATCH";
	case SCHED_IDLE:
		return "SCHED_IDLE";
	}
	return "?";
}
