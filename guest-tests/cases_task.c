// SPDX-License-Identifier: GPL-2.0
/*
 * Whose limit decides, and the wider scopes.  Setting another task's nice
 * value or policy is judged by the target's RLIMIT_NICE or RLIMIT_RTPRIO,
 * not the caller's: the caller and its target get different limits here,
 * each way round.  setpriority() applies the same rule to every task of a
 * process group or a user, and RLIM_INFINITY grants the whole range.
 *
 * Every case sets the limits as root and drops to TEST_UID; the target is
 * a spawn_idle() child of the same uid, which set_one_prio_perm() and
 * check_same_owner() accept.
 */
#include <errno.h>
#include <sys/resource.h>

#include "check.h"
#include "priv.h"
#include "raw_rlimit.h"
#include "sched_util.h"

enum task_call {
	TASK_SETPRIORITY,
	TASK_SETATTR,
	TASK_FIFO,
};

struct task_arg {
	enum task_call call;
	int target_rlim; /* the target's limit */
	int caller_rlim; /* the caller's */
	int value; /* nice value, or SCHED_FIFO priority */
	bool grant;
};

static const char *const task_call_names[] = {
	[TASK_SETPRIORITY] = "setpriority",
	[TASK_SETATTR] = "sched_setattr",
	[TASK_FIFO] = "sched_setscheduler(SCHED_FIFO)",
};

static long task_call(const struct task_arg *a, pid_t pid)
{
	switch (a->call) {
	case TASK_SETPRIORITY:
		return setpriority(PRIO_PROCESS, pid, a->value);
	case TASK_SETATTR:
		return rlt_sched_setattr(pid, SCHED_OTHER, a->value, 0, 0);
	case TASK_FIFO:
		return set_sched(pid, SCHED_FIFO, a->value);
	}
	return -1;
}

static int task_errno(const struct task_arg *a)
{
	return a->call == TASK_SETPRIORITY ? EACCES : EPERM;
}

/* The target's nice value or FIFO priority: what the call really set. */
static bool task_has(const struct task_arg *a, pid_t pid, int value)
{
	struct sched_param sp;

	if (a->call != TASK_FIFO) {
		errno = 0;
		return expect_eq(getpriority(PRIO_PROCESS, pid), value,
				 "target's nice");
	}
	if (!value)
		return expect_eq(sched_getscheduler(pid), SCHED_OTHER,
				 "target's policy");
	return expect_eq(sched_getscheduler(pid), SCHED_FIFO,
			 "target's policy") &&
	       expect_ok(sched_getparam(pid, &sp), "sched_getparam") &&
	       expect_eq(sp.sched_priority, value, "target's RT priority");
}

static enum case_status task_judge(const struct task_arg *a, pid_t pid)
{
	const char *name = task_call_names[a->call];
	long rc = task_call(a, pid);

	if (a->grant)
		return expect_ok(rc, "%s(target, %d), target's limit %d, ours %d",
				 name, a->value, a->target_rlim,
				 a->caller_rlim) &&
				       task_has(a, pid, a->value) ?
			       CASE_PASS :
			       CASE_FAIL;
	return expect_errno(rc, task_errno(a),
			    "%s(target, %d), target's limit %d, ours %d", name,
			    a->value, a->target_rlim, a->caller_rlim) &&
			       task_has(a, pid, 0) ?
		       CASE_PASS :
		       CASE_FAIL;
}

/*
 * The grant fails when the kernel reads the caller's limit (can_nice() or
 * the RT check on current); the refusal fails the same way round.
 */
static enum case_status other_task(const void *arg)
{
	const struct task_arg *a = arg;
	int res = a->call == TASK_FIFO ? RES_RTPRIO : RES_NICE;
	enum case_status st;
	struct idle t;

	TRY(set_limit(res, a->target_rlim, a->target_rlim));
	if (!expect_ok(spawn_idle(&t, TEST_UID, TEST_GID), "spawn the target"))
		return CASE_FAIL;
	st = set_limit(res, a->caller_rlim, a->caller_rlim);
	if (st == CASE_PASS)
		st = drop_to_user();
	if (st == CASE_PASS)
		st = task_judge(a, t.pid);
	idle_stop(&t);
	return st;
}

struct who_arg {
	int which; /* PRIO_PGRP or PRIO_USER */
	int target;
	bool grant;
};

/*
 * setpriority(PRIO_PGRP, 0) and (PRIO_USER, 0) at RLIMIT_NICE 25: -5 is
 * allowed, -6 refused.  The runner's setsid() made the case its own
 * process group, and no other task runs as TEST_UID.
 */
static enum case_status who_case(const void *arg)
{
	const struct who_arg *a = arg;
	const char *name = a->which == PRIO_PGRP ? "PRIO_PGRP" : "PRIO_USER";
	long rc;

