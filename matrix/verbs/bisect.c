// SPDX-License-Identifier: GPL-2.0
/*
 * kmatrix bisect VERSION ARCH [TEST]: git bisect run over the version's
 * steps, with kmatrix itself (verb bisect-step) judging the checked-out
 * commit as one cell.  Cached cells are reused, so a bisect after a run
 * costs nothing but the lookups.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "plan.h"
#include "result.h"
#include "run.h"
#include "tree.h"
#include "verbs.h"

#define BISECT_SKIP 125

struct bisect_opts {
	struct plan_opts o;
	char *version, *arch, *test;
	char *jobs;
};

/* What the option parser allocated (versions and arches point into argv). */
static void bisect_opts_clear(struct bisect_opts *b)
{
	g_free(b->o.cache);
	g_free(b->o.results);
	g_free(b->o.matrix);
	g_free(b->o.distcc);
	g_free(b->jobs);
}

/* The options and arguments of both verbs: FALSE when done, with *@rc. */
static bool parse(const char *verb, struct bisect_opts *b, int *argc, char ***argv, int *rc)
{
	GOptionEntry entries[] = {
		{ "cache", 0, 0, G_OPTION_ARG_FILENAME, &b->o.cache, "Cache directory", "DIR" },
		{ "results", 0, 0, G_OPTION_ARG_FILENAME, &b->o.results, "Results directory", "DIR" },
		{ "matrix", 0, 0, G_OPTION_ARG_FILENAME, &b->o.matrix, "Matrix definition", "FILE" },
		{ "distcc", 0, 0, G_OPTION_ARG_STRING, &b->o.distcc,
		  "Compile through distcc on HOSTS (default: $KMATRIX_DISTCC_HOSTS)", "HOSTS" },
		{ "jobs", 'j', 0, G_OPTION_ARG_STRING, &b->jobs,
		  "Run N compile jobs at once (make -jN; default: the CPUs)", "N" },
		{ NULL }
	};
	GError *err = NULL;

	if (!verb_parse(verb, "VERSION ARCH [TEST]",
		       "Find the first step of VERSION on ARCH whose result departs from its\n"
		       "expectation (only TEST's result, when given), with git bisect run.",
		       entries, argc, argv, rc)) {
		bisect_opts_clear(b);
		return false;
	}
	if (*argc < 3 || *argc > 4) {
		g_printerr("kmatrix %s: expected VERSION ARCH [TEST] (see --help)\n", verb);
		*rc = 2;
		bisect_opts_clear(b);
		return false;
	}
	if (!verb_jobs(b->jobs, &b->o.jobs, &err)) {
		g_printerr("kmatrix %s: %s\n", verb, err->message);
		g_error_free(err);
		*rc = 2;
		bisect_opts_clear(b);
		return false;
	}
	b->version = (*argv)[1];
	b->arch = (*argv)[2];
	b->test = *argc == 4 ? (*argv)[3] : NULL;
	b->o.versions = b->version;
	b->o.arches = b->arch;
	return true;
}

/* 0 met, 1 departed, BISECT_SKIP cannot tell. */
static int judge_result(json_t *r, const char *test)
{
	const char *verdict = json_string_value(json_object_get(r, "verdict"));
	json_t *t;
	size_t i;

	if (!strcmp(verdict, "setup-error") || !strcmp(verdict, "infra-error"))
		return BISECT_SKIP;
	if (test)
		json_array_foreach(json_object_get(r, "tests"), i, t)
			if (!strcmp(json_string_value(json_object_get(t, "name")), test))
				return json_is_true(json_object_get(t, "met")) ? 0 : 1;
	return json_is_true(json_object_get(r, "met")) ? 0 : 1;
}

static struct cell *cell_at(struct plan *p, const char *commit)
{
	for (guint i = 0; i < p->cells->len; i++) {
		struct cell *c = p->cells->pdata[i];

		if (c->step->commit && !strcmp(c->step->commit, commit))
			return c;
	}
	return NULL;
}

/*
 * The plan of the one version and arch both verbs work on, with signals
 * handled as a run handles them.  On an error, says why and closes it.
 */
