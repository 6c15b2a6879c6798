// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 9 item 4: RLIMIT_RTPRIO lets an unprivileged task use SCHED_FIFO
 * and SCHED_RR up to rlim_cur priority, through sched_setscheduler,
 * sched_setparam and sched_setattr.  At 0 no RT policy is allowed; an RT
 * task may always lower its priority and drop back to SCHED_OTHER, and
 * may not raise itself above the limit.
 *
 * Grant cases fail when the kernel still asks CAP_SYS_NICE for what the
 * limit allows (the pre-rlimit rule) or compares with an off-by-one;
 * refusal cases fail when it lets a task go above its limit.
 */
#include <errno.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "priv.h"
#include "sched_util.h"

enum rt_call {
	RT_SETSCHEDULER,
	RT_SETPARAM,
	RT_SETATTR,
};

struct rt_arg {
	int policy;
	enum rt_call call;
	int rlim;
	int start; /* priority root gives the task first; 0: SCHED_OTHER */
	int prio[2]; /* priorities to try in turn; 0 ends the list */
	bool grant;
};

static const char *const rt_call_names[] = {
	[RT_SETSCHEDULER] = "sched_setscheduler",
	[RT_SETPARAM] = "sched_setparam",
	[RT_SETATTR] = "sched_setattr",
};

static long rt_call(enum rt_call call, int policy, int prio)
{
	switch (call) {
	case RT_SETSCHEDULER:
		return set_sched(0, policy, prio);
	case RT_SETPARAM:
		return set_param(0, prio);
	case RT_SETATTR:
		return rlt_sched_setattr(0, policy, 0, prio, 0);
	}
	return -1;
}

/* Root puts the task in an RT policy before the drop. */
static enum case_status root_set_rt(int policy, int prio)
{
	if (set_sched(0, policy, prio) == 0)
		return CASE_PASS;
	if (errno == EPERM && !have_cap(CAP_SYS_NICE))
		return case_skip("root here lacks CAP_SYS_NICE, cannot use %s",
				 policy_name(policy));
	if (errno == EPERM)
		return case_skip(
			"the host refuses %s even to root (RT group runtime?)",
			policy_name(policy));
	expect_ok(-1, "root: %s %d", policy_name(policy), prio);
	return CASE_FAIL;
}

static bool sched_is(int policy, int prio)
{
	struct sched_param sp;

	if (!expect_eq(sched_getscheduler(0), policy, "policy (%s wanted)",
		       policy_name(policy)) ||
	    !expect_ok(sched_getparam(0, &sp), "sched_getparam"))
		return false;
	return expect_eq(sp.sched_priority, prio, "RT priority");
}

static enum case_status rt_case(const void *arg)
{
	const struct rt_arg *a = arg;
	const char *name = rt_call_names[a->call];
	int i, before = a->start;
	long rc;

	TRY(set_limit(RES_RTPRIO, a->rlim, a->rlim));
	if (a->start)
		TRY(root_set_rt(a->policy, a->start));
	TRY(drop_to_user());
	for (i = 0; i < 2 && a->prio[i]; i++) {
		rc = rt_call(a->call, a->policy, a->prio[i]);
		if (a->grant) {
			if (!expect_ok(rc, "%s(%s, %d) at RLIMIT_RTPRIO %d",
				       name, policy_name(a->policy), a->prio[i],
				       a->rlim) ||
			    !sched_is(a->policy, a->prio[i]))
				return CASE_FAIL;
			continue;
		}
		if (!expect_errno(rc, EPERM, "%s(%s, %d) at RLIMIT_RTPRIO %d",
				  name, policy_name(a->policy), a->prio[i],
				  a->rlim) ||
		    !sched_is(before ? a->policy : SCHED_OTHER, before))
			return CASE_FAIL;
	}
	return CASE_PASS;
}

/*
 * An RT task lowers its priority with each call, at RLIMIT_RTPRIO 0.
 * Fails when lowering needs CAP_SYS_NICE (the pre-rlimit rule).
 */
static enum case_status rt_lower(const void *arg)
{
	const int *policy = arg;

