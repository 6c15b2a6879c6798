// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <stdbool.h>
#include <unistd.h>

#include "lock.h"

#define LOCK_ERROR g_quark_from_static_string("kmatrix-lock")

static long lock_owner(int fd)
{
	char buf[32] = "";
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	return n > 0 ? strtol(buf, NULL, 10) : 0;
}

/* kmatrix bisect runs kmatrix under git bisect while it holds the lock. */
static bool inherited(int fd)
{
	const char *held = g_getenv("KMATRIX_LOCK_HELD");

	return held && *held && strtol(held, NULL, 10) == lock_owner(fd);
}

static int refuse(int fd, const char *cache, const char *path, GError **err)
{
	if (inherited(fd)) {
		close(fd);
		return LOCK_INHERITED;
	}
	g_set_error(err, LOCK_ERROR, 1,
		    "another kmatrix (pid %ld) is running on the cache %s; wait for it to finish or stop it (lock: %s)",
		    lock_owner(fd), cache, path);
	close(fd);
	return -1;
}

/*
 * lock_release() empties the file: a pid still in it when we get the lock
 * is an owner that died holding it (kill -9, the OOM killer, a power cut).
 * Its flock went with it; say so, since its work may be half done.
 */
static void report_dead_owner(int fd, const char *path)
{
	long pid = lock_owner(fd);

	if (pid > 0 && pid != getpid())
		g_printerr("kmatrix: found the lock %s of pid %ld, which died without releasing it; taking it over\n",
			   path, pid);
}

int lock_take(const char *cache, GError **err)
{
	char *path = g_build_filename(cache, "lock", NULL);
	char pid[32];
	int fd, n;

	g_mkdir_with_parents(cache, 0755);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		g_set_error(err, LOCK_ERROR, 1, "cannot open %s: %s", path, strerror(errno));
	} else if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		fd = refuse(fd, cache, path, err);
	} else {
		report_dead_owner(fd, path);
		n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
		if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, n, 0) != n)
			g_printerr("kmatrix: warning: cannot record pid in %s\n", path);
	}
	g_free(path);
	return fd;
}

void lock_release(int fd)
{
	if (fd < 0)
		return;

	if (ftruncate(fd, 0) < 0)
		g_printerr("kmatrix: warning: cannot clear the lock file\n");
	flock(fd, LOCK_UN);
	close(fd);
}
