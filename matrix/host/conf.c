// SPDX-License-Identifier: GPL-2.0
/*
 * Matrix definition loader.  GKeyFile does the parsing; because it reports
 * neither the line of a syntax error nor that of a key, a small scan of the
 * file finds the line so every message reads "file:line: what".
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"

#define CONF_ERROR g_quark_from_static_string("kmatrix-conf")

static const char *const matrix_keys[] = { "versions", "arches", "expectations",
	"arch_configs", NULL };
static const char *const matrix_required[] = { "versions", "arches", "expectations", NULL };
static const char *const version_keys[] = { "package", "tarball", "git", "ref", "baseline",
	"series", NULL };
static const char *const version_required[] = { "baseline", "series", NULL };
static const char *const arch_keys[] = { "kernel_arch", "cross_compile", "guest_cc",
	"debian_arch", "image", "image_target", "fragment", "init", "triplet", "userland",
	"compat", "compat_cc", "uapi_arch", "compat_uapi_arch", "skip", "host_packages",
	"guest_packages", NULL };
static const char *const arch_required[] = { "kernel_arch", "cross_compile", "guest_cc",
	"debian_arch", "image", "image_target", "fragment", NULL };
static const char *const qemu_keys[] = { "binary", "machine", "cpu", "memory",
	"console", "append", "timeout", NULL };
/* Keys a [qemu] group must have; the others default. */
static const char *const qemu_required[] = { "binary", "machine", "cpu", "memory",
	"console", NULL };

static char *group_of_line(const char *line)
{
	size_t n = strlen(line);

	if (n < 2 || line[0] != '[' || line[n - 1] != ']')
		return NULL;
	return g_strndup(line + 1, n - 2);
}

static char *key_of_line(const char *line)
{
	const char *eq = strchr(line, '=');

	if (!eq)
		return NULL;
	return g_strstrip(g_strndup(line, eq - line));
}

int conf_line(const char *path, const char *group, const char *key)
{
	char *text = NULL, **lines;
	char *cur = NULL;
	int found = 0;

	if (!g_file_get_contents(path, &text, NULL, NULL))
		return 0;
	lines = g_strsplit(text, "\n", -1);
	for (int i = 0; lines[i] && !found; i++) {
		char *l = g_strstrip(lines[i]);
		char *g = group_of_line(l);

		if (g) {
			g_free(cur);
			cur = g;
			if (!key && strcmp(cur, group) == 0)
				found = i + 1;
			continue;
		}
		if (key && cur && strcmp(cur, group) == 0 && l[0] != '#') {
			char *k = key_of_line(l);

			if (k && strcmp(k, key) == 0)
				found = i + 1;
			g_free(k);
		}
	}
	g_free(cur);
	g_strfreev(lines);
	g_free(text);
	return found;
}

static gboolean conf_fail(GError **err, const char *path, const char *group,
			  const char *key, const char *fmt, ...)
	G_GNUC_PRINTF(5, 6);

static gboolean conf_fail(GError **err, const char *path, const char *group,
			  const char *key, const char *fmt, ...)
{
	int line = group ? conf_line(path, group, key) : 0;
	va_list ap;
	char *msg;

	if (!line && key)
		line = conf_line(path, group, NULL);
	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_set_error(err, CONF_ERROR, 1, "%s:%d: %s", path, line, msg);
	g_free(msg);
	return FALSE;
}

/* Reject what GKeyFile would reject, and duplicates it would silently merge. */
/* What GKeyFile refuses in a name, caught here so the error has a line. */
static gboolean bad_name(const char *name, gboolean group)
{
	for (const char *c = name; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f || (group && (*c == '[' || *c == ']')))
			return TRUE;
	return !group && name[0] == '[';
}

static gboolean scan_syntax(const char *path, const char *text, GError **err)
{
	char **lines = g_strsplit(text, "\n", -1);
	GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	char *cur = NULL;
	gboolean ok = TRUE;

	for (int i = 0; lines[i] && ok; i++) {
		char *l = g_strstrip(lines[i]);
		char *g, *k, *id;

		if (!*l || l[0] == '#')
			continue;
		g = group_of_line(l);
		k = g ? NULL : key_of_line(l);
		if (!g && (!k || !*k)) {
			g_set_error(err, CONF_ERROR, 1,
				    "%s:%d: not a [group], key=value or # comment: %s",
				    path, i + 1, l);
			ok = FALSE;
		} else if (!g && !cur) {
			g_set_error(err, CONF_ERROR, 1, "%s:%d: key before any [group]: %s",
				    path, i + 1, l);
			ok = FALSE;
		} else if (bad_name(g ? g : k, g != NULL)) {
			g_set_error(err, CONF_ERROR, 1, g ?
				    "%s:%d: a group name cannot hold '[', ']' or control characters: %s" :
				    "%s:%d: a key cannot start with '[' or hold control characters: %s",
				    path, i + 1, l);
			ok = FALSE;
		} else {
			id = g ? g_strdup_printf("[%s]", g) : g_strdup_printf("%s\n%s", cur, k);
			if (g_hash_table_contains(seen, id)) {
				g_set_error(err, CONF_ERROR, 1, "%s:%d: duplicate %s %s",
					    path, i + 1, g ? "group" : "key", g ? l : k);
				ok = FALSE;
			}
			g_hash_table_add(seen, id);
		}
		if (g) {
			g_free(cur);
			cur = g;
		}
		g_free(k);
	}
	g_free(cur);
	g_hash_table_destroy(seen);
	g_strfreev(lines);
	return ok;
}

