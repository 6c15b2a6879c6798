// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "boot.h"
#include "result.h"

#define KERNEL_MARK "Linux version"
#define INIT_MARK "KMATRIX-INIT-START"
#define DONE_MARK "KMATRIX-DONE"
/* A kernel that says nothing this long will not start talking. */
#define SILENCE_S 60
/* After the tests, reboot -f should end QEMU at once. */
#define AFTER_DONE_S 10
#define PROBE_S 30
#define CONSOLE_LINES 25
#define SILENT "no console output"

/*
 * The console log's cap.  Both suites of a cell print about 40 KiB; a
 * kernel that WARNs in every case would print well under 1 MiB.  Through
 * the emulated UART under TCG a flooding guest writes 70-140 KiB/s here on
 * a busy machine (x86_64, arm64, mips64el alike), about 300 KiB/s on an
 * idle one, so it passes 4 MiB within a minute, far inside the time
 * limit; and a matrix whose every cell floods keeps 4 MiB a cell.
 */
#define CONSOLE_CAP_MIB 4
#define CONSOLE_CAP ((off_t)CONSOLE_CAP_MIB << 20)
/*
 * QEMU cannot write past twice the cap (RLIMIT_FSIZE).  The watch polls
 * every 0.5 s, which under TCG lets the log pass the cap by some 100 KiB;
 * the limit holds as well under KVM's faster serial, or while kmatrix
 * itself is too busy to poll.
 */
#define CONSOLE_HARD_CAP (2 * CONSOLE_CAP)
#define FLOOD "console flood"
/* The cut looks this far back from the cap for the end of a line. */
#define CUT_WINDOW 4096
#define CUT_MARK "kmatrix: console log cut"
/*
 * The watch reads the log this much at a time, and each read again the
 * last bytes of the one before: a marker may straddle two.
 */
#define SCAN_CHUNK 65536
#define SCAN_OVERLAP 32
/* Evidence shows this much of one console line. */
#define CONSOLE_LINE_MAX 512

char **boot_qemu_argv(const struct cell *c, const char *initramfs)
{
	GPtrArray *a = g_ptr_array_new();
	const struct qemu_conf *q = &c->qemu;

	g_ptr_array_add(a, g_strdup(q->binary));
	g_ptr_array_add(a, g_strdup("-M"));
	g_ptr_array_add(a, g_strdup(q->machine));
	g_ptr_array_add(a, g_strdup("-cpu"));
	g_ptr_array_add(a, g_strdup(q->cpu));
	g_ptr_array_add(a, g_strdup("-m"));
	g_ptr_array_add(a, g_strdup(q->memory));
	g_ptr_array_add(a, g_strdup("-nographic"));
	g_ptr_array_add(a, g_strdup("-no-reboot"));
	g_ptr_array_add(a, g_strdup("-kernel"));
	g_ptr_array_add(a, c->image ? g_strdup(c->image) :
				      g_build_filename(c->build_dir, c->a->image, NULL));
	g_ptr_array_add(a, g_strdup("-initrd"));
	g_ptr_array_add(a, g_strdup(initramfs));
	g_ptr_array_add(a, g_strdup("-append"));
	g_ptr_array_add(a, g_strdup_printf("console=%s%s%s", q->console,
					   *q->append ? " " : "", q->append));
	g_ptr_array_add(a, NULL);
	return (char **)g_ptr_array_free(a, FALSE);
}

static char **with_accel(char **argv, const char *accel)
{
	guint n = g_strv_length(argv);
	char **a = g_new0(char *, n + 3);

	for (guint i = 0; i < n; i++)
		a[i] = g_strdup(argv[i]);
	a[n] = g_strdup("-accel");
	a[n + 1] = g_strdup(accel);
	return a;
}

char *boot_console_text(const char *path)
{
	char *text = NULL;
	gsize len, n = 0;

	if (!g_file_get_contents(path, &text, &len, NULL))
		return g_strdup("");
	for (gsize i = 0; i < len; i++)
		if (text[i])
			text[n++] = text[i];
	text[n] = '\0';
	return text;
}

