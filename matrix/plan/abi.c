// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI check of the run: build/rlimit-abi (when built) over every step
 * commit of the versions run, its JSON kept in run.json's "abi".  A broken
 * ABI is reported, but it is not a cell verdict.  The same tool over the
 * same commits gives the same answer: the last one is kept, not run again.
 */
#include <stdio.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "key.h"
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

/*
 * What decides the answer: the tool's bytes, the commits it reads and the
 * installed packages (glibc's numbering comes from the libc6-dev headers).
 */
static char *abi_inputs(const char *tool, GPtrArray *argv)
{
	char *sha = key_file_sha256(tool);
	GString *s = g_string_new(NULL);
	struct stat st;

	g_string_append_printf(s, "rlimit-abi %s\n",
			       sha ? sha : "(unreadable)");
	if (stat("/var/lib/dpkg/status", &st) == 0)
		g_string_append_printf(s, "dpkg %lld.%09ld %lld\n",
				       (long long)st.st_mtim.tv_sec,
				       st.st_mtim.tv_nsec,
				       (long long)st.st_size);
	/* the trees, after the tool, --json and --cache */
	for (guint i = 3; i < argv->len && argv->pdata[i]; i++)
		g_string_append_printf(s, "%s\n", (char *)argv->pdata[i]);
	g_free(sha);
	return g_string_free(s, FALSE);
}

/* The tree@commit arguments, not the options among them. */
static unsigned int trees(GPtrArray *argv)
{
	unsigned int n = 0;

	for (guint i = 1; i < argv->len; i++)
		n += argv->pdata[i] && strncmp(argv->pdata[i], "--", 2);
	return n;
}

/* The last check's JSON when it was made from @inputs, else NULL. */
static json_t *abi_kept(const char *stamp, const char *inputs, const char *json)
{
	char *was = NULL;
	json_t *j = NULL;

	if (g_file_get_contents(stamp, &was, NULL, NULL) &&
	    !strcmp(was, inputs))
		j = json_load_file(json, 0, NULL);
	g_free(was);
	return j;
}

void abi_check(struct plan *p)
{
	char *tool = g_build_filename(p->top, "build", "rlimit-abi", NULL);
	char *json = g_build_filename(p->results, "abi.json", NULL);
	char *log = g_build_filename(p->results, "abi.log", NULL);
	char *stamp = g_build_filename(p->results, "abi.inputs", NULL);
	GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
	struct child c = { .log = log, .timeout = ABI_TIMEOUT };
	gint64 t0 = g_get_monotonic_time();
	char *inputs = NULL;
	json_t *kept;
	int rc;

	if (!g_file_test(tool, G_FILE_TEST_IS_EXECUTABLE))
		goto out;
	g_ptr_array_add(argv, g_strdup(tool));
	g_ptr_array_add(argv, g_strdup_printf("--json=%s", json));
	g_ptr_array_add(argv, g_strdup_printf("--cache=%s", p->cache));
	add_trees(argv, p);
	inputs = abi_inputs(tool, argv);
	kept = abi_kept(stamp, inputs, json);
	if (kept) {
		progress_note(
			"kmatrix: rlimit-abi: the same tool over the same %u commits: "
			"its last result kept",
			trees(argv));
		if (json_is_false(json_object_get(kept, "ok")))
			progress_note(
				"kmatrix: rlimit-abi found an ABI break (see %s)",
				log);
		json_object_set_new(json_object_get(p->run, "usage"), "abi",
				    result_usage_json(0, 0, 0));
		json_object_set_new(p->run, "abi", kept);
		plan_phase(p, "abi", t0, NULL);
		goto out;
	}
	if (!plan_own_cache(p))
		goto out;
	g_ptr_array_add(argv, NULL);
	c.argv = (char **)argv->pdata;
	unlink(stamp);
	unlink(json);
	unlink(log);
	g_printerr("kmatrix: rlimit-abi over %u trees\n", trees(argv));
	rc = run_command(&c);
	json_object_set_new(json_object_get(p->run, "usage"), "abi",
			    result_usage_json(c.elapsed, c.used.cpu, c.used.maxrss_kb));
	if (rc == 1)
		progress_note("kmatrix: rlimit-abi found an ABI break (see %s)", log);
	else if (rc != 0)
		progress_note("kmatrix: rlimit-abi failed (%s): see %s", rc < 0 ? "killed" : "error", log);
	json_object_set_new(p->run, "abi", abi_load(json, rc, log));
	plan_phase(p, "abi", t0, NULL);
	/* an answer (sound or a break), not a failure of the tool: keep it */
	if ((rc == 0 || rc == 1) && g_file_test(json, G_FILE_TEST_EXISTS))
		g_file_set_contents(stamp, inputs, -1, NULL);
out:
	g_free(inputs);
	g_free(stamp);
	g_ptr_array_free(argv, TRUE);
	g_free(tool);
	g_free(json);
	g_free(log);
}
