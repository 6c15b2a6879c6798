// SPDX-License-Identifier: GPL-2.0
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>

#include "chaos.h"

void chaos_point(const char *name)
{
	static long passes;
	const char *spec = g_getenv("KMATRIX_CHAOS_KILL");
	size_t len = strlen(name);
	long nth;

	if (!spec || strncmp(spec, name, len) ||
	    (spec[len] && spec[len] != ':'))
		return;
	nth = spec[len] ? strtol(spec + len + 1, NULL, 10) : 1;
	if (++passes >= nth)
		raise(SIGKILL);
}
