// SPDX-License-Identifier: GPL-2.0
/*
 * glibc's rlimit numbering for each arch whose libc headers are installed.
 * glibc's RLIMIT_* are enum constants, so the preprocessor alone cannot read
 * them: the target's cpp preprocesses <sys/resource.h> with a probe that
 * prints them, and the host compiler compiles and runs the result (the enum
 * values do not depend on the compiler that evaluates them).
 */
#include <string.h>
#include <unistd.h>

#include "abi.h"

/* Kernel arch, GNU triple, target cpp, a header that proves the libc is there. */
static const struct {
	const char *arch, *triple, *cpp, *header;
} libcs[] = {
	{ "x86", "x86_64-linux-gnu", "cpp",
	  "/usr/include/x86_64-linux-gnu/bits/resource.h" },
	{ "arm64", "aarch64-linux-gnu", "aarch64-linux-gnu-cpp",
	  "/usr/aarch64-linux-gnu/include/bits/resource.h" },
	{ "arm", "arm-linux-gnueabihf", "arm-linux-gnueabihf-cpp",
	  "/usr/arm-linux-gnueabihf/include/bits/resource.h" },
	{ "mips", "mips-linux-gnu", "mips-linux-gnu-cpp",
	  "/usr/mips-linux-gnu/include/bits/resource.h" },
	{ "powerpc", "powerpc64le-linux-gnu", "powerpc64le-linux-gnu-cpp",
	  "/usr/powerpc64le-linux-gnu/include/bits/resource.h" },
	{ "riscv", "riscv64-linux-gnu", "riscv64-linux-gnu-cpp",
	  "/usr/riscv64-linux-gnu/include/bits/resource.h" },
	{ "s390", "s390x-linux-gnu", "s390x-linux-gnu-cpp",
	  "/usr/s390x-linux-gnu/include/bits/resource.h" },
	{ "sparc", "sparc64-linux-gnu", "sparc64-linux-gnu-cpp",
	  "/usr/sparc64-linux-gnu/include/bits/resource.h" },
};

void abi_libc_free(struct abi_libc *l)
{
	if (!l)
		return;
	g_free(l->arch);
	g_free(l->triple);
	g_free(l->detail);
	g_ptr_array_free(l->syms, TRUE);
	g_free(l);
}

/* Names glibc defines, by the target cpp's -dM (the enum's self-defines). */
static char **libc_names(const char *cpp, const char *dir, char **err)
{
	char *probe = g_build_filename(dir, "names.c", NULL);
	char *argv[] = { (char *)cpp, "-dM", probe, NULL };
	GPtrArray *names = g_ptr_array_new();
	char *out = NULL;
	GHashTable *defs;
	GHashTableIter it;
	gpointer k;

	g_file_set_contents(probe, "#include <sys/resource.h>\n", -1, NULL);
	if (abi_run(argv, NULL, &out, err) != 0) {
		g_free(out);
		g_free(probe);
		g_ptr_array_free(names, TRUE);
		return NULL;
	}
	defs = abi_parse_defines(out);
	g_hash_table_iter_init(&it, defs);
	while (g_hash_table_iter_next(&it, &k, NULL))
		if (strcmp(k, "RLIM_INFINITY"))
			g_ptr_array_add(names, g_strdup(k));
	g_ptr_array_add(names, NULL);
	g_hash_table_destroy(defs);
	g_free(out);
	g_free(probe);
	return (char **)g_ptr_array_free(names, FALSE);
}

static bool libc_values(struct abi_libc *l, const char *cpp, const char *dir,
			char **err)
{
	char **names = libc_names(cpp, dir, err);
	char *probe = g_build_filename(dir, "values.c", NULL);
	char *pre = g_build_filename(dir, "values.i", NULL);
	char *bin = g_build_filename(dir, "values", NULL);
	char *cpp_argv[] = { (char *)cpp, "-P", probe, "-o", pre, NULL };
	char *cc_argv[] = { "gcc", "-w", "-x", "cpp-output",
			    "-o",  bin,	 pre,  NULL };
	char *run_argv[] = { bin, NULL };
	GString *c = g_string_new(
		"#include <sys/resource.h>\nint printf(const char *, ...);\n"
		"int main(void)\n{\n");
	char *out = NULL;
	bool ok = false;

	if (!names)
		goto out;
	for (int i = 0; names[i]; i++)
		g_string_append_printf(
			c, "\tprintf(\"%s %%lld\\n\", (long long)(%s));\n",
			names[i], names[i]);
	g_string_append(c, "\treturn 0;\n}\n");
	g_file_set_contents(probe, c->str, -1, NULL);
	if (abi_run(cpp_argv, NULL, NULL, err) ||
	    abi_run(cc_argv, NULL, NULL, err) ||
	    abi_run(run_argv, NULL, &out, err))
		goto out;
	{
		char **lines = g_strsplit(out, "\n", -1);

		for (int i = 0; lines[i]; i++) {
			char **f = g_strsplit(lines[i], " ", 2);

			if (f[0] && f[1]) {
				struct abi_sym *s =
					abi_sym_new(f[0], f[1], l->triple);

				s->value = (guint64)g_ascii_strtoll(f[1], NULL,
								    10);
				g_ptr_array_add(l->syms, s);
			}
			g_strfreev(f);
		}
		g_strfreev(lines);
	}
	ok = true;
out:
	g_strfreev(names);
	g_string_free(c, TRUE);
	g_free(out);
	g_free(probe);
	g_free(pre);
	g_free(bin);
	return ok;
}

