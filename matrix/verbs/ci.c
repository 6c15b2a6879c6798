// SPDX-License-Identifier: GPL-2.0
/*
 * kmatrix ci gitlab|github: a pipeline definition that runs the matrix as
 * N shards on the CI's own job matrix, then merges their results and
 * writes the report.  Both definitions are built as JSON values from the
 * same commands and written as YAML (block style; strings that YAML could
 * read as something else are JSON-quoted, which YAML reads alike).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "verbs.h"

struct ci {
	int shards;
	char *image;		/* container image the jobs run in */
	char *runner;		/* GitHub runs-on */
	char *run_args;		/* restricts the matrix: --versions, --arches, --steps */
	const char *system;
};

/* A bare Debian image lacks make and git; setup-host brings the rest. */
static const char *const bootstrap_cmd =
	"command -v make >/dev/null && command -v git >/dev/null || { apt-get update -q && apt-get install -y -q make git; }";

/*
 * What every shard job runs, on either system.  The last merged results
 * balance the shards and give back every cell whose key still matches, so
 * an unchanged matrix builds nothing.  kmatrix keeps its results out of
 * the project's work tree: they are written under the cache and copied
 * into the job's artifacts.  Exit 1 only says some cell departed: the
 * final job reports it.
 */
static json_t *shard_cmds(const struct ci *ci)
{
	return json_pack("[s, s+++, s, s]", "make setup all",
		"rc=0; build/kmatrix run --shard \"${KMATRIX_SHARD}/${KMATRIX_SHARDS}\""
		" --timings kmatrix-timings --reuse kmatrix-timings --results \"$KMATRIX_CACHE/results\"",
		ci->run_args ? " " : "", ci->run_args ? ci->run_args : "", " || rc=$?",
		"rm -rf kmatrix-results && mkdir -p \"kmatrix-results/shard-${KMATRIX_SHARD}\" \"$KMATRIX_CACHE/results\"",
		"cp -r \"$KMATRIX_CACHE/results/.\" \"kmatrix-results/shard-${KMATRIX_SHARD}/\"");
}

static const char *const shard_verdict_cmd = "[ \"$rc\" -le 1 ]";

/* The final job needs kmatrix alone: no arch's packages, no guest's. */
static const char *const report_cmds[] = {
	"tools/setup-host --base && make build/kmatrix",
	"rm -rf kmatrix-merged kmatrix-report && build/kmatrix merge -o kmatrix-merged kmatrix-results/*",
	"mkdir -p kmatrix-report",
	"build/kmatrix report --results kmatrix-merged --format md -o kmatrix-report/report.md",
	"build/kmatrix report --results kmatrix-merged --format html -o kmatrix-report/report.html",
	"build/kmatrix report --results kmatrix-merged --format junit -o kmatrix-report/junit.xml",
	"build/kmatrix report --results kmatrix-merged --format json -o kmatrix-report/report.json",
	/* for KernelCI's kcidb-submit; the origin is the pipeline's to choose */
	"build/kmatrix report --results kmatrix-merged --format kcidb -o kmatrix-report/kcidb.json",
	/* the release manager's page; blocked (1) and incomplete (3) are the verdict job's to report */
	"build/kmatrix report --results kmatrix-merged --format summary -o kmatrix-report/summary.txt || [ $? -ne 2 ]",
	/* the next pipeline's shards balance by these timings */
	"rm -rf kmatrix-timings && cp -r kmatrix-merged kmatrix-timings",
	NULL
};

/* The job's verdict: every cell of the (selected) matrix met its expectation. */
static json_t *verdict_cmd(const struct ci *ci)
{
	return json_sprintf("build/kmatrix status --results kmatrix-merged%s%s",
			    ci->run_args ? " " : "", ci->run_args ? ci->run_args : "");
}

static json_t *cmds(const char *const *list, const char *last)
{
	json_t *a = json_array();

	for (int i = 0; list[i]; i++)
		json_array_append_new(a, json_string(list[i]));
	if (last)
		json_array_append_new(a, json_string(last));
	return a;
}

