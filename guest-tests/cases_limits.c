// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 9 items 1, 2 and 7: the resources themselves.  Resources 13 and 14
 * must exist, default to 0/0 at init, be shown in /proc/PID/limits, obey
 * the usual soft/hard rules for an unprivileged task, and be inherited.
 */
#include <assert.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "limits_exec.h"
#include "priv.h"
#include "proc_util.h"
#include "raw_rlimit.h"

static_assert(RLIMIT_NICE == RES_NICE, "RLIMIT_NICE is 13 in the ABI");
static_assert(RLIMIT_RTPRIO == RES_RTPRIO, "RLIMIT_RTPRIO is 14 in the ABI");

#define NICE_LABEL "Max nice priority"
#define RTPRIO_LABEL "Max realtime priority"

struct res_arg {
	int res;
	unsigned long cur, max;
};

static const struct res_arg nice_arg = { RES_NICE, 5, 10 };
static const struct res_arg rtprio_arg = { RES_RTPRIO, 7, 12 };

static bool limit_is(int res, unsigned long cur, unsigned long max,
		     const char *how)
{
	struct rl64 rl;

	if (!expect_ok(prlimit64_raw(0, res, NULL, &rl),
		       "%s: prlimit64(0, %d) read", how, res))
		return false;
	return expect_eq(rl.cur, cur, "%s: resource %d soft", how, res) &&
	       expect_eq(rl.max, max, "%s: resource %d hard", how, res);
}

/*
 * Fails when the kernel does not know resources 13/14 (no lines in
 * /proc/1/limits, EINVAL from prlimit) or gives init other defaults.
 */
static enum case_status init_defaults(const void *arg __always_unused)
{
	static const char *const labels[] = { NICE_LABEL, RTPRIO_LABEL };
	unsigned long soft, hard;
	struct rl64 rl;
	int i;

	for (i = 0; i < 2; i++) {
		if (proc_limit(1, labels[i], &soft, &hard)) {
			diag("/proc/1/limits has no \"%s\" line with numbers",
			     labels[i]);
			return CASE_FAIL;
		}
		if (!expect_eq(soft, 0, "/proc/1/limits %s soft", labels[i]) ||
		    !expect_eq(hard, 0, "/proc/1/limits %s hard", labels[i]))
			return CASE_FAIL;
		if (!expect_ok(prlimit64_raw(1, RES_NICE + i, NULL, &rl),
			       "prlimit64(1, %d) read", RES_NICE + i) ||
		    !expect_eq(rl.cur + rl.max, 0,
			       "init's resource %d soft+hard", RES_NICE + i))
			return CASE_FAIL;
	}
	return CASE_PASS;
}

/*
 * The old setrlimit/getrlimit syscalls with the raw number (ugetrlimit
 * where the ABI's getrlimit is the clamping one or absent).  Fails when
 * the kernel refuses the resource (EINVAL) or does not keep the values.
 */
static enum case_status raw_setget(const void *arg)
{
	const struct res_arg *a = arg;
	struct rlul rl = { a->cur, a->max };

	if (setrlimit_raw(a->res, &rl)) {
		if (errno == EPERM && !have_cap(CAP_SYS_RESOURCE))
			return case_skip(
				"root here lacks CAP_SYS_RESOURCE, cannot raise resource %d",
				a->res);
		expect_ok(-1, "setrlimit(%d, %lu, %lu)", a->res, a->cur,
			  a->max);
		return CASE_FAIL;
	}
	memset(&rl, 0, sizeof(rl));
	if (!expect_ok(getrlimit_raw(a->res, &rl), NR_GETRLIMIT_NAME "(%d)",
		       a->res))
		return CASE_FAIL;
	if (!expect_eq(rl.cur, a->cur, NR_GETRLIMIT_NAME "(%d) soft", a->res) ||
	    !expect_eq(rl.max, a->max, NR_GETRLIMIT_NAME "(%d) hard", a->res))
		return CASE_FAIL;
	return CASE_PASS;
}

/* prlimit64 with the raw number: the old value comes back, the new holds. */
static enum case_status raw_prlimit(const void *arg)
{
	const struct res_arg *a = arg;
	struct rl64 rl = { a->cur, a->max }, old;

	TRY(set_limit(a->res, 1, 2));
	if (!expect_ok(prlimit64_raw(0, a->res, &rl, &old),
		       "prlimit64(0, %d, new, old)", a->res))
		return CASE_FAIL;
	if (!expect_eq(old.cur, 1, "old soft") ||
	    !expect_eq(old.max, 2, "old hard"))
		return CASE_FAIL;
	return limit_is(a->res, a->cur, a->max, "after prlimit64") ? CASE_PASS :
								     CASE_FAIL;
}

