// SPDX-License-Identifier: GPL-2.0
/*
 * Running the planned cells: in order, a version's steps one after the
 * other in its tree, both arches built per checked-out commit, and the
 * boot of a finished build overlapped with the next build.
 */
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "build.h"
#include "builddir.h"
#include "key.h"
#include "images.h"
#include "plan.h"
#include "progress.h"
#include "result.h"
#include "run.h"
#include "tree.h"

struct pipeline {
	struct plan *p;
	struct boot boot;	/* the one boot that may run beside a build */
	const char *checked_out;	/* commit in the tree being built */
	const char *tree;
	int met, unmet, setup_errors;
};

static void count(struct pipeline *pl, struct cell *c, bool reused)
{
	bool met = json_is_true(json_object_get(c->result, "met"));
	const char *verdict = json_string_value(json_object_get(c->result, "verdict"));

	if (met)
		pl->met++;
	else
		pl->unmet++;
	if (!strcmp(verdict, "setup-error"))
		pl->setup_errors++;
	progress_done(c, verdict, met, reused);
}

/* A stage's result is final unless the host, not the kernel, failed us. */
static void record(struct pipeline *pl, struct cell *c)
{
	const char *v = c->out.verdict;
	bool final = !v || (strcmp(v, "infra-error") && strcmp(v, "setup-error") &&
			    strcmp(v, "apply-failed"));

	cell_finish(pl->p, c, final);
	count(pl, c, false);
}

/* A stage cut short by SIGINT/SIGTERM decided nothing: record no result. */
static void finish(struct pipeline *pl, struct cell *c)
{
	if (!run_stop_signal())
		record(pl, c);
}

static void finish_boot(struct pipeline *pl)
{
	struct cell *c = pl->boot.cell;

	if (!pl->boot.active)
		return;
	progress_stage(c, "boot (finishing)");
	boot_finish(&pl->boot, pl->p->exp);
	/* A guest that finished before the signal came is a finished cell. */
	if (!pl->boot.ch.interrupted)
		record(pl, c);
}

static const char *jstr_input(json_t *r, const char *name)
{
	return json_string_value(json_object_get(json_object_get(r, "inputs"), name));
}

static int checkout(struct pipeline *pl, struct cell *c)
{
	char *log = cell_log(c, "checkout");
	char *argv[] = { "git", "checkout", "-q", "-f", "--detach", c->step->commit, NULL };
	struct child ch = { .argv = argv, .cwd = c->src, .log = log };
	int rc = 0;

	if (pl->checked_out && pl->tree == c->src && !strcmp(pl->checked_out, c->step->commit))
		goto out;
	unlink(log);
	rc = run_command(&ch);
	if (rc != 0 && !run_stop_signal()) {
		char *why = tree_damage_line(log);

		outcome_set(&c->out, "infra-error", "git checkout %.12s failed", c->step->commit);
		outcome_add_log(&c->out, log, 10, true);
		if (why)
			tree_mark_damaged(c->src, why);
		g_free(why);
	}
	pl->checked_out = rc == 0 ? c->step->commit : NULL;
	pl->tree = c->src;
	unlink(log);
out:
	g_free(log);
	return rc;
}

/* A stage of a cell: its wall and CPU time, peak memory and span. */
struct meter {
	gint64 t0, real0;
	struct usage u;
	struct usage *prev;
};

static void meter_start(struct meter *m)
{
	memset(m, 0, sizeof(*m));
	m->t0 = g_get_monotonic_time();
	m->real0 = g_get_real_time();
	m->prev = run_usage_sink(&m->u);
}

static void meter_stop(struct meter *m, json_t *r, const char *stage)
{
	run_usage_sink(m->prev);
	result_set_timing(r, stage, (g_get_monotonic_time() - m->t0) / 1e6);
	result_set_usage(r, stage, m->u.cpu, m->u.maxrss_kb);
	result_set_span(r, stage, m->real0 / 1e6, g_get_real_time() / 1e6);
}

