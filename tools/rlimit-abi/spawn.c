// SPDX-License-Identifier: GPL-2.0
/* Child processes: every tool rlimit-abi runs (make, cpp, gcc, git, tar). */
#include <sys/wait.h>

#include "abi.h"

/*
 * Run argv (found in PATH) in cwd; return its exit code, or -1 when it
 * could not run or died of a signal.  out and err, when not NULL, receive
 * what it printed.
 */
int abi_run(char **argv, const char *cwd, char **out, char **err)
{
	return abi_run_env(argv, NULL, cwd, out, err);
}

/* The same, with env as the whole environment (NULL: ours). */
int abi_run_env(char **argv, char **env, const char *cwd, char **out,
		char **err)
{
	GError *error = NULL;
	char *o = NULL, *e = NULL;
	int status;

	if (!g_spawn_sync(cwd, argv, env, G_SPAWN_SEARCH_PATH, NULL, NULL, &o,
			  &e, &status, &error)) {
		if (err)
			*err = g_strdup(error->message);
		g_error_free(error);
		if (out)
			*out = g_strdup("");
		return -1;
	}
	if (out)
		*out = o;
	else
		g_free(o);
	if (err)
		*err = e;
	else
		g_free(e);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return -1;
}
