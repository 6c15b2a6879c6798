/* SPDX-License-Identifier: GPL-2.0 */
/* Content keys: a cell is re-run only when one of its inputs changed. */
#ifndef KMATRIX_KEY_H
#define KMATRIX_KEY_H

#include <glib.h>

#define CELL_SCHEMA "kmatrix-cell/1"

struct key_inputs {
	const char *tree;		/* git tree hash of the step's commit */
	const char *arch_conf;		/* contents */
	const char *fragment;		/* contents */
	const char *quirks;		/* matching [qemu version...] groups */
	const char *toolchain;		/* `<cc> --version` first line */
	const char *test_binary;	/* sha256 */
	const char *initramfs;		/* sha256 */
	const char *expectations;	/* sha256 of the expectations file */
	char **qemu_argv;		/* without the accelerator */
	const char *cache;		/* prefix of qemu_argv paths, keyed as "<cache>" */
};

/* sha256 (hex) of the newline-joined inputs.  Newly allocated. */
char *key_compute(const struct key_inputs *in);
/* sha256 (hex) of a file's contents, or NULL when unreadable. */
char *key_file_sha256(const char *path);

#endif
