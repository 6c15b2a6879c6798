// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "chaos.h"
#include "key.h"
#include "result.h"

#define RESULT_ERROR g_quark_from_static_string("kmatrix-result")

const char *const result_verdicts[] = {
	"pass", "apply-failed", "config-failed", "build-failed", "boot-failed",
	"timeout", "test-failed", "unexpected-pass", "infra-error", "setup-error",
	NULL
};

static const char *const stages[] = { "apply", "configure", "build", "pack",
				      "boot", "test", NULL };

bool result_verdict_known(const char *verdict)
{
	return verdict && g_strv_contains(result_verdicts, verdict);
}

char *result_path(const char *results, const char *version, const char *arch,
		  const char *step, const char *suffix)
{
	char *name = g_strconcat(step, suffix, NULL);
	char *p = g_build_filename(results, version, arch, name, NULL);

	g_free(name);
	return p;
}

const char *result_stale(json_t *r, const char *expectations)
{
	const char *had = json_string_value(json_object_get(json_object_get(r, "inputs"),
							    "expectations"));

	if (!json_is_true(json_object_get(r, "met")))
		return NULL;
	if (!json_is_true(json_object_get(r, "final")))
		return "not final: the next run does it again";
	if (expectations && *expectations && had && *had && strcmp(expectations, had))
		return "judged against other expectations than this run's";
	return NULL;
}

char *result_now(void)
{
	GDateTime *now = g_date_time_new_now_utc();
	char *s = g_date_time_format(now, "%Y-%m-%dT%H:%M:%SZ");

	g_date_time_unref(now);
	return s;
}

json_t *result_new(const char *version, const char *arch, const char *step,
		   int step_index)
{
	json_t *timings = json_object(), *cpu = json_object(), *rss = json_object();
	char *now = result_now();
	json_t *r;

	for (int i = 0; stages[i]; i++) {
		json_object_set_new(timings, stages[i], json_real(0));
		json_object_set_new(cpu, stages[i], json_real(0));
		json_object_set_new(rss, stages[i], json_integer(0));
	}
	r = json_pack("{s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:s, s:{s:s, s:s, s:s, s:s, s:[], s:s},"
		      " s:b, s:s, s:b, s:s, s:[], s:[], s:o, s:o, s:o, s:{}, s:s, s:s, s:s, s:s, s:s}",
		      "schema", CELL_SCHEMA, "version", version, "arch", arch,
		      "step", step, "step_index", step_index,
		      "commit", "", "tree", "", "subject", "", "key", "",
		      "inputs", "tree", "", "config", "", "test_binary", "",
		      "initramfs", "", "qemu_argv", "toolchain", "",
		      "final", 0, "verdict", "infra-error", "met", 0,
		      "summary", "", "evidence", "tests",
		      "timings", timings, "cpu", cpu, "maxrss_kb", rss, "spans",
		      "accel", "",
		      "started", now, "finished", now,
		      "host", g_get_host_name(), "kmatrix", "0.1");
	g_free(now);
	return r;
}

char *result_clip(const char *s, size_t len, size_t max)
{
	size_t n = max;

	if (len <= max)
		return g_strndup(s, len);
	/* Not in the middle of a UTF-8 character: back to its first byte. */
	for (int i = 0; i < 3 && n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80; i++)
		n--;
	return g_strdup_printf("%.*s [kmatrix: %zu more bytes cut]", (int)n, s, len - n);
}

json_t *result_text(const char *s)
{
	char *clipped = result_clip(s ? s : "", s ? strlen(s) : 0, RESULT_TEXT_MAX);
	char *valid = g_utf8_make_valid(clipped, -1);
	json_t *j = json_string(valid);

	g_free(valid);
	g_free(clipped);
	return j;
}

void result_set_verdict(json_t *r, const char *verdict, bool met,
			const char *summary, GPtrArray *evidence)
{
	json_t *ev = json_array();

	for (guint i = 0; evidence && i < evidence->len; i++)
		json_array_append_new(ev, result_text(evidence->pdata[i]));
	json_object_set_new(r, "verdict", json_string(verdict));
	json_object_set_new(r, "met", json_boolean(met));
	json_object_set_new(r, "summary", result_text(summary));
	json_object_set_new(r, "evidence", ev);
}

