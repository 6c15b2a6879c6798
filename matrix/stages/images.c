// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel images by content: <cache>/images/<image key>/ holds the image a
 * build made and the sha256 of its .config.  The image key covers only
 * what the kernel is made of (the step's tree, the arch's settings and
 * fragment, the cross compiler), so a change of the test binary, the
 * initramfs or the expectations boots the stored image again instead of
 * checking out and rebuilding a kernel that cannot differ.  The image's
 * own sha256 beside it is checked before every reuse.
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

/* A stored file's sha256 file, read and stripped, or NULL. */
static char *read_sha(const char *dir, const char *file)
{
	char *path = g_build_filename(dir, file, NULL);
	char *sha = NULL;

	if (g_file_get_contents(path, &sha, NULL, NULL) && !*g_strstrip(sha))
		g_clear_pointer(&sha, g_free);
	g_free(path);
	return sha;
}

static void remove_store(const char *dir, const char *name)
{
	const char *const files[] = { name, "config.sha256", "image.sha256" };

	for (guint i = 0; i < G_N_ELEMENTS(files); i++) {
		char *f = g_build_filename(dir, files[i], NULL);

		unlink(f);
		g_free(f);
	}
	rmdir(dir);
}

/*
 * The image must still be the one stored: a copy cut short or damaged
 * would boot as a kernel that does not.  A store without the image's hash
 * (an older kmatrix's) cannot say, and is built again too.
 */
static gboolean store_whole(struct cell *c, const char *dir, const char *img)
{
	char *want = read_sha(dir, "image.sha256");
	char *have = want ? key_file_sha256(img) : NULL;
	gboolean ok = have && !strcmp(have, want);

	if (!ok && g_file_test(dir, G_FILE_TEST_IS_DIR))
		g_printerr("kmatrix: %s %s %s: the stored image %s %s; building it again\n",
			   c->v->name, c->a->name, c->step->id, img,
			   !want ? "has no hash to check it by" :
			   have ? "is damaged (its sha256 differs from the one stored)" :
				  "is missing");
	g_free(want);
	g_free(have);
	return ok;
}

gboolean image_stored(struct cell *c, char **config_sha)
{
	char *dir = store_dir(c), *name = image_name(c);
	char *img = g_build_filename(dir, name, NULL);
	char *sha = g_build_filename(dir, "config.sha256", NULL);
	gboolean ok = c->image_key && g_file_test(dir, G_FILE_TEST_IS_DIR);

	if (ok && !store_whole(c, dir, img)) {
		remove_store(dir, name);
		ok = FALSE;
	}
	ok = ok && g_file_get_contents(sha, config_sha, NULL, NULL);
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
	char *isha = g_build_filename(tmp, "image.sha256", NULL);
	char *data = NULL, *line = g_strconcat(config_sha, "\n", NULL), *iline = NULL;
	gsize len;
	int rc = -1;

	if (g_mkdir_with_parents(tmp, 0755) == 0 &&
	    g_file_get_contents(from, &data, &len, NULL)) {
		char *h = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (guchar *)data, len);

		iline = g_strconcat(h, "\n", NULL);
		g_free(h);
	}
	if (iline && g_file_set_contents(to, data, len, NULL) &&
	    g_file_set_contents(sha, line, -1, NULL) &&
	    g_file_set_contents(isha, iline, -1, NULL) &&
	    (rename(tmp, dir) == 0 || g_file_test(dir, G_FILE_TEST_IS_DIR)))
		rc = 0;
	if (rc == 0) {
		g_free(c->image);
		c->image = g_build_filename(dir, name, NULL);
	}
	/* a store that fails costs a rebuild later, never a verdict */
	unlink(to);
	unlink(sha);
	unlink(isha);
	rmdir(tmp);
	g_free(data);
	g_free(line);
	g_free(iline);
	g_free(isha);
	g_free(sha);
	g_free(to);
	g_free(from);
	g_free(tmp);
	g_free(name);
	g_free(dir);
	return rc;
}
