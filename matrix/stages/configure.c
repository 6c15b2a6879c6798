// SPDX-License-Identifier: GPL-2.0
/*
 * Configure: tinyconfig, the arch fragment merged by the tree's own
 * merge_config.sh, olddefconfig; then every symbol the fragment asks for
 * must hold in .config, since olddefconfig drops what it cannot satisfy
 * without a word.
 */
#include <string.h>
#include <unistd.h>

#include "build.h"
#include "cell.h"
#include "run.h"
#include "stagelog.h"

static int run_logged(struct cell *c, GPtrArray *argv, const char *log)
{
	char **env = cell_make_env(c);
	struct child ch = { .cwd = c->src, .env = env, .log = log };
	int rc;

	g_ptr_array_add(argv, NULL);
	ch.argv = (char **)argv->pdata;
	rc = run_command(&ch);
	g_ptr_array_free(argv, TRUE);
	g_strfreev(env);
	return rc;
}

/* "CONFIG_X=v" -> (X, v); "# CONFIG_X is not set" -> (X, NULL).  FALSE otherwise. */
static gboolean parse_config_line(const char *l, char **sym, char **val)
{
	const char *eq;

	if (g_str_has_prefix(l, "# CONFIG_") && g_str_has_suffix(l, " is not set")) {
		*sym = g_strndup(l + 2, strlen(l) - 2 - strlen(" is not set"));
		*val = NULL;
		return TRUE;
	}
	eq = strchr(l, '=');
	if (!g_str_has_prefix(l, "CONFIG_") || !eq)
		return FALSE;
	*sym = g_strndup(l, eq - l);
	*val = g_strdup(eq + 1);
	return TRUE;
}

/* Symbol -> value ("" for "is not set") of a config file. */
GHashTable *config_read(const char *path)
{
	GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	char *text = NULL, **lines;

	if (!g_file_get_contents(path, &text, NULL, NULL))
		return h;
	lines = g_strsplit(text, "\n", -1);
	for (int i = 0; lines[i]; i++) {
		char *sym, *val;

		if (parse_config_line(g_strstrip(lines[i]), &sym, &val))
			g_hash_table_replace(h, sym, val ? val : g_strdup(""));
	}
	g_strfreev(lines);
	g_free(text);
	return h;
}

static void describe_drop(struct outcome *o, const char *frag, const char *sym,
			  const char *want, const char *have)
{
	if (!o->verdict)
		outcome_set(o, "config-failed", "%s: %s%s%s not as asked", frag, sym,
			    *want ? "=" : " ", *want ? want : "unset");
	outcome_add(o, "%s: asked %s%s%s, .config has %s%s%s", sym, sym, *want ? "=" : " ",
		    *want ? want : "is not set", have ? sym : "", have && *have ? "=" : "",
		    have ? (*have ? have : " is not set") : "nothing (symbol unknown or its dependencies unmet)");
}

/* Every symbol of the fragment must be set as asked; names the first that is not. */
int config_verify(const char *fragment, const char *config, struct outcome *o)
{
	GHashTable *want = config_read(fragment);
	GHashTable *have = config_read(config);
	GList *keys = g_list_sort(g_hash_table_get_keys(want), (GCompareFunc)strcmp);
	char *frag = g_path_get_basename(fragment);
	int bad = 0;

	for (GList *k = keys; k; k = k->next) {
		const char *w = g_hash_table_lookup(want, k->data);
		const char *h = g_hash_table_lookup(have, k->data);

		/* "is not set" is also satisfied by the symbol being absent. */
		if (h ? !strcmp(w, h) : !*w)
			continue;
		describe_drop(o, frag, k->data, w, h);
		bad++;
	}
	g_list_free(keys);
	g_free(frag);
	g_hash_table_destroy(want);
	g_hash_table_destroy(have);
	return bad;
}

static int merge_fragment(struct cell *c, const char *log)
{
	GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
	char *config = g_build_filename(c->build_dir, ".config", NULL);

	g_ptr_array_add(argv, g_strdup("scripts/kconfig/merge_config.sh"));
	g_ptr_array_add(argv, g_strdup("-m"));
	g_ptr_array_add(argv, g_strdup("-O"));
	g_ptr_array_add(argv, g_strdup(c->build_dir));
	g_ptr_array_add(argv, config);
	g_ptr_array_add(argv, g_strdup(c->a->fragment));
	return run_logged(c, argv, log);
}

/* The log's end: the failing command (make, merge_config.sh) has the last word. */
static const struct stage_failure configure_failure = {
	.stage = "configure", .verdict = "config-failed", .tail = 15,
};

void configure_evidence(struct outcome *o, const char *log, const char *what, const char *dir)
{
	stagelog_judge(o, log, &configure_failure, what, dir);
}

static void stage_failed(struct cell *c, const char *what, const char *log)
{
	if (!run_stop_signal())
		configure_evidence(&c->out, log, what, c->build_dir);
}

int configure_cell(struct cell *c)
{
	char *log = cell_log(c, "config");
	char *config = g_build_filename(c->build_dir, ".config", NULL);
	int rc;

	unlink(log);
	g_mkdir_with_parents(c->build_dir, 0755);
	rc = run_logged(c, cell_make_argv(c, "tinyconfig"), log);
	if (rc != 0)
		stage_failed(c, "make tinyconfig", log);
	else if ((rc = merge_fragment(c, log)) != 0)
		stage_failed(c, "merge_config.sh", log);
	else if ((rc = run_logged(c, cell_make_argv(c, "olddefconfig"), log)) != 0)
		stage_failed(c, "make olddefconfig", log);
	else if (config_verify(c->a->fragment, config, &c->out))
		rc = 1;
	g_free(log);
	g_free(config);
	return rc;
}