static int open_plan(struct bisect_opts *b, struct plan *p)
{
	GError *err = NULL;
	int rc;

	run_signals_install();
	rc = plan_open(p, &b->o, &err);
	if (!rc)
		rc = plan_cells(p);
	if (rc) {
		if (err)
			g_printerr("kmatrix: %s\n", err->message);
		g_clear_error(&err);
		plan_close(p);
	}
	return rc;
}

int cmd_bisect_step(int argc, char **argv)
{
	struct bisect_opts b = { 0 };
	struct plan p;
	struct cell *c;
	char *head;
	int rc;

	if (!parse("bisect-step", &b, &argc, &argv, &rc))
		return rc;
	rc = open_plan(&b, &p);
	if (rc) {
		bisect_opts_clear(&b);
		return rc == 2 ? 255 : rc;
	}
	head = tree_git(((struct version_run *)p.vruns->pdata[0])->tree, "rev-parse", "HEAD", NULL);
	c = head ? cell_at(&p, head) : NULL;
	if (!c) {
		g_printerr("kmatrix: HEAD %s is not a step of %s\n", head, b.version);
		rc = BISECT_SKIP;
	} else {
		g_ptr_array_set_size(p.cells, 0);
		g_ptr_array_add(p.cells, c);
		p.keep_checkout = true;
		rc = pipeline_run(&p);
		rc = rc >= 128 ? rc : judge_result(c->result, b.test);
	}
	g_free(head);
	plan_close(&p);
	bisect_opts_clear(&b);
	/* git bisect run stops on codes above 127: usage errors must stop it too. */
	return rc == 2 ? 255 : rc;
}

static char **self_argv(const struct bisect_opts *b, const char *verb)
{
	GPtrArray *a = g_ptr_array_new();
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = '\0';
	g_ptr_array_add(a, g_strdup(exe));
	g_ptr_array_add(a, g_strdup(verb));
	if (b->o.cache)
		g_ptr_array_add(a, g_strdup_printf("--cache=%s", b->o.cache));
	if (b->o.results)
		g_ptr_array_add(a, g_strdup_printf("--results=%s", b->o.results));
	if (b->o.matrix)
		g_ptr_array_add(a, g_strdup_printf("--matrix=%s", b->o.matrix));
	if (b->o.distcc)
		g_ptr_array_add(a, g_strdup_printf("--distcc=%s", b->o.distcc));
	if (b->o.jobs)
		g_ptr_array_add(a, g_strdup_printf("--jobs=%u", b->o.jobs));
	g_ptr_array_add(a, g_strdup(b->version));
	g_ptr_array_add(a, g_strdup(b->arch));
	if (b->test)
		g_ptr_array_add(a, g_strdup(b->test));
	g_ptr_array_add(a, NULL);
	return (char **)g_ptr_array_free(a, FALSE);
}

/* Run git with our own bisect-step as the judge; its output goes to the terminal. */
static int git(const char *tree, char **env, char **args)
{
	GPtrArray *a = g_ptr_array_new();
	struct child c = { .cwd = tree, .env = env, .log = "/dev/stderr" };
	int rc;

	g_ptr_array_add(a, "git");
	for (int i = 0; args[i]; i++)
		g_ptr_array_add(a, args[i]);
	g_ptr_array_add(a, NULL);
	c.argv = (char **)a->pdata;
	rc = run_command(&c);
	g_ptr_array_free(a, TRUE);
	return rc;
}

static int judge_commit(const char *tree, char **env, const struct bisect_opts *b,
			const char *commit)
{
	char *co[] = { "checkout", "-q", "-f", "--detach", (char *)commit, NULL };
	char **self = self_argv(b, "bisect-step");
	struct child c = { .argv = self, .env = env, .log = "/dev/stderr" };
	int rc = git(tree, env, co);

	if (rc == 0)
		rc = run_command(&c);
	g_strfreev(self);
	return rc;
}

