// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 28: the seed article's user.  An ordinary user in the audio group
 * runs a realtime audio client; the grant comes from the limits files
 * Debian's audio packages ship, read by pam_limits in a runuser -l session
 * (pam_session.h), and the clients are Debian's: rt-tests' cyclictest,
 * util-linux chrt, coreutils nice, bash's and dash's ulimit.
 *
 * The files are the packages' own bytes, packed by mkinitramfs under
 * AUDIO_DIR from the .debs tools/setup-host fetched (guest-tests/audio.files
 * names them): jackd2's audio.conf (rtprio 95, memlock unlimited, its nice
 * line commented out) and pipewire-bin's 95-pipewire.conf (rtprio 95,
 * nice -19, memlock 4194304: limits.conf counts memlock in KiB, so 4 GiB).  Each case installs one of them, alone, as
 * /etc/security/limits.d/<name> in a private /etc.  The *_as_shipped cases
 * fail when a package's file no longer says what the other cases expect.
 *
 * pam_limits writes a nice value v as RLIMIT_NICE 20 - v (today's ABI: the
 * nice ceiling is 20 - rlim_cur): nice -19 is RLIMIT_NICE 39.  bash's
 * ulimit -e and /proc/self/limits both show the raw 39, not -19.
 *
 * Latency under TCG means nothing: cyclictest is judged by the policy and
 * priority its measuring thread really had (/proc/<pid>/task/<tid>/stat,
 * read while it runs) and by its exit status, never by a latency.
 */
#include <ctype.h>
#include <dirent.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases.h"
#include "check.h"
#include "pam_session.h"
#include "priv.h"
#include "proc_util.h"

#ifndef RLT_COMPAT_SUITE

#define AUDIO_DIR "/usr/share/rlt-audio"
#define AUDIO_PACKAGES AUDIO_DIR "/packages"
#define CYCLICTEST "/usr/bin/cyclictest"
#define BASH "/bin/bash"
#define DASH "/bin/dash"

struct audio_file {
	const char *name; /* under AUDIO_DIR, and in limits.d */
	const char *package, *shipped; /* the .deb and its path there */
	const char *const *lines; /* its lines, blanks folded to one space */
};

#define LINES(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* The postinst copies it to /etc/security/limits.d/audio.conf. */
static const struct audio_file jackd = {
	"audio.conf",
	"jackd2",
	"/usr/share/jackd/audio.conf",
	LINES("@audio - rtprio 95", "@audio - memlock unlimited",
	      "#@audio - nice -19"),
};

static const struct audio_file pipewire = {
	"95-pipewire.conf",
	"pipewire-bin",
	"/etc/security/limits.d/95-pipewire.conf",
	LINES("@pipewire - rtprio 95", "@pipewire - nice -19",
	      "@pipewire - memlock 4194304"),
};

/* @line with runs of blanks as one space, leading and trailing ones cut. */
static void fold(const char *line, size_t len, char *buf, size_t size)
{
	size_t i, o = 0;
	bool blank = false;

	for (i = 0; i < len && o + 1 < size; i++) {
		if (isblank((unsigned char)line[i])) {
			blank = o > 0;
			continue;
		}
		if (blank && o + 2 < size)
			buf[o++] = ' ';
		blank = false;
		buf[o++] = line[i];
	}
	buf[o] = '\0';
}

/* Is the folded @want one of @text's lines? */
static bool has_folded(const char *text, const char *want)
{
	const char *p = text;
	char buf[256];
	size_t n;

	while (*p) {
		n = strcspn(p, "\n");
		fold(p, n, buf, sizeof(buf));
		if (!strcmp(buf, want))
			return true;
		p += n + (p[n] == '\n');
	}
	return false;
}

/* Is @line (folded, not a comment) one of @f's expected lines? */
static bool expected(const struct audio_file *f, const char *line)
{
	int i;

	for (i = 0; f->lines[i]; i++)
		if (!strcmp(f->lines[i], line))
			return true;
	return false;
}

/* The guest's Debian audio files, or why this guest has none. */
static enum case_status audio_ready(void)
{
	const char *missing;

	if (access(AUDIO_PACKAGES, R_OK))
		return case_skip("no " AUDIO_PACKAGES ": this guest has no "
				 "Debian userland (mkinitramfs --userland "
				 "none), hence no audio packages");
	missing = pam_missing_client();
	if (missing)
		return case_skip("client %s absent", missing);
	if (!have_cap(CAP_SYS_RESOURCE))
		return case_skip("root here lacks CAP_SYS_RESOURCE: pam_limits "
				 "cannot raise a limit");
	return CASE_PASS;
}

static enum case_status audio_as_shipped(const void *arg)
{
	const struct audio_file *f = arg;
	char path[128], text[4096], pkgs[1024], buf[256];
	const char *p;
	size_t n;
	int i;

