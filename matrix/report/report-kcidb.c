// SPDX-License-Identifier: GPL-2.0
/*
 * KCIDB, the results database behind KernelCI's dashboard (I/O schema
 * v5.3): the run as checkouts (one per version x step commit), builds (one
 * per cell) and tests (one per KTAP case, plus "boot"), so that a team sees
 * the matrix beside the rest of its kernel CI.  Every id is
 * "<origin>:<sha256 of what the object is>", never of when it ran: the same
 * cell from the same inputs has the same ids in every run, and a
 * resubmission updates KCIDB's records instead of adding to them.  The
 * schema and its provenance are in tests/report/kcidb/.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "apply.h"
#include "cache.h"
#include "conf.h"
#include "key.h"
#include "plan.h"
#include "report.h"

#define KCIDB_MAJOR 5
#define KCIDB_MINOR 3
#define EXCERPT_MAX 16384	/* the schema's maxLength of a log_excerpt */

/* The patch that made a step: no path for stock, no sha256 if unreadable. */
struct kpatch {
	char *path;
	char *sha256;
};

struct kcidb {
	const struct report *r;
	char *results;		/* absolute results directory; NULL: a report file */
	struct matrix_conf *conf;	/* NULL when the matrix could not be read */
	GHashTable *patches;	/* "<v>/<step>" -> struct kpatch * */
	GHashTable *commits;	/* "<v>/<step>" -> the commit a result recorded */
	GHashTable *checkouts;	/* identity -> json_t * in @checkout_list */
	json_t *checkout_list, *builds, *tests;
};

/* One cell's build, which its tests refer to. */
struct kcell {
	const struct rcell *c;
	char *identity;		/* what the build's id is the hash of */
	char *build_id;
	char *console;		/* URL of the console log, or NULL */
	GHashTable *paths;	/* test path -> times used, for distinct ids */
};

char *report_kcidb_check(const char *origin, const char *log_base)
{
	if (!origin || !g_regex_match_simple("^[a-z0-9_]+$", origin, 0, 0))
		return g_strdup_printf("--origin '%s': KCIDB takes lower case letters, digits and '_'",
				       origin ? origin : "");
	if (log_base && !g_uri_is_valid(log_base, G_URI_FLAGS_NONE, NULL))
		return g_strdup_printf("--log-base '%s' is not an absolute URL", log_base);
	return NULL;
}

static const char *origin_of(const struct kcidb *k)
{
	return k->r->origin ? k->r->origin : "kmatrix";
}

static char *kcidb_id(const struct kcidb *k, const char *identity)
{
	char *h = g_compute_checksum_for_string(G_CHECKSUM_SHA256, identity, -1);
	char *id = g_strdup_printf("%s:%s", origin_of(k), h);

	g_free(h);
	return id;
}

static bool is_hex(const char *s, size_t len)
{
	return s && strspn(s, "0123456789abcdef") == len && !s[len];
}

static char *step_key(const char *version, const char *step)
{
	return g_strdup_printf("%s/%s", version, step);
}

/* A string member only when there is something to say: KCIDB has no null. */
static void set_str(json_t *o, const char *key, const char *s)
{
	if (s && *s)
		json_object_set_new(o, key, json_string(s));
}

static void set_own(json_t *o, const char *key, char *s)
{
	set_str(o, key, s);
	g_free(s);
}

/* The last EXCERPT_MAX characters: the end of a log says most. */
static void set_excerpt(json_t *o, const char *text)
{
	char *clean = report_clean(text);
	glong n = g_utf8_strlen(clean, -1);
	const char *start = clean;

	if (n > EXCERPT_MAX)
		start = g_utf8_offset_to_pointer(clean, n - EXCERPT_MAX);
	set_str(o, "log_excerpt", start);
	g_free(clean);
}

/* A cell's evidence lines (the failing hunk, the compiler's errors, ...). */
static void set_evidence(json_t *o, const struct rcell *c)
{
	char *ev = report_evidence(c);

	if (ev)
		set_excerpt(o, ev);
	g_free(ev);
}

