// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "key.h"
#include "pack.h"
#include "run.h"

/*
 * mkinitramfs [--debian-arch A] [--triplet T] [--userland U]
 *             [--compat NAME=BIN] ARCH OUT TESTBIN [INIT]
 */
static char **packer_argv(const char *top, const struct arch_conf *a,
			  const struct pack *p, const char *out)
{
	GPtrArray *v = g_ptr_array_new();

	g_ptr_array_add(v, g_build_filename(top, "guest-tests", "mkinitramfs", NULL));
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
		      const char *out, const char *log, const char *cache)
{
	char **argv = packer_argv(top, a, p, out);
	char **env = g_environ_setenv(g_get_environ(), "KMATRIX_CACHE", cache, TRUE);
	struct child c = { .argv = argv, .cwd = top, .log = log, .env = env,
			   .timeout = 300 };
	int rc = run_command(&c);

	g_strfreev(env);
	g_strfreev(argv);
	return rc;
}

/* Same content, same name: a cell's key can use the hash, and reruns reuse it. */
static int store(const char *dir, const struct arch_conf *a, const char *tmp,
		 struct pack *p)
{
	char *name;

	p->sha = key_file_sha256(tmp);
	if (!p->sha)
		return -1;
	name = g_strdup_printf("%s-%.16s.cpio.gz", a->name, p->sha);
	p->path = g_build_filename(dir, name, NULL);
	g_free(name);
	if (g_file_test(p->path, G_FILE_TEST_IS_REGULAR)) {
		unlink(tmp);
		return 0;
	}
	return rename(tmp, p->path);
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

int pack_initramfs(const char *top, const char *cache, const struct arch_conf *a,
		   struct pack *p, struct outcome *o)
{
	char *dir = g_build_filename(cache, "initramfs", NULL);
	char *tmp = g_strdup_printf("%s/.%s-%d.cpio.gz", dir, a->name, (int)getpid());
	char *log = g_strdup_printf("%s/%s.pack.log", dir, a->name);
	gint64 t0 = g_get_monotonic_time();
	struct usage *prev;
	int rc = -1;

	memset(p, 0, sizeof(*p));
	prev = run_usage_sink(&p->usage);
	p->test_binary = g_build_filename(top, "build", "guest", a->name, "rlimit-tests", NULL);
	g_mkdir_with_parents(dir, 0755);
	unlink(log);
	p->test_binary_sha = key_file_sha256(p->test_binary);
	if (p->test_binary_sha && !compat_built(a, p, o)) {
		g_clear_pointer(&p->test_binary_sha, g_free);
	} else if (!p->test_binary_sha) {
		outcome_set(o, "setup-error", "%s is missing: run make", p->test_binary);
		outcome_add(o, "the guest test binary %s has not been built (make builds it)",
			    p->test_binary);
	} else if (run_packer(top, a, p, tmp, log, cache) != 0) {
		outcome_set(o, "infra-error", "guest-tests/mkinitramfs %s failed", a->name);
		outcome_add_log(o, log, 15, true);
	} else if (store(dir, a, tmp, p) < 0) {
		outcome_set(o, "infra-error", "cannot store the initramfs in %s", dir);
	} else {
		rc = 0;
	}
	unlink(tmp);
	p->seconds = (g_get_monotonic_time() - t0) / 1e6;
	run_usage_sink(prev);
	g_free(dir);
	g_free(tmp);
	g_free(log);
	return rc;
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
