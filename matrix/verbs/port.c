// SPDX-License-Identifier: GPL-2.0
/*
 * kmatrix port <version>: try the series on a version that has no backport
 * yet.  In a worktree of the cache's tree (branch port/<v>, so the laid
 * checkout and its build mtimes are untouched) the baseline and then each
 * patch goes in with git am -3; each is reported as applied cleanly, with
 * a 3-way merge, or in conflict (files and hunks).  What applied becomes a
 * draft backports/<v>/ (patches with Canonical-patch: trailers, an order
 * file); what did not is listed in its PORTING file, which keeps the
 * matrix from running the draft until a person has finished it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apply.h"
#include "cache.h"
#include "conf.h"
#include "plan.h"
#include "run.h"
#include "tree.h"
#include "verbs.h"

enum outcome_kind { PORT_CLEAN, PORT_3WAY, PORT_CONFLICT, PORT_NOT_TRIED };
static const char *const kind_names[] = { "clean", "3-way", "conflict", "not tried" };

struct port_patch {
	char *what;		/* "baseline" or the step id */
	char *file;		/* the patch tried */
	char *subject;
	enum outcome_kind kind;
	char *files;		/* conflicting files, space-separated */
	char *conflict;		/* git diff of the conflict */
	char *commit;		/* in the worktree, when applied */
};

struct port {
	struct plan p;
	const struct version_conf *v;
	char *work, *branch, *from;
	char *outdir;		/* where the draft goes: backports/<v> or --output */
	char *stage;		/* where the sandboxed child writes it, in the cache */
	GPtrArray *patches;	/* struct port_patch * */
	int conflicts;
};

#define GIT_ID "git", "-c", "user.name=kmatrix", "-c", "user.email=kmatrix@invalid", \
	"-c", "commit.gpgsign=false"

static int git_run(const char *dir, const char *log, char **argv)
{
	struct child c = { .argv = argv, .cwd = dir, .log = log };

	return run_command(&c);
}

static char *git_out(const char *dir, char **argv)
{
	char *s = run_capture(argv, dir, NULL);

	return s ? g_strchomp(s) : NULL;
}

static void patch_free(struct port_patch *pp)
{
	g_free(pp->what);
	g_free(pp->file);
	g_free(pp->subject);
	g_free(pp->files);
	g_free(pp->conflict);
	g_free(pp->commit);
	g_free(pp);
}

/* The Subject: header, unfolded, without its [PATCH] prefix. */
static char *patch_subject(const char *file)
{
	GString *s = g_string_new(NULL);
	char *text = NULL, **l, *r;
	bool in = false;

	g_file_get_contents(file, &text, NULL, NULL);
	l = g_strsplit(text ? text : "", "\n", -1);
	for (int i = 0; l[i] && *l[i]; i++) {
		if (in && (*l[i] == ' ' || *l[i] == '\t'))
			g_string_append(s, l[i]);
		else if ((in = g_str_has_prefix(l[i], "Subject: ")))
			g_string_append(s, l[i] + strlen("Subject: "));
	}
	g_strfreev(l);
	g_free(text);
	r = s->str[0] == '[' && strstr(s->str, "] ") ? strstr(s->str, "] ") + 2 : s->str;
	r = g_strdup(r);
	g_string_free(s, TRUE);
	return r;
}

/* git apply's report without the build user's unreadable ~/.config noise. */
static char *hunks_text(char **l)
{
	GString *t = g_string_new(NULL);

	for (int i = 0; l[i]; i++)
		if (!g_str_has_prefix(l[i], "warning: unable to access '"))
			g_string_append_printf(t, "%s\n", l[i]);
	return g_strchomp(g_string_free(t, FALSE));
}

/*
 * No merge base to fall back on (the patch's blobs are not in this tree):
 * git apply names the hunks it could not place and the context it looked for.
 */
