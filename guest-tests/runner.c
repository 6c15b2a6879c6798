// SPDX-License-Identifier: GPL-2.0
/*
 * The case runner: one forked child per case, in its own session, with an
 * alarm, so a hang or a crash fails that case alone.  Whatever the case
 * left behind (helper processes, clients) is killed with its session.
 */
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "ktap_writer.h"
#include "runner.h"
#include "sched_util.h"

#define REASON_LEN 256

const char *step_group_name(enum step_group g)
{
	static const char *const names[] = {
		[G_ALL] = "all",
		[G_UAPI] = "uapi",
		[G_NICE] = "nice",
		[G_RTPRIO] = "rtprio",
	};

	return names[g];
}

void list_cases(const struct section *secs, size_t nsecs, FILE *out)
{
	size_t s, i;

	for (s = 0; s < nsecs; s++)
		for (i = 0; i < secs[s].n; i++)
			fprintf(out, "%s %s\n", secs[s].cases[i].name,
				step_group_name(secs[s].cases[i].group));
}

static bool selected(const char *name, char *const *globs)
{
	if (!globs || !*globs)
		return true;
	for (; *globs; globs++)
		if (fnmatch(*globs, name, 0) == 0)
			return true;
	return false;
}

static void child(const struct tcase *c, char *shared)
{
	enum case_status st;

	setsid();
	case_reset(shared, REASON_LEN);
	/*
	 * Every case starts from SCHED_OTHER at nice 0, whatever the runner
	 * was started with (a host shell may run at another nice).
	 */
	if (set_sched(0, SCHED_OTHER, 0) || set_nice(0))
		diag("could not reset to SCHED_OTHER nice 0: %m");
	alarm(CASE_TIMEOUT);
	st = c->run(c->arg);
	_exit(st);
}

/*
 * Kill the case's session and collect what the subreaper inherited.  The
 * pause is poll()'s: usleep on a 32-bit glibc needs the 32-bit time
 * syscalls a compat kernel may lack (CONFIG_COMPAT_32BIT_TIME).
 */
static void clean_up(pid_t pid)
{
	int i;

	kill(-pid, SIGKILL);
	for (i = 0; i < 200; i++) {
		pid_t r = waitpid(-1, NULL, WNOHANG);

		if (r < 0)
			break;
		if (r == 0)
			poll(NULL, 0, 10);
	}
}

static enum kw_status verdict(struct ktap_writer *w, int status)
{
	char why[128];

	if (WIFEXITED(status)) {
		switch (WEXITSTATUS(status)) {
		case CASE_PASS:
			return KW_PASS;
		case CASE_SKIP:
			return KW_SKIP;
		case CASE_FAIL:
			return KW_FAIL;
		}
		snprintf(why, sizeof(why), "case exited with status %d",
			 WEXITSTATUS(status));
	} else {
		snprintf(why, sizeof(why), "case killed by signal %d (%s)%s",
			 WTERMSIG(status), strsignal(WTERMSIG(status)),
			 WTERMSIG(status) == SIGALRM ? ": timed out" : "");
	}
	kw_diag(w, why);
	return KW_FAIL;
}

static enum kw_status run_one(struct ktap_writer *w, const struct tcase *c,
			      char *shared)
{
	int status = 0;
	pid_t pid;

	shared[0] = '\0';
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		kw_diag(w, "fork failed");
		return KW_FAIL;
	}
	if (pid == 0)
		child(c, shared);
	waitpid(pid, &status, 0);
	clean_up(pid);
	return verdict(w, status);
}

static unsigned int count(const struct section *secs, size_t nsecs,
			  char *const *globs)
{
	unsigned int n = 0;
	size_t s, i;

	for (s = 0; s < nsecs; s++)
		for (i = 0; i < secs[s].n; i++)
			n += selected(secs[s].cases[i].name, globs);
	return n;
}

int run_cases(const struct section *secs, size_t nsecs, char *const *globs,
	      void (*header)(struct ktap_writer *w))
{
	struct ktap_writer w;
	enum kw_status st;
	char *shared;
	size_t s, i;

	shared = mmap(NULL, REASON_LEN, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	/* Orphans of a case (clients, helpers) come back to us to reap. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	kw_header(&w, stdout);
	if (header)
		header(&w);
	kw_plan(&w, count(secs, nsecs, globs));
	for (s = 0; s < nsecs; s++) {
		for (i = 0; i < secs[s].n; i++) {
			const struct tcase *c = &secs[s].cases[i];

			if (!selected(c->name, globs))
				continue;
			if (geteuid() != 0) {
				kw_result(&w, KW_SKIP, c->name,
					  "must start as root");
				continue;
			}
			st = run_one(&w, c, shared);
			kw_result(&w, st, c->name, shared);
		}
	}
	return kw_end(&w);
}
