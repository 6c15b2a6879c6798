// SPDX-License-Identifier: GPL-2.0
/* kmatrix: the backport matrix of a kernel series.  main() only dispatches. */
#include <stdio.h>
#include <string.h>

#include "run.h"
#include "verbs.h"

struct verb {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct verb verbs[] = {
	{ "run", cmd_run, "run the matrix (apply, build, boot, test every cell)" },
	{ "port", cmd_port, "try the series on a version without a backport; write a draft" },
	{ "plan", cmd_plan, "list the cells, their keys and chains, and how they split into shards" },
	{ "status", cmd_status, "print the grid of cached results" },
	{ "bisect", cmd_bisect, "find the first step of a version that departs from its expectation" },
	{ "report", cmd_report, "write the report (md, html, junit, json)" },
	{ "merge", cmd_merge, "combine the results directories of several machines into one" },
	{ "ci", cmd_ci, "write a GitLab or GitHub pipeline that runs the matrix in shards" },
	{ "clean", cmd_clean, "remove build directories, results or trees from the cache" },
	{ "conf", cmd_conf, "print the matrix as kmatrix reads it (versions, arches, steps)" },
	{ "sandbox", cmd_sandbox, "run a command as the stages run (build user, no network)" },
	/* git bisect run's script: one cell at the checked-out commit. */
	{ "bisect-step", cmd_bisect_step, NULL },
	{ NULL }
};

static int usage(FILE *f)
{
	fprintf(f, "usage: kmatrix <verb> [options]   (kmatrix <verb> --help)\n\n");
	for (const struct verb *v = verbs; v->name; v++)
		if (v->help)
			fprintf(f, "  %-8s %s\n", v->name, v->help);
	return f == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
	/* what the stage logs' causes match (judge/stagelog.c) */
	run_set_name("kmatrix");
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))
		return usage(stdout);
	for (const struct verb *v = verbs; v->name; v++)
		if (!strcmp(argv[1], v->name))
			return v->fn(argc - 1, argv + 1);
	fprintf(stderr, "kmatrix: unknown verb '%s'\n", argv[1]);
	return usage(stderr);
}
