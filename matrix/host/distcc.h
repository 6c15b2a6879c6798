/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Distributed compiling: ccache stays the compiler kbuild sees and hands
 * its misses to distcc (CCACHE_PREFIX), so the make command line, and with
 * it every content key, is the same whether compiles run here or on a farm.
 */
#ifndef KMATRIX_DISTCC_H
#define KMATRIX_DISTCC_H

#include <glib.h>

#define DISTCC_HOSTS_ENV "KMATRIX_DISTCC_HOSTS"

/* The host list: @opt, else $KMATRIX_DISTCC_HOSTS; NULL when empty (local). */
char *distcc_hosts(const char *opt);
/* make's -j for @hosts: distcc's own slot count, at least @local; 0 and @err when distcc refuses. */
unsigned int distcc_jobs(const char *hosts, unsigned int local, GError **err);
/* @env with ccache's misses sent to distcc on @hosts. */
char **distcc_environ(char **env, const char *hosts);

#endif
