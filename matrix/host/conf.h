/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The matrix definition: matrix/matrix.conf and arch-configs/<arch>/arch.conf
 * (formats in matrix/DESIGN.md).  Every error names the file and line.
 */
#ifndef KMATRIX_CONF_H
#define KMATRIX_CONF_H

#include <glib.h>

struct version_conf {
	char *name;		/* "7.2" */
	char *package;		/* linux-source-7.2; NULL for a git tree */
	char *tarball;
	char *git;		/* a maintainer's repository (absolute), or NULL */
	char *ref;		/* its tag, branch or commit: the stock step */
	char *baseline;		/* absolute directory */
	char *series;		/* absolute directory holding `order` */
};

struct arch_conf {
	char *name;		/* directory name under the arch-configs directory */
	char *path;		/* arch.conf */
	char *kernel_arch;
	char *cross_compile;
	char *guest_cc;
	char *debian_arch;
	char *image;
	char *image_target;
	char *fragment;		/* absolute path */
	char *init;		/* guest init to pack; NULL: guest-tests/init */
	char *triplet;		/* multiarch directory of the guest's libraries */
	char *userland;		/* "debian" (busybox, clients) or "none" */
	char *compat;		/* compat suite name ("i386"), "" if none */
	char *compat_cc;	/* its compiler, "" if none */
	char *uapi_arch;	/* arch/<dir> of the uapi the guest binary uses */
	char *compat_uapi_arch;	/* the same for the compat binary */
	char **skip;		/* globs of cases this arch's guest always skips */
	char *host_packages;	/* space-separated; tools/setup-host installs them */
	char *guest_packages;	/* the same, fetched for the guest's root */
	GKeyFile *kf;		/* kept for the [qemu version...] quirks */
};

/* QEMU settings of one arch for one kernel version, quirks applied. */
struct qemu_conf {
	char *binary;
	char *machine;
	char *cpu;
	char *memory;
	char *console;
	char *append;
	int timeout;		/* seconds for one boot and its tests */
	char *quirks;		/* matching quirk groups, ';'-joined; "" if none */
};

/* An arch whose headers rlimit-abi checks but that no cell boots. */
struct headers_only {
	char *arch;		/* rlimit-abi's arch name ("alpha") */
	char *reason;		/* why it is not booted */
};

/*
 * A version x arch that cannot be run, with why and the log that shows it.
 * It holds for the stock tree it was recorded on (stock_tree, when given):
 * a new tree runs the cells again rather than hiding a fix.
 */
struct exclusion {
	char *version, *arch;
	char *reason;
	char *evidence;		/* absolute path of the log excerpt */
	char *stock_tree;	/* git tree id of step/stock, or NULL */
	int line;		/* of its group in matrix.conf */
};

struct matrix_conf {
	char *path;
	char *top;		/* project directory */
	char *expectations;	/* absolute path */
	char *arch_configs;	/* directory of <arch>/arch.conf, absolute */
	GPtrArray *versions;	/* struct version_conf * */
	GPtrArray *arches;	/* struct arch_conf * */
	GPtrArray *headers_only;	/* struct headers_only * */
	GPtrArray *exclusions;	/* struct exclusion * */
};

struct matrix_conf *conf_load(const char *top, const char *path, GError **err);
/* A verb's matrix: @matrix (its --matrix), else @top's matrix/matrix.conf. */
struct matrix_conf *conf_open(const char *top, const char *matrix, GError **err);
void conf_free(struct matrix_conf *m);
struct arch_conf *arch_conf_load(const char *path, const char *name,
				 GError **err);
void arch_conf_free(struct arch_conf *a);

struct version_conf *conf_version(const struct matrix_conf *m, const char *v);

/*
 * The names a list option gives (--versions LIST: ',' or ';' between
 * them), each checked against @known.  *@out is NULL when @arg is NULL
 * (every name).  FALSE with @err naming @opt, the value and the valid
 * names when @arg holds no name or one that is not in @known.
 */
gboolean conf_pick(const char *opt, const char *arg, const char *const *known,
		   char ***out, GError **err);
/* The names of @m's versions and of its arches, for conf_pick(). */
char **conf_version_names(const struct matrix_conf *m);
char **conf_arch_names(const struct matrix_conf *m);
/* --tree V=PATH@REF (and --series DIR): V's tree from a git repository. */
struct version_conf *conf_add_tree(struct matrix_conf *m, const char *spec,
				   const char *series, gboolean need_backport, GError **err);
struct arch_conf *conf_arch(const struct matrix_conf *m, const char *a);
/* The exclusion of @v x @a, or NULL. */
const struct exclusion *conf_excluded(const struct matrix_conf *m, const char *v,
				      const char *a);

int conf_qemu(const struct arch_conf *a, const char *version,
	      struct qemu_conf *out, GError **err);
void qemu_conf_clear(struct qemu_conf *q);
/*
 * Every QEMU binary @a names ([qemu] and its quirk groups) must be an
 * executable found on @path (a $PATH list), as the boot's execvp() looks
 * for it; else FALSE, @err naming the line of that `binary` key.
 */
gboolean conf_check_qemu(const struct arch_conf *a, const char *path, GError **err);

/* 1-based line of the first NUL byte of a data file's @text; 0 if none. */
int text_nul_line(const char *text, gsize len);

/* Compare dotted version strings numerically ("5.10" > "5.9"). */
int version_cmp(const char *a, const char *b);

/* Does "version<5.12" / "version>=6.1,<7" hold for @version?  -1: malformed. */
int version_range_match(const char *range, const char *version);

/* 1-based line of [group] (key NULL) or of key in group; 0 if not found. */
int conf_line(const char *path, const char *group, const char *key);

#endif