static void failed_hunks(struct port *pt, struct port_patch *pp)
{
	char *chk[] = { "git", "apply", "--check", "--verbose", pp->file, NULL };
	char *log = g_build_filename(pt->work, "..", "port-check.log", NULL);
	GString *files = g_string_new(NULL);
	char *text = NULL, **l;

	unlink(log);
	git_run(pt->work, log, chk);
	g_file_get_contents(log, &text, NULL, NULL);
	l = g_strsplit(text ? text : "", "\n", -1);
	for (int i = 0; l[i]; i++) {
		char *f;

		/* "error: FILE: patch does not apply" or "...: No such file or directory" */
		if (!g_str_has_prefix(l[i], "error: ") ||
		    (!g_str_has_suffix(l[i], ": patch does not apply") &&
		     !g_str_has_suffix(l[i], ": No such file or directory")))
			continue;
		f = g_strndup(l[i] + strlen("error: "),
			      strrchr(l[i], ':') - l[i] - strlen("error: "));
		if (!strstr(files->str, f))
			g_string_append_printf(files, "%s%s", files->len ? " " : "", f);
		g_free(f);
	}
	g_free(pp->files);
	pp->files = g_string_free(files, FALSE);
	g_free(pp->conflict);
	pp->conflict = hunks_text(l);
	g_strfreev(l);
	g_free(log);
}

/* git am -3 one patch; on a conflict, record it and leave the tree as it was. */
static struct port_patch *try_patch(struct port *pt, const char *what, const char *file)
{
	struct port_patch *pp = g_new0(struct port_patch, 1);
	char *log = g_build_filename(pt->work, "..", "port-am.log", NULL);
	char *am[] = { GIT_ID, "am", "-3", "--committer-date-is-author-date", (char *)file, NULL };
	char *files[] = { "git", "diff", "--name-only", "--diff-filter=U", NULL };
	char *diff[] = { "git", "diff", NULL };
	char *abort_am[] = { GIT_ID, "am", "--abort", NULL };
	char *text = NULL;

	pp->what = g_strdup(what);
	pp->file = g_strdup(file);
	pp->subject = patch_subject(file);
	unlink(log);
	char *head[] = { "git", "rev-parse", "HEAD", NULL };

	if (git_run(pt->work, log, am) == 0) {
		g_file_get_contents(log, &text, NULL, NULL);
		pp->kind = text && strstr(text, "3-way merge") ? PORT_3WAY : PORT_CLEAN;
		pp->commit = git_out(pt->work, head);
	} else {
		pp->kind = PORT_CONFLICT;
		pp->files = git_out(pt->work, files);
		pp->conflict = git_out(pt->work, diff);
		git_run(pt->work, NULL, abort_am);
		if (!pp->files || !*pp->files)
			failed_hunks(pt, pp);
		pt->conflicts++;
	}
	g_free(text);
	g_free(log);
	g_ptr_array_add(pt->patches, pp);
	return pp;
}

static int version_number(const char *v)
{
	int major = 0, minor = 0;

	sscanf(v, "%d.%d", &major, &minor);
	return major * 1000 + minor;
}

static int by_distance(gconstpointer a, gconstpointer b, gpointer target)
{
	int t = GPOINTER_TO_INT(target);
	int da = abs(version_number((*(struct version_conf *const *)a)->name) - t);
	int db = abs(version_number((*(struct version_conf *const *)b)->name) - t);

	return da - db;
}

/* The version's own baseline, else the other versions', nearest first. */
static GPtrArray *baseline_candidates(struct port *pt)
{
	GPtrArray *c = g_ptr_array_new();

	if (g_file_test(pt->v->baseline, G_FILE_TEST_IS_DIR)) {
		g_ptr_array_add(c, (gpointer)pt->v);
		return c;
	}
	for (guint i = 0; i < pt->p.m->versions->len; i++) {
		const struct version_conf *o = pt->p.m->versions->pdata[i];

		if (o != pt->v && g_file_test(o->baseline, G_FILE_TEST_IS_DIR))
			g_ptr_array_add(c, (gpointer)o);
	}
	g_ptr_array_sort_with_data(c, by_distance,
				   GINT_TO_POINTER(version_number(pt->v->name)));
	return c;
}

static char *baseline_patch(const struct version_conf *v)
{
	GError *err = NULL;
	GPtrArray *steps = apply_plan(v, &err);
	char *patch = NULL;

	if (steps && steps->len > 1)
		patch = g_strdup(((struct step *)steps->pdata[1])->patch);
	if (steps)
		g_ptr_array_free(steps, TRUE);
	g_clear_error(&err);
	return patch;
}

