// SPDX-License-Identifier: GPL-2.0
/*
 * Trees: a kernel source directory, or DIR@REV (a git revision, unpacked
 * from the repository without a checkout).  Each gets a cache key: the git
 * tree hash when the directory is a clean git checkout, else a content hash
 * of the files the checks read.
 */
#include <string.h>
#include <unistd.h>

#include "abi.h"

/* What the checks read; also what DIR@REV unpacks.  A '?' marks paths some trees lack. */
static const char *const tree_paths[] = {
	"Makefile",
	"scripts",
	"include/uapi",
	"include/asm-generic/resource.h",
	"fs/proc/base.c",
	":(glob)arch/*/include/**",
	":(glob)arch/*/Makefile*",
	"arch/um",
	"?include/asm-generic/Kbuild",
	"?:(glob)arch/*/Kbuild",
	/* what archheaders reads when um's headers re-run for x86 (7.x) */
	"?:(glob)arch/*/entry/syscalls/**",
	"?:(glob)arch/*/kernel/syscalls/**",
	"?:(glob)arch/*/kernel/Makefile.syscalls",
	NULL,
};

static int cmp_str(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every directory under arch/, sorted. */
GPtrArray *abi_tree_arch_names(const char *src)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
	char *dir = g_build_filename(src, "arch", NULL);
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *n;

	while (d && (n = g_dir_read_name(d))) {
		char *p = g_build_filename(dir, n, NULL);

		if (g_file_test(p, G_FILE_TEST_IS_DIR))
			g_ptr_array_add(out, g_strdup(n));
		g_free(p);
	}
	if (d)
		g_dir_close(d);
	g_free(dir);
	g_ptr_array_sort(out, cmp_str);
	return out;
}

static char *git_out(const char *dir, const char *a1, const char *a2,
		     const char *a3, const char *a4)
{
	char *argv[] = { "git",	     "-C",	 (char *)dir, (char *)a1,
			 (char *)a2, (char *)a3, (char *)a4,  NULL };
	char *out = NULL;

	if (abi_run(argv, NULL, &out, NULL) != 0) {
		g_free(out);
		return NULL;
	}
	return g_strstrip(out);
}

static bool wanted(const char *path);

/* Hash the files under rel (all of them, or only those the checks read). */
static void hash_walk(GChecksum *sum, const char *top, const char *rel,
		      bool filter)
{
	char *path = g_build_filename(top, rel, NULL);
	char *data = NULL;
	gsize len = 0;

	if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
		GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
		GDir *d = g_dir_open(path, 0, NULL);
		const char *n;

		while (d && (n = g_dir_read_name(d)))
			g_ptr_array_add(names, g_build_filename(rel, n, NULL));
		if (d)
			g_dir_close(d);
		g_ptr_array_sort(names, cmp_str);
		for (guint i = 0; i < names->len; i++)
			hash_walk(sum, top, names->pdata[i], filter);
		g_ptr_array_free(names, TRUE);
	} else if ((!filter || wanted(rel)) &&
		   g_file_get_contents(path, &data, &len, NULL)) {
		g_checksum_update(sum, (const guchar *)rel, strlen(rel) + 1);
		g_checksum_update(sum, (const guchar *)data, len);
		g_free(data);
	}
	g_free(path);
}

/* Content hash of what the checks read (a dirty or non-git tree). */
static char *content_hash(const char *src)
{
	GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
	char *out;

	for (int i = 0; tree_paths[i]; i++) {
		const char *p = tree_paths[i] + (tree_paths[i][0] == '?');

		if (p[0] != ':' && !g_str_has_prefix(p, "arch/"))
			hash_walk(sum, src, p, false);
	}
	hash_walk(sum, src, "arch", true);
	out = g_strconcat("content-", g_checksum_get_string(sum), NULL);
	g_checksum_free(sum);
	return out;
}

static bool wanted(const char *path)
{
	for (int i = 0; tree_paths[i]; i++) {
		const char *p = tree_paths[i] + (tree_paths[i][0] == '?');
		size_t n;

		if (g_str_has_prefix(p, ":(glob)")) {
			if (g_pattern_match_simple(p + strlen(":(glob)"), path))
				return true;
			continue;
		}
		n = strlen(p);
		if (!strncmp(path, p, n) && (path[n] == '\0' || path[n] == '/'))
			return true;
	}
	return false;
}

/*
 * The entries rev_key lists: each path of tree_paths, a glob by the
 * directory before its first wildcard (arch for arch/<any>/include/<any>).
 */
