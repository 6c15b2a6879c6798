/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Boot: the cell's kernel and the arch's initramfs under QEMU with a time
 * limit, the serial console captured to <step>.console.log, and the log
 * classified (panic, no init, no output, hang) before the tests are judged.
 * A boot runs in the background so the next build can overlap it.
 */
#ifndef KMATRIX_BOOT_H
#define KMATRIX_BOOT_H

#include "cell.h"
#include "expect.h"
#include "run.h"

struct boot {
	struct cell *cell;
	struct child ch;
	char **argv;
	char *log;
	char *prev_log;	/* the last result's console, until this boot ends */
	const char *accel;
	gint64 last_check;
	gint64 done_seen;
	off_t scanned;		/* how far the watch has read the console */
	gint64 real_start;	/* Unix time, microseconds */
	struct usage usage;	/* QEMU's own: a boot outlives any stage's sink */
	bool spoke;		/* the kernel (not the firmware) has printed */
	bool active;
};

/* QEMU's argv for the cell without the accelerator (what the key covers). */
char **boot_qemu_argv(const struct cell *c, const char *initramfs);
/* "kvm" when a real tiny boot under KVM reaches init, else "tcg". */
const char *boot_accel(const struct cell *c, const char *initramfs);
int boot_start(struct cell *c, struct boot *b, const char *accel);
/* Wait for the boot, classify it and judge the tests; sets c->out. */
void boot_finish(struct boot *b, const struct expectations *exp);

/*
 * A console log as text ("" when unreadable), its NUL bytes (firmware
 * and serial line noise) dropped: strstr() and the judge would stop at
 * the first one, and miss the kernel and the KTAP after it.
 */
char *boot_console_text(const char *path);
/* Has the kernel, or its init, printed?  Firmware banners do not count. */
bool boot_kernel_spoke(const char *text);
/*
 * Cut the console log at @path down to @cap bytes (at the last line end
 * within 4 KiB before the cap, when there is one) and append a line saying
 * where and how many bytes were cut.  Returns the bytes cut (0: the log is
 * within the cap, or absent), or -1 on error.
 */
off_t boot_cut_console(const char *path, off_t cap);
/* Classify a finished boot's console text; false when the tests may be judged. */
bool boot_classify(const char *text, const struct child *ch, struct outcome *o);
/* Judge the KTAP in @text for @step into @r (tests, ktap) and @o. */
void test_judge(const char *text, const struct arch_conf *a,
		const struct expectations *exp, const char *step, json_t *r,
		struct outcome *o);

#endif