/* Try the baselines until one goes in; FALSE when none did. */
static gboolean port_baseline(struct port *pt)
{
	GPtrArray *c = baseline_candidates(pt);
	gboolean ok = FALSE;

	for (guint i = 0; i < c->len && !ok; i++) {
		const struct version_conf *o = c->pdata[i];
		char *patch = baseline_patch(o);
		char *what = g_strdup_printf("baseline (%s's)", o->name);

		if (patch)
			ok = try_patch(pt, what, patch)->kind != PORT_CONFLICT;
		g_free(what);
		g_free(patch);
	}
	g_ptr_array_free(c, TRUE);
	return ok;
}

/* The series to port: --from <v>'s backport, else the canonical one. */
static GPtrArray *series_steps(struct port *pt, GError **err)
{
	struct version_conf canon = { .name = "canonical", .baseline = pt->v->baseline };
	const struct version_conf *from = &canon;
	GPtrArray *steps;

	canon.series = g_build_filename(pt->p.top, "series", NULL);
	if (pt->from && !(from = conf_version(pt->p.m, pt->from)))
		g_set_error(err, g_quark_from_static_string("kmatrix-port"), 1,
			    "--from %s: no such version in %s", pt->from, pt->p.m->path);
	steps = from ? apply_plan(from, err) : NULL;
	g_free(canon.series);
	return steps;
}

static void port_series(struct port *pt, GPtrArray *steps, gboolean base_ok)
{
	for (guint i = 2; i < steps->len; i++) {
		struct step *s = steps->pdata[i];
		struct port_patch *pp;

		if (base_ok) {
			try_patch(pt, s->id, s->patch);
			continue;
		}
		pp = g_new0(struct port_patch, 1);
		pp->what = g_strdup(s->id);
		pp->file = g_strdup(s->patch);
		pp->subject = patch_subject(s->patch);
		pp->kind = PORT_NOT_TRIED;
		g_ptr_array_add(pt->patches, pp);
	}
}

/* format-patch one applied commit as the draft's @n-th patch of @sub. */
static char *draft_patch(struct port *pt, const struct port_patch *pp, const char *sub, int n)
{
	char *dir = g_build_filename(pt->work, "..", "port-out", sub, NULL);
	char *start = g_strdup_printf("%d", n);
	char *fp[] = { "git", "format-patch", "-1", "--start-number", start,
		       "-o", dir, pp->commit, NULL };
	char *mk[] = { "mkdir", "-p", dir, NULL };
	char *file, *text = NULL;

	/* as the build user, who owns the cache */
	git_run(NULL, NULL, mk);
	file = git_out(pt->work, fp);
	/* the draft says which canonical patch each one ports */
	if (file && strcmp(sub, "baseline") && g_file_get_contents(file, &text, NULL, NULL) &&
	    !strstr(text, "\nCanonical-patch: ")) {
		char *trailer = g_strdup_printf("Canonical-patch: %s", pp->subject);
		char *it[] = { "git", "interpret-trailers", "--in-place", "--trailer", trailer,
			       file, NULL };

		git_run(pt->work, NULL, it);
		g_free(trailer);
	}
	g_free(text);
	g_free(start);
	g_free(dir);
	return file;
}

static gboolean copy_file(const char *from, const char *to_dir)
{
	char *base = g_path_get_basename(from), *to = g_build_filename(to_dir, base, NULL);
	char *text = NULL;
	gsize len;
	gboolean ok = g_file_get_contents(from, &text, &len, NULL) &&
		      g_file_set_contents(to, text, len, NULL);

	g_free(text);
	g_free(to);
	g_free(base);
	return ok;
}

