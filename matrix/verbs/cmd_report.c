// SPDX-License-Identifier: GPL-2.0
/*
 * kmatrix report: the verb.  It loads the model (report/report.c), adds
 * the trend against an earlier run and the backports' drift, and hands it
 * to the renderer of the format asked for.
 */
#include <stdio.h>
#include <string.h>

#include "cache.h"
#include "report.h"
#include "verbs.h"

struct opts {
	char *format, *against, *output, *cache, *results;
	char *origin, *log_base, *mutants;
	double share;
};

typedef void (*render_fn)(GString *out, const struct report *r);

static render_fn renderer(const char *format)
{
	if (!strcmp(format, "md"))
		return report_md;
	if (!strcmp(format, "html"))
		return report_html;
	if (!strcmp(format, "junit"))
		return report_junit;
	if (!strcmp(format, "json"))
		return report_json;
	if (!strcmp(format, "summary"))
		return report_summary;
	if (!strcmp(format, "kcidb"))
		return report_kcidb;
	return NULL;
}

/* FALSE when the verb is done: *@rc is 0 after --help, 2 after an error. */
static bool parse_opts(int argc, char **argv, struct opts *o, int *rc)
{
	GOptionEntry entries[] = {
		{ "format", 0, 0, G_OPTION_ARG_STRING, &o->format,
		  "md (default), html, junit, json, summary or kcidb", "FORMAT" },
		{ "against", 0, 0, G_OPTION_ARG_FILENAME, &o->against,
		  "an earlier run: its results directory or its JSON report", "RUN" },
		{ "timing-share", 0, 0, G_OPTION_ARG_DOUBLE, &o->share,
		  "with --against, list cells whose time changed by more than this percentage (default 25)",
		  "PCT" },
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &o->output,
		  "write the report to FILE (default: standard output)", "FILE" },
		{ "cache", 0, 0, G_OPTION_ARG_FILENAME, &o->cache,
		  "cache directory (default $KMATRIX_CACHE, $XDG_CACHE_HOME/kmatrix)", "DIR" },
		{ "results", 0, 0, G_OPTION_ARG_FILENAME, &o->results,
		  "results directory (default <cache>/results)", "DIR" },
		{ "origin", 0, 0, G_OPTION_ARG_STRING, &o->origin,
		  "kcidb: the CI system's name, the prefix of every id (default kmatrix)", "NAME" },
		{ "log-base", 0, 0, G_OPTION_ARG_STRING, &o->log_base,
		  "the URL the results directory's logs are published at (default: md and html link them relatively, kcidb by file://)",
		  "URL" },
		{ "mutants", 0, 0, G_OPTION_ARG_FILENAME, &o->mutants,
		  "tests/mutants/run.sh's score.json (default <results>/mutants.json when there)",
		  "FILE" },
		{ NULL }
	};
	char *why;

	o->share = 25;
	*rc = 2;
	if (!verb_parse("report", NULL,
			"The matrix's results as a report.\n\n"
			"Reads <results>/run.json and the per-cell results; planned cells without a "
			"usable result are listed as missing.  The JSON schema is in "
			"matrix/REPORT-SCHEMA.md.\n"
			"Exit status: 0 written, 2 usage or read error; with --format summary, 0 ship, "
			"1 blocked (a cell did not meet its expectation), 3 incomplete (missing or "
			"stale).",
			entries, &argc, &argv, rc))
		return false;
	if (argc > 1) {
		fprintf(stderr, "kmatrix report: unexpected argument '%s'\n", argv[1]);
		return false;
	}
	if (!o->format)
		o->format = g_strdup("md");
	if (!renderer(o->format)) {
		fprintf(stderr, "kmatrix report: unknown format '%s' (md, html, junit, json, summary, kcidb)\n",
			o->format);
		return false;
	}
	if (!o->origin)
		o->origin = g_strdup("kmatrix");
	why = report_kcidb_check(o->origin, o->log_base);
	if (why) {
		fprintf(stderr, "kmatrix report: %s\n", why);
		g_free(why);
		return false;
	}
	if (o->share < 0) {
		fprintf(stderr, "kmatrix report: --timing-share must not be negative\n");
		return false;
	}
	return true;
}

static void opts_free(struct opts *o)
{
	g_free(o->format);
	g_free(o->against);
	g_free(o->output);
	g_free(o->cache);
	g_free(o->results);
	g_free(o->origin);
	g_free(o->log_base);
	g_free(o->mutants);
}

static int write_out(const char *path, const GString *text)
{
	GError *err = NULL;

	if (!path) {
		fwrite(text->str, 1, text->len, stdout);
		return fflush(stdout) ? -1 : 0;
	}
	if (!g_file_set_contents(path, text->str, text->len, &err)) {
		fprintf(stderr, "kmatrix report: %s\n", err->message);
		g_error_free(err);
		return -1;
	}
	return 0;
}

/* --mutants FILE, else <results>/mutants.json when the results hold one. */
static int load_mutants(struct report *r, const char *file, const char *results,
			GError **err)
{
	char *dflt = g_build_filename(results, "mutants.json", NULL);
	const char *path = file ? file : g_file_test(dflt, G_FILE_TEST_IS_REGULAR) ? dflt : NULL;

	if (path)
		r->mutants = mutants_load(path, err);
	g_free(dflt);
	return path && !r->mutants ? -1 : 0;
}

static int build_report(struct report *r, const struct opts *o)
{
	char *cache = cache_dir(o->cache);
	char *results = cache_results_dir(cache, o->results);
	char *top = cache_project_top();
	GError *err = NULL;
	int rc = 0;

	r->run = run_load(results, &err);
	r->cache = g_strdup(cache);
	if (r->run && o->against) {
		r->trend = trend_compute(r->run, o->against, o->share / 100.0, &err);
		if (!r->trend)
			rc = -1;
	}
	if (!r->run)
		rc = -1;
	if (!rc)
		rc = load_mutants(r, o->mutants, results, &err);
	if (rc)
		fprintf(stderr, "kmatrix report: %s\n", err ? err->message : "failed");
	else
		r->drift = drift_compute(top, cache, r->run);
	if (r->run)
		report_tally(r);
	g_clear_error(&err);
	g_free(cache);
	g_free(results);
	g_free(top);
	return rc;
}

static void report_free(struct report *r)
{
	run_free(r->run);
	trend_free(r->trend);
	mutants_free(r->mutants);
	if (r->drift)
		g_ptr_array_free(r->drift, TRUE);
	g_free(r->cache);
}

int cmd_report(int argc, char **argv)
{
	struct opts o = { 0 };
	struct report r = { 0 };
	char *link_from;
	GString *out;
	int rc = 2;

	if (!parse_opts(argc, argv, &o, &rc)) {
		opts_free(&o);
		return rc;
	}
	r.origin = o.origin;
	r.log_base = o.log_base;
	link_from = o.output ? g_path_get_dirname(o.output) : g_get_current_dir();
	r.link_from = link_from;
	if (build_report(&r, &o) == 0) {
		out = g_string_new(NULL);
		renderer(o.format)(out, &r);
		rc = write_out(o.output, out) ? 2 : 0;
		/* the release manager's gate, the same as kmatrix status's */
		if (!rc && !strcmp(o.format, "summary"))
			rc = report_gate_status(&r);
		g_string_free(out, TRUE);
	}
	report_free(&r);
	opts_free(&o);
	g_free(link_from);
	return rc;
}
