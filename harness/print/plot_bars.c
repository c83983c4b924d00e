/*
 * plot_bars.c - bars with error bars and stacked bars (plot.h; how they
 * look: docs/REPORTS.md).
 */
#include "print/plot.h"

#include <math.h>
#include <string.h>

#define MARK_COLOR "#555555"
#define INEXACT_COLOR "#c0392b"

/* The .dat's columns of series s, from 3 on: value, low, high, the value
 * again where marked, where inexact, and the y of its value label (its
 * whisker's top) apart for exact and inexact bars. */
enum { BC_VALUE, BC_LOW, BC_HIGH, BC_MARKED, BC_INEXACT, BC_LABEL, BC_LABEL_INEXACT, BAR_COLS };

static int col(int s, int k)
{
	return 3 + BAR_COLS * s + k;
}

/* Whether some bar of series s (-1: of any) is marked (k 0) or inexact
 * (k 1). */
static bool flagged(const struct plot_bars *p, int s, int k)
{
	for (int i = 0; i < p->n_rows * p->n_series; i++)
		if ((s < 0 || i % p->n_series == s) && (k ? p->bars[i].inexact : p->bars[i].marked))
			return true;
	return false;
}

static void bars_dat(FILE *f, const void *vp)
{
	const struct plot_bars *p = vp;
	fputs("# row note", f);
	for (int s = 0; s < p->n_series; s++)
		fprintf(f, " | series %d: value low high marked-value inexact-value label-y inexact-label-y", s + 1);
	fputc('\n', f);
	for (int r = 0; r < p->n_rows; r++) {
		plot_dat_printf(f, true, "%s %s", p->row_names[r], p->row_notes ? p->row_notes[r] : "");
		for (int s = 0; s < p->n_series; s++) {
			const struct plot_bar *b = &p->bars[r * p->n_series + s];
			bool ci = isfinite(b->low) && isfinite(b->high);
			double top = ci ? fmax(b->high, b->value) : b->value;
			/* no interval (too few samples): a bar without whiskers */
			const double v[BAR_COLS] = { b->value, ci ? b->low : b->value, ci ? b->high : b->value,
						     b->marked ? b->value : NAN, b->inexact ? b->value : NAN,
						     b->inexact ? NAN : top, b->inexact ? top : NAN };
			for (int k = 0; k < BAR_COLS; k++)
				plot_dat_number(f, v[k]);
		}
		fputc('\n', f);
	}
}

/* The chart's size and what fits in it. */
struct bars_layout {
	int width, height;
	int bmargin;         /* the tick labels and the key below them, in lines */
	double lmargin;      /* the plot's left edge as a share of the width; 0: gnuplot's */
	bool upright_values; /* value labels turned 90 degrees */
	bool one_line_ticks; /* tick labels on one line, rotated */
};

/* 900 px for up to 12 rows, then 60 px a row more. A bar is 1 / (series
 * + 2) of its row (histograms with gap 2); a value label of ~6.5 px a
 * character (font 9) may use its bar and, with one series, the gaps beside
 * it; a tick label of ~7 px a character its row. */
