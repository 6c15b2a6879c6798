// SPDX-License-Identifier: GPL-2.0
/*
 * The matrix reader (matrix/host/conf.c, conf_load) on a hand-edited
 * matrix.conf, read against this project's arch-configs/; what loads is
 * used as a run uses it: each arch's QEMU settings for each version, and
 * the exclusions.
 */
#include <string.h>

#include "conf.h"
#include "fuzz.h"

static char *top;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	top = fuzz_path(".");
	return 0;
}

static void use(const struct matrix_conf *m)
{
	fuzz_assert(m->versions->len && m->arches->len && m->expectations);
	for (guint a = 0; a < m->arches->len; a++) {
		const struct arch_conf *ac = m->arches->pdata[a];

		fuzz_assert(conf_arch(m, ac->name) == ac);
		for (guint v = 0; v < m->versions->len; v++) {
			const struct version_conf *vc = m->versions->pdata[v];
			struct qemu_conf q;
			GError *err = NULL;

			fuzz_assert(vc->baseline && vc->series);
			fuzz_assert(!vc->package == !!vc->git);
			conf_excluded(m, vc->name, ac->name);
			if (!conf_qemu(ac, vc->name, &q, &err))
				qemu_conf_clear(&q);
			g_clear_error(&err);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	GError *err = NULL;
	struct matrix_conf *m = conf_load(top, path, &err);

	/* the line scans stop at a NUL: a file with one must be refused */
	fuzz_assert(!m || !memchr(data, 0, size));
	if (m)
		use(m);
	else
		fuzz_assert(err && g_str_has_prefix(err->message, path) &&
			    err->message[strlen(path)] == ':');
	g_clear_error(&err);
	conf_free(m);
	return 0;
}
