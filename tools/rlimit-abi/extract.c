// SPDX-License-Identifier: GPL-2.0
/*
 * Values, by the C preprocessor: `cpp -dM` on the installed asm/resource.h
 * names the macros, `cpp -E` expands them, and what is not a plain integer
 * after expansion is evaluated by compiling it (host C).  INIT_RLIMITS and
 * the lnames table are expanded the same way, with the kernel's include
 * path and -D__KERNEL__, and their designators ([RLIMIT_X] = ...) read from
 * the expansion (see abi_extract_kernel).
 */
#include <errno.h>
#include <string.h>

#include "abi.h"

struct abi_sym *abi_sym_new(const char *name, const char *expr,
			    const char *file)
{
	struct abi_sym *s = g_new0(struct abi_sym, 1);

	s->name = g_strdup(name);
	s->expr = g_strdup(expr);
	s->file = g_strdup(file);
	return s;
}

void abi_sym_free(struct abi_sym *s)
{
	if (!s)
		return;
	g_free(s->name);
	g_free(s->expr);
	g_free(s->file);
	g_free(s);
}

struct abi_arch *abi_arch_new(const char *name)
{
	struct abi_arch *a = g_new0(struct abi_arch, 1);

	a->name = g_strdup(name);
	a->syms = g_ptr_array_new_with_free_func((GDestroyNotify)abi_sym_free);
	a->init_idx = g_array_new(FALSE, FALSE, sizeof(gint64));
	a->lnames_idx = g_array_new(FALSE, FALSE, sizeof(gint64));
	return a;
}

void abi_arch_free(struct abi_arch *a)
{
	if (!a)
		return;
	g_free(a->name);
	g_free(a->hdr_arch);
	g_free(a->detail);
	g_ptr_array_free(a->syms, TRUE);
	g_array_free(a->init_idx, TRUE);
	g_array_free(a->lnames_idx, TRUE);
	g_free(a->init_err);
	g_free(a->lnames_err);
	g_free(a);
}

struct abi_sym *abi_arch_sym(const struct abi_arch *a, const char *name)
{
	for (guint i = 0; i < a->syms->len; i++) {
		struct abi_sym *s = a->syms->pdata[i];

		if (!strcmp(s->name, name))
			return s;
	}
	return NULL;
}

bool abi_is_rlimit_name(const char *name)
{
	return g_str_has_prefix(name, "RLIMIT_") ||
	       !strcmp(name, "RLIM_NLIMITS") || !strcmp(name, "RLIM_INFINITY");
}

/* `cpp -dM` output: object-like RLIMIT_*, RLIM_NLIMITS, RLIM_INFINITY -> body. */
GHashTable *abi_parse_defines(const char *dm)
{
	GHashTable *h =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	char **lines = g_strsplit(dm, "\n", -1);

	for (int i = 0; lines[i]; i++) {
		const char *p = lines[i], *name;
		size_t n;

		if (!g_str_has_prefix(p, "#define "))
			continue;
		name = p + strlen("#define ");
		n = strcspn(name, " (");
		if (name[n] != ' ')
			continue;
		{
			char *key = g_strndup(name, n);

			if (abi_is_rlimit_name(key))
				g_hash_table_replace(
					h, key,
					g_strstrip(g_strdup(name + n + 1)));
			else
				g_free(key);
		}
	}
	g_strfreev(lines);
	return h;
}

/* `cpp -dD` output: the file of each macro's last definition (from line markers). */
GHashTable *abi_parse_def_files(const char *dd)
{
	GHashTable *h =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	char **lines = g_strsplit(dd, "\n", -1);
	char *file = g_strdup("");

	for (int i = 0; lines[i]; i++) {
		const char *p = lines[i];

		if (p[0] == '#' && p[1] == ' ' && g_ascii_isdigit(p[2])) {
			const char *q = strchr(p, '"'),
				   *e = q ? strchr(q + 1, '"') : NULL;

			if (e) {
				g_free(file);
				file = g_strndup(q + 1, e - q - 1);
			}
		} else if (g_str_has_prefix(p, "#define ")) {
			const char *name = p + strlen("#define ");

			g_hash_table_replace(
				h, g_strndup(name, strcspn(name, " (")),
				g_strdup(file));
		}
	}
	g_free(file);
	g_strfreev(lines);
	return h;
}

/* Lines `"NAME" = expansion` of `cpp -E -P` on our probe file. */
GHashTable *abi_parse_expansions(const char *e)
{
	GHashTable *h =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	char **lines = g_strsplit(e, "\n", -1);

	for (int i = 0; lines[i]; i++) {
		char *p = g_strstrip(lines[i]), *q;

		if (p[0] != '"' || !(q = strchr(p + 1, '"')) ||
		    strncmp(q, "\" = ", 4))
			continue;
		g_hash_table_replace(h, g_strndup(p + 1, q - p - 1),
				     g_strstrip(g_strdup(q + 4)));
	}
	g_strfreev(lines);
	return h;
}