void result_set_timing(json_t *r, const char *stage, double seconds)
{
	json_object_set_new(json_object_get(r, "timings"), stage, json_real(seconds));
}

void result_set_usage(json_t *r, const char *stage, double cpu, long maxrss_kb)
{
	json_object_set_new(json_object_get(r, "cpu"), stage, json_real(cpu));
	json_object_set_new(json_object_get(r, "maxrss_kb"), stage, json_integer(maxrss_kb));
}

void result_set_span(json_t *r, const char *stage, double start, double end)
{
	json_object_set_new(json_object_get(r, "spans"), stage,
			    json_pack("[f, f]", start, end));
}

json_t *result_usage_json(double wall, double cpu, long maxrss_kb)
{
	return json_pack("{s:f, s:f, s:I}", "wall", wall, "cpu", cpu,
			 "maxrss_kb", (json_int_t)maxrss_kb);
}

void result_set_input(json_t *r, const char *name, const char *value)
{
	json_object_set_new(json_object_get(r, "inputs"), name,
			    json_string(value ? value : ""));
}

/* The value of "NAME = value" in @lines, or NULL. */
static char *make_var(char **lines, const char *name)
{
	size_t n = strlen(name);

	for (int i = 0; lines[i]; i++) {
		const char *l = lines[i];

		if (strncmp(l, name, n))
			continue;
		l += n;
		while (*l == ' ' || *l == '\t')
			l++;
		if (*l != '=')
			continue;
		return g_strstrip(g_strdup(l + 1));
	}
	return NULL;
}

char *result_kernel_release(const char *makefile)
{
	char **lines = g_strsplit(makefile ? makefile : "", "\n", 200);
	char *v = make_var(lines, "VERSION"), *p = make_var(lines, "PATCHLEVEL");
	char *s = make_var(lines, "SUBLEVEL"), *x = make_var(lines, "EXTRAVERSION");
	char *out = NULL;

	if (v && p && *v && *p)
		out = g_strdup_printf("%s.%s.%s%s", v, p, s && *s ? s : "0", x ? x : "");
	g_free(v);
	g_free(p);
	g_free(s);
	g_free(x);
	g_strfreev(lines);
	return out;
}

static json_t *str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

void result_set_kernel(json_t *r, const char *package, const char *pkgver,
		       const char *makefile)
{
	char *release = result_kernel_release(makefile);

	json_object_set_new(r, "kernel", json_pack("{s:o, s:o, s:o}",
						   "package", str_or_null(package),
						   "package_version", str_or_null(pkgver),
						   "release", str_or_null(release)));
	g_free(release);
}

static bool write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= n;
	}
	return true;
}

/* g_mkstemp_full()'s temporary names for @path: <name>.XXXXXX */
static bool temp_of(const char *entry, const char *name)
{
	size_t len = strlen(name);

	return !strncmp(entry, name, len) && entry[len] == '.' && strlen(entry + len + 1) == 6;
}

/*
 * A run killed while writing @path left its temporary file; under the
 * lock no one else writes there, so it is litter: remove it.
 */
static void remove_stale_temps(const char *path)
{
	char *dir = g_path_get_dirname(path), *name = g_path_get_basename(path);
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *e;

	while (d && (e = g_dir_read_name(d))) {
		char *p = g_build_filename(dir, e, NULL);

		if (temp_of(e, name))
			g_unlink(p);
		g_free(p);
	}
	if (d)
		g_dir_close(d);
	g_free(dir);
	g_free(name);
}

/*
 * Written to a temporary file, synced and renamed over: a reader (or the
 * next run, after a kill -9) sees the old result or the new one, never
 * half of one.  Two writes, so that tests/chaos can stop kmatrix between
 * them (chaos.h).
 */