static json_t *shard_numbers(const struct ci *ci, bool as_strings)
{
	json_t *a = json_array();

	for (int i = 1; i <= ci->shards; i++)
		json_array_append_new(a, as_strings ? json_sprintf("%d", i) : json_integer(i));
	return a;
}

static json_t *gl_cache(const char *key, json_t *paths, const char *policy)
{
	json_t *c = json_pack("{s:s, s:o}", "key", key, "paths", paths);

	if (policy)
		json_object_set_new(c, "policy", json_string(policy));
	return c;
}

/*
 * GitLab caches only paths inside the project directory, where kmatrix
 * refuses its cache (kernel trees do not belong in the project's work
 * tree).  The cached .kmatrix-cache is moved beside the project for the
 * run (a rename: same file system; the job starts in the project directory) and back for GitLab to save; the name
 * is the job's own, as a shell executor runs the shards side by side.
 */
static const char *const gitlab_cache_in_cmd =
	"export KMATRIX_CACHE=\"$PWD.kmatrix-cache\" && rm -rf \"$KMATRIX_CACHE\" && "
	"mkdir -p .kmatrix-cache && mv .kmatrix-cache \"$KMATRIX_CACHE\"";
static const char *const gitlab_cache_out_cmd = "mv \"$KMATRIX_CACHE\" .kmatrix-cache";

static json_t *gitlab_shard_job(const struct ci *ci)
{
	json_t *script = shard_cmds(ci);
	json_t *paths = json_pack("[s, s, s, s]", ".kmatrix-cache/ccache", ".kmatrix-cache/trees",
				  ".kmatrix-cache/guest-debs", ".kmatrix-cache/abi");

	json_array_insert_new(script, 0, json_string(bootstrap_cmd));
	json_array_insert_new(script, 1, json_string(gitlab_cache_in_cmd));
	json_array_append_new(script, json_string(gitlab_cache_out_cmd));
	json_array_append_new(script, json_string(shard_verdict_cmd));
	return json_pack("{s:s, s:{s:[{s:o}]}, s:[o, o], s:o, s:{s:s, s:[s], s:s}}",
		"stage", "shard",
		"parallel", "matrix", "KMATRIX_SHARD", shard_numbers(ci, true),
		"cache", gl_cache("kmatrix-shard-$KMATRIX_SHARD-of-$KMATRIX_SHARDS", paths, NULL),
		gl_cache("kmatrix-timings", json_pack("[s]", "kmatrix-timings/"), "pull"),
		"script", script,
		"artifacts", "when", "always", "paths", "kmatrix-results/", "expire_in", "1 week");
}

static json_t *gitlab_report_job(const struct ci *ci)
{
	json_t *script = cmds(report_cmds, NULL);

	json_t *timings = gl_cache("kmatrix-timings", json_pack("[s]", "kmatrix-timings/"), "push");

	/* saved even when some cell departed and the last command failed */
	json_object_set_new(timings, "when", json_string("always"));
	json_array_insert_new(script, 0, json_string(bootstrap_cmd));
	json_array_append_new(script, verdict_cmd(ci));
	return json_pack("{s:s, s:[o], s:o, s:{s:s, s:[s, s], s:s, s:{s:s}}}",
		"stage", "report",
		"cache", timings,
		"script", script,
		"artifacts", "when", "always", "paths", "kmatrix-report/", "kmatrix-merged/",
		"expire_in", "1 month", "reports", "junit", "kmatrix-report/junit.xml");
}

static json_t *gitlab_doc(const struct ci *ci)
{
	json_t *doc = json_object();

	if (ci->image)
		json_object_set_new(doc, "default", json_pack("{s:s}", "image", ci->image));
	json_object_set_new(doc, "stages", json_pack("[s, s]", "shard", "report"));
	json_object_set_new(doc, "variables", json_pack("{s:o}",
		"KMATRIX_SHARDS", json_sprintf("%d", ci->shards)));
	json_object_set_new(doc, "kmatrix-shard", gitlab_shard_job(ci));
	json_object_set_new(doc, "kmatrix-report", gitlab_report_job(ci));
	return doc;
}

