// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <string.h>

#include "cell.h"
#include "distcc.h"

void step_free(struct step *s)
{
	g_free(s->id);
	g_free(s->patch);
	g_free(s->commit);
	g_free(s->tree);
	g_free(s->subject);
	g_free(s->failure);
	g_ptr_array_free(s->evidence, TRUE);
	g_free(s);
}

void outcome_set(struct outcome *o, const char *verdict, const char *fmt, ...)
{
	va_list ap;

	o->verdict = verdict;
	g_free(o->summary);
	va_start(ap, fmt);
	o->summary = g_strdup_vprintf(fmt, ap);
	va_end(ap);
}

void outcome_add(struct outcome *o, const char *fmt, ...)
{
	va_list ap;

	if (!o->evidence)
		o->evidence = g_ptr_array_new_with_free_func(g_free);
	va_start(ap, fmt);
	g_ptr_array_add(o->evidence, g_strdup_vprintf(fmt, ap));
	va_end(ap);
}

void outcome_clear(struct outcome *o)
{
	g_free(o->summary);
	if (o->evidence)
		g_ptr_array_free(o->evidence, TRUE);
	memset(o, 0, sizeof(*o));
}

void evidence_add_log(GPtrArray *to, const char *path, int max, bool tail)
{
	char *text = NULL, **lines;
	int n, from;

	if (!g_file_get_contents(path, &text, NULL, NULL))
		return;
	g_strchomp(text);
	lines = g_strsplit(text, "\n", -1);
	n = g_strv_length(lines);
	from = tail && n > max ? n - max : 0;
	for (int i = from; i < n && i < from + max; i++)
		g_ptr_array_add(to, g_strdup(g_strchomp(lines[i])));
	g_strfreev(lines);
	g_free(text);
}

void outcome_add_log(struct outcome *o, const char *path, int max, bool tail)
{
	if (!o->evidence)
		o->evidence = g_ptr_array_new_with_free_func(g_free);
	evidence_add_log(o->evidence, path, max, tail);
}

char *cell_log(const struct cell *c, const char *stage)
{
	char *name = g_strdup_printf("%s.%s.log", c->step->id, stage);
	char *p = g_build_filename(c->logdir, name, NULL);

	g_free(name);
	return p;
}

char *cell_cc(const struct arch_conf *a)
{
	return g_strdup_printf("%sgcc", a->cross_compile);
}

char **cell_make_env(const struct cell *c)
{
	char **env = g_get_environ();
	char *ccache = g_build_filename(c->cache, "ccache", NULL);

	env = g_environ_setenv(env, "CCACHE_DIR", ccache, TRUE);
	/*
	 * kbuild names the tree by its absolute path; relative to the build
	 * directory it is the same in every cache, so another cache (chaos,
	 * a fault case's own) hits the objects this one compiled.
	 */
	env = g_environ_setenv(env, "CCACHE_BASEDIR", "/", TRUE);
	/* Messages the evidence extraction reads must not be translated. */
	env = g_environ_setenv(env, "LC_ALL", "C", TRUE);
	/* Through the environment, not CC: the command line stays the same. */
	if (c->distcc)
		env = distcc_environ(env, c->distcc);
	g_free(ccache);
	return env;
}

/*
 * The same make variables for every make of a build directory: kbuild
 * rebuilds everything when CC's command line changes, and Kconfig probes
 * the compiler, so configure and build must agree.
 */
GPtrArray *cell_make_argv(const struct cell *c, const char *target)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
	char *cc = cell_cc(c->a);

	g_ptr_array_add(a, g_strdup("make"));
	g_ptr_array_add(a, g_strdup_printf("O=%s", c->build_dir));
	g_ptr_array_add(a, g_strdup_printf("ARCH=%s", c->a->kernel_arch));
	g_ptr_array_add(a, g_strdup_printf("CROSS_COMPILE=%s", c->a->cross_compile));
	g_ptr_array_add(a, g_strdup_printf("CC=ccache %s", cc));
	if (target)
		g_ptr_array_add(a, g_strdup(target));
	g_free(cc);
	return a;
}