	TRY(set_limit(RES_RTPRIO, 0, 0));
	TRY(root_set_rt(*policy, 60));
	TRY(drop_to_user());
	if (!expect_ok(set_param(0, 40), "sched_setparam(40) from 60") ||
	    !sched_is(*policy, 40) ||
	    !expect_ok(set_sched(0, *policy, 30), "sched_setscheduler(30)") ||
	    !sched_is(*policy, 30) ||
	    !expect_ok(rlt_sched_setattr(0, *policy, 0, 20, 0),
		       "sched_setattr(20)") ||
	    !sched_is(*policy, 20))
		return CASE_FAIL;
	return CASE_PASS;
}

/*
 * An RT task may always go back to SCHED_OTHER (held before the rlimits
 * too).  Fails when leaving an RT policy needs privilege.
 */
static enum case_status rt_drop(const void *arg)
{
	const int *policy = arg;

	TRY(set_limit(RES_RTPRIO, 0, 0));
	TRY(root_set_rt(*policy, 60));
	TRY(drop_to_user());
	if (!expect_ok(set_sched(0, SCHED_OTHER, 0),
		       "sched_setscheduler(OTHER)"))
		return CASE_FAIL;
	return sched_is(SCHED_OTHER, 0) ? CASE_PASS : CASE_FAIL;
}

/*
 * A task put at 30 by root with RLIMIT_RTPRIO 20 cannot raise itself to
 * 31.  Fails when "above the limit" is judged from the current priority.
 */
static enum case_status rt_raise_above(const void *arg)
{
	const int *policy = arg;
	enum rt_call c;

	TRY(set_limit(RES_RTPRIO, 20, 20));
	TRY(root_set_rt(*policy, 30));
	TRY(drop_to_user());
	for (c = RT_SETSCHEDULER; c <= RT_SETATTR; c++)
		if (!expect_errno(rt_call(c, *policy, 31), EPERM,
				  "%s(31) from 30 at RLIMIT_RTPRIO 20",
				  rt_call_names[c]) ||
		    !sched_is(*policy, 30))
			return CASE_FAIL;
	return CASE_PASS;
}

struct switch_arg {
	int rlim;
	bool grant;
};

/*
 * Root puts the task at SCHED_FIFO 60, it drops privilege and asks for
 * SCHED_RR 30: a lower priority, but another RT policy.  Switching needs
 * a non-zero RLIMIT_RTPRIO; the priority may then fall below the limit's
 * value (30 > 10), because it does not rise.  The refusal fails when the
 * kernel drops the policy-switch check, the grant when it asks for the
 * limit to cover the priority of a task that lowers it.
 */
static enum case_status rt_switch(const void *arg)
{
	const struct switch_arg *a = arg;
	long rc;

	TRY(set_limit(RES_RTPRIO, a->rlim, a->rlim));
	TRY(root_set_rt(SCHED_FIFO, 60));
	TRY(drop_to_user());
	rc = set_sched(0, SCHED_RR, 30);
	if (a->grant)
		return expect_ok(rc, "FIFO 60 to RR 30 at RLIMIT_RTPRIO %d",
				 a->rlim) &&
				       sched_is(SCHED_RR, 30) ?
			       CASE_PASS :
			       CASE_FAIL;
	return expect_errno(rc, EPERM, "FIFO 60 to RR 30 at RLIMIT_RTPRIO %d",
			    a->rlim) &&
			       sched_is(SCHED_FIFO, 60) ?
		       CASE_PASS :
		       CASE_FAIL;
}

/*
 * sched_setattr(SCHED_FIFO, SCHED_FLAG_RESET_ON_FORK) is judged by the
 * limit like the call without the flag: 10 is allowed at RLIMIT_RTPRIO
 * 10, 11 is not.  Fails when the flag changes the RT decision.
 */
static enum case_status rt_setattr_reset(const void *arg)
{
	const struct switch_arg *a = arg;
	int prio = a->grant ? 10 : 11;
	long rc;

	TRY(set_limit(RES_RTPRIO, 10, 10));
	TRY(drop_to_user());
	rc = rlt_sched_setattr(0, SCHED_FIFO, 0, prio,
			       SCHED_FLAG_RESET_ON_FORK);
	if (a->grant)
		return expect_ok(rc, "sched_setattr(FIFO %d, RESET_ON_FORK)",
				 prio) &&
				       sched_is(SCHED_FIFO | SCHED_RESET_ON_FORK,
						prio) ?
			       CASE_PASS :
			       CASE_FAIL;
	return expect_errno(rc, EPERM, "sched_setattr(FIFO %d, RESET_ON_FORK)",
			    prio) &&
			       sched_is(SCHED_OTHER, 0) ?
		       CASE_PASS :
		       CASE_FAIL;
}

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

