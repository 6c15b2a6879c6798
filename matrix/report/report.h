/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmatrix report: the per-cell results of a run as markdown, HTML, JUnit
 * XML, JSON or KCIDB (KernelCI), with the trend against an earlier run,
 * the backports' drift from the canonical series and rlimit-abi's table.
 * Each format is one file (report-<format>.c) rendering the model built
 * by report.c, walked the same way for every format by report-walk.c.
 */
#ifndef KMATRIX_REPORT_H
#define KMATRIX_REPORT_H

#include <stdbool.h>
#include <glib.h>
#include <jansson.h>

#define REPORT_SCHEMA "kmatrix-report/1"

/* One planned cell and what the results directory holds for it. */
struct rcell {
	char *id;		/* "<version>/<arch>/<step>" */
	char *version, *arch, *step;
	json_t *res;		/* the validated result, NULL when missing */
	char *missing;		/* why there is no usable result, or NULL */
	const char *verdict;	/* res's verdict, or "missing" */
	bool met;
	double total;		/* seconds over every stage */
	/*
	 * The first step of this version x arch that did not apply, when this
	 * later step is apply-failed only because of it (report_tally).
	 */
	const struct rcell *knock_of;
};

struct run {
	char *dir;		/* results directory, or the report.json read */
	json_t *meta;		/* run.json (kmatrix-run/1), or NULL */
	char *meta_error;	/* why run.json is not usable, or NULL */
	GPtrArray *versions, *arches, *steps;	/* char *, in order */
	GPtrArray *cells;	/* struct rcell *, versions x arches x steps */
	GHashTable *by_id;	/* id -> struct rcell * */
};

struct timing_change {
	const struct rcell *cell;
	double before, after;
	const char *stage;	/* the stage that moved most */
	double stage_before, stage_after;
};

struct trend {
	char *against;		/* what we compared with */
	double share;		/* timing changes above this share are listed */
	GPtrArray *new_departures;	/* struct rcell * (of the current run) */
	GPtrArray *fixed;		/* struct rcell * */
	GPtrArray *still;		/* departed in both runs */
	GPtrArray *timing;		/* struct timing_change * */
	GPtrArray *new_versions;	/* char *: rows the earlier run did not have */
	GPtrArray *new_arches;
	GHashTable *before;		/* id -> verdict in the earlier run */
};

enum drift_state { DRIFT_CANONICAL, DRIFT_COMPARED, DRIFT_UNAVAILABLE };

struct drift_patch {
	char *status;		/* "identical", "adapted", "missing", "extra" */
	int lines;		/* adapted: changed code lines in the diff of diffs */
	int message_lines;	/* adapted: changed commit message lines */
	char *canonical;	/* "1: abc1234" or NULL for extra */
	char *backport;		/* "1: def5678" or NULL for missing */
	char *subject;
};

struct drift {
	char *version;
	enum drift_state state;
	char *note;		/* DRIFT_UNAVAILABLE: why, from the results; else the ranges */
	GPtrArray *patches;	/* struct drift_patch * */
};

/* report-summary.c: can this go out?  Exit codes of status and summary. */
enum report_gate {
	GATE_SHIP = 0,		/* every planned cell met */
	GATE_BLOCKED = 1,	/* some cell did not meet its expectation */
	GATE_INCOMPLETE = 3,	/* none departed, but results are missing or stale */
};

/* tests/mutants/run.sh's score.json, validated (report-mutants.c) */
struct mutants {
	char *file;
	json_t *doc;
	int killed, total;
	GPtrArray *survivors, *defects;	/* char *: "<mutant> (<arch>)" */
};

struct report {
	struct run *run;
	struct trend *trend;	/* NULL without --against */
	GPtrArray *drift;	/* struct drift * */
	struct mutants *mutants;	/* NULL without a score */
	/* counts over run->cells */
	int planned, with_result, met, departed, missing;
	int knock_on;		/* not run because an earlier step did not apply */
	int stale;		/* met results that will not stand (result_stale) */
	/* the one verdict every format heads with (report_tally) */
	enum report_gate gate;
	/* kcidb: --origin, --log-base (NULL: file:// URLs), the cache */
	const char *origin, *log_base;
	char *cache;
	/* where the report is written: relative log links start there */
	const char *link_from;
};

/* report.c: the model and what every format shares */
extern const char *const report_stages[];
struct verdict_style {
	const char *verdict;
	const char *label;	/* short, for the grid */
	const char *bg, *fg;	/* HTML colours */
	const char *junit;	/* "failure" or "error" */
};
const struct verdict_style *report_style(const char *verdict);
struct run *run_load(const char *dir, GError **err);
void run_free(struct run *run);
const char *jstr(json_t *o, const char *key);
double jnum(json_t *o, const char *key);
double cell_stage(const struct rcell *c, const char *stage);
char *report_clean(const char *s);
char *report_log_excerpt(const struct report *r, const struct rcell *c,
			 int max_lines, char **which);