	TRY(audio_ready());
	snprintf(path, sizeof(path), AUDIO_DIR "/%s", f->name);
	if (!expect_ok(read_file(path, text, sizeof(text)), "read %s", path) ||
	    !expect_ok(read_file(AUDIO_PACKAGES, pkgs, sizeof(pkgs)),
		       "read " AUDIO_PACKAGES))
		return CASE_FAIL;
	for (p = pkgs; *p; p += n + (p[n] == '\n')) {
		n = strcspn(p, "\n");
		diag("audio package %.*s", (int)n, p);
	}
	diag("%s: %s of %s", f->name, f->shipped, f->package);
	for (i = 0; f->lines[i]; i++)
		if (!has_folded(text, f->lines[i])) {
			diag("%s", text);
			diag("%s lacks \"%s\": the package changed the file "
			     "the audio cases rely on",
			     f->name, f->lines[i]);
			return CASE_FAIL;
		}
	for (p = text; *p; p += n + (p[n] == '\n')) {
		n = strcspn(p, "\n");
		fold(p, n, buf, sizeof(buf));
		if (buf[0] && buf[0] != '#' && !expected(f, buf)) {
			diag("%s", text);
			diag("%s has a line no case expects: \"%s\"", f->name,
			     buf);
			return CASE_FAIL;
		}
	}
	return CASE_PASS;
}

/*
 * A session of @user with @f alone in limits.d, its output in @out.
 * runuser resets both limits to 0 itself; 0 on the baseline is its state.
 */
static enum case_status audio_session(const struct audio_file *f,
				      const char *user, const char *script,
				      char *out, size_t len,
				      void (*watch)(void *ctx), void *ctx)
{
	char path[128], text[4096];

	TRY(audio_ready());
	snprintf(path, sizeof(path), AUDIO_DIR "/%s", f->name);
	if (!expect_ok(read_file(path, text, sizeof(text)), "read %s", path))
		return CASE_FAIL;
	TRY(set_both_limits(0, 0));
	/* Read before /etc is replaced: AUDIO_DIR is not under it. */
	TRY(private_etc(strcmp(user, AUDIO_MEMBER) ? MARKER_CONF(AUDIO_OTHER) :
						     MARKER_CONF(AUDIO_MEMBER),
			f->name, text));
	return pam_session(user, script, out, len, watch, ctx);
}

/* Lines the session must print, the grant's and the case's. */
struct audio_arg {
	const struct audio_file *file;
	const char *user;
	const char *script;
	const char *const *want;
};

/*
 * Why the session lacks @want, when a missing resource says why: a kernel
 * without it shows no "limit nice|realtime" line (pam_limits skipped it).
 */
static void explain(const char *out, const char *want)
{
	static const struct {
		const char *want, *line, *name;
		int nr;
	} res[] = {
		{ "limit nice ", "limit nice ", "RLIMIT_NICE", 13 },
		{ "ulimit -e ", "limit nice ", "RLIMIT_NICE", 13 },
		{ "limit realtime ", "limit realtime ", "RLIMIT_RTPRIO", 14 },
		{ "ulimit -r ", "limit realtime ", "RLIMIT_RTPRIO", 14 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(res); i++)
		if (!strncmp(want, res[i].want, strlen(res[i].want)) &&
		    !strstr(out, res[i].line)) {
			diag("the session has no %s: this kernel lacks "
			     "resource %d, and pam_limits skipped the file's "
			     "line for it",
			     res[i].name, res[i].nr);
			return;
		}
}

static enum case_status audio_lines(const void *arg)
{
	const struct audio_arg *a = arg;
	char out[4096];
	int i;

	TRY(audio_session(a->file, a->user, a->script, out, sizeof(out), NULL,
			  NULL));
	for (i = 0; a->want[i]; i++)
		if (!output_has_line(out, a->want[i])) {
			diag("%s", out);
			explain(out, a->want[i]);
			diag("the %s session did not print \"%s\"", a->user,
			     a->want[i]);
			return CASE_FAIL;
		}
	return CASE_PASS;
}

/* What cyclictest's threads had while it ran. */
struct rt_seen {
	int fifo_prio; /* highest SCHED_FIFO priority of a thread, or -1 */
	long vmlck_kb; /* most VmLck of the process */
	bool running; /* a cyclictest process was seen */
};

/* Fields 40 and 41 of a task's stat: rt_priority and policy. */
static bool task_sched(const char *stat_path, int *prio, int *policy)
{
	char buf[1024], *p;
	int field;

	if (read_file(stat_path, buf, sizeof(buf)) < 0)
		return false;
	p = strrchr(buf, ')');
	/* After "comm)" comes field 3. */
	for (field = 2; p && field < 40; field++)
		p = strchr(p + 1, ' ');
	return p && sscanf(p + 1, "%d %d", prio, policy) == 2;
}

static void watch_one(struct rt_seen *s, const char *pid)
{
	char path[300], buf[4096], *l;
	struct dirent *e;
	int prio, policy;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%s/comm", pid);
	if (read_file(path, buf, sizeof(buf)) < 0 ||
	    strcmp(buf, "cyclictest\n"))
		return;
	s->running = true;
	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	l = read_file(path, buf, sizeof(buf)) < 0 ? NULL :
						    strstr(buf, "\nVmLck:");
	if (l && atol(l + 7) > s->vmlck_kb)
		s->vmlck_kb = atol(l + 7);
	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task/%s/stat", pid,
			 e->d_name);
		if (task_sched(path, &prio, &policy) && policy == SCHED_FIFO &&
		    prio > s->fifo_prio)
			s->fifo_prio = prio;
	}
	if (d)
		closedir(d);
}

