/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A build directory's own damage (builddir.c): make trusts every file newer
 * than its sources, so a truncated object, image or .config would be linked
 * or booted as it is.  The mark of an unfinished build says that whatever
 * is newer than it may be cut short; the stamp a good build leaves tells
 * kmatrix which of .config and the image to make again; the words a link
 * says of a damaged object name the file to make again, and a directory
 * whose damage names no file is built again from clean.
 */
#ifndef KMATRIX_BUILDDIR_H
#define KMATRIX_BUILDDIR_H

#include <glib.h>

struct cell;

/*
 * A build begins: forget the stamp (what make does next is not known to be
 * whole) and leave the mark of an unfinished build, whose mtime is the
 * build's start.
 */
void builddir_begin(const struct cell *c);
/* make ended by itself (made or failed): the build is no longer unfinished. */
void builddir_end(const struct cell *c);
/* After a good build: the hashes of .config and the image. */
void builddir_stamp(const struct cell *c);
/*
 * After a build that never ended (kmatrix or make killed outright, the
 * host down), remove every file it wrote, any of which may be cut short;
 * then each stamped file that differs from its stamp, saying so, for
 * configure and make to make again; 0, or -1 with the cell's outcome
 * saying what could not be removed.
 */
int builddir_repair(struct cell *c);
/* The line of a build log that shows a damaged object file, or NULL. */
char *builddir_damaged_object(const char *log);
/*
 * The file of the build directory a damage line names (relative to it),
 * or NULL.
 */
char *builddir_damaged_file(const char *line);
/*
 * Remove the file the damage line @why names, saying so, for make to make
 * it again: 0, or -1 when the line names no regular file of the build
 * directory (the directory is then built again from clean).
 */
int builddir_remove_damaged(struct cell *c, const char *why);
/*
 * Remove the build directory, saying why once; 0 on success, else the
 * cell's outcome says what could not be removed.
 */
int builddir_clean(struct cell *c, const char *why);

#endif
