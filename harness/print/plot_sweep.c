/*
 * plot_sweep.c - a swept case's chart (plot.h): three panels against the
 * swept size (time per arm with its interval as a band and the copy floor
 * dotted, speedup with its band and the drifted points crossed out, % of
 * copy bandwidth), a colour per series (one per GPU or run), A dashed and
 * B solid. Both axes logarithmic only across more than a decade (x in base
 * 2, ticked at the swept sizes; y with labelled 1-2-5 ticks).
 */
#include "print/plot.h"
#include "print/plot_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Columns of a sweep's .dat, one block (gnuplot index) per series. */
enum { SW_X = 1, SW_A, SW_A_LO, SW_A_HI, SW_B, SW_B_LO, SW_B_HI, SW_SP, SW_SP_LO, SW_SP_HI, SW_PCT_A, SW_PCT_B,
       SW_DRIFT, SW_FLOOR };

static void sweep_dat(FILE *f, const void *vp)
{
	const struct plot_sweep *p = vp;
	for (int s = 0; s < p->n_series; s++) {
		fprintf(f, "%s# block %d: ", s ? "\n\n" : "", s);
		plot_dat_string(f, p->series_names[s]);
		fprintf(f, "\n# x, A median lo hi (%s), B median lo hi (%s), speedup lo hi, A %% of copy, B %% of copy, "
			   "speedup of a drifted case, copy floor (%s)\n", p->time_unit, p->time_unit, p->time_unit);
		for (int i = 0; i < p->n_points; i++) {
			int k = s * p->n_points + i;
			const double v[] = { p->time[0][k], p->time_lo[0][k], p->time_hi[0][k], p->time[1][k],
					     p->time_lo[1][k], p->time_hi[1][k], p->speedup[k], p->speedup_lo[k],
					     p->speedup_hi[k], p->pct_copy[0][k], p->pct_copy[1][k],
					     p->drifted && p->drifted[k] ? p->speedup[k] : NAN,
					     p->copy_floor ? p->copy_floor[k] : NAN };
			fprintf(f, "%.9g", p->x[i]);
			for (size_t j = 0; j < sizeof v / sizeof v[0]; j++)
				plot_dat_number(f, v[j]);
			fputc('\n', f);
		}
	}
}

/* One clause of a plot command; the first names the data file. */
static void sweep_clause(FILE *f, const char *stem, bool *first, int s, const char *using_, const char *style,
			 const char *title)
{
	if (*first)
		fprintf(f, "plot \"%s.dat\"", stem);
	else
		fputs(", \\\n     \"\"", f);
	*first = false;
	fprintf(f, " index %d using %s with %s lc rgb \"%s\" ", s, using_, style, plot_series_color(s));
	if (title) {
		fputs("title ", f);
		plot_gp_string(f, title);
	} else
		fputs("notitle", f);
}

/* "GPU (run 3): B (fused)" */
static const char *series_arm(const struct plot_sweep *p, int s, int arm, char *buf, size_t len)
{
	snprintf(buf, len, "%s: %s", p->series_names[s], p->arm_names[arm]);
	return buf;
}

/* The time panel's y: every time drawn (medians, bands, copy floors);
 * logarithmic only across more than a decade. */
static void sweep_time_scale(FILE *f, const struct plot_sweep *p)
{
	double lo = NAN, hi = NAN;
	int n = p->n_series * p->n_points;
	for (int a = 0; a < 2; a++) {
		plot_extent(p->time[a], n, &lo, &hi);
		plot_extent(p->time_lo[a], n, &lo, &hi);
		plot_extent(p->time_hi[a], n, &lo, &hi);
	}
	plot_extent(p->copy_floor, p->copy_floor ? n : 0, &lo, &hi);
	plot_axis_scale(f, 'y', lo, hi);
}

static void sweep_panel_time(FILE *f, const char *stem, const struct plot_sweep *p)
{
	char using_[32], title[300];
	bool first = true;
	fputs("set title \"time per launch: median, band = its 95% confidence interval\"\n", f);
	fputs("set ylabel ", f);
	plot_gp_string(f, p->time_unit);
	fputs("\nset yrange [*:*]\n", f);
	sweep_time_scale(f, p);
	for (int s = 0; s < p->n_series; s++)
		for (int a = 0; a < 2; a++) {
			int c = a ? SW_B : SW_A;
			snprintf(using_, sizeof using_, "1:%d:%d", c + 1, c + 2);
			sweep_clause(f, stem, &first, s, using_, "filledcurves fs transparent solid 0.2 noborder", NULL);
			snprintf(using_, sizeof using_, "1:%d", c);
			sweep_clause(f, stem, &first, s, using_, a ? "linespoints pt 7 dt 1" : "linespoints pt 6 dt 2",
				     series_arm(p, s, a, title, sizeof title));
		}
	for (int s = 0; p->copy_floor && s < p->n_series; s++) {
		if (!plot_any_finite(p->copy_floor + s * p->n_points, p->n_points))
			continue;
		snprintf(using_, sizeof using_, "1:%d", SW_FLOOR);
		snprintf(title, sizeof title, "%s: copy floor", p->series_names[s]);
		sweep_clause(f, stem, &first, s, using_, "lines dt 3", title);
	}
	fputs("\nunset logscale y\nset ytics autofreq\n", f);
}