	TRY(set_limit(RES_NICE, 25, 25));
	TRY(drop_to_user());
	rc = setpriority(a->which, 0, a->target);
	if (a->grant)
		return expect_ok(rc, "setpriority(%s, %d) at RLIMIT_NICE 25",
				 name, a->target) &&
				       expect_eq(get_nice(), a->target,
						 "nice after %s", name) ?
			       CASE_PASS :
			       CASE_FAIL;
	return expect_errno(rc, EACCES, "setpriority(%s, %d) at RLIMIT_NICE 25",
			    name, a->target) &&
			       expect_eq(get_nice(), 0, "nice after %s", name) ?
		       CASE_PASS :
		       CASE_FAIL;
}

/*
 * set_limit() takes rlim_t, which a 32-bit suite's glibc makes 32 bits
 * wide: its RLIM_INFINITY would be a finite 4294967295 to prlimit64.
 */
static enum case_status set_infinite(int res)
{
	struct rl64 rl = { RL64_INFINITY, RL64_INFINITY };

	return expect_ok(prlimit64_raw(0, res, &rl, NULL),
			 "prlimit64(%d, RLIM_INFINITY) as root", res) ?
		       CASE_PASS :
		       CASE_FAIL;
}

/*
 * Both limits at RLIM_INFINITY: nice -20 and SCHED_FIFO 99 are allowed.
 * Fails when the limit is compared as a signed or narrower number.
 */
static enum case_status infinite_nice(const void *arg __always_unused)
{
	TRY(set_infinite(RES_NICE));
	TRY(drop_to_user());
	return expect_ok(setpriority(PRIO_PROCESS, 0, -20),
			 "setpriority(-20) at RLIMIT_NICE RLIM_INFINITY") &&
			       expect_eq(get_nice(), -20, "nice") ?
		       CASE_PASS :
		       CASE_FAIL;
}

static enum case_status infinite_rtprio(const void *arg __always_unused)
{
	struct sched_param sp;

	TRY(set_infinite(RES_RTPRIO));
	TRY(drop_to_user());
	return expect_ok(set_sched(0, SCHED_FIFO, 99),
			 "SCHED_FIFO 99 at RLIMIT_RTPRIO RLIM_INFINITY") &&
			       expect_ok(sched_getparam(0, &sp),
					 "sched_getparam") &&
			       expect_eq(sp.sched_priority, 99, "RT priority") ?
		       CASE_PASS :
		       CASE_FAIL;
}

#define TASK(call, trl, crl, v, grant) \
	(&(const struct task_arg){ call, trl, crl, v, grant })
#define WHO(which, target, grant) \
	(&(const struct who_arg){ which, target, grant })

static const struct tcase task_cases[] = {
	{ "nice_setpriority_other_task_rlim30_to_m5", G_NICE, other_task,
	  TASK(TASK_SETPRIORITY, 30, 0, -5, true) },
	{ "nice_setpriority_other_task_caller_rlim30_to_m5_refused", G_UAPI,
	  other_task, TASK(TASK_SETPRIORITY, 0, 30, -5, false) },
	{ "nice_setattr_other_task_rlim30_to_m5", G_NICE, other_task,
	  TASK(TASK_SETATTR, 30, 0, -5, true) },
	{ "nice_setattr_other_task_caller_rlim30_to_m5_refused", G_UAPI,
	  other_task, TASK(TASK_SETATTR, 0, 30, -5, false) },
	{ "rt_fifo_setscheduler_other_task_rlim10_to_10", G_RTPRIO, other_task,
	  TASK(TASK_FIFO, 10, 0, 10, true) },
	{ "rt_fifo_setscheduler_other_task_caller_rlim10_to_10_refused", G_UAPI,
	  other_task, TASK(TASK_FIFO, 0, 10, 10, false) },
	{ "nice_setpriority_pgrp_rlim25_to_m5", G_NICE, who_case,
	  WHO(PRIO_PGRP, -5, true) },
	{ "nice_setpriority_pgrp_rlim25_to_m6_refused", G_UAPI, who_case,
	  WHO(PRIO_PGRP, -6, false) },
	{ "nice_setpriority_user_rlim25_to_m5", G_NICE, who_case,
	  WHO(PRIO_USER, -5, true) },
	{ "nice_setpriority_user_rlim25_to_m6_refused", G_UAPI, who_case,
	  WHO(PRIO_USER, -6, false) },
	{ "nice_setpriority_rliminf_to_m20", G_NICE, infinite_nice, NULL },
	{ "rt_fifo_setscheduler_rliminf_to_99", G_RTPRIO, infinite_rtprio,
	  NULL },
};

const struct section task_section = SECTION(task_cases);
