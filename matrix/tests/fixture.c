// SPDX-License-Identifier: GPL-2.0
#include <glib.h>
#include <glib/gstdio.h>

#include "fixture.h"

char *fixture_tmpdir(const char *name)
{
	char *tmpl = g_strdup_printf("kmatrix-%s-XXXXXX", name);
	char *dir = g_dir_make_tmp(tmpl, NULL);

	g_free(tmpl);
	return dir;
}

void fixture_rm_rf(const char *dir)
{
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *n;

	while (d && (n = g_dir_read_name(d))) {
		char *p = g_build_filename(dir, n, NULL);

		if (g_file_test(p, G_FILE_TEST_IS_DIR) &&
		    !g_file_test(p, G_FILE_TEST_IS_SYMLINK))
			fixture_rm_rf(p);
		else
			g_unlink(p);
		g_free(p);
	}
	if (d)
		g_dir_close(d);
	g_rmdir(dir);
}