/* The C library's names and wrappers reach the same two resources. */
static enum case_status libc_names(const void *arg __always_unused)
{
	struct rlimit n = { 3, 4 }, r = { 5, 6 }, got;

	TRY(set_both_limits(10, 10));
	if (!expect_ok(setrlimit(RLIMIT_NICE, &n), "setrlimit(RLIMIT_NICE)") ||
	    !expect_ok(prlimit(0, RLIMIT_RTPRIO, &r, NULL),
		       "prlimit(RLIMIT_RTPRIO)"))
		return CASE_FAIL;
	if (!expect_ok(getrlimit(RLIMIT_RTPRIO, &got),
		       "getrlimit(RLIMIT_RTPRIO)") ||
	    !expect_eq(got.rlim_cur * 100 + got.rlim_max, 506,
		       "RLIMIT_RTPRIO soft*100+hard"))
		return CASE_FAIL;
	if (!expect_ok(prlimit(0, RLIMIT_NICE, NULL, &got),
		       "prlimit(RLIMIT_NICE)") ||
	    !expect_eq(got.rlim_cur * 100 + got.rlim_max, 304,
		       "RLIMIT_NICE soft*100+hard"))
		return CASE_FAIL;
	return CASE_PASS;
}

/* Fails when fs/proc/base.c lacks the two lines or shows other values. */
static enum case_status proc_lines(const void *arg __always_unused)
{
	unsigned long soft, hard;

	TRY(set_limit(RES_NICE, 7, 9));
	TRY(set_limit(RES_RTPRIO, 3, 5));
	if (proc_limit(0, NICE_LABEL, &soft, &hard) ||
	    !expect_eq(soft * 100 + hard, 709, NICE_LABEL " soft*100+hard")) {
		diag("no numeric \"" NICE_LABEL "\" line in /proc/self/limits");
		return CASE_FAIL;
	}
	if (proc_limit(0, RTPRIO_LABEL, &soft, &hard) ||
	    !expect_eq(soft * 100 + hard, 305, RTPRIO_LABEL " soft*100+hard")) {
		diag("no numeric \"" RTPRIO_LABEL
		     "\" line in /proc/self/limits");
		return CASE_FAIL;
	}
	return CASE_PASS;
}

/*
 * An unprivileged task may change the limits of its own user's process.
 * Fails when the resources are unknown or prlimit's permission check
 * refuses a same-user target.
 */
static enum case_status prlimit_same_user(const void *arg __always_unused)
{
	struct rl64 rl = { 4, 6 }, old;
	unsigned long soft, hard;
	enum case_status st = CASE_FAIL;
	struct idle t;

	TRY(set_both_limits(10, 10));
	TRY(drop_to_user());
	if (!expect_ok(spawn_idle(&t, TEST_UID, TEST_GID),
		       "spawn a same-user process"))
		return CASE_FAIL;
	if (expect_ok(prlimit64_raw(t.pid, RES_NICE, &rl, &old),
		      "prlimit64(same-user pid, 13)") &&
	    expect_eq(old.cur * 100 + old.max, 1010, "old soft*100+hard") &&
	    expect_ok(prlimit64_raw(t.pid, RES_RTPRIO, &rl, NULL),
		      "prlimit64(same-user pid, 14)") &&
	    !proc_limit(t.pid, RTPRIO_LABEL, &soft, &hard) &&
	    expect_eq(soft * 100 + hard, 406, "target's " RTPRIO_LABEL))
		st = CASE_PASS;
	idle_stop(&t);
	return st;
}

/*
 * Another user's limits can be neither read nor written, whatever the
 * resource; holds on every kernel (the permission check comes before the
 * resource check).  Fails when check_prlimit_permission() lets it through.
 */
static enum case_status prlimit_other_user(const void *arg __always_unused)
{
	struct rl64 rl = { 0, 0 };
	enum case_status st = CASE_FAIL;
	struct idle t;
	int res;

	TRY(other_user_then_drop(&t));
	for (res = RES_NICE; res <= RES_RTPRIO; res++) {
		if (!expect_errno(prlimit64_raw(t.pid, res, NULL, &rl), EPERM,
				  "read other user's resource %d", res) ||
		    !expect_errno(prlimit64_raw(t.pid, res, &rl, NULL), EPERM,
				  "set other user's resource %d", res))
			goto out;
	}
	st = CASE_PASS;
out:
	idle_stop(&t);
	return st;
}

/* Lowering soft and hard, and raising soft up to hard, need no privilege. */
static enum case_status unpriv_lower(const void *arg __always_unused)
{
	struct rlul lower = { 10, 20 }, soft_up = { 20, 20 };
	int res;

