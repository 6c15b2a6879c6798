/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The resource numbering as three sources see it, printed as KTAP
 * diagnostics before the first case:
 *
 *   # abi uapi RLIMIT_CPU=0 ... RLIMIT_RTTIME=15 RLIM_NLIMITS=16 RLIM_INFINITY=0x...
 *
 * "uapi" is the kernel headers the binary was built with, "libc" is
 * glibc's <sys/resource.h>, "kernel" the running kernel's
 * /proc/self/limits.  The numbers differ between architectures (mips and
 * sparc move RLIMIT_NOFILE and friends), and a binary built against one
 * numbering but run on a kernel with another tests the wrong resources.
 *
 * This header must not pull in <sys/resource.h>: abi_uapi.c includes the
 * kernel's <linux/resource.h>, which clashes with it.
 */
#ifndef RLT_ABI_H
#define RLT_ABI_H

#include <stdbool.h>
#include <stddef.h>

/* RLIMIT_CPU .. RLIMIT_RTTIME: the names printed, in this order. */
#define ABI_NRES 16

/*
 * The resources in that order, by name: abi_uapi.c and abi_libc.c expand
 * it under two headers that cannot meet in one file (the kernel's
 * <linux/resource.h> and glibc's <sys/resource.h>).
 */
#define ABI_RLIMIT_INDEX {						\
	RLIMIT_CPU,	 RLIMIT_FSIZE, RLIMIT_DATA,   RLIMIT_STACK,	\
	RLIMIT_CORE,	 RLIMIT_RSS,   RLIMIT_NPROC,  RLIMIT_NOFILE,	\
	RLIMIT_MEMLOCK,	 RLIMIT_AS,    RLIMIT_LOCKS,  RLIMIT_SIGPENDING,	\
	RLIMIT_MSGQUEUE, RLIMIT_NICE,  RLIMIT_RTPRIO, RLIMIT_RTTIME,	\
}

/* Resource numbers the kernel is probed for, well past any RLIM_NLIMITS. */
#define ABI_PROBE_MAX 64

struct abi_numbering {
	int index[ABI_NRES]; /* by name, as abi_names; -1 when not known */
	int nlimits; /* RLIM_NLIMITS, -1 when not known */
	bool has_infinity;
	unsigned long long infinity;
};

extern const char *const abi_names[ABI_NRES];
/* The name /proc/PID/limits gives each of abi_names. */
extern const char *const abi_proc_names[ABI_NRES];

void abi_clear(struct abi_numbering *n);
int abi_format(const struct abi_numbering *n, const char *source, char *buf,
	       size_t len);
int abi_parse_limits(const char *text, const bool known[ABI_PROBE_MAX],
		     struct abi_numbering *n);

/* From the headers: abi_uapi.c (kernel uapi) and abi_libc.c (glibc). */
void abi_uapi(struct abi_numbering *n);
void abi_libc(struct abi_numbering *n);
/* The ABI's RLIM_INFINITY as the uapi headers define it. */
extern const unsigned long uapi_rlim_infinity;

struct ktap_writer;
void abi_diag(struct ktap_writer *w);

#endif
