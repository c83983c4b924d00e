/*
 * plot_sweep.c - a swept case's chart (plot.h): its three panels, the
 * copy floor dotted and the drifted points crossed out.
 */
#include "print/plot.h"

#include <math.h>
#include <string.h>

/* Columns of a sweep's .dat, one block (gnuplot index) per series. */
enum { SW_X = 1, SW_A, SW_A_LO, SW_A_HI, SW_B, SW_B_LO, SW_B_HI, SW_SP, SW_SP_LO, SW_SP_HI, SW_PCT_A, SW_PCT_B,
       SW_DRIFT, SW_FLOOR };

static void sweep_dat(FILE *f, const void *vp)
{
	const struct plot_sweep *p = vp;
	for (int s = 0; s < p->n_series; s++) {
		fprintf(f, "%s# block %d: ", s ? "\n\n" : "", s);
		plot_dat_printf(f, true, "%s", p->series_names[s]);
		fprintf(f, "\n# x, A median lo hi (%s), B median lo hi (%s), speedup lo hi, A %% of copy, B %% of copy, "
			   "speedup of a drifted case, copy floor (%s)\n", p->time_unit, p->time_unit, p->time_unit);
		for (int i = 0; i < p->n_points; i++) {
			int k = s * p->n_points + i;
			fprintf(f, "%.9g", p->x[i]);
			for (int j = 0; j < PLOT_SW_FLOOR; j++)
				plot_dat_number(f, p->v[j][k]);
			plot_dat_number(f, p->drifted[k] ? p->v[PLOT_SW_SP][k] : NAN);
			plot_dat_number(f, p->v[PLOT_SW_FLOOR][k]);
			fputc('\n', f);
		}
	}
}

static bool any_finite(const double *v, int n)
{
	for (int i = 0; i < n; i++)
		if (isfinite(v[i]))
			return true;
	return false;
}

#define BAND "filledcurves fs transparent solid 0.2 noborder"
/* A arm dashed, B solid */
static const char *const arm_style[2] = { "linespoints pt 6 dt 2", "linespoints pt 7 dt 1" };

/* Clause *k of a plot command: series s's column col (with col_hi > 0: a
 * band from col to col_hi), in the series' colour; its key entry the
 * series' name and what ("GPU (run 3): B (fused)"; what "": the name
 * alone; NULL: no entry). */
static void sweep_clause(FILE *f, const char *stem, int *k, const struct plot_sweep *p, int s, int col, int col_hi,
			 const char *style, const char *what)
{
	char title[300];
	snprintf(title, sizeof title, "%s%s%s", p->series_names[s], what && what[0] ? ": " : "", what ? what : "");
	plot_clause(f, stem, (*k)++);
	fprintf(f, " index %d using 1:%d", s, col);
	if (col_hi > 0)
		fprintf(f, ":%d", col_hi);
	fprintf(f, " with %s lc rgb \"%s\" ", style, plot_series_color(s));
	plot_title(f, what ? title : NULL);
}

static void sweep_panel_time(FILE *f, const char *stem, const struct plot_sweep *p)
{
	int k = 0;
	double lo = NAN, hi = NAN;
	plot_printf(f, "set title \"time per launch: median, band = its 95%% confidence interval\"\nset ylabel %s\n"
		    "set yrange [*:*]\n", p->time_unit);
	/* y holds every time drawn: medians, bands, copy floors */
	for (int c = PLOT_SW_A; c <= PLOT_SW_B_HI; c++)
		plot_extent(p->v[c], p->n_series * p->n_points, &lo, &hi);
	plot_extent(p->v[PLOT_SW_FLOOR], p->n_series * p->n_points, &lo, &hi);
	plot_axis_scale(f, 'y', lo, hi);
	for (int s = 0; s < p->n_series; s++)
		for (int a = 0; a < 2; a++) {
			int c = a ? SW_B : SW_A;
			sweep_clause(f, stem, &k, p, s, c + 1, c + 2, BAND, NULL);
			sweep_clause(f, stem, &k, p, s, c, 0, arm_style[a], p->arm_names[a]);
		}
	for (int s = 0; s < p->n_series; s++)
		if (any_finite(p->v[PLOT_SW_FLOOR] + s * p->n_points, p->n_points))
			sweep_clause(f, stem, &k, p, s, SW_FLOOR, 0, "lines dt 3", "copy floor");
	fputs("\nunset logscale y\nset ytics autofreq\n", f);
}