bool boot_kernel_spoke(const char *text)
{
	return strstr(text, KERNEL_MARK) || strstr(text, INIT_MARK);
}

static bool has(const char *buf, size_t n, const char *mark)
{
	return memmem(buf, n, mark, strlen(mark)) != NULL;
}

/*
 * Read what the log gained since the last poll, up to the cap, a chunk at
 * a time: a flooding guest's log is never read whole, nor read twice.
 */
static void scan_console(struct boot *b, off_t size, gint64 now)
{
	off_t end = MIN(size, CONSOLE_CAP);
	char *buf;
	int fd;

	if (b->scanned >= end || (b->spoke && b->done_seen))
		return;
	fd = open(b->log, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	buf = g_malloc(SCAN_CHUNK);
	while (b->scanned < end && !(b->spoke && b->done_seen)) {
		off_t from = MAX(0, b->scanned - SCAN_OVERLAP);
		ssize_t n = pread(fd, buf, MIN(SCAN_CHUNK, end - from), from);

		if (n <= 0 || from + n <= b->scanned)
			break;
		b->spoke |= has(buf, n, KERNEL_MARK) || has(buf, n, INIT_MARK);
		if (!b->done_seen && has(buf, n, DONE_MARK))
			b->done_seen = now;
		b->scanned = from + n;
	}
	g_free(buf);
	close(fd);
}

/*
 * SeaBIOS and iPXE write to the same serial port before the kernel, so a
 * console that is not empty can still hold nothing from the kernel.
 */
static const char *watch_console(struct child *ch, void *data)
{
	struct boot *b = data;
	gint64 now = g_get_monotonic_time();
	struct stat st;

	if (now - b->last_check < G_USEC_PER_SEC / 2)
		return NULL;
	b->last_check = now;
	if (stat(b->log, &st) < 0)
		st.st_size = 0;
	scan_console(b, st.st_size, now);
	if (st.st_size > CONSOLE_CAP)
		return FLOOD ": the console log passed " G_STRINGIFY(CONSOLE_CAP_MIB) " MiB";
	if (!b->spoke)
		return now - ch->started > SILENCE_S * G_USEC_PER_SEC ? SILENT : NULL;
	if (b->done_seen && now - b->done_seen > AFTER_DONE_S * G_USEC_PER_SEC)
		return "guest did not power off after " DONE_MARK;
	return NULL;
}

/* Cut the open log of @size bytes at @cap: the bytes cut, or -1. */
static off_t cut_log(int fd, off_t size, off_t cap)
{
	off_t from = MAX(0, cap - CUT_WINDOW), keep = cap, cut = -1;
	char *buf = g_malloc(cap - from + 1), *nl, *mark;

	if (pread(fd, buf, cap - from, from) != cap - from) {
		g_free(buf);
		return -1;
	}
	/* A line that is cut goes whole, unless it is longer than the window. */
	nl = memrchr(buf, '\n', cap - from);
	if (nl)
		keep = from + (nl - buf) + 1;
	mark = g_strdup_printf("%s%s at byte %lld (cap %lld): %lld bytes of guest output dropped\n",
			       nl ? "" : "\n", CUT_MARK, (long long)keep, (long long)cap,
			       (long long)(size - keep));
	if (ftruncate(fd, keep) == 0 &&
	    pwrite(fd, mark, strlen(mark), keep) == (ssize_t)strlen(mark))
		cut = size - keep;
	g_free(mark);
	g_free(buf);
	return cut;
}

off_t boot_cut_console(const char *path, off_t cap)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	struct stat st;
	off_t cut = -1;

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &st) == 0)
		cut = st.st_size > cap ? cut_log(fd, st.st_size, cap) : 0;
	close(fd);
	return cut;
}