static void watch_cyclictest(void *ctx)
{
	struct dirent *e;
	DIR *d = opendir("/proc");

	while (d && (e = readdir(d)))
		if (isdigit((unsigned char)e->d_name[0]))
			watch_one(ctx, e->d_name);
	if (d)
		closedir(d);
}

/*
 * -l loops at -i microseconds: long enough for the watch to see the
 * measuring thread under TCG, short beside a boot.
 */
#define CYCLIC_ARGS " -l 10 -i 2000 -q"
#define CYCLIC_EXIT "; echo \"cyclictest exit $?\""

/*
 * cyclictest run by @user under jackd2's audio.conf, its threads watched
 * while it runs.  The script ends by printing cyclictest's exit status.
 */
static enum case_status cyclictest_session(const char *user, const char *script,
					   struct rt_seen *seen, char *out,
					   size_t len)
{
	if (access(CYCLICTEST, X_OK))
		return case_skip("client " CYCLICTEST " absent");
	return audio_session(&jackd, user, script, out, len, watch_cyclictest,
			     seen);
}

/*
 * The member asks cyclictest for the file's ceiling, with -m (mlockall:
 * the file's memlock unlimited).  glibc sizes a thread's stack by
 * RLIMIT_STACK, and -m locks it whole: the session lowers it to 512 KiB,
 * which leaves the grant alone and spares populating 8 MiB under TCG.
 * The measuring thread must run SCHED_FIFO at 95 and the process must
 * have locked memory.
 */
static enum case_status audio_cyclictest_member(const void *arg)
{
	struct rt_seen seen = { -1, 0, false };
	char out[4096];

	TRY(cyclictest_session(AUDIO_MEMBER,
			       "ulimit -s 512; " CYCLICTEST
			       " -m -p 95" CYCLIC_ARGS CYCLIC_EXIT,
			       &seen, out, sizeof(out)));
	if (!output_has_line(out, "cyclictest exit 0")) {
		diag("%s", out);
		diag("cyclictest -p 95 failed for a member of audio, whose "
		     "audio.conf grants rtprio 95%s",
		     strstr(out, "limit realtime ") ?
			     "" :
			     ": the session has no RLIMIT_RTPRIO (resource 14)");
		return CASE_FAIL;
	}
	if (seen.fifo_prio != 95) {
		diag("%s", out);
		diag("cyclictest exited 0, yet no thread of it was seen at "
		     "SCHED_FIFO 95 (highest seen: %d, process seen: %s)",
		     seen.fifo_prio, seen.running ? "yes" : "no");
		return CASE_FAIL;
	}
	if (!expect_ok(seen.vmlck_kb > 0 ? 0 : -1,
		       "cyclictest -m locked memory (VmLck %ld kB)",
		       seen.vmlck_kb))
		return CASE_FAIL;
	diag("cyclictest's measuring thread ran SCHED_FIFO 95, VmLck %ld kB",
	     seen.vmlck_kb);
	return CASE_PASS;
}

/* The user outside audio: no grant, the policy change is refused. */
static enum case_status audio_cyclictest_other(const void *arg)
{
	struct rt_seen seen = { -1, 0, false };
	char out[4096];

	TRY(cyclictest_session(AUDIO_OTHER,
			       CYCLICTEST " -p 95" CYCLIC_ARGS CYCLIC_EXIT,
			       &seen, out, sizeof(out)));
	if (output_has_line(out, "cyclictest exit 0") ||
	    !strstr(out, "Unable to change scheduling policy")) {
		diag("%s", out);
		diag("cyclictest -p 95 as a user outside audio did not fail "
		     "on its scheduling policy");
		return CASE_FAIL;
	}
	if (seen.fifo_prio >= 0) {
		diag("%s", out);
		diag("a thread of cyclictest ran SCHED_FIFO %d without a grant",
		     seen.fifo_prio);
		return CASE_FAIL;
	}
	diag("refused as cyclictest says: \"Unable to change scheduling "
	     "policy!\"");
	return CASE_PASS;
}