/*
 * The scans read a line at a time up to the first NUL, GKeyFile reads
 * past it: a NUL byte would hide the rest of the file from the scans
 * (a key given twice there would pass).
 */
int text_nul_line(const char *text, gsize len)
{
	const char *nul = memchr(text, '\0', len);
	int line = 1;

	if (!nul)
		return 0;
	for (const char *p = text; p < nul; p++)
		line += *p == '\n';
	return line;
}

static gboolean check_text(const char *path, const char *text, gsize len, GError **err)
{
	int line = text_nul_line(text, len);

	if (!line)
		return TRUE;
	g_set_error(err, CONF_ERROR, 1, "%s:%d: a NUL byte: not a text file", path, line);
	return FALSE;
}

static GKeyFile *load_keyfile(const char *path, GError **err)
{
	GKeyFile *kf;
	char *text = NULL;
	gsize len;
	GError *e = NULL;

	if (!g_file_get_contents(path, &text, &len, &e)) {
		g_set_error(err, CONF_ERROR, 1, "%s:0: %s", path, e->message);
		g_error_free(e);
		return NULL;
	}
	if (!check_text(path, text, len, err) || !scan_syntax(path, text, err)) {
		g_free(text);
		return NULL;
	}
	kf = g_key_file_new();
	if (!g_key_file_load_from_data(kf, text, len, G_KEY_FILE_NONE, &e)) {
		g_set_error(err, CONF_ERROR, 1, "%s:0: %s", path, e->message);
		g_error_free(e);
		g_key_file_free(kf);
		kf = NULL;
	}
	g_free(text);
	return kf;
}

static gboolean check_keys(GKeyFile *kf, const char *path, const char *group,
			   const char *const *allowed, const char *const *required,
			   GError **err)
{
	char **keys = g_key_file_get_keys(kf, group, NULL, NULL);
	gboolean ok = TRUE;

	for (int i = 0; keys && keys[i] && ok; i++)
		if (!g_strv_contains(allowed, keys[i]))
			ok = conf_fail(err, path, group, keys[i], "[%s]: unknown key '%s'",
				       group, keys[i]);
	for (int i = 0; required && required[i] && ok; i++)
		if (!g_key_file_has_key(kf, group, required[i], NULL))
			ok = conf_fail(err, path, group, NULL, "[%s]: missing key '%s'",
				       group, required[i]);
	g_strfreev(keys);
	return ok;
}

/*
 * A relative path in a data file is relative to @base: the project
 * directory for matrix.conf, the arch.conf's own directory for arch.conf.
 */
static char *project_path(const char *base, const char *p)
{
	if (g_path_is_absolute(p))
		return g_strdup(p);
	return g_build_filename(base, p, NULL);
}

static char *get_str(GKeyFile *kf, const char *group, const char *key)
{
	char *v = g_key_file_get_string(kf, group, key, NULL);

	return v ? g_strstrip(v) : g_strdup("");
}

/* A version's tree comes from a package (package, tarball) or a git repository (git, ref). */
static gboolean check_source(struct matrix_conf *m, GKeyFile *kf, const char *group,
			     GError **err)
{
	static const char *const pkg[] = { "package", "tarball" }, *const git[] = { "git", "ref" };
	gboolean from_git = g_key_file_has_key(kf, group, "git", NULL) ||
			g_key_file_has_key(kf, group, "ref", NULL);
	const char *const *want = from_git ? git : pkg, *const *not = from_git ? pkg : git;

	for (int i = 0; i < 2; i++) {
		if (g_key_file_has_key(kf, group, not[i], NULL))
			return conf_fail(err, m->path, group, not[i],
					 "[%s]: '%s' with '%s': a tree comes from a package "
					 "(package, tarball) or a git repository (git, ref)",
					 group, not[i], want[0]);
		if (!g_key_file_has_key(kf, group, want[i], NULL))
			return conf_fail(err, m->path, group, NULL, "[%s]: missing key '%s'",
					 group, want[i]);
	}
	return TRUE;
}

