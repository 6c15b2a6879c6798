// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel images by content: <cache>/images/<image key>/ holds the image a
 * build made and the sha256 of its .config.  The image key covers only
 * what the kernel is made of (the step's tree, the arch's settings and
 * fragment, the cross compiler), so a change of the test binary, the
 * initramfs or the expectations boots the stored image again instead of
 * checking out and rebuilding a kernel that cannot differ.
 */
#include <string.h>
#include <unistd.h>

#include "cell.h"
#include "images.h"
#include "key.h"

char *image_key(const char *tree, const char *arch_conf, const char *fragment,
		const char *toolchain)
{
	struct key_inputs in = {
		.tree = tree, .arch_conf = arch_conf, .fragment = fragment,
		.toolchain = toolchain, .quirks = "image",
	};

	return key_compute(&in);
}

static char *store_dir(const struct cell *c)
{
	return g_build_filename(c->cache, "images", c->image_key, NULL);
}

static char *image_name(const struct cell *c)
{
	return g_path_get_basename(c->a->image);
}

gboolean image_stored(struct cell *c, char **config_sha)
{
	char *dir = store_dir(c), *name = image_name(c);
	char *img = g_build_filename(dir, name, NULL);
	char *sha = g_build_filename(dir, "config.sha256", NULL);
	gboolean ok = c->image_key && g_file_test(img, G_FILE_TEST_IS_REGULAR) &&
		      g_file_get_contents(sha, config_sha, NULL, NULL);

	if (ok) {
		g_strstrip(*config_sha);
		g_free(c->image);
		c->image = g_steal_pointer(&img);
	}
	g_free(img);
	g_free(sha);
	g_free(name);
	g_free(dir);
	return ok;
}

/* Written aside and renamed: a reader never sees half an image. */
int image_store(struct cell *c, const char *config_sha)
{
	char *dir = store_dir(c), *name = image_name(c);
	char *tmp = g_strdup_printf("%s.tmp%d", dir, (int)getpid());
	char *from = g_build_filename(c->build_dir, c->a->image, NULL);
	char *to = g_build_filename(tmp, name, NULL);
	char *sha = g_build_filename(tmp, "config.sha256", NULL);
	char *data = NULL, *line = g_strconcat(config_sha, "\n", NULL);
	gsize len;
	int rc = -1;

	if (g_mkdir_with_parents(tmp, 0755) == 0 &&
	    g_file_get_contents(from, &data, &len, NULL) &&
	    g_file_set_contents(to, data, len, NULL) &&
	    g_file_set_contents(sha, line, -1, NULL) &&
	    (rename(tmp, dir) == 0 || g_file_test(dir, G_FILE_TEST_IS_DIR)))
		rc = 0;
	if (rc == 0) {
		g_free(c->image);
		c->image = g_build_filename(dir, name, NULL);
	}
	/* a store that fails costs a rebuild later, never a verdict */
	unlink(to);
	unlink(sha);
	rmdir(tmp);
	g_free(data);
	g_free(line);
	g_free(sha);
	g_free(to);
	g_free(from);
	g_free(tmp);
	g_free(name);
	g_free(dir);
	return rc;
}
