// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 9 item 5: the non-RT policy rules.  SCHED_IDLE counts as nice 20:
 * going back to SCHED_OTHER needs RLIMIT_NICE to allow the current nice.
 * Moving between SCHED_OTHER, SCHED_BATCH and SCHED_IDLE at the same nice
 * is free, and an unprivileged task cannot clear SCHED_RESET_ON_FORK.
 */
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "priv.h"
#include "sched_util.h"

struct idle_arg {
	int rlim;
	bool grant;
	int nice; /* the task's nice value while it is SCHED_IDLE */
};

static bool policy_is(int policy)
{
	return expect_eq(sched_getscheduler(0), policy, "policy (%s wanted)",
			 policy_name(policy));
}

/*
 * SCHED_IDLE at nice 0 back to SCHED_OTHER: allowed from RLIMIT_NICE 20
 * (20 - 0), refused below; at nice 5, from 15.  The nice-5 pair fails
 * when the rule reads a constant instead of the task's nice value.  The grant fails while leaving SCHED_IDLE
 * still needs CAP_SYS_NICE; the refusal fails when the kernel lets an
 * idle task out without the limit (or with an off-by-one at 19).
 */
static enum case_status idle_to_other(const void *arg)
{
	const struct idle_arg *a = arg;

	TRY(set_limit(RES_NICE, a->rlim, a->rlim));
	TRY(drop_to_user());
	if (!expect_ok(set_nice(a->nice), "nice %d", a->nice) ||
	    !expect_ok(set_sched(0, SCHED_IDLE, 0), "SCHED_IDLE") ||
	    !policy_is(SCHED_IDLE))
		return CASE_FAIL;
	if (a->grant) {
		if (!expect_ok(set_sched(0, SCHED_OTHER, 0),
			       "SCHED_IDLE to SCHED_OTHER at RLIMIT_NICE %d",
			       a->rlim))
			return CASE_FAIL;
		return policy_is(SCHED_OTHER) ? CASE_PASS : CASE_FAIL;
	}
	if (!expect_errno(
		    set_sched(0, SCHED_OTHER, 0), EPERM,
		    "sched_setscheduler SCHED_IDLE to SCHED_OTHER at RLIMIT_NICE %d",
		    a->rlim) ||
	    !expect_errno(
		    rlt_sched_setattr(0, SCHED_OTHER, 0, 0, 0), EPERM,
		    "sched_setattr SCHED_IDLE to SCHED_OTHER at RLIMIT_NICE %d",
		    a->rlim))
		return CASE_FAIL;
	return policy_is(SCHED_IDLE) ? CASE_PASS : CASE_FAIL;
}

/*
 * At RLIMIT_NICE 0 and nice 5: OTHER -> BATCH -> OTHER -> IDLE, with both
 * calls.  Fails when a kernel asks privilege for a fair-policy switch that
 * does not lower the nice value.
 */
static enum case_status batch_idle(const void *arg __always_unused)
{
	TRY(set_limit(RES_NICE, 0, 0));
	TRY(drop_to_user());
	if (!expect_ok(set_nice(5), "nice 5") ||
	    !expect_ok(set_sched(0, SCHED_BATCH, 0), "OTHER to BATCH") ||
	    !policy_is(SCHED_BATCH) ||
	    !expect_ok(set_sched(0, SCHED_OTHER, 0), "BATCH to OTHER") ||
	    !expect_ok(rlt_sched_setattr(0, SCHED_BATCH, 5, 0, 0),
		       "sched_setattr OTHER to BATCH at nice 5") ||
	    !policy_is(SCHED_BATCH) ||
	    !expect_ok(rlt_sched_setattr(0, SCHED_IDLE, 5, 0, 0),
		       "sched_setattr BATCH to IDLE at nice 5") ||
	    !policy_is(SCHED_IDLE) ||
	    !expect_ok(set_sched(0, SCHED_IDLE, 0), "IDLE to IDLE") ||
	    !expect_eq(get_nice(), 5, "nice after the switches"))
		return CASE_FAIL;
	return CASE_PASS;
}

