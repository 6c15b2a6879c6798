// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "key.h"
#include "memo.h"
#include "pack.h"
#include "stagelog.h"
#include "run.h"

/*
 * mkinitramfs [--debian-arch A] [--triplet T] [--userland U]
 *             [--compat NAME=BIN] [--sources FILE] ARCH OUT TESTBIN [INIT]
 */
static char **packer_argv(const char *top, const struct arch_conf *a,
			  const struct pack *p, const char *out, const char *sources)
{
	GPtrArray *v = g_ptr_array_new();

	g_ptr_array_add(v, g_build_filename(top, "guest-tests", "mkinitramfs", NULL));
	if (sources) {
		g_ptr_array_add(v, g_strdup("--sources"));
		g_ptr_array_add(v, g_strdup(sources));
	}
	g_ptr_array_add(v, g_strdup("--debian-arch"));
	g_ptr_array_add(v, g_strdup(a->debian_arch));
	g_ptr_array_add(v, g_strdup("--userland"));
	g_ptr_array_add(v, g_strdup(a->userland));
	if (*a->triplet) {
		g_ptr_array_add(v, g_strdup("--triplet"));
		g_ptr_array_add(v, g_strdup(a->triplet));
	}
	if (p->compat_binary) {
		g_ptr_array_add(v, g_strdup("--compat"));
		g_ptr_array_add(v, g_strdup_printf("%s=%s", a->compat, p->compat_binary));
	}
	g_ptr_array_add(v, g_strdup(a->name));
	g_ptr_array_add(v, g_strdup(out));
	g_ptr_array_add(v, g_strdup(p->test_binary));
	if (a->init)
		g_ptr_array_add(v, g_strdup(a->init));
	g_ptr_array_add(v, NULL);
	return (char **)g_ptr_array_free(v, FALSE);
}

static int run_packer(const char *top, const struct arch_conf *a, const struct pack *p,
		      const char *out, const char *sources, const char *log, const char *cache)
{
	char **argv = packer_argv(top, a, p, out, sources);
	char **env = g_environ_setenv(g_get_environ(), "KMATRIX_CACHE", cache, TRUE);
	struct child c = { .argv = argv, .cwd = top, .log = log, .env = env,
			   .timeout = 300 };
	int rc = run_command(&c);

	g_strfreev(env);
	g_strfreev(argv);
	return rc;
}

static char *record_path(const char *dir, const struct arch_conf *a)
{
	char *name = g_strdup_printf("%s.inputs", a->name);
	char *path = g_build_filename(dir, name, NULL);

	g_free(name);
	return path;
}

static char *stored_path(const char *dir, const struct arch_conf *a, const char *sha)
{
	char *name = g_strdup_printf("%s-%.16s.cpio.gz", a->name, sha);
	char *path = g_build_filename(dir, name, NULL);

	g_free(name);
	return path;
}

/* Same content, same name: a cell's key can use the hash, and reruns reuse it. */
static int store(const char *dir, const struct arch_conf *a, const char *tmp,
		 struct pack *p)
{
	p->sha = key_file_sha256(tmp);
	if (!p->sha)
		return -1;
	p->path = stored_path(dir, a, p->sha);
	if (g_file_test(p->path, G_FILE_TEST_IS_REGULAR)) {
		unlink(tmp);
		return 0;
	}
	return rename(tmp, p->path);
}

/*
 * What an initramfs is made of: mkinitramfs itself, its arguments (but
 * where it writes) and every file it packed, each by content.  NULL when
 * one of them cannot be read.
 */
