// SPDX-License-Identifier: GPL-2.0
/*
 * The checks.  Each finding names the check, the tree, the arch, the
 * symbol and the file, and says what is wrong in one line.
 */
#include <string.h>

#include "abi.h"

/* The ABI fixed by the 2005 nice and rt-prio rlimits change. */
static const struct {
	const char *name;
	guint64 value;
} fixed[] = {
	{ "RLIMIT_NICE", 13 },
	{ "RLIMIT_RTPRIO", 14 },
};

void abi_finding_free(struct abi_finding *f)
{
	if (!f)
		return;
	g_free(f->check);
	g_free(f->tree);
	g_free(f->arch);
	g_free(f->symbol);
	g_free(f->file);
	g_free(f->message);
	g_free(f);
}

G_GNUC_PRINTF(7, 8)
static void add(GPtrArray *out, const char *check, const char *tree,
		const char *arch, const char *symbol, const char *file,
		const char *fmt, ...)
{
	struct abi_finding *f = g_new0(struct abi_finding, 1);
	va_list ap;

	va_start(ap, fmt);
	f->check = g_strdup(check);
	f->tree = g_strdup(tree);
	f->arch = g_strdup(arch);
	f->symbol = g_strdup(symbol ? symbol : "");
	f->file = g_strdup(file ? file : "");
	f->message = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_ptr_array_add(out, f);
}

static bool is_rlimit(const struct abi_sym *s)
{
	return g_str_has_prefix(s->name, "RLIMIT_");
}

static void check_fixed(const struct abi_tree *t, const struct abi_arch *a,
			GPtrArray *out)
{
	for (guint i = 0; i < G_N_ELEMENTS(fixed); i++) {
		const struct abi_sym *s = abi_arch_sym(a, fixed[i].name);

		if (s && s->value != fixed[i].value)
			add(out, "fixed-number", t->label, a->name, s->name,
			    s->file,
			    "%s: %s: %s is %" G_GUINT64_FORMAT
			    ", must be %" G_GUINT64_FORMAT " (%s)",
			    t->label, a->name, s->name, s->value,
			    fixed[i].value, s->file);
	}
}

static void check_duplicates(const struct abi_tree *t, const struct abi_arch *a,
			     GPtrArray *out)
{
	for (guint i = 0; i < a->syms->len; i++) {
		const struct abi_sym *p = a->syms->pdata[i];

		for (guint j = i + 1; is_rlimit(p) && j < a->syms->len; j++) {
			const struct abi_sym *s = a->syms->pdata[j];

			if (is_rlimit(s) && p->value == s->value)
				add(out, "duplicate", t->label, a->name,
				    s->name, s->file,
				    "%s: %s: %s and %s are both %" G_GUINT64_FORMAT
				    " (%s)",
				    t->label, a->name, p->name, s->name,
				    s->value, s->file);
		}
	}
}

static const struct abi_sym *highest(const struct abi_arch *a)
{
	const struct abi_sym *h = NULL;

	for (guint i = 0; i < a->syms->len; i++) {
		const struct abi_sym *s = a->syms->pdata[i];

		if (is_rlimit(s) && (!h || s->value > h->value))
			h = s;
	}
	return h;
}

static void check_nlimits(const struct abi_tree *t, const struct abi_arch *a,
			  GPtrArray *out)
{
	const struct abi_sym *n = abi_arch_sym(a, "RLIM_NLIMITS"),
			     *h = highest(a);

	if (!n) {
		add(out, "nlimits", t->label, a->name, "RLIM_NLIMITS",
		    "asm/resource.h",
		    "%s: %s: RLIM_NLIMITS is not defined by the installed asm/resource.h",
		    t->label, a->name);
		return;
	}
	if (h && n->value != h->value + 1)
		add(out, "nlimits", t->label, a->name, n->name, n->file,
		    "%s: %s: RLIM_NLIMITS is %" G_GUINT64_FORMAT
		    ", must be %" G_GUINT64_FORMAT
		    " (highest is %s = %" G_GUINT64_FORMAT ") (%s)",
		    t->label, a->name, n->value, h->value + 1, h->name,
		    h->value, n->file);
}