static struct bars_layout bars_layout(const struct plot_bars *p)
{
	struct bars_layout L = { 0 };
	int tick = plot_longest(p->row_names, p->n_rows);
	int note = plot_longest(p->row_notes, p->n_rows);
	tick = tick > note ? tick : note;
	L.width = 900 + (p->n_rows > 12 ? 60 * (p->n_rows - 12) : 0);
	L.height = p->n_rows > 8 ? 620 : 520;
	double row_px = (L.width - 130.0) / p->n_rows, bar_px = row_px / (p->n_series + 2);
	double label_px = 6.5 * snprintf(NULL, 0, p->value_format, 99.99) + 4;
	L.upright_values = label_px > bar_px * (p->n_series == 1 ? 2.6 : 1.0);
	L.one_line_ticks = 7.0 * tick > row_px - 8;
	/* a rotated label ends at its tick and reaches left by cos 30 of its
	 * ~8 px a character (font 9, measured on a 28-row chart): the first
	 * one must stay in the image */
	if (L.one_line_ticks && p->n_rows > 0) {
		size_t first = strlen(p->row_names[0]) + (p->row_notes ? strlen(p->row_notes[0]) + 1 : 0);
		double reach = 0.87 * 8.0 * (double)first - row_px / 2 + 10;
		if (reach > 70)
			L.lmargin = reach / L.width;
	}
	/* key entries (the series and the marks) in columns as wide as the
	 * longest entry (~7 px a character and the swatch) */
	const char *marks[2] = { flagged(p, -1, 0) ? p->mark_word : NULL, flagged(p, -1, 1) ? p->inexact_word : NULL };
	int entries = p->n_series + flagged(p, -1, 0) + flagged(p, -1, 1);
	int longest = plot_longest(p->series_names, p->n_series), mark = plot_longest(marks, 2);
	longest = longest > mark ? longest : mark;
	int cols = (L.width - 100) / (7 * longest + 70);
	cols = cols < 1 ? 1 : cols > 5 ? 5 : cols;
	int key_rows = (entries + cols - 1) / cols;
	int ticks = L.one_line_ticks ? (int)ceil(0.22 * tick * (p->row_notes ? 2 : 1)) + 1 : 3;
	L.bmargin = ticks + key_rows + 2;
	return L;
}

/* The x of bar s within its row: rows at 0, 1, ...; with gap 2 a row of n
 * bars spans n + 2 slots of width 1 / (n + 2). */
static double bar_offset(const struct plot_bars *p, int s)
{
	return (s - (p->n_series - 1) / 2.0) / (p->n_series + 2);
}

/* Each bar's value above its whisker; inexact ones red. */
static void bars_labels(FILE *f, const struct plot_bars *p, const struct bars_layout *L)
{
	const char *place = L->upright_values ? "rotate by 90 left offset 0,0.5" : "center offset 0,0.9";
	bool red = flagged(p, -1, 1);
	for (int s = 0; s < p->n_series; s++)
		for (int k = 0; k < (red ? 2 : 1); k++) {
			plot_printf(f, ", \\\n     \"\" using ($0 + %g):%d:(sprintf(%s, column(%d))) with labels ",
				    bar_offset(p, s), col(s, k ? BC_LABEL_INEXACT : BC_LABEL), p->value_format,
				    col(s, BC_VALUE));
			fprintf(f, "%s font \",9\" textcolor rgb \"%s\" notitle", place, k ? INEXACT_COLOR : "#222222");
		}
}

/* The marked bars hatched grey over their colour and the inexact ones
 * outlined red, as boxes of a bar's width: each a key entry (on the first
 * series that has one: gnuplot drops the key entry of a clause with no
 * point), drawn as the bars are. */
static void bars_marks(FILE *f, const struct plot_bars *p)
{
	static const char *const style[2] = {
		"fs transparent pattern 4 border lc rgb \"" MARK_COLOR "\" lc rgb \"" MARK_COLOR "\" ",
		"fs empty border lc rgb \"" INEXACT_COLOR "\" lw 3 lc rgb \"" INEXACT_COLOR "\" ",
	};
	const char *words[2] = { p->mark_word, p->inexact_word };
	bool titled[2] = { false, false };
	for (int s = 0; s < p->n_series; s++)
		for (int k = 0; k < 2; k++) {
			if (!flagged(p, s, k))
				continue;
			fprintf(f, ", \\\n     \"\" using ($0 + %g):%d:(%g) with boxes %s", bar_offset(p, s),
				col(s, k ? BC_INEXACT : BC_MARKED), 1.0 / (p->n_series + 2), style[k]);
			plot_title(f, titled[k] ? NULL : words[k]);
			titled[k] = true;
		}
}

