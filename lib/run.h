/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Child processes, for kmatrix and rlimit-abi alike: every tool they run
 * (git, tar, make, the initramfs packer, QEMU, cpp) goes through here.  A child runs in its own process group
 * with its output in a log file and an optional time limit; on timeout, on
 * a watch callback's request or on SIGINT/SIGTERM the whole group is killed.
 * Several children may run at once (a boot beside a build); waiting for one
 * keeps polling the others, so every time limit holds.
 */
#ifndef KMATRIX_RUN_H
#define KMATRIX_RUN_H

#include <stdbool.h>
#include <sys/types.h>
#include <glib.h>

/*
 * What children cost: CPU seconds (user + system) and the peak resident
 * memory of the largest single process.  Both come from wait4(), which
 * counts a child together with every descendant it waited for (make's
 * compilers, ccache's gcc), so a stage's figure covers its whole tree.
 */
struct usage {
	double cpu;
	long maxrss_kb;
};

struct child;
/* Return a reason to kill the child now, or NULL to let it run. */
typedef const char *(*child_watch_fn)(struct child *c, void *data);

struct child {
	/* filled in by the caller */
	char **argv;
	char **env;		/* whole environment; NULL inherits ours */
	const char *cwd;	/* NULL: ours */
	const char *log;	/* stderr (and stdout unless out) appended; NULL: /dev/null */
	const char *out;	/* stdout, truncated; NULL: same as log */
	double timeout;		/* seconds; 0: none */
	off_t max_file;		/* RLIMIT_FSIZE: no file it writes grows past this; 0: none */
	child_watch_fn watch;
	void *watch_data;
	struct usage *usage;	/* where its usage is added; NULL: the current sink */

	/* filled in by run_start() and run_wait() */
	pid_t pid;
	gint64 started;		/* monotonic, microseconds */
	gint64 kill_at;		/* when to escalate to SIGKILL; 0: not killing */
	gint64 reaped_at;	/* monotonic; 0 while it runs */
	double elapsed;		/* seconds, once done */
	int status;		/* wait status, once done */
	bool done;
	bool timed_out;
	bool interrupted;	/* killed because we got SIGINT/SIGTERM */
	const char *killed_by;	/* the watch callback's reason */
	struct usage used;	/* its own and its tree's (orphans too), once done */
	struct usage *into;	/* where used is added when it is reaped */
};

/*
 * From now on every child's argv goes through @fn (kmatrix's sandbox,
 * matrix/host/sandbox.h): it returns the argv to run, a new strv.  A
 * wrapped child gives up the terminal and ignores SIGTERM, which the
 * wrapper resets for the command.  NULL: children run as they are.
 */
typedef char **(*run_wrap_fn)(const void *data, char **argv, const char *cwd);
void run_set_wrap(run_wrap_fn fn, const void *data);
/*
 * The name a child that cannot start (no such program, no cwd) writes
 * its reason under: "<name>: cannot run make: ...".  Default: the GLib
 * program name, else "run".
 */
void run_set_name(const char *name);

/* Catch SIGINT and SIGTERM: kill every running child's group. */
void run_signals_install(void);
/* The signal that asked us to stop, or 0. */
int run_stop_signal(void);

int run_start(struct child *c);
/*
 * Wait for @c, polling every other running child meanwhile.  Returns the
 * exit code, 128+signal when killed by a signal, or -1 when killed by us
 * (timeout, watch, interruption) or when it could not be started.
 */
int run_wait(struct child *c);
int run_command(struct child *c);
/* Reap whatever has finished and enforce limits, without blocking. */
void run_poll(void);
/* Kill every running child's group and wait for them. */
void run_kill_all(void);

/*
 * Children started from now on without their own usage add it to @u (NULL:
 * nowhere); returns the previous sink, to be put back.
 */
struct usage *run_usage_sink(struct usage *u);
void usage_add(struct usage *to, const struct usage *u);
/* Our own CPU seconds and peak memory so far (in-process stages). */
void usage_self(struct usage *u);

/* Called on every poll while waiting (the progress line). */
void run_set_tick(void (*fn)(void));

/*
 * run_command() with @c's stdout (or, with @log, its log) in a temporary
 * file; *@text is what it wrote there, NULL when nothing could be read.
 * Returns run_command()'s result, -1 when no temporary file could be made.
 */
int run_into_temp(struct child *c, bool log, char **text);

/*
 * run_command() with @c's stdout in *@out and its stderr in *@err, each
 * NULL when it could not be read; a stream whose pointer is NULL is
 * dropped.  Returns run_command()'s result, -1 when no temporary file
 * could be made.
 */
int run_output(struct child *c, char **out, char **err);

/* Run argv in cwd and return its stdout with trailing whitespace cut, or NULL. */
char *run_capture(char **argv, const char *cwd, char **env);

/* "exit 2", "killed by signal 9", "timed out after 300 s", ... */
char *run_describe(const struct child *c);

#endif
