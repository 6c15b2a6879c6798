// SPDX-License-Identifier: GPL-2.0
/*
 * The uapi asm/resource.h of one arch as `make ARCH=<arch> headers_install`
 * would install it, in a fraction of the time: the tree's own makefiles do
 * the work, asked only for the headers asm/resource.h needs.
 *
 *  - generic-y wrappers come from the tree's scripts/Makefile.asm-headers
 *    (Makefile.asm-generic before 6.11), which reads the arch's Kbuild and
 *    the asm-generic mandatory-y list; we ask it for its generic-y list and
 *    then for the wrappers we need;
 *  - headers are installed by the tree's scripts/Makefile.headersinst (so
 *    its choice between source and generated header, and its
 *    no-export-headers, hold), which runs scripts/headers_install.sh with
 *    the tree's own scripts/unifdef;
 *  - the include closure comes from cpp -M -MG on the installed header,
 *    repeated until nothing is missing.
 * Arches the top-level `headers` target treats specially (no uapi Kbuild,
 * or an arch Makefile setting HEADER_ARCH, i.e. um) are asked of the
 * top-level Makefile with `make -n headers`.
 */
#include <string.h>
#include <unistd.h>

#include "abi.h"

static char *mk_var(const char *name, const char *value)
{
	return g_strdup_printf("%s=%s", name, value);
}

/* Build the tree's scripts/unifdef once per tree (headers_install.sh runs it). */
char *abi_unifdef(const char *src, const char *work, GError **error)
{
	char *bin = g_build_filename(work, "unifdef", NULL);
	char *c = g_build_filename(src, "scripts", "unifdef.c", NULL);
	char *tmp = g_strconcat(bin, ".tmp", NULL);
	char *argv[] = { "gcc", "-O2", "-w", "-o", tmp, c, NULL };
	char *err = NULL;

	if (!g_file_test(bin, G_FILE_TEST_IS_EXECUTABLE)) {
		g_mkdir_with_parents(work, 0755);
		if (abi_run(argv, NULL, NULL, &err) != 0 ||
		    g_rename(tmp, bin) != 0) {
			g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
				    "cannot build %s: %s", c, err ? err : "");
			g_free(bin);
			bin = NULL;
		}
	}
	g_free(err);
	g_free(c);
	g_free(tmp);
	return bin;
}

static bool file_has(const char *path, const char *needle)
{
	char *data = NULL;
	bool found;

	if (!g_file_get_contents(path, &data, NULL, NULL))
		return false;
	found = strstr(data, needle) != NULL;
	g_free(data);
	return found;
}

/* Last line of a message, for details. */
static char *last_line(const char *text)
{
	char *copy = g_strstrip(g_strdup(text ? text : ""));
	char *nl = strrchr(copy, '\n');
	char *out = g_strdup(nl ? nl + 1 : copy);

	g_free(copy);
	return out;
}

/*
 * Ask the top-level Makefile which uapi directory `headers` installs for
 * this arch: a dry run, parsed for its Makefile.headersinst call or its
 * error.  The run is made the final (sub-)make directly, with the
 * variables the outer make would pass (5.10..7.x), so that -o can keep it
 * from generating arch headers (archheaders) it does not need for this.
 */
static bool header_arch_query(const char *src, const char *work,
			      struct abi_arch *a)
{
	char *obj = g_build_filename(work, "query", NULL);
	char *f = g_strconcat("-f", src, "/Makefile", NULL);
	char *inc = g_strconcat("--include-dir=", src, NULL),
	     *arch = mk_var("ARCH", a->name);
	char *argv[] = {
		"make",	   "-n", "--no-print-directory", f,    inc,
		arch,	   "-o", "archheaders",		 "-o", "archscripts",
		"headers", NULL
	};
	char **env = g_get_environ();
	char *out = NULL, *err = NULL, *p;
	int rc;

	g_mkdir_with_parents(obj, 0755);
	env = g_environ_setenv(env, "sub_make_done", "1", TRUE);
	env = g_environ_setenv(env, "abs_srctree", src, TRUE);
	env = g_environ_setenv(env, "abs_objtree", obj, TRUE);
	env = g_environ_setenv(env, "abs_output", obj, TRUE);
	env = g_environ_setenv(env, "objtree", ".", TRUE);
	env = g_environ_setenv(env, "srcroot", src, TRUE);
	env = g_environ_unsetenv(env, "MAKEFLAGS");
	rc = abi_run_env(argv, env, obj, &out, &err);
	p = strstr(out, "Makefile.headersinst obj=arch/");
	if (p && !strstr(err, "***")) {
		char *s = p + strlen("Makefile.headersinst obj=arch/");
		char *e = strstr(s, "/include/uapi");

		if (e) {
			g_free(a->hdr_arch);
			a->hdr_arch = g_strndup(s, e - s);
		}
	} else if (strstr(err, "not exportable")) {
		char *m = strstr(err, "***");

		a->state = ABI_NOT_EXPORTABLE;
		a->detail = last_line(m ? m + 4 : err);
	} else {
		/* the first "***" line is make's reason, the rest its unwinding */
		char *m = strstr(err, "***");
		char *why = m ? g_strndup(m, strcspn(m, "\n")) : last_line(err);

		a->state = ABI_ERROR;
		a->detail = g_strdup_printf(
			"make -n ARCH=%s headers failed (exit %d): %s", a->name,
			rc, why);
		g_free(why);
	}
	g_strfreev(env);
	g_free(out);
	g_free(err);
	g_free(f);
	g_free(inc);
	g_free(arch);
	g_free(obj);
	return a->state == ABI_OK;
}

