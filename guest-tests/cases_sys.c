// SPDX-License-Identifier: GPL-2.0
/*
 * The rlimit entry points of this ABI that glibc does not reach, called
 * raw: glibc picks one getter and one setter per ABI, and each of the
 * others has its own conversion in the kernel (and in the compat layer
 * when a 32-bit binary runs on a 64-bit kernel).  Each entry is asked for
 * resources 13, 14, 15 and RLIM_NLIMITS, and for RLIM_INFINITY in its own
 * encoding.  Which entries exist is decided at compile time, so the cases
 * listed differ between ABIs:
 *
 *   x86_64, arm64, mips n64, sparc64: getrlimit, setrlimit, prlimit64
 *   i386: old_getrlimit, ugetrlimit, setrlimit, prlimit64
 *   ARM EABI: ugetrlimit, setrlimit, prlimit64
 *   mips o32: getrlimit, setrlimit, prlimit64
 *
 * A getter is checked against values set with prlimit64, setrlimit by
 * reading its values back with prlimit64.  The *_agrees cases hold on
 * every kernel: each entry must tell the story prlimit64 tells about 13
 * and 14 (and prlimit64 the one /proc/self/limits tells), which at the
 * baseline is EINVAL everywhere and no /proc line.  Every case runs in
 * its own child (runner.c), so what it sets dies with it.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>

#include "abi.h"
#include "check.h"
#include "priv.h"
#include "proc_util.h"
#include "raw_rlimit.h"

#define RES_RTTIME 15
#define RES_NLIMITS 16

/* i386's old_getrlimit reports anything above 0x7fffffff as 0x7fffffff. */
#define OLD_GETRLIMIT_MAX 0x7fffffffULL

enum entry_kind {
	E_GET, /* (resource, struct rlul *) */
	E_SET, /* (resource, const struct rlul *) */
	E_P64, /* prlimit64(0, resource, new, old) */
};

/* How an entry writes RLIM_INFINITY. */
enum inf_kind {
	INF_UAPI, /* the ABI's RLIM_INFINITY (uapi <asm/resource.h>) */
	INF_OLD, /* old_getrlimit's clamp */
	INF_64, /* ~0ULL */
};

struct entry {
	const char *name;
	enum entry_kind kind;
	long nr;
	enum inf_kind inf;
};

struct sys_arg {
	const struct entry *e;
	int res;
};

/*
 * Everywhere but i386, getrlimit is the full-range one; ARM EABI has
 * none.  i386's getrlimit (76) is the kernel's old_getrlimit, which
 * clamps to 0x7fffffff, its full-range getter is ugetrlimit (191).
 */
#if defined(SYS_getrlimit) && !defined(__i386__)
static const struct entry getrlimit_e = { "getrlimit", E_GET, SYS_getrlimit,
					  INF_UAPI };
#endif
#if defined(SYS_getrlimit) && defined(__i386__)
static const struct entry old_getrlimit_e = { "old_getrlimit", E_GET,
					      SYS_getrlimit, INF_OLD };
#endif
#ifdef SYS_ugetrlimit
static const struct entry ugetrlimit_e = { "ugetrlimit", E_GET, SYS_ugetrlimit,
					   INF_UAPI };
#endif
static const struct entry setrlimit_e = { "setrlimit", E_SET, SYS_setrlimit,
					  INF_UAPI };
static const struct entry prlimit64_e = { "prlimit64", E_P64, SYS_prlimit64,
					  INF_64 };

/*
 * The compat layer's RLIM_INFINITY is the 32-bit ABI's: 0xffffffff, but
 * 0x7fffffff on mips o32, which is what its uapi header says too.
 */
static unsigned long long infinity(const struct entry *e)
{
	switch (e->inf) {
	case INF_OLD:
		return OLD_GETRLIMIT_MAX;
	case INF_64:
		return RL64_INFINITY;
	default:
		return uapi_rlim_infinity;
	}
}

/* Read @res through @e; errno is the call's. */
static long entry_get(const struct entry *e, int res, struct rl64 *got)
{
	struct rlul rl;
	long rc;

	if (e->kind == E_P64)
		return syscall(e->nr, 0, res, NULL, got);
	/* A poisoned buffer shows a call that wrote half of it. */
	memset(&rl, 0xa5, sizeof(rl));
	rc = syscall(e->nr, res, &rl);
	got->cur = rl.cur;
	got->max = rl.max;
	return rc;
}

/* Set @res through @e; values wider than the entry's are cut, knowingly. */
static long entry_set(const struct entry *e, int res, const struct rl64 *v)
{
	struct rlul rl = { v->cur, v->max };

	if (e->kind == E_P64)
		return syscall(e->nr, 0, res, v, NULL);
	return syscall(e->nr, res, &rl);
}

/* Small numbers in decimal, the infinities in hex. */
static const char *val(char *buf, size_t len, unsigned long long v)
{
	snprintf(buf, len, v < 0x10000 ? "%llu" : "0x%llx", v);
	return buf;
}

