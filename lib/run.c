// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"

#define MAX_CHILDREN 16
#define POLL_US 20000
#define KILL_GRACE_US (2 * G_USEC_PER_SEC)
/* How long a reaped child's process group may take to empty. */
#define SETTLE_US (G_USEC_PER_SEC / 2)
#define SETTLE_POLL_US 1000

static struct child *live[MAX_CHILDREN];
/* The signal handler only reads this copy: plain pids, no pointers. */
static volatile pid_t live_pids[MAX_CHILDREN];
static volatile sig_atomic_t stop_signal;
static void (*tick)(void);
static struct usage *sink;
static run_wrap_fn wrap;
static const void *wrap_data;
static const char *name;

void run_set_wrap(run_wrap_fn fn, const void *data)
{
	wrap = fn;
	wrap_data = data;
}

void run_set_name(const char *prog)
{
	name = prog;
}

/* The prefix of what a child that could not start writes to its log. */
static const char *prog_name(void)
{
	if (!name)
		name = g_get_prgname() ? g_get_prgname() : "run";
	return name;
}

void run_set_tick(void (*fn)(void))
{
	tick = fn;
}

struct usage *run_usage_sink(struct usage *u)
{
	struct usage *prev = sink;

	sink = u;
	return prev;
}

void usage_add(struct usage *to, const struct usage *u)
{
	to->cpu += u->cpu;
	to->maxrss_kb = MAX(to->maxrss_kb, u->maxrss_kb);
}

static double tv_seconds(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

static void usage_from(struct usage *u, const struct rusage *ru)
{
	u->cpu = tv_seconds(ru->ru_utime) + tv_seconds(ru->ru_stime);
	u->maxrss_kb = ru->ru_maxrss;
}

static void usage_add_rusage(struct usage *u, const struct rusage *ru)
{
	struct usage r;

	usage_from(&r, ru);
	usage_add(u, &r);
}

void usage_self(struct usage *u)
{
	struct rusage ru;

	memset(u, 0, sizeof(*u));
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		usage_from(u, &ru);
}

static void on_stop(int sig)
{
	stop_signal = sig;
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (live_pids[i] > 0)
			kill(-live_pids[i], SIGTERM);
}

void run_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int run_stop_signal(void)
{
	return stop_signal;
}

static void redirect(const char *path, int fd, int flags)
{
	int f;

	/* Our own stdout or stderr, whoever may open the terminal device. */
	if (path && !strcmp(path, "/dev/stderr")) {
		dup2(STDERR_FILENO, fd);
		return;
	}
	if (path && !strcmp(path, "/dev/stdout")) {
		dup2(STDOUT_FILENO, fd);
		return;
	}
	f = open(path ? path : "/dev/null", flags, 0644);

	if (f < 0) {
		dprintf(STDERR_FILENO, "%s: cannot open %s: %s\n", prog_name(), path, strerror(errno));
		_exit(127);
	}
	dup2(f, fd);
	close(f);
}

/*
 * A wrapped (sandboxed) child must not reach the terminal we were started from
 * (TIOCSTI would type commands into the user's shell): give it up.
 */
static void drop_terminal(void)
{
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return;
	ioctl(fd, TIOCNOTTY);
	close(fd);
}

/*
 * The kernel refuses a write past the limit (EFBIG, SIGXFSZ), however
 * fast the child writes and whether or not kmatrix gets to poll.
 */
static void limit_files(off_t max)
{
	struct rlimit rl = { .rlim_cur = max, .rlim_max = max };

	if (max > 0 && setrlimit(RLIMIT_FSIZE, &rl) < 0) {
		dprintf(STDERR_FILENO, "%s: cannot limit file size: %s\n", prog_name(), strerror(errno));
		_exit(127);
	}
}

static void __attribute__((noreturn)) child_exec(struct child *c, char **argv, pid_t parent)
{
	int append = O_WRONLY | O_CREAT | O_APPEND;

	setpgid(0, 0);
	limit_files(c->max_file);
	signal(SIGINT, SIG_DFL);
	/*
	 * A wrapper (kmatrix's bwrap) would die of the group's SIGTERM at
	 * once and take the command down with SIGKILL, before make or git
	 * could clean up their half-written files and locks: it ignores
	 * SIGTERM (it resets it for the command) and ends when the command
	 * does.
	 */
	signal(SIGTERM, wrap ? SIG_IGN : SIG_DFL);
	/* If kmatrix dies without cleaning up, its direct children go too. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* It died (kill -9) before that: nothing would stop the command. */
	if (getppid() != parent)
		_exit(127);
	if (wrap)
		drop_terminal();
	redirect("/dev/null", STDIN_FILENO, O_RDONLY);
	redirect(c->log, STDERR_FILENO, append);
	if (c->out)
		redirect(c->out, STDOUT_FILENO, O_WRONLY | O_CREAT | O_TRUNC);
	else
		dup2(STDERR_FILENO, STDOUT_FILENO);
	if (c->cwd && chdir(c->cwd) < 0) {
		dprintf(STDERR_FILENO, "%s: cannot enter %s: %s\n", prog_name(), c->cwd, strerror(errno));
		_exit(127);
	}
	if (c->env)
		execvpe(argv[0], argv, c->env);
	else
		execvp(argv[0], argv);
	dprintf(STDERR_FILENO, "%s: cannot run %s: %s\n", prog_name(), argv[0], strerror(errno));
	_exit(127);
}

static int slot_add(struct child *c)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (!live[i]) {
			live[i] = c;
			return i;
		}
	return -1;
}