static gboolean load_version(struct matrix_conf *m, GKeyFile *kf, const char *name,
			     GError **err)
{
	char *group = g_strdup_printf("version %s", name);
	struct version_conf *v;
	char *s;
	gboolean ok;

	if (!g_key_file_has_group(kf, group)) {
		ok = conf_fail(err, m->path, "matrix", "versions",
			       "version %s is listed but has no [%s] group", name, group);
		g_free(group);
		return ok;
	}
	ok = check_keys(kf, m->path, group, version_keys, version_required, err) &&
	     check_source(m, kf, group, err);
	if (ok) {
		v = g_new0(struct version_conf, 1);
		v->name = g_strdup(name);
		if (g_key_file_has_key(kf, group, "git", NULL)) {
			s = get_str(kf, group, "git");
			v->git = project_path(m->top, s);
			g_free(s);
			v->ref = get_str(kf, group, "ref");
		} else {
			v->package = get_str(kf, group, "package");
			v->tarball = get_str(kf, group, "tarball");
		}
		s = get_str(kf, group, "baseline");
		v->baseline = project_path(m->top, s);
		g_free(s);
		s = get_str(kf, group, "series");
		v->series = project_path(m->top, s);
		g_free(s);
		g_ptr_array_add(m->versions, v);
	}
	g_free(group);
	return ok;
}

static gboolean check_quirks(struct arch_conf *a, GError **err)
{
	char **groups = g_key_file_get_groups(a->kf, NULL);
	gboolean ok = TRUE;

	for (int i = 0; groups[i] && ok; i++) {
		const char *g = groups[i];

		if (!strcmp(g, "arch") || !strcmp(g, "qemu"))
			continue;
		if (strncmp(g, "qemu ", 5) != 0 ||
		    version_range_match(g + 5, "1.0") < 0)
			ok = conf_fail(err, a->path, g, NULL,
				       "unknown group [%s] (expected [arch], [qemu] or [qemu version<X.Y])",
				       g);
		else
			ok = check_keys(a->kf, a->path, g, qemu_keys, NULL, err);
	}
	g_strfreev(groups);
	return ok;
}

static gboolean check_arch(struct arch_conf *a, GError **err)
{
	if (!g_key_file_has_group(a->kf, "arch"))
		return conf_fail(err, a->path, NULL, NULL, "missing group [arch]");
	if (!g_key_file_has_group(a->kf, "qemu"))
		return conf_fail(err, a->path, NULL, NULL, "missing group [qemu]");
	if (!check_keys(a->kf, a->path, "arch", arch_keys, arch_required, err) ||
	    !check_keys(a->kf, a->path, "qemu", qemu_keys, qemu_required, err))
		return FALSE;
	return check_quirks(a, err);
}

/* A ';' list as the space-separated words a shell or apt takes. */
static char *get_words(GKeyFile *kf, const char *group, const char *key)
{
	char **v = g_key_file_get_string_list(kf, group, key, NULL, NULL);
	GString *s = g_string_new(NULL);

	for (int i = 0; v && v[i]; i++) {
		char *w = g_strstrip(v[i]);

		if (!*w)
			continue;
		if (s->len)
			g_string_append_c(s, ' ');
		g_string_append(s, w);
	}
	g_strfreev(v);
	return g_string_free(s, FALSE);
}

/*
 * The guest's userland: "debian" packs busybox and the clients from the
 * arch's Debian packages (from its multiarch triplet's directories); "none" boots
 * the test binary as /init, for an arch Debian has no userland for.  A
 * compat suite needs both its name and its compiler.  (An arch.conf
 * without a triplet leaves mkinitramfs its defaults for x86_64 and arm64.)
 */
static gboolean check_guest(struct arch_conf *a, GError **err)
{
	if (!*a->userland) {
		g_free(a->userland);
		a->userland = g_strdup("debian");
	}
	if (strcmp(a->userland, "debian") && strcmp(a->userland, "none"))
		return conf_fail(err, a->path, "arch", "userland",
				 "userland must be 'debian' or 'none', not '%s'", a->userland);
	if (!*a->compat != !*a->compat_cc)
		return conf_fail(err, a->path, "arch", *a->compat ? "compat" : "compat_cc",
				 "[arch]: 'compat' and 'compat_cc' go together");
	if (*a->compat && !g_regex_match_simple("^[a-z0-9_]+$", a->compat, 0, 0))
		return conf_fail(err, a->path, "arch", "compat",
				 "compat suite name '%s': lower case letters, digits, '_'",
				 a->compat);
	return TRUE;
}

struct arch_conf *arch_conf_load(const char *path, const char *name, GError **err)
{
	struct arch_conf *a = g_new0(struct arch_conf, 1);
	char *dir, *frag, *init;