/*
 * One diagnostic line per call, what was asked and what came back:
 * "set NAME(RES, {CUR, MAX}) = RC" or "read NAME(RES) = RC {CUR, MAX}",
 * a failure with its errno name.
 */
static void said(bool set, const struct entry *e, int res, long rc, int err,
		 const struct rl64 *v)
{
	char c[24], m[24], r[48];

	if (rc)
		snprintf(r, sizeof(r), "%ld %s", rc,
			 strerrorname_np(err) ?: strerror(err));
	else
		snprintf(r, sizeof(r), "0");
	val(c, sizeof(c), v->cur);
	val(m, sizeof(m), v->max);
	if (set)
		diag("set %s(%d, {%s, %s}) = %s", e->name, res, c, m, r);
	else if (rc)
		diag("read %s(%d) = %s", e->name, res, r);
	else
		diag("read %s(%d) = 0 {%s, %s}", e->name, res, c, m);
}

/*
 * @v set through @set, then read back through @get, must be @want.  A
 * refused set is a failure with its errno (EINVAL: the kernel does not
 * know the resource); the getter is still asked, to show what it says.
 */
static enum case_status set_then_get(const struct entry *set,
				     const struct entry *get, int res,
				     const struct rl64 *v,
				     const struct rl64 *want)
{
	struct rl64 got = { 0, 0 };
	char c[24], m[24];
	long set_rc, rc;
	int err;

	set_rc = entry_set(set, res, v);
	err = errno;
	said(true, set, res, set_rc, err, v);
	if (set_rc && err == EPERM && !have_cap(CAP_SYS_RESOURCE))
		return case_skip(
			"root here lacks CAP_SYS_RESOURCE, cannot set resource %d",
			res);
	rc = entry_get(get, res, &got);
	said(false, get, res, rc, errno, &got);
	if (set_rc || rc)
		return CASE_FAIL;
	if (got.cur != want->cur || got.max != want->max) {
		diag("expected {%s, %s}", val(c, sizeof(c), want->cur),
		     val(m, sizeof(m), want->max));
		return CASE_FAIL;
	}
	return CASE_PASS;
}

/* The entry under test does the part prlimit64 does not. */
static const struct entry *setter(const struct entry *e)
{
	return e->kind == E_SET ? e : &prlimit64_e;
}

static const struct entry *getter(const struct entry *e)
{
	return e->kind == E_SET ? &prlimit64_e : e;
}

/*
 * A distinctive soft 7, hard 9 through the entry.  Fails on a kernel
 * without the resource (baseline: 13 and 14) or a conversion that loses
 * the values.
 */
static enum case_status sys_value(const void *arg)
{
	const struct sys_arg *a = arg;
	const struct rl64 v = { 7, 9 };

	return set_then_get(setter(a->e), getter(a->e), a->res, &v, &v);
}

/*
 * RLIMIT_NICE unlimited, in the encoding of each side: the setter's
 * infinity must come out as the getter's.  Fails when a conversion maps
 * infinity to something else (or the kernel lacks resource 13).
 */
static enum case_status sys_infinity(const void *arg)
{
	const struct sys_arg *a = arg;
	const struct entry *set = setter(a->e), *get = getter(a->e);
	const struct rl64 v = { infinity(set), infinity(set) };
	const struct rl64 want = { infinity(get), infinity(get) };

	return set_then_get(set, get, a->res, &v, &want);
}

/* RLIM_NLIMITS is past the end on every kernel: EINVAL, whatever the ABI. */
static enum case_status sys_nlimits(const void *arg)
{
	const struct sys_arg *a = arg;
	struct rl64 rl = { 0, 0 };
	long rc;
	int err;

	if (a->e->kind == E_SET)
		rc = entry_set(a->e, a->res, &rl);
	else
		rc = entry_get(a->e, a->res, &rl);
	err = errno;
	said(a->e->kind == E_SET, a->e, a->res, rc, err, &rl);
	errno = err;
	return expect_errno(rc, EINVAL, "%s(%d)", a->e->name, a->res) ?
		       CASE_PASS :
		       CASE_FAIL;
}

/*
 * Whether the kernel knows @res, as prlimit64 says: 1 with its value in
 * @v, 0 for EINVAL, -1 for any other answer (diagnosed).
 */
static int known(int res, struct rl64 *v)
{
	long rc;
	int err;

	*v = (struct rl64){ 0, 0 };
	rc = prlimit64_raw(0, res, NULL, v);
	err = errno;
	said(false, &prlimit64_e, res, rc, err, v);
	if (!rc)
		return 1;
	if (err == EINVAL)
		return 0;
	diag("prlimit64(%d) is neither a value nor EINVAL", res);
	return -1;
}

/* How @e reports @v: old_getrlimit clamps, the others pass it through. */
static unsigned long long as_read(const struct entry *e, unsigned long long v)
{
	return e->inf == INF_OLD && v > OLD_GETRLIMIT_MAX ? OLD_GETRLIMIT_MAX :
							    v;
}

/*
 * @e answers for @res as prlimit64 does: EINVAL when prlimit64 says
 * EINVAL (the baseline: a getter or setter its patch left out answers),
 * else the same value (a getter) or acceptance of that value (a setter).
 */