static void print_departure(struct plan *p, const struct bisect_opts *b,
			    const struct step *s)
{
	char *path = result_path(p->results, b->version, b->arch, s->id, ".json");
	char *why = NULL;
	json_t *r = result_read(path, NULL, NULL, NULL, &why);
	json_t *e;
	size_t i;

	printf("first departing step: %s (%.12s %s)\n", s->id, s->commit, s->subject);
	if (r) {
		printf("  %s: %s\n", json_string_value(json_object_get(r, "verdict")),
		       json_string_value(json_object_get(r, "summary")));
		json_array_foreach(json_object_get(r, "evidence"), i, e)
			if (i < 20)
				printf("    %s\n", json_string_value(e));
		json_decref(r);
	}
	g_free(why);
	g_free(path);
}

static const struct step *step_of(struct version_run *vr, const char *commit)
{
	for (guint i = 0; i < vr->steps->len; i++) {
		const struct step *s = vr->steps->pdata[i];

		if (s->commit && !strcmp(s->commit, commit))
			return s;
	}
	return NULL;
}

static int run_bisect(struct plan *p, struct version_run *vr, const struct bisect_opts *b,
		      const struct step *first, const struct step *last)
{
	char pid[32];
	char **env = g_get_environ();
	char **self = self_argv(b, "bisect-step");
	GPtrArray *args = g_ptr_array_new();
	char *start[] = { "bisect", "start", last->commit, first->commit, NULL };
	/* HEAD stays at the commit judged last: its files are the ones built. */
	char *reset[] = { "bisect", "reset", "HEAD", NULL };
	char *bad = NULL;
	int rc;

	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	env = g_environ_setenv(env, "KMATRIX_LOCK_HELD", pid, TRUE);
	rc = judge_commit(vr->tree, env, b, last->commit);
	if (rc == 0) {
		printf("step %s meets its expectation: no departure to bisect\n", last->id);
	} else if (rc == 1 && (rc = judge_commit(vr->tree, env, b, first->commit)) == 1) {
		print_departure(p, b, first);
	} else if (rc == 0) {
		g_ptr_array_add(args, "bisect");
		g_ptr_array_add(args, "run");
		for (int i = 0; self[i]; i++)
			g_ptr_array_add(args, self[i]);
		g_ptr_array_add(args, NULL);
		rc = git(vr->tree, env, start) || git(vr->tree, env, (char **)args->pdata) ? 2 : 1;
		bad = tree_git(vr->tree, "rev-parse", "-q", "--verify", "refs/bisect/bad", NULL);
		if (rc == 1 && bad && step_of(vr, bad))
			print_departure(p, b, step_of(vr, bad));
		git(vr->tree, env, reset);
	} else {
		g_printerr("kmatrix: cannot judge the end points of %s (exit %d)\n", vr->v->name, rc);
		rc = 2;
	}
	tree_release(vr->tree);
	g_free(bad);
	g_ptr_array_free(args, TRUE);
	g_strfreev(self);
	g_strfreev(env);
	return rc;
}

int cmd_bisect(int argc, char **argv)
{
	struct bisect_opts b = { 0 };
	struct plan p;
	struct version_run *vr;
	const struct step *last = NULL;
	int rc;

	if (!parse("bisect", &b, &argc, &argv, &rc))
		return rc;
	rc = open_plan(&b, &p);
	if (rc) {
		bisect_opts_clear(&b);
		return rc;
	}
	vr = p.vruns->pdata[0];
	for (guint i = 0; !vr->setup_error && i < vr->steps->len; i++)
		if (((struct step *)vr->steps->pdata[i])->commit)
			last = vr->steps->pdata[i];
	if (vr->setup_error || !last || last == vr->steps->pdata[0]) {
		g_printerr("kmatrix: %s has no steps to bisect%s%s\n", b.version,
			   vr->setup_msg ? ": " : "", vr->setup_msg ? vr->setup_msg : "");
		rc = 2;
	} else {
		rc = run_bisect(&p, vr, &b, vr->steps->pdata[0], last);
	}
	plan_close(&p);
	bisect_opts_clear(&b);
	return rc;
}