static void porting_text(GString *t, struct port *pt)
{
	g_string_append_printf(t, "Draft backport of %s, written by `kmatrix port %s`%s%s\n"
			       "on %s's stock commit (branch %s of the cache's tree).\n\n",
			       pt->v->name, pt->v->name, pt->from ? " --from " : "",
			       pt->from ? pt->from : "", pt->v->name, pt->branch);
	g_string_append(t, "kmatrix refuses to run this version while this file exists.\n"
			"Port what is listed below, say in each changelog how the backport\n"
			"differs from its Canonical-patch, then delete this file.\n");
	for (guint i = 0; i < pt->patches->len; i++) {
		const struct port_patch *pp = pt->patches->pdata[i];

		if (pp->kind == PORT_CLEAN || pp->kind == PORT_3WAY)
			continue;
		g_string_append_printf(t, "\n## %s: %s (%s)\n\n%s\n", pp->what, pp->subject,
				       kind_names[pp->kind], pp->file);
		if (pp->files && *pp->files)
			g_string_append_printf(t, "Conflicting files: %s\n", pp->files);
		if (pp->conflict && *pp->conflict)
			g_string_append_printf(t, "\n```\n%s\n```\n", pp->conflict);
	}
}

/* backports/<v>/: baseline/, series/ with order, PORTING. */
static int write_draft(struct port *pt)
{
	char *base = g_build_filename(pt->stage, "baseline", NULL);
	char *ser = g_build_filename(pt->stage, "series", NULL);
	char *order = g_build_filename(ser, "order", NULL);
	char *porting = g_build_filename(pt->stage, "PORTING", NULL);
	char *rm[] = { "rm", "-rf", pt->stage, NULL };
	GString *o = g_string_new("# step-id  patch-file  (draft: see ../PORTING)\n");
	GString *t = g_string_new(NULL);
	int n = 0, rc = 0;

	git_run(NULL, NULL, rm);
	g_mkdir_with_parents(base, 0755);
	g_mkdir_with_parents(ser, 0755);
	porting_text(t, pt);
	/* first: a draft cut short must still be one */
	if (!g_file_set_contents(porting, t->str, -1, NULL))
		rc = -1;
	for (guint i = 0; i < pt->patches->len && !rc; i++) {
		const struct port_patch *pp = pt->patches->pdata[i];
		bool is_base = g_str_has_prefix(pp->what, "baseline");
		char *file;

		if (!pp->commit)
			continue;
		file = draft_patch(pt, pp, is_base ? "baseline" : "series", is_base ? 1 : ++n);
		if (!file || !copy_file(file, is_base ? base : ser))
			rc = -1;
		else if (!is_base)
			g_string_append_printf(o, "%s\t%s\n", pp->what, strrchr(file, '/') + 1);
		g_free(file);
	}
	if (!rc && !g_file_set_contents(order, o->str, -1, NULL))
		rc = -1;
	g_string_free(o, TRUE);
	g_string_free(t, TRUE);
	g_free(base);
	g_free(ser);
	g_free(order);
	g_free(porting);
	return rc;
}

static void report_md(GString *out, struct port *pt)
{
	g_string_append_printf(out, "# kmatrix port %s\n\nSeries: %s; tree: branch %s "
			       "of the cache's tree; draft: %s\n\n| step | patch | result | files |\n"
			       "|---|---|---|---|\n", pt->v->name,
			       pt->from ? pt->from : "canonical", pt->branch, pt->outdir);
	for (guint i = 0; i < pt->patches->len; i++) {
		const struct port_patch *pp = pt->patches->pdata[i];

		g_string_append_printf(out, "| %s | %s | %s | %s |\n", pp->what, pp->subject,
				       kind_names[pp->kind], pp->files ? pp->files : "");
	}
	for (guint i = 0; i < pt->patches->len; i++) {
		const struct port_patch *pp = pt->patches->pdata[i];

		if (pp->kind == PORT_CONFLICT)
			g_string_append_printf(out, "\n## %s: %s\n\n```diff\n%s\n```\n", pp->what,
					       pp->subject, pp->conflict ? pp->conflict : "");
	}
}

static json_t *report_json(struct port *pt)
{
	json_t *list = json_array();

	for (guint i = 0; i < pt->patches->len; i++) {
		const struct port_patch *pp = pt->patches->pdata[i];

		json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s, s:s?, s:s?, s:s?}",
			"step", pp->what, "patch", pp->file, "subject", pp->subject,
			"result", kind_names[pp->kind], "files", pp->files,
			"conflict", pp->conflict, "commit", pp->commit));
	}
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:i}", "schema", "kmatrix-port/1",
			 "version", pt->v->name, "series", pt->from ? pt->from : "canonical",
			 "branch", pt->branch, "draft", pt->outdir, "patches", list,
			 "conflicts", pt->conflicts);
}