	a->name = g_strdup(name);
	a->path = g_strdup(path);
	a->kf = load_keyfile(path, err);
	if (!a->kf || !check_arch(a, err)) {
		arch_conf_free(a);
		return NULL;
	}
	a->kernel_arch = get_str(a->kf, "arch", "kernel_arch");
	a->cross_compile = get_str(a->kf, "arch", "cross_compile");
	a->guest_cc = get_str(a->kf, "arch", "guest_cc");
	a->debian_arch = get_str(a->kf, "arch", "debian_arch");
	a->image = get_str(a->kf, "arch", "image");
	a->image_target = get_str(a->kf, "arch", "image_target");
	a->triplet = get_str(a->kf, "arch", "triplet");
	a->userland = get_str(a->kf, "arch", "userland");
	a->compat = get_str(a->kf, "arch", "compat");
	a->compat_cc = get_str(a->kf, "arch", "compat_cc");
	a->uapi_arch = get_str(a->kf, "arch", "uapi_arch");
	a->compat_uapi_arch = get_str(a->kf, "arch", "compat_uapi_arch");
	a->skip = g_key_file_get_string_list(a->kf, "arch", "skip", NULL, NULL);
	for (int i = 0; a->skip && a->skip[i]; i++)
		g_strstrip(a->skip[i]);
	a->host_packages = get_words(a->kf, "arch", "host_packages");
	a->guest_packages = get_words(a->kf, "arch", "guest_packages");
	if (!check_guest(a, err)) {
		arch_conf_free(a);
		return NULL;
	}
	dir = g_path_get_dirname(path);
	frag = get_str(a->kf, "arch", "fragment");
	a->fragment = project_path(dir, frag);
	g_free(frag);
	init = get_str(a->kf, "arch", "init");
	a->init = *init ? project_path(dir, init) : NULL;
	g_free(init);
	g_free(dir);
	if (!g_file_test(a->fragment, G_FILE_TEST_IS_REGULAR)) {
		conf_fail(err, a->path, "arch", "fragment", "fragment %s does not exist",
			  a->fragment);
		arch_conf_free(a);
		return NULL;
	}
	if (a->init && !g_file_test(a->init, G_FILE_TEST_IS_REGULAR)) {
		conf_fail(err, a->path, "arch", "init", "init %s does not exist", a->init);
		arch_conf_free(a);
		return NULL;
	}
	return a;
}

static gboolean load_arch(struct matrix_conf *m, const char *name, GError **err)
{
	char *path = g_build_filename(m->arch_configs, name, "arch.conf", NULL);
	struct arch_conf *a = NULL;

	if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
		conf_fail(err, m->path, "matrix", "arches",
			  "arch %s is listed but %s does not exist", name, path);
	else
		a = arch_conf_load(path, name, err);
	g_free(path);
	if (a)
		g_ptr_array_add(m->arches, a);
	return a != NULL;
}

/* A list of names: none empty, none twice (";;" is a slip, not a name). */
static gboolean check_list(struct matrix_conf *m, const char *key, char **l,
			   GError **err)
{
	for (int i = 0; l[i]; i++) {
		if (!l[i][0])
			return conf_fail(err, m->path, "matrix", key,
					 "[matrix]: '%s' has an empty entry", key);
		for (int j = 0; j < i; j++)
			if (!strcmp(l[i], l[j]))
				return conf_fail(err, m->path, "matrix", key,
						 "[matrix]: '%s' lists %s twice", key, l[i]);
	}
	return TRUE;
}

static char **get_list(struct matrix_conf *m, GKeyFile *kf, const char *key,
		       GError **err)
{
	char **l = g_key_file_get_string_list(kf, "matrix", key, NULL, NULL);

	for (int i = 0; l && l[i]; i++)
		g_strstrip(l[i]);
	if (!l || !l[0] || (!l[0][0] && !l[1])) {
		conf_fail(err, m->path, "matrix", key, "[matrix]: '%s' is empty", key);
		g_strfreev(l);
		return NULL;
	}
	if (!check_list(m, key, l, err)) {
		g_strfreev(l);
		return NULL;
	}
	return l;
}

/*
 * GKeyFile takes any group; a misspelt one ([verison 6.1]) would be
 * ignored, and what it meant to define silently missing.
 */
static gboolean check_matrix_groups(struct matrix_conf *m, GKeyFile *kf, GError **err)
{
	static const char *const prefixes[] = { "version ", "headers-only ", "exclude ", NULL };
	char **groups = g_key_file_get_groups(kf, NULL);
	gboolean ok = TRUE;

	for (int i = 0; groups[i] && ok; i++) {
		const char *g = groups[i];
		gboolean known = !strcmp(g, "matrix");

		for (int p = 0; prefixes[p] && !known; p++)
			known = g_str_has_prefix(g, prefixes[p]) && g[strlen(prefixes[p])];
		if (!known)
			ok = conf_fail(err, m->path, g, NULL,
				       "unknown group [%s] (expected [matrix], [version <v>], "
				       "[headers-only <arch>] or [exclude <version> <arch>])", g);
	}
	g_strfreev(groups);
	return ok;
}

static void headers_only_free(struct headers_only *h)
{
	g_free(h->arch);
	g_free(h->reason);
	g_free(h);
}