static int write_atomic(const char *path, const char *text, GError **err)
{
	char *tmp = g_strconcat(path, ".XXXXXX", NULL);
	int fd;
	size_t len = strlen(text), half = len / 2;
	bool ok;

	remove_stale_temps(path);
	fd = g_mkstemp_full(tmp, O_WRONLY | O_CLOEXEC, 0644);
	ok = fd >= 0 && write_all(fd, text, half);
	if (ok)
		chaos_point("result");
	ok = ok && write_all(fd, text + half, len - half) && fsync(fd) == 0;
	if (fd >= 0 && close(fd) < 0)
		ok = false;
	ok = ok && rename(tmp, path) == 0;
	if (!ok) {
		g_set_error(err, RESULT_ERROR, 1, "cannot write %s: %s", path, g_strerror(errno));
		if (fd >= 0)
			g_unlink(tmp);
	}
	g_free(tmp);
	return ok ? 0 : -1;
}

int result_write(const char *path, json_t *r, GError **err)
{
	char *dir = g_path_get_dirname(path);
	char *text = json_dumps(r, JSON_INDENT(2) | JSON_SORT_KEYS);
	int rc;

	g_mkdir_with_parents(dir, 0755);
	g_free(dir);
	if (!text) {
		g_set_error(err, RESULT_ERROR, 1, "cannot encode the result for %s", path);
		return -1;
	}
	rc = write_atomic(path, text, err);
	free(text);
	return rc;
}

static const char *const str_fields[] = {
	"schema", "version", "arch", "step", "commit", "tree", "subject", "key",
	"verdict", "summary", "accel", "started", "finished", "host", "kmatrix", NULL
};

static char *check_types(json_t *r)
{
	for (int i = 0; str_fields[i]; i++)
		if (!json_is_string(json_object_get(r, str_fields[i])))
			return g_strdup_printf("'%s' is missing or not a string", str_fields[i]);
	if (!json_is_integer(json_object_get(r, "step_index")))
		return g_strdup("'step_index' is missing or not an integer");
	if (!json_is_boolean(json_object_get(r, "final")) ||
	    !json_is_boolean(json_object_get(r, "met")))
		return g_strdup("'final' or 'met' is missing or not a boolean");
	if (!json_is_object(json_object_get(r, "inputs")) ||
	    !json_is_object(json_object_get(r, "timings")))
		return g_strdup("'inputs' or 'timings' is missing or not an object");
	if (!json_is_array(json_object_get(r, "evidence")) ||
	    !json_is_array(json_object_get(r, "tests")))
		return g_strdup("'evidence' or 'tests' is missing or not an array");
	return NULL;
}

static char *check_tests(json_t *r)
{
	size_t i;
	json_t *t;

	json_array_foreach(json_object_get(r, "tests"), i, t) {
		if (!json_is_string(json_object_get(t, "name")) ||
		    !json_is_string(json_object_get(t, "result")) ||
		    !json_is_string(json_object_get(t, "expected")) ||
		    !json_is_boolean(json_object_get(t, "met")))
			return g_strdup_printf("tests[%zu] lacks name, result, expected or met", i);
	}
	return NULL;
}

static bool all_values(json_t *o, bool (*ok)(json_t *v))
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v)
		if (!ok(v))
			return false;
	return true;
}

static bool is_number(json_t *v)
{
	return json_is_number(v) && json_number_value(v) >= 0;
}

static bool is_kib(json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 0;
}

static bool is_span(json_t *v)
{
	return json_is_array(v) && json_array_size(v) == 2 &&
	       is_number(json_array_get(v, 0)) && is_number(json_array_get(v, 1)) &&
	       json_number_value(json_array_get(v, 0)) <= json_number_value(json_array_get(v, 1));
}

/*
 * Measurements, not inputs: results written before they existed lack
 * them and stay valid, but one that is there must have the right shape.
 */