/*
 * The URL of @rel under the results directory, when that file is there:
 * relative to --log-base where the logs are published, else file://.
 */
static char *results_url(const struct kcidb *k, const char *rel)
{
	const char *base = k->r->log_base;
	char *path, *url = NULL, *esc;

	if (!k->results)
		return NULL;
	path = g_build_filename(k->results, rel, NULL);
	if (!g_file_test(path, G_FILE_TEST_IS_REGULAR)) {
		g_free(path);
		return NULL;
	}
	if (base) {
		esc = g_uri_escape_string(rel, "/", FALSE);
		url = g_strdup_printf("%s%s%s", base,
				      g_str_has_suffix(base, "/") ? "" : "/", esc);
		g_free(esc);
	} else {
		url = g_filename_to_uri(path, NULL, NULL);
	}
	g_free(path);
	return url;
}

static char *cell_log_url(const struct kcidb *k, const struct rcell *c,
			  const char *kind)
{
	char *rel = g_strdup_printf("%s/%s/%s.%s.log", c->version, c->arch,
				    c->step, kind);
	char *url = results_url(k, rel);

	g_free(rel);
	return url;
}

/* Each step's patch, as the matrix names it now. */
static void version_patches(struct kcidb *k, const struct version_conf *v)
{
	GError *err = NULL;
	GPtrArray *steps = apply_plan(v, &err);

	if (!steps) {
		fprintf(stderr, "kmatrix report: kcidb: %s (%s's patch files left out)\n",
			err->message, v->name);
		g_error_free(err);
		return;
	}
	for (guint i = 0; i < steps->len; i++) {
		const struct step *s = steps->pdata[i];
		struct kpatch *p;

		/* a baseline directory without its one patch names none */
		if (!s->patch && strcmp(s->id, "stock"))
			continue;
		p = g_new0(struct kpatch, 1);
		p->path = s->patch ? g_canonicalize_filename(s->patch, NULL) : NULL;
		p->sha256 = s->patch ? key_file_sha256(s->patch) : NULL;
		g_hash_table_insert(k->patches, step_key(v->name, s->id), p);
	}
	g_ptr_array_free(steps, TRUE);
}

/*
 * The patches are the project's as they are now: when run.json says that
 * the run applied another series, naming them would misdescribe the run.
 */
static void kcidb_conf(struct kcidb *k)
{
	const char *ran = jstr(k->r->run->meta, "series");
	char *top = cache_project_top();
	GError *err = NULL;
	char *now;

	k->conf = conf_open(top, NULL, &err);
	g_free(top);
	if (!k->conf) {
		fprintf(stderr, "kmatrix report: kcidb: %s (patch files and config names left out)\n",
			err->message);
		g_error_free(err);
		return;
	}
	now = plan_series_sha(k->conf);
	if (*ran && strcmp(ran, now))
		fprintf(stderr, "kmatrix report: kcidb: the series changed since the run (patch files left out)\n");
	else
		for (guint i = 0; i < k->conf->versions->len; i++)
			version_patches(k, k->conf->versions->pdata[i]);
	g_free(now);
}

static void kpatch_free(struct kpatch *p)
{
	g_free(p->path);
	g_free(p->sha256);
	g_free(p);
}

/* The step commits the results recorded, for the cells without one. */
static void collect_commits(struct kcidb *k)
{
	for (guint i = 0; i < k->r->run->cells->len; i++) {
		const struct rcell *c = k->r->run->cells->pdata[i];
		const char *commit = jstr(c->res, "commit");
		char *key;

		if (!is_hex(commit, 40))
			continue;
		key = step_key(c->version, c->step);
		if (!g_hash_table_contains(k->commits, key))
			g_hash_table_insert(k->commits, key, (gpointer)commit);
		else
			g_free(key);
	}
}