/* [headers-only <arch>] reason=...: shown in the report's ABI section. */
static gboolean load_headers_only(struct matrix_conf *m, GKeyFile *kf, GError **err)
{
	static const char *const keys[] = { "reason", NULL };
	char **groups = g_key_file_get_groups(kf, NULL);
	gboolean ok = TRUE;

	for (int i = 0; ok && groups[i]; i++) {
		struct headers_only *h;

		if (!g_str_has_prefix(groups[i], "headers-only "))
			continue;
		ok = check_keys(kf, m->path, groups[i], keys, keys, err);
		if (!ok)
			break;
		h = g_new0(struct headers_only, 1);
		h->arch = g_strstrip(g_strdup(groups[i] + strlen("headers-only ")));
		h->reason = get_str(kf, groups[i], "reason");
		g_ptr_array_add(m->headers_only, h);
	}
	g_strfreev(groups);
	return ok;
}

static void exclusion_free(struct exclusion *x)
{
	g_free(x->version);
	g_free(x->arch);
	g_free(x->reason);
	g_free(x->evidence);
	g_free(x->stock_tree);
	g_free(x);
}

static gboolean exclusion_check(struct matrix_conf *m, const char *group,
				struct exclusion *x, GError **err)
{
	if (!x->version || !x->arch)
		return conf_fail(err, m->path, group, NULL,
				 "[%s]: expected [exclude <version> <arch>]", group);
	if (!conf_version(m, x->version))
		return conf_fail(err, m->path, group, NULL,
				 "[%s]: version %s is not in [matrix] versions", group, x->version);
	if (!conf_arch(m, x->arch))
		return conf_fail(err, m->path, group, NULL,
				 "[%s]: arch %s is not in [matrix] arches", group, x->arch);
	if (conf_excluded(m, x->version, x->arch))
		return conf_fail(err, m->path, group, NULL, "[%s]: %s x %s is excluded twice",
				 group, x->version, x->arch);
	if (!g_file_test(x->evidence, G_FILE_TEST_IS_REGULAR))
		return conf_fail(err, m->path, group, "evidence",
				 "[%s]: evidence %s does not exist", group, x->evidence);
	return TRUE;
}

/* [exclude <version> <arch>] reason=, evidence=, optional stock_tree=. */
static gboolean load_exclusions(struct matrix_conf *m, GKeyFile *kf, GError **err)
{
	static const char *const keys[] = { "reason", "evidence", "stock_tree", NULL };
	static const char *const required[] = { "reason", "evidence", NULL };
	char **groups = g_key_file_get_groups(kf, NULL);
	gboolean ok = TRUE;

	for (int i = 0; ok && groups[i]; i++) {
		struct exclusion *x;
		char **words, *ev;

		if (!g_str_has_prefix(groups[i], "exclude "))
			continue;
		ok = check_keys(kf, m->path, groups[i], keys, required, err);
		if (!ok)
			break;
		words = g_strsplit_set(groups[i] + strlen("exclude "), " \t", -1);
		x = g_new0(struct exclusion, 1);
		for (int w = 0, n = 0; words[w]; w++) {
			if (!words[w][0])
				continue;
			if (n == 0)
				x->version = g_strdup(words[w]);
			else if (n == 1)
				x->arch = g_strdup(words[w]);
			else
				g_clear_pointer(&x->version, g_free);
			n++;
		}
		g_strfreev(words);
		x->reason = get_str(kf, groups[i], "reason");
		ev = get_str(kf, groups[i], "evidence");
		x->evidence = project_path(m->top, ev);
		g_free(ev);
		if (g_key_file_has_key(kf, groups[i], "stock_tree", NULL))
			x->stock_tree = get_str(kf, groups[i], "stock_tree");
		x->line = conf_line(m->path, groups[i], NULL);
		ok = exclusion_check(m, groups[i], x, err);
		if (ok)
			g_ptr_array_add(m->exclusions, x);
		else
			exclusion_free(x);
	}
	g_strfreev(groups);
	return ok;
}

const struct exclusion *conf_excluded(const struct matrix_conf *m, const char *v,
				      const char *a)
{
	for (guint i = 0; m->exclusions && i < m->exclusions->len; i++) {
		const struct exclusion *x = m->exclusions->pdata[i];

		if (!strcmp(x->version, v) && !strcmp(x->arch, a))
			return x;
	}
	return NULL;
}

static gboolean load_matrix(struct matrix_conf *m, GKeyFile *kf, GError **err)
{
	char **versions = NULL, **arches = NULL, *exp;
	gboolean ok;

	if (!check_matrix_groups(m, kf, err))
		return FALSE;
	if (!g_key_file_has_group(kf, "matrix"))
		return conf_fail(err, m->path, NULL, NULL, "missing group [matrix]");
	ok = check_keys(kf, m->path, "matrix", matrix_keys, matrix_required, err);
	if (ok) {
		char *dir = get_str(kf, "matrix", "arch_configs");

		m->arch_configs = project_path(m->top, *dir ? dir : "arch-configs");
		g_free(dir);
	}
	ok = ok && (versions = get_list(m, kf, "versions", err));
	ok = ok && (arches = get_list(m, kf, "arches", err));
	for (int i = 0; ok && versions[i]; i++)
		ok = load_version(m, kf, versions[i], err);
	for (int i = 0; ok && arches[i]; i++)
		ok = load_arch(m, arches[i], err);
	ok = ok && load_headers_only(m, kf, err);
	ok = ok && load_exclusions(m, kf, err);
	if (ok) {
		exp = get_str(kf, "matrix", "expectations");
		m->expectations = project_path(m->top, exp);
		g_free(exp);
	}
	g_strfreev(versions);
	g_strfreev(arches);
	return ok;
}

