// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "boot.h"
#include "result.h"

#define INIT_MARK "KMATRIX-INIT-START"
#define DONE_MARK "KMATRIX-DONE"
/* A kernel that says nothing this long will not start talking. */
#define SILENCE_S 60
/* After the tests, reboot -f should end QEMU at once. */
#define AFTER_DONE_S 10
#define PROBE_S 30
#define CONSOLE_LINES 25
#define SILENT "no console output"

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

static char *read_text(const char *path)
{
	char *text = NULL;

	if (!g_file_get_contents(path, &text, NULL, NULL))
		return g_strdup("");
	return text;
}

bool boot_kernel_spoke(const char *text)
{
	return strstr(text, "Linux version") || strstr(text, INIT_MARK);
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
	char *text = NULL;

	if (now - b->last_check < G_USEC_PER_SEC / 2)
		return NULL;
	b->last_check = now;
	if (stat(b->log, &st) == 0 && st.st_size > 0 && (!b->spoke || !b->done_seen))
		text = read_text(b->log);
	if (text && !b->spoke)
		b->spoke = boot_kernel_spoke(text);
	if (text && !b->done_seen && strstr(text, DONE_MARK))
		b->done_seen = now;
	g_free(text);
	if (!b->spoke)
		return now - ch->started > SILENCE_S * G_USEC_PER_SEC ? SILENT : NULL;
	if (b->done_seen && now - b->done_seen > AFTER_DONE_S * G_USEC_PER_SEC)
		return "guest did not power off after " DONE_MARK;
	return NULL;
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
	unlink(b->log);
	b->ch.argv = b->argv;
	b->ch.log = b->log;
	b->ch.timeout = c->qemu.timeout;
	b->ch.watch = watch_console;
	b->ch.watch_data = b;
	b->ch.usage = &b->usage;
	b->real_start = g_get_real_time();
	b->active = true;
	return run_start(&b->ch);
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
	run_command(&b.ch);
	text = read_text(log);
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

static void add_lines_around(struct outcome *o, char **lines, int at, int before, int after)
{
	int n = g_strv_length(lines);

	for (int i = MAX(0, at - before); i < n && i <= at + after; i++)
		outcome_add(o, "%s", g_strchomp(lines[i]));
}

static int find_line(char **lines, const char *needle)
{
	for (int i = 0; lines[i]; i++)
		if (strstr(lines[i], needle))
			return i;
	return -1;
}

static void last_lines(struct outcome *o, char **lines)
{
	int n = g_strv_length(lines);

	while (n > 0 && !*g_strstrip(lines[n - 1]))
		n--;
	add_lines_around(o, lines, n - 1, CONSOLE_LINES - 1, 0);
}

/* Nothing from the kernel: what the console holds is the firmware's. */
static void silent(struct outcome *o, char **lines, bool stopped)
{
	outcome_set(o, "boot-failed", SILENT);
	outcome_add(o, "QEMU %s; the console holds no kernel output",
		    stopped ? "was stopped" : "exited");
	last_lines(o, lines);
}

bool boot_classify(const char *text, const struct child *ch, struct outcome *o)
{
	char **lines = g_strsplit(text, "\n", -1);
	int panic = find_line(lines, "Kernel panic");
	bool init = strstr(text, INIT_MARK) != NULL;
	bool spoke = boot_kernel_spoke(text);
	bool stopped = ch->timed_out || ch->killed_by;
	bool judged = false;

	if (!spoke && (!*text || (ch->killed_by && !strcmp(ch->killed_by, SILENT)))) {
		silent(o, lines, stopped);
	} else if (!init && !stopped && ch->status != 0 && !strstr(text, "Linux version")) {
		outcome_set(o, "infra-error", "QEMU failed to start");
		last_lines(o, lines);
	} else if (!spoke) {
		silent(o, lines, stopped);
	} else if (panic >= 0) {
		outcome_set(o, "boot-failed", "kernel panic%s", init ? " after init started" : "");
		add_lines_around(o, lines, panic, 12, 8);
	} else if (!init) {
		outcome_set(o, "boot-failed", "no init: %s never printed",
			    INIT_MARK);
		last_lines(o, lines);
	} else if (ch->timed_out && !strstr(text, DONE_MARK)) {
		outcome_set(o, "timeout", "guest did not finish in %.0f s", ch->timeout);
		last_lines(o, lines);
	} else {
		judged = true;
	}
	g_strfreev(lines);
	return !judged;
}

/* Judging runs in kmatrix itself: its own CPU and peak memory are the test's. */
static void judge(struct boot *b, const struct expectations *exp)
{
	struct cell *c = b->cell;
	gint64 t0 = g_get_monotonic_time(), real0 = g_get_real_time();
	struct usage before, after;
	char *text;

	usage_self(&before);
	text = read_text(b->log);
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
	for (int i = 0; b->argv[i]; i++)
		json_array_append_new(argv, json_string(b->argv[i]));
	json_object_set_new(json_object_get(c->result, "inputs"), "qemu_argv", argv);
	json_object_set_new(c->result, "accel", json_string(b->accel));
	result_set_timing(c->result, "boot", b->ch.elapsed);
	result_set_usage(c->result, "boot", b->ch.used.cpu, b->ch.used.maxrss_kb);
	result_set_span(c->result, "boot", b->real_start / 1e6,
			b->real_start / 1e6 + b->ch.elapsed);
	if (!b->ch.interrupted)
		judge(b, exp);
	g_strfreev(b->argv);
	g_free(b->log);
}
