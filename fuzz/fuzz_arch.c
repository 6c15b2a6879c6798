// SPDX-License-Identifier: GPL-2.0
/*
 * The arch reader (matrix/host/conf.c, arch_conf_load) on a hand-edited
 * arch.conf, and what a run makes of one: the QEMU settings with the
 * quirk groups applied for several versions, the check of the QEMU
 * binaries, and QEMU's command line.  The file is
 * <tmp>/arch.conf, a link to the input's memfd, beside an empty
 * config.fragment.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "fuzz.h"

static char *dir, *path;
static const char *const versions[] = { "5.10",	  "6.1",      "7.2",
					"4.19.3", "6.12-rc1", "" };

static void cleanup(void)
{
	char *frag = g_build_filename(dir, "config.fragment", NULL);

	unlink(path);
	unlink(frag);
	rmdir(dir);
	g_free(frag);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *frag;

	dir = g_dir_make_tmp("kmatrix-fuzz-arch-XXXXXX", NULL);
	if (!dir)
		abort();
	path = g_build_filename(dir, "arch.conf", NULL);
	frag = g_build_filename(dir, "config.fragment", NULL);
	if (!g_file_set_contents(frag, "", 0, NULL) ||
	    symlink(fuzz_file((const uint8_t *)"", 0), path))
		abort();
	g_free(frag);
	atexit(cleanup);
	return 0;
}

/* An error names the arch.conf ("<path>:<line>: ..."). */
static void check_error(GError **err)
{
	fuzz_assert(*err && g_str_has_prefix((*err)->message, path) &&
		    (*err)->message[strlen(path)] == ':');
	g_clear_error(err);
}

static void use(const struct arch_conf *a)
{
	struct cell c = { .a = a, .build_dir = "/b" };
	GError *err = NULL;

	for (size_t v = 0; v < G_N_ELEMENTS(versions); v++) {
		char **argv;

		if (conf_qemu(a, versions[v], &c.qemu, &err)) {
			check_error(&err);
			continue;
		}
		fuzz_assert(c.qemu.timeout > 0 && c.qemu.quirks);
		argv = boot_qemu_argv(&c, "/i");
		for (int i = 0; i < 15; i++)
			fuzz_assert(argv[i]);
		g_strfreev(argv);
		qemu_conf_clear(&c.qemu);
	}
	if (!conf_check_qemu(a, dir, &err))
		check_error(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	GError *err = NULL;
	struct arch_conf *a;

	fuzz_file(data, size);
	a = arch_conf_load(path, "fuzz", &err);
	/* the line scans stop at a NUL: a file with one must be refused */
	fuzz_assert(!a || !memchr(data, 0, size));
	if (a)
		use(a);
	else
		check_error(&err);
	arch_conf_free(a);
	return 0;
}