void report_summary_counts(const struct report *r, GString *out);
/*
 * The exact kernel of @version as the results record it: "linux-source-6.1
 * 6.1.158-1, Linux 6.1.158" from a result's "kernel", else the package
 * from the stock commit's subject (older results), else "not recorded".
 */
char *report_kernel_of(const struct run *run, const char *version);
/*
 * The logs of @c in the results directory, as links: --log-base plus the
 * path under the results, else a path relative to r->link_from.  A new
 * array of struct report_link *, empty when there are none.
 */
struct report_link {
	char *name;	/* "6.1/x86_64/uapi.apply.log" */
	char *href;
};
GPtrArray *report_log_links(const struct report *r, const struct rcell *c);
char *report_short(const char *sha);

/* A table of text every format renders its own way. */
struct report_table {
	char *title;
	GPtrArray *cols;	/* char * */
	GPtrArray *rows;	/* GPtrArray * of char *, one per column */
};

/* A list of objects as a table, object members spread over "key.member". */
void report_abi_list(GPtrArray *out, const char *title, json_t *list);
/* rlimit-abi's block of run.json as tables in words (report-abi.c) */
GPtrArray *report_abi_tables(json_t *abi);
/*
 * report-abi.c: the ABI section's tables, the booted suites' runtime
 * numbering first, then rlimit-abi's; NULL when there is neither.
 */
GPtrArray *report_abi_section(const struct report *r);
char *report_jtext(json_t *v);
const char *report_log_kind(const char *verdict);

/* report-walk.c: what every renderer walks the same way */
struct rcell *run_cell_at(const struct run *run, guint v, guint a, guint s);
/* run.json's exclusion of the grid's row @v x @a, or NULL. */
json_t *run_excluded_at(const struct run *run, guint v, guint a);
/* The exclusions of the run, [] when none (run.json's "excluded"). */
json_t *run_excluded(const struct run *run);
enum report_pick {
	REPORT_DEPARTED,	/* a result that did not meet its expectation, no knock-on */
	REPORT_MISSING,		/* no usable result */
	REPORT_UNMET,		/* either (knock-ons go with their root) */
};
typedef void (*report_cell_fn)(GString *out, const struct report *r,
			       const struct rcell *c);
/* @fn for each cell @pick selects, in grid order. */
void report_walk(GString *out, const struct report *r, enum report_pick pick,
		 report_cell_fn fn);
/* A knock-on cell's reason, "not run: uapi did not apply"; NULL for others. */
char *report_knock_text(const struct rcell *c);
/* The knock-on cells of @root, in step order (a new array of struct rcell *). */
GPtrArray *report_knock_ons(const struct report *r, const struct rcell *root);
/* The evidence lines joined by newlines; NULL when there are none. */
char *report_evidence(const struct rcell *c);
/* Cleaned, escaped text and attributes for HTML and JUnit XML. */
void xml_text(GString *out, const char *s);
void xml_attr(GString *out, const char *name, const char *s);
struct report_table *report_table_new(const char *title);
void report_table_free(struct report_table *t);
/* A compared backport's patches: canonical, backport, drift, subject. */
struct report_table *report_drift_table(const struct drift *d);

/* report-trend.c */
struct trend *trend_compute(const struct run *now, const char *against,
			    double share, GError **err);
void trend_free(struct trend *t);

/* report-drift.c */
/* The drift of the commits @run's results record (@cache's trees lend the objects). */
GPtrArray *drift_compute(const char *top, const char *cache, const struct run *run);
GPtrArray *drift_parse_range_diff(const char *text);
void drift_free(struct drift *d);

enum report_gate report_gate(int planned, int unmet, int missing, int stale);
/* "SHIP", "BLOCKED" or "INCOMPLETE" */
const char *report_gate_word(enum report_gate g);
/* Count the cells of r->run and decide r->gate, once, before any format. */
void report_tally(struct report *r);
/* The verdict and why, one line without its newline: every format's headline. */
void report_verdict_line(GString *out, const struct report *r);
int report_stale(const struct report *r);
int report_gate_status(const struct report *r);
void report_summary(GString *out, const struct report *r);

/* report-mutants.c: the mutation score beside, never inside, the verdict */
struct mutants *mutants_load(const char *path, GError **err);
void mutants_free(struct mutants *m);
/* "Mutation testing: N of M killed; SURVIVED: ..." without its newline */
void report_mutants_line(GString *out, const struct report *r);
/* A survivor or a mutant that did not build: say it prominently. */
bool report_mutants_alarm(const struct report *r);
struct report_table *report_mutants_table(const struct report *r);
/* report-audio.c: the audio user per version x arch, NULL without audio cases */
struct report_table *report_audio_table(const struct report *r);
json_t *report_mutants_json(const struct report *r);

/* renderers */
void report_md(GString *out, const struct report *r);
void report_html(GString *out, const struct report *r);
void report_junit(GString *out, const struct report *r);
void report_json(GString *out, const struct report *r);
json_t *report_json_value(const struct report *r);
void report_kcidb(GString *out, const struct report *r);
/* NULL when --origin and --log-base suit KCIDB, else why not */
char *report_kcidb_check(const char *origin, const char *log_base);

#endif
