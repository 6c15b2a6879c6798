// SPDX-License-Identifier: GPL-2.0
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "apply.h"
#include "boot.h"
#include "cache.h"
#include "distcc.h"
#include "key.h"
#include "lock.h"
#include "memo.h"
#include "images.h"
#include "plan.h"
#include "result.h"
#include "reuse.h"
#include "run.h"
#include "sandbox.h"
#include "shard.h"
#include "tree.h"

#define PLAN_ERROR g_quark_from_static_string("kmatrix-plan")

/* --versions, --arches and --steps, each name known, before any work. */
static gboolean pick_lists(struct plan *p, const struct plan_opts *o, const char *only,
			   GError **err)
{
	g_auto(GStrv) versions = conf_version_names(p->m);
	g_auto(GStrv) arches = conf_arch_names(p->m);
	g_auto(GStrv) steps = NULL;

	/* a one-off run of the given trees, unless --versions says more */
	if (!conf_pick("--versions", o->versions ? o->versions : only,
		       (const char *const *)versions, &p->versions, err) ||
	    !conf_pick("--arches", o->arches, (const char *const *)arches, &p->arches, err))
		return FALSE;
	if (!o->steps)
		return TRUE;
	steps = apply_step_ids(p->m, err);
	return steps && conf_pick("--steps", o->steps, (const char *const *)steps,
				  &p->steps, err);
}

/* The QEMU of every arch that will boot, before anything is laid or built. */
static gboolean check_qemu(const struct plan *p, GError **err)
{
	for (guint i = 0; i < p->m->arches->len; i++) {
		const struct arch_conf *a = p->m->arches->pdata[i];

		if (plan_selected(p->arches, a->name) &&
		    !conf_check_qemu(a, g_getenv("PATH"), err))
			return FALSE;
	}
	return TRUE;
}

/* Every [step] of the expectations is a step some order file has. */
static gboolean check_steps(const struct plan *p, GError **err)
{
	char **ids = apply_step_ids(p->m, err);
	gboolean ok = ids && expect_check_steps(p->exp, (const char *const *)ids, err);

	g_strfreev(ids);
	return ok;
}

static int open_conf(struct plan *p, const struct plan_opts *o, GError **err)
{
	GString *only = g_string_new(NULL);
	/* --series as the user typed it, from where they typed it */
	g_autofree char *series = o->series ? g_canonicalize_filename(o->series, NULL) : NULL;

	p->m = conf_open(p->top, o->matrix, err);
	if (!p->m)
		return 2;
	for (int i = 0; o->trees && o->trees[i]; i++) {
		struct version_conf *v = conf_add_tree(p->m, o->trees[i], series,
							       !o->no_backport, err);

		if (!v) {
			g_string_free(only, TRUE);
			return 2;
		}
		g_string_append_printf(only, "%s%s", only->len ? "," : "", v->name);
	}
	if (!pick_lists(p, o, only->len ? only->str : NULL, err)) {
		g_string_free(only, TRUE);
		return 2;
	}
	g_string_free(only, TRUE);
	if (!o->no_boot && !check_qemu(p, err))
		return 2;
	p->exp = expect_load(p->m->expectations, err);
	if (!p->exp || !check_steps(p, err))
		return 2;
	p->expectations_sha = key_file_sha256(p->m->expectations);
	return 0;
}

