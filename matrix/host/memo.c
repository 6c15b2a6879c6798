// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <glib.h>

#include "memo.h"
#include "key.h"
#include "run.h"

/* @id + the file @real's device, inode, size, mtime and ctime. */
static void stamp(GString *id, const char *real, const struct stat *st)
{
	g_string_append_printf(id, "%s %lu %lu %lld %lld.%09ld %lld.%09ld",
			       real, (unsigned long)st->st_dev,
			       (unsigned long)st->st_ino, (long long)st->st_size,
			       (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
			       (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

/* The argv and the identity of the file argv[0] names; NULL: not found. */
static char *identity(char **argv)
{
	char *found = g_find_program_in_path(argv[0]);
	char *real = found ? realpath(found, NULL) : NULL;
	GString *id;
	struct stat st;

	g_free(found);
	if (!real || stat(real, &st)) {
		free(real);
		return NULL;
	}
	id = g_string_new(NULL);
	stamp(id, real, &st);
	for (int i = 1; argv[i]; i++)
		g_string_append_printf(id, "\n%s", argv[i]);
	free(real);
	return g_string_free(id, FALSE);
}

static char *memo_path(const char *cache, const char *id)
{
	char *sum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, id, -1);
	char *path = g_build_filename(cache, "work", "memo", sum, NULL);

	g_free(sum);
	return path;
}

/* The answer stored for @id; the identity is stored too, so a hash collision cannot mislead. */
static char *recall(const char *path, const char *id)
{
	char *out = NULL;
	size_t n = strlen(id);

	if (!g_file_get_contents(path, &out, NULL, NULL))
		return NULL;
	if (!strncmp(out, id, n) && out[n] == '\n') {
		memmove(out, out + n + 1, strlen(out + n + 1) + 1);
		return out;
	}
	g_free(out);
	return NULL;
}

/* A cache it cannot write to only costs the next run the work again. */
static void remember(const char *path, const char *id, const char *out)
{
	char *text = g_strdup_printf("%s\n%s", id, out);
	char *d = g_path_get_dirname(path);

	if (!g_mkdir_with_parents(d, 0755))
		g_file_set_contents(path, text, -1, NULL);
	g_free(d);
	g_free(text);
}

char *memo_capture(const char *cache, char **argv)
{
	char *id = identity(argv), *path = id ? memo_path(cache, id) : NULL;
	char *out = path ? recall(path, id) : NULL;

	if (!out) {
		out = run_capture(argv, NULL, NULL);
		if (out && path)
			remember(path, id, out);
	}
	g_free(path);
	g_free(id);
	return out;
}

/*
 * A stamp the file system's clock may not yet tell from the next write
 * (timestamps move in jiffies): not remembered, as git treats a "racy"
 * index entry.  The ctime counts too: a chmod or utimensat is a change.
 */
static bool settled(const struct stat *st)
{
	gint64 now = g_get_real_time() / G_USEC_PER_SEC;

	return st->st_mtim.tv_sec < now - 1 && st->st_ctim.tv_sec < now - 1;
}

char *memo_file_sha256(const char *cache, const char *file)
{
	char *real = realpath(file, NULL), *id = NULL, *path = NULL, *sha;
	GString *s;
	struct stat st;

	if (!real || stat(real, &st) || !S_ISREG(st.st_mode)) {
		free(real);
		return key_file_sha256(file);
	}
	s = g_string_new("sha256 ");
	stamp(s, real, &st);
	free(real);
	id = g_string_free(s, FALSE);
	path = memo_path(cache, id);
	sha = recall(path, id);
	if (!sha) {
		sha = key_file_sha256(file);
		if (sha && settled(&st))
			remember(path, id, sha);
	}
	g_free(path);
	g_free(id);
	return sha;
}