static const char *name_of(const struct abi_arch *a, gint64 v)
{
	for (guint i = 0; i < a->syms->len; i++) {
		const struct abi_sym *s = a->syms->pdata[i];

		if (is_rlimit(s) && (gint64)s->value == v)
			return s->name;
	}
	return NULL;
}

/* A baseline tree documents 13 and 14 as holes when nothing else took them. */
static bool documented_hole(const struct abi_tree *t, const struct abi_arch *a,
			    gint64 v)
{
	if (!t->baseline || name_of(a, v))
		return false;
	for (guint i = 0; i < G_N_ELEMENTS(fixed); i++)
		if ((gint64)fixed[i].value == v)
			return true;
	return false;
}

static void check_cover(const struct abi_tree *t, const struct abi_arch *a,
			const char *table, const char *file, GArray *idx,
			const char *err, GPtrArray *out)
{
	const struct abi_sym *n = abi_arch_sym(a, "RLIM_NLIMITS");

	if (err) {
		add(out, "coverage", t->label, a->name, table, file,
		    "%s: %s: %s (%s): %s", t->label, a->name, table, file, err);
		return;
	}
	if (!n)
		return;
	for (gint64 v = 0; v < (gint64)n->value; v++) {
		bool found = false;

		for (guint i = 0; i < idx->len && !found; i++)
			found = g_array_index(idx, gint64, i) == v;
		if (!found && !documented_hole(t, a, v))
			add(out, "coverage", t->label, a->name,
			    name_of(a, v) ? name_of(a, v) : "", file,
			    "%s: %s: %s (%s) has no entry for %" G_GINT64_FORMAT
			    " (%s)",
			    t->label, a->name, table, file, v,
			    name_of(a, v) ? name_of(a, v) :
					    "no RLIMIT_* has this number");
	}
	for (guint i = 0; i < idx->len; i++) {
		gint64 v = g_array_index(idx, gint64, i);

		if (v < 0 || v >= (gint64)n->value)
			add(out, "coverage", t->label, a->name,
			    name_of(a, v) ? name_of(a, v) : "", file,
			    "%s: %s: %s (%s) has an entry for %" G_GINT64_FORMAT
			    ", outside RLIM_NLIMITS (%" G_GUINT64_FORMAT ")",
			    t->label, a->name, table, file, v, n->value);
	}
}

void abi_check_arch(const struct abi_tree *t, const struct abi_arch *a,
		    GPtrArray *out)
{
	if (a->state == ABI_ERROR)
		add(out, "extract", t->label, a->name, "", "", "%s: %s: %s",
		    t->label, a->name, a->detail);
	if (a->state != ABI_OK)
		return;
	check_fixed(t, a, out);
	check_duplicates(t, a, out);
	check_nlimits(t, a, out);
	check_cover(t, a, "INIT_RLIMITS", "include/asm-generic/resource.h",
		    a->init_idx, a->init_err, out);
	check_cover(t, a, "lnames", "fs/proc/base.c", a->lnames_idx,
		    a->lnames_err, out);
}

static const struct abi_arch *tree_arch(const struct abi_tree *t,
					const char *name)
{
	for (guint i = 0; i < t->arches->len; i++) {
		const struct abi_arch *a = t->arches->pdata[i];

		if (!strcmp(a->name, name))
			return a->state == ABI_OK ? a : NULL;
	}
	return NULL;
}

static bool may_lack(const struct abi_tree *t, const char *name)
{
	if (!t->baseline)
		return false;
	for (guint i = 0; i < G_N_ELEMENTS(fixed); i++)
		if (!strcmp(fixed[i].name, name))
			return true;
	return false;
}