static json_t *gh_run(const char *name, json_t *script)
{
	json_t *step = json_pack("{s:s}", "name", name);
	GString *text = g_string_new(NULL);
	json_t *v;
	size_t i;

	/* one shell per step: a failing command fails the step */
	json_array_foreach(script, i, v)
		g_string_append_printf(text, "%s\n", json_string_value(v));
	json_object_set_new(step, "run", json_string(text->str));
	g_string_free(text, TRUE);
	json_decref(script);
	return step;
}

static json_t *gh_uses(const char *name, const char *action, json_t *with)
{
	json_t *step = json_pack("{s:s, s:s}", "name", name, "uses", action);

	if (with)
		json_object_set_new(step, "with", with);
	return step;
}

static json_t *gh_job_base(const struct ci *ci, json_t **steps)
{
	json_t *job = json_pack("{s:s}", "runs-on", ci->runner);

	if (ci->image)
		json_object_set_new(job, "container", json_pack("{s:s}", "image", ci->image));
	*steps = json_array();
	/* git first: without it actions/checkout leaves no repository */
	json_array_append_new(*steps, gh_run("Tools to check out and build",
					     json_pack("[s]", bootstrap_cmd)));
	json_array_append_new(*steps, gh_uses("Check out", "actions/checkout@v4", NULL));
	return job;
}

static json_t *gh_shard_job(const struct ci *ci)
{
	json_t *script, *steps, *job = gh_job_base(ci, &steps);
	char *key = g_strdup_printf("kmatrix-shard-${{ matrix.shard }}-of-%d-", ci->shards);

	json_object_set_new(job, "strategy", json_pack("{s:b, s:{s:o}}", "fail-fast", 0,
		"matrix", "shard", shard_numbers(ci, false)));
	json_object_set_new(job, "env", json_pack("{s:s, s:i, s:s}",
		"KMATRIX_SHARD", "${{ matrix.shard }}", "KMATRIX_SHARDS", ci->shards,
		"KMATRIX_CACHE", "/var/cache/kmatrix"));
	json_array_append_new(steps, gh_uses("ccache and laid trees", "actions/cache@v4",
		json_pack("{s:s, s:s+, s:s}", "path",
			  "/var/cache/kmatrix/ccache\n/var/cache/kmatrix/trees\n/var/cache/kmatrix/guest-debs\n"
			  "/var/cache/kmatrix/abi\n",
			  "key", key, "${{ github.run_id }}", "restore-keys", key)));
	json_array_append_new(steps, gh_uses("Timings of the last merged run", "actions/cache/restore@v4",
		json_pack("{s:s, s:s, s:s}", "path", "kmatrix-timings",
			  "key", "kmatrix-timings-${{ github.run_id }}", "restore-keys", "kmatrix-timings-")));
	script = shard_cmds(ci);
	json_array_append_new(script, json_string(shard_verdict_cmd));
	json_array_append_new(steps, gh_run("Run the shard", script));
	json_array_append_new(steps, json_pack("{s:s, s:s, s:s, s:{s:s, s:s}}", "name", "Results",
		"if", "always()", "uses", "actions/upload-artifact@v4",
		"with", "name", "kmatrix-shard-${{ matrix.shard }}",
		"path", "kmatrix-results/shard-${{ matrix.shard }}"));
	json_object_set_new(job, "steps", steps);
	g_free(key);
	return job;
}

static json_t *gh_report_job(const struct ci *ci)
{
	json_t *steps, *job = gh_job_base(ci, &steps);

	json_object_set_new(job, "needs", json_string("shard"));
	json_object_set_new(job, "if", json_string("always()"));
	json_array_append_new(steps, gh_uses("Shard results", "actions/download-artifact@v4",
		json_pack("{s:s, s:s}", "pattern", "kmatrix-shard-*", "path", "kmatrix-results")));
	json_array_append_new(steps, gh_run("Merge and report", cmds(report_cmds, NULL)));
	json_array_append_new(steps, gh_uses("Keep the timings", "actions/cache/save@v4",
		json_pack("{s:s, s:s}", "path", "kmatrix-timings",
			  "key", "kmatrix-timings-${{ github.run_id }}")));
	json_array_append_new(steps, json_pack("{s:s, s:s, s:s, s:{s:s, s:s}}", "name", "Report",
		"if", "always()", "uses", "actions/upload-artifact@v4",
		"with", "name", "kmatrix-report", "path", "kmatrix-report\nkmatrix-merged\n"));
	json_array_append_new(steps, gh_run("Every cell met its expectation",
					    json_pack("[o]", verdict_cmd(ci))));
	json_object_set_new(job, "steps", steps);
	return job;
}

