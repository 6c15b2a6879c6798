// SPDX-License-Identifier: GPL-2.0
/*
 * The expectations reader (matrix/judge/expect.c), a hand-edited file: loaded,
 * checked against the steps and cases a run knows, and used to judge a
 * fixed KTAP report; and the `rlimit-tests --list` reader on the same
 * bytes.
 */
#include <string.h>

#include "expect.h"
#include "fuzz.h"

static const char *const steps[] = { "stock", "baseline", "uapi", "helper",
				     "nice",  "rtprio",	  NULL };
static const char *const cases[] = { "limits_nice_defined",
				     "nice_rlim20_to_0",
				     "nice_rlim25_to_m5",
				     "rtprio_rlim10_to_5",
				     "client_prlimit_nice",
				     "i386.nice_rlim20_to_0",
				     NULL };
static struct ktap_report report;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char ktap[] =
		"KTAP version 1\n1..4\n"
		"ok 1 limits_nice_defined\nnot ok 2 nice_rlim20_to_0\n"
		"# nice_rlim25_to_m5: EPERM\nok 3 nice_rlim25_to_m5 # SKIP no\n"
		"ok 4 rtprio_rlim10_to_5\n";

	ktap_parse(ktap, sizeof(ktap) - 1, &report);
	return 0;
}

/* An error names the file (and, where it has one, the line). */
static void check_error(const char *path, const GError *err)
{
	fuzz_assert(err && g_str_has_prefix(err->message, path) &&
		    err->message[strlen(path)] == ':');
}

static void use(const struct expectations *e, const char *path)
{
	GError *err = NULL;

	if (!expect_check_steps(e, steps, &err))
		check_error(path, err);
	g_clear_error(&err);
	if (!expect_check_cases(e, cases, &err))
		check_error(path, err);
	g_clear_error(&err);
	for (int s = 0; steps[s]; s++) {
		struct judgement j;

		for (int c = 0; cases[c]; c++)
			expect_lookup(e, steps[s], cases[c]);
		if (!expect_has_step(e, steps[s]))
			continue;
		fuzz_assert(expect_judge(e, steps[s], &report, &j) == 0);
		fuzz_assert(j.verdict && j.ncases == report.ncases);
		fuzz_assert(j.met == !strcmp(j.verdict, "pass"));
		judgement_free(&j);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	GError *err = NULL;
	struct expectations *e = expect_load(path, &err);
	char *text = fuzz_text(data, size);
	char **names = expect_list_cases(text);

	/* the line scans stop at a NUL: a file with one must be refused */
	fuzz_assert(!e || !memchr(data, 0, size));
	if (e)
		use(e, path);
	else
		check_error(path, err);
	for (int i = 0; names[i]; i++)
		fuzz_assert(*names[i]);
	g_strfreev(names);
	g_free(text);
	g_clear_error(&err);
	expect_free(e);
	return 0;
}
