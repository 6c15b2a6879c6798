// SPDX-License-Identifier: GPL-2.0
/*
 * The initramfs is packed again only when something it is made of
 * changed: mkinitramfs, its arguments, or a file it packed.  A stand-in
 * mkinitramfs counts its runs and packs its sources' bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "conf.h"
#include "fixture.h"
#include "pack.h"

static char *top, *cache;
static struct arch_conf arch = {
	.name = "x86_64", .debian_arch = "amd64", .userland = "debian",
	.triplet = "x86_64-linux-gnu", .compat = "",
};

/* --sources FILE ARCH OUT TESTBIN: OUT holds TESTBIN and lib's bytes. */
static const char packer[] =
	"#!/bin/sh\n"
	"echo run >>\"$(dirname \"$0\")/runs\"\n"
	"while [ \"${1#--}\" != \"$1\" ]; do\n"
	"\t[ \"$1\" = --sources ] && src=$2\n"
	"\tshift 2\n"
	"done\n"
	"lib=$(dirname \"$0\")/lib.so\n"
	"cat \"$3\" \"$lib\" >\"$2\"\n"
	"printf '%s\\n%s\\n' \"$3\" \"$lib\" >\"$src\"\n";

static void put(const char *rel, const char *text, int mode)
{
	char *p = g_build_filename(top, rel, NULL);
	char *d = g_path_get_dirname(p);

	assert_int_equal(g_mkdir_with_parents(d, 0755), 0);
	assert_true(g_file_set_contents(p, text, -1, NULL));
	assert_int_equal(chmod(p, mode), 0);
	g_free(d);
	g_free(p);
}

static int runs(void)
{
	char *p = g_build_filename(top, "guest-tests", "runs", NULL);
	char *text = NULL;
	int n = 0;

	if (g_file_get_contents(p, &text, NULL, NULL))
		for (char *c = text; *c; c++)
			n += *c == '\n';
	g_free(text);
	g_free(p);
	return n;
}

/* Pack; the initramfs's sha, and whether the packer ran. */
static char *pack(bool *ran)
{
	struct pack p;
	struct outcome o = { 0 };
	int before = runs();
	char *sha;

	assert_int_equal(pack_initramfs(top, cache, &arch, &p, &o), 0);
	assert_true(g_file_test(p.path, G_FILE_TEST_IS_REGULAR));
	*ran = runs() > before;
	assert_int_equal(p.reused, !*ran);
	sha = g_strdup(p.sha);
	pack_clear(&p);
	return sha;
}

static int setup(void **state)
{
	top = fixture_tmpdir("pack");
	cache = g_build_filename(top, "cache", NULL);
	put("guest-tests/mkinitramfs", packer, 0755);
	put("guest-tests/lib.so", "lib 1\n", 0644);
	put("build/guest/x86_64/rlimit-tests", "tests 1\n", 0755);
	return 0;
}

static int teardown(void **state)
{
	fixture_rm_rf(top);
	g_free(top);
	g_free(cache);
	return 0;
}

static void test_reuse(void **state)
{
	char *first, *again, *sha, *stored, *rec;
	bool ran;

	first = pack(&ran);
	assert_true(ran);
	again = pack(&ran);
	assert_false(ran);
	assert_string_equal(first, again);
	g_free(again);

	/* a packed file changed: packed again, and the next run reuses that */
	put("guest-tests/lib.so", "lib 2\n", 0644);
	sha = pack(&ran);
	assert_true(ran);
	assert_string_not_equal(sha, first);
	g_free(pack(&ran));
	assert_false(ran);
	g_free(sha);

	/* the test binary, and mkinitramfs itself */
	put("build/guest/x86_64/rlimit-tests", "tests 2\n", 0755);
	g_free(pack(&ran));
	assert_true(ran);
	put("guest-tests/mkinitramfs", "#!/bin/sh\n# a new version\n" "exec sh \"$0.real\" \"$@\"\n",
	    0755);
	put("guest-tests/mkinitramfs.real", packer, 0755);
	g_free(pack(&ran));
	assert_true(ran);

	/* its arguments: another arch.conf userland */
	arch.userland = "none";
	g_free(pack(&ran));
	assert_true(ran);
	arch.userland = "debian";
	g_free(pack(&ran));
	assert_true(ran);

	/* a stored initramfs cut short is not taken */
	sha = pack(&ran);
	assert_false(ran);
	stored = g_strdup_printf("%s/initramfs/x86_64-%.16s.cpio.gz", cache, sha);
	assert_int_equal(truncate(stored, 2), 0);
	g_free(pack(&ran));
	assert_true(ran);

	/* no record: packed */
	rec = g_build_filename(cache, "initramfs", "x86_64.inputs", NULL);
	assert_int_equal(unlink(rec), 0);
	g_free(pack(&ran));
	assert_true(ran);
	g_free(rec);
	g_free(stored);
	g_free(sha);
	g_free(first);
}

/* A failed pack says why, from its log, and where the log is. */
static void test_failure_reason(void **state)
{
	struct pack p;
	struct outcome o = { 0 };
	char *log = g_build_filename(cache, "initramfs", "x86_64.pack.log", NULL);
	char *want = g_strdup_printf("guest-tests/mkinitramfs x86_64 failed: mkinitramfs: no "
				     "amd64 root /srv/none (tools/setup-host) (log: %s)", log);

	put("guest-tests/mkinitramfs", "#!/bin/sh\necho packing\n"
	    "echo 'mkinitramfs: no amd64 root /srv/none (tools/setup-host)' >&2\nexit 1\n", 0755);
	assert_int_equal(pack_initramfs(top, cache, &arch, &p, &o), -1);
	assert_string_equal(o.verdict, "infra-error");
	assert_string_equal(o.summary, want);
	/* as plan.c does with a failed pack */
	pack_clear(&p);
	outcome_clear(&o);
	put("guest-tests/mkinitramfs", packer, 0755);
	g_free(want);
	g_free(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_failure_reason),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
