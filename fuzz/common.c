// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>

#include "fuzz.h"

const char *fuzz_file(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("kmatrix-fuzz", 0);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size) {
		perror("memfd");
		abort();
	}
	return path;
}

char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s = g_malloc(size + 1);

	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

char *fuzz_path(const char *rel)
{
	return g_build_filename(FUZZ_TOP, rel, NULL);
}

void fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, what);
	abort();
}