static void slot_del(struct child *c)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (live[i] == c) {
			live[i] = NULL;
			live_pids[i] = 0;
		}
}

int run_start(struct child *c)
{
	static bool subreaper;
	int slot = slot_add(c);
	pid_t pid, self = getpid();
	char **argv;

	if (!subreaper)
		subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;

	c->done = c->timed_out = c->interrupted = false;
	c->killed_by = NULL;
	c->kill_at = 0;
	c->reaped_at = 0;
	memset(&c->used, 0, sizeof(c->used));
	c->into = c->usage ? c->usage : sink;
	c->started = g_get_monotonic_time();
	if (slot < 0 || stop_signal) {
		slot_del(c);
		c->done = true;
		c->interrupted = stop_signal != 0;
		c->status = -1;
		return -1;
	}
	/* Every child, whatever the stage, runs in the wrapper once it is set. */
	argv = wrap ? wrap(wrap_data, c->argv, c->cwd) : g_strdupv(c->argv);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		g_strfreev(argv);
		slot_del(c);
		c->done = true;
		c->status = -1;
		return -1;
	}
	if (pid == 0)
		child_exec(c, argv, self);
	g_strfreev(argv);
	/* Both sides set the group, so no signal can find the child outside it. */
	setpgid(pid, pid);
	c->pid = pid;
	live_pids[slot] = pid;
	/* A signal that came before the pid was visible to the handler. */
	if (stop_signal)
		kill(-pid, SIGTERM);
	return 0;
}

static void begin_kill(struct child *c, gint64 now)
{
	if (c->kill_at)
		return;
	kill(-c->pid, SIGTERM);
	c->kill_at = now + KILL_GRACE_US;
}

static void check_limits(struct child *c, gint64 now)
{
	const char *why;

	if (stop_signal && !c->interrupted) {
		c->interrupted = true;
		begin_kill(c, now);
	}
	if (c->timeout > 0 && !c->timed_out &&
	    now - c->started > c->timeout * G_USEC_PER_SEC) {
		c->timed_out = true;
		begin_kill(c, now);
	}
	if (c->watch && !c->killed_by && !c->kill_at) {
		why = c->watch(c, c->watch_data);
		if (why) {
			c->killed_by = why;
			begin_kill(c, now);
		}
	}
	if (c->kill_at && now > c->kill_at)
		kill(-c->pid, SIGKILL);
}

/*
 * The child itself has ended.  Its group may not have: bwrap's outer
 * process exits as soon as its init reports the command's status, and
 * that init, which waited for the command and everything under it, is
 * reparented to kmatrix (a subreaper) and exits a moment later.  Its
 * usage is the command's, so the child is done only when its group is
 * empty (or after SETTLE_US, for a process left running on purpose).
 */
static void reap(struct child *c, int status, const struct rusage *ru, gint64 now)
{
	/* Killed by the handler before a poll saw the signal: still ours. */
	if (stop_signal)
		c->interrupted = true;
	c->status = status;
	c->reaped_at = now;
	c->elapsed = (now - c->started) / (double)G_USEC_PER_SEC;
	usage_add_rusage(&c->used, ru);
	/* Whatever the killed leader left behind in its group goes too. */
	if (c->kill_at || WIFSIGNALED(status))
		kill(-c->pid, SIGKILL);
}

static void settle(struct child *c, gint64 now)
{
	if (kill(-c->pid, 0) == 0 && now - c->reaped_at < SETTLE_US)
		return;
	if (c->into)
		usage_add(c->into, &c->used);
	slot_del(c);
	c->done = true;
}

static struct child *find_live(pid_t pid)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (live[i] && live[i]->pid == pid)
			return live[i];
	return NULL;
}

