// SPDX-License-Identifier: GPL-2.0
/*
 * check_expectations EXPECTATIONS < `rlimit-tests --list`
 *
 * Every case the binary lists must have an expectation at every step of
 * the canonical series, and that expectation must agree with the case's
 * own step group: a case passes from its group's step on and fails before.
 * Catches a new case nobody added to series/expectations, and a glob that
 * catches the wrong cases.  Uses kmatrix's own expectations loader.
 */
#include <stdio.h>
#include <string.h>

#include "expect.h"

/* The canonical series (DESIGN.md "Steps") and the level each reaches. */
static const struct {
	const char *step;
	int level;
} steps[] = {
	{ "stock", 3 },	 { "baseline", 0 }, { "uapi", 1 },
	{ "helper", 1 }, { "nice", 2 },	    { "rtprio", 3 },
};

static const char *const groups[] = { "all", "uapi", "nice", "rtprio" };

static int group_level(const char *g)
{
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(groups); i++)
		if (!strcmp(g, groups[i]))
			return i;
	return -1;
}

static const char *outcome(enum expect_outcome o)
{
	return o == EXPECT_PASS ? "pass" :
	       o == EXPECT_FAIL ? "fail" :
	       o == EXPECT_SKIP ? "skip" :
				  "nothing";
}

static int check_case(const struct expectations *e, const char *name,
		      const char *group)
{
	int level = group_level(group), bad = 0;
	enum expect_outcome got, want;
	size_t s;

	if (level < 0) {
		fprintf(stderr, "%s: unknown step group %s\n", name, group);
		return 1;
	}
	for (s = 0; s < G_N_ELEMENTS(steps); s++) {
		want = steps[s].level >= level ? EXPECT_PASS : EXPECT_FAIL;
		got = expect_lookup(e, steps[s].step, name);
		if (got == want)
			continue;
		fprintf(stderr,
			"%s (group %s): step %s expects %s, should be %s\n",
			name, group, steps[s].step, outcome(got),
			outcome(want));
		bad = 1;
	}
	return bad;
}

int main(int argc, char **argv)
{
	char line[256], name[128], group[32];
	struct expectations *e;
	GError *err = NULL;
	int bad = 0, n = 0;
	size_t s;

	if (argc != 2) {
		fprintf(stderr, "usage: check_expectations FILE < list\n");
		return 2;
	}
	e = expect_load(argv[1], &err);
	if (!e) {
		fprintf(stderr, "%s: %s\n", argv[1], err->message);
		return 2;
	}
	for (s = 0; s < G_N_ELEMENTS(steps); s++)
		if (!expect_has_step(e, steps[s].step)) {
			fprintf(stderr, "%s: no [step %s]\n", argv[1],
				steps[s].step);
			bad = 1;
		}
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "%127s %31s", name, group) != 2)
			continue;
		bad |= check_case(e, name, group);
		n++;
	}
	expect_free(e);
	if (!n) {
		fprintf(stderr, "no cases listed\n");
		return 1;
	}
	printf("%d cases x %zu steps: %s\n", n, G_N_ELEMENTS(steps),
	       bad ? "MISMATCH" : "every expectation agrees");
	return bad;
}