int plan_open(struct plan *p, const struct plan_opts *o, GError **err)
{
	gint64 t0;
	int rc;

	memset(p, 0, sizeof(*p));
	p->lock = -1;
	p->phases = json_array();
	p->show_phases = o->phases;
	p->force = o->force;
	p->no_lay = o->no_lay;
	p->shard_count = o->shards > 0 ? o->shards : 1;
	p->top = cache_project_top();
	rc = open_conf(p, o, err);
	if (rc)
		return rc;
	if (o->shard && !shard_parse(o->shard, &p->shard_index, &p->shard_count, err))
		return 2;
	p->cache = cache_dir(o->cache);
	p->results = cache_results_dir(p->cache, o->results);
	p->timings = o->timings ? g_canonicalize_filename(o->timings, NULL) :
				  g_strdup(p->results);
	if (o->reuse && !g_file_test(o->reuse, G_FILE_TEST_IS_DIR))
		g_printerr(
			"kmatrix: --reuse %s: no such directory: nothing reused\n",
			o->reuse);
	else if (o->reuse)
		p->reuse = g_canonicalize_filename(o->reuse, NULL);
	if (!cache_path_allowed(p->cache, p->top, err) ||
	    !cache_path_allowed(p->results, p->top, err))
		return 2;
	p->lock = lock_take(p->cache, err);
	if (p->lock == -1)
		return 2;
	/*
	 * Under the lock, before the first child and the first file written:
	 * the results now, the rest of the cache once a stage will write there
	 * (plan_own_cache()).
	 */
	t0 = g_get_monotonic_time();
	if (!sandbox_open(&p->sandbox, p->cache, p->results, p->top, false, err) ||
	    !sandbox_own(&p->sandbox, p->cache, p->results, false, err))
		return 2;
	plan_phase(p, "own results", t0, NULL);
	/* a maintainer's repository: read-only, for git and its alternates */
	for (guint i = 0; i < p->m->versions->len; i++) {
		const struct version_conf *v = p->m->versions->pdata[i];

		if (v->git && plan_selected(p->versions, v->name))
			sandbox_show(&p->sandbox, v->git);
	}
	run_set_sandbox(&p->sandbox);
	p->jobs = g_get_num_processors();
	p->distcc = distcc_hosts(o->distcc);
	if (p->distcc && !(p->jobs = distcc_jobs(p->distcc, p->jobs, err)))
		return 2;
	if (o->jobs)
		p->jobs = o->jobs;
	/* A distcc farm is reached over the network: the stages keep it. */
	p->sandbox.network = p->distcc != NULL;
	p->vruns = g_ptr_array_new();
	p->cells = g_ptr_array_new();
	p->excluded = json_array();
	p->packs = g_hash_table_new(g_str_hash, g_str_equal);
	p->pack_fail = g_hash_table_new(g_str_hash, g_str_equal);
	p->toolchains = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
	return 0;
}

/*
 * kmatrix port leaves backports/<v>/PORTING while patches are left to port
 * by hand: such a series is a draft and must not be judged as the backport.
 */
static char *draft_porting(const struct version_conf *v)
{
	char *dir = g_path_get_dirname(v->series);
	char *porting = g_build_filename(dir, "PORTING", NULL);

	g_free(dir);
	if (g_file_test(porting, G_FILE_TEST_EXISTS))
		return porting;
	g_free(porting);
	return NULL;
}

bool plan_own_cache(struct plan *p)
{
	gint64 t0 = g_get_monotonic_time();
	GError *err = NULL;

	if (p->own_failed)
		return false;
	if (p->sandbox.own_full || !p->sandbox.user)
		return true;
	if (!sandbox_own(&p->sandbox, p->cache, p->results, true, &err)) {
		g_printerr("kmatrix: %s\n", err->message);
		g_error_free(err);
		p->own_failed = true;
		return false;
	}
	plan_phase(p, "own cache", t0, NULL);
	return true;
}

static void prepare_version(struct plan *p, struct version_run *vr)
{
	char *logdir = g_build_filename(p->results, vr->v->name, NULL);
	char *draft;
	struct usage *prev;
	enum tree_state st;
	gint64 t0;

	draft = draft_porting(vr->v);
	if (draft) {
		vr->setup_error = "setup-error";
		vr->setup_msg = g_strdup_printf("backport of %s is a draft: see %s", vr->v->name,
						draft);
		g_printerr("kmatrix: %s: %s\n", vr->v->name, vr->setup_msg);
		g_free(draft);
		g_free(logdir);
		return;
	}
	if (p->no_lay && (vr->unlaid = tree_unlaid(p->cache, vr->v))) {
		g_printerr("kmatrix: %s: %s: its cells' keys are known once kmatrix run lays it\n",
			   vr->v->name, vr->unlaid);
		g_free(logdir);
		return;
	}
	t0 = g_get_monotonic_time();
	/* A tree being checked may change: its record holds once it is sound. */
	apply_unrecord(vr->tree);
	prev = run_usage_sink(&vr->lay);
	st = tree_prepare(p->cache, vr->v, &vr->setup_msg);
	run_usage_sink(prev);
	vr->lay_seconds = (g_get_monotonic_time() - t0) / 1e6;
	if (st == TREE_SETUP_ERROR)
		vr->setup_error = "setup-error";
	else if (st == TREE_FAILED)
		vr->setup_error = "infra-error";
	else if (apply_steps(vr->tree, p->top, vr->steps, logdir) < 0 && !run_stop_signal()) {
		vr->setup_error = "infra-error";
		vr->setup_msg = g_strdup_printf("cannot save the state of the applied steps in %s",
						vr->tree);
	}
	if (!vr->setup_error) {
		char *id = tree_stock_identity(vr->tree, vr->v);

		apply_record(vr->tree, vr->steps, id);
		g_free(id);
	}
	if (vr->setup_msg)
		g_printerr("kmatrix: %s: %s\n", vr->v->name, vr->setup_msg);
	g_free(logdir);
}