/*
 * Reap one finished process: a child, or a descendant of one that was
 * reparented to kmatrix, whose usage is then its child's (by process
 * group, read before the zombie is gone).  False when none has finished.
 */
static bool reap_one(gint64 now)
{
	siginfo_t si = { 0 };
	struct rusage ru;
	struct child *c;
	pid_t pgid;
	int status;

	if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || !si.si_pid)
		return false;
	pgid = getpgid(si.si_pid);
	if (wait4(si.si_pid, &status, 0, &ru) != si.si_pid)
		return false;
	c = find_live(si.si_pid);
	if (c && !c->reaped_at)
		reap(c, status, &ru, now);
	else if (pgid > 0 && (c = find_live(pgid)))
		usage_add_rusage(&c->used, &ru);
	return true;
}

void run_poll(void)
{
	gint64 now = g_get_monotonic_time();

	/* As a subreaper, kmatrix also inherits what a killed child left behind. */
	while (reap_one(now))
		;
	for (int i = 0; i < MAX_CHILDREN; i++) {
		if (!live[i])
			continue;
		if (live[i]->reaped_at)
			settle(live[i], now);
		else
			check_limits(live[i], now);
	}
}

int run_wait(struct child *c)
{
	while (!c->done) {
		run_poll();
		if (!c->done)
			g_usleep(c->reaped_at ? SETTLE_POLL_US : POLL_US);
		if (tick)
			tick();
	}
	if (c->status < 0 || c->timed_out || c->interrupted || c->killed_by)
		return -1;
	if (WIFEXITED(c->status))
		return WEXITSTATUS(c->status);
	return 128 + WTERMSIG(c->status);
}

int run_command(struct child *c)
{
	if (run_start(c) < 0)
		return -1;
	return run_wait(c);
}

void run_kill_all(void)
{
	gint64 now = g_get_monotonic_time();
	bool any;

	for (int i = 0; i < MAX_CHILDREN; i++)
		if (live[i])
			begin_kill(live[i], now);
	do {
		any = false;
		run_poll();
		for (int i = 0; i < MAX_CHILDREN; i++)
			any |= live[i] != NULL;
		if (any)
			g_usleep(POLL_US);
	} while (any);
}

/* An empty temporary file's path, or NULL. */
static char *temp_file(void)
{
	char *tmp = NULL;
	int fd = g_file_open_tmp("run-XXXXXX", &tmp, NULL);

	if (fd < 0)
		return NULL;
	close(fd);
	return tmp;
}

/* What @path holds (NULL when unreadable); the file is removed. */
static char *take_temp(char *path)
{
	char *text = NULL;

	if (path && !g_file_get_contents(path, &text, NULL, NULL))
		text = NULL;
	if (path)
		unlink(path);
	g_free(path);
	return text;
}

int run_into_temp(struct child *c, bool log, char **text)
{
	char *tmp = temp_file();
	int rc;

	*text = NULL;
	if (!tmp)
		return -1;
	if (log)
		c->log = tmp;
	else
		c->out = tmp;
	rc = run_command(c);
	if (log)
		c->log = NULL;
	else
		c->out = NULL;
	*text = take_temp(tmp);
	return rc;
}

int run_output(struct child *c, char **out, char **err)
{
	char *o = out ? temp_file() : NULL, *e = err ? temp_file() : NULL;
	int rc = -1;

	if ((!out || o) && (!err || e)) {
		/* a stream not asked for is dropped, not mixed into the other */
		c->out = o ? o : "/dev/null";
		c->log = e;
		rc = run_command(c);
		c->out = c->log = NULL;
	}
	if (out)
		*out = take_temp(o);
	else
		g_free(o);
	if (err)
		*err = take_temp(e);
	else
		g_free(e);
	return rc;
}

char *run_capture(char **argv, const char *cwd, char **env)
{
	char *text;
	struct child c = { .argv = argv, .cwd = cwd, .env = env };

	if (run_into_temp(&c, false, &text) == 0 && text)
		g_strchomp(text);
	else
		g_clear_pointer(&text, g_free);
	return text;
}

char *run_describe(const struct child *c)
{
	if (c->interrupted)
		return g_strdup_printf("interrupted by signal %d", stop_signal);
	if (c->timed_out)
		return g_strdup_printf("timed out after %.0f s", c->timeout);
	if (c->killed_by)
		return g_strdup(c->killed_by);
	if (c->status < 0)
		return g_strdup_printf("could not be started");
	if (WIFEXITED(c->status))
		return g_strdup_printf("exit %d", WEXITSTATUS(c->status));
	return g_strdup_printf("killed by signal %d (%s)", WTERMSIG(c->status),
			       strsignal(WTERMSIG(c->status)));
}