/*
 * Setting SCHED_RESET_ON_FORK is free, clearing it needs CAP_SYS_NICE
 * whatever the limits.  Fails when an unprivileged task can clear it.
 */
static enum case_status reset_on_fork(const void *arg)
{
	const int *limit = arg;

	TRY(set_both_limits(*limit ? 40 : 0, *limit ? 99 : 0));
	TRY(drop_to_user());
	if (!expect_ok(set_sched(0, SCHED_OTHER | SCHED_RESET_ON_FORK, 0),
		       "set SCHED_RESET_ON_FORK") ||
	    !policy_is(SCHED_OTHER | SCHED_RESET_ON_FORK) ||
	    !expect_errno(set_sched(0, SCHED_OTHER, 0), EPERM,
			  "sched_setscheduler clearing SCHED_RESET_ON_FORK") ||
	    !expect_errno(rlt_sched_setattr(0, SCHED_OTHER, 0, 0, 0), EPERM,
			  "sched_setattr clearing SCHED_FLAG_RESET_ON_FORK") ||
	    !policy_is(SCHED_OTHER | SCHED_RESET_ON_FORK))
		return CASE_FAIL;
	return CASE_PASS;
}

/*
 * An unprivileged SCHED_FIFO 10 task at nice -5 with reset-on-fork: its
 * child starts SCHED_OTHER at nice 0.  Needs both grants; fails when
 * either is refused or the fork does not reset.
 */
static enum case_status reset_on_fork_child(const void *arg __always_unused)
{
	int status;
	pid_t pid;

	TRY(set_both_limits(25, 10));
	TRY(drop_to_user());
	if (!expect_ok(set_nice(-5), "nice -5 at RLIMIT_NICE 25") ||
	    !expect_ok(set_sched(0, SCHED_FIFO | SCHED_RESET_ON_FORK, 10),
		       "SCHED_FIFO 10 with reset-on-fork at RLIMIT_RTPRIO 10"))
		return CASE_FAIL;
	pid = fork();
	if (pid == 0)
		_exit(policy_is(SCHED_OTHER) &&
				      expect_eq(get_nice(), 0, "child's nice") ?
			      0 :
			      1);
	if (!expect_ok(pid, "fork") || waitpid(pid, &status, 0) != pid)
		return CASE_FAIL;
	return expect_eq(status, 0, "child's wait status") ? CASE_PASS :
							     CASE_FAIL;
}

static const int no_limits = 0, raised_limits = 1;

#define IDLE(rlim, grant) (&(const struct idle_arg){ rlim, grant, 0 })
#define IDLE_AT(rlim, grant, nice) \
	(&(const struct idle_arg){ rlim, grant, nice })

static const struct tcase policy_cases[] = {
	{ "sched_idle_to_other_rlim0_refused", G_ALL, idle_to_other,
	  IDLE(0, false) },
	{ "sched_idle_to_other_rlim19_refused", G_UAPI, idle_to_other,
	  IDLE(19, false) },
	{ "sched_idle_to_other_rlim20", G_RTPRIO, idle_to_other,
	  IDLE(20, true) },
	{ "sched_idle_nice5_to_other_rlim14_refused", G_UAPI, idle_to_other,
	  IDLE_AT(14, false, 5) },
	{ "sched_idle_nice5_to_other_rlim15", G_RTPRIO, idle_to_other,
	  IDLE_AT(15, true, 5) },
	{ "sched_batch_idle_same_nice", G_ALL, batch_idle, NULL },
	{ "sched_reset_on_fork_clear_refused", G_ALL, reset_on_fork,
	  &no_limits },
	{ "sched_reset_on_fork_clear_refused_raised_limits", G_UAPI,
	  reset_on_fork, &raised_limits },
	{ "sched_reset_on_fork_child", G_RTPRIO, reset_on_fork_child, NULL },
};

const struct section policy_section = SECTION(policy_cases);