static void prepare_arch(struct plan *p, const struct arch_conf *a)
{
	struct pack *pk = g_new0(struct pack, 1);
	struct outcome *o = g_new0(struct outcome, 1);
	char *cc = cell_cc(a);
	char *argv[] = { cc, "--version", NULL };
	gint64 t0 = g_get_monotonic_time();
	char *name, *ver = memo_capture(p->cache, argv);
	int rc;

	if (ver)
		ver[strcspn(ver, "\n")] = '\0';
	g_hash_table_insert(p->toolchains, a->name, ver ? ver : g_strdup(""));
	g_free(cc);
	name = g_strdup_printf("toolchain %s", a->name);
	plan_phase(p, name, t0, NULL);
	g_free(name);
	name = g_strdup_printf("pack %s", a->name);
	t0 = g_get_monotonic_time();
	rc = pack_lookup(p->top, p->cache, a, pk, o);
	if (rc == 1) {
		rc = plan_own_cache(p) ? pack_make(p->top, p->cache, a, pk, o) : -1;
		if (p->own_failed)
			outcome_set(o, "setup-error", "the cache is not the build user's");
	}
	plan_phase(p, name, t0, NULL);
	g_free(name);
	if (rc < 0) {
		g_printerr("kmatrix: %s: %s\n", a->name, o->summary);
		g_hash_table_insert(p->pack_fail, a->name, o);
		pack_clear(pk);
		g_free(pk);
		return;
	}
	g_hash_table_insert(p->packs, a->name, pk);
	g_free(o);
}

static double previous_seconds(json_t *r)
{
	json_t *t = json_object_get(r, "timings"), *v;
	const char *k;
	double s = 0;

	json_object_foreach(t, k, v)
		s += json_number_value(v);
	return s;
}

static char *cell_key(const struct plan *p, struct cell *c)
{
	const struct pack *pk = g_hash_table_lookup(p->packs, c->a->name);
	char *arch_conf = NULL, *fragment = NULL, *key;
	char **argv = boot_qemu_argv(c, pk->path);
	struct key_inputs in = {
		.tree = c->step->tree, .quirks = c->qemu.quirks,
		.toolchain = g_hash_table_lookup(p->toolchains, c->a->name),
		.test_binary = pk->test_binary_sha, .initramfs = pk->sha,
		.expectations = p->expectations_sha, .qemu_argv = argv,
		.cache = p->cache,
	};

	g_file_get_contents(c->a->path, &arch_conf, NULL, NULL);
	g_file_get_contents(c->a->fragment, &fragment, NULL, NULL);
	in.arch_conf = arch_conf;
	in.fragment = fragment;
	key = key_compute(&in);
	in.expectations = NULL;
	c->build_key = key_compute(&in);
	c->image_key = image_key(c->step->tree, arch_conf, fragment, in.toolchain);
	g_free(arch_conf);
	g_free(fragment);
	g_strfreev(argv);
	return key;
}

static void copy_apply_log(const struct plan *p, struct cell *c)
{
	char *from = g_strdup_printf("%s/%s/%s.apply.log", p->results, c->v->name, c->step->id);
	char *to = cell_log(c, "apply");
	char *text = NULL;
	gsize len;

	if (g_file_get_contents(from, &text, &len, NULL))
		g_file_set_contents(to, text, len, NULL);
	g_free(text);
	g_free(from);
	g_free(to);
}

/* What stops a cell before it is built: set-up, packing or apply failures. */
static void early_outcome(struct plan *p, struct version_run *vr, struct cell *c)
{
	struct outcome *pf = g_hash_table_lookup(p->pack_fail, c->a->name);

	if (vr->setup_error) {
		outcome_set(&c->out, vr->setup_error, "%s", vr->setup_msg);
		outcome_add(&c->out, "%s", vr->setup_msg);
	} else if (c->step->failure) {
		outcome_set(&c->out, c->step->verdict ? c->step->verdict : "apply-failed", "%s",
			    c->step->failure);
		for (guint i = 0; i < c->step->evidence->len; i++)
			outcome_add(&c->out, "%s", (char *)c->step->evidence->pdata[i]);
	} else if (pf) {
		outcome_set(&c->out, pf->verdict, "%s", pf->summary);
		for (guint i = 0; pf->evidence && i < pf->evidence->len; i++)
			outcome_add(&c->out, "%s", (char *)pf->evidence->pdata[i]);
	}
}