static json_t *github_doc(const struct ci *ci)
{
	return json_pack("{s:s, s:{s:{}, s:{s:[s]}}, s:{s:o, s:o}}", "name", "kmatrix",
			 "on", "workflow_dispatch", "push", "branches", "main",
			 "jobs", "shard", gh_shard_job(ci), "report", gh_report_job(ci));
}

/* A string YAML reads back as this same string without quotes. */
static bool yaml_plain(const char *s)
{
	static const char *const words[] = { "y", "n", "yes", "no", "on", "off", "true",
					     "false", "null", NULL };

	if (!g_ascii_isalpha(*s) && *s != '_' && *s != '/' && *s != '.')
		return false;
	for (const char *p = s; *p; p++)
		if (!g_ascii_isalnum(*p) && !strchr("_./-", *p))
			return false;
	for (int i = 0; words[i]; i++)
		if (!g_ascii_strcasecmp(s, words[i]))
			return false;
	return true;
}

static void yaml_scalar(GString *o, json_t *v)
{
	char *text;

	if (json_is_string(v) && yaml_plain(json_string_value(v))) {
		g_string_append(o, json_string_value(v));
		return;
	}
	/* JSON's quoting is YAML's double-quoted style; {} and [] are flow style */
	text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	g_string_append(o, text);
	free(text);
}

/* Lines ending in a newline, none empty or indented: a literal block. */
static bool yaml_literal(json_t *v)
{
	const char *s = json_string_value(v);

	return s && g_str_has_suffix(s, "\n") && !strstr(s, "\n\n") &&
	       !strstr(s, "\n ") && !strstr(s, "\n\t") && *s != ' ' && *s != '\t';
}

static void yaml_literal_lines(GString *o, const char *s, int ind)
{
	char **lines = g_strsplit(s, "\n", -1);

	g_string_append(o, "|\n");
	for (int i = 0; lines[i] && lines[i + 1]; i++)
		g_string_append_printf(o, "%*s%s\n", ind, "", lines[i]);
	g_strfreev(lines);
}

static bool yaml_block(json_t *v)
{
	return (json_is_object(v) && json_object_size(v)) ||
	       (json_is_array(v) && json_array_size(v));
}

static void yaml_items(GString *o, json_t *a, int ind);

static void yaml_entries(GString *o, json_t *obj, int ind, bool inline_first)
{
	const char *k;
	json_t *v;
	bool first = true;

	json_object_foreach(obj, k, v) {
		json_t *key = json_string(k);

		if (!first || !inline_first)
			g_string_append_printf(o, "%*s", ind, "");
		first = false;
		yaml_scalar(o, key);
		json_decref(key);
		g_string_append_c(o, ':');
		if (json_is_object(v) && yaml_block(v)) {
			g_string_append_c(o, '\n');
			yaml_entries(o, v, ind + 2, false);
		} else if (yaml_block(v)) {
			g_string_append_c(o, '\n');
			yaml_items(o, v, ind + 2);
		} else if (yaml_literal(v)) {
			g_string_append_c(o, ' ');
			yaml_literal_lines(o, json_string_value(v), ind + 2);
		} else {
			g_string_append_c(o, ' ');
			yaml_scalar(o, v);
			g_string_append_c(o, '\n');
		}
	}
}

static void yaml_items(GString *o, json_t *a, int ind)
{
	json_t *v;
	size_t i;

	json_array_foreach(a, i, v) {
		g_string_append_printf(o, "%*s- ", ind, "");
		if (json_is_object(v) && yaml_block(v)) {
			yaml_entries(o, v, ind + 2, true);
		} else {
			yaml_scalar(o, v);
			g_string_append_c(o, '\n');
		}
	}
}

/*
 * --run-args selects cells: the shards run them and the verdict judges
 * them alone.  Words go into a shell command line as they are, so only
 * option characters are taken: no quoting is needed and none is lost.
 */