struct matrix_conf *conf_load(const char *top, const char *path, GError **err)
{
	struct matrix_conf *m = g_new0(struct matrix_conf, 1);
	GKeyFile *kf;

	m->path = g_strdup(path);
	m->top = g_strdup(top);
	m->versions = g_ptr_array_new();
	m->arches = g_ptr_array_new();
	m->headers_only = g_ptr_array_new_with_free_func((GDestroyNotify)headers_only_free);
	m->exclusions = g_ptr_array_new_with_free_func((GDestroyNotify)exclusion_free);
	kf = load_keyfile(path, err);
	if (!kf || !load_matrix(m, kf, err)) {
		if (kf)
			g_key_file_free(kf);
		conf_free(m);
		return NULL;
	}
	g_key_file_free(kf);
	return m;
}

static void version_conf_free(struct version_conf *v)
{
	g_free(v->name);
	g_free(v->package);
	g_free(v->tarball);
	g_free(v->git);
	g_free(v->ref);
	g_free(v->baseline);
	g_free(v->series);
	g_free(v);
}

void arch_conf_free(struct arch_conf *a)
{
	if (!a)
		return;
	g_free(a->name);
	g_free(a->path);
	g_free(a->kernel_arch);
	g_free(a->cross_compile);
	g_free(a->guest_cc);
	g_free(a->debian_arch);
	g_free(a->image);
	g_free(a->image_target);
	g_free(a->fragment);
	g_free(a->init);
	g_free(a->triplet);
	g_free(a->userland);
	g_free(a->compat);
	g_free(a->compat_cc);
	g_free(a->uapi_arch);
	g_strfreev(a->skip);
	g_free(a->compat_uapi_arch);
	g_free(a->host_packages);
	g_free(a->guest_packages);
	if (a->kf)
		g_key_file_free(a->kf);
	g_free(a);
}

struct matrix_conf *conf_open(const char *top, const char *matrix, GError **err)
{
	char *path = matrix ? g_canonicalize_filename(matrix, NULL)
			    : g_build_filename(top, "matrix", "matrix.conf", NULL);
	struct matrix_conf *m = conf_load(top, path, err);

	g_free(path);
	return m;
}

void conf_free(struct matrix_conf *m)
{
	if (!m)
		return;
	for (guint i = 0; i < m->versions->len; i++)
		version_conf_free(m->versions->pdata[i]);
	for (guint i = 0; i < m->arches->len; i++)
		arch_conf_free(m->arches->pdata[i]);
	g_ptr_array_free(m->versions, TRUE);
	g_ptr_array_free(m->arches, TRUE);
	if (m->headers_only)
		g_ptr_array_free(m->headers_only, TRUE);
	if (m->exclusions)
		g_ptr_array_free(m->exclusions, TRUE);
	g_free(m->path);
	g_free(m->top);
	g_free(m->expectations);
	g_free(m->arch_configs);
	g_free(m);
}

/* @dir's baseline/ and series/ (a backport directory), or @dir itself as series. */
static gboolean tree_dirs(struct version_conf *v, const char *dir, GError **err)
{
	char *order = g_build_filename(dir, "series", "order", NULL);

	if (g_file_test(order, G_FILE_TEST_IS_REGULAR)) {
		g_free(v->baseline);
		v->baseline = g_build_filename(dir, "baseline", NULL);
		g_free(v->series);
		v->series = g_build_filename(dir, "series", NULL);
	} else {
		g_free(v->series);
		v->series = g_strdup(dir);
	}
	g_free(order);
	if (v->baseline && v->series)
		return TRUE;
	g_set_error(err, CONF_ERROR, 1, "--tree %s: no baseline for %s: give --series a backport "
		    "directory (baseline/, series/), or run `kmatrix port %s` first",
		    v->name, v->name, v->name);
	return FALSE;
}

/*
 * --tree V=PATH@REF: version V's tree from a git repository, for one run.
 * A version of the matrix keeps its backport; a new one takes
 * backports/V/ or --series DIR.
 */