/* An integer literal with optional u/l suffixes (the common case, no compiler needed). */
bool abi_parse_literal(const char *expr, guint64 *value)
{
	char *end;

	if (!g_ascii_isdigit(expr[0]))
		return false;
	errno = 0;
	*value = g_ascii_strtoull(expr, &end, 0);
	if (errno)
		return false;
	end += strspn(end, "uUlL");
	return *end == '\0';
}

/*
 * Evaluate integer constant expressions (no identifiers left after
 * expansion) by compiling and running a host program: one compile for all.
 */
bool abi_eval(GPtrArray *exprs, guint64 *values, char **err)
{
	GString *c = g_string_new(
		"int printf(const char *, ...);\nint main(void)\n{\n");
	char *dir = g_dir_make_tmp("rlimit-abi-XXXXXX", NULL);
	char *file = g_build_filename(dir, "eval.c", NULL);
	char *bin = g_build_filename(dir, "eval", NULL);
	char *cc[] = { "gcc", "-w", "-o", bin, file, NULL };
	char *run[] = { bin, NULL };
	char *out = NULL;
	bool ok = false;
	int rc;

	for (guint i = 0; i < exprs->len; i++)
		g_string_append_printf(
			c,
			"\tprintf(\"%%llu\\n\", (unsigned long long)(%s));\n",
			(char *)exprs->pdata[i]);
	g_string_append(c, "\treturn 0;\n}\n");
	g_file_set_contents(file, c->str, -1, NULL);
	rc = abi_run(cc, NULL, NULL, err);
	/* a compile that worked has nothing to say: the run's stderr replaces it */
	if (rc == 0 && err)
		g_clear_pointer(err, g_free);
	if (rc == 0 && abi_run(run, NULL, &out, err) == 0) {
		char **lines = g_strsplit(out, "\n", -1);

		ok = g_strv_length(lines) >= exprs->len;
		for (guint i = 0; ok && i < exprs->len; i++)
			values[i] = g_ascii_strtoull(lines[i], NULL, 10);
		g_strfreev(lines);
	}
	g_free(out);
	g_unlink(bin);
	g_unlink(file);
	g_rmdir(dir);
	g_free(bin);
	g_free(file);
	g_free(dir);
	g_string_free(c, TRUE);
	return ok;
}

/* Skip a string or character literal starting at p; return the char after it. */
static const char *skip_literal(const char *p)
{
	char q = *p++;

	while (*p && *p != q)
		p += (*p == '\\' && p[1]) ? 2 : 1;
	return *p ? p + 1 : p;
}

/*
 * The designators ([expr] = ...) at the top level of a brace initializer,
 * in order.  The initializer comes from cpp, so it holds no comments.
 */
bool abi_designators(const char *init, GPtrArray *exprs, char **err)
{
	const char *p = init + strspn(init, " \t\n");
	int depth = 0;

	if (*p != '{') {
		*err = g_strdup_printf("not a brace initializer: %.40s", p);
		return false;
	}
	for (; *p; p++) {
		if (*p == '"' || *p == '\'') {
			p = skip_literal(p) - 1;
		} else if (*p == '{') {
			depth++;
		} else if (*p == '}') {
			if (--depth == 0)
				return true;
		} else if (*p == '[' && depth == 1) {
			const char *s = ++p;
			int nest = 1;

			for (; *p && nest; p++)
				nest += *p == '[' ? 1 : *p == ']' ? -1 : 0;
			if (nest)
				break;
			g_ptr_array_add(exprs,
					g_strstrip(g_strndup(s, p - 1 - s)));
			p--;
		}
	}
	*err = g_strdup("unbalanced initializer");
	return false;
}

/*
 * The initializer text of a declaration in C source: from the first '{'
 * after `decl` up to its matching '}'.  Used on fs/proc/base.c, whose
 * lnames table cannot be preprocessed in place without a configured build.
 */
char *abi_c_initializer(const char *source, const char *decl)
{
	const char *p = strstr(source, decl), *s;
	int depth = 0;

	if (!p || !(p = strchr(p, '=')))
		return NULL;
	p = strchr(p, '{');
	for (s = p; p && *p; p++) {
		if (*p == '"' || *p == '\'') {
			p = skip_literal(p) - 1;
		} else if (*p == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");

			if (!e)
				return NULL;
			p = e + 1;
		} else if (*p == '{') {
			depth++;
		} else if (*p == '}' && --depth == 0) {
			return g_strndup(s, p + 1 - s);
		}
	}
	return NULL;
}