int boot_start(struct cell *c, struct boot *b, const char *accel)
{
	char **argv = boot_qemu_argv(c, c->initramfs);

	memset(b, 0, sizeof(*b));
	b->cell = c;
	b->accel = accel;
	b->log = cell_log(c, "console");
	b->argv = with_accel(argv, accel);
	g_strfreev(argv);
	/*
	 * The last result's console stays beside it until this boot ends: a
	 * boot cut short by a signal records nothing, and a later run judges
	 * that result again from its own console, not from this one's start.
	 */
	b->prev_log = g_strconcat(b->log, ".prev", NULL);
	if (rename(b->log, b->prev_log) < 0)
		unlink(b->prev_log);
	b->ch.argv = b->argv;
	b->ch.log = b->log;
	b->ch.timeout = c->qemu.timeout;
	b->ch.max_file = CONSOLE_HARD_CAP;
	b->ch.watch = watch_console;
	b->ch.watch_data = b;
	b->ch.usage = &b->usage;
	b->real_start = g_get_real_time();
	b->active = true;
	if (run_start(&b->ch) < 0) {
		unlink(b->prev_log);
		return -1;
	}
	return 0;
}

static bool host_arch_is(const struct arch_conf *a)
{
	struct utsname u;

	return uname(&u) == 0 && strcmp(u.machine, a->name) == 0;
}

static const char *probe_kvm(const struct cell *c, const char *initramfs)
{
	char *log = g_build_filename(c->cache, "kvm-probe.log", NULL);
	char **base = boot_qemu_argv(c, initramfs);
	struct boot b = { .log = log };
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	char *text;
	bool ok;

	if (fd < 0) {
		g_strfreev(base);
		g_free(log);
		return "tcg";
	}
	close(fd);
	unlink(log);
	b.ch.argv = with_accel(base, "kvm");
	b.ch.log = log;
	b.ch.timeout = PROBE_S;
	b.ch.max_file = CONSOLE_HARD_CAP;
	run_command(&b.ch);
	text = boot_console_text(log);
	ok = strstr(text, INIT_MARK) != NULL;
	g_free(text);
	g_strfreev(b.ch.argv);
	g_strfreev(base);
	g_free(log);
	return ok ? "kvm" : "tcg";
}

/* /dev/kvm can exist and still not boot a guest: only a real boot tells. */
const char *boot_accel(const struct cell *c, const char *initramfs)
{
	static const char *probed;

	if (!host_arch_is(c->a))
		return "tcg";
	if (!probed)
		probed = probe_kvm(c, initramfs);
	return probed;
}

/*
 * The console is read as one text, never split into an array of lines: a
 * flood of short lines would make millions of them.
 */
static const char *line_start(const char *text, const char *p)
{
	while (p > text && p[-1] != '\n')
		p--;
	return p;
}

/* The line @s starts, clipped, as evidence; returns the next line or NULL. */
static const char *add_line(struct outcome *o, const char *s)
{
	const char *end = strchrnul(s, '\n');
	size_t len = end - s;
	char *line;

	while (len > 0 && g_ascii_isspace(s[len - 1]))
		len--;
	line = result_clip(s, len, CONSOLE_LINE_MAX);
	outcome_add(o, "%s", line);
	g_free(line);
	return *end && end[1] ? end + 1 : NULL;
}

/* The line holding @at, with up to @before lines above it and @after below. */
static void add_lines_around(struct outcome *o, const char *text, const char *at,
			     int before, int after)
{
	const char *s = line_start(text, at);
	int n = 0;

	while (n < before && s > text) {
		s = line_start(text, s - 1);
		n++;
	}
	for (int i = 0; s && i <= n + after; i++)
		s = add_line(o, s);
}

static void last_lines(struct outcome *o, const char *text)
{
	const char *end = text + strlen(text);

	while (end > text && g_ascii_isspace(end[-1]))
		end--;
	if (end > text)
		add_lines_around(o, text, end - 1, CONSOLE_LINES - 1, 0);
}

/* Nothing from the kernel: what the console holds is the firmware's. */
static void silent(struct outcome *o, const char *text, bool stopped)
{
	outcome_set(o, "boot-failed", SILENT);
	outcome_add(o, "QEMU %s; the console holds no kernel output",
		    stopped ? "was stopped" : "exited");
	last_lines(o, text);
}

