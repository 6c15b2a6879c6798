// SPDX-License-Identifier: GPL-2.0
/* Cache keying: every input of a cell changes its key; nothing else does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "key.h"

static char *argv_a[] = { "qemu-system-x86_64", "-m", "256", NULL };
static char *argv_b[] = { "qemu-system-x86_64", "-m", "512", NULL };

static char *argv_c1[] = { "qemu", "-kernel", "/a/cache/build/5.10/x86_64/bzImage", NULL };
static char *argv_c2[] = { "qemu", "-kernel", "/b/km/build/5.10/x86_64/bzImage", NULL };
static char *argv_c3[] = { "qemu", "-kernel", "/b/km/build/5.10/arm64/bzImage", NULL };

static struct key_inputs base(void)
{
	struct key_inputs in = {
		.tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
		.arch_conf = "[arch]\nkernel_arch=x86_64\n", .fragment = "CONFIG_PRINTK=y\n",
		.quirks = "", .toolchain = "gcc (Debian 12.2.0-14) 12.2.0",
		.test_binary = "aa", .initramfs = "bb", .expectations = "cc",
		.qemu_argv = argv_a,
	};
	return in;
}

static void assert_differs(const struct key_inputs *in)
{
	struct key_inputs b = base();
	char *k1 = key_compute(&b), *k2 = key_compute(in);

	assert_string_not_equal(k1, k2);
	g_free(k1);
	g_free(k2);
}

static void test_stable(void **state)
{
	struct key_inputs a = base(), b = base();
	char *k1 = key_compute(&a), *k2 = key_compute(&b);

	assert_int_equal(strlen(k1), 64);
	assert_string_equal(k1, k2);
	g_free(k1);
	g_free(k2);
}

static void test_each_input_counts(void **state)
{
	struct key_inputs in;

	in = base(); in.tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4905"; assert_differs(&in);
	in = base(); in.arch_conf = "[arch]\nkernel_arch=arm64\n"; assert_differs(&in);
	in = base(); in.fragment = "CONFIG_PRINTK=n\n"; assert_differs(&in);
	in = base(); in.quirks = "qemu version<5.12"; assert_differs(&in);
	in = base(); in.toolchain = "gcc (Debian 13) 13.1"; assert_differs(&in);
	in = base(); in.test_binary = "ab"; assert_differs(&in);
	in = base(); in.initramfs = "bc"; assert_differs(&in);
	in = base(); in.expectations = "cd"; assert_differs(&in);
	in = base(); in.qemu_argv = argv_b; assert_differs(&in);
	in = base(); in.quirks = NULL; assert_differs(&in);
}

/* Joining with newlines must not let one field's end pass for the next's start. */
static void test_no_field_shift(void **state)
{
	struct key_inputs a = base(), b = base();
	char *k1, *k2;

	a.test_binary = "aab";
	a.initramfs = "b";
	b.test_binary = "aa";
	b.initramfs = "bb";
	k1 = key_compute(&a);
	k2 = key_compute(&b);
	assert_string_not_equal(k1, k2);
	g_free(k1);
	g_free(k2);
}

static void test_file_sha256(void **state)
{
	char *path = NULL;
	int fd = g_file_open_tmp("kmatrix-key-XXXXXX", &path, NULL);
	char *hex;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "abc", 3), 3);
	close(fd);
	hex = key_file_sha256(path);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	g_free(hex);
	unlink(path);
	assert_null(key_file_sha256(path));
	g_free(path);
}

/* A cache moved elsewhere keeps its keys; a path inside it still counts. */
static void test_cache_location(void **state)
{
	struct key_inputs a = base(), b = base(), c = base();
	char *k1, *k2, *k3;

	a.qemu_argv = argv_c1;
	a.cache = "/a/cache";
	b.qemu_argv = argv_c2;
	b.cache = "/b/km";
	c.qemu_argv = argv_c3;
	c.cache = "/b/km";
	k1 = key_compute(&a);
	k2 = key_compute(&b);
	k3 = key_compute(&c);
	assert_string_equal(k1, k2);
	assert_string_not_equal(k2, k3);
	/* A prefix that is not a whole directory name is not the cache. */
	b.cache = "/b/k";
	g_free(k2);
	k2 = key_compute(&b);
	assert_string_not_equal(k1, k2);
	g_free(k1);
	g_free(k2);
	g_free(k3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stable),
		cmocka_unit_test(test_cache_location),
		cmocka_unit_test(test_each_input_counts),
		cmocka_unit_test(test_no_field_shift),
		cmocka_unit_test(test_file_sha256),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