static char *check_usage(json_t *r)
{
	static const struct {
		const char *field;
		bool (*ok)(json_t *v);
		const char *what;
	} m[] = {
		{ "timings", is_number, "a number of seconds" },
		{ "cpu", is_number, "a number of seconds" },
		{ "maxrss_kb", is_kib, "an integer of KiB" },
		{ "spans", is_span, "a [start, end] pair" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(m); i++) {
		json_t *o = json_object_get(r, m[i].field);

		if (o && (!json_is_object(o) || !all_values(o, m[i].ok)))
			return g_strdup_printf("'%s' must map each stage to %s", m[i].field,
					       m[i].what);
	}
	return NULL;
}

static bool is_sha256(const char *s)
{
	return strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

char *result_validate(json_t *r)
{
	char *why;

	if (!json_is_object(r))
		return g_strdup("not a JSON object");
	why = check_types(r);
	if (!why)
		why = check_tests(r);
	if (!why)
		why = check_usage(r);
	if (why)
		return why;
	if (strcmp(json_string_value(json_object_get(r, "schema")), CELL_SCHEMA))
		return g_strdup_printf("schema is not %s", CELL_SCHEMA);
	if (!result_verdict_known(json_string_value(json_object_get(r, "verdict"))))
		return g_strdup("unknown verdict");
	if (json_is_true(json_object_get(r, "final")) &&
	    !is_sha256(json_string_value(json_object_get(r, "key"))))
		return g_strdup("a final result without a valid key");
	return NULL;
}

static char *check_identity(json_t *r, const char *field, const char *want)
{
	const char *have = json_string_value(json_object_get(r, field));

	if (want && strcmp(have, want))
		return g_strdup_printf("'%s' is %s, expected %s", field, have, want);
	return NULL;
}

json_t *result_read(const char *path, const char *version, const char *arch,
		    const char *step, char **why)
{
	json_error_t jerr;
	json_t *r = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	char *bad;

	if (!r) {
		*why = g_strdup_printf("%s: %s (line %d)", path, jerr.text, jerr.line);
		return NULL;
	}
	bad = result_validate(r);
	if (!bad)
		bad = check_identity(r, "version", version);
	if (!bad)
		bad = check_identity(r, "arch", arch);
	if (!bad)
		bad = check_identity(r, "step", step);
	if (bad) {
		*why = g_strdup_printf("%s: %s", path, bad);
		g_free(bad);
		json_decref(r);
		return NULL;
	}
	return r;
}

static int copy_file(const char *from, const char *to, GError **err)
{
	char *text = NULL;
	gsize len;
	int rc = 0;

	if (!g_file_get_contents(from, &text, &len, err) ||
	    !g_file_set_contents(to, text, len, err))
		rc = -1;
	g_free(text);
	return rc;
}

int result_copy_cell(const char *from, const char *to, const char *version,
		     const char *arch, const char *step, GError **err)
{
	char *src = g_build_filename(from, version, arch, NULL);
	char *dst = g_build_filename(to, version, arch, NULL);
	char *prefix = g_strconcat(step, ".", NULL);
	char *json = g_strconcat(step, ".json", NULL);
	char *a, *b;
	GDir *d = g_dir_open(src, 0, err);
	const char *n;
	int rc = d ? 0 : -1;

	g_mkdir_with_parents(dst, 0755);
	while (d && !rc && (n = g_dir_read_name(d))) {
		if (!g_str_has_prefix(n, prefix) || !strcmp(n, json))
			continue;
		a = g_build_filename(src, n, NULL);
		b = g_build_filename(dst, n, NULL);
		rc = copy_file(a, b, err);
		g_free(a);
		g_free(b);
	}
	if (d)
		g_dir_close(d);
	if (!rc) {
		a = g_build_filename(src, json, NULL);
		b = g_build_filename(dst, json, NULL);
		rc = copy_file(a, b, err);
		g_free(a);
		g_free(b);
	}
	a = g_strdup_printf("%s/%s/%sapply.log", from, version, prefix);
	b = g_strdup_printf("%s/%s/%sapply.log", to, version, prefix);
	if (!rc && g_file_test(a, G_FILE_TEST_EXISTS) && !g_file_test(b, G_FILE_TEST_EXISTS))
		rc = copy_file(a, b, err);
	g_free(a);
	g_free(b);
	g_free(json);
	g_free(prefix);
	g_free(dst);
	g_free(src);
	return rc;
}