static struct cell *cell_new(struct plan *p, struct version_run *vr, struct step *s,
			     const struct arch_conf *a)
{
	struct cell *c = g_new0(struct cell, 1);
	const struct pack *pk = g_hash_table_lookup(p->packs, a->name);
	char *why = NULL;
	json_t *old;

	c->v = vr->v;
	c->a = a;
	c->step = s;
	c->cache = p->cache;
	c->distcc = p->distcc;
	c->jobs = p->jobs;
	c->src = vr->tree;
	c->build_dir = g_build_filename(p->cache, "build", vr->v->name, a->name, NULL);
	c->logdir = g_build_filename(p->results, vr->v->name, a->name, NULL);
	c->path = result_path(p->results, vr->v->name, a->name, s->id, ".json");
	c->initramfs = pk ? g_strdup(pk->path) : NULL;
	g_mkdir_with_parents(c->logdir, 0755);
	conf_qemu(a, vr->v->name, &c->qemu, NULL);
	c->result = result_new(vr->v->name, a->name, s->id, s->index);
	early_outcome(p, vr, c);
	if (!c->out.verdict && !vr->unlaid)
		c->key = cell_key(p, c);
	if (s->patch)
		copy_apply_log(p, c);
	if (p->reuse && strcmp(p->reuse, p->results))
		reuse_seed(p->reuse, p->results, vr->v->name, a->name, s->id);
	old = result_read(c->path, vr->v->name, a->name, s->id, &why);
	c->eta = old ? previous_seconds(old) : 0;
	if (old)
		json_decref(old);
	g_free(why);
	return c;
}

/* Every selected version's steps, before anything is laid: the chains. */
static GHashTable *plan_steps(struct plan *p)
{
	GHashTable *by = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
					       (GDestroyNotify)g_ptr_array_unref);
	GError *err = NULL;

	for (guint i = 0; i < p->m->versions->len; i++) {
		const struct version_conf *v = p->m->versions->pdata[i];
		GPtrArray *steps;

		if (!plan_selected(p->versions, v->name))
			continue;
		steps = apply_plan(v, &err);
		if (!steps) {
			g_printerr("kmatrix: %s\n", err->message);
			g_error_free(err);
			g_hash_table_destroy(by);
			return NULL;
		}
		g_hash_table_insert(by, v->name, steps);
	}
	return by;
}

static bool version_in_shard(const struct plan *p, const char *version)
{
	for (guint i = 0; i < p->chains->len; i++) {
		const struct shard_chain *c = p->chains->pdata[i];

		if (!strcmp(c->version, version) &&
		    (!p->shard_index || c->shard == p->shard_index))
			return true;
	}
	return false;
}

/* The evidence file's lines, for run.json (the report shows them). */
static json_t *evidence_lines(const char *path)
{
	json_t *lines = json_array();
	char *text = NULL, **l;

	if (!g_file_get_contents(path, &text, NULL, NULL))
		return lines;
	l = g_strsplit(text, "\n", -1);
	for (int i = 0; l[i]; i++)
		if (l[i][0] || l[i + 1])
			json_array_append_new(lines, json_string(l[i]));
	g_strfreev(l);
	g_free(text);
	return lines;
}

/*
 * Is @a excluded for @vr?  Only on the stock tree the exclusion was
 * recorded for: on another one the cells run and we say why.
 */
static bool excluded(struct plan *p, struct version_run *vr, const struct arch_conf *a)
{
	const struct exclusion *x = conf_excluded(p->m, vr->v->name, a->name);
	const struct step *stock = vr->steps->len ? vr->steps->pdata[0] : NULL;
	const char *tree = stock && stock->tree ? stock->tree : "";

	if (!x)
		return false;
	if (x->stock_tree && !vr->setup_error && !vr->unlaid && strcmp(x->stock_tree, tree)) {
		plan_say(p, "%s:%d: [exclude %s %s] was recorded for stock tree %.12s, "
			 "this one is %.12s: running its cells", p->m->path, x->line,
			 x->version, x->arch, x->stock_tree, tree);
		return false;
	}
	json_array_append_new(p->excluded, json_pack("{s:s, s:s, s:s, s:s, s:o, s:s?}",
		"version", x->version, "arch", x->arch, "reason", x->reason,
		"evidence_file", x->evidence, "evidence", evidence_lines(x->evidence),
		"stock_tree", x->stock_tree));
	plan_say(p, "%s x %s excluded: %s", x->version, x->arch, x->reason);
	return true;
}