static void kcidb_init(struct kcidb *k, const struct report *r)
{
	memset(k, 0, sizeof(*k));
	k->r = r;
	if (g_file_test(r->run->dir, G_FILE_TEST_IS_DIR))
		k->results = g_canonicalize_filename(r->run->dir, NULL);
	k->patches = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					   (GDestroyNotify)kpatch_free);
	k->commits = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	k->checkouts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	k->checkout_list = json_array();
	k->builds = json_array();
	k->tests = json_array();
	kcidb_conf(k);
	collect_commits(k);
}

static void kcidb_clear(struct kcidb *k)
{
	g_free(k->results);
	conf_free(k->conf);
	g_hash_table_destroy(k->patches);
	g_hash_table_destroy(k->commits);
	g_hash_table_destroy(k->checkouts);
}

static const struct kpatch *step_patch(const struct kcidb *k, const struct rcell *c)
{
	char *key = step_key(c->version, c->step);
	const struct kpatch *p = g_hash_table_lookup(k->patches, key);

	g_free(key);
	return p;
}

/*
 * The step's commit: the cell's own, or for a cell without a result the
 * one another arch's result recorded (one tree per version).
 */
static const char *cell_commit(const struct kcidb *k, const struct rcell *c)
{
	const char *commit = jstr(c->res, "commit");
	char *key;

	if (is_hex(commit, 40))
		return commit;
	if (c->res)
		return NULL;
	key = step_key(c->version, c->step);
	commit = g_hash_table_lookup(k->commits, key);
	g_free(key);
	return commit;
}

/*
 * A checkout is its version's tree at the step's commit; a step that made
 * no commit (its patch did not apply) is known by its patch and series.
 */
static char *checkout_identity(const struct kcidb *k, const struct rcell *c,
			       const char *commit)
{
	const struct kpatch *p = step_patch(k, c);
	const char *series = jstr(k->r->run->meta, "series");

	if (commit)
		return g_strdup_printf("checkout\n%s\ncommit %s\n", c->version, commit);
	return g_strdup_printf("checkout\n%s\nstep %s\npatch %s\nseries %s\n",
			       c->version, c->step, p && p->sha256 ? p->sha256 : "-",
			       *series ? series : "-");
}

/*
 * patchset_files names the patch that made the step's commit (none for
 * stock), and patchset_hash is KCIDB's hash of it: sha256 over each
 * patch's sha256 and a newline.  A resource has only a name and a URL, so
 * the patch's own sha256 is in misc.
 */
static void checkout_patchset(json_t *co, json_t *misc, const struct kpatch *p)
{
	char *line, *hash, *name, *url;

	if (!p || (p->path && !p->sha256))
		return;
	if (!p->path) {
		json_object_set_new(co, "patchset_hash", json_string(""));
		return;
	}
	name = g_path_get_basename(p->path);
	url = g_filename_to_uri(p->path, NULL, NULL);
	line = g_strdup_printf("%s\n", p->sha256);
	hash = g_compute_checksum_for_string(G_CHECKSUM_SHA256, line, -1);
	if (url)
		json_object_set_new(co, "patchset_files",
				    json_pack("[{s:s, s:s}]", "name", name, "url", url));
	json_object_set_new(co, "patchset_hash", json_string(hash));
	json_object_set_new(misc, "patches",
			    json_pack("[{s:s, s:s}]", "name", name, "sha256", p->sha256));
	g_free(line);
	g_free(hash);
	g_free(name);
	g_free(url);
}

/* git am's log: written once per version, and copied beside each arch's. */
static char *apply_log_url(const struct kcidb *k, const struct rcell *c)
{
	char *rel = g_strdup_printf("%s/%s.apply.log", c->version, c->step);
	char *url = results_url(k, rel);

	g_free(rel);
	return url ? url : cell_log_url(k, c, "apply");
}

