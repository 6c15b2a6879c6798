/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel images stored by what they are built from (images.c). */
#ifndef KMATRIX_IMAGES_H
#define KMATRIX_IMAGES_H

#include <glib.h>

struct cell;

/* sha256 over the step's tree, arch.conf, fragment and toolchain. */
char *image_key(const char *tree, const char *arch_conf, const char *fragment,
		const char *toolchain);
/* TRUE, c->image and @config_sha set, when the cell's image is stored. */
gboolean image_stored(struct cell *c, char **config_sha);
/* Keep the image just built; c->image then points at the stored copy. */
int image_store(struct cell *c, const char *config_sha);

#endif
