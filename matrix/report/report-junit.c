// SPDX-License-Identifier: GPL-2.0
/*
 * JUnit XML for CI dashboards: one testsuite per cell, one testcase per
 * guest test.  A cell that departed for a reason no single test carries
 * (a build error, a panic, a truncated KTAP, a missing result) gets a
 * testcase named after its verdict, so the dashboard shows it failing.
 * A knock-on cell (a later step of a patch that did not apply) is one
 * skipped testcase naming its root: the root's failure is counted once.
 * Element order follows the usual JUnit schema (tests/report/junit.xsd).
 */
#include <string.h>

#include "report.h"

/* The dashboard's class: dots separate packages, so none inside a part. */
static char *classname(const struct rcell *c)
{
	char *v = g_strdelimit(g_strdup(c->version), ".", '_');
	char *out = g_strdup_printf("kmatrix.linux-%s.%s.%s", v, c->arch, c->step);

	g_free(v);
	return out;
}

/*
 * A result file may say "pass" for a cell that missed its expectation (a
 * stale or hand-made file); it is still a failure, never an empty element.
 */
static const char *junit_kind(const struct rcell *c)
{
	const char *kind = report_style(c->verdict)->junit;

	return kind ? kind : "failure";
}

struct counts {
	int tests, failures, errors, skipped;
};

/* Mirrors suite(): the guest tests, plus the verdict's own testcase. */
static void count_cell(const struct rcell *c, struct counts *n)
{
	json_t *tests = c->res ? json_object_get(c->res, "tests") : NULL;
	bool carried = false;
	json_t *t;
	size_t i;

	if (c->knock_of) {
		n->tests++;
		n->skipped++;
		return;
	}
	json_array_foreach(tests, i, t) {
		bool met = json_is_true(json_object_get(t, "met"));

		n->tests++;
		carried |= !met;
		if (!met)
			n->failures++;
		else if (!strcmp(jstr(t, "result"), "skip"))
			n->skipped++;
	}
	if (json_array_size(tests) && (c->met || carried))
		return;
	n->tests++;
	if (c->met)
		return;
	if (!strcmp(junit_kind(c), "error"))
		n->errors++;
	else
		n->failures++;
}

static void evidence_text(GString *out, const struct rcell *c)
{
	char *ev;

	if (!c->res) {
		g_string_append(out, c->missing);
		return;
	}
	g_string_append(out, jstr(c->res, "summary"));
	ev = report_evidence(c);
	if (ev)
		g_string_append_printf(out, "\n%s", ev);
	g_free(ev);
}

/* The testcase that carries a verdict no guest test does. */
static void verdict_case(GString *out, const struct rcell *c, const char *cls)
{
	GString *ev = g_string_new(NULL);

	char *knock = report_knock_text(c);

	g_string_append(out, "    <testcase");
	xml_attr(out, "name", c->knock_of ? "knock-on" : c->met ? "cell" : c->verdict);
	xml_attr(out, "classname", cls);
	g_string_append_printf(out, " time=\"%.3f\"", c->total);
	if (knock) {
		g_string_append(out, ">\n      <skipped");
		xml_attr(out, "message", knock);
		g_string_append(out, "/>\n    </testcase>\n");
		g_free(knock);
		g_string_free(ev, TRUE);
		return;
	}
	if (c->met) {
		g_string_append(out, "/>\n");
		g_string_free(ev, TRUE);
		return;
	}
	evidence_text(ev, c);
	g_string_append_printf(out, ">\n      <%s", junit_kind(c));
	xml_attr(out, "message", c->res ? jstr(c->res, "summary") : c->missing);
	xml_attr(out, "type", c->verdict);
	g_string_append_c(out, '>');
	xml_text(out, ev->str);
	g_string_append_printf(out, "</%s>\n    </testcase>\n", junit_kind(c));
	g_string_free(ev, TRUE);
}

