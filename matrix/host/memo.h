/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a host program prints, or a file's hash, remembered by the file's
 * identity: its real path, device, inode, size, mtime and ctime.
 * `gcc --version` prints the same until the file is replaced, and a run
 * whose cells are all cached should neither start a child nor read every
 * packed file again to learn what it already knew.
 */
#ifndef KMATRIX_MEMO_H
#define KMATRIX_MEMO_H

/*
 * run_capture(@argv) remembered under <@cache>/work/memo: argv[0] is
 * looked up in $PATH, and the answer of a program that since changed is
 * not used.  A failed run (NULL) is not remembered.  Newly allocated.
 */
char *memo_capture(const char *cache, char **argv);

/*
 * key_file_sha256(@file), remembered under <@cache>/work/memo by the
 * file's identity, so that an unchanged file is not read again.  A file
 * changed (mtime or ctime) within the last second is hashed but not
 * remembered.
 */
char *memo_file_sha256(const char *cache, const char *file);

#endif