#define AUDIO(name, group, file, user, script, ...)                 \
	{                                                           \
		name, group, audio_lines, &(const struct audio_arg) \
		{                                                   \
			&(file), user, script, WANT(__VA_ARGS__)    \
		}                                                   \
	}

/*
 * A shell's ulimit OPT as the member: it shows the grant as soft and
 * hard limit, lowers the soft one to LOW (which /proc then shows), and
 * cannot raise the hard one to HIGH.  LABEL picks the /proc line.
 */
#define ULIMIT(sh, opt, low, high, label)                               \
	sh " -c 'echo \"ulimit " opt " soft $(ulimit -S " opt ") hard " \
	   "$(ulimit -H " opt ")\"; ulimit -S " opt " " low             \
	   " && echo \"ulimit " opt " lowered $(ulimit -S " opt         \
	   ")\"; while read -r a b c s h u; do "                        \
	   "[ \"$a $b\" = \"Max " label "\" ] && echo \"proc " label    \
	   " $s $h\"; "                                                 \
	   "done </proc/$$/limits; ulimit -H " opt " " high             \
	   " || echo \"ulimit " opt " " high " refused\"'"

static const struct tcase audio_cases[] = {
	{ "audio_jackd_conf_as_shipped", G_ALL, audio_as_shipped, &jackd },
	{ "audio_pipewire_conf_as_shipped", G_ALL, audio_as_shipped,
	  &pipewire },
	/* rtprio 95: FIFO at 95 for cyclictest and chrt, 96 refused. */
	{ "audio_jackd_member_cyclictest_fifo95", G_RTPRIO,
	  audio_cyclictest_member, NULL },
	{ "audio_jackd_other_cyclictest_refused", G_ALL, audio_cyclictest_other,
	  NULL },
	AUDIO("audio_jackd_member_chrt_f95", G_RTPRIO, jackd, AUDIO_MEMBER,
	      "r -f 95", "chrt -f 95 policy: SCHED_FIFO",
	      "chrt -f 95 priority: 95"),
	AUDIO("audio_jackd_member_chrt_f96_refused", G_UAPI, jackd,
	      AUDIO_MEMBER, "r -f 96", "limit realtime 95 95",
	      "limit locked unlimited unlimited", "chrt -f 96 refused"),
	/* nice -19: RLIMIT_NICE 20 - (-19) = 39. */
	AUDIO("audio_pipewire_member_nice_m19", G_NICE, pipewire, AUDIO_MEMBER,
	      "n -19", "limit nice 39 39", "nice -19: -19"),
	AUDIO("audio_pipewire_member_nice_m20_refused", G_UAPI, pipewire,
	      AUDIO_MEMBER, "n -20", "limit nice 39 39", "limit realtime 95 95",
	      "limit locked 4294967296 4294967296", "nice -20: 0"),
	AUDIO("audio_pipewire_other_nice_refused", G_ALL, pipewire, AUDIO_OTHER,
	      "n -1; r -f 1", "nice -1: 0", "chrt -f 1 refused"),
	/* The shells read what pam_limits set, the raw values /proc shows. */
	AUDIO("audio_bash_ulimit_r", G_UAPI, jackd, AUDIO_MEMBER,
	      ULIMIT(BASH, "-r", "50", "96", "realtime"),
	      "ulimit -r soft 95 hard 95", "ulimit -r lowered 50",
	      "proc realtime 50 95", "ulimit -r 96 refused"),
	AUDIO("audio_bash_ulimit_e", G_UAPI, pipewire, AUDIO_MEMBER,
	      ULIMIT(BASH, "-e", "30", "40", "nice"),
	      "ulimit -e soft 39 hard 39", "ulimit -e lowered 30",
	      "proc nice 30 39", "ulimit -e 40 refused"),
	/* dash has ulimit -r; it has no -e (nice). */
	AUDIO("audio_dash_ulimit_r", G_UAPI, jackd, AUDIO_MEMBER,
	      ULIMIT(DASH, "-r", "50", "96", "realtime"),
	      "ulimit -r soft 95 hard 95", "ulimit -r lowered 50",
	      "proc realtime 50 95", "ulimit -r 96 refused"),
};

const struct section audio_section = SECTION(audio_cases);
const char *const audio_section_note = NULL;

#else /* RLT_COMPAT_SUITE */

const struct section audio_section = { NULL, 0 };
const char *const audio_section_note =
	"audio_*: not in a compat suite: runuser, pam_limits, cyclictest and "
	"the shells are native programs the native suite runs";

#endif
