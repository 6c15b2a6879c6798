// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>

#include "distcc.h"
#include "run.h"

#define DISTCC_ERROR g_quark_from_static_string("kmatrix-distcc")

char *distcc_hosts(const char *opt)
{
	const char *h = opt ? opt : g_getenv(DISTCC_HOSTS_ENV);
	char *s = g_strstrip(g_strdup(h ? h : ""));

	if (!*s)
		g_clear_pointer(&s, g_free);
	return s;
}

char **distcc_environ(char **env, const char *hosts)
{
	env = g_environ_setenv(env, "CCACHE_PREFIX", "distcc", TRUE);
	return g_environ_setenv(env, "DISTCC_HOSTS", hosts, TRUE);
}

static bool have_distcc(void)
{
	char *path = g_find_program_in_path("distcc");

	g_free(path);
	return path != NULL;
}

/* `distcc -j` prints the sum of the hosts' slots, and nothing when the list is bad. */
unsigned int distcc_jobs(const char *hosts, unsigned int local, GError **err)
{
	char *argv[] = { "distcc", "-j", NULL };
	char **env;
	char *out;
	guint64 n = 0;

	if (!have_distcc()) {
		g_set_error(err, DISTCC_ERROR, 2,
			    "distcc is not installed (apt-get install distcc)");
		return 0;
	}
	env = distcc_environ(g_get_environ(), hosts);
	out = run_capture(argv, NULL, env);
	if (!out ||
	    !g_ascii_string_to_unsigned(out, 10, 1, G_MAXUINT, &n, NULL))
		g_set_error(
			err, DISTCC_ERROR, 2,
			"distcc finds no usable host in '%s' (see: DISTCC_HOSTS='%s' distcc -j)",
			hosts, hosts);
	g_free(out);
	g_strfreev(env);
	return n ? MAX((unsigned int)n, local) : 0;
}