/* A worktree on stock: the laid checkout (and its build mtimes) stays as it is. */
static gboolean open_worktree(struct port *pt, const char *tree)
{
	char *rm[] = { "git", "worktree", "remove", "--force", pt->work, NULL };
	char *prune[] = { "git", "worktree", "prune", NULL };
	char *add[] = { "git", "worktree", "add", "-q", "-f", "-B", pt->branch, pt->work,
			"stock", NULL };
	char *log = g_strconcat(pt->work, ".log", NULL);
	char *parent = g_path_get_dirname(pt->work);
	char *mk[] = { "mkdir", "-p", parent, NULL };
	char *gone[] = { "rm", "-rf", pt->work, NULL };
	gboolean ok;

	git_run(NULL, NULL, mk);
	g_free(parent);
	git_run(tree, NULL, rm);
	/* a worktree of a tree laid anew is no longer known to it: remove it whole */
	git_run(NULL, NULL, gone);
	git_run(tree, NULL, prune);
	ok = git_run(tree, log, add) == 0;
	if (!ok)
		g_printerr("kmatrix port: cannot add a worktree at %s (see %s)\n", pt->work, log);
	g_free(log);
	return ok;
}

/* Where the draft goes: never over a finished backport. */
static gboolean check_outdir(struct port *pt)
{
	char *porting = g_build_filename(pt->outdir, "PORTING", NULL);
	gboolean finished = g_file_test(pt->outdir, G_FILE_TEST_IS_DIR) &&
			    !g_file_test(porting, G_FILE_TEST_EXISTS);

	g_free(porting);
	if (finished)
		g_printerr("kmatrix port: %s is a finished backport (no PORTING): "
			   "give --output DIR for the draft\n", pt->outdir);
	return !finished;
}

/*
 * The sandboxed work writes the draft in the cache: kmatrix's own file
 * access is the build user's from then on.  The parent, still root, puts
 * it in the project, replacing a previous draft whole.
 */
static int install_draft(struct port *pt)
{
	char *porting = g_build_filename(pt->stage, "PORTING", NULL);
	char *rm[] = { "rm", "-rf", pt->outdir, NULL };
	char *mk[] = { "mkdir", "-p", pt->outdir, NULL };
	char *from = g_strconcat(pt->stage, "/.", NULL);
	char *cp[] = { "cp", "-R", from, pt->outdir, NULL };
	struct child c = { .argv = rm };
	int rc = 0;

	if (g_file_test(porting, G_FILE_TEST_EXISTS)) {
		rc = run_command(&c);
		c.argv = mk;
		rc = rc ? rc : run_command(&c);
		c.argv = cp;
		rc = rc ? rc : run_command(&c);
		if (rc)
			g_printerr("kmatrix port: cannot copy the draft %s to %s\n", pt->stage,
				   pt->outdir);
	}
	g_free(from);
	g_free(porting);
	return rc;
}

static int port_run(struct port *pt, const char *format)
{
	char *tree = tree_dir(pt->p.cache, pt->v->name), *msg = NULL;
	GError *err = NULL;
	GPtrArray *steps;
	GString *out;
	gboolean base_ok;
	int rc = 2;

	if (tree_prepare(pt->p.cache, pt->v, &msg) != TREE_READY) {
		g_printerr("kmatrix port: %s: %s\n", pt->v->name, msg);
	} else if (!(steps = series_steps(pt, &err))) {
		g_printerr("kmatrix port: %s\n", err->message);
	} else {
		if (open_worktree(pt, tree)) {
			base_ok = port_baseline(pt);
			port_series(pt, steps, base_ok);
			rc = write_draft(pt) ? 2 : pt->conflicts || !base_ok ? 1 : 0;
			out = g_string_new(NULL);
			if (!strcmp(format, "json")) {
				json_t *j = report_json(pt);
				char *s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);

				g_string_append_printf(out, "%s\n", s);
				free(s);
				json_decref(j);
			} else {
				report_md(out, pt);
			}
			fputs(out->str, stdout);
			g_string_free(out, TRUE);
		}
		g_ptr_array_free(steps, TRUE);
	}
	g_clear_error(&err);
	g_free(msg);
	g_free(tree);
	return rc;
}

