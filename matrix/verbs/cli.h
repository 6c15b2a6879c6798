/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmatrix's command line as git's: global options before the verb
 * (kmatrix [OPTION...] <verb> [ARG...]), `help VERB`, and a "did you
 * mean" for a mistyped verb.
 */
#ifndef KMATRIX_CLI_H
#define KMATRIX_CLI_H

#include <glib.h>

struct verb {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;	/* the verb list's line; NULL: not listed */
};

/* Every verb, the unlisted ones too; ends with { NULL }. */
extern const struct verb cli_verbs[];

/* main(): parse the global options, then run the verb; the exit code. */
int cli_main(int argc, char **argv);
/* "kmatrix <version>": the build's git describe, or a fixed string. */
const char *cli_version(void);
/* The verb named @name, or NULL. */
const struct verb *cli_verb(const char *name);
/* The listed verb closest to @name by edit distance, when it is close; or NULL. */
const char *cli_suggest(const char *name);

#endif