/*
 * SCHED_DEADLINE stays privileged whatever RLIMIT_RTPRIO says: at 99, a
 * valid reservation (10 ms every 30 ms) is EPERM.  Fails when the kernel
 * lets the RT limit grant a deadline task.
 */
static enum case_status deadline_refused(const void *arg __always_unused)
{
	struct rlt_sched_attr a = {
		.size = sizeof(a),
		.sched_policy = SCHED_DEADLINE,
		.sched_runtime = 10 * 1000 * 1000,
		.sched_deadline = 30 * 1000 * 1000,
		.sched_period = 30 * 1000 * 1000,
	};

	TRY(set_limit(RES_RTPRIO, 99, 99));
	TRY(drop_to_user());
	return expect_errno(syscall(SYS_sched_setattr, 0, &a, 0), EPERM,
			    "sched_setattr(SCHED_DEADLINE) at RLIMIT_RTPRIO 99") &&
			       sched_is(SCHED_OTHER, 0) ?
		       CASE_PASS :
		       CASE_FAIL;
}

#define SWITCH(rlim, grant) (&(const struct switch_arg){ rlim, grant })

static const int fifo = SCHED_FIFO, rr = SCHED_RR;

#define RT(pol, call, rlim, start, p0, p1, grant) \
	(&(const struct rt_arg){ pol, call, rlim, start, { p0, p1 }, grant })
/*
 * Per policy and call.  sched_setparam keeps the policy, so root makes the
 * task SCHED_<pol> at priority 1 first.
 */
/* clang-format off */
#define RT_CALL_CASES(pre, pol, call, s)				\
	{ pre "rlim0_refused", G_ALL, rt_case,				\
	  RT(pol, call, 0, s, s + 1, 0, false) },			\
	{ pre "rlim50_to_50", G_RTPRIO, rt_case,			\
	  RT(pol, call, 50, s, s ? 25 : 1, 50, true) },			\
	{ pre "rlim50_to_51_refused", G_UAPI, rt_case,			\
	  RT(pol, call, 50, s, 51, 0, false) },				\
	{ pre "rlim99_to_99", G_RTPRIO, rt_case,			\
	  RT(pol, call, 99, s, 99, 0, true) }
#define RT_POLICY_CASES(pre, pol, polvar)				\
	RT_CALL_CASES(pre "setscheduler_", pol, RT_SETSCHEDULER, 0),	\
	RT_CALL_CASES(pre "setparam_", pol, RT_SETPARAM, 1),		\
	RT_CALL_CASES(pre "setattr_", pol, RT_SETATTR, 0),		\
	{ pre "lower_priority", G_RTPRIO, rt_lower, &polvar },		\
	{ pre "drop_to_other", G_ALL, rt_drop, &polvar },		\
	{ pre "raise_above_limit_refused", G_UAPI, rt_raise_above, &polvar }
/* clang-format on */

static const struct tcase rt_cases[] = {
	RT_POLICY_CASES("rt_fifo_", SCHED_FIFO, fifo),
	RT_POLICY_CASES("rt_rr_", SCHED_RR, rr),
	{ "rt_fifo_to_rr_rlim0_refused", G_ALL, rt_switch, SWITCH(0, false) },
	{ "rt_fifo_to_rr_rlim10_to_30", G_RTPRIO, rt_switch,
	  SWITCH(10, true) },
	{ "rt_fifo_setattr_reset_on_fork_rlim10_to_10", G_RTPRIO,
	  rt_setattr_reset, SWITCH(10, true) },
	{ "rt_fifo_setattr_reset_on_fork_rlim10_to_11_refused", G_UAPI,
	  rt_setattr_reset, SWITCH(10, false) },
	{ "sched_deadline_rlim99_refused", G_UAPI, deadline_refused, NULL },
};

const struct section rt_section = SECTION(rt_cases);
