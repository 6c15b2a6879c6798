// SPDX-License-Identifier: GPL-2.0
/*
 * PID-1 mode.  An arch without busybox (sparc64) boots an initramfs whose
 * /init is rlimit-tests itself; started as PID 1, it does what
 * guest-tests/init does: mount the pseudo filesystems, quiet the console,
 * run the native suite and then every /rlimit-tests-<name> compat suite
 * (each announced by "KMATRIX-SUITE <name>"), report the first non-zero
 * exit status and power off (or reboot), which ends the QEMU run.
 *
 * The suites run as ordinary child processes (the native one by
 * re-executing this binary), never in PID 1 itself: a case that crashes
 * or a runner that dies must not take init, and the kernel, with it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pid1.h"

#define SUITE_PREFIX "rlimit-tests-"
/* syslog(2)'s SYSLOG_ACTION_CONSOLE_LEVEL, as dmesg -n uses. */
#define CONSOLE_LEVEL 8

/* Straight to the console, no stdio buffer for a fork to copy. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdprintf(STDOUT_FILENO, fmt, ap);
	va_end(ap);
}

static void mount_fs(const char *type, const char *dir)
{
	mkdir(dir, 0755);
	/* devtmpfs may be there already (CONFIG_DEVTMPFS_MOUNT). */
	if (mount(type, dir, type, 0, NULL) && errno != EBUSY)
		say("rlimit-tests: mount %s on %s: %s\n", type, dir,
		    strerror(errno));
}

/*
 * The kernel gives init /dev/console as fds 0-2 when the initramfs has
 * the node; without it, take the one devtmpfs has.
 */
static void console_fds(void)
{
	int fd;

	if (fcntl(STDOUT_FILENO, F_GETFD) != -1)
		return;
	fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
}

/* Run @path to its end; its status as a shell's $? gives it. */
static int run(const char *path, const char *arg0)
{
	char *const argv[] = { (char *)arg0, NULL };
	int status;
	pid_t pid, w;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		say("rlimit-tests: fork: %s\n", strerror(errno));
		return 127;
	}
	if (pid == 0) {
		execv(path, argv);
		say("rlimit-tests: exec %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	/* Every orphan of the guest comes to PID 1: reap them on the way. */
	do {
		w = wait(&status);
	} while (w != pid && (w >= 0 || errno == EINTR));
	if (w != pid)
		return 127;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int is_suite(const struct dirent *d)
{
	return !strncmp(d->d_name, SUITE_PREFIX, strlen(SUITE_PREFIX)) &&
	       d->d_name[strlen(SUITE_PREFIX)];
}

/* The compat suites in name order, as the shell init's glob has them. */
static int compat_suites(int rc)
{
	struct dirent **list;
	char path[300];
	int n, i, r;

	n = scandir("/", &list, is_suite, alphasort);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/%s", list[i]->d_name);
		if (!access(path, X_OK)) {
			say("KMATRIX-SUITE %s\n",
			    list[i]->d_name + strlen(SUITE_PREFIX));
			r = run(path, path);
			if (!rc)
				rc = r;
		}
		free(list[i]);
	}
	if (n >= 0)
		free(list);
	return rc;
}

int pid1_main(const char *argv0)
{
	const char *self = "/proc/self/exe";
	int rc;

	mount_fs("proc", "/proc");
	mount_fs("sysfs", "/sys");
	mount_fs("devtmpfs", "/dev");
	mount_fs("tmpfs", "/tmp");
	console_fds();
	setenv("PATH", "/bin:/sbin:/usr/bin:/usr/sbin", 1);
	/* Keep kernel messages from interleaving with the KTAP lines. */
	if (klogctl(CONSOLE_LEVEL, NULL, 1))
		say("rlimit-tests: console loglevel: %s\n", strerror(errno));

	say("KMATRIX-INIT-START\n");
	/* Without /proc, the path the kernel started us by. */
	if (access(self, X_OK))
		self = argv0;
	rc = run(self, argv0);
	rc = compat_suites(rc);
	say("KMATRIX-DONE rc=%d\n", rc);
	sync();
	/*
	 * sun4u's firmware powers QEMU off but cannot reboot (the kernel
	 * panics "Reboot failed" in a loop).  Where power-off only halts (no
	 * ACPI), kmatrix stops QEMU 10 s after KMATRIX-DONE; where it fails,
	 * reboot, which -no-reboot turns into QEMU's exit.
	 */
	reboot(RB_POWER_OFF);
	reboot(RB_AUTOBOOT);
	/*
	 * Still here: init returning makes the kernel panic, which panic=-1
	 * turns into the reboot that ends QEMU.
	 */
	say("rlimit-tests: reboot: %s\n", strerror(errno));
	return rc ? rc : 1;
}
