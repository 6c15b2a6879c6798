// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "key.h"
#include "pack.h"
#include "run.h"

static int run_packer(const char *top, const struct arch_conf *a, const char *out,
		      const char *bin, const char *log, const char *cache)
{
	char *tool = g_build_filename(top, "guest-tests", "mkinitramfs", NULL);
	char *argv[] = { tool, a->name, (char *)out, (char *)bin, a->init, NULL };
	char **env = g_environ_setenv(g_get_environ(), "KMATRIX_CACHE", cache, TRUE);
	struct child c = { .argv = argv, .cwd = top, .log = log, .env = env,
			   .timeout = 300 };
	int rc = run_command(&c);

	g_strfreev(env);
	g_free(tool);
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
	if (!p->test_binary_sha) {
		outcome_set(o, "setup-error", "%s is missing: run make", p->test_binary);
		outcome_add(o, "the guest test binary %s has not been built (make builds it)",
			    p->test_binary);
	} else if (run_packer(top, a, tmp, p->test_binary, log, cache) != 0) {
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
	g_free(p->path);
	g_free(p->sha);
	memset(p, 0, sizeof(*p));
}
