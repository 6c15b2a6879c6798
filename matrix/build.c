// SPDX-License-Identifier: GPL-2.0
/*
 * Build: one incremental make in the version x arch build directory.  The
 * evidence of a failure is the compiler's own error lines.
 */
#include <string.h>
#include <unistd.h>

#include "cell.h"
#include "run.h"

#define ERROR_LINES 30

static bool is_error_line(const char *l)
{
	return strstr(l, "error:") || strstr(l, "Error ") ||
	       strstr(l, "undefined reference") || strstr(l, "fatal:");
}

/* The host failed us rather than the kernel: say so, not build-failed. */
const char *build_infra_cause(const char *text)
{
	if (strstr(text, "No space left on device"))
		return "no space left on device";
	/* Said by run.c, or in the sandbox by bwrap or setpriv. */
	if (strstr(text, "kmatrix: cannot run") || strstr(text, "bwrap: execvp ") ||
	    strstr(text, "setpriv: failed to execute "))
		return "a tool is missing";
	if (strstr(text, "Cannot allocate memory"))
		return "out of memory";
	return NULL;
}

void build_evidence(struct outcome *o, const char *log, const char *target)
{
	char *text = NULL, **lines;
	const char *infra;
	int n = 0;

	if (!g_file_get_contents(log, &text, NULL, NULL))
		text = g_strdup("");
	infra = build_infra_cause(text);
	if (infra)
		outcome_set(o, "infra-error", "build: %s", infra);
	else
		outcome_set(o, "build-failed", "make %s failed", target);
	lines = g_strsplit(text, "\n", -1);
	for (int i = 0; lines[i] && n < ERROR_LINES; i++)
		if (is_error_line(lines[i]) || (infra && strstr(lines[i], infra))) {
			outcome_add(o, "%s", lines[i]);
			n++;
		}
	if (!n)
		outcome_add_log(o, log, 20, true);
	g_strfreev(lines);
	g_free(text);
}

int build_cell(struct cell *c)
{
	char *log = cell_log(c, "build");
	char *stats = cell_log(c, "ccache");
	/* ccache's per-compilation outcomes: how much of this build it served. */
	char **env = g_environ_setenv(cell_make_env(c), "CCACHE_STATSLOG", stats, TRUE);
	GPtrArray *argv = cell_make_argv(c, NULL);
	char *image = g_build_filename(c->build_dir, c->a->image, NULL);
	struct child ch = { .cwd = c->src, .env = env, .log = log };
	int rc;

	unlink(log);
	unlink(stats);
	g_ptr_array_add(argv, g_strdup_printf("-j%u", c->jobs ? c->jobs : g_get_num_processors()));
	g_ptr_array_add(argv, g_strdup(c->a->image_target));
	g_ptr_array_add(argv, NULL);
	ch.argv = (char **)argv->pdata;
	rc = run_command(&ch);
	if (rc != 0 && !run_stop_signal()) {
		build_evidence(&c->out, log, c->a->image_target);
	} else if (rc == 0 && !g_file_test(image, G_FILE_TEST_IS_REGULAR)) {
		outcome_set(&c->out, "build-failed", "make succeeded but %s is missing", image);
		rc = 1;
	}
	g_ptr_array_free(argv, TRUE);
	g_strfreev(env);
	g_free(image);
	g_free(log);
	g_free(stats);
	return rc;
}