/* The cache file of one libc: keyed by its bits/resource.h, which holds the enum. */
static char *cache_file(const char *cache, const char *triple,
			const char *header)
{
	char *data = NULL, *file = NULL;
	gsize len = 0;

	if (g_file_get_contents(header, &data, &len, NULL)) {
		char *sum = g_compute_checksum_for_data(G_CHECKSUM_SHA256,
							(guchar *)data, len);
		char *name = g_strdup_printf("%s-%.16s.json", triple, sum);

		file = g_build_filename(cache, "abi", "libc", name, NULL);
		g_free(name);
		g_free(sum);
	}
	g_free(data);
	return file;
}

static bool load(struct abi_libc *l, const char *file)
{
	json_t *root = file ? json_load_file(file, 0, NULL) : NULL, *v;
	const char *k;

	if (!root)
		return false;
	json_object_foreach(root, k, v)
	{
		struct abi_sym *s =
			abi_sym_new(k, json_string_value(v), l->triple);

		s->value = (guint64)g_ascii_strtoll(s->expr, NULL, 10);
		g_ptr_array_add(l->syms, s);
	}
	json_decref(root);
	return true;
}

static void save(const struct abi_libc *l, const char *file)
{
	json_t *root = json_object();
	char *dir = g_path_get_dirname(file),
	     *tmp = g_strdup_printf("%s.%d", file, getpid());

	for (guint i = 0; i < l->syms->len; i++) {
		const struct abi_sym *s = l->syms->pdata[i];

		json_object_set_new(root, s->name, json_string(s->expr));
	}
	g_mkdir_with_parents(dir, 0755);
	if (json_dump_file(root, tmp, JSON_SORT_KEYS) == 0)
		g_rename(tmp, file);
	json_decref(root);
	g_free(dir);
	g_free(tmp);
}

static void scan_one(struct abi_libc *l, const char *cpp, const char *cache,
		     const char *header)
{
	char *file = cache_file(cache, l->triple, header);
	char *dir, *err = NULL;

	if (load(l, file)) {
		g_free(file);
		return;
	}
	dir = g_dir_make_tmp("rlimit-abi-libc-XXXXXX", NULL);
	if (!libc_values(l, cpp, dir, &err))
		l->detail = g_strdup_printf("failed: %s", err ? err : "");
	else if (file)
		save(l, file);
	{
		char *argv[] = { "rm", "-rf", dir, NULL };

		abi_run(argv, NULL, NULL, NULL);
	}
	g_free(dir);
	g_free(err);
	g_free(file);
}

/* Every libc of the table: its values, or why it was skipped. */
GPtrArray *abi_libc_scan(const char *cache)
{
	GPtrArray *out =
		g_ptr_array_new_with_free_func((GDestroyNotify)abi_libc_free);

	for (guint i = 0; i < G_N_ELEMENTS(libcs); i++) {
		struct abi_libc *l = g_new0(struct abi_libc, 1);
		char *cpp = g_find_program_in_path(libcs[i].cpp);

		l->arch = g_strdup(libcs[i].arch);
		l->triple = g_strdup(libcs[i].triple);
		l->syms = g_ptr_array_new_with_free_func(
			(GDestroyNotify)abi_sym_free);
		g_ptr_array_add(out, l);
		if (!g_file_test(libcs[i].header, G_FILE_TEST_EXISTS))
			l->detail = g_strdup_printf("skipped: no %s",
						    libcs[i].header);
		else if (!cpp)
			l->detail = g_strdup_printf("skipped: no %s in PATH",
						    libcs[i].cpp);
		else
			scan_one(l, cpp, cache, libcs[i].header);
		g_free(cpp);
	}
	return out;
}
