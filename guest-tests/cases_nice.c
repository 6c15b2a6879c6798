// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 9 item 3 and the autogroup: RLIMIT_NICE lets an unprivileged task
 * lower its nice value down to 20 - rlim_cur and no further, through
 * nice(), setpriority(PRIO_PROCESS), sched_setattr(sched_nice) and the
 * nice syscall (glibc's nice() is setpriority(): the syscall is reached
 * only by calling it, on the ABIs that have it: i386, ARM EABI, o32,
 * sparc), and through /proc/self/autogroup.  Raising nice is always allowed.
 *
 * Each case starts at nice 19 (raising needs no privilege), then tries one
 * reduction.  A grant case fails when the kernel refuses a reduction the
 * limit allows (no RLIMIT_NICE support, or an off-by-one such as the 2005
 * 19 - rlim_cur ceiling); a refusal case fails when the kernel allows one
 * step more than the limit, or refuses with another errno.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "priv.h"
#include "proc_util.h"
#include "sched_util.h"

enum nice_call {
	CALL_NICE, /* nice(3): setpriority, EACCES turned to EPERM */
	CALL_SETPRIORITY, /* documented to fail with EACCES */
	CALL_SETATTR, /* sched_setattr: EPERM */
	CALL_SYSNICE, /* the nice syscall itself, where the ABI has one */
};

struct nice_arg {
	enum nice_call call;
	int rlim;
	int target;
	bool grant;
};

static const char *const call_names[] = {
	[CALL_NICE] = "nice",
	[CALL_SETPRIORITY] = "setpriority",
	[CALL_SETATTR] = "sched_setattr",
	[CALL_SYSNICE] = "syscall(SYS_nice)",
};

static const int call_errno[] = {
	[CALL_NICE] = EPERM,
	[CALL_SETPRIORITY] = EACCES,
	[CALL_SETATTR] = EPERM,
	[CALL_SYSNICE] = EPERM,
};

static long lower_to(enum nice_call call, int from, int target)
{
	int r;

	switch (call) {
	case CALL_NICE:
		errno = 0;
		r = nice(target - from);
		return r == -1 && errno ? -1 : 0;
	case CALL_SETPRIORITY:
		return set_nice(target);
	case CALL_SETATTR:
		return rlt_sched_setattr(0, SCHED_OTHER, target, 0, 0);
	case CALL_SYSNICE:
#ifdef SYS_nice
		return syscall(SYS_nice, target - from);
#else
		break;
#endif
	}
	return -1;
}

static enum case_status nice_case(const void *arg)
{
	const struct nice_arg *a = arg;
	const char *name = call_names[a->call];
	long rc;

	TRY(set_limit(RES_NICE, a->rlim, a->rlim));
	TRY(drop_to_user());
	if (!expect_ok(set_nice(19), "raise nice to 19"))
		return CASE_FAIL;
	rc = lower_to(a->call, 19, a->target);
	if (a->grant) {
		if (!expect_ok(rc, "%s to %d at RLIMIT_NICE %d", name,
			       a->target, a->rlim))
			return CASE_FAIL;
		return expect_eq(get_nice(), a->target, "nice after %s", name) ?
			       CASE_PASS :
			       CASE_FAIL;
	}
	if (!expect_errno(rc, call_errno[a->call], "%s to %d at RLIMIT_NICE %d",
			  name, a->target, a->rlim))
		return CASE_FAIL;
	return expect_eq(get_nice(), 19, "nice after refused %s", name) ?
		       CASE_PASS :
		       CASE_FAIL;
}

/* Fails when a kernel refuses an unprivileged nice increase. */
static enum case_status raise_allowed(const void *arg __always_unused)
{
	TRY(set_limit(RES_NICE, 0, 0));
	TRY(drop_to_user());
	errno = 0;
	if (!expect_eq(nice(3), 3, "nice(3) from 0") ||
	    !expect_ok(set_nice(10), "setpriority(10)") ||
	    !expect_ok(rlt_sched_setattr(0, SCHED_OTHER, 15, 0, 0),
		       "sched_setattr(nice 15)") ||
	    !expect_eq(get_nice(), 15, "nice after raising"))
		return CASE_FAIL;
	return CASE_PASS;
}

#ifdef SYS_nice
/*
 * sys_nice() clamps the new value to -20 before it asks can_nice(): from
 * 0, nice(-40) means -20.  At RLIMIT_NICE 25 that is refused whole, not
 * cut to the ceiling (-5); at 40 it is granted.  Fails when the kernel
 * clamps to the limit, or judges the increment instead of the value.
 */
static enum case_status sysnice_clamp(const void *arg)
{
	const struct nice_arg *a = arg;
	long rc;

	TRY(set_limit(RES_NICE, a->rlim, a->rlim));
	TRY(drop_to_user());
	rc = syscall(SYS_nice, -40);
	if (a->grant)
		return expect_ok(rc, "nice syscall -40 at RLIMIT_NICE %d",
				 a->rlim) &&
				       expect_eq(get_nice(), -20, "nice") ?
			       CASE_PASS :
			       CASE_FAIL;
	return expect_errno(rc, EPERM, "nice syscall -40 at RLIMIT_NICE %d",
			    a->rlim) &&
			       expect_eq(get_nice(), 0, "nice after refusal") ?
		       CASE_PASS :
		       CASE_FAIL;
}
#endif

#ifdef SYS_nice
/* The nice syscall raises without a limit.  Fails when it asks one. */
static enum case_status sysnice_raise(const void *arg __always_unused)
{
	TRY(set_limit(RES_NICE, 0, 0));
	TRY(drop_to_user());
	return expect_ok(syscall(SYS_nice, 3), "nice syscall +3 from 0") &&
			       expect_eq(get_nice(), 3, "nice after raising") ?
		       CASE_PASS :
		       CASE_FAIL;
}
#endif

