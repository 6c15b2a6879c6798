// SPDX-License-Identifier: GPL-2.0
/*
 * The option parser every verb shares: GOption's entries, -h/--help
 * handled here (so `kmatrix help VERB` prints the same), the help wrapped
 * at 80 columns.
 */
#include <stdio.h>
#include <string.h>

#include "verbs.h"

/* Where the text of an option line ("  --x=ARG    text") starts, or 0. */
static size_t text_column(const char *line)
{
	const char *p = line;

	while (*p == ' ')
		p++;
	if (*p != '-')
		return 0;
	p = strstr(p, "  ");
	if (!p)
		return 0;
	while (*p == ' ')
		p++;
	return p - line;
}

static void indent_to(GString *out, size_t n)
{
	g_string_append_c(out, '\n');
	for (size_t i = 0; i < n; i++)
		g_string_append_c(out, ' ');
}

/* Words after an option's column (or the line's indent) wrap under it. */
static void wrap_line(GString *out, const char *line, int width)
{
	size_t col = text_column(line), lead = strspn(line, " ");
	size_t start = col ? col : lead, indent = start, used = start;
	const char *p = line + start;
	bool empty = true;	/* nothing yet on this line after the indent */

	if (indent >= (size_t)width / 2)
		indent = lead + 4;
	g_string_append_len(out, line, start);
	while (*p) {
		size_t word = strcspn(p, " ");

		if (!empty && used + 1 + word > (size_t)width) {
			indent_to(out, indent);
			used = indent;
			empty = true;
		}
		if (!empty) {
			g_string_append_c(out, ' ');
			used++;
		}
		g_string_append_len(out, p, word);
		used += word;
		empty = false;
		p += word;
		p += strspn(p, " ");
	}
}

char *verb_wrap(const char *text, int width)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	GString *out = g_string_new(NULL);

	for (int i = 0; lines[i]; i++) {
		if (i)
			g_string_append_c(out, '\n');
		if (g_utf8_strlen(lines[i], -1) <= width)
			g_string_append(out, lines[i]);
		else
			wrap_line(out, lines[i], width);
	}
	return g_string_free(out, FALSE);
}

/* -h or --help before a "--": the verb prints its help and does nothing. */
static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	return false;
}

/* @c is the short name of an entry that takes a value. */
static bool takes_value(const GOptionEntry *e, char c)
{
	for (; e->long_name; e++)
		if (e->short_name == c && e->arg != G_OPTION_ARG_NONE)
			return true;
	return false;
}

/*
 * "-j4" as "-j" "4", as getopt reads it (GOption takes only "-j 4").  The
 * strings live until the next verb parses (verbs keep pointers into
 * them), apart from the array GOption rearranges.
 */
static void split_short(const GOptionEntry *entries, int *argc, char ***argv)
{
	static char **owned, **view;
	GPtrArray *a = g_ptr_array_new();
	bool split = false;

	for (int i = 0; i < *argc; i++) {
		const char *s = (*argv)[i];

		if (!strcmp(s, "--")) {
			for (; i < *argc; i++)
				g_ptr_array_add(a, g_strdup((*argv)[i]));
			break;
		}
		if (i && s[0] == '-' && s[1] != '-' && s[1] && s[2] && takes_value(entries, s[1])) {
			g_ptr_array_add(a, g_strndup(s, 2));
			g_ptr_array_add(a, g_strdup(s + 2));
			split = true;
		} else {
			g_ptr_array_add(a, g_strdup(s));
		}
	}
	g_ptr_array_add(a, NULL);
	if (!split) {
		g_strfreev((char **)g_ptr_array_free(a, FALSE));
		return;
	}
	g_strfreev(owned);
	g_free(view);
	*argc = a->len - 1;
	owned = (char **)g_ptr_array_free(a, FALSE);
	view = g_memdup2(owned, (*argc + 1) * sizeof(char *));
	*argv = view;
}

bool verb_parse(const char *verb, const char *args, const char *summary,
		GOptionEntry *entries, int *argc, char ***argv, int *rc)
{
	g_autofree char *param = g_strdup_printf("%s%s%s", verb, args ? " " : "",
						 args ? args : "");
	GOptionContext *ctx = g_option_context_new(param);
	GError *err = NULL;
	bool go = false;

	g_set_prgname("kmatrix");
	g_option_context_set_help_enabled(ctx, FALSE);
	g_option_context_set_summary(ctx, summary);
	g_option_context_add_main_entries(ctx, entries, NULL);
	split_short(entries, argc, argv);
	if (wants_help(*argc, *argv)) {
		g_autofree char *raw = g_option_context_get_help(ctx, TRUE, NULL);
		g_autofree char *text = verb_wrap(raw, VERB_WIDTH);

		fputs(text, stdout);
		*rc = fflush(stdout) ? 2 : 0;
	} else if (!g_option_context_parse(ctx, argc, argv, &err)) {
		g_printerr("kmatrix %s: %s (see kmatrix help %s)\n", verb, err->message, verb);
		g_error_free(err);
		*rc = 2;
	} else {
		go = true;
	}
	g_option_context_free(ctx);
	return go;
}

gboolean verb_jobs(const char *arg, unsigned int *jobs, GError **err)
{
	guint64 n = 0;

	*jobs = 0;
	if (!arg)
		return TRUE;
	if (!g_ascii_string_to_unsigned(arg, 10, 1, 4096, &n, NULL)) {
		g_set_error(err, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "-j/--jobs: '%s' is not a number of jobs from 1 to 4096", arg);
		return FALSE;
	}
	*jobs = n;
	return TRUE;
}
