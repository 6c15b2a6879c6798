// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI check of the run: build/rlimit-abi (when built) over every step
 * commit of the versions run, its JSON kept in run.json's "abi".  A broken
 * ABI is reported, but it is not a cell verdict.
 */
#include <stdio.h>
#include <unistd.h>

#include "plan.h"
#include "progress.h"
#include "result.h"
#include "run.h"

#define ABI_TIMEOUT (30 * 60)

static void add_trees(GPtrArray *argv, const struct plan *p)
{
	for (guint i = 0; i < p->vruns->len; i++) {
		const struct version_run *vr = p->vruns->pdata[i];

		for (guint s = 0; !vr->setup_error && s < vr->steps->len; s++) {
			const struct step *st = vr->steps->pdata[s];

			if (!st->commit)
				continue;
			/* The baseline is the tree without RLIMIT_NICE/RTPRIO. */
			if (!g_strcmp0(st->id, "baseline"))
				g_ptr_array_add(argv, g_strdup("--baseline"));
			g_ptr_array_add(argv, g_strdup_printf("%s@%s", vr->tree, st->commit));
		}
	}
}

static json_t *abi_load(const char *path, int rc, const char *log)
{
	json_error_t jerr;
	json_t *j = json_load_file(path, 0, &jerr);

	if (!j)
		return json_pack("{s:s, s:i, s:s}", "error", "rlimit-abi wrote no JSON",
				 "exit", rc, "log", log);
	return j;
}

void abi_check(struct plan *p)
{
	char *tool = g_build_filename(p->top, "build", "rlimit-abi", NULL);
	char *json = g_build_filename(p->results, "abi.json", NULL);
	char *log = g_build_filename(p->results, "abi.log", NULL);
	GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
	struct child c = { .log = log, .timeout = ABI_TIMEOUT };
	int rc;

	if (!g_file_test(tool, G_FILE_TEST_IS_EXECUTABLE))
		goto out;
	g_ptr_array_add(argv, g_strdup(tool));
	g_ptr_array_add(argv, g_strdup_printf("--json=%s", json));
	g_ptr_array_add(argv, g_strdup_printf("--cache=%s", p->cache));
	add_trees(argv, p);
	g_ptr_array_add(argv, NULL);
	c.argv = (char **)argv->pdata;
	unlink(json);
	unlink(log);
	g_printerr("kmatrix: rlimit-abi over %u trees\n", argv->len - 4);
	rc = run_command(&c);
	json_object_set_new(json_object_get(p->run, "usage"), "abi",
			    result_usage_json(c.elapsed, c.used.cpu, c.used.maxrss_kb));
	if (rc == 1)
		progress_note("kmatrix: rlimit-abi found an ABI break (see %s)", log);
	else if (rc != 0)
		progress_note("kmatrix: rlimit-abi failed (%s): see %s", rc < 0 ? "killed" : "error", log);
	json_object_set_new(p->run, "abi", abi_load(json, rc, log));
out:
	g_ptr_array_free(argv, TRUE);
	g_free(tool);
	g_free(json);
	g_free(log);
}