static enum case_status sys_agrees(const void *arg)
{
	const struct sys_arg *a = arg;
	struct rl64 ref, got = { 0, 0 };
	int k = known(a->res, &ref), err;
	long rc;

	if (k < 0)
		return CASE_FAIL;
	if (a->e->kind == E_SET)
		rc = entry_set(a->e, a->res, &ref);
	else
		rc = entry_get(a->e, a->res, &got);
	err = errno;
	said(a->e->kind == E_SET, a->e, a->res, rc, err,
	     a->e->kind == E_SET ? &ref : &got);
	if (!k) {
		errno = err;
		return expect_errno(rc, EINVAL,
				    "%s(%d) where prlimit64 says EINVAL",
				    a->e->name, a->res) ?
			       CASE_PASS :
			       CASE_FAIL;
	}
	if (rc) {
		diag("%s(%d) refused what prlimit64 knows", a->e->name, a->res);
		return CASE_FAIL;
	}
	if (a->e->kind == E_SET)
		return CASE_PASS;
	if (got.cur != as_read(a->e, ref.cur) ||
	    got.max != as_read(a->e, ref.max)) {
		diag("%s(%d) and prlimit64 differ", a->e->name, a->res);
		return CASE_FAIL;
	}
	return CASE_PASS;
}

static const char *proc_label(int res)
{
	return res == RES_NICE ? "Max nice priority" : "Max realtime priority";
}

/* Whether /proc/self/limits has a line for @label; -1 unreadable. */
static int proc_has(const char *label)
{
	char buf[4096], *line;
	size_t l = strlen(label);

	if (read_file("/proc/self/limits", buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (!strncmp(line, label, l) && line[l] == ' ')
			return 1;
	return 0;
}

/*
 * The reference of sys_agrees, checked against the third witness:
 * prlimit64 answers for @res as /proc/self/limits shows it: EINVAL and no
 * line (the baseline), or a value and a line with that value.
 */
static enum case_status sys_prlimit64_agrees(const void *arg)
{
	const struct sys_arg *a = arg;
	const char *label = proc_label(a->res);
	int k, has = proc_has(label);
	unsigned long soft, hard;
	struct rl64 ref;

	if (has < 0) {
		diag("cannot read /proc/self/limits: %s", strerror(errno));
		return CASE_FAIL;
	}
	k = known(a->res, &ref);
	if (k < 0)
		return CASE_FAIL;
	diag("/proc/self/limits %s a \"%s\" line", has ? "has" : "has no",
	     label);
	if (k != has) {
		diag("prlimit64(%d) %s but /proc %s", a->res,
		     k ? "knows it" : "says EINVAL",
		     has ? "shows it" : "does not");
		return CASE_FAIL;
	}
	if (!k)
		return CASE_PASS;
	if (proc_limit(0, label, &soft, &hard) || soft != ref.cur ||
	    hard != ref.max) {
		diag("the \"%s\" line does not read %llu %llu", label,
		     (unsigned long long)ref.cur, (unsigned long long)ref.max);
		return CASE_FAIL;
	}
	return CASE_PASS;
}

/* clang-format off */
#define ENTRY_CASES(e, agrees)						\
	{ "sys_" #e "_nice", G_UAPI, sys_value,				\
	  &(const struct sys_arg){ &e##_e, RES_NICE } },		\
	{ "sys_" #e "_rtprio", G_UAPI, sys_value,			\
	  &(const struct sys_arg){ &e##_e, RES_RTPRIO } },		\
	{ "sys_" #e "_rttime", G_ALL, sys_value,			\
	  &(const struct sys_arg){ &e##_e, RES_RTTIME } },		\
	{ "sys_" #e "_nlimits_einval", G_ALL, sys_nlimits,		\
	  &(const struct sys_arg){ &e##_e, RES_NLIMITS } },		\
	{ "sys_" #e "_infinity", G_UAPI, sys_infinity,			\
	  &(const struct sys_arg){ &e##_e, RES_NICE } },		\
	{ "sys_" #e "_nice_agrees", G_ALL, agrees,			\
	  &(const struct sys_arg){ &e##_e, RES_NICE } },		\
	{ "sys_" #e "_rtprio_agrees", G_ALL, agrees,			\
	  &(const struct sys_arg){ &e##_e, RES_RTPRIO } }
/* clang-format on */

/* clang-format off */
static const struct tcase sys_cases[] = {
#if defined(SYS_getrlimit) && !defined(__i386__)
	ENTRY_CASES(getrlimit, sys_agrees),
#endif
#if defined(SYS_getrlimit) && defined(__i386__)
	ENTRY_CASES(old_getrlimit, sys_agrees),
#endif
#ifdef SYS_ugetrlimit
	ENTRY_CASES(ugetrlimit, sys_agrees),
#endif
	ENTRY_CASES(setrlimit, sys_agrees),
	ENTRY_CASES(prlimit64, sys_prlimit64_agrees),
};
/* clang-format on */

const struct section sys_section = SECTION(sys_cases);