static char *input_key(const char *top, const char *cache, const struct arch_conf *a,
		       const struct pack *p, char **sources)
{
	char **argv = packer_argv(top, a, p, "-", NULL);
	GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
	char *script = memo_file_sha256(cache, argv[0]), *key = NULL;
	bool whole = script != NULL;

	for (int i = 0; argv[i]; i++)
		g_checksum_update(sum, (const guchar *)argv[i], strlen(argv[i]) + 1);
	g_checksum_update(sum, (const guchar *)(script ? script : ""), -1);
	for (int i = 0; whole && sources[i]; i++) {
		char *sha = memo_file_sha256(cache, sources[i]);

		whole = sha != NULL;
		g_checksum_update(sum, (const guchar *)sources[i], strlen(sources[i]) + 1);
		g_checksum_update(sum, (const guchar *)(sha ? sha : ""), -1);
		g_free(sha);
	}
	if (whole)
		key = g_strdup(g_checksum_get_string(sum));
	g_checksum_free(sum);
	g_free(script);
	g_strfreev(argv);
	return key;
}

/*
 * The stored initramfs the last pack made, when nothing it was made of
 * changed and it is still whole: packing it again would give its bytes.
 */
static bool reuse(const char *top, const char *cache, const char *dir,
		  const struct arch_conf *a, struct pack *p)
{
	GKeyFile *k = g_key_file_new();
	char *rec = record_path(dir, a);
	char **sources = NULL;
	char *inputs = NULL, *sha = NULL, *now = NULL, *path = NULL, *have = NULL;
	bool ok = false;

	if (g_key_file_load_from_file(k, rec, G_KEY_FILE_NONE, NULL)) {
		sources = g_key_file_get_string_list(k, "pack", "sources", NULL, NULL);
		inputs = g_key_file_get_string(k, "pack", "inputs", NULL);
		sha = g_key_file_get_string(k, "pack", "sha", NULL);
	}
	if (sources && inputs && sha) {
		now = input_key(top, cache, a, p, sources);
		path = now && !strcmp(now, inputs) ? stored_path(dir, a, sha) : NULL;
		have = path ? memo_file_sha256(cache, path) : NULL;
		ok = have && !strcmp(have, sha);
	}
	if (ok) {
		p->sha = g_steal_pointer(&sha);
		p->path = g_steal_pointer(&path);
	}
	g_key_file_free(k);
	g_strfreev(sources);
	g_free(rec);
	g_free(inputs);
	g_free(sha);
	g_free(now);
	g_free(path);
	g_free(have);
	return ok;
}

/* What the next run's reuse() reads: the packed files and their key. */
static void remember(const char *top, const char *cache, const char *dir,
		     const struct arch_conf *a, const struct pack *p, const char *sources_file)
{
	char *text = NULL, **sources, *key, *rec = record_path(dir, a);
	GKeyFile *k;

	unlink(rec);
	if (!g_file_get_contents(sources_file, &text, NULL, NULL)) {
		g_free(rec);
		return;
	}
	sources = g_strsplit(g_strstrip(text), "\n", -1);
	key = *text ? input_key(top, cache, a, p, sources) : NULL;
	if (key) {
		k = g_key_file_new();
		g_key_file_set_string(k, "pack", "inputs", key);
		g_key_file_set_string(k, "pack", "sha", p->sha);
		g_key_file_set_string_list(k, "pack", "sources", (const char *const *)sources,
					   g_strv_length(sources));
		/* no record costs a pack, never a stale initramfs */
		g_key_file_save_to_file(k, rec, NULL);
		g_key_file_free(k);
	}
	g_strfreev(sources);
	g_free(text);
	g_free(key);
	g_free(rec);
}

/* The compat suite's binary sits beside the main one. */
static bool compat_built(const struct arch_conf *a, struct pack *p,
			 struct outcome *o)
{
	char *dir;

	if (!*a->compat)
		return true;
	dir = g_path_get_dirname(p->test_binary);
	p->compat_binary = g_strdup_printf("%s/rlimit-tests-%s", dir, a->compat);
	g_free(dir);
	if (g_file_test(p->compat_binary, G_FILE_TEST_IS_REGULAR))
		return true;
	outcome_set(o, "setup-error", "%s is missing: run make", p->compat_binary);
	outcome_add(o, "the %s compat test binary %s has not been built (make builds it)",
		    a->compat, p->compat_binary);
	return false;
}

