// SPDX-License-Identifier: GPL-2.0
/*
 * A whole guest console as a cell's boot ends: classified (boot.c), its
 * suites split and parsed, the "# abi" lines read (suites.c) and the
 * cases judged (test.c, expect.c) into a result that must validate.
 * The arch is x86_64 with its i386 compat suite, the expectations the
 * unit tests' (matrix/tests/fixtures/expect/good.conf).
 */
#define _GNU_SOURCE
#include <string.h>

#include "boot.h"
#include "fuzz.h"
#include "report.h"
#include "result.h"

static struct expectations *exp;
static struct arch_conf arch;
static char *skip[] = { "client_*", NULL };
static const char *const steps[] = { "stock", "baseline", "nice", "partial" };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *path = fuzz_path("matrix/tests/fixtures/expect/good.conf");
	GError *err = NULL;

	exp = expect_load(path, &err);
	if (!exp)
		g_error("%s", err->message);
	g_free(path);
	arch.name = "x86_64";
	arch.compat = "i386";
	arch.uapi_arch = "x86";
	arch.compat_uapi_arch = "x86";
	arch.skip = skip;
	return 0;
}

/*
 * The result says what the judge found: every case (the counts and the
 * list agree), every evidence line and the summary; and it validates.
 */
static void check_result(json_t *res, const struct outcome *o)
{
	json_t *k = json_object_get(res, "ktap");
	json_t *tests = json_object_get(res, "tests");
	json_t *evidence = json_object_get(res, "evidence");
	const char *summary = jstr(res, "summary");
	json_int_t n = 0;
	char *why;

	if (k) {
		n = json_integer_value(json_object_get(k, "ok")) +
		    json_integer_value(json_object_get(k, "not_ok")) +
		    json_integer_value(json_object_get(k, "skip"));
		fuzz_assert(json_array_size(tests) == (size_t)n);
	}
	fuzz_assert(json_array_size(evidence) == o->evidence->len);
	/* made valid UTF-8 and clipped (result_text()), but there */
	if (o->summary && *o->summary)
		fuzz_assert(*summary);
	why = result_validate(res);
	if (why)
		fuzz_fail(__FILE__, __LINE__, why);
}

static void judge(const char *text, const struct child *ch, const char *step)
{
	struct outcome o = { 0 };
	json_t *res = result_new("5.10", "x86_64", step, 1);

	o.evidence = g_ptr_array_new_with_free_func(g_free);
	if (!boot_classify(text, ch, &o))
		test_judge(text, &arch, exp, step, res, &o);
	fuzz_assert(!o.verdict || result_verdict_known(o.verdict));
	/* as plan.c writes a cell's outcome */
	result_set_verdict(res, o.verdict ? o.verdict : "pass", !o.verdict,
			   o.summary, o.evidence);
	check_result(res, &o);
	json_decref(res);
	outcome_clear(&o);
}

static bool has(const uint8_t *data, size_t size, const char *mark)
{
	return memmem(data, size, mark, strlen(mark));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct child done = { .status = 0 },
		     late = { .timed_out = true, .timeout = 300 };
	char *text;

	/* the size picks the step and how QEMU ended, the bytes are the console */
	text = boot_console_text(fuzz_file(data, size));
	/* what the boot's watch finds in the raw log, the judge must see too */
	if (has(data, size, "Linux version") ||
	    has(data, size, "KMATRIX-INIT-START"))
		fuzz_assert(boot_kernel_spoke(text));
	judge(text, size / 4 % 2 ? &late : &done,
	      steps[size % G_N_ELEMENTS(steps)]);
	g_free(text);
	return 0;
}
