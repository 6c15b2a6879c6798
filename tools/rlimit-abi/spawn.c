// SPDX-License-Identifier: GPL-2.0
/*
 * Child processes: every tool rlimit-abi runs (make, cpp, gcc, git, tar),
 * through lib/run.h like kmatrix's, so both kill a child's whole group
 * and report a tool that cannot start the same way.
 */
#include <sys/wait.h>

#include "abi.h"
#include "run.h"

int abi_run(char **argv, const char *cwd, char **out, char **err)
{
	return abi_run_env(argv, NULL, cwd, out, err);
}

int abi_run_env(char **argv, char **env, const char *cwd, char **out,
		char **err)
{
	struct child c = { .argv = argv, .env = env, .cwd = cwd };
	int rc = run_output(&c, out, err);

	/* callers print or parse them: never NULL */
	if (out && !*out)
		*out = g_strdup("");
	if (err && !*err)
		*err = g_strdup(rc < 0 ? "could not be started" : "");
	if (rc < 0 || !c.done || !WIFEXITED(c.status))
		return -1;
	return WEXITSTATUS(c.status);
}