struct version_conf *conf_add_tree(struct matrix_conf *m, const char *spec,
				   const char *series, gboolean need_backport, GError **err)
{
	const char *eq = strchr(spec, '='), *at = strrchr(spec, '@');
	struct version_conf *v;
	char *name, *bp;

	if (!eq || !at || at < eq || eq == spec || at == eq + 1 || !at[1]) {
		g_set_error(err, CONF_ERROR, 1, "--tree %s: expected VERSION=PATH@REF", spec);
		return NULL;
	}
	name = g_strndup(spec, eq - spec);
	v = conf_version(m, name);
	if (!v) {
		v = g_new0(struct version_conf, 1);
		v->name = g_strdup(name);
		bp = g_build_filename(m->top, "backports", name, NULL);
		if (!series && g_file_test(bp, G_FILE_TEST_IS_DIR))
			series = bp;
		if (!series && !need_backport) {
			/* a version still to port: the draft goes there */
			v->baseline = g_build_filename(bp, "baseline", NULL);
			v->series = g_build_filename(bp, "series", NULL);
		} else if (!series || !tree_dirs(v, series, err)) {
			if (!series)
				g_set_error(err, CONF_ERROR, 1, "--tree %s: %s has no backport in %s: "
					    "give --series DIR, or run `kmatrix port %s`", spec, name,
					    bp, name);
			version_conf_free(v);
			g_free(bp);
			g_free(name);
			return NULL;
		}
		g_free(bp);
		g_ptr_array_add(m->versions, v);
	} else if (series && !tree_dirs(v, series, err)) {
		g_free(name);
		return NULL;
	}
	g_clear_pointer(&v->package, g_free);
	g_clear_pointer(&v->tarball, g_free);
	g_free(v->git);
	g_free(v->ref);
	bp = g_strndup(eq + 1, at - eq - 1);
	v->git = g_canonicalize_filename(bp, NULL);
	v->ref = g_strdup(at + 1);
	g_free(bp);
	g_free(name);
	return v;
}

struct version_conf *conf_version(const struct matrix_conf *m, const char *v)
{
	for (guint i = 0; i < m->versions->len; i++) {
		struct version_conf *c = m->versions->pdata[i];

		if (!strcmp(c->name, v))
			return c;
	}
	return NULL;
}

struct arch_conf *conf_arch(const struct matrix_conf *m, const char *a)
{
	for (guint i = 0; i < m->arches->len; i++) {
		struct arch_conf *c = m->arches->pdata[i];

		if (!strcmp(c->name, a))
			return c;
	}
	return NULL;
}

int version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		char *ea, *eb;
		unsigned long na = strtoul(a, &ea, 10);
		unsigned long nb = strtoul(b, &eb, 10);

		if (na != nb)
			return na < nb ? -1 : 1;
		/* a non-numeric part ("rc1"): the rest compares as text */
		if (ea == a || eb == b)
			return strcmp(a, b) < 0 ? -1 : strcmp(a, b) > 0;
		a = *ea == '.' ? ea + 1 : ea;
		b = *eb == '.' ? eb + 1 : eb;
	}
	return 0;
}

/* One "<op><version>" condition: 1 holds, 0 does not, -1 malformed. */
static int cond_match(const char *cond, const char *version)
{
	static const char *const ops[] = { "<=", ">=", "==", "!=", "<", ">", "=", NULL };
	const char *op = NULL, *v;
	int c;

	for (int i = 0; ops[i] && !op; i++)
		if (g_str_has_prefix(cond, ops[i]))
			op = ops[i];
	if (!op)
		return -1;
	v = cond + strlen(op);
	if (!*v || !g_ascii_isdigit(*v) || strspn(v, "0123456789.") != strlen(v))
		return -1;
	c = version_cmp(version, v);
	if (!strcmp(op, "<"))
		return c < 0;
	if (!strcmp(op, "<="))
		return c <= 0;
	if (!strcmp(op, ">"))
		return c > 0;
	if (!strcmp(op, ">="))
		return c >= 0;
	if (!strcmp(op, "!="))
		return c != 0;
	return c == 0;
}

int version_range_match(const char *range, const char *version)
{
	char **conds;
	int r = 1;

	if (!g_str_has_prefix(range, "version"))
		return -1;
	conds = g_strsplit(range + strlen("version"), ",", -1);
	if (!conds[0])
		r = -1;
	for (int i = 0; conds[i] && r >= 0; i++) {
		int m = cond_match(g_strstrip(conds[i]), version);

		r = m < 0 ? -1 : (r && m);
	}
	g_strfreev(conds);
	return r;
}

static void apply_qemu_group(struct qemu_conf *q, GKeyFile *kf, const char *g)
{
	char **fields[] = { &q->binary, &q->machine, &q->cpu, &q->memory,
			    &q->console, &q->append };
	const char *const names[] = { "binary", "machine", "cpu", "memory",
				      "console", "append" };

	for (size_t i = 0; i < G_N_ELEMENTS(fields); i++) {
		if (!g_key_file_has_key(kf, g, names[i], NULL))
			continue;
		g_free(*fields[i]);
		*fields[i] = get_str(kf, g, names[i]);
	}
	if (g_key_file_has_key(kf, g, "timeout", NULL))
		q->timeout = g_key_file_get_integer(kf, g, "timeout", NULL);
}

