/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The suites of one guest console: the native test binary's KTAP, then
 * each compat binary's after a "KMATRIX-SUITE <name>" line the guest init
 * prints; and the ABI numbering each binary reports ("# abi ..." lines).
 */
#ifndef KMATRIX_SUITES_H
#define KMATRIX_SUITES_H

#include <jansson.h>
#include <stdbool.h>

#include "ktap.h"

/*
 * Parse every suite of @text into one report: the native suite's cases
 * keep their names, a compat suite's are "<name>.<case>" with ->suite set.
 * @compat is the arch's compat suite ("" or NULL: none); a compat suite
 * that is missing or incomplete makes the report incomplete, named.
 */
void suites_parse(const char *text, const char *compat, struct ktap_report *out);

/*
 * The "# abi <source> NAME=value..." lines of each suite as
 * { "<suite>": { "<source>": { "NAME": value, ... } } }, where the native
 * suite is @native (the arch's name); NULL when there are none.
 */
json_t *suites_abi(const char *text, const char *native);

#endif
