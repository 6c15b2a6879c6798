/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-cell results (schema "kmatrix-cell/1" in matrix/DESIGN.md) kept as
 * jansson objects: written atomically, validated when read back, so a
 * truncated or hand-broken file is never trusted.
 */
#ifndef KMATRIX_RESULT_H
#define KMATRIX_RESULT_H

#include <stdbool.h>
#include <glib.h>
#include <jansson.h>

extern const char *const result_verdicts[];

bool result_verdict_known(const char *verdict);
char *result_path(const char *results, const char *version, const char *arch,
		  const char *step, const char *suffix);
/* The file's skeleton: identity fields, empty inputs, timings. */
json_t *result_new(const char *version, const char *arch, const char *step,
		   int step_index);
/*
 * The longest text a result keeps of one evidence line, a summary, a
 * case's name or its diagnostics: about four times the longest a real run
 * wrote (a case's diag of some 900 bytes), and a guest's endless line does
 * not become megabytes of JSON and report.
 */
#define RESULT_TEXT_MAX 4096

/*
 * Text of a log or a console as a JSON string (NULL: ""): bytes that are
 * not UTF-8 become U+FFFD, where json_string() would refuse the line; text
 * longer than RESULT_TEXT_MAX is clipped (result_clip).
 */
json_t *result_text(const char *s);
/*
 * The first @max bytes of @s (@len long), or all of it, as a new string;
 * what is cut is said at the end ("[kmatrix: N more bytes cut]").
 */
char *result_clip(const char *s, size_t len, size_t max);
void result_set_verdict(json_t *r, const char *verdict, bool met,
			const char *summary, GPtrArray *evidence);
void result_set_timing(json_t *r, const char *stage, double seconds);
/* A stage's CPU seconds and peak memory (KiB of the largest process). */
void result_set_usage(json_t *r, const char *stage, double cpu, long maxrss_kb);
/* When a stage ran: Unix seconds at its start and end. */
void result_set_span(json_t *r, const char *stage, double start, double end);
/* {"wall", "cpu", "maxrss_kb"}: a stage of the run in run.json. */
json_t *result_usage_json(double wall, double cpu, long maxrss_kb);
void result_set_input(json_t *r, const char *name, const char *value);
/*
 * "kernel": the exact kernel the cell built: @package and @pkgver (the
 * Debian package the tree was laid from; NULL for a git tree) and the
 * release "VERSION.PATCHLEVEL.SUBLEVEL[EXTRAVERSION]" read from the
 * top-level Makefile's text @makefile (NULL: unknown).
 */
void result_set_kernel(json_t *r, const char *package, const char *pkgver,
		       const char *makefile);
/* That release from a top-level Makefile's text; NULL when it has none. */
char *result_kernel_release(const char *makefile);
/* Atomic: temp file and rename. */
int result_write(const char *path, json_t *r, GError **err);
/*
 * Read and validate.  NULL with @why set (newly allocated) when the file is
 * missing, does not parse or fails validation; @version/@arch/@step, when
 * not NULL, must match the file's.
 */
json_t *result_read(const char *path, const char *version, const char *arch,
		    const char *step, char **why);
char *result_validate(json_t *r);
/*
 * Copy one cell (its <step>.json and every <step>.* log beside it) from
 * the results directory @from to @to, the logs first, so that a reader of
 * @to never finds the result without its console; and the version's
 * <step>.apply.log when @to has none.  0, or -1 with @err set.
 */
int result_copy_cell(const char *from, const char *to, const char *version,
		     const char *arch, const char *step, GError **err);
/*
 * Why a met result will not stand, or NULL: it is not final (the next run
 * does it again), or it was judged against other expectations than
 * @expectations (a sha256; NULL or "": not compared).  Status and the
 * summary both count stale results by it, so they agree.
 */
const char *result_stale(json_t *r, const char *expectations);
char *result_now(void);

#endif