int conf_qemu(const struct arch_conf *a, const char *version, struct qemu_conf *out,
	      GError **err)
{
	char **groups = g_key_file_get_groups(a->kf, NULL);
	GString *quirks = g_string_new("");

	memset(out, 0, sizeof(*out));
	out->timeout = 300;
	/* the one optional string: QEMU's command line is built without a check */
	out->append = g_strdup("");
	apply_qemu_group(out, a->kf, "qemu");
	/* Quirk groups apply in file order, so a later group can refine an earlier one. */
	for (int i = 0; groups[i]; i++) {
		if (strncmp(groups[i], "qemu ", 5) != 0 ||
		    version_range_match(groups[i] + 5, version) != 1)
			continue;
		apply_qemu_group(out, a->kf, groups[i]);
		g_string_append_printf(quirks, "%s%s", quirks->len ? ";" : "", groups[i]);
	}
	g_strfreev(groups);
	out->quirks = g_string_free(quirks, FALSE);
	if (out->timeout <= 0) {
		conf_fail(err, a->path, "qemu", "timeout", "timeout must be a positive number of seconds");
		qemu_conf_clear(out);
		return -1;
	}
	return 0;
}

/* Would execvp() find @name on @path (a $PATH list)? */
static gboolean on_path(const char *name, const char *path)
{
	char **dirs;
	gboolean found = FALSE;

	if (strchr(name, '/'))
		return g_file_test(name, G_FILE_TEST_IS_REGULAR) && !access(name, X_OK);
	dirs = g_strsplit(path ? path : "", ":", -1);
	for (int i = 0; dirs[i] && !found; i++) {
		/* an empty entry is the current directory, as for execvp() */
		char *p = g_build_filename(*dirs[i] ? dirs[i] : ".", name, NULL);

		found = g_file_test(p, G_FILE_TEST_IS_REGULAR) && !access(p, X_OK);
		g_free(p);
	}
	g_strfreev(dirs);
	return found;
}

/*
 * Not a load-time check: `kmatrix conf` and the tools read arch.conf on
 * machines without QEMU.  A run checks before it lays or builds anything,
 * rather than finding out at the first boot an hour later.
 */
gboolean conf_check_qemu(const struct arch_conf *a, const char *path, GError **err)
{
	char **groups = g_key_file_get_groups(a->kf, NULL);
	gboolean ok = TRUE;

	for (int i = 0; groups[i] && ok; i++) {
		const char *g = groups[i];
		char *bin;

		if ((strcmp(g, "qemu") && strncmp(g, "qemu ", 5)) ||
		    !g_key_file_has_key(a->kf, g, "binary", NULL))
			continue;
		bin = get_str(a->kf, g, "binary");
		if (!*bin)
			ok = conf_fail(err, a->path, g, "binary", "[%s]: 'binary' is empty", g);
		else if (!on_path(bin, path))
			ok = conf_fail(err, a->path, g, "binary",
				       "[%s]: QEMU binary %s not found%s (tools/setup-host "
				       "installs the arch's host_packages)", g, bin,
				       strchr(bin, '/') ? "" : " on PATH");
		g_free(bin);
	}
	g_strfreev(groups);
	return ok;
}

void qemu_conf_clear(struct qemu_conf *q)
{
	g_free(q->binary);
	g_free(q->machine);
	g_free(q->cpu);
	g_free(q->memory);
	g_free(q->console);
	g_free(q->append);
	g_free(q->quirks);
	memset(q, 0, sizeof(*q));
}

gboolean conf_pick(const char *opt, const char *arg, const char *const *known,
		   char ***out, GError **err)
{
	g_auto(GStrv) l = arg ? g_strsplit_set(arg, ",;", -1) : NULL;
	g_autoptr(GPtrArray) a = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *valid = g_strjoinv(", ", (char **)known);

	*out = NULL;
	if (!arg)
		return TRUE;
	for (int i = 0; l[i]; i++) {
		if (!*g_strstrip(l[i]))
			continue;
		if (!g_strv_contains(known, l[i])) {
			g_set_error(err, CONF_ERROR, 2, "%s: unknown '%s' (valid: %s)",
				    opt, l[i], valid);
			return FALSE;
		}
		g_ptr_array_add(a, g_strdup(l[i]));
	}
	if (!a->len) {
		g_set_error(err, CONF_ERROR, 2, "%s: no name given (valid: %s)", opt, valid);
		return FALSE;
	}
	g_ptr_array_add(a, NULL);
	*out = (char **)g_ptr_array_steal(a, NULL);
	return TRUE;
}

static char **names_of(GPtrArray *list, size_t name_off)
{
	char **n = g_new0(char *, list->len + 1);

	for (guint i = 0; i < list->len; i++)
		n[i] = g_strdup(*(char **)((char *)list->pdata[i] + name_off));
	return n;
}

char **conf_version_names(const struct matrix_conf *m)
{
	return names_of(m->versions, G_STRUCT_OFFSET(struct version_conf, name));
}

char **conf_arch_names(const struct matrix_conf *m)
{
	return names_of(m->arches, G_STRUCT_OFFSET(struct arch_conf, name));
}