static bool run_args_ok(const char *a)
{
	static const char *const opts[] = { "--versions", "--arches", "--steps", NULL };
	g_auto(GStrv) w = g_strsplit_set(a, " ", -1);
	bool value = false, any = false;

	for (const char *p = a; *p; p++)
		if (!g_ascii_isalnum(*p) && !strchr(" ,._=-", *p))
			return false;
	for (int i = 0; w[i]; i++) {
		bool opt = false;

		if (!*w[i])
			continue;
		if (value) {
			value = false;
			continue;
		}
		for (int o = 0; opts[o]; o++) {
			size_t n = strlen(opts[o]);

			if (!strncmp(w[i], opts[o], n) && (w[i][n] == '=' || !w[i][n])) {
				opt = true;
				value = !w[i][n];
			}
		}
		if (!opt)
			return false;
		any = true;
	}
	return any && !value;
}

int cmd_ci(int argc, char **argv)
{
	struct ci ci = { .shards = 4 };
	char *out = NULL;
	GOptionEntry entries[] = {
		{ "shards", 0, 0, G_OPTION_ARG_INT, &ci.shards,
		  "Number of shard jobs (default 4)", "N" },
		{ "image", 0, 0, G_OPTION_ARG_STRING, &ci.image,
		  "Container image of the jobs (default debian:bookworm)", "IMAGE" },
		{ "runs-on", 0, 0, G_OPTION_ARG_STRING, &ci.runner,
		  "GitHub runner label (default ubuntu-latest)", "LABEL" },
		{ "run-args", 0, 0, G_OPTION_ARG_STRING, &ci.run_args,
		  "Run and judge only these cells: --versions, --arches and --steps for every "
		  "shard's kmatrix run and the verdict, e.g. \"--versions 5.10 --arches x86_64\"",
		  "ARGS" },
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "Write here (default: stdout)", "FILE" },
		{ NULL }
	};
	json_t *doc;
	GString *text;
	GError *err = NULL;
	int rc = 0;

	if (!verb_parse("ci", "gitlab|github",
		       "Write a pipeline that runs the matrix as N shards on the CI's job matrix\n"
		       "(kmatrix run --shard I/N), then merges the shards and writes the report.\n"
		       "gitlab: a child pipeline (parallel:matrix); github: a workflow (strategy.matrix).",
		       entries, &argc, &argv, &rc))
		return rc;
	if (argc != 2 || (strcmp(argv[1], "gitlab") && strcmp(argv[1], "github")) ||
	    ci.shards < 1 || ci.shards > 200) {
		g_printerr("kmatrix ci: takes gitlab or github and 1 <= --shards <= 200\n");
		return 2;
	}
	if (ci.run_args && !run_args_ok(ci.run_args)) {
		g_printerr("kmatrix ci: --run-args '%s': takes --versions, --arches and --steps with "
			   "their lists (letters, digits and ,._-), as kmatrix run and status do\n",
			   ci.run_args);
		g_free(ci.run_args);
		return 2;
	}
	ci.system = argv[1];
	if (!ci.image)
		ci.image = g_strdup("debian:bookworm");
	if (!ci.runner)
		ci.runner = g_strdup("ubuntu-latest");
	doc = !strcmp(ci.system, "gitlab") ? gitlab_doc(&ci) : github_doc(&ci);
	text = g_string_new(NULL);
	g_string_append_printf(text, "# Written by kmatrix ci %s --shards %d%s%s%s: write it again rather than edit it.\n",
			       ci.system, ci.shards, ci.run_args ? " --run-args '" : "",
			       ci.run_args ? ci.run_args : "", ci.run_args ? "'" : "");
	yaml_entries(text, doc, 0, false);
	if (!out)
		fputs(text->str, stdout);
	else if (!g_file_set_contents(out, text->str, text->len, &err)) {
		g_printerr("kmatrix ci: %s\n", err->message);
		g_error_free(err);
		rc = 2;
	}
	json_decref(doc);
	g_string_free(text, TRUE);
	g_free(ci.image);
	g_free(ci.runner);
	g_free(ci.run_args);
	g_free(out);
	return rc;
}
