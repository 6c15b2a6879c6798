// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 9 item 8: the tools people use, run by an unprivileged user: ash's
 * ulimit -e/-r and renice from busybox, util-linux prlimit and chrt,
 * coreutils nice.  Paths are those of the guest initramfs; a client that
 * is not there is a skip.  Each case fails when the tool, as the kernel
 * answers it, grants what the limit refuses or refuses what it grants.
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "priv.h"
#include "proc_util.h"
#include "sched_util.h"

#define BUSYBOX "/bin/busybox"
#define PRLIMIT "/usr/bin/prlimit"
#define CHRT "/usr/bin/chrt"
#define NICE "/usr/bin/nice"

/* Every program a case may run, on its command line or in its script. */
static const char *const clients[] = { BUSYBOX, PRLIMIT, CHRT, NICE };

struct client_arg {
	rlim_t nice, rtprio; /* limits set before the drop */
	const char *const *argv; /* "%p" is replaced by our pid */
	const char *want; /* output wanted (a line of it), or NULL */
	const char *unwanted; /* output line that must not appear */
	bool succeed; /* exit status 0 wanted, else non-zero */
	int nice_after; /* our nice afterwards (renice) */
};

/*
 * The first client the command line names, as a word or inside an ash
 * script, that this guest lacks: a guest without a userland (sparc64)
 * has none, one without util-linux has busybox but no prlimit or chrt.
 */
static const char *missing_client(const char *const *argv)
{
	size_t c;
	int i;

	for (i = 0; argv[i]; i++)
		for (c = 0; c < ARRAY_SIZE(clients); c++)
			if (strstr(argv[i], clients[c]) &&
			    access(clients[c], X_OK))
				return clients[c];
	return NULL;
}

static enum case_status client_case(const void *arg)
{
	const struct client_arg *a = arg;
	char *argv[16], pid[16], out[2048];
	const char *missing;
	int i, status;

	missing = missing_client(a->argv);
	if (missing)
		return case_skip("client %s absent", missing);
	TRY(set_both_limits(a->nice, a->rtprio));
	TRY(drop_to_user());
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	for (i = 0; a->argv[i] && i < 15; i++)
		argv[i] = strcmp(a->argv[i], "%p") ? (char *)a->argv[i] : pid;
	argv[i] = NULL;
	if (!expect_ok(run_capture(argv, out, sizeof(out), &status), "start %s",
		       argv[0]))
		return CASE_FAIL;
	if ((status == 0) != a->succeed ||
	    (a->want && !output_has_line(out, a->want)) ||
	    (a->unwanted && output_has_line(out, a->unwanted))) {
		diag("%s %s exited with status %d, wanted %s%s%s; it said:",
		     argv[0], argv[1], status, a->succeed ? "0" : "non-zero",
		     a->want ? " and the line " : "", a->want ? a->want : "");
		diag("%s", out);
		return CASE_FAIL;
	}
	return expect_eq(get_nice(), a->nice_after, "our nice afterwards") ?
		       CASE_PASS :
		       CASE_FAIL;
}

#define ARGV(...) ((const char *const[]){ __VA_ARGS__, NULL })
/* clang-format off */
#define CLIENT(name, group, n, r, want, unwanted, ok, after, ...)	\
	{ name, group, client_case,					\
	  &(const struct client_arg){ n, r, ARGV(__VA_ARGS__), want,	\
				      unwanted, ok, after } }
/* clang-format on */

#define ASH BUSYBOX, "sh", "-c"

static const struct tcase client_cases[] = {
	/* ash reads both limits back and can lower them. */
	CLIENT("client_ash_ulimit_lower", G_UAPI, 25, 10, "25 10 20 5", NULL,
	       true, 0, ASH,
	       "a=\"$(ulimit -e) $(ulimit -r)\"; ulimit -e 20 && "
	       "ulimit -r 5 && echo $a $(ulimit -e) $(ulimit -r)"),
	/* ...and cannot raise either hard limit above what root set. */
	CLIENT("client_ash_ulimit_raise_refused", G_UAPI, 25, 10,
	       "refused 25 10", NULL, true, 0, ASH,
	       "ulimit -e 30 || ulimit -r 11 || "
	       "echo refused $(ulimit -e) $(ulimit -r)"),
	/* Fails when renice cannot reach 20 - 25 = -5. */
	CLIENT("client_renice_rlim25_to_m5", G_NICE, 25, 0, NULL, NULL, true,
	       -5, BUSYBOX, "renice", "-n", "-5", "-p", "%p"),
	CLIENT("client_renice_rlim25_to_m6_refused", G_UAPI, 25, 0, NULL, NULL,
	       false, 0, BUSYBOX, "renice", "-n", "-6", "-p", "%p"),
	CLIENT("client_renice_rlim0_to_m1_refused", G_ALL, 0, 0, NULL, NULL,
	       false, 0, BUSYBOX, "renice", "-n", "-1", "-p", "%p"),
	/* prlimit lowers both limits of our pid and shows them. */
	CLIENT("client_prlimit_lower", G_UAPI, 25, 10, "20 20", NULL, true, 0,
	       ASH,
	       PRLIMIT " --pid $PPID --nice=20:20 --rtprio=5:5 && "
		       "echo $(" PRLIMIT
		       " --pid $PPID --nice --noheadings -o SOFT,HARD)"),
	CLIENT("client_prlimit_raise_refused", G_UAPI, 25, 10, NULL, NULL,
	       false, 0, PRLIMIT, "--pid", "%p", "--nice=30:30"),
	/* chrt runs a command at RT priority up to RLIMIT_RTPRIO. */
	CLIENT("client_chrt_rlim10_to_10", G_RTPRIO, 0, 10, NULL, NULL, true, 0,
	       ASH,
	       CHRT " -f 10 " CHRT " -p 0 && " CHRT " -r 10 " BUSYBOX " true"),
	CLIENT("client_chrt_rlim10_to_11_refused", G_UAPI, 0, 10, NULL, NULL,
	       false, 0, CHRT, "-f", "11", BUSYBOX, "true"),
	CLIENT("client_chrt_rlim0_to_1_refused", G_ALL, 0, 0, NULL, NULL, false,
	       0, CHRT, "-r", "1", BUSYBOX, "true"),
	/*
	 * coreutils nice runs the command even when it cannot set the
	 * niceness: the inner nice prints the niceness it got.
	 */
	CLIENT("client_nice_rlim25_to_m5", G_NICE, 25, 0, "-5", NULL, true, 0,
	       NICE, "-n", "-5", NICE),
	CLIENT("client_nice_rlim25_to_m6_refused", G_UAPI, 25, 0, "0", "-6",
	       true, 0, NICE, "-n", "-6", NICE),
	CLIENT("client_nice_rlim0_to_m1_refused", G_ALL, 0, 0, "0", "-1", true,
	       0, NICE, "-n", "-1", NICE),
};

const struct section client_section = SECTION(client_cases);
