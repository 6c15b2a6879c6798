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
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cases.h"
#include "check.h"
#include "priv.h"
#include "proc_util.h"

#ifndef RLT_COMPAT_SUITE

#define RUNUSER "/sbin/runuser"
#define NICE "/usr/bin/nice"
#define CHRT "/usr/bin/chrt"
#define PRLIMIT "/usr/bin/prlimit"
#define SHELL "/bin/sh"

/* The test user, in the test group and in the supplementary rlt-audio. */
#define PAM_USER "rlt-pam"

/* What the session runs, besides the module, that the guest must have. */
static const char *const pam_clients[] = { RUNUSER, SHELL, NICE, CHRT,
					   PRLIMIT };

/* libpam's module directory is the multiarch one, under /lib or /usr/lib. */
static const char *const lib_dirs[] = { "/lib", "/usr/lib" };

/* clang-format off */
static const char etc_passwd[] =
	"root:x:0:0:root:/root:/bin/sh\n"
	PAM_USER ":x:65532:65532:rlimit-tests PAM user:/:/bin/sh\n";
static const char etc_group[] =
	"root:x:0:\n"
	PAM_USER ":x:65532:\n"
	"rlt-audio:x:65531:" PAM_USER "\n";
/* clang-format on */
static const char etc_nsswitch[] = "passwd: files\n"
				   "group: files\n"
				   "shadow: files\n";
/* Debian's runuser stack, less pam_keyinit and pam_unix's logging. */
static const char etc_pam_runuser[] = "#%PAM-1.0\n"
				      "auth\tsufficient\tpam_rootok.so\n"
				      "session\trequired\tpam_limits.so\n";
static const char etc_pam_runuser_l[] = "#%PAM-1.0\n"
					"auth\tinclude\t\trunuser\n"
					"session\tinclude\t\trunuser\n";

/*
 * Every limits.conf also sets RLIMIT_NOFILE, which every kernel has: its
 * value in the session shows that pam_limits read the file and set limits.
 */
#define MARKER_CONF PAM_USER "\t-\tnofile\t512\n"
#define MARKER_LINE "limit open 512 512"

/*
 * The session's shell functions, then its first lines.  l prints the
 * session's RLIMIT_NICE, RLIMIT_RTPRIO and RLIMIT_NOFILE as
 * "limit nice|realtime|open SOFT HARD"; n N prints "nice N: <the niceness
 * nice -n N reached>" (coreutils nice runs the command even when it cannot
 * set the niceness); r ARGS prints chrt ARGS's policy and priority as the
 * command under it sees them, or "chrt ARGS refused".
 */
#define SESSION_LIB                                                            \
	"l() { while read -r a b c s h u; do case \"$a $b $c\" in "            \
	"\"Max nice priority\"|\"Max realtime priority\"|\"Max open files\") " \
	"echo \"limit $b $s $h\";; esac; done </proc/self/limits; }; "         \
	"n() { echo \"nice $1: $(" NICE " -n \"$1\" " NICE ")\"; }; "          \
	"r() { if o=$(" CHRT " \"$@\" " CHRT " -p 0); then "                   \
	"echo \"$o\" | while read -r x x x x k v; do "                         \
	"echo \"chrt $* $k $v\"; done; "                                       \
	"else echo \"chrt $* refused\"; fi; }; "                               \
	"l; echo \"start $(" NICE ")\"; "
#define SESSION_END "; echo session-end"

struct pam_arg {
	const char *limits; /* limits.conf lines besides the marker */
	const char *script; /* the session's commands after SESSION_LIB */
	const char *const *want; /* lines the session must print */
	bool nothing; /* nothing granted: any limit line shown is 0 0 */
};

/* The first line of @out that starts with @prefix, copied to @buf. */
static const char *line_with(const char *out, const char *prefix, char *buf,
			     size_t len)
{
	size_t l = strlen(prefix);
	const char *p;

	for (p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, prefix, l)) {
			snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
			return buf;
		}
	return NULL;
}

/* The first client or module the session needs that this guest lacks. */
static const char *missing_client(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pam_clients); i++)
		if (access(pam_clients[i], X_OK))
			return pam_clients[i];
	for (i = 0; i < ARRAY_SIZE(lib_dirs); i++) {
		DIR *d = opendir(lib_dirs[i]);
		struct dirent *e;
		char path[512];

		while (d && (e = readdir(d))) {
			snprintf(path, sizeof(path),
				 "%s/%s/security/pam_limits.so", lib_dirs[i],
				 e->d_name);
			if (e->d_name[0] != '.' && !access(path, R_OK)) {
				closedir(d);
				return NULL;
			}
		}
		if (d)
			closedir(d);
	}
	return "pam_limits.so";
}