static char **key_argv(const char *dir, const char *rev, const char *uapi_resource)
{
	GPtrArray *v = g_ptr_array_new();
	const char *head[] = { "git", "-C", dir, "ls-tree", "--full-tree", rev, "--",
			       uapi_resource };

	for (size_t i = 0; i < G_N_ELEMENTS(head); i++)
		g_ptr_array_add(v, g_strdup(head[i]));
	for (int i = 0; tree_paths[i]; i++) {
		const char *p = tree_paths[i] + (tree_paths[i][0] == '?');

		if (g_str_has_prefix(p, ":(glob)")) {
			p += strlen(":(glob)");
			g_ptr_array_add(v, g_strndup(p, strcspn(p, "*?[") - 1));
		} else {
			g_ptr_array_add(v, g_strdup(p));
		}
	}
	g_ptr_array_add(v, NULL);
	return (char **)g_ptr_array_free(v, FALSE);
}

/*
 * The key of a git revision: a hash of the object ids of the files and
 * directories that hold what the checks read, so that steps which change
 * none of them (most of a series) share one scan.  A directory counts by
 * its tree id: coarser than tree_paths (any change under arch/<a>/ makes a
 * new key), but one ls-tree of a few dozen entries, where listing every
 * blob of the tree took 0.3 s on every run.  NULL when rev is unknown or
 * not a kernel tree.
 */
static char *rev_key(const char *dir, const char *rev)
{
	static const char uapi_resource[] = "include/uapi/asm-generic/resource.h";
	char **argv = key_argv(dir, rev, uapi_resource);
	GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
	char *out = NULL, *key = NULL, **lines;
	bool kernel = false;

	if (abi_run(argv, NULL, &out, NULL) != 0) {
		g_strfreev(argv);
		g_free(out);
		g_checksum_free(sum);
		return NULL;
	}
	lines = g_strsplit(out, "\n", -1);
	for (int i = 0; lines[i]; i++) {
		const char *path = strchr(lines[i], '\t');

		if (!path)
			continue;
		kernel |= !strcmp(path + 1, uapi_resource);
		g_checksum_update(sum, (const guchar *)lines[i], strlen(lines[i]) + 1);
	}
	if (kernel)
		key = g_strdup_printf("git-%.40s", g_checksum_get_string(sum));
	g_strfreev(argv);
	g_strfreev(lines);
	g_free(out);
	g_checksum_free(sum);
	return key;
}

/* The key of dir when it is a git checkout with nothing changed or added. */
static char *clean_tree_hash(const char *dir)
{
	char *top = git_out(dir, "rev-parse", "--show-toplevel", NULL, NULL);
	char *canon = g_canonicalize_filename(dir, NULL);
	char *status, *key = NULL;
	bool same = top && strcmp(top, canon) == 0;

	g_free(top);
	g_free(canon);
	if (!same)
		return NULL;
	status = git_out(dir, "status", "--porcelain", "--ignore-submodules",
			 NULL);
	if (status && !*status)
		key = rev_key(dir, "HEAD");
	g_free(status);
	return key;
}

static int archive(const char *dir, const char *rev, const char *paths,
		   const char *dst, char **err)
{
	char *qd = g_shell_quote(dir), *qr = g_shell_quote(rev),
	     *qt = g_shell_quote(dst);
	char *cmd = g_strdup_printf(
		"git -C %s archive --format=tar %s -- %s > %s/.a.tar &&"
		" tar -x -C %s -f %s/.a.tar; rc=$?; rm -f %s/.a.tar; exit $rc",
		qd, qr, paths, qt, qt, qt, qt);
	char *argv[] = { "sh", "-c", cmd, NULL };
	int rc = abi_run(argv, NULL, NULL, err);

	g_free(qd);
	g_free(qr);
	g_free(qt);
	g_free(cmd);
	return rc;
}

