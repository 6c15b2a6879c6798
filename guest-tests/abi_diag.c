// SPDX-License-Identifier: GPL-2.0
/* The running kernel's resource numbering, and the three "# abi" lines. */
#include <errno.h>
#include <string.h>

#include "abi.h"
#include "ktap_writer.h"
#include "proc_util.h"
#include "raw_rlimit.h"

/*
 * The numbers this kernel has: all that prlimit64 does not refuse with
 * EINVAL.  Without prlimit64 (ENOSYS) every number counts as there, and
 * the /proc lines are taken by position.
 */
static void probe_known(bool known[ABI_PROBE_MAX])
{
	struct rl64 rl;
	int i;

	for (i = 0; i < ABI_PROBE_MAX; i++)
		known[i] = prlimit64_raw(0, i, NULL, &rl) == 0 ||
			   errno != EINVAL;
}

static void abi_kernel(struct ktap_writer *w, struct abi_numbering *n)
{
	bool known[ABI_PROBE_MAX];
	char text[4096], why[128];

	probe_known(known);
	if (read_file("/proc/self/limits", text, sizeof(text)) < 0) {
		snprintf(why, sizeof(why),
			 "kernel numbering unknown: /proc/self/limits: %s",
			 strerror(errno));
		kw_diag(w, why);
		text[0] = '\0';
	}
	abi_parse_limits(text, known, n);
}

static void abi_line(struct ktap_writer *w, const struct abi_numbering *n,
		     const char *source)
{
	char line[1024];

	abi_format(n, source, line, sizeof(line));
	kw_diag(w, line);
}

/* Before the plan: the three numberings, one "# abi SOURCE" line each. */
void abi_diag(struct ktap_writer *w)
{
	struct abi_numbering n;

	abi_uapi(&n);
	abi_line(w, &n, "uapi");
	abi_libc(&n);
	abi_line(w, &n, "libc");
	abi_kernel(w, &n);
	abi_line(w, &n, "kernel");
}
