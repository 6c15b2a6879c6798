// SPDX-License-Identifier: GPL-2.0
/*
 * cmocka tests for the "# abi" lines: their exact format, and the kernel's
 * numbering read from /proc/PID/limits fixtures (limits-*.txt, taken from
 * the directory given as argv[1], default guest-tests/tests): generic,
 * mips and sparc orders, and the baseline's holes skipped or "(null)".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "abi.h"

#define UAPI_LINE                                                            \
	"abi uapi RLIMIT_CPU=0 RLIMIT_FSIZE=1 RLIMIT_DATA=2 RLIMIT_STACK=3 " \
	"RLIMIT_CORE=4 RLIMIT_RSS=5 RLIMIT_NPROC=6 RLIMIT_NOFILE=7 "         \
	"RLIMIT_MEMLOCK=8 RLIMIT_AS=9 RLIMIT_LOCKS=10 RLIMIT_SIGPENDING=11 " \
	"RLIMIT_MSGQUEUE=12 RLIMIT_NICE=13 RLIMIT_RTPRIO=14 "                \
	"RLIMIT_RTTIME=15 RLIM_NLIMITS=16 RLIM_INFINITY=0xffffffffffffffff"

enum {
	CPU,
	FSIZE,
	DATA,
	STACK,
	CORE,
	RSS,
	NPROC,
	NOFILE,
	MEMLOCK,
	AS,
	LOCKS,
	SIGPENDING,
	MSGQUEUE,
	NICE,
	RTPRIO,
	RTTIME
};

static const char *fixture_dir = "guest-tests/tests";

static char *fixture(const char *name)
{
	char path[512], *text;
	FILE *f;
	long len;

	snprintf(path, sizeof(path), "%s/%s", fixture_dir, name);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, len + 1);
	assert_int_equal(fread(text, 1, len, f), len);
	fclose(f);
	return text;
}

/* A kernel that knows resources 0..n-1 except @hole1 and @hole2. */
static void known_upto(bool known[ABI_PROBE_MAX], int n, int hole1, int hole2)
{
	int i;

	for (i = 0; i < ABI_PROBE_MAX; i++)
		known[i] = i < n && i != hole1 && i != hole2;
}

static void parse(const char *file, const bool *known, int lines,
		  struct abi_numbering *n)
{
	char *text = fixture(file);

	assert_int_equal(abi_parse_limits(text, known, n), lines);
	free(text);
}

static void test_format_uapi_line(void **state)
{
	struct abi_numbering n;
	char buf[1024];
	int i;

	for (i = 0; i < ABI_NRES; i++)
		n.index[i] = i;
	n.nlimits = 16;
	n.has_infinity = true;
	n.infinity = ~0ULL;
	assert_int_equal(abi_format(&n, "uapi", buf, sizeof(buf)),
			 strlen(UAPI_LINE));
	assert_string_equal(buf, UAPI_LINE);
}

/* A short buffer is cut but the full length comes back, as snprintf. */
static void test_format_truncates(void **state)
{
	struct abi_numbering n;
	char buf[16];

	abi_clear(&n);
	n.index[NICE] = 13;
	assert_int_equal(abi_format(&n, "kernel", buf, sizeof(buf)),
			 strlen("abi kernel RLIMIT_NICE=13"));
	assert_string_equal(buf, "abi kernel RLIM");
}

static void test_format_leaves_out_unknown(void **state)
{
	struct abi_numbering n;
	char buf[256];

	abi_clear(&n);
	abi_format(&n, "kernel", buf, sizeof(buf));
	assert_string_equal(buf, "abi kernel");
	n.index[RTTIME] = 15;
	n.nlimits = 16;
	abi_format(&n, "kernel", buf, sizeof(buf));
	assert_string_equal(buf, "abi kernel RLIMIT_RTTIME=15 RLIM_NLIMITS=16");
}