/* Pack with mkinitramfs, store by content and record what went in. */
static int pack_new(const char *top, const char *cache, const char *dir,
		    const struct arch_conf *a, struct pack *p, struct outcome *o)
{
	char *tmp = g_strdup_printf("%s/.%s-%d.cpio.gz", dir, a->name, (int)getpid());
	char *sources = g_strdup_printf("%s/.%s-%d.sources", dir, a->name, (int)getpid());
	char *log = g_strdup_printf("%s/%s.pack.log", dir, a->name);
	int rc = -1;

	unlink(log);
	if (run_packer(top, a, p, tmp, sources, log, cache) != 0) {
		/* the warning a run prints: why, and where the rest is */
		char *why = stagelog_reason(log, "mkinitramfs: ");

		outcome_set(o, "infra-error", "guest-tests/mkinitramfs %s failed%s%s (log: %s)",
			    a->name, why ? ": " : "", why ? why : "", log);
		outcome_add_log(o, log, 15, true);
		g_free(why);
	} else if (store(dir, a, tmp, p) < 0) {
		outcome_set(o, "infra-error", "cannot store the initramfs in %s", dir);
	} else {
		remember(top, cache, dir, a, p, sources);
		rc = 0;
	}
	unlink(tmp);
	unlink(sources);
	g_free(tmp);
	g_free(sources);
	g_free(log);
	return rc;
}

int pack_lookup(const char *top, const char *cache, const struct arch_conf *a,
		struct pack *p, struct outcome *o)
{
	char *dir = g_build_filename(cache, "initramfs", NULL);
	gint64 t0 = g_get_monotonic_time();
	struct usage *prev;
	int rc = 1;

	memset(p, 0, sizeof(*p));
	prev = run_usage_sink(&p->usage);
	p->test_binary = g_build_filename(top, "build", "guest", a->name, "rlimit-tests", NULL);
	p->test_binary_sha = memo_file_sha256(cache, p->test_binary);
	if (p->test_binary_sha && !compat_built(a, p, o)) {
		g_clear_pointer(&p->test_binary_sha, g_free);
		rc = -1;
	} else if (!p->test_binary_sha) {
		outcome_set(o, "setup-error", "%s is missing: run make", p->test_binary);
		outcome_add(o, "the guest test binary %s has not been built (make builds it)",
			    p->test_binary);
		rc = -1;
	} else if (reuse(top, cache, dir, a, p)) {
		p->reused = true;
		rc = 0;
	}
	p->seconds = (g_get_monotonic_time() - t0) / 1e6;
	run_usage_sink(prev);
	g_free(dir);
	return rc;
}

int pack_make(const char *top, const char *cache, const struct arch_conf *a,
	      struct pack *p, struct outcome *o)
{
	char *dir = g_build_filename(cache, "initramfs", NULL);
	gint64 t0 = g_get_monotonic_time();
	struct usage *prev = run_usage_sink(&p->usage);
	int rc;

	g_mkdir_with_parents(dir, 0755);
	rc = pack_new(top, cache, dir, a, p, o);
	p->seconds += (g_get_monotonic_time() - t0) / 1e6;
	run_usage_sink(prev);
	g_free(dir);
	return rc;
}

int pack_initramfs(const char *top, const char *cache, const struct arch_conf *a,
		   struct pack *p, struct outcome *o)
{
	int rc = pack_lookup(top, cache, a, p, o);

	return rc == 1 ? pack_make(top, cache, a, p, o) : rc;
}

void pack_clear(struct pack *p)
{
	g_free(p->test_binary);
	g_free(p->test_binary_sha);
	g_free(p->compat_binary);
	g_free(p->path);
	g_free(p->sha);
	memset(p, 0, sizeof(*p));
}
