/* SPDX-License-Identifier: GPL-2.0 */
/* Expectations: which guest tests must pass or fail at each step. */
#ifndef KMATRIX_EXPECT_H
#define KMATRIX_EXPECT_H

#include <glib.h>
#include "ktap.h"

enum expect_outcome {
	EXPECT_NONE,		/* no pattern matched: an error */
	EXPECT_PASS,
	EXPECT_FAIL,
	EXPECT_SKIP,
};

struct expectations;

struct expectations *expect_load(const char *path, GError **err);
void expect_free(struct expectations *e);
bool expect_has_step(const struct expectations *e, const char *step);
enum expect_outcome expect_lookup(const struct expectations *e,
				  const char *step, const char *test);
/*
 * Checks that need what the file alone does not say; each error names
 * the file and line.  Every [step <id>] must be one of @steps (every step
 * id of the matrix); every glob, in [groups] or a step, must match one of
 * @cases (the names `rlimit-tests --list` prints).
 */
gboolean expect_check_steps(const struct expectations *e,
			    const char *const *steps, GError **err);
gboolean expect_check_cases(const struct expectations *e,
			    const char *const *cases, GError **err);
/* The case names of `rlimit-tests --list` output ("name step-group" lines). */
char **expect_list_cases(const char *text);

/* One test as judged. */
struct judged_case {
	const struct ktap_case *c;
	enum expect_outcome expected;
	bool met;
};

struct judgement {
	const char *verdict;	/* "pass", "test-failed", "unexpected-pass" */
	bool met;
	struct judged_case *cases;
	size_t ncases;
	GPtrArray *evidence;	/* char *: failing names, missing cases, errors */
};

/*
 * Judge a parsed KTAP report for @step.  An incomplete report, a crash or a
 * missing case is test-failed; a case expected to fail that passed is
 * unexpected-pass (test-failed wins when both occur).
 */
int expect_judge(const struct expectations *e, const char *step,
		 const struct ktap_report *r, struct judgement *out);
/* The same, with the glob list of cases the arch's guest always skips. */
int expect_judge_arch(const struct expectations *e, const char *step,
		      const char *const *arch_skip, const struct ktap_report *r,
		      struct judgement *out);
void judgement_free(struct judgement *j);

#endif