/* A cell per selected step x arch of @vr, appended to p->cells. */
static void add_cells(struct plan *p, struct version_run *vr)
{
	GPtrArray *arches = g_ptr_array_new();

	for (guint k = 0; k < p->m->arches->len; k++) {
		struct arch_conf *a = p->m->arches->pdata[k];

		if (plan_selected(p->arches, a->name) &&
		    plan_in_shard(p, vr->v->name, a->name) && !excluded(p, vr, a))
			g_ptr_array_add(arches, a);
	}
	for (guint s = 0; s < vr->steps->len; s++) {
		struct step *st = vr->steps->pdata[s];

		if (!plan_selected(p->steps, st->id))
			continue;
		for (guint k = 0; k < arches->len; k++)
			g_ptr_array_add(p->cells, cell_new(p, vr, st, arches->pdata[k]));
	}
	g_ptr_array_free(arches, TRUE);
}

static void cell_free(struct cell *c);

/*
 * Are the cells from @first on all reused?  Each one's reuse is decided
 * now, once.  When one is not, they are dropped, with what the
 * exclusions noted about them, to be planned again on a checked tree.
 */
static bool all_reused(struct plan *p, guint first, size_t excluded_before)
{
	guint i;

	for (i = first; i < p->cells->len; i++) {
		struct cell *c = p->cells->pdata[i];

		c->reuse = cell_reusable(p, c);
		c->reuse_known = true;
		if (c->reuse == REUSE_NONE)
			break;
	}
	if (i == p->cells->len)
		return true;
	for (i = first; i < p->cells->len; i++)
		cell_free(p->cells->pdata[i]);
	g_ptr_array_set_size(p->cells, first);
	while (json_array_size(p->excluded) > excluded_before)
		json_array_remove(p->excluded, json_array_size(p->excluded) - 1);
	return false;
}

/*
 * When the tree's record still holds and every cell's key matches its
 * result, nothing of the version runs: its tree is neither checked nor
 * laid, and no git command runs in it.
 */
static bool plan_recorded(struct plan *p, struct version_run *vr)
{
	gint64 t0 = g_get_monotonic_time();
	char *id = tree_stock_identity(vr->tree, vr->v);
	char *draft = draft_porting(vr->v);
	char *name = g_strdup_printf("tree %s", vr->v->name);
	size_t ex = json_array_size(p->excluded);
	guint first = p->cells->len;
	bool ok = !p->force && !p->no_lay && !draft && id &&
		  apply_recorded(vr->tree, vr->steps, id);

	p->held = g_string_new(NULL);
	if (ok && !(ok = (add_cells(p, vr), all_reused(p, first, ex))))
		apply_undescribe(vr->steps);
	if (ok) {
		g_printerr("%s", p->held->str);
		plan_phase(p, name, t0, "every cell's key matches its result");
	}
	g_string_free(g_steal_pointer(&p->held), TRUE);
	vr->recorded = ok;
	g_free(name);
	g_free(draft);
	g_free(id);
	return ok;
}

static void plan_version(struct plan *p, struct version_run *vr)
{
	char *name = g_strdup_printf("tree %s", vr->v->name);
	gint64 t0;

	vr->tree = tree_dir(p->cache, vr->v->name);
	if (!plan_recorded(p, vr) && plan_own_cache(p)) {
		t0 = g_get_monotonic_time();
		prepare_version(p, vr);
		plan_phase(p, name, t0, NULL);
		add_cells(p, vr);
	}
	g_free(name);
}

/* An ELF file's class, byte order and machine, or 0. */
static guint32 elf_kind(const char *path)
{
	unsigned char h[20];
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(h, 1, sizeof(h), f) : 0;

	if (f)
		fclose(f);
	if (n < sizeof(h) || memcmp(h, ELFMAG, SELFMAG))
		return 0;
	return h[EI_CLASS] << 24 | h[EI_DATA] << 16 |
	       (h[EI_DATA] == ELFDATA2LSB ? h[19] << 8 | h[18] : h[18] << 8 | h[19]);
}

