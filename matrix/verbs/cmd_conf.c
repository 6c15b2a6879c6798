// SPDX-License-Identifier: GPL-2.0
/*
 * kmatrix conf: the matrix as kmatrix reads it, for the maintainer tools
 * and test scripts, so that none of them parses matrix.conf or an order
 * file of its own.  Nothing is laid or built.  Paths are absolute.
 *
 *   versions | arches          one name per line
 *   version V [KEY]            KEY=value lines, or KEY's value
 *   arch A [KEY]               the same for an arch's [arch] group
 *   steps V                    "id patch" per step: stock (no patch),
 *                              baseline, then the series' order
 */
#include <stdio.h>
#include <string.h>

#include "apply.h"
#include "cache.h"
#include "conf.h"
#include "verbs.h"

struct field {
	const char *key;
	size_t off;
};

#define VF(k) { #k, G_STRUCT_OFFSET(struct version_conf, k) }
#define AF(k) { #k, G_STRUCT_OFFSET(struct arch_conf, k) }

static const struct field version_fields[] = {
	VF(package), VF(tarball), VF(git), VF(ref), VF(baseline), VF(series), { NULL }
};

static const struct field arch_fields[] = {
	AF(kernel_arch), AF(cross_compile), AF(guest_cc), AF(debian_arch),
	AF(image), AF(image_target), AF(fragment), AF(init), AF(triplet),
	AF(userland), AF(compat), AF(compat_cc), AF(uapi_arch),
	AF(compat_uapi_arch), AF(host_packages),
	AF(guest_packages), { NULL }
};

static const char *field_value(const void *obj, const struct field *f)
{
	const char *v = G_STRUCT_MEMBER(const char *, obj, f->off);

	return v ? v : "";
}

/* All KEY=value lines of @obj, or the value of @key alone. */
static int print_fields(const void *obj, const struct field *fields, const char *key)
{
	for (const struct field *f = fields; f->key; f++) {
		if (!key)
			printf("%s=%s\n", f->key, field_value(obj, f));
		else if (!strcmp(key, f->key))
			return printf("%s\n", field_value(obj, f)) < 0;
	}
	if (!key)
		return 0;
	g_printerr("kmatrix conf: no key '%s' (keys:", key);
	for (const struct field *f = fields; f->key; f++)
		g_printerr(" %s", f->key);
	g_printerr(")\n");
	return 2;
}

static int print_names(GPtrArray *list, size_t name_off)
{
	for (guint i = 0; i < list->len; i++)
		printf("%s\n", G_STRUCT_MEMBER(const char *, list->pdata[i], name_off));
	return 0;
}

/* A patch that is missing is named, and the tool that asked fails. */
static int print_steps(const struct version_conf *v)
{
	GError *err = NULL;
	GPtrArray *steps = apply_plan(v, &err);
	int rc = 0;

	if (!steps) {
		g_printerr("kmatrix conf: %s\n", err->message);
		g_error_free(err);
		return 2;
	}
	for (guint i = 0; i < steps->len; i++) {
		const struct step *s = steps->pdata[i];

		printf("%s%s%s\n", s->id, s->patch ? " " : "", s->patch ? s->patch : "");
		if (s->failure) {
			g_printerr("kmatrix conf: %s: step %s: %s\n", v->name, s->id, s->failure);
			rc = 1;
		}
	}
	g_ptr_array_free(steps, TRUE);
	return rc;
}

static int usage(void)
{
	g_printerr("kmatrix conf: usage: versions | arches | version V [KEY] | arch A [KEY] | steps V\n");
	return 2;
}

static int query(const struct matrix_conf *m, int argc, char **argv)
{
	const char *what = argv[1], *name = argc > 2 ? argv[2] : NULL;
	const char *key = argc > 3 ? argv[3] : NULL;
	const struct version_conf *v = NULL;
	const struct arch_conf *a = NULL;

	if (!strcmp(what, "versions") && argc == 2)
		return print_names(m->versions, G_STRUCT_OFFSET(struct version_conf, name));
	if (!strcmp(what, "arches") && argc == 2)
		return print_names(m->arches, G_STRUCT_OFFSET(struct arch_conf, name));
	if (!strcmp(what, "version") || !strcmp(what, "steps")) {
		if (name && !(v = conf_version(m, name))) {
			g_printerr("kmatrix conf: no version '%s' in %s\n", name, m->path);
			return 2;
		}
		if (v && !strcmp(what, "steps") && argc == 3)
			return print_steps(v);
		if (v && argc <= 4)
			return print_fields(v, version_fields, key);
	}
	if (!strcmp(what, "arch")) {
		if (name && !(a = conf_arch(m, name))) {
			g_printerr("kmatrix conf: no arch '%s' in %s\n", name, m->path);
			return 2;
		}
		if (a && argc <= 4)
			return print_fields(a, arch_fields, key);
	}
	return usage();
}

int cmd_conf(int argc, char **argv)
{
	char *matrix = NULL, *top;
	GOptionEntry entries[] = {
		{ "matrix", 0, 0, G_OPTION_ARG_FILENAME, &matrix,
		  "Matrix definition (default: matrix/matrix.conf)", "FILE" },
		{ NULL }
	};
	struct matrix_conf *m;
	GError *err = NULL;
	int rc;

	if (!verb_parse("conf", "versions|arches|version V [KEY]|arch A [KEY]|steps V",
		       "The matrix as kmatrix reads it, one value per line; paths absolute.\n"
		       "Nothing is laid or built.  Exit status: 0, 1 a step's patch is missing,\n"
		       "2 usage or a matrix that does not load.",
		       entries, &argc, &argv, &rc))
		return rc;
	if (argc < 2)
		return usage();
	top = cache_project_top();
	m = conf_open(top, matrix, &err);
	if (!m) {
		g_printerr("kmatrix conf: %s\n", err->message);
		g_error_free(err);
		rc = 2;
	} else {
		rc = query(m, argc, argv);
		fflush(stdout);
		conf_free(m);
	}
	g_free(top);
	g_free(matrix);
	return rc;
}
