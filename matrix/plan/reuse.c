// SPDX-License-Identifier: GPL-2.0
#include <glib.h>

#include "result.h"
#include "reuse.h"

bool reuse_seed(const char *from, const char *results, const char *version,
		const char *arch, const char *step)
{
	g_autofree char *have = result_path(results, version, arch, step, ".json");
	g_autofree char *want = result_path(from, version, arch, step, ".json");
	GError *err = NULL;

	if (g_file_test(have, G_FILE_TEST_EXISTS) ||
	    !g_file_test(want, G_FILE_TEST_IS_REGULAR))
		return false;
	if (result_copy_cell(from, results, version, arch, step, &err) == 0)
		return true;
	g_printerr("kmatrix: %s %s %s not reused: %s\n", version, arch, step, err->message);
	g_error_free(err);
	return false;
}