static bool put_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd;
	bool ok;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (!expect_ok(fd, "create %s", path))
		return false;
	ok = expect_eq(write(fd, text, len), (long)len, "write %s", path);
	close(fd);
	return ok;
}

/*
 * A tmpfs on /etc in a mount namespace of our own (propagation private,
 * so nothing reaches the parent's mounts), holding only what runuser,
 * libpam and pam_limits read.
 */
static enum case_status private_etc(const char *limits)
{
	char conf[1024];

	if (unshare(CLONE_NEWNS)) {
		if (errno == EPERM && !have_cap(CAP_SYS_ADMIN))
			return case_skip(
				"root here lacks CAP_SYS_ADMIN: no private /etc");
		expect_ok(-1, "unshare(CLONE_NEWNS)");
		return CASE_FAIL;
	}
	if (!expect_ok(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL),
		       "make / private") ||
	    !expect_ok(mount("rlt-etc", "/etc", "tmpfs", 0, "mode=0755"),
		       "mount a tmpfs on /etc") ||
	    !expect_ok(mkdir("/etc/pam.d", 0755), "mkdir /etc/pam.d") ||
	    !expect_ok(mkdir("/etc/security", 0755), "mkdir /etc/security"))
		return CASE_FAIL;
	snprintf(conf, sizeof(conf), "%s%s", MARKER_CONF, limits);
	if (!put_file("/etc/passwd", etc_passwd) ||
	    !put_file("/etc/group", etc_group) ||
	    !put_file("/etc/nsswitch.conf", etc_nsswitch) ||
	    !put_file("/etc/pam.d/runuser", etc_pam_runuser) ||
	    !put_file("/etc/pam.d/runuser-l", etc_pam_runuser_l) ||
	    !put_file("/etc/security/limits.conf", conf))
		return CASE_FAIL;
	return CASE_PASS;
}

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

/* Why runuser stopped, from what it said. */
static const char *refusal(const char *out)
{
	if (strstr(out, "cannot open session"))
		return "the session was refused: pam_limits refuses it when a "
		       "setrlimit() fails other than with EPERM, or "
		       "setpriority() fails";
	if (strstr(out, "System error"))
		return "libpam failed: it fails every call whose audit socket "
		       "cannot be opened, and a kernel without CONFIG_NET "
		       "answers socket() with ENOSYS";
	return "runuser or the session's shell failed before its end";
}

static enum case_status pam_case(const void *arg)
{
	const struct pam_arg *a = arg;
	char script[2048], out[4096], buf[128];
	char *argv[] = { RUNUSER, "-l", PAM_USER, "-c", script, NULL };
	const char *missing, *z;
	int i, status;

	missing = missing_client();
	if (missing)
		return case_skip("client %s absent", missing);
	/* pam_limits, as root, raises limits; Debian's ignores the EPERM. */
	if (!have_cap(CAP_SYS_RESOURCE))
		return case_skip(
			"root here lacks CAP_SYS_RESOURCE: pam_limits cannot raise a limit");
	/* runuser resets both to 0 itself; 0 on the baseline is its state. */
	TRY(set_both_limits(0, 0));
	TRY(private_etc(a->limits));
	snprintf(script, sizeof(script), "%s%s%s", SESSION_LIB, a->script,
		 SESSION_END);
	if (!expect_ok(run_capture(argv, out, sizeof(out), &status),
		       "start " RUNUSER))
		return CASE_FAIL;
	if (!WIFEXITED(status) || WEXITSTATUS(status) ||
	    !output_has_line(out, "session-end")) {
		diag("%s", out);
		diag("runuser -l %s exited with status 0x%x: %s", PAM_USER,
		     status, refusal(out));
		return CASE_FAIL;
	}
	if (!output_has_line(out, MARKER_LINE)) {
		diag("%s", out);
		diag("pam_limits did not apply limits.conf: the session lacks "
		     "\"" MARKER_LINE "\"");
		return CASE_FAIL;
	}
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

#define WANT(...) ((const char *const[]){ __VA_ARGS__, NULL })
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
	    ":", false, "start -3"),
	/* ...and from -3 the session reaches nice -5's floor, -5. */
	PAM("pam_priority_m3_nice_m5_to_m5", G_NICE,
	    USR "-\tpriority\t-3\n" NICE_M5, "n -2", false, "start -3",
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
