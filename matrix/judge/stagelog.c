// SPDX-License-Identifier: GPL-2.0
/*
 * Configure and build fail the same two ways: the host ran out of
 * something (disk, memory, a tool), which says nothing about the kernel
 * and is looked at again next run, or the kernel's own make failed.  Both
 * stages read their log here so that the two always agree on which is
 * which.
 */
#include <string.h>
#include <sys/statvfs.h>

#include "stagelog.h"

/*
 * Less free space than this where the stage writes, after it failed, and
 * the disk is taken for the cause.  Tools do not always say so: binutils'
 * ar reports a short write as "unable to copy file ...; reason: Success".
 * make deletes the target it was writing, so some space comes back.
 */
#define STAGELOG_LOW_SPACE (64ULL << 20)
#define STAGELOG_LOW_INODES 1024

/*
 * What the host's tools write when the host failed, and the cause it
 * names; the first that a log holds wins, so a full disk is named rather
 * than what it made fail.
 */
static const struct {
	const char *says, *cause;
} infra_causes[] = {
	{ "No space left on device", "no space left on device" },
	{ "Read-only file system", "read-only file system" },
	/* Said by run.c, or in the sandbox by bwrap or setpriv. */
	{ "kmatrix: cannot run", "a tool is missing" },
	{ "bwrap: execvp ", "a tool is missing" },
	{ "setpriv: failed to execute ", "a tool is missing" },
	{ "Cannot allocate memory", "out of memory" },
	/*
	 * gcc's driver when cc1 got SIGKILL: the OOM killer or a hand, never
	 * the source it compiled.
	 */
	{ "Killed signal terminated program", "a compiler was killed (out of memory?)" },
};

const char *stagelog_infra_cause(const char *text)
{
	for (size_t i = 0; i < G_N_ELEMENTS(infra_causes); i++)
		if (strstr(text, infra_causes[i].says))
			return infra_causes[i].cause;
	return NULL;
}

bool stagelog_space_low(const struct statvfs *s)
{
	if (s->f_files && s->f_favail < STAGELOG_LOW_INODES)
		return true;
	return (unsigned long long)s->f_bavail * s->f_frsize < STAGELOG_LOW_SPACE;
}

char *stagelog_dir_full(const char *dir)
{
	struct statvfs s;
	char *avail, *size, *note;

	if (!dir || statvfs(dir, &s) != 0 || !stagelog_space_low(&s))
		return NULL;
	avail = g_format_size((guint64)s.f_bavail * s.f_frsize);
	size = g_format_size((guint64)s.f_blocks * s.f_frsize);
	note = g_strdup_printf("%s: %s free of %s, %llu of %llu inodes free, after the failure",
			       dir, avail, size, (unsigned long long)s.f_favail,
			       (unsigned long long)s.f_files);
	g_free(avail);
	g_free(size);
	return note;
}

const char *stagelog_host_cause(const char *text, const char *dir, char **full)
{
	const char *cause = stagelog_infra_cause(text);

	*full = stagelog_dir_full(dir);
	if (!cause && *full)
		cause = "no space left on device";
	return cause;
}

/* The compiler's or make's error lines, as opposed to its progress. */
static bool is_error_line(const char *l)
{
	return strstr(l, "error:") || strstr(l, "Error ") ||
	       strstr(l, "undefined reference") || strstr(l, "fatal:");
}

/*
 * Up to @max lines of @text as evidence, how many: the error lines, and
 * those in which a tool says the host failed (ld's "final link failed: No
 * space left on device" has no "error:").
 */
static int add_error_lines(struct outcome *o, const char *text, int max)
{
	char **lines = g_strsplit(text, "\n", -1);
	int n = 0;

	for (int i = 0; lines[i] && n < max; i++)
		if (is_error_line(lines[i]) || stagelog_infra_cause(lines[i])) {
			outcome_add(o, "%s", lines[i]);
			n++;
		}
	g_strfreev(lines);
	return n;
}

void stagelog_judge(struct outcome *o, const char *log, const struct stage_failure *f,
		    const char *what, const char *dir)
{
	char *text = NULL, *full;
	const char *infra;

	if (!g_file_get_contents(log, &text, NULL, NULL))
		text = g_strdup("");
	infra = stagelog_host_cause(text, dir, &full);
	if (infra)
		outcome_set(o, "infra-error", "%s: %s", f->stage, infra);
	else
		outcome_set(o, f->verdict, "%s failed", what);
	if (full)
		outcome_add(o, "%s", full);
	/* No error line to show (a killed make, a tool that is missing): the end. */
	if (!f->error_lines || !add_error_lines(o, text, f->error_lines))
		outcome_add_log(o, log, f->tail, true);
	g_free(full);
	g_free(text);
}

char *stagelog_first_line(const char *log, gboolean (*match)(const char *line))
{
	char *text = NULL, **lines, *found = NULL;

	if (!g_file_get_contents(log, &text, NULL, NULL))
		return NULL;
	lines = g_strsplit(text, "\n", -1);
	for (int i = 0; lines[i] && !found; i++)
		if (match(lines[i]))
			found = g_strdup(lines[i]);
	g_strfreev(lines);
	g_free(text);
	return found;
}

/* The first of @lines naming a host cause, or (!@by_cause) starting with @prefix. */
static const char *first_of(char **lines, const char *prefix, bool by_cause)
{
	for (int i = 0; lines[i]; i++) {
		const char *l = lines[i];

		if (by_cause ? stagelog_infra_cause(l) != NULL : g_str_has_prefix(l, prefix))
			return l;
	}
	return NULL;
}

char *stagelog_reason(const char *log, const char *prefix)
{
	char *text = NULL, **lines;
	const char *found;
	char *why = NULL;

	if (!g_file_get_contents(log, &text, NULL, NULL))
		return NULL;
	lines = g_strsplit(g_strchomp(text), "\n", -1);
	found = first_of(lines, prefix, true);
	if (!found)
		found = first_of(lines, prefix, false);
	if (!found && lines[0])
		found = lines[g_strv_length(lines) - 1];
	if (found && *g_strstrip((char *)found))
		why = g_strdup(found);
	g_strfreev(lines);
	g_free(text);
	return why;
}