	TRY(set_both_limits(0, 0));
	TRY(set_limit(RES_NICE, 20, 30));
	TRY(set_limit(RES_RTPRIO, 20, 30));
	TRY(drop_to_user());
	for (res = RES_NICE; res <= RES_RTPRIO; res++) {
		if (!expect_ok(setrlimit_raw(res, &lower),
			       "lower resource %d to 10/20", res) ||
		    !limit_is(res, 10, 20, "after lowering") ||
		    !expect_ok(setrlimit_raw(res, &soft_up),
			       "raise soft of resource %d to its hard", res) ||
		    !limit_is(res, 20, 20, "after raising soft"))
			return CASE_FAIL;
	}
	return CASE_PASS;
}

/* Fails when an unprivileged task can raise a hard limit of 13/14. */
static enum case_status unpriv_raise_hard(const void *arg __always_unused)
{
	struct rlul up = { 20, 21 };
	int res;

	TRY(set_both_limits(20, 20));
	TRY(drop_to_user());
	for (res = RES_NICE; res <= RES_RTPRIO; res++) {
		if (!expect_errno(setrlimit_raw(res, &up), EPERM,
				  "raise hard of resource %d to 21", res) ||
		    !limit_is(res, 20, 20, "after the refused raise"))
			return CASE_FAIL;
	}
	return CASE_PASS;
}

int print_limits(void)
{
	struct rlul n, r;

	if (getrlimit_raw(RES_NICE, &n) || getrlimit_raw(RES_RTPRIO, &r)) {
		perror(NR_GETRLIMIT_NAME);
		return 1;
	}
	printf("nice %lu %lu rtprio %lu %lu\n", n.cur, n.max, r.cur, r.max);
	return 0;
}

/* Fails when fork does not copy the new resources to the child. */
static enum case_status inherit_fork(const void *arg __always_unused)
{
	int status;
	pid_t pid;

	TRY(set_limit(RES_NICE, 11, 12));
	TRY(set_limit(RES_RTPRIO, 13, 14));
	TRY(drop_to_user());
	pid = fork();
	if (pid == 0)
		_exit(limit_is(RES_NICE, 11, 12, "forked child") &&
				      limit_is(RES_RTPRIO, 13, 14,
					       "forked child") ?
			      0 :
			      1);
	if (!expect_ok(pid, "fork") || waitpid(pid, &status, 0) != pid)
		return CASE_FAIL;
	return expect_eq(status, 0, "forked child's wait status") ? CASE_PASS :
								    CASE_FAIL;
}

/* Fails when execve resets the resources (the binary re-execs itself). */
static enum case_status inherit_execve(const void *arg __always_unused)
{
	char *const argv[] = { "/proc/self/exe", EXEC_MODE_ARG, NULL };
	char out[256];
	int status;

	TRY(set_limit(RES_NICE, 11, 12));
	TRY(set_limit(RES_RTPRIO, 13, 14));
	TRY(drop_to_user());
	if (!expect_ok(run_capture(argv, out, sizeof(out), &status),
		       "start /proc/self/exe"))
		return CASE_FAIL;
	if (status || strcmp(out, "nice 11 12 rtprio 13 14\n")) {
		diag("re-exec'd binary (status %d) said: %s", status, out);
		return CASE_FAIL;
	}
	return CASE_PASS;
}

static const struct tcase limits_cases[] = {
	{ "limits_init_defaults_zero", G_UAPI, init_defaults, NULL },
	{ "limits_raw13_setrlimit_getrlimit", G_UAPI, raw_setget, &nice_arg },
	{ "limits_raw14_setrlimit_getrlimit", G_UAPI, raw_setget, &rtprio_arg },
	{ "limits_raw13_prlimit64", G_UAPI, raw_prlimit, &nice_arg },
	{ "limits_raw14_prlimit64", G_UAPI, raw_prlimit, &rtprio_arg },
	{ "limits_libc_names", G_UAPI, libc_names, NULL },
	{ "limits_proc_self_lines", G_UAPI, proc_lines, NULL },
	{ "limits_prlimit_same_user", G_UAPI, prlimit_same_user, NULL },
	{ "limits_unpriv_lower", G_UAPI, unpriv_lower, NULL },
	{ "limits_unpriv_raise_hard_refused", G_UAPI, unpriv_raise_hard, NULL },
	{ "limits_inherit_fork", G_UAPI, inherit_fork, NULL },
	{ "limits_inherit_execve", G_UAPI, inherit_execve, NULL },
	{ "other_user_prlimit_refused", G_ALL, prlimit_other_user, NULL },
};

const struct section limits_section = SECTION(limits_cases);
