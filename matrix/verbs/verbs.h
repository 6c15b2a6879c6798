/* SPDX-License-Identifier: GPL-2.0 */
/* kmatrix's verbs: one entry function each, argv[0] is the verb. */
#ifndef KMATRIX_VERBS_H
#define KMATRIX_VERBS_H

#include <glib.h>

int cmd_run(int argc, char **argv);
int cmd_port(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_bisect_step(int argc, char **argv);
int cmd_clean(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_ci(int argc, char **argv);
int cmd_sandbox(int argc, char **argv);
int cmd_conf(int argc, char **argv);
int cmd_report(int argc, char **argv);

/* Parse @entries for @verb; 0, or 2 after printing the usage error. */
int verb_parse(const char *verb, const char *args, const char *summary,
	       GOptionEntry *entries, int *argc, char ***argv);

#endif