static void sweep_panel_speedup(FILE *f, const char *stem, const struct plot_sweep *p)
{
	int k = 0;
	fputs("set title \"speedup median(A) / median(B), band = 95% bootstrap interval\"\n", f);
	fputs("set ylabel \"speedup (x)\"\nset yrange [0:*]\n", f);
	fputs("set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 3\n", f);
	for (int s = 0; s < p->n_series; s++) {
		sweep_clause(f, stem, &k, p, s, SW_SP_LO, SW_SP_HI, BAND, NULL);
		sweep_clause(f, stem, &k, p, s, SW_SP, 0, arm_style[1], "");
	}
	/* the key entry on the first series with a drifted point: gnuplot
	 * drops the entry of a clause that draws nothing */
	bool titled = false;
	for (int s = 0; s < p->n_series; s++) {
		if (!memchr(p->drifted + s * p->n_points, true, (size_t)p->n_points))
			continue;
		fprintf(f, ", \\\n     \"\" index %d using 1:%d with points pt 2 ps 2.5 lw 2 lc rgb \"#b03a2e\" %s", s,
			SW_DRIFT, titled ? "notitle" : "title 'drifted: not trusted'");
		titled = true;
	}
	fputs("\nunset arrow 1\n", f);
}

static void sweep_panel_copy(FILE *f, const char *stem, const struct plot_sweep *p)
{
	int k = 0;
	int n = p->n_series * p->n_points;
	fputs("set title \"bandwidth: bytes moved / median, % of the device's copy bandwidth\"\n", f);
	fputs("set ylabel \"% of copy bandwidth\"\nset yrange [0:*]\n", f);
	if (!any_finite(p->v[PLOT_SW_PCT_A], n) && !any_finite(p->v[PLOT_SW_PCT_B], n)) {
		/* nothing to draw: an empty panel that says why (an all-missing
		 * plot is a gnuplot error) */
		fputs("set label 1 \"no % of copy: no copy bandwidth known, or the cases are cache-resident\" at graph 0.5, "
		      "graph 0.5 center\n", f);
		fputs("set yrange [0:100]\nplot 1/0 notitle\nunset label 1\n", f);
		return;
	}
	for (int s = 0; s < p->n_series; s++)
		for (int a = 0; a < 2; a++) /* a series without a figure: cache-resident, or no copy bandwidth */
			if (any_finite(p->v[a ? PLOT_SW_PCT_B : PLOT_SW_PCT_A] + s * p->n_points, p->n_points))
				sweep_clause(f, stem, &k, p, s, a ? SW_PCT_B : SW_PCT_A, 0, arm_style[a],
					     p->arm_names[a]);
	fputc('\n', f);
}

/* The swept axis: logarithmic (base 2, the sizes doubling) only across
 * more than a decade, else linear; ticked at the swept values while they
 * are few. */
static void sweep_x_axis(FILE *f, const struct plot_sweep *p)
{
	double x0 = p->x[0], x1 = p->x[p->n_points - 1];
	if (plot_log_scale(x0, x1))
		fprintf(f, "set logscale x 2\nset xrange [%.9g:%.9g]\n", x0 / 1.2, x1 * 1.2);
	else {
		double pad = x1 > x0 ? 0.05 * (x1 - x0) : 0.5 * x0;
		fprintf(f, "unset logscale x\nset xrange [%.9g:%.9g]\n", x0 - pad, x1 + pad);
	}
	if (p->n_points > 12) {
		fputs("set format x \"%.0f\"\n", f);
		return;
	}
	fputs("set xtics (", f);
	for (int i = 0; i < p->n_points; i++)
		fprintf(f, "%s\"%.0f\" %.9g", i ? ", " : "", p->x[i], p->x[i]);
	fputs(")\n", f);
}

static void sweep_gp(FILE *f, const char *stem, const void *vp)
{
	const struct plot_sweep *p = vp;
	/* a right margin that holds the keys of all three panels (a fixed
	 * margin keeps their x axes aligned) */
	int key = plot_longest(p->series_names, p->n_series) + 2 + plot_longest(p->arm_names, 2);
	key = key < 120 ? key : 120;
	plot_script(f, stem, false, 1000 + 7 * key, 1300);
	plot_printf(f, "set datafile missing \"?\"\nset multiplot layout 3,1 title %s\nset xlabel %s\n", p->title,
		    p->xlabel);
	fprintf(f, "set grid xtics ytics\nset key outside right top Left reverse samplen 2\nset lmargin 12\n"
		   "set rmargin %d\n", key + 8);
	sweep_x_axis(f, p);
	sweep_panel_time(f, stem, p);
	sweep_panel_speedup(f, stem, p);
	sweep_panel_copy(f, stem, p);
	fputs("unset multiplot\n", f);
}

enum ab_rc plot_write_sweep(const char *dir, const char *stem, const struct plot_sweep *p, struct ab_diag *d)
{
	if (p->n_points < 1 || p->n_series < 1)
		return ab_fail(d, AB_ERR_INTERNAL, "plot '%s' has no data", stem);
	for (int i = 0; i < p->n_points; i++)
		if (!(p->x[i] > 0) || (i && !(p->x[i] > p->x[i - 1])))
			return ab_fail(d, AB_ERR_INTERNAL, "plot '%s': x values must be positive and ascending", stem);
	int n = p->n_series * p->n_points;
	if (!any_finite(p->v[PLOT_SW_A], n) && !any_finite(p->v[PLOT_SW_B], n))
		return ab_fail(d, AB_ERR_DATA, "plot '%s': no time to draw", stem);
	return plot_write_pair(dir, stem, p, true, sweep_dat, sweep_gp, d);
}
