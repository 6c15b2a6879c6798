// SPDX-License-Identifier: GPL-2.0
/*
 * Test stage: the KTAP the guest printed, judged against the series'
 * expectations (the parser and the judge live in ktap.c and expect.c).
 */
#include <string.h>

#include "boot.h"
#include "result.h"
#include "suites.h"

static const char *const expected_names[] = {
	[EXPECT_NONE] = "none", [EXPECT_PASS] = "pass",
	[EXPECT_FAIL] = "fail", [EXPECT_SKIP] = "skip",
};

static const char *result_name(enum ktap_result r)
{
	return r == KTAP_OK ? "ok" : r == KTAP_NOT_OK ? "not ok" : "skip";
}

static json_t *tests_json(const struct judgement *j)
{
	json_t *tests = json_array();

	for (size_t i = 0; i < j->ncases; i++) {
		const struct judged_case *jc = &j->cases[i];

		/* the guest wrote name and diag: they need not be UTF-8 */
		json_array_append_new(tests, json_pack("{s:o, s:s, s:s, s:b, s:o}",
			"name", result_text(jc->c->name), "result", result_name(jc->c->result),
			"expected", expected_names[jc->expected], "met", jc->met,
			"diag", result_text(jc->c->diag)));
	}
	return tests;
}

static json_t *ktap_json(const struct ktap_report *r)
{
	int n[3] = { 0 };

	for (size_t i = 0; i < r->ncases; i++)
		n[r->cases[i].result]++;
	return json_pack("{s:i, s:i, s:i, s:i}", "plan", r->plan, "ok", n[KTAP_OK],
			 "not_ok", n[KTAP_NOT_OK], "skip", n[KTAP_SKIP]);
}

static void summarize(const struct judgement *j, const struct ktap_report *r,
		      struct outcome *o)
{
	size_t unmet = 0;

	for (size_t i = 0; i < j->ncases; i++)
		unmet += !j->cases[i].met;
	o->verdict = strcmp(j->verdict, "pass") ? j->verdict : NULL;
	g_free(o->summary);
	if (!r->found)
		o->summary = g_strdup("no KTAP output from the test binary");
	else if (!r->complete)
		o->summary = g_strdup_printf("KTAP incomplete after %zu of %d cases%s%s",
					     r->ncases, r->plan, r->error ? ": " : "",
					     r->error ? r->error : "");
	else
		o->summary = g_strdup_printf("%zu cases, %zu departed from expectations",
					     j->ncases, unmet);
	for (guint i = 0; j->evidence && i < j->evidence->len; i++)
		outcome_add(o, "%s", (char *)j->evidence->pdata[i]);
}

/* Which arch/<dir> uapi each suite was built against, for the ABI table. */
static void label_abi(json_t *abi, const struct arch_conf *a)
{
	json_t *native = json_object_get(abi, a->name);
	json_t *compat = *a->compat ? json_object_get(abi, a->compat) : NULL;

	if (native && *a->uapi_arch)
		json_object_set_new(native, "header_arch", json_string(a->uapi_arch));
	if (compat && *a->compat_uapi_arch)
		json_object_set_new(compat, "header_arch", json_string(a->compat_uapi_arch));
}

void test_judge(const char *text, const struct arch_conf *a,
		const struct expectations *exp, const char *step, json_t *res,
		struct outcome *o)
{
	struct ktap_report r;
	struct judgement j;
	json_t *abi;

	memset(&j, 0, sizeof(j));
	suites_parse(text, a->compat, &r);
	abi = suites_abi(text, a->name);
	label_abi(abi, a);
	if (abi)
		json_object_set_new(res, "abi_runtime", abi);
	else
		json_object_del(res, "abi_runtime");
	if (expect_judge_arch(exp, step, (const char *const *)a->skip, &r, &j) < 0) {
		outcome_set(o, "test-failed", "cannot judge step %s", step);
		for (guint i = 0; j.evidence && i < j.evidence->len; i++)
			outcome_add(o, "%s", (char *)j.evidence->pdata[i]);
	} else {
		json_object_set_new(res, "tests", tests_json(&j));
		json_object_set_new(res, "ktap", ktap_json(&r));
		summarize(&j, &r, o);
	}
	judgement_free(&j);
	ktap_report_free(&r);
}
