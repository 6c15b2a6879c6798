// SPDX-License-Identifier: GPL-2.0
#include "key.h"

static void add(GChecksum *c, const char *s)
{
	/* NULL and "" differ from every real value and from each other. */
	g_checksum_update(c, (const guchar *)(s ? s : "\x01(none)"), -1);
	g_checksum_update(c, (const guchar *)"\n", 1);
}

char *key_compute(const struct key_inputs *in)
{
	GChecksum *c = g_checksum_new(G_CHECKSUM_SHA256);
	char *hex;

	add(c, CELL_SCHEMA);
	add(c, in->tree);
	add(c, in->arch_conf);
	add(c, in->fragment);
	add(c, in->quirks);
	add(c, in->toolchain);
	add(c, in->test_binary);
	add(c, in->initramfs);
	add(c, in->expectations);
	for (int i = 0; in->qemu_argv && in->qemu_argv[i]; i++)
		add(c, in->qemu_argv[i]);
	hex = g_strdup(g_checksum_get_string(c));
	g_checksum_free(c);
	return hex;
}

char *key_file_sha256(const char *path)
{
	GMappedFile *f = g_mapped_file_new(path, FALSE, NULL);
	char *hex;

	if (!f)
		return NULL;
	hex = g_compute_checksum_for_data(G_CHECKSUM_SHA256,
					  (const guchar *)g_mapped_file_get_contents(f),
					  g_mapped_file_get_length(f));
	g_mapped_file_unref(f);
	return hex;
}
