// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>

#include "plan.h"
#include "run.h"
#include "shard.h"
#include "verbs.h"

static int run_plan(const struct plan_opts *o)
{
	struct plan p;
	int rc = plan_prepare(&p, o);

	if (!rc && !p.cells->len && !p.shard_index) {
		g_printerr("kmatrix: nothing to run\n");
		rc = 2;
	}
	if (!rc && p.shard_index)
		shard_announce(&p);
	if (!rc)
		rc = pipeline_run(&p);
	plan_close(&p);
	return rc;
}

int cmd_run(int argc, char **argv)
{
	struct plan_opts o = { 0 };
	g_autofree char *jobs = NULL;
	GError *err = NULL;
	GOptionEntry entries[] = {
		{ "jobs", 'j', 0, G_OPTION_ARG_STRING, &jobs,
		  "Run N compile jobs at once (make -jN; default: the CPUs, with distcc "
		  "the farm's slots)", "N" },
		{ "versions", 0, 0, G_OPTION_ARG_STRING, &o.versions,
		  "Kernel versions to run (comma-separated; default: all in matrix.conf)", "LIST" },
		{ "arches", 0, 0, G_OPTION_ARG_STRING, &o.arches,
		  "Architectures to run (default: all)", "LIST" },
		{ "steps", 0, 0, G_OPTION_ARG_STRING, &o.steps,
		  "Steps to run (stock, baseline, series step ids; default: all)", "LIST" },
		{ "shard", 0, 0, G_OPTION_ARG_STRING, &o.shard,
		  "Run share I of N: whole version x arch chains, balanced by recorded timings", "I/N" },
		{ "timings", 0, 0, G_OPTION_ARG_FILENAME, &o.timings,
		  "Results directory whose timings balance the shards (default: --results); "
		  "give every shard the same one", "DIR" },
		{ "reuse", 0, 0, G_OPTION_ARG_FILENAME, &o.reuse,
		  "Take a cell's result from this results directory (a pipeline's last merged "
		  "results) when --results has none: reused if its key matches", "DIR" },
		{ "phases", 0, 0, G_OPTION_ARG_NONE, &o.phases,
		  "Print the time of each once-per-run phase (ownership, trees, packs, "
		  "ABI), or why it was skipped", NULL },
		{ "force", 0, 0, G_OPTION_ARG_NONE, &o.force,
		  "Re-run cells whose cached result is still valid", NULL },
		{ "distcc", 0, 0, G_OPTION_ARG_STRING, &o.distcc,
		  "Compile through distcc on HOSTS (a DISTCC_HOSTS list), ccache in front "
		  "(default: $KMATRIX_DISTCC_HOSTS; empty: here)", "HOSTS" },
		{ "cache", 0, 0, G_OPTION_ARG_FILENAME, &o.cache,
		  "Cache directory (default: $KMATRIX_CACHE, $XDG_CACHE_HOME/kmatrix)", "DIR" },
		{ "results", 0, 0, G_OPTION_ARG_FILENAME, &o.results,
		  "Results directory (default: <cache>/results)", "DIR" },
		{ "matrix", 0, 0, G_OPTION_ARG_FILENAME, &o.matrix,
		  "Matrix definition (default: matrix/matrix.conf)", "FILE" },
		{ "tree", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.trees,
		  "Version V's tree from a git repository at REF, for this run only "
		  "(repeatable; runs only these versions unless --versions)", "V=PATH@REF" },
		{ "series", 0, 0, G_OPTION_ARG_FILENAME, &o.series,
		  "With --tree: the backport directory (baseline/, series/) or series directory "
		  "to use (default: the matrix's, or backports/V)", "DIR" },
		{ NULL }
	};
	int rc;

	if (!verb_parse("run", NULL,
		       "Lay, patch, configure, build, boot and test every cell (version x arch x step).\n"
		       "Exit status: 0 every cell met its expectation, 1 some did not, 2 usage or set-up error.",
		       entries, &argc, &argv, &rc)) {
		plan_opts_clear(&o);
		return rc;
	}
	if (argc > 1) {
		g_printerr("kmatrix run: unexpected argument '%s'\n", argv[1]);
		rc = 2;
	} else if (!verb_jobs(jobs, &o.jobs, &err)) {
		g_printerr("kmatrix run: %s\n", err->message);
		g_error_free(err);
		rc = 2;
	} else {
		rc = run_plan(&o);
	}
	plan_opts_clear(&o);
	return rc;
}