/* Stopped at the cap, or its log cut there (the cut's line is the last). */
static bool flooded(const char *text, const struct child *ch)
{
	const char *end = text + strlen(text);

	if (ch->killed_by && g_str_has_prefix(ch->killed_by, FLOOD))
		return true;
	while (end > text && end[-1] == '\n')
		end--;
	return g_str_has_prefix(line_start(text, end), CUT_MARK);
}

bool boot_classify(const char *text, const struct child *ch, struct outcome *o)
{
	const char *panic = strstr(text, "Kernel panic");
	bool init = strstr(text, INIT_MARK) != NULL;
	bool done = strstr(text, DONE_MARK) != NULL;
	bool spoke = boot_kernel_spoke(text);
	bool stopped = ch->timed_out || ch->killed_by;

	if (!spoke && (!*text || (ch->killed_by && !strcmp(ch->killed_by, SILENT)))) {
		silent(o, text, stopped);
	} else if (flooded(text, ch) && !done) {
		/* Past the cap the tests' report is lost: the guest is broken. */
		outcome_set(o, "boot-failed", FLOOD " %s init started: more than %d MiB on the console",
			    init ? "after" : "before", CONSOLE_CAP_MIB);
		last_lines(o, text);
	} else if (!init && !stopped && ch->status != 0 && !strstr(text, KERNEL_MARK)) {
		outcome_set(o, "infra-error", "QEMU failed to start");
		last_lines(o, text);
	} else if (!spoke) {
		silent(o, text, stopped);
	} else if (panic) {
		outcome_set(o, "boot-failed", "kernel panic%s", init ? " after init started" : "");
		add_lines_around(o, text, panic, 12, 8);
	} else if (!init) {
		outcome_set(o, "boot-failed", "no init: %s never printed",
			    INIT_MARK);
		last_lines(o, text);
	} else if (ch->timed_out && !done) {
		outcome_set(o, "timeout", "guest did not finish in %.0f s", ch->timeout);
		last_lines(o, text);
	} else {
		return false;
	}
	return true;
}

/* Judging runs in kmatrix itself: its own CPU and peak memory are the test's. */
static void judge(struct boot *b, const struct expectations *exp)
{
	struct cell *c = b->cell;
	gint64 t0 = g_get_monotonic_time(), real0 = g_get_real_time();
	struct usage before, after;
	char *text;

	usage_self(&before);
	text = boot_console_text(b->log);
	if (!boot_classify(text, &b->ch, &c->out))
		test_judge(text, c->a, exp, c->step->id, c->result, &c->out);
	usage_self(&after);
	result_set_timing(c->result, "test", (g_get_monotonic_time() - t0) / 1e6);
	result_set_usage(c->result, "test", after.cpu - before.cpu, after.maxrss_kb);
	result_set_span(c->result, "test", real0 / 1e6, g_get_real_time() / 1e6);
	g_free(text);
}

void boot_finish(struct boot *b, const struct expectations *exp)
{
	struct cell *c = b->cell;
	json_t *argv = json_array();

	run_wait(&b->ch);
	b->active = false;
	if (boot_cut_console(b->log, CONSOLE_CAP) < 0)
		g_printerr("kmatrix: cannot cut %s at its cap: %s\n", b->log, g_strerror(errno));
	for (int i = 0; b->argv[i]; i++)
		json_array_append_new(argv, json_string(b->argv[i]));
	json_object_set_new(json_object_get(c->result, "inputs"), "qemu_argv", argv);
	json_object_set_new(c->result, "accel", json_string(b->accel));
	result_set_timing(c->result, "boot", b->ch.elapsed);
	result_set_usage(c->result, "boot", b->ch.used.cpu, b->ch.used.maxrss_kb);
	result_set_span(c->result, "boot", b->real_start / 1e6,
			b->real_start / 1e6 + b->ch.elapsed);
	if (!b->ch.interrupted) {
		judge(b, exp);
		unlink(b->prev_log);
	} else if (rename(b->prev_log, b->log) < 0) {
		unlink(b->log);
	}
	g_strfreev(b->argv);
	g_free(b->log);
	g_free(b->prev_log);
}
