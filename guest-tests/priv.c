// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "priv.h"
#include "raw_rlimit.h"

static int caps_get(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};

	return syscall(SYS_capget, &h, d);
}

static int caps_set(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};

	return syscall(SYS_capset, &h, d);
}

static bool cap_in(const struct __user_cap_data_struct d[2], int cap,
		   bool permitted)
{
	unsigned int word = permitted ? d[cap / 32].permitted :
					d[cap / 32].effective;

	return word & (1u << (cap % 32));
}

bool have_cap(int cap)
{
	struct __user_cap_data_struct d[2];

	return caps_get(d) == 0 && cap_in(d, cap, false);
}

static const char *res_name(int res)
{
	return res == RES_NICE ? "RLIMIT_NICE" : "RLIMIT_RTPRIO";
}

/*
 * Set a limit as root.  Raising the hard limit needs CAP_SYS_RESOURCE,
 * which a sandboxed host root may lack: that is a skip, not a failure.
 * Setting 0 on a kernel without the resource (EINVAL) is the pre-rlimit
 * state the case wants, so it counts as done.
 */
enum case_status set_limit(int res, rlim_t cur, rlim_t max)
{
	struct rl64 rl = { cur, max };

	if (prlimit64_raw(0, res, &rl, NULL) == 0)
		return CASE_PASS;
	if (errno == EPERM && !have_cap(CAP_SYS_RESOURCE))
		return case_skip(
			"root here lacks CAP_SYS_RESOURCE, cannot raise %s to %lu",
			res_name(res), (unsigned long)max);
	if (errno == EINVAL && cur == 0 && max == 0) {
		diag("%s unknown to this kernel (EINVAL): the pre-rlimit state",
		     res_name(res));
		return CASE_PASS;
	}
	expect_ok(-1, "prlimit(%s, %lu, %lu) as root", res_name(res),
		  (unsigned long)cur, (unsigned long)max);
	return CASE_FAIL;
}

enum case_status set_both_limits(rlim_t nice, rlim_t rtprio)
{
	TRY(set_limit(RES_NICE, nice, nice));
	return set_limit(RES_RTPRIO, rtprio, rtprio);
}

/*
 * Become @uid in every uid slot, which clears every capability; check that
 * CAP_SYS_NICE really went, or every grant the case sees would be the
 * capability's and not the limit's.  Dumpable again so /proc/self files
 * (autogroup) belong to the new user.
 */
enum case_status drop_to_uid(uid_t uid, gid_t gid)
{
	struct __user_cap_data_struct d[2];

	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid)) {
		if (errno == EPERM && !have_cap(CAP_SETUID))
			return case_skip(
				"root here lacks CAP_SETUID/CAP_SETGID");
		expect_ok(-1, "drop to uid %u", (unsigned int)uid);
		return CASE_FAIL;
	}
	prctl(PR_SET_DUMPABLE, 1);
	if (!expect_ok(caps_get(d), "capget after setresuid"))
		return CASE_FAIL;
	if (cap_in(d, CAP_SYS_NICE, false) || cap_in(d, CAP_SYS_NICE, true)) {
		diag("CAP_SYS_NICE still held after setresuid(%u)",
		     (unsigned int)uid);
		return CASE_FAIL;
	}
	return CASE_PASS;
}

enum case_status drop_to_user(void)
{
	return drop_to_uid(TEST_UID, TEST_GID);
}

/* Take @cap out of the effective and permitted sets of a root task. */
enum case_status drop_cap(int cap)
{
	struct __user_cap_data_struct d[2];

	if (!expect_ok(caps_get(d), "capget"))
		return CASE_FAIL;
	d[cap / 32].effective &= ~(1u << (cap % 32));
	d[cap / 32].permitted &= ~(1u << (cap % 32));
	d[cap / 32].inheritable &= ~(1u << (cap % 32));
	if (!expect_ok(caps_set(d), "capset without cap %d", cap))
		return CASE_FAIL;
	if (have_cap(cap)) {
		diag("capability %d still effective after capset", cap);
		return CASE_FAIL;
	}
	return CASE_PASS;
}

/*
 * A process owned by @uid that waits until its control pipe closes: the
 * target of the same-user and other-user cases.  Only root can make it
 * another user's, and after our own drop we could no longer kill it, so it
 * leaves on its own when idle_stop() closes the pipe.  The ready byte makes
 * sure it has switched uid before the caller looks at it.
 */
int spawn_idle(struct idle *t, uid_t uid, gid_t gid)
{
	int ready[2], ctl[2];
	char c;

	if (pipe(ready))
		return -1;
	if (pipe(ctl)) {
		close(ready[0]);
		close(ready[1]);
		return -1;
	}
	t->pid = fork();
	if (t->pid == 0) {
		close(ready[0]);
		close(ctl[1]);
		if (geteuid() == 0 &&
		    (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
		     setresuid(uid, uid, uid)))
			_exit(1);
		if (geteuid() != uid || write(ready[1], "r", 1) != 1)
			_exit(1);
		while (read(ctl[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(ready[1]);
	close(ctl[0]);
	t->ctl = ctl[1];
	if (t->pid > 0 && read(ready[0], &c, 1) != 1) {
		idle_stop(t);
		t->pid = -1;
	}
	close(ready[0]);
	return t->pid < 0 ? -1 : 0;
}

void idle_stop(struct idle *t)
{
	if (t->ctl >= 0)
		close(t->ctl);
	t->ctl = -1;
	if (t->pid > 0)
		waitpid(t->pid, NULL, 0);
	t->pid = -1;
}

/*
 * Where the other-user cases start: an idle process of OTHER_UID in @t,
 * then the drop to TEST_UID.  Anything but CASE_PASS has stopped @t.
 */
enum case_status other_user_then_drop(struct idle *t)
{
	enum case_status st;

	if (!expect_ok(spawn_idle(t, OTHER_UID, OTHER_GID),
		       "spawn a process of uid %d", OTHER_UID))
		return CASE_FAIL;
	st = drop_to_user();
	if (st != CASE_PASS)
		idle_stop(t);
	return st;
}