/*
 * What `BIN --list` prints, when BIN is of kmatrix's own ELF kind: exec of
 * another (a foreign arch, a 32-bit binary on a kernel without its compat
 * layer) fails with ENOEXEC, and execvp() then hands the file to /bin/sh.
 */
static void list_binary(GString *out, const char *cache, const char *bin)
{
	char *argv[] = { (char *)bin, "--list", NULL };
	char *text = NULL;

	if (elf_kind(bin) && elf_kind(bin) == elf_kind("/proc/self/exe"))
		text = memo_capture(cache, argv);
	if (text)
		g_string_append_printf(out, "%s\n", text);
	g_free(text);
}

/*
 * The case list lives in the test binaries, not in a file: every glob of
 * the expectations must match a case of those this host runs natively (on
 * x86_64, x86_64's: not the compat suites', whose lists differ only in the
 * entry points of cases_sys.c).  When none runs here there is nothing to
 * check against.
 */
static gboolean check_cases(const struct plan *p)
{
	GString *text = g_string_new(NULL);
	GError *err = NULL;
	char **cases;
	gboolean ok = TRUE;

	for (guint i = 0; i < p->m->arches->len; i++) {
		const struct arch_conf *a = p->m->arches->pdata[i];
		char *bin = g_build_filename(p->top, "build", "guest", a->name,
					     "rlimit-tests", NULL);
		char *compat = g_strdup_printf("%s-%s", bin, a->compat);

		if (plan_selected(p->arches, a->name)) {
			list_binary(text, p->cache, bin);
			if (*a->compat)
				list_binary(text, p->cache, compat);
		}
		g_free(bin);
		g_free(compat);
	}
	cases = expect_list_cases(text->str);
	if (!cases[0])
		g_printerr("kmatrix: no test binary runs here: the globs of %s are not checked "
			   "against rlimit-tests --list\n", p->m->expectations);
	else if (!expect_check_cases(p->exp, (const char *const *)cases, &err))
		ok = FALSE;
	if (!ok)
		g_printerr("kmatrix: %s\n", err->message);
	g_clear_error(&err);
	g_strfreev(cases);
	g_string_free(text, TRUE);
	return ok;
}

int plan_cells(struct plan *p)
{
	gint64 t0 = g_get_monotonic_time();
	GHashTable *steps;

	if (!check_cases(p))
		return 2;
	plan_phase(p, "cases", t0, NULL);
	steps = plan_steps(p);
	if (!steps)
		return 2;
	p->series_sha = plan_series_sha(p->m);
	shard_plan(p, steps);
	for (guint i = 0; i < p->m->arches->len; i++) {
		struct arch_conf *a = p->m->arches->pdata[i];

		if (plan_selected(p->arches, a->name))
			prepare_arch(p, a);
	}
	for (guint i = 0; i < p->m->versions->len && !run_stop_signal(); i++) {
		const struct version_conf *v = p->m->versions->pdata[i];
		struct version_run *vr;

		if (!g_hash_table_contains(steps, v->name) || !version_in_shard(p, v->name))
			continue;
		vr = g_new0(struct version_run, 1);
		vr->v = v;
		vr->steps = g_ptr_array_ref(g_hash_table_lookup(steps, v->name));
		g_ptr_array_add(p->vruns, vr);
		plan_version(p, vr);
	}
	g_hash_table_destroy(steps);
	if (run_stop_signal())
		return 128 + run_stop_signal();
	return p->own_failed ? 2 : 0;
}

void plan_opts_clear(struct plan_opts *o)
{
	g_free(o->versions);
	g_free(o->arches);
	g_free(o->steps);
	g_free(o->cache);
	g_free(o->results);
	g_free(o->matrix);
	g_free(o->shard);
	g_free(o->timings);
	g_free(o->reuse);
	g_free(o->distcc);
	g_strfreev(o->trees);
	g_free(o->series);
	memset(o, 0, sizeof(*o));
}

int plan_prepare(struct plan *p, const struct plan_opts *o)
{
	GError *err = NULL;
	int rc;

	run_signals_install();
	rc = plan_open(p, o, &err);
	if (!rc)
		return plan_cells(p);
	g_printerr("kmatrix: %s\n", err->message);
	g_error_free(err);
	return rc;
}

