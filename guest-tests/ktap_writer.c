// SPDX-License-Identifier: GPL-2.0
/* KTAP version 1 writer (Documentation/dev-tools/ktap.rst). */
#include <ctype.h>
#include <string.h>

#include "ktap_writer.h"

/*
 * Names are matched by globs in series/expectations and by the parser in
 * kmatrix: keep them to lower-case snake_case so neither has to quote.
 */
bool kw_valid_name(const char *name)
{
	const char *p;

	if (!name || !*name || !islower((unsigned char)*name))
		return false;
	for (p = name; *p; p++)
		if (!islower((unsigned char)*p) &&
		    !isdigit((unsigned char)*p) && *p != '_')
			return false;
	return true;
}

/*
 * The version line alone, so that diagnostics can come between it and the
 * plan (as KUnit's "# Subtest:" lines do); kw_plan() must follow.
 */
void kw_header(struct ktap_writer *w, FILE *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->next = 1;
	fputs("KTAP version 1\n", out);
	fflush(out);
}

void kw_plan(struct ktap_writer *w, unsigned int plan)
{
	w->plan = plan;
	fprintf(w->out, "1..%u\n", plan);
	fflush(w->out);
}

void kw_begin(struct ktap_writer *w, FILE *out, unsigned int plan)
{
	kw_header(w, out);
	kw_plan(w, plan);
}

/* Print @text as diagnostic lines, one "# " line per line of text. */
void kw_diag(struct ktap_writer *w, const char *text)
{
	const char *p = text, *nl;

	while (*p) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		fprintf(w->out, "# %.*s\n", (int)(nl - p), p);
		p = *nl ? nl + 1 : nl;
	}
	fflush(w->out);
}

/* A reason must stay on the result line: fold control characters. */
static void put_reason(FILE *out, const char *reason)
{
	for (; *reason; reason++)
		fputc(iscntrl((unsigned char)*reason) ? ' ' : *reason, out);
}

/* Returns -1 (and writes nothing) for a name the format cannot carry. */
int kw_result(struct ktap_writer *w, enum kw_status st, const char *name,
	      const char *reason)
{
	if (!kw_valid_name(name))
		return -1;
	fprintf(w->out, "%s %u %s", st == KW_FAIL ? "not ok" : "ok", w->next++,
		name);
	if (st == KW_SKIP) {
		fputs(" # SKIP", w->out);
		if (reason && *reason) {
			fputc(' ', w->out);
			put_reason(w->out, reason);
		}
		w->skip++;
	} else if (st == KW_PASS) {
		w->pass++;
	} else {
		w->fail++;
	}
	fputc('\n', w->out);
	fflush(w->out);
	return 0;
}

/*
 * Totals as kselftest prints them.  Exit status: 0 when every planned case
 * ran and none failed, 1 otherwise.
 */
int kw_end(struct ktap_writer *w)
{
	fprintf(w->out,
		"# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:%u error:0\n",
		w->pass, w->fail, w->skip);
	fflush(w->out);
	return w->fail || w->next - 1 != w->plan;
}