static void reap_boot(struct pipeline *pl);

static int configure_and_build(struct pipeline *pl, struct cell *c)
{
	struct meter m;
	int rc;
	char *config;

	progress_stage(c, "configure");
	/* Not part of the key: where compiles run does not change a verdict. */
	if (c->distcc)
		json_object_set_new(c->result, "distcc", json_string(c->distcc));
	meter_start(&m);
	rc = configure_cell(c);
	meter_stop(&m, c->result, "configure");
	config = g_build_filename(c->build_dir, ".config", NULL);
	result_set_input(c->result, "config", NULL);
	if (rc == 0) {
		char *sha = key_file_sha256(config);

		result_set_input(c->result, "config", sha);
		g_free(sha);
	}
	g_free(config);
	if (rc != 0)
		return rc;
	reap_boot(pl);
	progress_stage(c, "build");
	meter_start(&m);
	rc = build_cell(c);
	meter_stop(&m, c->result, "build");
	return rc;
}

/* Record a boot that has ended, so an interruption later cannot lose it. */
static void reap_boot(struct pipeline *pl)
{
	run_poll();
	if (pl->boot.active && pl->boot.ch.done)
		finish_boot(pl);
}

/* The kernel of this cell was built before: boot that image, build nothing. */
static bool reuse_image(struct cell *c)
{
	char *sha = NULL;

	if (!image_stored(c, &sha))
		return false;
	progress_stage(c, "image stored");
	result_set_input(c->result, "config", sha);
	json_object_set_new(c->result, "image_reused", json_true());
	result_set_timing(c->result, "configure", 0);
	result_set_timing(c->result, "build", 0);
	g_free(sha);
	return true;
}

/* The line of a failed stage's log that shows a damaged build directory, or NULL. */
static char *damaged_build(struct cell *c)
{
	const char *v = c->out.verdict;
	const char *stage = !v ? NULL : !strcmp(v, "build-failed") ? "build" :
				 !strcmp(v, "config-failed") ? "config" : NULL;
	char *log = stage ? cell_log(c, stage) : NULL;
	char *line = log ? builddir_damaged_object(log) : NULL;

	g_free(log);
	return line;
}

/* The build failed on a damaged file: remove it and build once more. */
static char *build_without(struct pipeline *pl, struct cell *c, char *why, int *rc)
{
	if (builddir_remove_damaged(c, why) != 0)
		return why;
	g_free(why);
	outcome_clear(&c->out);
	builddir_begin(c);
	*rc = configure_and_build(pl, c);
	return *rc != 0 && !run_stop_signal() ? damaged_build(c) : NULL;
}

/*
 * Configure and build in a build directory that is whole: a .config or
 * image unlike its stamp is made again; a file the build finds damaged is
 * removed and made again, and a directory still damaged after that is
 * cleaned and built again once.  The verdict is the last build's.
 */
static int build_whole(struct pipeline *pl, struct cell *c)
{
	char *why;
	int rc = builddir_repair(c);

	if (rc != 0)
		return rc;
	builddir_begin(c);
	rc = configure_and_build(pl, c);
	why = rc != 0 && !run_stop_signal() ? damaged_build(c) : NULL;
	if (why)
		why = build_without(pl, c, why, &rc);
	if (why) {
		outcome_clear(&c->out);
		rc = builddir_clean(c, why);
		if (!rc)
			builddir_begin(c);
		rc = rc ? rc : configure_and_build(pl, c);
		g_free(why);
	}
	/* cut short by a signal: the next build clears what this one wrote */
	if (!run_stop_signal())
		builddir_end(c);
	if (rc == 0)
		builddir_stamp(c);
	return rc;
}

static int build_and_store(struct pipeline *pl, struct cell *c)
{
	const char *sha;

	if (checkout(pl, c) != 0 || build_whole(pl, c) != 0)
		return -1;
	sha = jstr_input(c->result, "config");
	if (sha && image_store(c, sha) != 0)
		g_printerr("kmatrix: %s %s %s: cannot store the image in %s/images\n",
			   c->v->name, c->a->name, c->step->id, c->cache);
	return 0;
}