int cmd_port(int argc, char **argv)
{
	char *from = NULL, *format = NULL, *output = NULL, *tree = NULL, *cache = NULL;
	char *matrix = NULL;
	GOptionEntry entries[] = {
		{ "from", 0, 0, G_OPTION_ARG_STRING, &from,
		  "Port version V's backport instead of the canonical series", "V" },
		{ "format", 0, 0, G_OPTION_ARG_STRING, &format, "md (default) or json", "FORMAT" },
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
		  "Write the draft there (default: backports/<version>)", "DIR" },
		{ "tree", 0, 0, G_OPTION_ARG_STRING, &tree,
		  "The version's tree from a git repository, if the matrix has no such version",
		  "V=PATH@REF" },
		{ "cache", 0, 0, G_OPTION_ARG_FILENAME, &cache, "Cache directory", "DIR" },
		{ "matrix", 0, 0, G_OPTION_ARG_FILENAME, &matrix, "Matrix definition", "FILE" },
		{ NULL }
	};
	char *trees[2] = { tree, NULL };
	struct plan_opts o = { 0 };
	struct port pt = { 0 };
	GError *err = NULL;
	char *cache_top, *top;
	int rc = 2, status;
	pid_t pid;

	if (!verb_parse("port", "VERSION",
		       "Try the series on VERSION's baseline with git am -3: per patch, clean,\n"
		       "3-way or conflict; what applied becomes a draft backports/VERSION/.\n"
		       "Exit status: 0 every patch applied, 1 some conflict, 2 usage or set-up error.",
		       entries, &argc, &argv, &rc))
		return rc;
	if (argc != 2 || (format && strcmp(format, "md") && strcmp(format, "json"))) {
		g_printerr("kmatrix port: usage: kmatrix port [--from V] [--format md|json] VERSION\n");
		goto out;
	}
	cache_top = cache_dir(cache);
	top = cache_project_top();
	pt.outdir = output ? g_canonicalize_filename(output, NULL) :
			     g_build_filename(top, "backports", argv[1], NULL);
	pt.stage = g_build_filename(cache_top, "work", "port", argv[1], "draft", NULL);
	g_free(cache_top);
	g_free(top);
	if (!check_outdir(&pt))
		goto out;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		goto out;
	if (pid > 0) {
		rc = waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : 2;
		if (install_draft(&pt))
			rc = 2;
		goto out;
	}
	trees[0] = tree;
	o.trees = tree ? trees : NULL;
	o.versions = argv[1];
	o.cache = cache;
	o.matrix = matrix;
	o.no_boot = TRUE;
	o.no_backport = TRUE;
	o.series = NULL;
	rc = plan_open(&pt.p, &o, &err);
	if (rc) {
		g_printerr("kmatrix port: %s\n", err ? err->message : "cannot open the matrix");
		g_clear_error(&err);
		plan_close(&pt.p);
		fflush(NULL);
		_exit(2);
	}
	pt.v = conf_version(pt.p.m, argv[1]);
	pt.from = from;
	pt.patches = g_ptr_array_new_with_free_func((GDestroyNotify)patch_free);
	pt.work = g_build_filename(pt.p.cache, "work", "port", argv[1], "tree", NULL);
	pt.branch = g_strdup_printf("port/%s", argv[1]);
	rc = port_run(&pt, format ? format : "md");
	g_ptr_array_free(pt.patches, TRUE);
	g_free(pt.work);
	g_free(pt.branch);
	plan_close(&pt.p);
	fflush(NULL);
	_exit(rc);
out:
	/* the parent, and every early exit: the child ends with _exit() above */
	g_free(pt.outdir);
	g_free(pt.stage);
	g_free(from);
	g_free(format);
	g_free(output);
	g_free(tree);
	g_free(cache);
	g_free(matrix);
	return rc;
}
