/* SPDX-License-Identifier: GPL-2.0 */
/* kmatrix's verbs: one entry function each, argv[0] is the verb. */
#ifndef KMATRIX_VERBS_H
#define KMATRIX_VERBS_H

#include <stdbool.h>
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

/*
 * Parse @entries for @verb (cli.c): TRUE to go on.  FALSE when the verb is
 * done, with *@rc its exit code: 0 after -h/--help printed the help
 * (wrapped at 80 columns), 2 after a usage error said on stderr.
 */
bool verb_parse(const char *verb, const char *args, const char *summary,
		GOptionEntry *entries, int *argc, char ***argv, int *rc);
/*
 * -j/--jobs N: a whole number from 1 to 4096 into *@jobs; NULL leaves it
 * 0 (nproc).  FALSE with @err naming the value otherwise.
 */
gboolean verb_jobs(const char *arg, unsigned int *jobs, GError **err);
/* The width every help text fits in. */
#define VERB_WIDTH 80
/* @text with each line longer than @width wrapped under its own text. */
char *verb_wrap(const char *text, int width);

#endif
