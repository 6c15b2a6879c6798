// SPDX-License-Identifier: GPL-2.0
/*
 * The KTAP parser (matrix/judge/ktap.c) on arbitrary console bytes: what a
 * guest, its kernel and the serial line put there is not ours to trust.
 */
#include <string.h>

#include "fuzz.h"
#include "ktap.h"

/* What the judge (expect.c, test.c) relies on in a report. */
static void check_report(const struct ktap_report *r)
{
	fuzz_assert(r->found || (!r->ncases && !r->complete));
	fuzz_assert(!r->complete || (r->plan >= 0 && !r->error));
	fuzz_assert(r->complete || r->error);
	for (size_t i = 0; i < r->ncases; i++) {
		const struct ktap_case *c = &r->cases[i];

		fuzz_assert(c->name && *c->name);
		fuzz_assert(c->result <= KTAP_SKIP);
		fuzz_assert(!c->suite);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktap_report r;

	ktap_parse((const char *)data, size, &r);
	check_report(&r);
	ktap_report_free(&r);
	return 0;
}
