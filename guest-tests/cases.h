/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The case table.  Each case runs in its own forked child, starts as root
 * and returns a case_status.  Its step group names the first step of the
 * canonical series from which it must pass (see series/expectations).
 */
#ifndef RLT_CASES_H
#define RLT_CASES_H

#include <stddef.h>

enum case_status {
	CASE_PASS,
	CASE_FAIL,
	CASE_SKIP,
};

enum step_group {
	G_ALL, /* holds on every kernel, baseline included */
	G_UAPI, /* needs resources 13/14 to exist */
	G_NICE, /* needs RLIMIT_NICE to grant nice reductions */
	G_RTPRIO, /* needs RLIMIT_RTPRIO and the policy rules */
};

struct tcase {
	const char *name;
	enum step_group group;
	enum case_status (*run)(const void *arg);
	const void *arg;
};

struct section {
	const struct tcase *cases;
	size_t n;
};

/* For case functions that take no argument from the table. */
#define __always_unused __attribute__((unused))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SECTION(tab)                   \
	{                              \
		(tab), ARRAY_SIZE(tab) \
	}

/* Propagate a failed or skipped set-up step out of a case. */
#define TRY(expr)                             \
	do {                                  \
		enum case_status s_ = (expr); \
		if (s_ != CASE_PASS)          \
			return s_;            \
	} while (0)

extern const struct section limits_section, sys_section, nice_section,
	rt_section, policy_section, task_section, cap_section, client_section,
	pam_section, audio_section;
/* Why a suite lists no PAM or audio case (a compat build), or NULL. */
extern const char *const pam_section_note, *const audio_section_note;

const char *step_group_name(enum step_group g);

#endif