static char *asm_headers_mk(const char *src)
{
	char *p =
		g_build_filename(src, "scripts", "Makefile.asm-headers", NULL);

	if (g_file_test(p, G_FILE_TEST_EXISTS))
		return p;
	g_free(p);
	return g_build_filename(src, "scripts", "Makefile.asm-generic", NULL);
}

/* make -f <tree makefile> in the arch's object tree, with kbuild's variables. */
static int kbuild_make(const char *src, const char *work, const char *mk,
		       const char *extra_mk, char **vars, char **targets,
		       char **out, char **err)
{
	GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
	int rc;

	g_ptr_array_add(argv, g_strdup("make"));
	g_ptr_array_add(argv, g_strdup("-s"));
	g_ptr_array_add(argv, g_strconcat("-I", src, NULL));
	g_ptr_array_add(argv, g_strconcat("-f", mk, NULL));
	if (extra_mk)
		g_ptr_array_add(argv, g_strconcat("-f", extra_mk, NULL));
	g_ptr_array_add(argv, g_strdup("quiet=silent_"));
	g_ptr_array_add(argv, mk_var("srctree", src));
	g_ptr_array_add(argv, g_strdup("objtree=."));
	g_ptr_array_add(argv, g_strdup("CONFIG_SHELL=sh"));
	for (int i = 0; vars[i]; i++)
		g_ptr_array_add(argv, g_strdup(vars[i]));
	for (int i = 0; targets[i]; i++)
		g_ptr_array_add(argv, g_strdup(targets[i]));
	g_ptr_array_add(argv, NULL);
	rc = abi_run((char **)argv->pdata, work, out, err);
	g_ptr_array_free(argv, TRUE);
	return rc;
}

struct inst {
	const char *src;
	const char *work;
	const char *arch; /* header arch */
	char *asm_mk;
	char **generic; /* wrappers the tree's generic-y yields */
	GHashTable *origin; /* installed path -> source path (tree-relative) */
};

static bool load_generic(struct inst *in, char **err)
{
	char *print = g_build_filename(in->work, "kmatrix-print.mk", NULL);
	char *obj = g_strdup_printf("obj=arch/%s/include/generated/uapi/asm",
				    in->arch);
	char *sa = mk_var("SRCARCH", in->arch);
	char *vars[] = { sa, obj, "generic=include/uapi/asm-generic", NULL };
	char *targets[] = { "kmatrix-print", NULL };
	char *out = NULL;
	int rc;

	/* A recipe is expanded after the tree's makefile is read: its final generic-y. */
	g_file_set_contents(print, "kmatrix-print:\n\t@echo $(generic-y)\n", -1,
			    NULL);
	rc = kbuild_make(in->src, in->work, in->asm_mk, print, vars, targets,
			 &out, err);
	if (rc == 0)
		in->generic = g_strsplit_set(g_strstrip(out), " \t\n", -1);
	g_free(out);
	g_free(print);
	g_free(obj);
	g_free(sa);
	return rc == 0;
}

static bool is_generic(const struct inst *in, const char *gen_path)
{
	for (int i = 0; in->generic && in->generic[i]; i++)
		if (!strcmp(in->generic[i], gen_path))
			return true;
	return false;
}

/* Install the header <name> (e.g. "asm/resource.h") through the tree's makefiles. */
static bool install_one(struct inst *in, const char *name, char **err)
{
	bool is_asm = g_str_has_prefix(name, "asm/");
	char *dst = g_strconcat("usr/include/", name, NULL);
	char *srcrel = is_asm ? g_strdup_printf("arch/%s/include/uapi/%s",
						in->arch, name) :
				g_strconcat("include/uapi/", name, NULL);
	char *srcabs = g_build_filename(in->src, srcrel, NULL);
	char *gen = g_strdup_printf("arch/%s/include/generated/uapi/%s",
				    in->arch, name);
	char *obj =
		is_asm ? g_strdup_printf("obj=arch/%s/include/uapi", in->arch) :
			 g_strdup("obj=include/uapi");
	bool ok = true;

	if (is_asm && !g_file_test(srcabs, G_FILE_TEST_EXISTS) &&
	    is_generic(in, gen)) {
		char *sa = mk_var("SRCARCH", in->arch);
		char *wobj = g_strdup_printf(
			"obj=arch/%s/include/generated/uapi/asm", in->arch);
		char *vars[] = { sa, wobj, "generic=include/uapi/asm-generic",
				 NULL };
		char *targets[] = { gen, NULL };

		ok = kbuild_make(in->src, in->work, in->asm_mk, NULL, vars,
				 targets, NULL, err) == 0;
		g_free(sa);
		g_free(wobj);
		g_free(srcrel);
		srcrel = g_strdup_printf("%s (generic-y wrapper)", gen);
	}
	if (ok) {
		char *hi = g_build_filename(in->src, "scripts",
					    "Makefile.headersinst", NULL);
		char *vars[] = { obj, NULL };
		char *targets[] = { dst, NULL };

		g_free(*err);
		*err = NULL;
		ok = kbuild_make(in->src, in->work, hi, NULL, vars, targets,
				 NULL, err) == 0;
		g_free(hi);
	}
	if (ok)
		g_hash_table_replace(in->origin,
				     g_build_filename(in->work, dst, NULL),
				     g_strdup(srcrel));
	g_free(dst);
	g_free(srcrel);
	g_free(srcabs);
	g_free(gen);
	g_free(obj);
	return ok;
}