static void bars_gp(FILE *f, const char *stem, const void *vp)
{
	const struct plot_bars *p = vp;
	struct bars_layout L = bars_layout(p);
	plot_head(f, stem, false, p->title, p->ylabel, L.width, L.height);
	fputs("set style data histograms\nset style histogram errorbars gap 2 lw 1\n", f);
	fprintf(f, "set style fill solid 0.75 border -1\nset key outside below center horizontal maxcols 5\n"
		   "set bmargin %d\n", L.bmargin);
	/* headroom for the value labels above the tallest whisker */
	fprintf(f, "set offsets 0, 0, graph %s, 0\nset xrange [-0.5:%g]\n", L.upright_values ? "0.22" : "0.12",
		p->n_rows - 0.5);
	if (L.one_line_ticks) /* one line a label, ending at its tick */
		fputs("set xtics rotate by 30 right font \",9\" nomirror\n", f);
	if (L.lmargin > 0)
		fprintf(f, "set lmargin at screen %.3f\n", L.lmargin);
	else
		fputs("set xtics font \",9\" nomirror\n", f);
	fprintf(f, "set arrow from graph 0, first %g to graph 1, first %g nohead dt 2 lc rgb \"#444444\"\n",
		p->reference_line, p->reference_line);
	for (int s = 0; s < p->n_series; s++) {
		int c = col(s, BC_VALUE);
		plot_clause(f, stem, s);
		fprintf(f, " using %d:%d:%d", c, c + 1, c + 2);
		if (!s) /* the case's name, its shape beside or under it */
			fprintf(f, ":xtic(strlen(stringcolumn(2)) ? stringcolumn(1).\"%s\".stringcolumn(2) : "
				   "stringcolumn(1))", L.one_line_ticks ? " " : "\\n");
		fprintf(f, " lc rgb \"%s\" ", plot_series_color(s));
		plot_title(f, p->series_names[s]);
	}
	bars_marks(f, p);
	bars_labels(f, p, &L);
	fputc('\n', f);
}

enum ab_rc plot_write_bars(const char *dir, const char *stem, const struct plot_bars *p, struct ab_diag *d)
{
	return plot_write_pair(dir, stem, p, p->n_rows >= 1 && p->n_series >= 1, bars_dat, bars_gp, d);
}

/* ---- stacked bars ---- */

static void stack_dat(FILE *f, const void *vp)
{
	const struct plot_stack *p = vp;
	fputs("# bar, then one column per segment:", f);
	for (int s = 0; s < p->n_segments; s++)
		plot_dat_printf(f, false, " %d=%s", s + 2, p->segment_names[s]);
	fputc('\n', f);
	for (int r = 0; r < p->n_rows; r++) {
		plot_dat_printf(f, true, "%s", p->row_names[r]);
		for (int s = 0; s < p->n_segments; s++)
			plot_dat_number(f, p->values[r * p->n_segments + s]);
		fputc('\n', f);
	}
}

/* Wide enough for the bars (~220 px each) and the key beside them (~7 px
 * a character of its longest entry), and no wider. */
static void stack_gp(FILE *f, const char *stem, const void *vp)
{
	const struct plot_stack *p = vp;
	int width = 160 + 220 * p->n_rows + 7 * plot_longest(p->segment_names, p->n_segments) + 60;
	plot_head(f, stem, false, p->title, p->ylabel, width < 640 ? 640 : width > 1400 ? 1400 : width, 460);
	fputs("set style data histograms\nset style histogram rowstacked\nset style fill solid 0.85 border -1\n"
	      "set boxwidth 0.6\nset key outside right top vertical Left reverse samplen 1.5 font \",9\"\n", f);
	fprintf(f, "set xrange [-0.6:%g]\nset xtics nomirror\n", p->n_rows - 0.4);
	for (int s = 0; s < p->n_segments; s++) {
		plot_clause(f, stem, s);
		fprintf(f, " using %d%s lc rgb \"%s\" ", s + 2, s ? "" : ":xtic(1)", p->segment_colors[s]);
		plot_title(f, p->segment_names[s]);
	}
	fputc('\n', f);
}

enum ab_rc plot_write_stacked(const char *dir, const char *stem, const struct plot_stack *p, struct ab_diag *d)
{
	return plot_write_pair(dir, stem, p, p->n_rows >= 1 && p->n_segments >= 1, stack_dat, stack_gp, d);
}
