/*
 * plot_trend.c - figures over runs (plot.h: trend, trends), as a PNG or
 * an SVG at the size a dashboard card shows it, with the SVG's hover values.
 */
#include "print/plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "print/escape.h"
#include "print/md.h"

/* The plot area of an SVG chart, in fractions of the canvas, fixed so
 * that plot_hover_* can place each point (gnuplot's own margins move with
 * its tick labels): left, right, bottom, top. The trends' key sits right
 * of their area. */
struct area {
	double l, r, b, t;
};
static const struct area trend_area = { 0.11, 0.985, 0.30, 0.89 };
static const struct area trends_area = { 0.11, 0.70, 0.24, 0.89 };

/* An SVG's fixed area, else a PNG's bottom margin of bmargin lines. */
static void margins(FILE *f, bool svg, const struct area *a, int bmargin)
{
	if (!svg)
		fprintf(f, "set bmargin %d\n", bmargin);
	else
		fprintf(f, "set lmargin at screen %g\nset rmargin at screen %g\nset bmargin at screen %g\n"
			   "set tmargin at screen %g\n", a->l, a->r, a->b, a->t);
}

/* Block 0: a row per point. Block 1: the levels, a horizontal segment per
 * stretch of equal level from half a point before it to half after. */
static void trend_dat(FILE *f, const void *vp)
{
	const struct plot_trend *p = vp;
	fputs("# x value low high level commit date run\n", f);
	for (int i = 0; i < p->n; i++) {
		const double v[4] = { p->value[i], p->low[i], p->high[i], p->level[i] };
		fprintf(f, "%d", i + 1);
		for (int k = 0; k < 4; k++)
			plot_dat_number(f, v[k]);
		plot_dat_printf(f, true, " %s %s %s\n", p->commits[i], p->dates[i], p->run_ids ? p->run_ids[i] : "");
	}
	fputs("\n\n# levels: x level, one segment per stretch\n", f);
	for (int i = 0, j; i < p->n; i = j + 1) {
		j = i;
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
	plot_printf(f, "set label %s at %g, graph %g left offset 0.5,0 textcolor rgb ", text, x, at_y);
	fprintf(f, "\"%s\" front\n", rgb);
}

static void trend_gp(FILE *f, const char *stem, const void *vp)
{
	const struct plot_trend *p = vp;
	plot_head(f, stem, p->svg, p->title, p->ylabel, 1000, 500);
	if (isfinite(p->y_min) && isfinite(p->y_max))
		fprintf(f, "set yrange [%.9g:%.9g]\n", p->y_min, p->y_max);
	else
		fputs("set yrange [*:*]\nset offsets 0, 0, graph 0.12, graph 0.08\n", f);
	/* the key below the chart, off the data */
	fprintf(f, "set key outside bottom center horizontal font \",%d\"\n", p->svg ? 11 : 9);
	/* each tick names its run: id, commit, date and time (UTC); no x label
	 * competes with the three lines */
	fprintf(f, "set xrange [0.5:%d.5]\nset xtics font \",%d\"\nunset xlabel\n", p->n, p->svg ? 11 : 8);
	margins(f, p->svg, &trend_area, 7);
	if (p->baseline >= 0)
		gp_vline(f, p->baseline + 1, "#6c3483", "dt 3", p->baseline_name, 0.97);
	for (int k = 0; k < p->n_steps; k++) {
		bool noise = p->step_noise && p->step_noise[k];
		gp_vline(f, p->step_at[k] + 0.5, noise ? "#7f8c8d" : p->step_better[k] ? "#2a9d3a" : "#c0392b",
			 noise ? "dt 2" : "dt 1", p->step_text[k], 0.92 - 0.05 * (k % 3));
	}
	fprintf(f, "plot \"%s.dat\" index 0 using 1:3:4 with filledcurves lc rgb \"#a6c8ea\" fs solid 0.5 noborder "
		   "title \"95%% interval\", \\\n", stem);
	fputs("     \"\" index 1 using 1:2 with lines lw 1.5 dt 2 lc rgb \"#555555\" title \"level between steps\", \\\n", f);
	plot_printf(f, "     \"\" index 0 using 1:2:xtic(stringcolumn(8).\"\\n\".stringcolumn(6).\"\\n\"."
		    "stringcolumn(7)) with linespoints pt 7 ps 0.9 lw 1.5 lc rgb \"#1f4e9c\" title %s\n",
		    p->value_name);
}

enum ab_rc plot_write_trend(const char *dir, const char *stem, const struct plot_trend *p, struct ab_diag *d)
{
	return plot_write_pair(dir, stem, p, p->n >= 1, trend_dat, trend_gp, d);
}

/* ---- several trends on one chart ---- */

/* One row per run: x, commit, date, then a column per line. */
static void trends_dat(FILE *f, const void *vp)
{
	const struct plot_trends *p = vp;
	fputs("# x commit date, then one column per line:", f);
	for (int l = 0; l < p->n_lines; l++)
		plot_dat_printf(f, false, " %d=%s", l + 4, p->line_names[l]);
	fputc('\n', f);
	for (int i = 0; i < p->n; i++) {
		plot_dat_printf(f, true, "%d %s %s", i + 1, p->commits[i], p->dates[i]);
		for (int l = 0; l < p->n_lines; l++)
			plot_dat_number(f, p->values[l * p->n + i]);
		fputc('\n', f);
	}
}

/* The y range of the lines: all of them, 10% of their span around. */
static void trends_range(const struct plot_trends *p, double *lo, double *hi)
{
	*lo = *hi = NAN;
	plot_extent(p->values, p->n_lines * p->n, lo, hi);
	if (!isfinite(*lo)) {
		*lo = -1;
		*hi = 1;
	}
	double pad = fmax(0.1 * (*hi - *lo), 0.5);
	*lo -= pad;
	*hi += pad;
}

static void trends_gp(FILE *f, const char *stem, const void *vp)
{
	const struct plot_trends *p = vp;
	double lo, hi;
	plot_head(f, stem, p->svg, p->title, p->ylabel, 1000, 500);
	trends_range(p, &lo, &hi);
	fprintf(f, "set yrange [%.9g:%.9g]\nset key outside right top font \",8\" maxrows 40\n", lo, hi);
	fprintf(f, "set xrange [0.5:%d.5]\nset xtics rotate by -35 font \",8\"\n", p->n);
	margins(f, p->svg, &trends_area, 6);
	fputs("set xlabel \"run: commit and date (UTC)\" offset 0,-1\n", f);
	fputs("set arrow from graph 0, first 0 to graph 1, first 0 nohead dt 3\n", f);
	for (int l = 0; l < p->n_lines; l++) {
		plot_clause(f, stem, l);
		fprintf(f, " using 1:%d%s with linespoints pt 7 ps 0.6 lw 1.2 lc %d ", l + 4,
			l ? "" : ":xtic(stringcolumn(2).\"\\n\".stringcolumn(3))", l + 1);
		plot_title(f, p->line_names[l]);
	}
	fputc('\n', f);
}

enum ab_rc plot_write_trends(const char *dir, const char *stem, const struct plot_trends *p, struct ab_diag *d)
{
	return plot_write_pair(dir, stem, p, p->n >= 1 && p->n_lines >= 1, trends_dat, trends_gp, d);
}

/* ---- hover values: a <title> per point ---- */

/* A transparent circle over each point of t's lines (its values and hover
 * texts), drawn in area a on y range [y0, y1] (x's is [0.5, n + 0.5]),
 * its text as <title>. */
static enum ab_rc write_hover(const char *dir, const char *stem, const struct area *a, const struct plot_trends *t,
			      double y0, double y1, struct ab_diag *d)
{
	char path[4096], *svg = NULL, *end = NULL;
	size_t cap = 0;
	enum ab_rc rc = plot_path(path, sizeof path, dir, stem, "svg", d);
	if (rc)
		return rc;
	FILE *in = fopen(path, "rb");
	if (!in)
		return ab_fail(d, AB_ERR_IO, "cannot read '%s'", path);
	ssize_t n = getdelim(&svg, &cap, '\0', in); /* the whole file: an SVG holds no NUL */
	bool bad = ferror(in);
	fclose(in);
	for (char *p = svg; n > 0 && (p = strstr(p, "</svg>")); p++)
		end = p;
	struct md_file mf;
	if (n < 1 || bad)
		rc = ab_fail(d, bad ? AB_ERR_IO : AB_ERR_NOMEM, "cannot read '%s'", path);
	else
		rc = end ? md_file_open(&mf, path, d) : ab_fail(d, AB_ERR_DATA, "'%s.svg' is no whole SVG", stem);
	if (rc) {
		free(svg);
		return rc;
	}
	fwrite(svg, 1, (size_t)(end - svg), mf.f);
	fputs("<g id=\"abbench-hover\">\n", mf.f);
	for (int i = 0; i < t->n_lines * t->n; i++) {
		if (!t->hover[i] || !t->hover[i][0] || !isfinite(t->values[i]))
			continue;
		double x = i % t->n + 1, x0 = 0.5, x1 = t->n + 0.5;
		double px = PLOT_SVG_WIDTH * (a->l + (x - x0) / (x1 - x0) * (a->r - a->l));
		double py = PLOT_SVG_HEIGHT * (1 - (a->b + (t->values[i] - y0) / (y1 - y0) * (a->t - a->b)));
		html_printf(mf.f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"9\" fill=\"#000\" fill-opacity=\"0\">"
			    "<title>%s</title></circle>\n", px, py, t->hover[i]);
	}
	fputs("</g>\n</svg>\n", mf.f);
	free(svg);
	return md_file_commit(&mf, d);
}

enum ab_rc plot_hover_trend(const char *dir, const char *stem, const struct plot_trend *p, struct ab_diag *d)
{
	if (!p->svg || !p->hover || !isfinite(p->y_min) || !isfinite(p->y_max) || !(p->y_max > p->y_min))
		return AB_OK;
	struct plot_trends line = { .n_lines = 1, .n = p->n, .values = p->value, .hover = p->hover };
	return write_hover(dir, stem, &trend_area, &line, p->y_min, p->y_max, d);
}

enum ab_rc plot_hover_trends(const char *dir, const char *stem, const struct plot_trends *p, struct ab_diag *d)
{
	double lo, hi;
	if (!p->svg || !p->hover)
		return AB_OK;
	trends_range(p, &lo, &hi);
	return write_hover(dir, stem, &trends_area, p, lo, hi, d);
}