static char *cpp_out(char **argv, char **err)
{
	char *out = NULL;

	if (abi_run(argv, NULL, &out, err) == 0)
		return out;
	g_free(out);
	return NULL;
}

/* RLIMIT_* by number, then RLIM_NLIMITS and RLIM_INFINITY. */
static int cmp_sym(gconstpointer a, gconstpointer b)
{
	const struct abi_sym *x = *(struct abi_sym *const *)a,
			     *y = *(struct abi_sym *const *)b;
	bool rx = g_str_has_prefix(x->name, "RLIMIT_"),
	     ry = g_str_has_prefix(y->name, "RLIMIT_");

	if (rx != ry)
		return rx ? -1 : 1;
	if (rx && x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * Evaluate every expression of syms: plain literals need no compiler, and
 * an expression seen before (most arches share "(~0UL)") is not compiled
 * again in this run.
 */
static bool eval_syms(GPtrArray *syms, char **err)
{
	static GHashTable *memo;
	GPtrArray *exprs = g_ptr_array_new();
	guint64 *vals;
	bool ok = true;

	if (!memo)
		memo = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					     g_free);
	for (guint i = 0; i < syms->len; i++) {
		struct abi_sym *s = syms->pdata[i];

		if (!abi_parse_literal(s->expr, &s->value) &&
		    !g_hash_table_contains(memo, s->expr))
			g_ptr_array_add(exprs, s->expr);
	}
	vals = g_new0(guint64, exprs->len + 1);
	if (exprs->len && !(ok = abi_eval(exprs, vals, err)))
		goto out;
	for (guint i = 0; i < exprs->len; i++)
		g_hash_table_replace(memo, g_strdup(exprs->pdata[i]),
				     g_memdup2(&vals[i], sizeof(guint64)));
	for (guint i = 0; i < syms->len; i++) {
		struct abi_sym *s = syms->pdata[i];
		guint64 *v = g_hash_table_lookup(memo, s->expr);

		if (v)
			s->value = *v;
	}
out:
	g_free(vals);
	g_ptr_array_free(exprs, TRUE);
	return ok;
}

/* The tree-relative source of an installed header, for messages. */
static const char *origin_of(GHashTable *origin, const char *installed)
{
	const char *o = installed ? g_hash_table_lookup(origin, installed) :
				    NULL;

	return o ? o : installed;
}

/* RLIMIT_*, RLIM_NLIMITS and RLIM_INFINITY of the installed asm/resource.h. */
bool abi_extract_arch(const char *src, const char *work, struct abi_arch *a,
		      GHashTable *origin)
{
	char *inc = g_build_filename(work, "usr", "include", NULL);
	char *top = g_build_filename(inc, "asm", "resource.h", NULL);
	char *probe = g_build_filename(work, "kmatrix-expand.c", NULL);
	char *i = g_strconcat("-I", inc, NULL);
	char *dm_argv[] = { "cpp", "-dM", "-nostdinc", i, top, NULL };
	char *dd_argv[] = { "cpp", "-dD", "-nostdinc", i, top, NULL };
	char *e_argv[] = { "cpp", "-E", "-P", "-nostdinc", i, probe, NULL };
	char *dm = NULL, *dd = NULL, *e = NULL, *err = NULL;
	GHashTable *defs = NULL, *files = NULL, *exps = NULL;
	GString *c = g_string_new("#include <asm/resource.h>\n");
	GHashTableIter it;
	gpointer k, v;

	(void)src;
	if (!(dm = cpp_out(dm_argv, &err)) || !(dd = cpp_out(dd_argv, &err)))
		goto fail;
	defs = abi_parse_defines(dm);
	files = abi_parse_def_files(dd);
	g_hash_table_iter_init(&it, defs);
	while (g_hash_table_iter_next(&it, &k, NULL))
		g_string_append_printf(c, "\"%s\" = %s\n", (char *)k,
				       (char *)k);
	g_file_set_contents(probe, c->str, -1, NULL);
	if (!(e = cpp_out(e_argv, &err)))
		goto fail;
	exps = abi_parse_expansions(e);
	g_hash_table_iter_init(&it, exps);
	while (g_hash_table_iter_next(&it, &k, &v))
		g_ptr_array_add(
			a->syms,
			abi_sym_new(k, v,
				    origin_of(origin,
					      g_hash_table_lookup(files, k))));
	if (!eval_syms(a->syms, &err))
		goto fail;
	g_ptr_array_sort(a->syms, cmp_sym);
	goto out;
fail:
	a->state = ABI_ERROR;
	a->detail =
		g_strdup_printf("cpp on asm/resource.h: %s", err ? err : "");
out:
	if (defs)
		g_hash_table_destroy(defs);
	if (files)
		g_hash_table_destroy(files);
	if (exps)
		g_hash_table_destroy(exps);
	g_string_free(c, TRUE);
	g_free(dm);
	g_free(dd);
	g_free(e);
	g_free(err);
	g_free(inc);
	g_free(top);
	g_free(probe);
	g_free(i);
	return a->state == ABI_OK;
}

/* A designator: a literal number, or an RLIMIT_* name of the arch's asm/resource.h. */
static bool resolve(const struct abi_arch *a, const char *expr, gint64 *v,
		    char **err)
{
	const struct abi_sym *s = abi_arch_sym(a, expr);
	guint64 u;

	if (s) {
		*v = (gint64)s->value;
		return true;
	}
	if (abi_parse_literal(expr, &u)) {
		*v = (gint64)u;
		return true;
	}
	*err = g_strdup_printf(
		"designator [%s] is not an rlimit of asm/resource.h", expr);
	return false;
}

/* The designators of `name = <initializer>` in cpp output, as numbers of this arch. */
static char *read_index(const struct abi_arch *a, const char *expanded,
			const char *name, const char *what, GArray *idx)
{
	char *key = g_strconcat(name, " = ", NULL);
	const char *p = strstr(expanded, key);
	GPtrArray *exprs = g_ptr_array_new_with_free_func(g_free);
	char *err = NULL;

	if (!p || !abi_designators(p + strlen(key), exprs, &err)) {
		g_free(err);
		err = g_strdup_printf(
			"%s does not expand to a designated initializer", what);
		goto out;
	}
	for (guint i = 0; i < exprs->len; i++) {
		gint64 v;

		if (!resolve(a, exprs->pdata[i], &v, &err))
			break;
		g_array_append_val(idx, v);
	}
out:
	g_ptr_array_free(exprs, TRUE);
	g_free(key);
	return err;
}

/*
 * INIT_RLIMITS (include/asm-generic/resource.h, read as kernel code with
 * -D__KERNEL__ and -Iinclude) and the lnames table of fs/proc/base.c.
 * Their designators are RLIMIT_* names; the kernel resolves them with the
 * same asm/resource.h user space gets (no arch has a kernel-only one), so
 * the names are kept (the uapi header it includes is replaced by an empty
 * one) and resolved with the arch's values read above.  That spares a
 * configured kernel include path, which arch headers such as ia64's would
 * need.
 */
bool abi_extract_kernel(const char *src, const char *work, struct abi_arch *a)
{
	char *base = g_build_filename(src, "fs", "proc", "base.c", NULL);
	char *probe = g_build_filename(work, "kmatrix-kernel.c", NULL);
	char *over = g_build_filename(work, "kmatrix-names", NULL);
	char *empty = g_build_filename(over, "uapi", "asm-generic", NULL);
	char *empty_h = g_build_filename(empty, "resource.h", NULL);
	char *io = g_strconcat("-I", over, NULL),
	     *ik = g_strdup_printf("-I%s/include", src);
	char *argv[] = { "cpp", "-E", "-P",  "-nostdinc", "-D__KERNEL__",
			 io,	ik,   probe, NULL };
	char *text = NULL, *lnames = NULL, *out = NULL, *err = NULL;
	GString *c = g_string_new("#include <asm-generic/resource.h>\n"
				  "kmatrix_init = INIT_RLIMITS ;\n");

	g_mkdir_with_parents(empty, 0755);
	g_file_set_contents(empty_h, "", 0, NULL);
	if (g_file_get_contents(base, &text, NULL, NULL))
		lnames = abi_c_initializer(text, "lnames[");
	if (lnames)
		g_string_append_printf(c, "kmatrix_lnames = %s ;\n", lnames);
	else
		a->lnames_err = g_strdup("no lnames[] initializer");
	g_file_set_contents(probe, c->str, -1, NULL);
	out = cpp_out(argv, &err);
	if (!out) {
		a->init_err = g_strdup_printf("cpp -D__KERNEL__: %s", err);
		if (!a->lnames_err)
			a->lnames_err = g_strdup(a->init_err);
	} else {
		a->init_err = read_index(a, out, "kmatrix_init", "INIT_RLIMITS",
					 a->init_idx);
		if (!a->lnames_err)
			a->lnames_err = read_index(a, out, "kmatrix_lnames",
						   "lnames", a->lnames_idx);
	}
	g_string_free(c, TRUE);
	g_free(text);
	g_free(lnames);
	g_free(out);
	g_free(err);
	g_free(base);
	g_free(probe);
	g_free(over);
	g_free(empty);
	g_free(empty_h);
	g_free(io);
	g_free(ik);
	return !a->init_err && !a->lnames_err;
}
