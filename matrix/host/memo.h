/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a host program prints, remembered by the program's identity: its
 * real path, device, inode, size, mtime and ctime.  `gcc --version` and
 * `rlimit-tests --list` print the same until the file is replaced, and a
 * run whose cells are all cached should start no child to learn it.
 */
#ifndef KMATRIX_MEMO_H
#define KMATRIX_MEMO_H

/*
 * run_capture(@argv) remembered under <@cache>/work/memo: argv[0] is
 * looked up in $PATH, and the answer of a program that since changed is
 * not used.  A failed run (NULL) is not remembered.  Newly allocated.
 */
char *memo_capture(const char *cache, char **argv);

#endif
