// SPDX-License-Identifier: GPL-2.0
/*
 * runuser -l sessions over a private /etc: see pam_session.h.  Native
 * suite only (runuser and libpam are the guest's native programs).
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

#include "check.h"
#include "pam_session.h"
#include "priv.h"
#include "proc_util.h"

#ifndef RLT_COMPAT_SUITE

/* What the session runs, besides the module, that the guest must have. */
static const char *const pam_clients[] = { RUNUSER, SHELL, NICE, CHRT,
					   PRLIMIT };

/* libpam's module directory is the multiarch one, under /lib or /usr/lib. */
static const char *const lib_dirs[] = { "/lib", "/usr/lib" };

/*
 * audio is Debian's system group (GID 29, base-passwd); pipewire is the
 * group PipeWire's limits file names (Debian 12 creates none: the
 * administrator adds it).
 */
/* clang-format off */
static const char etc_passwd[] =
	"root:x:0:0:root:/root:/bin/sh\n"
	PAM_USER ":x:65532:65532:rlimit-tests PAM user:/:/bin/sh\n"
	AUDIO_MEMBER ":x:65530:65530:rlimit-tests audio user:/:/bin/sh\n"
	AUDIO_OTHER ":x:65529:65529:rlimit-tests other user:/:/bin/sh\n";
static const char etc_group[] =
	"root:x:0:\n"
	"audio:x:29:" AUDIO_MEMBER "\n"
	PAM_USER ":x:65532:\n"
	"rlt-audio:x:65531:" PAM_USER "\n"
	AUDIO_MEMBER ":x:65530:\n"
	AUDIO_OTHER ":x:65529:\n"
	"pipewire:x:65528:" AUDIO_MEMBER "\n";
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

const char *line_with(const char *out, const char *prefix, char *buf,
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

/* Is pam_limits.so in a multiarch module directory? */
static bool have_pam_limits(void)
{
	size_t i;

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
				return true;
			}
		}
		if (d)
			closedir(d);
	}
	return false;
}

const char *pam_missing_client(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pam_clients); i++)
		if (access(pam_clients[i], X_OK))
			return pam_clients[i];
	return have_pam_limits() ? NULL : "pam_limits.so";
}

bool put_file(const char *path, const char *text)
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
enum case_status private_etc(const char *limits_conf, const char *dropin,
			     const char *dropin_text)
{
	char path[256];

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
	    !expect_ok(mkdir("/etc/security", 0755), "mkdir /etc/security") ||
	    !expect_ok(mkdir("/etc/security/limits.d", 0755),
		       "mkdir /etc/security/limits.d"))
		return CASE_FAIL;
	snprintf(path, sizeof(path), "/etc/security/limits.d/%s",
		 dropin ? dropin : "");
	if (!put_file("/etc/passwd", etc_passwd) ||
	    !put_file("/etc/group", etc_group) ||
	    !put_file("/etc/nsswitch.conf", etc_nsswitch) ||
	    !put_file("/etc/pam.d/runuser", etc_pam_runuser) ||
	    !put_file("/etc/pam.d/runuser-l", etc_pam_runuser_l) ||
	    !put_file("/etc/security/limits.conf", limits_conf) ||
	    (dropin && !put_file(path, dropin_text)))
		return CASE_FAIL;
	return CASE_PASS;
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

enum case_status pam_session(const char *user, const char *script, char *out,
			     size_t len, void (*watch)(void *ctx), void *ctx)
{
	char cmd[4096];
	char *argv[] = { RUNUSER, "-l", (char *)user, "-c", cmd, NULL };
	int status;

	snprintf(cmd, sizeof(cmd), "%s%s; echo session-end", SESSION_LIB,
		 script);
	if (!expect_ok(run_capture_watch(argv, out, len, &status, watch, ctx),
		       "start " RUNUSER))
		return CASE_FAIL;
	if (!WIFEXITED(status) || WEXITSTATUS(status) ||
	    !output_has_line(out, "session-end")) {
		diag("%s", out);
		diag("runuser -l %s exited with status 0x%x: %s", user, status,
		     refusal(out));
		return CASE_FAIL;
	}
	if (!output_has_line(out, MARKER_LINE)) {
		diag("%s", out);
		diag("pam_limits did not apply limits.conf: the session lacks "
		     "\"" MARKER_LINE "\"");
		return CASE_FAIL;
	}
	return CASE_PASS;
}

#endif /* RLT_COMPAT_SUITE */
