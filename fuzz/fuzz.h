/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the libFuzzer targets share (fuzz/common.c).  Each target is one
 * fuzz_<name>.c with LLVMFuzzerTestOneInput(); fuzz/build.mk links it
 * with kmatrix's objects built for fuzzing.
 */
#ifndef KMATRIX_FUZZ_H
#define KMATRIX_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/*
 * The readers take a path: @data as the contents of a memfd, reached as
 * /proc/self/fd/<n> (one per process, rewritten each time; no disk).
 */
const char *fuzz_file(const uint8_t *data, size_t size);

/* @data as a NUL-terminated string, as g_file_get_contents() gives it. */
char *fuzz_text(const uint8_t *data, size_t size);

/* A project path (FUZZ_TOP is the source directory, set at build time). */
char *fuzz_path(const char *rel);

/* A broken invariant: print it and abort, which libFuzzer reports. */
#define fuzz_assert(cond)                                     \
	do {                                                  \
		if (!(cond))                                  \
			fuzz_fail(__FILE__, __LINE__, #cond); \
	} while (0)
void fuzz_fail(const char *file, int line, const char *what)
	__attribute__((noreturn));

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