static void test_case(GString *out, json_t *t, const char *cls)
{
	bool met = json_is_true(json_object_get(t, "met"));
	const char *diag = jstr(t, "diag");
	char *msg;

	g_string_append(out, "    <testcase");
	xml_attr(out, "name", jstr(t, "name"));
	xml_attr(out, "classname", cls);
	g_string_append(out, " time=\"0\"");
	if (met && strcmp(jstr(t, "result"), "skip")) {
		g_string_append(out, "/>\n");
		return;
	}
	g_string_append(out, ">\n");
	if (met) {
		g_string_append(out, "      <skipped");
		xml_attr(out, "message", *diag ? diag : "skipped as expected");
		g_string_append(out, "/>\n");
	} else {
		msg = g_strdup_printf("expected %s, got %s", jstr(t, "expected"),
				      jstr(t, "result"));
		g_string_append(out, "      <failure");
		xml_attr(out, "message", msg);
		xml_attr(out, "type", "departed");
		g_string_append_c(out, '>');
		xml_text(out, *diag ? diag : msg);
		g_string_append(out, "</failure>\n");
		g_free(msg);
	}
	g_string_append(out, "    </testcase>\n");
}

static void suite(GString *out, const struct rcell *c)
{
	json_t *tests = c->res ? json_object_get(c->res, "tests") : NULL;
	struct counts n = { 0 };
	char *cls = classname(c);
	bool carried = false;
	json_t *t;
	size_t i;

	count_cell(c, &n);
	g_string_append(out, "  <testsuite");
	xml_attr(out, "name", c->id);
	g_string_append_printf(out, " tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\"",
			       n.tests, n.failures, n.errors, n.skipped, c->total);
	if (c->res && *jstr(c->res, "started"))
		xml_attr(out, "timestamp", jstr(c->res, "started"));
	if (c->res && *jstr(c->res, "host"))
		xml_attr(out, "hostname", jstr(c->res, "host"));
	g_string_append(out, ">\n    <properties>\n");
	g_string_append(out, "      <property name=\"verdict\"");
	xml_attr(out, "value", c->verdict);
	g_string_append(out, "/>\n");
	if (c->res) {
		g_string_append(out, "      <property name=\"commit\"");
		xml_attr(out, "value", jstr(c->res, "commit"));
		g_string_append(out, "/>\n      <property name=\"subject\"");
		xml_attr(out, "value", jstr(c->res, "subject"));
		g_string_append(out, "/>\n");
	}
	if (c->knock_of) {
		g_string_append(out, "      <property name=\"knock_on_of\"");
		xml_attr(out, "value", c->knock_of->id);
		g_string_append(out, "/>\n");
	}
	g_string_append(out, "    </properties>\n");
	json_array_foreach(tests, i, t) {
		carried |= !json_is_true(json_object_get(t, "met"));
		test_case(out, t, cls);
	}
	if (!json_array_size(tests) || (!c->met && !carried))
		verdict_case(out, c, cls);
	g_string_append(out, "  </testsuite>\n");
	g_free(cls);
}

/* An excluded version x arch: one skipped case that says why. */
static void excluded_suite(GString *out, json_t *x)
{
	char *id = g_strdup_printf("%s/%s", jstr(x, "version"), jstr(x, "arch"));

	g_string_append(out, "  <testsuite");
	xml_attr(out, "name", id);
	g_string_append(out, " tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\">\n"
			"    <testcase name=\"excluded\"");
	xml_attr(out, "classname", id);
	g_string_append(out, ">\n      <skipped");
	xml_attr(out, "message", jstr(x, "reason"));
	g_string_append(out, "/>\n    </testcase>\n  </testsuite>\n");
	g_free(id);
}

void report_junit(GString *out, const struct report *r)
{
	struct counts all = { 0 };
	double time = 0;
	json_t *x;
	size_t i;

	for (guint k = 0; k < r->run->cells->len; k++) {
		const struct rcell *c = r->run->cells->pdata[k];

		count_cell(c, &all);
		time += c->total;
	}
	all.tests += json_array_size(run_excluded(r->run));
	all.skipped += json_array_size(run_excluded(r->run));
	g_string_append_printf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			       "<testsuites name=\"kmatrix\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\">\n",
			       all.tests, all.failures, all.errors, all.skipped, time);
	for (guint k = 0; k < r->run->cells->len; k++)
		suite(out, r->run->cells->pdata[k]);
	json_array_foreach(run_excluded(r->run), i, x)
		excluded_suite(out, x);
	g_string_append(out, "</testsuites>\n");
}
