// SPDX-License-Identifier: GPL-2.0
/*
 * Build: one incremental make in the version x arch build directory.  The
 * evidence of a failure is the compiler's own error lines.
 */
#include <unistd.h>

#include "build.h"
#include "cell.h"
#include "run.h"
#include "stagelog.h"

/* The compiler's error lines; a log without any shows its end. */
static const struct stage_failure build_failure = {
	.stage = "build", .verdict = "build-failed", .error_lines = 30, .tail = 20,
};

void build_evidence(struct outcome *o, const char *log, const char *target, const char *dir)
{
	char *what = g_strdup_printf("make %s", target);

	stagelog_judge(o, log, &build_failure, what, dir);
	g_free(what);
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
		build_evidence(&c->out, log, c->a->image_target, c->build_dir);
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
