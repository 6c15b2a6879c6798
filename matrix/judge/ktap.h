/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAP parser: reads the test binary's KTAP (version 1) out of a guest
 * console log in which kernel messages may be interleaved.
 */
#ifndef KMATRIX_KTAP_H
#define KMATRIX_KTAP_H

#include <stdbool.h>
#include <stddef.h>

enum ktap_result {
	KTAP_OK,
	KTAP_NOT_OK,
	KTAP_SKIP,
};

struct ktap_case {
	int number;
	char *name;		/* nested subtests: "parent.child" */
	enum ktap_result result;
	char *directive;	/* text after '#' on the result line, or NULL */
	char *diag;		/* the case's '#' diagnostic lines, or NULL */
	char *suite;		/* compat suite the case ran in; NULL: native */
};

struct ktap_report {
	bool found;		/* a "KTAP version 1" header was seen */
	int plan;		/* -1 when no plan line was seen */
	struct ktap_case *cases;
	size_t ncases;
	bool complete;		/* plan seen and every planned case reported */
	char *error;		/* why it is incomplete or malformed, or NULL */
};

int ktap_parse(const char *text, size_t len, struct ktap_report *out);
void ktap_report_free(struct ktap_report *r);

#endif
