// SPDX-License-Identifier: GPL-2.0
/*
 * The image store: a kernel is kept by what it is made of, so a cell whose
 * test binary or expectations changed boots the same image again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cell.h"
#include "conf.h"
#include "fixture.h"
#include "images.h"

static void test_key(void **state)
{
	char *k = image_key("tree1", "arch", "frag", "gcc 12");
	char *same = image_key("tree1", "arch", "frag", "gcc 12");
	char *other = image_key("tree2", "arch", "frag", "gcc 12");
	char *cc = image_key("tree1", "arch", "frag", "gcc 13");

	assert_string_equal(k, same);
	assert_string_not_equal(k, other);
	assert_string_not_equal(k, cc);
	g_free(k);
	g_free(same);
	g_free(other);
	g_free(cc);
}

static void test_store_and_reuse(void **state)
{
	char *dir = fixture_tmpdir("images");
	char *build = g_build_filename(dir, "build", NULL);
	char *img = g_build_filename(build, "arch/x86/boot/bzImage", NULL);
	char *imgdir = g_path_get_dirname(img);
	struct arch_conf a = { .name = "x86_64", .image = "arch/x86/boot/bzImage" };
	struct version_conf v = { .name = "9.9" };
	struct step s = { .id = "stock" };
	struct cell c = { .v = &v, .a = &a, .step = &s, .cache = dir, .build_dir = build };
	char *sha = NULL, *text = NULL;

	c.image_key = image_key("t", "a", "f", "cc");
	assert_false(image_stored(&c, &sha));
	g_mkdir_with_parents(build, 0755);
	assert_int_equal(g_mkdir_with_parents(imgdir, 0755), 0);
	assert_true(g_file_set_contents(img, "kernel", -1, NULL));
	assert_int_equal(image_store(&c, "abc123"), 0);
	/* the stored copy, not the build directory's, is what boots */
	assert_non_null(strstr(c.image, "/images/"));
	assert_true(g_file_get_contents(c.image, &text, NULL, NULL));
	assert_string_equal(text, "kernel");
	g_free(text);
	/* the next build overwrites the build directory; the store keeps its copy */
	assert_true(g_file_set_contents(img, "other kernel", -1, NULL));
	g_clear_pointer(&c.image, g_free);
	assert_true(image_stored(&c, &sha));
	assert_string_equal(sha, "abc123");
	assert_true(g_file_get_contents(c.image, &text, NULL, NULL));
	assert_string_equal(text, "kernel");
	/* storing it twice keeps the first */
	assert_int_equal(image_store(&c, "abc123"), 0);
	g_free(text);
	g_free(sha);
	g_free(c.image);
	g_free(c.image_key);
	g_free(imgdir);
	g_free(img);
	g_free(build);
	fixture_rm_rf(dir);
	g_free(dir);
}

static void set_stored(const char *dir, const char *file, const char *text)
{
	char *p = g_build_filename(dir, file, NULL);

	assert_true(g_file_set_contents(p, text, -1, NULL));
	g_free(p);
}

/* A stored image that is not the one stored is built again, never booted. */
static void test_damaged_store(void **state)
{
	char *dir = fixture_tmpdir("images");
	char *build = g_build_filename(dir, "build", NULL);
	char *img = g_build_filename(build, "Image", NULL);
	struct arch_conf a = { .name = "arm64", .image = "Image" };
	struct version_conf v = { .name = "9.9" };
	struct step s = { .id = "stock" };
	struct cell c = { .v = &v, .a = &a, .step = &s, .cache = dir, .build_dir = build };
	char *sha = NULL, *store;

	c.image_key = image_key("t", "a", "f", "cc");
	store = g_build_filename(dir, "images", c.image_key, NULL);
	assert_int_equal(g_mkdir_with_parents(build, 0755), 0);
	assert_true(g_file_set_contents(img, "a whole kernel", -1, NULL));
	assert_int_equal(image_store(&c, "abc123"), 0);
	/* cut short, as a full disk or a crash leaves it */
	set_stored(store, "Image", "a whole");
	assert_false(image_stored(&c, &sha));
	assert_false(g_file_test(store, G_FILE_TEST_EXISTS));
	/* the next build stores it again, and it is reused */
	assert_int_equal(image_store(&c, "abc123"), 0);
	assert_true(image_stored(&c, &sha));
	g_clear_pointer(&sha, g_free);
	/* a store an older kmatrix made has no hash of the image: not trusted */
	set_stored(store, "image.sha256", "");
	assert_false(image_stored(&c, &sha));
	assert_false(g_file_test(store, G_FILE_TEST_EXISTS));
	g_free(c.image);
	g_free(c.image_key);
	g_free(store);
	g_free(img);
	g_free(build);
	fixture_rm_rf(dir);
	g_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_store_and_reuse),
		cmocka_unit_test(test_damaged_store),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