static json_t *checkout_new(const struct kcidb *k, const struct rcell *c,
			    const char *commit, const char *identity)
{
	json_t *co = json_object(), *misc = json_object();
	const char *subject = jstr(c->res, "subject");

	set_own(co, "id", kcidb_id(k, identity));
	set_str(co, "origin", origin_of(k));
	set_str(co, "tree_name", c->version);
	set_str(co, "git_commit_hash", commit);
	if (*subject)
		set_own(co, "comment", report_clean(subject));
	else
		set_own(co, "comment", g_strdup_printf("%s step %s", c->version, c->step));
	set_own(co, "log_url", apply_log_url(k, c));
	set_str(misc, "version", c->version);
	set_str(misc, "step", c->step);
	if (json_is_integer(json_object_get(c->res, "step_index")))
		json_object_set(misc, "step_index", json_object_get(c->res, "step_index"));
	checkout_patchset(co, misc, step_patch(k, c));
	json_object_set_new(co, "misc", misc);
	return co;
}

/*
 * What each cell tells of its checkout: when it started (the earliest
 * cell), and whether the patches could be combined.  A failure of the
 * host (no package, git failing) says nothing either way.
 */
static void checkout_note(json_t *co, const struct rcell *c)
{
	const char *started = jstr(c->res, "started");
	const char *was = jstr(co, "start_time");

	if (!c->res)
		return;
	if (*started && (!*was || strcmp(started, was) < 0))
		set_str(co, "start_time", started);
	if (!strcmp(c->verdict, "apply-failed")) {
		json_object_set_new(co, "valid", json_false());
		if (!json_object_get(co, "log_excerpt")) {
			char *ev = report_evidence(c);

			if (ev)
				set_excerpt(co, ev);
			g_free(ev);
		}
	} else if (is_hex(jstr(c->res, "commit"), 40) &&
		   !json_is_false(json_object_get(co, "valid"))) {
		json_object_set_new(co, "valid", json_true());
	}
}

static json_t *checkout_of(struct kcidb *k, const struct rcell *c,
			   const char **identity)
{
	const char *commit = cell_commit(k, c);
	char *ident = checkout_identity(k, c, commit);
	gpointer key, co;

	if (g_hash_table_lookup_extended(k->checkouts, ident, &key, &co)) {
		g_free(ident);
		ident = key;
	} else {
		co = checkout_new(k, c, commit, ident);
		json_array_append_new(k->checkout_list, co);
		g_hash_table_insert(k->checkouts, ident, co);
	}
	checkout_note(co, c);
	*identity = ident;
	return co;
}

/* The boot stage ran: whatever stopped the cell, the kernel was built. */
static bool reached_boot(const struct rcell *c)
{
	return cell_stage(c, "boot") > 0;
}

/*
 * A build's status is the build's alone: a kernel that built and then
 * failed to boot or to pass its tests is a PASS here, and its tests say
 * the rest.  A cell whose patches did not apply had nothing to build:
 * SKIP, under a checkout that is not valid.
 */
static const char *build_status(const struct rcell *c)
{
	static const char *const built[] = { "pass", "test-failed", "unexpected-pass",
					     "boot-failed", "timeout", NULL };

	if (!c->res)
		return "MISS";
	if (g_strv_contains(built, c->verdict) || reached_boot(c))
		return "PASS";
	if (!strcmp(c->verdict, "config-failed") || !strcmp(c->verdict, "build-failed"))
		return "FAIL";
	if (!strcmp(c->verdict, "apply-failed"))
		return "SKIP";
	return "ERROR";
}

static char *build_identity(const struct rcell *c, const char *checkout)
{
	const char *key = jstr(c->res, "key");

	if (is_hex(key, 64))
		return g_strdup_printf("build\n%s\nkey %s\n", c->id, key);
	/* no key: a missing cell, or one stopped before it had one */
	return g_strdup_printf("build\n%s\n%s", c->id, checkout);
}

/* tinyconfig, then the arch's fragment (named from the project's top). */
static char *config_name(const struct kcidb *k, const char *arch)
{
	const struct arch_conf *a = k->conf ? conf_arch(k->conf, arch) : NULL;
	char *top, *name;

	if (!a)
		return NULL;
	top = g_strconcat(k->conf->top, "/", NULL);
	name = g_strdup_printf("tinyconfig+%s", g_str_has_prefix(a->fragment, top) ?
					a->fragment + strlen(top) : a->fragment);
	g_free(top);
	return name;
}

