// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "colour.h"

static enum colour_when when = COLOUR_AUTO;

bool colour_parse(const char *s, enum colour_when *w)
{
	static const char *const names[] = {
		[COLOUR_AUTO] = "auto", [COLOUR_ALWAYS] = "always", [COLOUR_NEVER] = "never",
	};

	for (int i = 0; i <= COLOUR_NEVER; i++)
		if (!strcmp(s, names[i])) {
			*w = i;
			return true;
		}
	return false;
}

bool colour_decide(enum colour_when w, bool tty, const char *no_color)
{
	if (w != COLOUR_AUTO)
		return w == COLOUR_ALWAYS;
	return tty && !(no_color && *no_color);
}

void colour_set(enum colour_when w)
{
	when = w;
}

bool colour_on(int fd)
{
	return colour_decide(when, isatty(fd), getenv("NO_COLOR"));
}

const char *colour_good(int fd)
{
	return colour_on(fd) ? "\033[32m" : "";
}

const char *colour_bad(int fd)
{
	return colour_on(fd) ? "\033[1;31m" : "";
}

const char *colour_off(int fd)
{
	return colour_on(fd) ? "\033[m" : "";
}