static void sweep_panel_speedup(FILE *f, const char *stem, const struct plot_sweep *p)
{
	char using_[32];
	bool first = true;
	fputs("set title \"speedup median(A) / median(B), band = 95% bootstrap interval\"\n", f);
	fputs("set ylabel \"speedup (x)\"\nset yrange [0:*]\n", f);
	fputs("set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 3\n", f);
	for (int s = 0; s < p->n_series; s++) {
		snprintf(using_, sizeof using_, "1:%d:%d", SW_SP_LO, SW_SP_HI);
		sweep_clause(f, stem, &first, s, using_, "filledcurves fs transparent solid 0.2 noborder", NULL);
		snprintf(using_, sizeof using_, "1:%d", SW_SP);
		sweep_clause(f, stem, &first, s, using_, "linespoints pt 7 dt 1", p->series_names[s]);
	}
	/* the key entry on the first series with a drifted point: gnuplot
	 * drops the entry of a clause that draws nothing */
	bool titled = false;
	for (int s = 0; p->drifted && s < p->n_series; s++) {
		bool some = false;
		for (int i = 0; i < p->n_points; i++)
			some = some || p->drifted[s * p->n_points + i];
		if (!some)
			continue;
		snprintf(using_, sizeof using_, "1:%d", SW_DRIFT);
		fprintf(f, ", \\\n     \"\" index %d using %s with points pt 2 ps 2.5 lw 2 lc rgb \"#b03a2e\" %s", s, using_,
			titled ? "notitle" : "title 'drifted: not trusted'");
		titled = true;
	}
	fputs("\nunset arrow 1\n", f);
}

static void sweep_panel_copy(FILE *f, const char *stem, const struct plot_sweep *p)
{
	char using_[32], title[300];
	bool first = true;
	int n = p->n_series * p->n_points;
	fputs("set title \"bandwidth: bytes moved / median, % of the device's copy bandwidth\"\n", f);
	fputs("set ylabel \"% of copy bandwidth\"\nset yrange [0:*]\n", f);
	if (!plot_any_finite(p->pct_copy[0], n) && !plot_any_finite(p->pct_copy[1], n)) {
		/* nothing to draw: an empty panel that says why (an all-missing
		 * plot is a gnuplot error) */
		fputs("set label 1 \"no % of copy: no copy bandwidth known, or the cases are cache-resident\" at graph 0.5, "
		      "graph 0.5 center\n", f);
		fputs("set yrange [0:100]\nplot 1/0 notitle\nunset label 1\n", f);
		return;
	}
	for (int s = 0; s < p->n_series; s++)
		for (int a = 0; a < 2; a++) {
			if (!plot_any_finite(p->pct_copy[a] + s * p->n_points, p->n_points))
				continue; /* a series without a figure (cache-resident, no copy bandwidth) */
			snprintf(using_, sizeof using_, "1:%d", a ? SW_PCT_B : SW_PCT_A);
			sweep_clause(f, stem, &first, s, using_, a ? "linespoints pt 7 dt 1" : "linespoints pt 6 dt 2",
				     series_arm(p, s, a, title, sizeof title));
		}
	fputc('\n', f);
}

/* Characters of the longest key entry: the right margin, in character
 * widths, that holds the keys of all three panels (a fixed margin keeps
 * their x axes aligned). */
static int sweep_key_chars(const struct plot_sweep *p)
{
	int w = 0;
	for (int s = 0; s < p->n_series; s++)
		for (int a = 0; a < 2; a++) {
			int n = (int)(strlen(p->series_names[s]) + 2 + strlen(p->arm_names[a]));
			w = n > w ? n : w;
		}
	return w < 120 ? w : 120;
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
	int key = sweep_key_chars(p);
	fprintf(f, "# Written by abbench. Redraw with: gnuplot %s.gp (in this directory)\n", stem);
	fprintf(f, "if (!exists(\"outfile\")) outfile = \"%s.png\"\n", stem);
	fprintf(f, "set terminal pngcairo size %d,1300 noenhanced font \"sans,10\"\nset output outfile\n",
		1000 + 7 * key);
	fputs("set datafile missing \"?\"\nset multiplot layout 3,1 title ", f);
	plot_gp_string(f, p->title);
	fputs("\nset xlabel ", f);
	plot_gp_string(f, p->xlabel);
	fputs("\nset grid xtics ytics\nset key outside right top Left reverse samplen 2\nset lmargin 12\n", f);
	fprintf(f, "set rmargin %d\n", key + 8);
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
	if (!plot_any_finite(p->time[0], p->n_series * p->n_points) && !plot_any_finite(p->time[1], p->n_series * p->n_points))
		return ab_fail(d, AB_ERR_DATA, "plot '%s': no time to draw", stem);
	return plot_write_pair(dir, stem, p, sweep_dat, sweep_gp, d);
}