static void run_cell(struct pipeline *pl, struct cell *c)
{
	reap_boot(pl);
	/* The boot in flight may still read this build directory's image. */
	if (pl->boot.active && !pl->boot.cell->image &&
	    !strcmp(pl->boot.cell->build_dir, c->build_dir))
		finish_boot(pl);
	progress_stage(c, "apply");
	/* --force rebuilds too: it is how a kernel is built again on purpose */
	if ((pl->p->force || !reuse_image(c)) && build_and_store(pl, c) != 0) {
		finish(pl, c);
		return;
	}
	finish_boot(pl);
	if (run_stop_signal())
		return;
	progress_stage(c, "boot");
	if (boot_start(c, &pl->boot, boot_accel(c, c->initramfs)) < 0) {
		outcome_set(&c->out, "infra-error", "cannot start %s", c->qemu.binary);
		pl->boot.active = false;
		finish(pl, c);
		return;
	}
	/* Without a spare core, overlapping only slows both down. */
	if (g_get_num_processors() < 2)
		finish_boot(pl);
}

/* Each tree's HEAD on matrix again, unless that would move the files built last. */
static void release_trees(struct plan *p)
{
	for (guint i = 0; i < p->vruns->len; i++) {
		struct version_run *vr = p->vruns->pdata[i];

		/* a recorded tree was not checked out: nothing to release */
		if (!vr->setup_error && !vr->recorded)
			tree_release(vr->tree);
	}
}

static json_t *version_apply(const struct version_run *vr)
{
	struct usage u = { 0 };
	double wall = 0;

	for (guint s = 0; vr->steps && s < vr->steps->len; s++) {
		const struct step *st = vr->steps->pdata[s];

		wall += st->seconds;
		usage_add(&u, &st->usage);
	}
	return result_usage_json(wall, u.cpu, u.maxrss_kb);
}

/*
 * The stages done once per version or arch rather than per cell: laying
 * (or checking) the tree, applying the steps, packing the initramfs.
 */
static json_t *run_usage(struct plan *p)
{
	json_t *lay = json_object(), *apply = json_object(), *pack = json_object();
	GHashTableIter it;
	gpointer name, pk;

	for (guint i = 0; i < p->vruns->len; i++) {
		const struct version_run *vr = p->vruns->pdata[i];

		json_object_set_new(lay, vr->v->name, result_usage_json(
			vr->lay_seconds, vr->lay.cpu, vr->lay.maxrss_kb));
		json_object_set_new(apply, vr->v->name, version_apply(vr));
	}
	g_hash_table_iter_init(&it, p->packs);
	while (g_hash_table_iter_next(&it, &name, &pk)) {
		const struct pack *k = pk;

		json_object_set_new(pack, name, result_usage_json(k->seconds, k->usage.cpu,
								  k->usage.maxrss_kb));
	}
	return json_pack("{s:o, s:o, s:o}", "lay", lay, "apply", apply, "pack", pack);
}

/* The arches only rlimit-abi sees, for the report's ABI section. */
static json_t *headers_only_json(const struct matrix_conf *m)
{
	json_t *list = json_array();

	for (guint i = 0; i < m->headers_only->len; i++) {
		const struct headers_only *h = m->headers_only->pdata[i];

		json_array_append_new(list, json_pack("{s:s, s:s}", "arch", h->arch,
						      "reason", h->reason));
	}
	return list;
}