static char *build_log_url(const struct kcidb *k, const struct rcell *c)
{
	bool config = !strcmp(c->verdict, "config-failed");
	char *url = cell_log_url(k, c, config ? "config" : "build");

	return url ? url : cell_log_url(k, c, config ? "build" : "config");
}

static json_t *build_misc(const struct kcidb *k, const struct rcell *c)
{
	json_t *inputs = json_object_get(c->res, "inputs");
	json_t *misc = json_object();

	set_str(misc, "cell", c->id);
	set_str(misc, "verdict", c->verdict);
	json_object_set_new(misc, "met", json_boolean(c->met));
	set_str(misc, "missing", c->missing);
	/* a knock-on: SKIP like its root, which alone carries the failure */
	if (c->knock_of)
		set_str(misc, "knock_on_of", c->knock_of->id);
	set_str(misc, "key", jstr(c->res, "key"));
	set_str(misc, "build_key", jstr(inputs, "build_key"));
	/* booted from the image store: this run compiled nothing for the cell */
	if (json_is_true(json_object_get(c->res, "image_reused")))
		json_object_set_new(misc, "image_reused", json_true());
	/* the build directory's .config is the last step built there */
	if (k->r->cache && *jstr(inputs, "config")) {
		set_own(misc, "config_path", g_build_filename(k->r->cache, "build",
							      c->version, c->arch,
							      ".config", NULL));
		set_str(misc, "config_sha256", jstr(inputs, "config"));
	}
	return misc;
}

static json_t *build_json(const struct kcidb *k, const struct kcell *x,
			  const char *checkout_id)
{
	const struct rcell *c = x->c;
	const char *status = build_status(c);
	double seconds = cell_stage(c, "configure") + cell_stage(c, "build");
	json_t *b = json_object();
	char *comment, *knock;

	set_str(b, "id", x->build_id);
	set_str(b, "origin", origin_of(k));
	set_str(b, "checkout_id", checkout_id);
	set_str(b, "status", status);
	if (g_regex_match_simple("^[a-z0-9_]+$", c->arch, 0, 0))
		set_str(b, "architecture", c->arch);
	set_own(b, "config_name", config_name(k, c->arch));
	knock = report_knock_text(c);
	comment = g_strdup_printf("%s: %s", c->id, knock ? knock : c->res ? jstr(c->res, "summary") :
				  c->missing ? c->missing : "missing");
	g_free(knock);
	set_own(b, "comment", report_clean(comment));
	g_free(comment);
	json_object_set_new(b, "misc", build_misc(k, c));
	if (!c->res)
		return b;
	set_str(b, "start_time", jstr(c->res, "started"));
	if (seconds > 0)
		json_object_set_new(b, "duration", json_real(seconds));
	set_own(b, "compiler", report_clean(jstr(json_object_get(c->res, "inputs"),
						 "toolchain")));
	set_own(b, "log_url", build_log_url(k, c));
	if (!strcmp(status, "FAIL") || !strcmp(status, "ERROR"))
		set_evidence(b, c);
	return b;
}

static json_t *environment(const struct rcell *c)
{
	json_t *argv = json_object_get(json_object_get(c->res, "inputs"), "qemu_argv");
	const char *qemu = json_string_value(json_array_get(argv, 0));
	const char *accel = jstr(c->res, "accel"), *host = jstr(c->res, "host");
	json_t *env = json_object(), *misc = json_object();

	set_own(env, "comment", g_strdup_printf("%s%s%s%s%s", qemu ? qemu : "QEMU",
						*accel ? ", " : "", accel,
						*host ? " on " : "", host));
	set_str(misc, "qemu", qemu);
	set_str(misc, "accel", accel);
	set_str(misc, "host", host);
	json_object_set_new(env, "misc", misc);
	return env;
}