static void test_generic_order(void **state)
{
	struct abi_numbering n;
	bool known[ABI_PROBE_MAX];
	char buf[1024];
	int i;

	known_upto(known, 16, -1, -1);
	parse("limits-x86_64.txt", known, 16, &n);
	for (i = 0; i < ABI_NRES; i++)
		assert_int_equal(n.index[i], i);
	assert_int_equal(n.nlimits, 16);
	assert_false(n.has_infinity);
	abi_format(&n, "kernel", buf, sizeof(buf));
	assert_true(strstr(buf, " RLIMIT_MSGQUEUE=12 RLIMIT_NICE=13 "
				"RLIMIT_RTPRIO=14 RLIMIT_RTTIME=15 "
				"RLIM_NLIMITS=16"));
}

static void test_mips_order(void **state)
{
	struct abi_numbering n;
	bool known[ABI_PROBE_MAX];

	known_upto(known, 16, -1, -1);
	parse("limits-mips.txt", known, 16, &n);
	assert_int_equal(n.index[CORE], 4);
	assert_int_equal(n.index[NOFILE], 5);
	assert_int_equal(n.index[AS], 6);
	assert_int_equal(n.index[RSS], 7);
	assert_int_equal(n.index[NPROC], 8);
	assert_int_equal(n.index[MEMLOCK], 9);
	assert_int_equal(n.index[LOCKS], 10);
	assert_int_equal(n.index[NICE], 13);
}

static void test_sparc_order(void **state)
{
	struct abi_numbering n;
	bool known[ABI_PROBE_MAX];

	known_upto(known, 16, -1, -1);
	parse("limits-sparc.txt", known, 16, &n);
	assert_int_equal(n.index[RSS], 5);
	assert_int_equal(n.index[NOFILE], 6);
	assert_int_equal(n.index[NPROC], 7);
	assert_int_equal(n.index[MEMLOCK], 8);
	assert_int_equal(n.index[AS], 9);
}

/* The baseline skips the lines of 13 and 14: RTTIME is still 15. */
static void test_baseline_lines_skipped(void **state)
{
	struct abi_numbering n;
	bool known[ABI_PROBE_MAX];

	known_upto(known, 16, 13, 14);
	parse("limits-baseline.txt", known, 14, &n);
	assert_int_equal(n.index[MSGQUEUE], 12);
	assert_int_equal(n.index[NICE], -1);
	assert_int_equal(n.index[RTPRIO], -1);
	assert_int_equal(n.index[RTTIME], 15);
	assert_int_equal(n.nlimits, 16);
}

/* A kernel that prints "(null)" for its holes: lines by position. */
static void test_null_lines(void **state)
{
	struct abi_numbering n;
	bool known[ABI_PROBE_MAX];

	known_upto(known, 16, 13, 14);
	parse("limits-null.txt", known, 16, &n);
	assert_int_equal(n.index[NICE], -1);
	assert_int_equal(n.index[RTPRIO], -1);
	assert_int_equal(n.index[RTTIME], 15);
	assert_int_equal(n.nlimits, 16);
}

/* Without prlimit64 every number counts as known: lines by position. */
static void test_no_prlimit_positions(void **state)
{
	struct abi_numbering n;
	bool known[ABI_PROBE_MAX];

	known_upto(known, ABI_PROBE_MAX, -1, -1);
	parse("limits-mips.txt", known, 16, &n);
	assert_int_equal(n.index[NOFILE], 5);
	assert_int_equal(n.index[RTTIME], 15);
	assert_int_equal(n.nlimits, 16);
}

static void test_empty_text(void **state)
{
	struct abi_numbering n;
	bool known[ABI_PROBE_MAX];
	int i;

	known_upto(known, 16, -1, -1);
	assert_int_equal(abi_parse_limits("", known, &n), 0);
	for (i = 0; i < ABI_NRES; i++)
		assert_int_equal(n.index[i], -1);
	assert_int_equal(n.nlimits, -1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_uapi_line),
		cmocka_unit_test(test_format_truncates),
		cmocka_unit_test(test_format_leaves_out_unknown),
		cmocka_unit_test(test_generic_order),
		cmocka_unit_test(test_mips_order),
		cmocka_unit_test(test_sparc_order),
		cmocka_unit_test(test_baseline_lines_skipped),
		cmocka_unit_test(test_null_lines),
		cmocka_unit_test(test_no_prlimit_positions),
		cmocka_unit_test(test_empty_text),
	};

	if (argc > 1)
		fixture_dir = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
