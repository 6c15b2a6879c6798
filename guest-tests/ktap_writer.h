/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAP version 1 writer: header, plan, one result line per case and a
 * kselftest-style totals line.  Pure: it only formats onto a FILE.
 */
#ifndef RLT_KTAP_WRITER_H
#define RLT_KTAP_WRITER_H

#include <stdbool.h>
#include <stdio.h>

enum kw_status {
	KW_PASS,
	KW_FAIL,
	KW_SKIP,
};

struct ktap_writer {
	FILE *out;
	unsigned int plan;
	unsigned int next; /* number of the next result line */
	unsigned int pass, fail, skip;
};

bool kw_valid_name(const char *name);
void kw_header(struct ktap_writer *w, FILE *out);
void kw_plan(struct ktap_writer *w, unsigned int plan);
void kw_begin(struct ktap_writer *w, FILE *out, unsigned int plan);
void kw_diag(struct ktap_writer *w, const char *text);
int kw_result(struct ktap_writer *w, enum kw_status st, const char *name,
	      const char *reason);
int kw_end(struct ktap_writer *w);

#endif