/* A test of @x's build; the n-th test of one path gets its own id. */
static json_t *test_new(struct kcidb *k, struct kcell *x, const char *path,
			const char *status)
{
	guint n = GPOINTER_TO_UINT(g_hash_table_lookup(x->paths, path));
	char *identity = g_strdup_printf("%stest %s %u\n", x->identity, path, n);
	json_t *t = json_object();

	g_hash_table_insert(x->paths, g_strdup(path), GUINT_TO_POINTER(n + 1));
	set_own(t, "id", kcidb_id(k, identity));
	set_str(t, "origin", origin_of(k));
	set_str(t, "build_id", x->build_id);
	set_str(t, "path", path);
	set_str(t, "status", status);
	set_str(t, "log_url", x->console);
	json_object_set_new(t, "environment", environment(x->c));
	json_array_append_new(k->tests, t);
	g_free(identity);
	return t;
}

/*
 * KernelCI's labs report the boot itself as a test named "boot".  A
 * timeout is an ERROR (the guest started, the outcome is unknown); QEMU
 * failing to start is the harness's failure, a MISS.
 */
static const char *boot_status(const struct rcell *c)
{
	static const char *const booted[] = { "pass", "test-failed",
					      "unexpected-pass", NULL };

	if (g_strv_contains(booted, c->verdict))
		return "PASS";
	if (!strcmp(c->verdict, "boot-failed"))
		return "FAIL";
	if (!strcmp(c->verdict, "timeout"))
		return "ERROR";
	return reached_boot(c) ? "MISS" : NULL;
}

static void boot_test(struct kcidb *k, struct kcell *x)
{
	const char *status = boot_status(x->c);
	json_t *t;

	if (!status)
		return;
	t = test_new(k, x, "boot", status);
	if (cell_stage(x->c, "boot") > 0)
		json_object_set_new(t, "duration", json_real(cell_stage(x->c, "boot")));
	if (strcmp(status, "PASS")) {
		set_own(t, "comment", report_clean(jstr(x->c->res, "summary")));
		set_evidence(t, x->c);
	}
	json_object_set_new(t, "misc", json_pack("{s:s, s:s}", "cell", x->c->id,
						 "verdict", x->c->verdict));
}

/*
 * A KTAP report cut short (test.c's summaries say so) loses the cases it
 * did not print: the suite as a whole is the ERROR that carries that.
 */
static void suite_test(struct kcidb *k, struct kcell *x)
{
	const char *summary = jstr(x->c->res, "summary");
	json_t *ktap = json_object_get(x->c->res, "ktap");
	json_int_t plan = json_integer_value(json_object_get(ktap, "plan"));
	size_t ran = json_array_size(json_object_get(x->c->res, "tests"));
	json_t *t;

	if (strcmp(x->c->verdict, "test-failed"))
		return;
	if (plan >= 0 && (size_t)plan <= ran && ran &&
	    !g_str_has_prefix(summary, "KTAP incomplete") &&
	    !g_str_has_prefix(summary, "no KTAP output"))
		return;
	t = test_new(k, x, "rlimit", "ERROR");
	set_own(t, "comment", report_clean(summary));
	set_evidence(t, x->c);
	json_object_set_new(t, "misc", json_pack("{s:s, s:I}", "cell", x->c->id,
						 "plan", plan));
}

/* One component of a test path, as KCIDB's pattern allows it. */
static void path_part(GString *out, const char *s)
{
	if (!*s)
		g_string_append_c(out, '_');
	for (; *s; s++)
		g_string_append_c(out, g_ascii_isalnum(*s) || *s == '_' || *s == '-' ?
				       *s : '_');
}

/* "rlimit.<suite>.<case>"; a nested case's dots stay the path's own. */
static char *test_path(const char *suite, const char *name)
{
	GString *p = g_string_new("rlimit.");
	char **parts = g_strsplit(name, ".", -1);

	path_part(p, suite);
	if (!parts[0])
		g_string_append(p, "._");
	for (int i = 0; parts[i]; i++) {
		g_string_append_c(p, '.');
		path_part(p, parts[i]);
	}
	g_strfreev(parts);
	return g_string_free(p, FALSE);
}

