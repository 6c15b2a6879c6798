// SPDX-License-Identifier: GPL-2.0
/*
 * The result loader (matrix/judge/result.c): a cell's JSON as a crash, a full
 * disk or a hand may have left it.  result_read() validates it; what it
 * lets through is trusted by every report, so a valid result is also
 * rendered in each format, as the only cell of a results directory
 * (<tmp>/<version>/<arch>/<step>.json, a link to the input's memfd).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "report.h"
#include "result.h"

static char *dir;
static GPtrArray *made; /* what to remove after each input, deepest last */

static void undo(void)
{
	for (guint i = made->len; i-- > 0;)
		remove(made->pdata[i]);
	g_ptr_array_set_size(made, 0);
}

static void cleanup(void)
{
	undo();
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	dir = g_dir_make_tmp("kmatrix-fuzz-result-XXXXXX", NULL);
	if (!dir)
		abort();
	made = g_ptr_array_new_with_free_func(g_free);
	atexit(cleanup);
	return 0;
}

/* Usable as a directory name: what a results directory can hold. */
static bool safe_name(const char *s)
{
	return *s && strcmp(s, ".") && strcmp(s, "..") &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789._+-") == strlen(s);
}

static bool lay(json_t *res, const char *file)
{
	const char *v = jstr(res, "version"), *a = jstr(res, "arch"),
		   *s = jstr(res, "step");
	char *p;

	if (!safe_name(v) || !safe_name(a) || !safe_name(s))
		return false;
	p = g_build_filename(dir, v, NULL);
	mkdir(p, 0700);
	g_ptr_array_add(made, p);
	p = g_build_filename(dir, v, a, NULL);
	mkdir(p, 0700);
	g_ptr_array_add(made, p);
	p = result_path(dir, v, a, s, ".json");
	g_ptr_array_add(made, p);
	return symlink(file, p) == 0;
}

static void count(struct report *r)
{
	for (guint i = 0; i < r->run->cells->len; i++) {
		struct rcell *c = r->run->cells->pdata[i];

		r->planned++;
		r->with_result += !!c->res;
		r->missing += !c->res;
		r->met += c->res && c->met;
		r->departed += c->res && !c->met;
	}
}

/* The JSON formats must stay JSON, whatever the cell held. */
static void render(const struct report *r,
		   void (*fn)(GString *, const struct report *), bool json)
{
	GString *out = g_string_new(NULL);

	fn(out, r);
	if (json) {
		json_error_t jerr;
		json_t *j = json_loadb(out->str, out->len, 0, &jerr);

		if (!j)
			fuzz_fail(__FILE__, __LINE__, jerr.text);
		json_decref(j);
	}
	g_string_free(out, TRUE);
}

static void report_all(json_t *res, const char *file)
{
	struct report r = { .origin = "kmatrix", .cache = "/nonexistent" };
	GError *err = NULL;

	if (!lay(res, file))
		return;
	r.run = run_load(dir, &err);
	fuzz_assert(r.run && r.run->cells->len == 1);
	fuzz_assert(((struct rcell *)r.run->cells->pdata[0])->res);
	r.drift = g_ptr_array_new();
	count(&r);
	render(&r, report_md, false);
	render(&r, report_html, false);
	render(&r, report_junit, false);
	render(&r, report_summary, false);
	render(&r, report_json, true);
	render(&r, report_kcidb, true);
	report_gate_status(&r);
	g_ptr_array_free(r.drift, TRUE);
	run_free(r.run);
	undo();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *file = fuzz_file(data, size);
	char *why = NULL;
	json_t *res = result_read(file, NULL, NULL, NULL, &why);

	fuzz_assert(!res != !why);
	if (res) {
		fuzz_assert(!result_validate(res));
		report_all(res, file);
	}
	g_free(why);
	json_decref(res);
	return 0;
}
