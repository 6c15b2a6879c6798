/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rlimit-abi: the rlimit numbers user space sees, for every architecture of
 * one or more kernel trees, and the checks that they are right and never
 * move.  One file per stage: tree (resolve and hash), install (the uapi
 * headers as headers_install would install them), extract (cpp), libc
 * (glibc's numbering), check, output (table and JSON), cache.
 */
#ifndef RLIMIT_ABI_H
#define RLIMIT_ABI_H

#include <stdbool.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <jansson.h>

#define ABI_SCHEMA "rlimit-abi/1"

/* One macro of the installed asm/resource.h. */
struct abi_sym {
	char *name;
	char *expr; /* after macro expansion */
	guint64 value; /* evaluated as a host C expression */
	char *file; /* source file of the definition, relative to the tree */
};

enum abi_state {
	ABI_OK,
	ABI_NO_HEADER, /* headers_install installs no asm/resource.h */
	ABI_NOT_EXPORTABLE, /* the tree refuses headers_install for it */
	ABI_ERROR,
};

struct abi_arch {
	char *name; /* directory under arch/ */
	char *hdr_arch; /* arch whose uapi headers are installed */
	enum abi_state state;
	char *detail; /* why not ABI_OK */
	/* struct abi_sym: RLIMIT_*, RLIM_NLIMITS, RLIM_INFINITY */
	GPtrArray *syms;
	GArray *init_idx; /* gint64 designators of INIT_RLIMITS */
	GArray *lnames_idx; /* gint64 designators of fs/proc/base.c lnames */
	char *init_err;
	char *lnames_err;
};

struct abi_tree {
	char *spec; /* as given on the command line */
	char *label; /* short name for messages and tables */
	char *src; /* directory holding the sources */
	char *hash; /* cache key */
	char *git_dir; /* DIR of a DIR@REV */
	char *rev; /* REV of a DIR@REV */
	bool baseline;
	bool cached;
	double seconds;
	GPtrArray *arches; /* struct abi_arch */
};

struct abi_libc {
	char *arch; /* kernel arch */
	char *triple;
	char *detail; /* why it was skipped, or NULL */
	GPtrArray *syms; /* struct abi_sym */
};

struct abi_finding {
	char *check;
	char *tree;
	char *arch;
	char *symbol;
	char *file;
	char *message;
};

/*
 * spawn.c: run argv (found in PATH) in cwd, env the whole environment
 * (NULL: ours).  Returns its exit code (127 when it could not start, the
 * reason in err), or -1 when it died of a signal.  out and err, when not
 * NULL, receive what it printed, never NULL.
 */
int abi_run(char **argv, const char *cwd, char **out, char **err);
int abi_run_env(char **argv, char **env, const char *cwd, char **out,
		char **err);

/* tree.c */
struct abi_tree *abi_tree_open(const char *spec, bool baseline,
			       const char *cache, GError **error);
void abi_tree_free(struct abi_tree *t);
bool abi_tree_materialize(struct abi_tree *t, GError **error);
GPtrArray *abi_tree_arch_names(const char *src);

/* install.c */
bool abi_install_arch(const char *src, const char *work, const char *arch,
		      struct abi_arch *a, GHashTable *origin);
char *abi_unifdef(const char *src, const char *work, GError **error);

/* extract.c */
struct abi_sym *abi_sym_new(const char *name, const char *expr,
			    const char *file);
void abi_sym_free(struct abi_sym *s);
struct abi_sym *abi_arch_sym(const struct abi_arch *a, const char *name);
bool abi_is_rlimit_name(const char *name);
GHashTable *abi_parse_defines(const char *dm);
GHashTable *abi_parse_def_files(const char *dd);
GHashTable *abi_parse_expansions(const char *e);
bool abi_parse_literal(const char *expr, guint64 *value);
bool abi_designators(const char *init, GPtrArray *exprs, char **err);
char *abi_c_initializer(const char *source, const char *decl);
bool abi_eval(GPtrArray *exprs, guint64 *values, char **err);
bool abi_extract_arch(const char *src, const char *work, struct abi_arch *a,
		      GHashTable *origin);
bool abi_extract_kernel(const char *src, const char *work, struct abi_arch *a);
struct abi_arch *abi_arch_new(const char *name);
void abi_arch_free(struct abi_arch *a);

/* libc.c */
GPtrArray *abi_libc_scan(const char *cache);
void abi_libc_free(struct abi_libc *l);

/* check.c */
void abi_finding_free(struct abi_finding *f);
void abi_check_arch(const struct abi_tree *t, const struct abi_arch *a,
		    GPtrArray *out);
void abi_check_trees(GPtrArray *trees, GPtrArray *out);
void abi_check_libc(const struct abi_tree *t, GPtrArray *libcs, GPtrArray *out);
bool abi_finding_marks(GPtrArray *findings, const char *tree, const char *arch,
		       const char *sym);

/* output.c */
json_t *abi_arch_to_json(const struct abi_arch *a);
struct abi_arch *abi_arch_from_json(const char *name, json_t *o);
char *abi_table(const struct abi_tree *t, GPtrArray *findings);
json_t *abi_report_json(GPtrArray *trees, GPtrArray *libcs,
			GPtrArray *findings);
const char *abi_state_name(enum abi_state s);

#endif
