// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 19: the administrator's path.  /etc/security/limits.conf, applied
 * by Debian's pam_limits in the session util-linux runuser(1) opens as
 * root, grants the limits; each case asserts on what the commands of that
 * session actually got: the limits in its /proc/self/limits, the niceness
 * coreutils nice reached, whether chrt could set SCHED_FIFO.
 *
 * Each case writes its own /etc (passwd and group with a test user and
 * group, nsswitch.conf, /etc/pam.d/runuser and runuser-l, limits.conf) on
 * a tmpfs in a private mount namespace: nothing of the guest's (or a
 * host's) /etc is touched, and every case starts from the same files.
 * runuser resets RLIMIT_NICE and RLIMIT_RTPRIO to 0 before it opens the
 * session, and Debian's pam_limits sets every limit limits.conf leaves
 * out to init's (/proc/1/limits: 0 for both), so what the session has is
 * limits.conf's grant alone.
 *
 * limits.conf takes a nice value; pam_limits writes RLIMIT_NICE as
 * 20 - value (today's ABI: the nice ceiling is 20 - rlim_cur).  On a
 * kernel without resources 13/14 (the baseline) getrlimit() fails with
 * EINVAL and pam_limits skips them without a word: the session opens with
 * neither limit, which the failing cases say.  A setrlimit() failing with
 * EPERM is not fatal either (a Debian patch); any other failure of
 * setrlimit(), or of setpriority(), refuses the session
 * (PAM_PERM_DENIED), which a case names when it happens.
 *
 * The cases run in the native suite only: runuser, libpam and the
 * modules are the guest's native programs, which a compat test binary
 * would only start; a compat build lists none of them (and says so).
 */
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>

#include "cases.h"
#include "check.h"
#include "pam_session.h"
#include "priv.h"
#include "proc_util.h"

#ifndef RLT_COMPAT_SUITE

struct pam_arg {
	const char *limits; /* limits.conf lines besides the marker */
	const char *script; /* the session's commands after SESSION_LIB */
	const char *const *want; /* lines the session must print */
	bool nothing; /* nothing granted: any limit line shown is 0 0 */
};

/* Why a wanted line is missing, as far as the output tells. */
static void explain(const char *out, const char *want)
{
	char buf[128];

	if (!strncmp(want, "limit nice ", 11) &&
	    !line_with(out, "limit nice ", buf, sizeof(buf)))
		diag("the session has no RLIMIT_NICE: this kernel lacks "
		     "resource 13, and pam_limits skips a resource whose "
		     "getrlimit() fails with EINVAL; the session opened "
		     "without it");
	else if (!strncmp(want, "limit realtime ", 15) &&
		 !line_with(out, "limit realtime ", buf, sizeof(buf)))
		diag("the session has no RLIMIT_RTPRIO: this kernel lacks "
		     "resource 14, and pam_limits skips a resource whose "
		     "getrlimit() fails with EINVAL; the session opened "
		     "without it");
	else if (!strncmp(want, "limit ", 6))
		diag("pam_limits set another limit than limits.conf asks: "
		     "wanted \"%s\"",
		     want);
	else if (!strncmp(want, "nice ", 5) || !strncmp(want, "start ", 6))
		diag("the session's niceness is not what the limit allows: "
		     "wanted \"%s\"",
		     want);
	else if (!strncmp(want, "chrt ", 5))
		diag("chrt in the session did not get what the limit allows: "
		     "wanted \"%s\"",
		     want);
	else
		diag("the session did not print \"%s\"", want);
}

static enum case_status pam_case(const void *arg)
{
	const struct pam_arg *a = arg;
	char conf[1024], out[4096], buf[128];
	const char *missing, *z;
	int i;

	missing = pam_missing_client();
	if (missing)
		return case_skip("client %s absent", missing);
	/* pam_limits, as root, raises limits; Debian's ignores the EPERM. */
	if (!have_cap(CAP_SYS_RESOURCE))
		return case_skip(
			"root here lacks CAP_SYS_RESOURCE: pam_limits cannot raise a limit");
	/* runuser resets both to 0 itself; 0 on the baseline is its state. */
	TRY(set_both_limits(0, 0));
	snprintf(conf, sizeof(conf), "%s%s", MARKER_CONF(PAM_USER), a->limits);
	TRY(private_etc(conf, NULL, NULL));
	TRY(pam_session(PAM_USER, a->script, out, sizeof(out), NULL, NULL));
	for (i = 0; a->want[i]; i++)
		if (!output_has_line(out, a->want[i])) {
			diag("%s", out);
			explain(out, a->want[i]);
			return CASE_FAIL;
		}
	if (a->nothing) {
		static const char *const zero[][2] = {
			{ "limit nice ", "limit nice 0 0" },
			{ "limit realtime ", "limit realtime 0 0" },
		};

		for (i = 0; i < 2; i++) {
			z = line_with(out, zero[i][0], buf, sizeof(buf));
			if (z && strcmp(z, zero[i][1])) {
				diag("%s", out);
				diag("the session got \"%s\": limits.conf "
				     "granted something",
				     z);
				return CASE_FAIL;
			}
		}
		diag("pam_limits skipped the lines (it logs them to syslog); "
		     "the session opened with nothing granted");
	}
	return CASE_PASS;
}

/* clang-format off */
#define PAM(name, group, limits, script, nothing, ...)			\
	{ name, group, pam_case,					\
	  &(const struct pam_arg){ limits, script, WANT(__VA_ARGS__),	\
				   nothing } }
/* clang-format on */

/* limits.conf lines for the user and for the group. */
#define USR PAM_USER "\t"
#define GRP "@rlt-audio\t"
#define NICE_M5 USR "-\tnice\t-5\n"
#define GROUP_RTPRIO_10 GRP "-\trtprio\t10\n"
#define UNKNOWN \
	USR "-\tniceness\t-5\n" GRP "-\trealtime\t10\n" USR "medium\tnice\t-5\n"
#define MALFORMED USR "-\tnice\tminus5\n" GRP "-\trtprio\tten\n" USR "-\tnice\n"
#define SOFT_HARD USR "soft\tnice\t-2\n" USR "hard\tnice\t-8\n"
/* The niceness the session starts at, as "start N". */
#define START "echo \"start $(" NICE ")\""
/* The session raises its soft RLIMIT_NICE to the hard limit. */
#define RAISE_SOFT PRLIMIT " --pid $$ --nice=28: && echo raised; l; "

static const struct tcase pam_cases[] = {
	/* nice -5: RLIMIT_NICE 25, whose floor is 20 - 25 = -5. */
	PAM("pam_nice_m5_to_m5", G_NICE, NICE_M5, "n -5", false,
	    "limit nice 25 25", "nice -5: -5"),
	/* Fails on the baseline: no RLIMIT_NICE line in the session. */
	PAM("pam_nice_m5_to_m6_refused", G_UAPI, NICE_M5, "n -6", false,
	    "limit nice 25 25", "nice -6: 0"),
	/* rtprio 10 for a group the user is in (supplementary). */
	PAM("pam_rtprio_group10_to_10", G_RTPRIO, GROUP_RTPRIO_10, "r -f 10",
	    false, "limit realtime 10 10", "chrt -f 10 policy: SCHED_FIFO",
	    "chrt -f 10 priority: 10"),
	PAM("pam_rtprio_group10_to_11_refused", G_UAPI, GROUP_RTPRIO_10,
	    "r -f 11", false, "limit realtime 10 10", "chrt -f 11 refused"),
	/* nice 0 and rtprio 0 grant nothing: 20 and 0. */
	PAM("pam_nice0_rtprio0_refused", G_UAPI,
	    USR "-\tnice\t0\n" USR "-\trtprio\t0\n", "n -1; r -f 1", false,
	    "limit nice 20 20", "limit realtime 0 0", "nice -1: 0",
	    "chrt -f 1 refused"),
	/*
	 * soft -2, hard -8: the soft limit bounds the session at -2 until
	 * the session raises it to the hard limit, 28, which grants -8.
	 */
	PAM("pam_nice_soft_m2_hard_m8_to_m8", G_NICE, SOFT_HARD,
	    "n -2; " RAISE_SOFT "n -8", false, "limit nice 22 28",
	    "nice -2: -2", "raised", "limit nice 28 28", "nice -8: -8"),
	PAM("pam_nice_soft_m2_hard_m8_refused", G_UAPI, SOFT_HARD,
	    "n -3; " RAISE_SOFT "n -9; " PRLIMIT
	    " --pid $$ --nice=29: || echo soft above hard refused",
	    false, "limit nice 22 28", "nice -3: 0", "raised",
	    "limit nice 28 28", "nice -9: 0", "soft above hard refused"),
	/*
	 * priority -3: pam_limits, still root, sets the niceness the
	 * session starts at, on any kernel (root's CAP_SYS_NICE)...
	 */
	PAM("pam_priority_m3_start", G_ALL, USR "-\tpriority\t-3\n" NICE_M5,
	    START, false, "start -3"),
	/* ...and from -3 the session reaches nice -5's floor, -5. */
	PAM("pam_priority_m3_nice_m5_to_m5", G_NICE,
	    USR "-\tpriority\t-3\n" NICE_M5, START "; n -2", false, "start -3",
	    "limit nice 25 25", "nice -2: -5"),
	/* nice -20: the whole range, RLIMIT_NICE 40. */
	PAM("pam_nice_m20_to_m20", G_NICE, USR "-\tnice\t-20\n", "n -20", false,
	    "limit nice 40 40", "nice -20: -20"),
	/*
	 * pam_limits reads a value with strtol() and ignores what follows
	 * the number: "-5x" is -5, and grants no more than -5.
	 */
	PAM("pam_nice_m5x_read_as_m5_refused", G_UAPI, USR "-\tnice\t-5x\n",
	    "n -6", false, "limit nice 25 25", "nice -6: 0"),
	/*
	 * An unknown item or type, a value that is not a number, a line
	 * without one: pam_limits logs the line, skips it and opens the
	 * session; the kernel grants nothing.
	 */
	PAM("pam_unknown_item_grants_nothing", G_ALL, UNKNOWN, "n -1; r -f 1",
	    true, "nice -1: 0", "chrt -f 1 refused"),
	PAM("pam_malformed_value_grants_nothing", G_ALL, MALFORMED,
	    "n -1; r -f 1", true, "nice -1: 0", "chrt -f 1 refused"),
};

const struct section pam_section = SECTION(pam_cases);
const char *const pam_section_note = NULL;

#else /* RLT_COMPAT_SUITE */

const struct section pam_section = { NULL, 0 };
const char *const pam_section_note =
	"pam_*: not in a compat suite: runuser, libpam and pam_limits are "
	"native programs the native suite runs";

#endif
