/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rlimit syscalls with the kernel's own structures.  glibc's struct
 * rlimit is no stand-in: on a 32-bit ABI its rlim_t is 32 bits wide (or
 * 64, with _FILE_OFFSET_BITS=64), while prlimit64 always takes two u64 and
 * getrlimit/setrlimit always take two of the ABI's unsigned long.
 */
#ifndef RLT_RAW_RLIMIT_H
#define RLT_RAW_RLIMIT_H

#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/* The kernel's struct rlimit64, prlimit64's argument. */
struct rl64 {
	uint64_t cur, max;
};

/* The ABI's struct rlimit, argument of getrlimit, ugetrlimit, setrlimit. */
struct rlul {
	unsigned long cur, max;
};

#define RL64_INFINITY (~0ULL)

/*
 * The getrlimit that reports the full range.  i386 and ARM EABI name it
 * ugetrlimit (i386's getrlimit is the old one that clamps to 0x7fffffff,
 * EABI has no getrlimit at all); everywhere else it is getrlimit.
 */
#ifdef SYS_ugetrlimit
#define NR_GETRLIMIT SYS_ugetrlimit
#define NR_GETRLIMIT_NAME "ugetrlimit"
#else
#define NR_GETRLIMIT SYS_getrlimit
#define NR_GETRLIMIT_NAME "getrlimit"
#endif

static inline long prlimit64_raw(pid_t pid, int res, const struct rl64 *new,
				 struct rl64 *old)
{
	return syscall(SYS_prlimit64, pid, res, new, old);
}

static inline long getrlimit_raw(int res, struct rlul *rl)
{
	return syscall(NR_GETRLIMIT, res, rl);
}

static inline long setrlimit_raw(int res, const struct rlul *rl)
{
	return syscall(SYS_setrlimit, res, rl);
}

#endif
