// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc_util.h"

/* Read a whole (small) file, NUL-terminated; returns bytes or -1. */
int read_file(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (got + 1 < len && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	buf[got] = '\0';
	close(fd);
	return got;
}

int write_file(const char *path, const char *text)
{
	ssize_t n;
	int fd, err;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	err = errno;
	close(fd);
	errno = err;
	return n < 0 ? -1 : 0;
}

/*
 * One line of /proc/<pid>/limits: "<label>  <soft>  <hard>  [units]".
 * Returns 0 when the line is there with numeric values, -1 otherwise.
 */
int proc_limit(pid_t pid, const char *label, unsigned long *soft,
	       unsigned long *hard)
{
	char path[64], buf[4096], *line;
	size_t l = strlen(label);

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/limits");
	if (read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		if (strncmp(line, label, l) || line[l] != ' ')
			continue;
		return sscanf(line + l, "%lu %lu", soft, hard) == 2 ? 0 : -1;
	}
	return -1;
}

/*
 * Run argv[0] with stdout and stderr into @out (truncated to @len).
 * Returns -1 when it could not be started, else 0 with the wait status.
 */
/*
 * Run @argv with stdout and stderr into @out (NUL-terminated, cut at @len)
 * and wait for it.  While its output is open, @watch (when not NULL) is
 * called with @ctx about every 2 ms: a case that must see what a child's
 * threads got while they run (their policy) looks at /proc from there.
 */
int run_capture_watch(char *const argv[], char *out, size_t len, int *status,
		      void (*watch)(void *ctx), void *ctx)
{
	struct pollfd pfd = { .events = POLLIN };
	size_t got = 0;
	int p[2];
	pid_t pid;
	ssize_t n = 1;
	char junk[256];

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		execv(argv[0], argv);
		dprintf(STDERR_FILENO, "exec %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	pfd.fd = p[0];
	while (n > 0) {
		if (watch)
			watch(ctx);
		if (watch && poll(&pfd, 1, 2) == 0)
			continue;
		n = read(p[0], got + 1 < len ? out + got : junk,
			 got + 1 < len ? len - 1 - got : sizeof(junk));
		if (n > 0 && got + 1 < len)
			got += n;
	}
	out[got] = '\0';
	close(p[0]);
	waitpid(pid, status, 0);
	return 0;
}

int run_capture(char *const argv[], char *out, size_t len, int *status)
{
	return run_capture_watch(argv, out, len, status, NULL, NULL);
}

/* Is @line one whole line of @out (a client's captured output)? */
bool output_has_line(const char *out, const char *line)
{
	size_t l = strlen(line);
	const char *p;

	for (p = out; (p = strstr(p, line)); p++)
		if ((p == out || p[-1] == '\n') &&
		    (p[l] == '\n' || p[l] == '\0'))
			return true;
	return false;
}
