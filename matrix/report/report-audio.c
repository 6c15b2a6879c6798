// SPDX-License-Identifier: GPL-2.0
/*
 * The audio user's line per version x arch: whether a member of the audio
 * groups got realtime scheduling and a lowered nice value from Debian's
 * own limits files (guest-tests/cases_audio.c) at the series' last step,
 * whether the baseline refused it, and the packages the guest ran.
 */
#include <string.h>

#include "report.h"

/* The grants an audio user needs; each is refused on the baseline. */
static const char *const grants[] = {
	"audio_jackd_member_cyclictest_fifo95",
	"audio_jackd_member_chrt_f95",
	"audio_pipewire_member_nice_m19",
};

static json_t *test_named(const struct rcell *c, const char *name)
{
	json_t *t;
	size_t i;

	if (!c || !c->res)
		return NULL;
	json_array_foreach(json_object_get(c->res, "tests"), i, t)
		if (!strcmp(jstr(t, "name"), name))
			return t;
	return NULL;
}

/*
 * "granted", "refused", or what is mixed: each grant case that ran the
 * other way, with its KTAP result.  NULL when the cell has no audio case.
 */
static char *grant_state(const struct rcell *c)
{
	GString *mixed = g_string_new(NULL);
	int ok = 0, ran = 0;

	for (guint i = 0; i < G_N_ELEMENTS(grants); i++) {
		json_t *t = test_named(c, grants[i]);
		const char *res = t ? jstr(t, "result") : "";

		if (!t || !strcmp(res, "skip"))
			continue;
		ran++;
		ok += !strcmp(res, "ok");
		g_string_append_printf(mixed, "%s%s %s", mixed->len ? ", " : "",
				       grants[i] + strlen("audio_"), res);
	}
	if (!ran)
		return g_string_free(mixed, TRUE), NULL;
	if (ok == ran || !ok) {
		g_string_free(mixed, TRUE);
		return g_strdup(ok ? "granted" : "refused");
	}
	return g_string_free(mixed, FALSE);
}

/* "jackd2 1.9.21~dfsg-3, ..." from the as-shipped case's diagnostics. */
static char *packages(const struct rcell *c)
{
	json_t *t = test_named(c, "audio_jackd_conf_as_shipped");
	GString *out = g_string_new(NULL);
	gchar **lines;

	lines = g_strsplit(t ? jstr(t, "diag") : "", "\n", -1);
	for (int i = 0; lines[i]; i++)
		if (g_str_has_prefix(lines[i], "# audio package "))
			g_string_append_printf(
				out, "%s%s", out->len ? ", " : "",
				lines[i] + strlen("# audio package "));
	g_strfreev(lines);
	if (!out->len)
		g_string_append(out, "not recorded");
	return g_string_free(out, FALSE);
}

/* A cell's state, or why it has none. */
static char *state_or(char *state, const struct rcell *c, const char *step)
{
	if (state)
		return state;
	return g_strdup_printf(c && c->res ? "no audio case ran at %s" :
					     "%s: no result",
			       step);
}

static guint baseline_step(const struct run *run)
{
	for (guint s = 0; s < run->steps->len; s++)
		if (!strcmp(run->steps->pdata[s], "baseline"))
			return s;
	return G_MAXUINT;
}

/*
 * The row of one version x arch, @base the baseline's step (G_MAXUINT:
 * none); NULL when neither cell ran an audio case.
 */
static GPtrArray *audio_row(const struct run *run, guint v, guint a, guint base)
{
	guint last = run->steps->len - 1;
	const struct rcell *fin = run_cell_at(run, v, a, last);
	const struct rcell *bl =
		base == G_MAXUINT ? NULL : run_cell_at(run, v, a, base);
	char *f = grant_state(fin), *b = grant_state(bl);
	GPtrArray *row;

	if (!f && !b)
		return NULL;
	row = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(row, g_strdup(run->versions->pdata[v]));
	g_ptr_array_add(row, g_strdup(run->arches->pdata[a]));
	f = state_or(f, fin, run->steps->pdata[last]);
	g_ptr_array_add(row,
			g_strdup_printf("%s: %s",
					(char *)run->steps->pdata[last], f));
	g_free(f);
	g_ptr_array_add(row, base == G_MAXUINT ? g_strdup("not in this run") :
						 state_or(b, bl, "baseline"));
	g_ptr_array_add(row, packages(fin && fin->res ? fin : bl));
	return row;
}

/*
 * A row per version x arch whose cells ran an audio case; NULL when none
 * did (sparc64 skips them: no Debian userland).  The title is the
 * section's sentence, the same in every renderer.
 */
struct report_table *report_audio_table(const struct report *r)
{
	static const char *const cols[] = { "version", "arch", "last step",
					    "baseline", "packages" };
	const struct run *run = r->run;
	guint base = baseline_step(run);
	struct report_table *t = report_table_new(
		"A member of audio (jackd2's audio.conf) and pipewire "
		"(pipewire-bin's 95-pipewire.conf): cyclictest at SCHED_FIFO 95, "
		"chrt -f 95, nice -19.");

	for (guint c = 0; c < G_N_ELEMENTS(cols); c++)
		g_ptr_array_add(t->cols, g_strdup(cols[c]));
	for (guint v = 0; run->steps->len && v < run->versions->len; v++)
		for (guint a = 0; a < run->arches->len; a++) {
			GPtrArray *row = audio_row(run, v, a, base);

			if (row)
				g_ptr_array_add(t->rows, row);
		}
	if (!t->rows->len) {
		report_table_free(t);
		return NULL;
	}
	return t;
}
