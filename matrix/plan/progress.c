// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "colour.h"
#include "progress.h"

static struct {
	bool tty;
	bool drawn;
	int total, done;
	double eta_left;	/* estimate for the cells not yet finished */
	double cell_eta;	/* estimate for the current cell */
	gint64 start, cell_start, stage_start, last_draw;
	char *what;		/* "7.2 x86_64 baseline: build" */
} P;

static void fmt_time(char *buf, size_t n, double s)
{
	int t = (int)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, n, "%d:%02d:%02d", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, n, "%d:%02d", t / 60, t % 60);
}

static double since(gint64 t)
{
	return (g_get_monotonic_time() - t) / 1e6;
}

static void clear_line(void)
{
	if (P.tty && P.drawn)
		fputs("\r\033[K", stderr);
	P.drawn = false;
}

static void draw(void)
{
	char el[16], run[16], eta[16];
	double left = P.eta_left - MIN(since(P.cell_start), P.cell_eta);

	if (!P.tty || !P.what)
		return;
	fmt_time(el, sizeof(el), since(P.stage_start));
	fmt_time(run, sizeof(run), since(P.start));
	fmt_time(eta, sizeof(eta), MAX(left, 0));
	clear_line();
	fprintf(stderr, "[%d/%d] %s %s  (run %s, ETA %s)", P.done + 1, P.total, P.what, el,
		run, P.eta_left > 0 ? eta : "unknown");
	fflush(stderr);
	P.drawn = true;
	P.last_draw = g_get_monotonic_time();
}

void progress_begin(int cells, double eta)
{
	P.tty = isatty(STDERR_FILENO);
	P.total = cells;
	P.done = 0;
	P.eta_left = eta;
	P.start = g_get_monotonic_time();
}

void progress_stage(const struct cell *c, const char *stage)
{
	gint64 now = g_get_monotonic_time();

	if (strcmp(stage, "apply") == 0 || !P.cell_start) {
		P.cell_start = now;
		P.cell_eta = c->eta;
	}
	P.stage_start = now;
	g_free(P.what);
	P.what = g_strdup_printf("%s %s %s: %s", c->v->name, c->a->name, c->step->id, stage);
	if (P.tty)
		draw();
	else
		fprintf(stderr, "kmatrix: %s\n", P.what);
}

void progress_done(const struct cell *c, const char *verdict, bool met, bool reused)
{
	char el[16];

	clear_line();
	fmt_time(el, sizeof(el), reused ? 0 : since(P.cell_start));
	printf("%-5s %-7s %-9s %s%-16s %s%s%s\n", c->v->name, c->a->name, c->step->id,
	       met ? colour_good(STDOUT_FILENO) : colour_bad(STDOUT_FILENO), verdict,
	       met ? "met" : "NOT MET", colour_off(STDOUT_FILENO), reused ? "  (cached)" : "");
	fflush(stdout);
	P.done++;
	P.eta_left = MAX(P.eta_left - c->eta, 0);
	P.cell_start = 0;
	g_clear_pointer(&P.what, g_free);
}

void progress_tick(void)
{
	if (P.tty && P.what && g_get_monotonic_time() - P.last_draw > G_USEC_PER_SEC)
		draw();
}

void progress_note(const char *fmt, ...)
{
	va_list ap;

	clear_line();
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (P.what)
		draw();
}

void progress_end(void)
{
	char el[16];

	clear_line();
	fmt_time(el, sizeof(el), since(P.start));
	fprintf(stderr, "kmatrix: %d cells in %s\n", P.done, el);
	g_clear_pointer(&P.what, g_free);
}
