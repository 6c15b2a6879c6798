// SPDX-License-Identifier: GPL-2.0
/*
 * Case assertions.  Diagnostics go straight to fd 1 (no stdio buffer that a
 * fork could duplicate), as KTAP "# " lines that precede the case's result,
 * one per line of text.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

/* The skip reason lives in memory shared with the runner. */
static char *skip_buf;
static size_t skip_len;

void case_reset(void *shared, size_t len)
{
	skip_buf = shared;
	skip_len = len;
	if (skip_buf)
		skip_buf[0] = '\0';
}

const char *case_skip_reason(void)
{
	return skip_buf ? skip_buf : "";
}

static void vdiag(const char *fmt, va_list ap)
{
	char text[2048], *p, *nl;

	vsnprintf(text, sizeof(text), fmt, ap);
	for (p = text; *p; p = nl + 1) {
		nl = strchrnul(p, '\n');
		dprintf(STDOUT_FILENO, "# %.*s\n", (int)(nl - p), p);
		if (!*nl)
			break;
	}
}

void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(fmt, ap);
	va_end(ap);
}

enum case_status case_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (skip_buf)
		vsnprintf(skip_buf, skip_len, fmt, ap);
	va_end(ap);
	return CASE_SKIP;
}

static void what_failed(const char *fmt, va_list ap, const char *why)
{
	char what[384];

	vsnprintf(what, sizeof(what), fmt, ap);
	diag("%s: %s", what, why);
}

/* @rc is a syscall's return: anything but -1 is success. */
bool expect_ok(long rc, const char *fmt, ...)
{
	int err = errno;
	char why[128];
	va_list ap;

	if (rc != -1)
		return true;
	snprintf(why, sizeof(why), "failed with %s, expected success",
		 strerrorname_np(err) ?: strerror(err));
	va_start(ap, fmt);
	what_failed(fmt, ap, why);
	va_end(ap);
	return false;
}

bool expect_errno(long rc, int err, const char *fmt, ...)
{
	int got = errno;
	char why[128];
	va_list ap;

	if (rc == -1 && got == err)
		return true;
	if (rc == -1)
		snprintf(why, sizeof(why), "failed with %s, expected %s",
			 strerrorname_np(got) ?: "?", strerrorname_np(err));
	else
		snprintf(why, sizeof(why), "succeeded (%ld), expected %s", rc,
			 strerrorname_np(err));
	va_start(ap, fmt);
	what_failed(fmt, ap, why);
	va_end(ap);
	return false;
}

bool expect_eq(long got, long want, const char *fmt, ...)
{
	char why[128];
	va_list ap;

	if (got == want)
		return true;
	snprintf(why, sizeof(why), "got %ld, expected %ld", got, want);
	va_start(ap, fmt);
	what_failed(fmt, ap, why);
	va_end(ap);
	return false;
}