/* Unpack what the checks read of DIR@REV into the cache, once per key. */
static char *unpack_rev(const char *dir, const char *rev, const char *dst,
			GError **error)
{
	char *tmp, *err = NULL;
	GString *paths;
	int rc;

	if (g_file_test(dst, G_FILE_TEST_IS_DIR))
		return g_strdup(dst);
	tmp = g_strdup_printf("%s.%d.tmp", dst, (int)getpid());
	paths = g_string_new(NULL);
	for (int i = 0; tree_paths[i]; i++) {
		char *q;

		if (tree_paths[i][0] == '?')
			continue;
		q = g_shell_quote(tree_paths[i]);
		g_string_append_printf(paths, " %s", q);
		g_free(q);
	}
	g_mkdir_with_parents(tmp, 0755);
	rc = archive(dir, rev, paths->str, tmp, &err);
	for (int i = 0; rc == 0 && tree_paths[i]; i++) {
		char *q;

		if (tree_paths[i][0] != '?')
			continue;
		/* git archive fails on a pathspec that matches nothing: fine here */
		q = g_shell_quote(tree_paths[i] + 1);
		archive(dir, rev, q, tmp, NULL);
		g_free(q);
	}
	if (rc == 0 && g_rename(tmp, dst) != 0 &&
	    !g_file_test(dst, G_FILE_TEST_IS_DIR))
		rc = -1;
	if (rc != 0) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
			    "%s@%s: cannot unpack: %s", dir, rev,
			    err ? err : "rename failed");
	}
	if (g_file_test(tmp, G_FILE_TEST_IS_DIR)) {
		char *argv[] = { "rm", "-rf", tmp, NULL };

		abi_run(argv, NULL, NULL, NULL);
	}
	g_free(err);
	g_free(tmp);
	g_string_free(paths, TRUE);
	return rc == 0 ? g_strdup(dst) : NULL;
}

/* Make t->src hold the sources (a DIR@REV is unpacked only when it must be scanned). */
bool abi_tree_materialize(struct abi_tree *t, GError **error)
{
	char *src;

	if (!t->rev)
		return true;
	src = unpack_rev(t->git_dir, t->rev, t->src, error);
	g_free(src);
	return src != NULL;
}

static bool is_kernel_tree(const char *dir)
{
	char *a = g_build_filename(dir, "arch", NULL);
	char *u = g_build_filename(dir, "include", "uapi", "asm-generic",
				   "resource.h", NULL);
	bool ok = g_file_test(a, G_FILE_TEST_IS_DIR) &&
		  g_file_test(u, G_FILE_TEST_EXISTS);

	g_free(a);
	g_free(u);
	return ok;
}

/* "7.2", "7.2@step/uapi", "abi-7.2@1a2b3c4d5e6f" (commit ids abbreviated). */
static char *short_label(const char *dir, const char *rev)
{
	char *base = g_path_get_basename(dir);
	bool hex = rev && strlen(rev) == 40 &&
		   strspn(rev, "0123456789abcdef") == 40;
	char *tags = hex ? git_out(dir, "tag", "--points-at", rev, NULL) : NULL;
	char *out;

	/* kmatrix passes commit ids: name them by their step tag when they have one */
	if (tags && *tags) {
		tags[strcspn(tags, "\n")] = '\0';
		out = g_strdup_printf("%s@%s", base, tags);
	} else if (rev) {
		out = g_strdup_printf("%s@%.*s", base,
				      hex ? 12 : (int)strlen(rev), rev);
	} else {
		out = g_strdup(base);
	}
	g_free(tags);
	g_free(base);
	return out;
}

struct abi_tree *abi_tree_open(const char *spec, bool baseline,
			       const char *cache, GError **error)
{
	struct abi_tree *t = g_new0(struct abi_tree, 1);
	const char *at = strrchr(spec, '@');
	char *dir = at && !g_file_test(spec, G_FILE_TEST_IS_DIR) ?
			    g_strndup(spec, at - spec) :
			    g_strdup(spec);
	const char *rev = at && strlen(dir) < strlen(spec) ? at + 1 : NULL;

	t->spec = g_strdup(spec);
	t->baseline = baseline;
	t->label = short_label(dir, rev);
	t->arches =
		g_ptr_array_new_with_free_func((GDestroyNotify)abi_arch_free);
	if (rev) {
		t->hash = rev_key(dir, rev);
		if (!t->hash) {
			g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
				    "%s: no such git revision of a kernel tree",
				    spec);
			goto fail;
		}
		t->git_dir = g_strdup(dir);
		t->rev = g_strdup(rev);
		t->src = g_build_filename(cache, "abi", "src", t->hash, NULL);
		g_free(dir);
		return t;
	}
	t->src = g_canonicalize_filename(dir, NULL);
	if (!is_kernel_tree(t->src)) {
		g_set_error(
			error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
			"%s: not a kernel tree (no arch/ or include/uapi/asm-generic/resource.h)",
			spec);
		goto fail;
	}
	if (!t->hash)
		t->hash = clean_tree_hash(t->src);
	if (!t->hash)
		t->hash = content_hash(t->src);
	g_free(dir);
	return t;
fail:
	g_free(dir);
	abi_tree_free(t);
	return NULL;
}

void abi_tree_free(struct abi_tree *t)
{
	if (!t)
		return;
	g_free(t->spec);
	g_free(t->label);
	g_free(t->src);
	g_free(t->hash);
	g_free(t->git_dir);
	g_free(t->rev);
	g_ptr_array_free(t->arches, TRUE);
	g_free(t);
}