#define AUTOGROUP "/proc/self/autogroup"

/*
 * Another task's write within 100 ms gives EAGAIN: wait and retry.  poll()
 * is the pause: nanosleep on a 32-bit glibc needs the kernel's 32-bit time
 * syscalls, which a compat kernel without CONFIG_COMPAT_32BIT_TIME lacks.
 */
static int autogroup_write(int nice)
{
	char buf[16];
	int i, rc = -1;

	snprintf(buf, sizeof(buf), "%d", nice);
	for (i = 0; i < 20; i++) {
		rc = write_file(AUTOGROUP, buf);
		if (rc == 0 || errno != EAGAIN)
			break;
		poll(NULL, 0, 150);
		errno = EAGAIN;
	}
	return rc;
}

static bool autogroup_is(int nice)
{
	char buf[128], want[32];

	if (read_file(AUTOGROUP, buf, sizeof(buf)) < 0)
		return expect_ok(-1, "read " AUTOGROUP);
	snprintf(want, sizeof(want), " nice %d\n", nice);
	if (strstr(buf, want))
		return true;
	diag(AUTOGROUP " says \"%.*s\", expected nice %d",
	     (int)strcspn(buf, "\n"), buf, nice);
	return false;
}

/*
 * Autogroup nice at RLIMIT_NICE 25: -5 is allowed, -6 refused, raising
 * always allowed.  The runner's setsid() gave the case its own autogroup.
 * Fails when proc_sched_autogroup_set_nice() ignores the limit.
 */
static enum case_status autogroup_case(const void *arg)
{
	const struct nice_arg *a = arg;

	if (access(AUTOGROUP, F_OK))
		return case_skip("no " AUTOGROUP
				 " (CONFIG_SCHED_AUTOGROUP off)");
	TRY(set_limit(RES_NICE, a->rlim, a->rlim));
	TRY(drop_to_user());
	if (!expect_ok(autogroup_write(3), "autogroup nice 3") ||
	    !autogroup_is(3))
		return CASE_FAIL;
	if (a->grant) {
		if (!expect_ok(autogroup_write(a->target),
			       "autogroup nice %d at RLIMIT_NICE %d", a->target,
			       a->rlim))
			return CASE_FAIL;
		return autogroup_is(a->target) ? CASE_PASS : CASE_FAIL;
	}
	if (!expect_errno(autogroup_write(a->target), EPERM,
			  "autogroup nice %d at RLIMIT_NICE %d", a->target,
			  a->rlim))
		return CASE_FAIL;
	return autogroup_is(3) ? CASE_PASS : CASE_FAIL;
}

#define ARG(call, rlim, target, grant) \
	(&(const struct nice_arg){ call, rlim, target, grant })
/* clang-format off */
/* Grant: lowering to 20 - rlim works. */
#define GRANT(prefix, call, rlim, tname, target)			\
	{ prefix "rlim" #rlim "_to_" tname, G_NICE, nice_case,		\
	  ARG(call, rlim, target, true) }
/* Refusal: one below 20 - rlim (18 at most, the first reduction from 19). */
#define DENY(prefix, call, group, rlim, tname, target)			\
	{ prefix "rlim" #rlim "_to_" tname "_refused", group, nice_case, \
	  ARG(call, rlim, target, false) }
#define BOUNDARIES(prefix, call)					\
	DENY(prefix, call, G_ALL, 0, "18", 18),				\
	DENY(prefix, call, G_UAPI, 1, "18", 18),			\
	GRANT(prefix, call, 19, "1", 1),				\
	DENY(prefix, call, G_UAPI, 19, "0", 0),				\
	GRANT(prefix, call, 20, "0", 0),				\
	DENY(prefix, call, G_UAPI, 20, "m1", -1),			\
	GRANT(prefix, call, 21, "m1", -1),				\
	DENY(prefix, call, G_UAPI, 21, "m2", -2),			\
	GRANT(prefix, call, 39, "m19", -19),				\
	DENY(prefix, call, G_UAPI, 39, "m20", -20),			\
	GRANT(prefix, call, 40, "m20", -20)
/* clang-format on */

static const struct tcase nice_cases[] = {
	BOUNDARIES("nice_", CALL_NICE),
	BOUNDARIES("nice_setpriority_", CALL_SETPRIORITY),
	BOUNDARIES("nice_setattr_", CALL_SETATTR),
#ifdef SYS_nice
	BOUNDARIES("nice_sysnice_", CALL_SYSNICE),
	{ "nice_sysnice_rlim25_m40_refused", G_UAPI, sysnice_clamp,
	  ARG(CALL_SYSNICE, 25, -20, false) },
	{ "nice_sysnice_rlim40_m40_to_m20", G_NICE, sysnice_clamp,
	  ARG(CALL_SYSNICE, 40, -20, true) },
	{ "nice_sysnice_raise_allowed", G_ALL, sysnice_raise, NULL },
#endif
	{ "nice_raise_allowed", G_ALL, raise_allowed, NULL },
	{ "nice_autogroup_rlim25_to_m5", G_NICE, autogroup_case,
	  ARG(CALL_NICE, 25, -5, true) },
	{ "nice_autogroup_rlim25_to_m6_refused", G_UAPI, autogroup_case,
	  ARG(CALL_NICE, 25, -6, false) },
	{ "nice_autogroup_rlim0_to_m1_refused", G_ALL, autogroup_case,
	  ARG(CALL_NICE, 0, -1, false) },
};

const struct section nice_section = SECTION(nice_cases);
