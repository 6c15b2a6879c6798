/* SPDX-License-Identifier: GPL-2.0 */
/* Reading /proc files and child output. */
#ifndef RLT_PROC_UTIL_H
#define RLT_PROC_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

int read_file(const char *path, char *buf, size_t len);
int proc_limit(pid_t pid, const char *label, unsigned long *soft,
	       unsigned long *hard);
int run_capture(char *const argv[], char *out, size_t len, int *status);
int run_capture_watch(char *const argv[], char *out, size_t len, int *status,
		      void (*watch)(void *ctx), void *ctx);
int write_file(const char *path, const char *text);
bool output_has_line(const char *out, const char *line);

#endif
