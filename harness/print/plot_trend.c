/*
 * plot_trend.c - figures over runs (plot.h): one case's figure with its
 * interval band, the levels between steps, the baseline and the steps
 * marked (abbench history, the dashboard's cards), and a sweep's cases as
 * lines relative to their medians (past the per-case charts' limit). As a
 * PNG, or as an SVG at the size a dashboard card shows it.
 */
#include "print/plot.h"
#include "print/plot_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Block 0: a row per point. Block 1: the levels, a horizontal segment per
 * stretch of equal level from half a point before it to half after. */
static void trend_dat(FILE *f, const void *vp)
{
	const struct plot_trend *p = vp;
	fputs("# x value low high level commit date run\n", f);
	for (int i = 0; i < p->n; i++) {
		fprintf(f, "%d", i + 1);
		plot_dat_number(f, p->value[i]);
		plot_dat_number(f, p->low[i]);
		plot_dat_number(f, p->high[i]);
		plot_dat_number(f, p->level[i]);
		fputc(' ', f);
		plot_dat_string(f, p->commits[i]);
		fputc(' ', f);
		plot_dat_string(f, p->dates[i]);
		fputc(' ', f);
		plot_dat_string(f, p->run_ids ? p->run_ids[i] : "");
		fputc('\n', f);
	}
	fputs("\n\n# levels: x level, one segment per stretch\n", f);
	for (int i = 0; i < p->n; i++) {
		if (i && p->level[i] == p->level[i - 1])
			continue;
		int j = i;
		while (j + 1 < p->n && p->level[j + 1] == p->level[i])
			j++;
		fprintf(f, "%s%g", i ? "\n" : "", i + 0.5);
		plot_dat_number(f, p->level[i]);
		fprintf(f, "\n%g", j + 1.5);
		plot_dat_number(f, p->level[i]);
		fputc('\n', f);
	}
}

/* A vertical line at x with a label at the top. */
static void gp_vline(FILE *f, double x, const char *rgb, const char *dash, const char *text, double at_y)
{
	fprintf(f, "set arrow from %g, graph 0 to %g, graph 1 nohead lw 1.5 lc rgb \"%s\" %s\n", x, x, rgb, dash);
	fputs("set label ", f);
	plot_gp_string(f, text);
	fprintf(f, " at %g, graph %g left offset 0.5,0 textcolor rgb \"%s\" front\n", x, at_y, rgb);
}

static void trend_gp(FILE *f, const char *stem, const void *vp)
{
	const struct plot_trend *p = vp;
	if (p->svg)
		plot_head_svg(f, stem, p->title, p->ylabel);
	else
		plot_head(f, stem, p->title, p->ylabel, 1000, 500);
	if (p->log_y)
		fputs("set logscale y\n", f);
	if (isfinite(p->y_min) && isfinite(p->y_max))
		fprintf(f, "set yrange [%.9g:%.9g]\n", p->y_min, p->y_max);
	else
		fputs("set yrange [*:*]\nset offsets 0, 0, graph 0.12, graph 0.08\n", f);
	/* the key below the chart, off the data */
	fputs("set key outside bottom center horizontal font \",9\"\n", f);
	/* each tick names its run: id, commit, date and time (UTC); no x label
	 * competes with the three lines */
	fprintf(f, "set xrange [0.5:%d.5]\nset xtics font \",8\"\nunset xlabel\nset bmargin 7\n", p->n);
	if (p->baseline >= 0)
		gp_vline(f, p->baseline + 1, "#6c3483", "dt 3", p->baseline_name, 0.97);
	for (int k = 0; k < p->n_steps; k++)
		gp_vline(f, p->step_at[k] + 0.5, p->step_better[k] ? "#2a9d3a" : "#c0392b", "dt 1", p->step_text[k],
			 0.92 - 0.05 * (k % 3));
	fprintf(f, "plot \"%s.dat\" index 0 using 1:3:4 with filledcurves lc rgb \"#a6c8ea\" fs solid 0.5 noborder "
		   "title \"95%% interval\", \\\n", stem);
	fputs("     \"\" index 1 using 1:2 with lines lw 1.5 dt 2 lc rgb \"#555555\" title \"level between steps\", \\\n", f);
	fputs("     \"\" index 0 using 1:2:xtic(stringcolumn(8).\"\\n\".stringcolumn(6).\"\\n\".stringcolumn(7)) with "
	      "linespoints pt 7 ps 0.9 lw 1.5 lc rgb \"#1f4e9c\" title ", f);
	plot_gp_string(f, p->value_name);
	fputc('\n', f);
}

enum ab_rc plot_write_trend(const char *dir, const char *stem, const struct plot_trend *p, struct ab_diag *d)
{
	if (p->n < 1)
		return ab_fail(d, AB_ERR_INTERNAL, "plot '%s' has no data", stem);
	return plot_write_pair(dir, stem, p, trend_dat, trend_gp, d);
}

/* ---- several trends on one chart ---- */

/* One row per run: x, commit, date, then a column per line. */
static void trends_dat(FILE *f, const void *vp)
{
	const struct plot_trends *p = vp;
	fputs("# x commit date, then one column per line:", f);
	for (int l = 0; l < p->n_lines; l++) {
		fprintf(f, " %d=", l + 4);
		plot_dat_comment(f, p->line_names[l]);
	}
	fputc('\n', f);
	for (int i = 0; i < p->n; i++) {
		fprintf(f, "%d ", i + 1);
		plot_dat_string(f, p->commits[i]);
		fputc(' ', f);
		plot_dat_string(f, p->dates[i]);
		for (int l = 0; l < p->n_lines; l++)
			plot_dat_number(f, p->values[l * p->n + i]);
		fputc('\n', f);
	}
}

static void trends_gp(FILE *f, const char *stem, const void *vp)
{
	const struct plot_trends *p = vp;
	if (p->svg)
		plot_head_svg(f, stem, p->title, p->ylabel);
	else
		plot_head(f, stem, p->title, p->ylabel, 1000, 500);
	fputs("set yrange [*:*]\nset offsets 0, 0, graph 0.1, graph 0.1\n", f);
	fputs("set key outside right top font \",7\" maxrows 40\n", f);
	fprintf(f, "set xrange [0.5:%d.5]\nset xtics rotate by -35 font \",8\"\nset bmargin 6\n", p->n);
	fputs("set xlabel \"run: commit and date (UTC)\" offset 0,-1\n", f);
	fputs("set arrow from graph 0, first 0 to graph 1, first 0 nohead dt 3\n", f);
	for (int l = 0; l < p->n_lines; l++) {
		if (l)
			fputs(", \\\n     \"\"", f);
		else
			fprintf(f, "plot \"%s.dat\"", stem);
		fprintf(f, " using 1:%d%s with linespoints pt 7 ps 0.6 lw 1.2 lc %d title ", l + 4,
			l ? "" : ":xtic(stringcolumn(2).\"\\n\".stringcolumn(3))", l + 1);
		plot_gp_string(f, p->line_names[l]);
	}
	fputc('\n', f);
}

enum ab_rc plot_write_trends(const char *dir, const char *stem, const struct plot_trends *p, struct ab_diag *d)
{
	if (p->n < 1 || p->n_lines < 1)
		return ab_fail(d, AB_ERR_INTERNAL, "plot '%s' has no data", stem);
	return plot_write_pair(dir, stem, p, trends_dat, trends_gp, d);
}
