// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "reuse.h"

static bool copy_file(const char *from, const char *to)
{
	g_autofree char *text = NULL;
	g_autofree char *tmp = g_strconcat(to, ".reuse", NULL);
	GError *err = NULL;
	gsize len;

	if (!g_file_get_contents(from, &text, &len, &err) ||
	    !g_file_set_contents(tmp, text, len, &err)) {
		g_printerr("kmatrix: not reused: %s\n", err->message);
		g_error_free(err);
		return false;
	}
	return g_rename(tmp, to) == 0;
}

bool reuse_seed(const char *from, const char *version, const char *arch,
		const char *step, const char *logdir)
{
	g_autofree char *src = g_build_filename(from, version, arch, NULL);
	g_autofree char *json = g_strconcat(step, ".json", NULL);
	g_autofree char *have = g_build_filename(logdir, json, NULL);
	g_autofree char *prefix = g_strconcat(step, ".", NULL);
	g_autofree char *want = g_build_filename(src, json, NULL);
	bool ok = true;
	const char *name;
	GDir *d;

	if (g_file_test(have, G_FILE_TEST_EXISTS) ||
	    !g_file_test(want, G_FILE_TEST_IS_REGULAR))
		return false;
	d = g_dir_open(src, 0, NULL);
	if (!d)
		return false;
	/* The logs first, the result last: a result never lacks its console. */
	while ((name = g_dir_read_name(d)))
		if (g_str_has_prefix(name, prefix) && strcmp(name, json)) {
			g_autofree char *a = g_build_filename(src, name, NULL);
			g_autofree char *b =
				g_build_filename(logdir, name, NULL);

			ok &= copy_file(a, b);
		}
	g_dir_close(d);
	return ok && copy_file(want, have);
}