/* One symbol of one arch across the trees: the first tree defining it is the reference. */
static void compare_sym(GPtrArray *trees, const char *arch, const char *name,
			GPtrArray *out)
{
	const struct abi_tree *rt = NULL;
	const struct abi_sym *ref = NULL;

	for (guint i = 0; i < trees->len && !ref; i++) {
		const struct abi_arch *a = tree_arch(trees->pdata[i], arch);

		if (a && (ref = abi_arch_sym(a, name)))
			rt = trees->pdata[i];
	}
	for (guint i = 0; ref && i < trees->len; i++) {
		const struct abi_tree *t = trees->pdata[i];
		const struct abi_arch *a = tree_arch(t, arch);
		const struct abi_sym *s = a ? abi_arch_sym(a, name) : NULL;

		if (!a || t == rt)
			continue;
		if (s && s->value != ref->value)
			add(out, "moved", t->label, arch, name, s->file,
			    "%s: %s: %s is %" G_GUINT64_FORMAT
			    " in %s but %" G_GUINT64_FORMAT " in %s (%s)",
			    t->label, arch, name, ref->value, rt->label,
			    s->value, t->label, s->file);
		else if (!s && !may_lack(t, name))
			add(out, "moved", t->label, arch, name, ref->file,
			    "%s: %s: %s is %" G_GUINT64_FORMAT
			    " in %s but not defined in %s (%s)",
			    t->label, arch, name, ref->value, rt->label,
			    t->label, ref->file);
	}
}

/* No rlimit's number differs between the trees (versions, steps). */
void abi_check_trees(GPtrArray *trees, GPtrArray *out)
{
	GHashTable *seen =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

	for (guint i = 0; i < trees->len; i++) {
		const struct abi_tree *t = trees->pdata[i];

		for (guint j = 0; j < t->arches->len; j++) {
			const struct abi_arch *a = t->arches->pdata[j];

			for (guint k = 0;
			     a->state == ABI_OK && k < a->syms->len; k++) {
				const struct abi_sym *s = a->syms->pdata[k];
				char *key = g_strconcat(a->name, " ", s->name,
							NULL);

				if (g_hash_table_contains(seen, key)) {
					g_free(key);
					continue;
				}
				g_hash_table_add(seen, key);
				compare_sym(trees, a->name, s->name, out);
			}
		}
	}
	g_hash_table_destroy(seen);
}

/* Agreement with glibc's numbering, for the arches with installed libc headers. */
void abi_check_libc(const struct abi_tree *t, GPtrArray *libcs, GPtrArray *out)
{
	for (guint i = 0; i < libcs->len; i++) {
		const struct abi_libc *l = libcs->pdata[i];
		const struct abi_arch *a = tree_arch(t, l->arch);

		if (!a || l->detail)
			continue;
		for (guint k = 0; k < a->syms->len; k++) {
			const struct abi_sym *s = a->syms->pdata[k], *g;

			if (!strcmp(s->name, "RLIM_INFINITY"))
				continue;
			g = NULL;
			for (guint j = 0; j < l->syms->len && !g; j++)
				if (!strcmp(((struct abi_sym *)l->syms->pdata[j])
						    ->name,
					    s->name))
					g = l->syms->pdata[j];
			if (!g)
				add(out, "libc", t->label, a->name, s->name,
				    s->file,
				    "%s: %s: %s (%s) is not defined by glibc's <sys/resource.h> (%s)",
				    t->label, a->name, s->name, s->file,
				    l->triple);
			else if (g->value != s->value)
				add(out, "libc", t->label, a->name, s->name,
				    s->file,
				    "%s: %s: %s is %" G_GUINT64_FORMAT
				    " in the kernel (%s) but %" G_GINT64_FORMAT
				    " in glibc (%s)",
				    t->label, a->name, s->name, s->value,
				    s->file, (gint64)g->value, l->triple);
		}
	}
}

bool abi_finding_marks(GPtrArray *findings, const char *tree, const char *arch,
		       const char *sym)
{
	for (guint i = 0; i < findings->len; i++) {
		const struct abi_finding *f = findings->pdata[i];

		if (!strcmp(f->tree, tree) && !strcmp(f->arch, arch) &&
		    !strcmp(f->symbol, sym))
			return true;
	}
	return false;
}