void plan_phase(struct plan *p, const char *name, gint64 t0,
		const char *skipped)
{
	json_t *ph;

	if (skipped)
		ph = json_pack("{s:s, s:s}", "phase", name, "skipped", skipped);
	else
		ph = json_pack("{s:s, s:f}", "phase", name, "seconds",
			       (g_get_monotonic_time() - t0) / 1e6);
	json_array_append_new(p->phases, ph);
}

void plan_print_phases(const struct plan *p)
{
	json_t *ph;
	size_t i;

	if (!p->show_phases)
		return;
	json_array_foreach(p->phases, i, ph) {
		const char *name = json_string_value(json_object_get(ph, "phase"));
		json_t *why = json_object_get(ph, "skipped");

		if (why)
			g_printerr("kmatrix: phase %-24s skipped: %s\n", name,
				   json_string_value(why));
		else
			g_printerr("kmatrix: phase %-24s %7.3f s\n", name,
				   json_number_value(json_object_get(ph, "seconds")));
	}
}

static bool same(json_t *o, const char *field, const char *want)
{
	const char *have = json_string_value(json_object_get(o, field));

	return have && want && !strcmp(have, want);
}

/*
 * Only the expectations changed: the kernel, the tests and their console
 * are the same, so judge the stored console again instead of rebuilding.
 */
static bool rejudge(const struct plan *p, struct cell *c, json_t *old)
{
	const char *verdict = json_string_value(json_object_get(old, "verdict"));
	char *log = cell_log(c, "console");
	char *text = NULL;
	bool judged = !strcmp(verdict, "pass") || !strcmp(verdict, "test-failed") ||
		      !strcmp(verdict, "unexpected-pass");

	if (judged && !g_file_get_contents(log, &text, NULL, NULL)) {
		g_free(log);
		return false;
	}
	json_decref(c->result);
	c->result = json_incref(old);
	if (judged) {
		json_object_set_new(c->result, "tests", json_array());
		test_judge(text, c->a, p->exp, c->step->id, c->result, &c->out);
	} else {
		outcome_set(&c->out, verdict, "%s", json_string_value(json_object_get(old, "summary")));
		for (size_t i = 0; i < json_array_size(json_object_get(old, "evidence")); i++)
			outcome_add(&c->out, "%s", json_string_value(
				json_array_get(json_object_get(old, "evidence"), i)));
	}
	g_free(text);
	g_free(log);
	return true;
}

void plan_say(const struct plan *p, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	if (p->held)
		g_string_append_printf(p->held, "kmatrix: %s\n", msg);
	else
		g_printerr("kmatrix: %s\n", msg);
	g_free(msg);
}

const struct version_run *plan_vrun(const struct plan *p, const char *version)
{
	for (guint i = 0; i < p->vruns->len; i++) {
		const struct version_run *vr = p->vruns->pdata[i];

		if (!strcmp(vr->v->name, version))
			return vr;
	}
	return NULL;
}

enum reuse cell_reusable(const struct plan *p, struct cell *c)
{
	char *why = NULL;
	json_t *old;
	enum reuse r = REUSE_NONE;

	if (c->reuse_known)
		return c->reuse;
	if (p->force || !c->key)
		return REUSE_NONE;
	old = result_read(c->path, c->v->name, c->a->name, c->step->id, &why);
	if (!old) {
		if (g_file_test(c->path, G_FILE_TEST_EXISTS))
			plan_say(p, "ignoring %s", why);
		g_free(why);
		return REUSE_NONE;
	}
	if (!json_is_true(json_object_get(old, "final")))
		r = REUSE_NONE;
	else if (same(old, "key", c->key))
		r = REUSE_CACHED;
	else if (same(json_object_get(old, "inputs"), "build_key", c->build_key) &&
		 rejudge(p, c, old))
		r = REUSE_REJUDGED;
	if (r == REUSE_CACHED) {
		json_decref(c->result);
		c->result = json_incref(old);
	}
	json_decref(old);
	return r;
}

/* What the cell's kernel exactly is: the package laid and its Makefile's release. */
static void kernel_identity(struct cell *c)
{
	char *rev = g_strdup_printf("%s:Makefile", c->step->commit ? c->step->commit : "stock");
	char *mk = c->src ? tree_git(c->src, "show", rev, NULL) : NULL;
	char *pkgver = c->src && c->v->package ? tree_stock_version(c->src) : NULL;

	result_set_kernel(c->result, c->v->package, pkgver, mk);
	g_free(pkgver);
	g_free(mk);
	g_free(rev);
}

