/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A login session as an administrator's users get one: util-linux
 * runuser -l, run as root, whose PAM stack (Debian's, with pam_limits)
 * reads limits files from a private /etc.  Shared by the PAM cases
 * (hand-written limits.conf lines) and the audio cases (the limits files
 * Debian's audio packages ship).
 */
#ifndef RLT_PAM_SESSION_H
#define RLT_PAM_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "cases.h"

#define RUNUSER "/sbin/runuser"
#define NICE "/usr/bin/nice"
#define CHRT "/usr/bin/chrt"
#define PRLIMIT "/usr/bin/prlimit"
#define SHELL "/bin/sh"

/* The PAM cases' user, in its own group and in the supplementary rlt-audio. */
#define PAM_USER "rlt-pam"
/* The audio cases' users: one in the groups audio and pipewire, one not. */
#define AUDIO_MEMBER "rlt-audio-member"
#define AUDIO_OTHER "rlt-audio-other"

/*
 * Every limits.conf also sets RLIMIT_NOFILE for the session's user, which
 * every kernel has: its value in the session shows that pam_limits read
 * the files and set limits.
 */
#define MARKER_CONF(user) user "\t-\tnofile\t512\n"
#define MARKER_LINE "limit open 512 512"

/*
 * The session's shell functions, which its script may use.  l prints the
 * session's RLIMIT_NICE, RLIMIT_RTPRIO and RLIMIT_NOFILE as
 * "limit nice|realtime|open SOFT HARD", and RLIMIT_MEMLOCK as
 * "limit locked SOFT HARD"; n N prints "nice N: <the niceness nice -n N
 * reached>" (coreutils nice runs the command even when it cannot set the
 * niceness); r ARGS prints chrt ARGS's policy and priority as the command
 * under it sees them, or "chrt ARGS refused".  The session first runs l.
 * Each client is a dynamic program, some 30 ms an exec under TCG: the
 * library spends none beyond what a case asks for.
 */
#define SESSION_LIB                                                           \
	"l() { while read -r a b c s h u; do case \"$a $b $c\" in "           \
	"\"Max nice priority\"|\"Max realtime priority\"|\"Max open files\"|" \
	"\"Max locked memory\") "                                             \
	"echo \"limit $b $s $h\";; esac; done </proc/self/limits; }; "        \
	"n() { echo \"nice $1: $(" NICE " -n \"$1\" " NICE ")\"; }; "         \
	"r() { if o=$(" CHRT " \"$@\" " CHRT " -p 0); then "                  \
	"echo \"$o\" | while read -r x x x x k v; do "                        \
	"echo \"chrt $* $k $v\"; done; "                                      \
	"else echo \"chrt $* refused\"; fi; }; "                              \
	"l; "

/* A NULL-terminated list of the lines a session must print. */
#define WANT(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* The first client the session needs that this guest lacks, or NULL. */
const char *pam_missing_client(void);

bool put_file(const char *path, const char *text);

/*
 * A private /etc (a tmpfs in a mount namespace of this case's own) with
 * the users, PAM's runuser stacks, @limits_conf as limits.conf and, when
 * @dropin is not NULL, @dropin_text as /etc/security/limits.d/@dropin.
 */
enum case_status private_etc(const char *limits_conf, const char *dropin,
			     const char *dropin_text);

/*
 * runuser -l @user -c "SESSION_LIB @script; echo session-end", its output
 * in @out; @watch as for run_capture_watch().  CASE_PASS when the session
 * ran to its end and pam_limits applied the marker; else the output and
 * the reason are diagnosed and CASE_FAIL returned.
 */
enum case_status pam_session(const char *user, const char *script, char *out,
			     size_t len, void (*watch)(void *ctx), void *ctx);

/* The first line of @out that starts with @prefix, copied to @buf. */
const char *line_with(const char *out, const char *prefix, char *buf,
		      size_t len);

#endif