/* Headers the installed asm/resource.h includes that are not installed yet. */
static GPtrArray *missing_includes(const struct inst *in, char **err)
{
	char *inc = g_build_filename(in->work, "usr", "include", NULL);
	char *top = g_build_filename(inc, "asm", "resource.h", NULL);
	char *i = g_strconcat("-I", inc, NULL);
	char *argv[] = { "cpp", "-M", "-MG", "-nostdinc", i, top, NULL };
	GPtrArray *out = NULL;
	char *o = NULL;

	if (abi_run(argv, NULL, &o, err) == 0) {
		char **tok = g_strsplit_set(o, " \t\n\\", -1);

		out = g_ptr_array_new_with_free_func(g_free);
		/* the first token is the rule's target, the rest its prerequisites */
		for (int k = 1; tok[k]; k++)
			if (g_str_has_suffix(tok[k], ".h") &&
			    !g_path_is_absolute(tok[k]))
				g_ptr_array_add(out, g_strdup(tok[k]));
		g_strfreev(tok);
	}
	g_free(o);
	g_free(i);
	g_free(top);
	g_free(inc);
	return out;
}

static bool install_closure(struct inst *in, struct abi_arch *a)
{
	char *err = NULL;
	GPtrArray *miss;
	bool ok = true;

	if (!install_one(in, "asm/resource.h", &err)) {
		a->state = ABI_NO_HEADER;
		a->detail = g_strdup_printf(
			"headers_install installs no asm/resource.h for %s",
			in->arch);
		g_free(err);
		return false;
	}
	/* Each round installs what cpp could not find; a header it cannot install stops us. */
	for (int round = 0; ok && round < 32; round++) {
		miss = missing_includes(in, &err);
		if (!miss) {
			a->state = ABI_ERROR;
			a->detail = g_strdup_printf("cpp -M asm/resource.h: %s",
						    err);
			ok = false;
			break;
		}
		for (guint k = 0; ok && k < miss->len; k++) {
			if (install_one(in, miss->pdata[k], &err))
				continue;
			a->state = ABI_ERROR;
			a->detail = g_strdup_printf(
				"asm/resource.h includes <%s>, which "
				"headers_install does not install for %s",
				(char *)miss->pdata[k], in->arch);
			ok = false;
		}
		if (!miss->len) {
			g_ptr_array_free(miss, TRUE);
			break;
		}
		g_ptr_array_free(miss, TRUE);
	}
	g_free(err);
	return ok;
}

/*
 * Install into work (the arch's object tree) what headers_install would
 * install of asm/resource.h and its includes; origin maps each installed
 * file to its source in the tree.
 */
bool abi_install_arch(const char *src, const char *work, const char *arch,
		      struct abi_arch *a, GHashTable *origin)
{
	char *kbuild = g_strdup_printf("%s/arch/%s/include/uapi/asm/Kbuild",
				       src, arch);
	char *amk = g_strdup_printf("%s/arch/%s/Makefile", src, arch);
	char *link = g_build_filename(work, "scripts", "unifdef", NULL);
	struct inst in = { .src = src, .work = work, .origin = origin };
	char *err = NULL, *scripts;
	bool ok;

	g_mkdir_with_parents(work, 0755);
	a->hdr_arch = g_strdup(arch);
	if ((!g_file_test(kbuild, G_FILE_TEST_EXISTS) ||
	     file_has(amk, "HEADER_ARCH")) &&
	    !header_arch_query(src, work, a))
		goto out;
	in.arch = a->hdr_arch;
	in.asm_mk = asm_headers_mk(src);
	scripts = g_path_get_dirname(link);
	g_mkdir_with_parents(scripts, 0755);
	g_free(scripts);
	unlink(link);
	if (symlink("../../unifdef", link) != 0 || !load_generic(&in, &err)) {
		a->state = ABI_ERROR;
		a->detail = g_strdup_printf("generic-y of %s: %s", in.arch,
					    err ? err : "symlink");
		goto out;
	}
	install_closure(&in, a);
out:
	ok = a->state == ABI_OK;
	g_free(err);
	g_free(in.asm_mk);
	g_strfreev(in.generic);
	g_free(kbuild);
	g_free(amk);
	g_free(link);
	return ok;
}
