/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A failed make stage (configure, build) judged from its log: whether the
 * host failed (infra-error) or the kernel did, and the lines that show it.
 */
#ifndef KMATRIX_STAGELOG_H
#define KMATRIX_STAGELOG_H

#include <stdbool.h>
#include <sys/statvfs.h>

#include "cell.h"

/* How one stage's failure reads. */
struct stage_failure {
	const char *stage;	/* the host's failure is "<stage>: <cause>" */
	const char *verdict;	/* the kernel's failure: "build-failed", ... */
	int error_lines;	/* evidence: up to this many error lines; 0: none */
	int tail;		/* else the log's last lines */
};

/* What of the host failed (a full disk, a missing tool) per a log's text, or NULL. */
const char *stagelog_infra_cause(const char *text);
/* The first line of the file @log that @match accepts (a copy), or NULL. */
char *stagelog_first_line(const char *log, gboolean (*match)(const char *line));
/*
 * The line of the failed tool's @log that explains it (a copy), or NULL
 * for an empty or missing log: the first naming a host cause, else the
 * first the tool said of itself (starting with @prefix, "mkinitramfs: "),
 * else the last line.
 */
char *stagelog_reason(const char *log, const char *prefix);
/* Whether a filesystem this full explains a failed write. */
bool stagelog_space_low(const struct statvfs *s);
/* "<dir>: 1.2 MB free of 4.2 MB, ..." when @dir's filesystem is that full, else NULL. */
char *stagelog_dir_full(const char *dir);
/*
 * What of the host failed, per the log's @text or else @dir's filesystem
 * (a full one is the cause when the log names none), or NULL; *@full gets
 * stagelog_dir_full(@dir), to free.
 */
const char *stagelog_host_cause(const char *text, const char *dir, char **full);
/*
 * Set @o from the failed stage's @log: infra-error naming the cause, else
 * @f's verdict with "<what> failed"; the evidence is the error lines (and
 * those naming the cause) when @f picks them, else the log's tail.  When
 * @dir (the stage's output, or NULL) is on a full filesystem, the evidence
 * says so first, and a log that names no cause is the disk's.
 */
void stagelog_judge(struct outcome *o, const char *log, const struct stage_failure *f,
		    const char *what, const char *dir);

#endif
