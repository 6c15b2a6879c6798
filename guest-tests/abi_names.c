// SPDX-License-Identifier: GPL-2.0
/*
 * Resource names, the "# abi" line format, and the running kernel's
 * numbering out of /proc/PID/limits.  Pure (no syscalls): unit-tested on
 * the host with fixture files.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "abi.h"

const char *const abi_names[ABI_NRES] = {
	"RLIMIT_CPU",	   "RLIMIT_FSIZE", "RLIMIT_DATA",   "RLIMIT_STACK",
	"RLIMIT_CORE",	   "RLIMIT_RSS",   "RLIMIT_NPROC",  "RLIMIT_NOFILE",
	"RLIMIT_MEMLOCK",  "RLIMIT_AS",	   "RLIMIT_LOCKS",  "RLIMIT_SIGPENDING",
	"RLIMIT_MSGQUEUE", "RLIMIT_NICE",  "RLIMIT_RTPRIO", "RLIMIT_RTTIME",
};

/* fs/proc/base.c's lnames[], by resource name rather than number. */
const char *const abi_proc_names[ABI_NRES] = {
	"Max cpu time",		"Max file size",      "Max data size",
	"Max stack size",	"Max core file size", "Max resident set",
	"Max processes",	"Max open files",     "Max locked memory",
	"Max address space",	"Max file locks",     "Max pending signals",
	"Max msgqueue size",	"Max nice priority",  "Max realtime priority",
	"Max realtime timeout",
};

void abi_clear(struct abi_numbering *n)
{
	int i;

	for (i = 0; i < ABI_NRES; i++)
		n->index[i] = -1;
	n->nlimits = -1;
	n->has_infinity = false;
	n->infinity = 0;
}

/* Append to @buf at *@at; past its end, only count. */
static void put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(buf + (*at < len ? *at : len), *at < len ? len - *at : 0,
		      fmt, ap);
	va_end(ap);
	if (w > 0)
		*at += w;
}

/*
 * "abi SOURCE NAME=N ... RLIM_NLIMITS=N RLIM_INFINITY=0xX", leaving out
 * what @n does not know.  Returns the length snprintf would have written.
 */
int abi_format(const struct abi_numbering *n, const char *source, char *buf,
	       size_t len)
{
	size_t at = 0;
	int i;

	put(buf, len, &at, "abi %s", source);
	for (i = 0; i < ABI_NRES; i++)
		if (n->index[i] >= 0)
			put(buf, len, &at, " %s=%d", abi_names[i], n->index[i]);
	if (n->nlimits >= 0)
		put(buf, len, &at, " RLIM_NLIMITS=%d", n->nlimits);
	if (n->has_infinity)
		put(buf, len, &at, " RLIM_INFINITY=0x%llx", n->infinity);
	return at;
}

/* Which of abi_names a limits line is for; -1 for none ("(null)"). */
static int line_name(const char *line, size_t len)
{
	size_t l;
	int i;

	for (i = 0; i < ABI_NRES; i++) {
		l = strlen(abi_proc_names[i]);
		if (l < len && !strncmp(line, abi_proc_names[i], l) &&
		    line[l] == ' ')
			return i;
	}
	return -1;
}

/*
 * The kernel prints one line per resource number in increasing order,
 * named from a table indexed by number.  A kernel without some numbers
 * (the baseline's holes at 13 and 14) either skips their lines or prints
 * "(null)"; @known[i] says whether the kernel accepts resource i
 * (prlimit64 did not answer EINVAL).  When there are exactly as many lines
 * as known numbers, the k-th line is the k-th known number; otherwise the
 * lines are taken by position.  RLIM_NLIMITS is one past the last line's
 * number.  Returns the number of lines.
 */
int abi_parse_limits(const char *text, const bool known[ABI_PROBE_MAX],
		     struct abi_numbering *n)
{
	int num[ABI_PROBE_MAX], names[ABI_PROBE_MAX];
	int lines = 0, nknown = 0, i, res;
	const char *p = text, *nl;

	abi_clear(n);
	for (i = 0; i < ABI_PROBE_MAX; i++)
		if (known[i])
			num[nknown++] = i;
	/* The header line: "Limit  Soft Limit  Hard Limit  Units". */
	if (!strncmp(p, "Limit ", 6))
		p += strcspn(p, "\n");
	while (*p) {
		nl = p + strcspn(p, "\n");
		if (nl > p && lines < ABI_PROBE_MAX)
			names[lines++] = line_name(p, nl - p);
		p = *nl ? nl + 1 : nl;
	}
	for (i = 0; i < lines; i++) {
		res = lines == nknown ? num[i] : i;
		if (names[i] >= 0)
			n->index[names[i]] = res;
		n->nlimits = res + 1;
	}
	return lines;
}