static void fill_identity(const struct plan *p, struct cell *c)
{
	const struct pack *pk = g_hash_table_lookup(p->packs, c->a->name);
	json_t *r = c->result;
	struct step *s = c->step;

	json_object_set_new(r, "commit", json_string(s->commit ? s->commit : ""));
	json_object_set_new(r, "tree", json_string(s->tree ? s->tree : ""));
	json_object_set_new(r, "subject", json_string(s->subject ? s->subject : ""));
	json_object_set_new(r, "key", json_string(c->key ? c->key : ""));
	result_set_input(r, "tree", s->tree);
	result_set_input(r, "toolchain", g_hash_table_lookup(p->toolchains, c->a->name));
	result_set_input(r, "test_binary", pk ? pk->test_binary_sha : NULL);
	result_set_input(r, "initramfs", pk ? pk->sha : NULL);
	result_set_input(r, "expectations", p->expectations_sha);
	result_set_input(r, "quirks", c->qemu.quirks);
	result_set_input(r, "build_key", c->build_key);
	kernel_identity(c);
	result_set_timing(r, "apply", s->seconds);
	result_set_usage(r, "apply", s->usage.cpu, s->usage.maxrss_kb);
	result_set_timing(r, "pack", pk ? pk->seconds : 0);
	result_set_usage(r, "pack", pk ? pk->usage.cpu : 0, pk ? pk->usage.maxrss_kb : 0);
}

void cell_finish(struct plan *p, struct cell *c, bool final)
{
	const char *verdict = c->out.verdict ? c->out.verdict : "pass";
	bool met = !strcmp(verdict, "pass");
	char *now = result_now();
	GError *err = NULL;

	fill_identity(p, c);
	result_set_verdict(c->result, verdict, met, c->out.summary, c->out.evidence);
	json_object_set_new(c->result, "final", json_boolean(final && c->key));
	json_object_set_new(c->result, "finished", json_string(now));
	if (result_write(c->path, c->result, &err) < 0) {
		g_printerr("kmatrix: %s\n", err->message);
		g_error_free(err);
	}
	g_free(now);
}

static void cell_free(struct cell *c)
{
	qemu_conf_clear(&c->qemu);
	g_free(c->build_dir);
	g_free(c->logdir);
	g_free(c->path);
	g_free(c->initramfs);
	g_free(c->key);
	g_free(c->build_key);
	g_free(c->image_key);
	g_free(c->image);
	if (c->result)
		json_decref(c->result);
	outcome_clear(&c->out);
	g_free(c);
}

static void free_pack(gpointer k, gpointer v, gpointer d)
{
	pack_clear(v);
	g_free(v);
}

static void free_outcome(gpointer k, gpointer v, gpointer d)
{
	outcome_clear(v);
	g_free(v);
}

void plan_close(struct plan *p)
{
	for (guint i = 0; p->cells && i < p->cells->len; i++)
		cell_free(p->cells->pdata[i]);
	for (guint i = 0; p->vruns && i < p->vruns->len; i++) {
		struct version_run *vr = p->vruns->pdata[i];

		if (vr->steps)
			g_ptr_array_free(vr->steps, TRUE);
		g_free(vr->tree);
		g_free(vr->setup_msg);
		g_free(vr->unlaid);
		g_free(vr);
	}
	if (p->packs) {
		g_hash_table_foreach(p->packs, free_pack, NULL);
		g_hash_table_foreach(p->pack_fail, free_outcome, NULL);
		g_hash_table_destroy(p->packs);
		g_hash_table_destroy(p->pack_fail);
		g_hash_table_destroy(p->toolchains);
		g_ptr_array_free(p->cells, TRUE);
		g_ptr_array_free(p->vruns, TRUE);
	}
	if (p->exp)
		expect_free(p->exp);
	conf_free(p->m);
	g_free(p->distcc);
	lock_release(p->lock);
	run_set_sandbox(NULL);
	sandbox_clear(&p->sandbox);
	g_strfreev(p->versions);
	g_strfreev(p->arches);
	g_strfreev(p->steps);
	g_free(p->expectations_sha);
	if (p->chains)
		g_ptr_array_free(p->chains, TRUE);
	g_free(p->loads);
	g_free(p->split);
	g_free(p->timings);
	g_free(p->reuse);
	g_free(p->series_sha);
	json_decref(p->phases);
	g_free(p->top);
	g_free(p->cache);
	g_free(p->results);
	if (p->run)
		json_decref(p->run);
	json_decref(p->excluded);
}
