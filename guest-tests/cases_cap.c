// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 9 item 6: CAP_SYS_NICE is blanket permission.  Root ignores both
 * limits; root without CAP_SYS_NICE (capset) is bound by them like anyone;
 * another user's process cannot be changed whatever the limits.
 */
#include <errno.h>
#include <linux/capability.h>
#include <sys/resource.h>

#include "check.h"
#include "priv.h"
#include "sched_util.h"

static enum case_status need_cap_sys_nice(void)
{
	if (!have_cap(CAP_SYS_NICE))
		return case_skip("root here lacks CAP_SYS_NICE");
	return CASE_PASS;
}

/* Fails when root's nice reductions are checked against RLIMIT_NICE 0. */
static enum case_status root_nice(const void *arg __always_unused)
{
	TRY(set_limit(RES_NICE, 0, 0));
	TRY(need_cap_sys_nice());
	if (!expect_ok(set_nice(-20), "root: setpriority(-20)") ||
	    !expect_ok(set_nice(10), "root: setpriority(10)") ||
	    !expect_ok(rlt_sched_setattr(0, SCHED_OTHER, -10, 0, 0),
		       "root: sched_setattr(nice -10)") ||
	    !expect_eq(get_nice(), -10, "root's nice"))
		return CASE_FAIL;
	return CASE_PASS;
}

/* Fails when root's RT requests are checked against RLIMIT_RTPRIO 0. */
static enum case_status root_rtprio(const void *arg __always_unused)
{
	TRY(set_limit(RES_RTPRIO, 0, 0));
	TRY(need_cap_sys_nice());
	if (!expect_ok(set_sched(0, SCHED_FIFO, 99), "root: SCHED_FIFO 99") ||
	    !expect_ok(set_sched(0, SCHED_RR, 50), "root: SCHED_RR 50") ||
	    !expect_ok(rlt_sched_setattr(0, SCHED_FIFO, 0, 99, 0),
		       "root: sched_setattr SCHED_FIFO 99") ||
	    !expect_ok(set_sched(0, SCHED_IDLE, 0), "root: SCHED_IDLE") ||
	    !expect_ok(set_sched(0, SCHED_OTHER, 0), "root: IDLE to OTHER"))
		return CASE_FAIL;
	return CASE_PASS;
}

/*
 * Root without CAP_SYS_NICE and both limits 0 is refused like any user.
 * Fails when uid 0 itself (not the capability) is taken as permission.
 */
static enum case_status dropped_rlim0(const void *arg __always_unused)
{
	TRY(set_both_limits(0, 0));
	TRY(need_cap_sys_nice());
	TRY(drop_cap(CAP_SYS_NICE));
	if (!expect_errno(set_nice(-1), EACCES, "setpriority(-1)") ||
	    !expect_errno(set_sched(0, SCHED_FIFO, 1), EPERM, "SCHED_FIFO 1"))
		return CASE_FAIL;
	return CASE_PASS;
}

/* Root without CAP_SYS_NICE at RLIMIT_NICE 25: -5 allowed, -6 refused. */
static enum case_status dropped_nice(const void *arg __always_unused)
{
	TRY(set_limit(RES_NICE, 25, 25));
	TRY(need_cap_sys_nice());
	TRY(drop_cap(CAP_SYS_NICE));
	if (!expect_ok(set_nice(-5), "setpriority(-5) at RLIMIT_NICE 25") ||
	    !expect_errno(set_nice(-6), EACCES,
			  "setpriority(-6) at RLIMIT_NICE 25") ||
	    !expect_eq(get_nice(), -5, "nice"))
		return CASE_FAIL;
	return CASE_PASS;
}

/* Root without CAP_SYS_NICE at RLIMIT_RTPRIO 10: 10 allowed, 11 refused. */
static enum case_status dropped_rtprio(const void *arg __always_unused)
{
	TRY(set_limit(RES_RTPRIO, 10, 10));
	TRY(need_cap_sys_nice());
	TRY(drop_cap(CAP_SYS_NICE));
	if (!expect_ok(set_sched(0, SCHED_FIFO, 10),
		       "SCHED_FIFO 10 at RLIMIT_RTPRIO 10") ||
	    !expect_errno(set_sched(0, SCHED_FIFO, 11), EPERM,
			  "SCHED_FIFO 11 at RLIMIT_RTPRIO 10"))
		return CASE_FAIL;
	return CASE_PASS;
}

/*
 * Changing another user's process is refused with our limits 0 or raised
 * (the target has the same limits).  Fails when the owner check is lost
 * or a limit is taken as permission over other users.
 */
static enum case_status other_user(const void *arg)
{
	const int *raised = arg;
	enum case_status st = CASE_FAIL;
	struct idle t;

	TRY(set_both_limits(*raised ? 40 : 0, *raised ? 99 : 0));
	TRY(other_user_then_drop(&t));
	if (expect_errno(setpriority(PRIO_PROCESS, t.pid, 19), EPERM,
			 "setpriority(other user, 19)") &&
	    expect_errno(setpriority(PRIO_PROCESS, t.pid, -5), EPERM,
			 "setpriority(other user, -5)") &&
	    expect_errno(set_sched(t.pid, SCHED_FIFO, 1), EPERM,
			 "sched_setscheduler(other user, FIFO 1)") &&
	    expect_errno(set_sched(t.pid, SCHED_BATCH, 0), EPERM,
			 "sched_setscheduler(other user, BATCH)") &&
	    expect_errno(rlt_sched_setattr(t.pid, SCHED_OTHER, 5, 0, 0), EPERM,
			 "sched_setattr(other user, nice 5)"))
		st = CASE_PASS;
	idle_stop(&t);
	return st;
}

static const int zero = 0, raised = 1;

static const struct tcase cap_cases[] = {
	{ "cap_root_ignores_nice_limit", G_ALL, root_nice, NULL },
	{ "cap_root_ignores_rtprio_limit", G_ALL, root_rtprio, NULL },
	{ "cap_dropped_rlim0_refused", G_ALL, dropped_rlim0, NULL },
	{ "cap_dropped_nice_bound", G_NICE, dropped_nice, NULL },
	{ "cap_dropped_rtprio_bound", G_RTPRIO, dropped_rtprio, NULL },
	{ "other_user_refused_rlim0", G_ALL, other_user, &zero },
	{ "other_user_refused_raised_limits", G_UAPI, other_user, &raised },
};

const struct section cap_section = SECTION(cap_cases);
