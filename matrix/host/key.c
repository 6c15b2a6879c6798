// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "key.h"

static void add(GChecksum *c, const char *s)
{
	/* NULL and "" differ from every real value and from each other. */
	g_checksum_update(c, (const guchar *)(s ? s : "\x01(none)"), -1);
	g_checksum_update(c, (const guchar *)"\n", 1);
}

/*
 * The kernel and initramfs paths name the cache directory, which differs
 * between machines and shards; where the files live does not change a
 * verdict, so a result stays reusable when the cache moves.
 */
static void add_arg(GChecksum *c, const char *arg, const char *cache)
{
	size_t n = cache ? strlen(cache) : 0;

	if (n && !strncmp(arg, cache, n) && arg[n] == '/') {
		g_checksum_update(c, (const guchar *)"<cache>", -1);
		add(c, arg + n);
	} else {
		add(c, arg);
	}
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
		add_arg(c, in->qemu_argv[i], in->cache);
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
