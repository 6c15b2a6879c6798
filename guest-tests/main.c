// SPDX-License-Identifier: GPL-2.0
/*
 * rlimit-tests: pins down RLIMIT_NICE and RLIMIT_RTPRIO behaviour, grant
 * and deny sides, and prints KTAP.  Usage:
 *   rlimit-tests [GLOB...]   run every case (or those matching a glob)
 *   rlimit-tests --list      print "name step-group" for every case
 * Started as PID 1 it is the guest's init instead (pid1.c).
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "abi.h"
#include "cases.h"
#include "limits_exec.h"
#include "pid1.h"
#include "runner.h"

static const struct section *const all_sections[] = {
	&limits_section, &sys_section, &nice_section,	&rt_section,
	&policy_section, &task_section, &cap_section, &client_section,
	&pam_section, &audio_section,
};

/* The abi lines; in a compat suite, why the PAM and audio cases are not in it. */
static void header(struct ktap_writer *w)
{
	abi_diag(w);
	if (pam_section_note)
		kw_diag(w, pam_section_note);
	if (audio_section_note)
		kw_diag(w, audio_section_note);
}

static void usage(FILE *out)
{
	fputs("usage: rlimit-tests [--list] [GLOB...]\n"
	      "Runs the RLIMIT_NICE/RLIMIT_RTPRIO cases as root and prints KTAP.\n",
	      out);
}

int main(int argc, char **argv)
{
	struct section secs[ARRAY_SIZE(all_sections)];
	struct utsname u;
	size_t i;

	/* The kernel's command line is no argument list for the cases. */
	if (getpid() == 1)
		return pid1_main(argv[0]);
	for (i = 0; i < ARRAY_SIZE(all_sections); i++)
		secs[i] = *all_sections[i];
	if (argc > 1 && !strcmp(argv[1], EXEC_MODE_ARG))
		return print_limits();
	if (argc > 1 && !strcmp(argv[1], "--list")) {
		list_cases(secs, ARRAY_SIZE(secs), stdout);
		return 0;
	}
	if (argc > 1 &&
	    (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc > 1 && argv[1][0] == '-') {
		usage(stderr);
		return 2;
	}
	if (uname(&u) == 0)
		printf("rlimit-tests: %s %s %s\n", u.sysname, u.release,
		       u.machine);
	return run_cases(secs, ARRAY_SIZE(secs), argv + 1, header);
}
