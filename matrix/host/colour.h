/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Colour for verdicts and departures: on a terminal only, never when
 * NO_COLOR is set (https://no-color.org), and as --color=WHEN says.
 */
#ifndef KMATRIX_COLOUR_H
#define KMATRIX_COLOUR_H

#include <stdbool.h>

enum colour_when { COLOUR_AUTO, COLOUR_ALWAYS, COLOUR_NEVER };

/* "auto", "always" or "never" into *@w; false for anything else. */
bool colour_parse(const char *s, enum colour_when *w);
/*
 * The decision: always and never as said; auto only on a terminal and
 * when @no_color ($NO_COLOR) is unset or empty.
 */
bool colour_decide(enum colour_when w, bool tty, const char *no_color);
/* --color=WHEN for the rest of the process (default auto). */
void colour_set(enum colour_when w);
/* Whether output on @fd gets colour, per colour_decide(). */
bool colour_on(int fd);
/* The escape that starts a good (met) or bad verdict on @fd, and the reset; "" without colour. */
const char *colour_good(int fd);
const char *colour_bad(int fd);
const char *colour_off(int fd);

#endif