static json_t *run_json(struct plan *p)
{
	json_t *cells = json_array(), *versions = json_array(), *arches = json_array();
	char *now = result_now();
	gint64 t0 = g_get_monotonic_time();
	char *head = tree_git(p->top, "rev-parse", "HEAD", NULL);
	json_t *r;

	plan_phase(p, "project commit", t0, NULL);
	for (guint i = 0; i < p->cells->len; i++) {
		struct cell *c = p->cells->pdata[i];

		json_array_append_new(cells, json_sprintf("%s/%s/%s", c->v->name,
							  c->a->name, c->step->id));
	}
	for (guint i = 0; i < p->vruns->len; i++)
		json_array_append_new(versions, json_string(
			((struct version_run *)p->vruns->pdata[i])->v->name));
	for (guint i = 0; i < p->m->arches->len; i++) {
		struct arch_conf *a = p->m->arches->pdata[i];

		if (plan_selected(p->arches, a->name))
			json_array_append_new(arches, json_string(a->name));
	}
	r = json_pack("{s:s, s:s, s:n, s:s, s:s, s:o, s:o, s:o, s:o, s:o}", "schema", "kmatrix-run/1",
		      "started", now, "finished", "host", g_get_host_name(),
		      "project_commit", head ? head : "", "versions", versions,
		      "arches", arches, "cells", cells, "usage", run_usage(p),
		      "sandbox", sandbox_json(&p->sandbox));
	plan_identity(p, r);
	json_object_set(json_object_get(r, "usage"), "phases", p->phases);
	json_object_set_new(r, "headers_only", headers_only_json(p->m));
	json_object_set(r, "excluded", p->excluded);
	json_object_set_new(r, "distcc", p->distcc ? json_string(p->distcc) : json_null());
	g_free(now);
	g_free(head);
	return r;
}

static void write_run_json(struct plan *p)
{
	char *path = g_build_filename(p->results, "run.json", NULL);
	GError *err = NULL;

	if (result_write(path, p->run, &err) < 0) {
		g_printerr("kmatrix: %s\n", err->message);
		g_error_free(err);
	}
	g_free(path);
}

static double total_eta(struct plan *p)
{
	double s = 0;

	for (guint i = 0; i < p->cells->len; i++)
		s += ((struct cell *)p->cells->pdata[i])->eta;
	return s;
}

int pipeline_run(struct plan *p)
{
	struct pipeline pl = { .p = p };
	char *now;

	p->run = run_json(p);
	/* Under git bisect one cell runs: the last real run's metadata stays. */
	if (!p->keep_checkout)
		write_run_json(p);
	progress_begin(p->cells->len, total_eta(p));
	run_set_tick(progress_tick);
	for (guint i = 0; i < p->cells->len && !run_stop_signal(); i++) {
		struct cell *c = p->cells->pdata[i];

		enum reuse r = cell_reusable(p, c);

		if (r == REUSE_CACHED)
			count(&pl, c, true);
		else if (r == REUSE_REJUDGED)
			finish(&pl, c);
		else if (c->out.verdict)
			finish(&pl, c);
		else
			run_cell(&pl, c);
	}
	finish_boot(&pl);
	run_set_tick(NULL);
	if (run_stop_signal()) {
		run_kill_all();
		progress_note("kmatrix: interrupted (signal %d): finished cells are kept, the next run resumes",
			      run_stop_signal());
		return 128 + run_stop_signal();
	}
	if (!p->keep_checkout) {
		release_trees(p);
		/* A shard with no chain has no tree to check. */
		if (p->vruns->len)
			abi_check(p);
		if (run_stop_signal())
			return 128 + run_stop_signal();
	}
	progress_end();
	if (!p->sandbox.own_full)
		plan_phase(p, "own cache", 0, p->sandbox.user ? "nothing to build or pack" :
							       "not root: the cache is ours");
	plan_print_phases(p);
	json_object_set_new(p->run, "finished", json_string_nocheck(now = result_now()));
	g_free(now);
	if (!p->keep_checkout)
		write_run_json(p);
	g_printerr("kmatrix: %d met, %d not met\n", pl.met, pl.unmet);
	if (p->cells->len && pl.setup_errors == (int)p->cells->len) {
		g_printerr("kmatrix: nothing could run (set-up errors above)\n");
		return 2;
	}
	return pl.unmet ? 1 : 0;
}