/*
 * The judge names a compat suite's cases "<suite>.<case>" and the native
 * suite's by the case alone; the native suite is the arch's (as in the
 * result's abi_runtime).
 */
static char *case_suite(const struct kcidb *k, const struct rcell *c,
			const char *name, const char **rest)
{
	const struct arch_conf *a = k->conf ? conf_arch(k->conf, c->arch) : NULL;
	json_t *abi = json_object_get(c->res, "abi_runtime");
	const char *dot = strchr(name, '.');
	char *suite = dot ? g_strndup(name, dot - name) : NULL;

	if (suite && strcmp(suite, c->arch) &&
	    ((a && !strcmp(a->compat, suite)) || json_object_get(abi, suite))) {
		*rest = dot + 1;
		return suite;
	}
	g_free(suite);
	*rest = name;
	return g_strdup(c->arch);
}

/* The guest's runner says so when a case died rather than failed. */
static const char *case_status(json_t *t)
{
	const char *result = jstr(t, "result"), *diag = jstr(t, "diag");

	if (!strcmp(result, "ok"))
		return "PASS";
	if (!strcmp(result, "skip"))
		return "SKIP";
	if (strstr(diag, "case killed by signal") || strstr(diag, "case exited with status"))
		return "ERROR";
	return "FAIL";
}

static void case_test(struct kcidb *k, struct kcell *x, json_t *t)
{
	const char *expected = jstr(t, "expected"), *name;
	bool met = json_is_true(json_object_get(t, "met"));
	char *suite = case_suite(k, x->c, jstr(t, "name"), &name);
	char *path = test_path(suite, name);
	json_t *o = test_new(k, x, path, case_status(t));

	if (!met)
		set_own(o, "comment", g_strdup_printf("departed: expected %s at step %s, got %s",
						      expected, x->c->step, jstr(t, "result")));
	else if (!strcmp(expected, "fail"))
		set_own(o, "comment", g_strdup_printf("expected to fail at step %s",
						      x->c->step));
	if (*jstr(t, "diag"))
		set_excerpt(o, jstr(t, "diag"));
	json_object_set_new(o, "misc",
			    json_pack("{s:s, s:s, s:s, s:s, s:s, s:b}", "cell", x->c->id,
				      "suite", suite, "case", name, "result", jstr(t, "result"),
				      "expected", expected, "met", met));
	g_free(path);
	g_free(suite);
}

static void kcidb_cell(struct kcidb *k, const struct rcell *c)
{
	struct kcell x = { .c = c };
	const char *checkout;
	json_t *co = checkout_of(k, c, &checkout);
	json_t *t;
	size_t i;

	x.identity = build_identity(c, checkout);
	x.build_id = kcidb_id(k, x.identity);
	json_array_append_new(k->builds, build_json(k, &x, jstr(co, "id")));
	if (c->res) {
		x.console = cell_log_url(k, c, "console");
		x.paths = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
		boot_test(k, &x);
		suite_test(k, &x);
		json_array_foreach(json_object_get(c->res, "tests"), i, t)
			case_test(k, &x, t);
		g_hash_table_destroy(x.paths);
	}
	g_free(x.console);
	g_free(x.build_id);
	g_free(x.identity);
}

void report_kcidb(GString *out, const struct report *r)
{
	struct kcidb k;
	json_t *doc;
	char *s;

	kcidb_init(&k, r);
	for (guint i = 0; i < r->run->cells->len; i++)
		kcidb_cell(&k, r->run->cells->pdata[i]);
	doc = json_pack("{s:{s:i, s:i}, s:o, s:o, s:o}",
			"version", "major", KCIDB_MAJOR, "minor", KCIDB_MINOR,
			"checkouts", k.checkout_list, "builds", k.builds,
			"tests", k.tests);
	s = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(10));
	g_string_append(out, s);
	g_string_append_c(out, '\n');
	free(s);
	json_decref(doc);
	kcidb_clear(&k);
}
