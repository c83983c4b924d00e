/*
 * plot.c - gnuplot scripts and data files for the report's three charts,
 * and the driver that runs gnuplot on them.
 *
 * Every chart is a pair STEM.dat + STEM.gp in one directory; the script
 * names the data by its bare file name, so `cd DIR && gnuplot STEM.gp`
 * redraws STEM.png by hand. The harness runs gnuplot in DIR with
 * `-e "outfile='/dev/stdout'"` (the script honours outfile when it is set),
 * reads the PNG from a pipe into an outfile (common/outfile.h) of its own
 * and installs it as STEM.png once it is whole (signature first, IEND
 * last). So every byte that reaches the disk is written by abbench: a full
 * disk is an IO error of the command (exit 3), never a truncated chart,
 * and a temporary file is removed on a signal like any outfile's.
 * Every string that reaches a script (titles, key entries, tick labels,
 * names from the database) goes through one quoting function,
 * escape_gnuplot (print/escape.h): a single-quoted gnuplot string, in which
 * gnuplot expands nothing (no `command`, no @macro, no backslash escape),
 * with '' for a quote and control characters as spaces (a raw newline
 * would end the command and start another). Data files hold strings too,
 * but gnuplot only reads them as data. The terminal is noenhanced, so a
 * kernel named a_b does not grow a subscript. Figures come computed (the
 * zoom of a panel, a group's median): this file only draws.
 */
#include "print/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/outfile.h"
#include "print/escape.h"
#include "print/md.h"

static const unsigned char png_signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

/* Every string of a script: escape_gnuplot's single-quoted literal. */
static void gp_string(FILE *f, const char *s)
{
	escape_gnuplot(f, s);
}

/* A string field of a data file: quoted, with no quote inside (gnuplot's
 * data reader has no escape for it) and no line break. */
static void dat_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++)
		fputc(*s == '"' ? '\'' : ((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s), f);
	fputc('"', f);
}

/* A comment line's text in a data file: no line break. */
static void dat_comment(FILE *f, const char *s)
{
	for (; s && *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
}

static void dat_number(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, " %.9g", v);
	else
		fputs(" ?", f);
}

/* Opens DIR/STEM.EXT for writing through md_file (an outfile). */
static enum ab_rc open_in(struct md_file *mf, const char *dir, const char *stem, const char *ext,
			  struct ab_diag *d)
{
	char path[4096];
	if (snprintf(path, sizeof path, "%s/%s.%s", dir, stem, ext) >= (int)sizeof path)
		return ab_fail(d, AB_ERR_USAGE, "output path too long in '%s'", dir);
	return md_file_open(mf, path, d);
}

/* The common head of every script: terminal, output, title, y label. */
static void gp_head_size(FILE *f, const char *stem, const char *title, const char *ylabel, int width, int height);

/* The head of a chart drawn as SVG at the size a dashboard card shows it
 * (720 x 360 px, text at 11 pt: legible there, and sharp at any zoom). */
static void gp_head_svg(FILE *f, const char *stem, const char *title, const char *ylabel)
{
	fputs("# Written by abbench. Redraw with: gnuplot ", f);
	fprintf(f, "%s.gp (in this directory)\n", stem);
	fprintf(f, "if (!exists(\"outfile\")) outfile = \"%s.svg\"\n", stem);
	fputs("set terminal svg size 720,360 dynamic noenhanced font \"sans,11\" background rgb \"white\"\n", f);
	fputs("set output outfile\nset datafile missing \"?\"\nset title ", f);
	gp_string(f, title);
	fputs("\nset ylabel ", f);
	gp_string(f, ylabel);
	fputs("\nset yrange [0:*]\nset grid ytics\n", f);
}

static void gp_head(FILE *f, const char *stem, const char *title, const char *ylabel, int width)
{
	gp_head_size(f, stem, title, ylabel, width, 500);
}

static void gp_head_size(FILE *f, const char *stem, const char *title, const char *ylabel, int width, int height)
{
	fputs("# Written by abbench. Redraw with: gnuplot ", f);
	fprintf(f, "%s.gp (in this directory)\n", stem);
	fprintf(f, "if (!exists(\"outfile\")) outfile = \"%s.png\"\n", stem);
	fprintf(f, "set terminal pngcairo size %d,%d noenhanced font \"sans,10\"\n", width, height);
	fputs("set output outfile\n", f);
	fputs("set datafile missing \"?\"\n", f);
	fputs("set title ", f);
	gp_string(f, title);
	fputs("\nset ylabel ", f);
	gp_string(f, ylabel);
	fputs("\nset yrange [0:*]\nset grid ytics\n", f);
}

/* Whether stem is a file-name stem (escape_stem's characters): scripts
 * name their data and output by it inside double quotes. */
static bool stem_ok(const char *stem)
{
	char clean[256];
	return *stem && strlen(stem) < sizeof clean && !strcmp(escape_stem(stem, clean, sizeof clean), stem);
}

/* Writes the .dat with write_dat and the .gp with write_gp, both
 * committed only when both were written. */
static enum ab_rc write_pair(const char *dir, const char *stem, const void *p,
			     void (*write_dat)(FILE *, const void *), void (*write_gp)(FILE *, const char *, const void *),
			     struct ab_diag *d)
{
	struct md_file dat, gp;
	if (!stem_ok(stem))
		return ab_fail(d, AB_ERR_INTERNAL, "chart stem '%.64s' is not a file-name stem", stem);
	enum ab_rc rc = open_in(&dat, dir, stem, "dat", d);
	if (rc != AB_OK)
		return rc;
	rc = open_in(&gp, dir, stem, "gp", d);
	if (rc != AB_OK) {
		md_file_abort(&dat);
		return rc;
	}
	write_dat(dat.f, p);
	write_gp(gp.f, stem, p);
	rc = md_file_commit(&dat, d);
	if (rc != AB_OK) {
		md_file_abort(&gp);
		return rc;
	}
	return md_file_commit(&gp, d);
}

/* ---- bars with error bars ---- */

static void bars_dat(FILE *f, const void *vp)
{
	const struct plot_bars *p = vp;
	fputs("# row note", f);
	for (int s = 0; s < p->n_series; s++)
		fprintf(f, " | series %d: value low high", s + 1);
	fputc('\n', f);
	for (int r = 0; r < p->n_rows; r++) {
		dat_string(f, p->row_names[r]);
		fputc(' ', f);
		dat_string(f, p->row_notes ? p->row_notes[r] : "");
		for (int s = 0; s < p->n_series; s++) {
			int i = r * p->n_series + s;
			bool ci = isfinite(p->low[i]) && isfinite(p->high[i]);
			dat_number(f, p->value[i]);
			/* no interval (too few samples): a bar without whiskers */
			dat_number(f, ci ? p->low[i] : p->value[i]);
			dat_number(f, ci ? p->high[i] : p->value[i]);
		}
		fputc('\n', f);
	}
}

/* Histogram clusters sit at x = 0, 1, ...; with "gap 2" a cluster of n
 * bars spans n + 2 slots of width 1 / (n + 2), so bar s of row r is
 * centred at r + (s - (n - 1) / 2) / (n + 2). */
static void bars_labels(FILE *f, const struct plot_bars *p)
{
	for (int s = 0; p->value_format && s < p->n_series; s++) {
		int c = 3 + 3 * s;
		fprintf(f, ", \\\n     \"\" using ($0 + %g):(column(%d)):(sprintf(", (s - (p->n_series - 1) / 2.0) /
			(p->n_series + 2), c + 2);
		gp_string(f, p->value_format);
		fprintf(f, ", column(%d))) with labels offset 0,0.8 font \",9\" notitle", c);
	}
}

/* Every marked bar again, hatched grey over its own, and the mark's word
 * above its value (a drifted case: not to be read as a speedup). */
static void bars_marks(FILE *f, const struct plot_bars *p)
{
	for (int r = 0; p->marked && r < p->n_rows; r++)
		for (int s = 0; s < p->n_series; s++) {
			int i = r * p->n_series + s;
			if (!p->marked[i] || !isfinite(p->value[i]))
				continue;
			double x = r + (s - (p->n_series - 1) / 2.0) / (p->n_series + 2), w = 0.5 / (p->n_series + 2);
			fprintf(f, "set object rect from %g, graph 0 to %g, first %.9g fc rgb \"#888888\" fs pattern 4 "
				   "border lc rgb \"#555555\" front\n", x - w, x + w, p->value[i]);
			fputs("set label ", f);
			gp_string(f, p->mark_word ? p->mark_word : "marked");
			fprintf(f, " at %g, first %.9g center offset 0,2.2 font \",8\" textcolor rgb \"#b03a2e\" front\n", x,
				fmax(p->value[i], isfinite(p->high[i]) ? p->high[i] : p->value[i]));
		}
}

static void bars_gp(FILE *f, const char *stem, const void *vp)
{
	const struct plot_bars *p = vp;
	/* 900 px for up to 12 rows, then 60 px a row more: at 30 cases a tick
	 * label still has its own place */
	int width = 900 + (p->n_rows > 12 ? 60 * (p->n_rows - 12) : 0);
	gp_head_size(f, stem, p->title, p->ylabel, width, p->n_rows > 8 ? 650 : 500);
	fputs("set style data histograms\nset style histogram errorbars gap 2 lw 1\n", f);
	fputs("set style fill solid 0.6 border -1\nset key outside top center horizontal\n"
	      "set offsets 0, 0, graph 0.15, 0\n", f);
	if (p->n_rows > 8) /* one line a label, ending at its tick */
		fputs("set xtics rotate by 45 right font \",9\"\nset bmargin 14\n", f);
	else
		fputs("set xtics rotate by -20 font \",9\"\nset bmargin 5\n", f);
	bars_marks(f, p);
	if (isfinite(p->reference_line))
		fprintf(f, "set arrow from graph 0, first %g to graph 1, first %g nohead dt 2\n", p->reference_line,
			p->reference_line);
	for (int s = 0; s < p->n_series; s++) {
		int c = 3 + 3 * s;
		fputs(s ? ", \\\n     \"\"" : "plot ", f);
		if (!s)
			fprintf(f, "\"%s.dat\"", stem);
		fprintf(f, " using %d:%d:%d%s title ", c, c + 1, c + 2,
			s ? "" : p->n_rows > 8 ? ":xtic(strlen(stringcolumn(2)) ? stringcolumn(1).\" \".stringcolumn(2) : stringcolumn(1))"
			       : ":xtic(strlen(stringcolumn(2)) ? stringcolumn(1).\"\\n\".stringcolumn(2) : stringcolumn(1))");
		gp_string(f, p->series_names[s]);
	}
	bars_labels(f, p);
	fputc('\n', f);
}

enum ab_rc plot_write_bars(const char *dir, const char *stem, const struct plot_bars *p, struct ab_diag *d)
{
	if (p->n_rows < 1 || p->n_series < 1)
		return ab_fail(d, AB_ERR_INTERNAL, "plot '%s' has no data", stem);
	return write_pair(dir, stem, p, bars_dat, bars_gp, d);
}

/* ---- stacked bars ---- */

static void stack_dat(FILE *f, const void *vp)
{
	const struct plot_stack *p = vp;
	fputs("# bar, then one column per segment:", f);
	for (int s = 0; s < p->n_segments; s++) {
		fprintf(f, " %d=", s + 2);
		dat_comment(f, p->segment_names[s]);
	}
	fputc('\n', f);
	for (int r = 0; r < p->n_rows; r++) {
		dat_string(f, p->row_names[r]);
		for (int s = 0; s < p->n_segments; s++)
			dat_number(f, p->values[r * p->n_segments + s]);
		fputc('\n', f);
	}
}

static void stack_gp(FILE *f, const char *stem, const void *vp)
{
	const struct plot_stack *p = vp;
	gp_head(f, stem, p->title, p->ylabel, 1100);
	fputs("set style data histograms\nset style histogram rowstacked\n", f);
	fputs("set style fill solid 0.8 border -1\nset boxwidth 0.6\nset key outside right\n", f);
	for (int s = 0; s < p->n_segments; s++) {
		fputs(s ? ", \\\n     \"\"" : "plot ", f);
		if (!s)
			fprintf(f, "\"%s.dat\"", stem);
		fprintf(f, " using %d%s", s + 2, s ? "" : ":xtic(1)");
		if (p->segment_colors && p->segment_colors[s])
			fprintf(f, " lc rgb \"%s\"", p->segment_colors[s]);
		fputs(" title ", f);
		gp_string(f, p->segment_names[s]);
	}
	fputc('\n', f);
}

enum ab_rc plot_write_stacked(const char *dir, const char *stem, const struct plot_stack *p, struct ab_diag *d)
{
	if (p->n_rows < 1 || p->n_segments < 1)
		return ab_fail(d, AB_ERR_INTERNAL, "plot '%s' has no data", stem);
	return write_pair(dir, stem, p, stack_dat, stack_gp, d);
}

/* ---- panels with their own zoom ---- */

/* A panel's y range: its zoom [lo, hi] (the arm's p1 and p99, computed
 * by the summary) padded by 10% of its span, and never a zero span; NAN
 * when the zoom is unknown (gnuplot's autoscale then). */
static void panel_range(const double *lo_in, const double *hi_in, int k, double *lo, double *hi)
{
	double p1 = lo_in ? lo_in[k] : NAN, p99 = hi_in ? hi_in[k] : NAN;
	*lo = *hi = NAN;
	if (!isfinite(p1) || !isfinite(p99))
		return;
	double pad = fmax((p99 - p1) * 0.10, fabs(p99) * 0.005);
	*lo = p1 - pad;
	*hi = p99 + pad;
}

/* Data blocks, one per group ("index g"): the values, one a line, with x. */
static void group_blocks(FILE *f, int n_groups, const char *const *names, const double *const *values,
			 const int *n_values, const int *start)
{
	for (int g = 0; g < n_groups; g++) {
		fprintf(f, "%s# block %d: ", g ? "\n\n" : "", g);
		dat_comment(f, names[g]);
		fputc('\n', f);
		for (int i = 0; i < n_values[g]; i++) {
			if (!isfinite(values[g][i]))
				continue;
			fprintf(f, "%d", (start ? start[g] : 0) + i + 1);
			dat_number(f, values[g][i]);
			fputc('\n', f);
		}
	}
}

/* ---- box plots ---- */

static void boxes_dat(FILE *f, const void *vp)
{
	const struct plot_boxes *p = vp;
	group_blocks(f, p->n_groups, p->group_names, p->values, p->n_values, NULL);
}

static int panel_of(const struct plot_boxes *p, int g)
{
	return p->panel ? p->panel[g] : 0;
}

/* One panel: its groups side by side, ticked "A1\neager". */
static void boxes_panel(FILE *f, const char *stem, const struct plot_boxes *p, int k)
{
	int n = 0;
	fputs("set title ", f);
	gp_string(f, p->panel_names ? p->panel_names[k] : "");
	fputs("\nset xtics (", f);
	for (int g = 0; g < p->n_groups; g++) {
		char tick[160];
		if (panel_of(p, g) != k)
			continue;
		snprintf(tick, sizeof tick, "%s%s%s", p->group_names[g], p->group_notes ? "\n" : "",
			 p->group_notes ? p->group_notes[g] : "");
		fputs(n ? ", " : "", f);
		gp_string(f, tick);
		fprintf(f, " %d", ++n);
	}
	fprintf(f, ")\nset xrange [0.4:%d.6]\n", n);
	n = 0;
	for (int g = 0; g < p->n_groups; g++) {
		if (panel_of(p, g) != k)
			continue;
		fprintf(f, "%s\"%s.dat\" index %d using (%d):2 lc rgb \"%s\"", n ? ", \\\n     " : "plot ", stem, g,
			n + 1, k ? "#e07b28" : "#2f6db5");
		n++;
	}
	fputc('\n', f);
}

static void boxes_gp(FILE *f, const char *stem, const void *vp)
{
	const struct plot_boxes *p = vp;
	int np = p->n_panels > 0 ? p->n_panels : 1;
	gp_head(f, stem, p->title, p->ylabel, 900);
	fputs("unset title\nset style data boxplot\nset style boxplot outliers pointtype 7\nset pointsize 0.5\n", f);
	fputs("set style fill solid 0.35 border -1\nset boxwidth 0.5\nset key off\n", f);
	if (isfinite(p->y_lo) && isfinite(p->y_hi) && p->y_hi > p->y_lo) {
		/* one range for every panel, padded: 5% of the span, or of the
		 * log span on a log axis */
		double lo = p->y_lo, hi = p->y_hi;
		if (p->log_y && lo > 0) {
			double r = pow(hi / lo, 0.05);
			fprintf(f, "set logscale y\nset yrange [%.9g:%.9g]\n", lo / r, hi * r);
		} else
			fprintf(f, "set yrange [%.9g:%.9g]\n", fmax(0, lo - 0.05 * (hi - lo)), hi + 0.05 * (hi - lo));
	} else
		fputs("set yrange [*:*]\n", f);
	fputs("set multiplot layout 1,", f);
	fprintf(f, "%d title ", np);
	gp_string(f, p->title);
	fputc('\n', f);
	for (int k = 0; k < np; k++)
		boxes_panel(f, stem, p, k);
	fputs("unset multiplot\n", f);
}

enum ab_rc plot_write_boxes(const char *dir, const char *stem, const struct plot_boxes *p, struct ab_diag *d)
{
	if (p->n_groups < 1)
		return ab_fail(d, AB_ERR_INTERNAL, "plot '%s' has no data", stem);
	for (int g = 0; g < p->n_groups; g++)
		if (p->n_values[g] < 1)
			return ab_fail(d, AB_ERR_DATA, "plot '%s': group '%s' has no values", stem, p->group_names[g]);
	return write_pair(dir, stem, p, boxes_dat, boxes_gp, d);
}

/* ---- sweeps: three panels against a log2 axis ---- */

/* Columns of a sweep's .dat, one block (gnuplot index) per series. */
enum { SW_X = 1, SW_A, SW_A_LO, SW_A_HI, SW_B, SW_B_LO, SW_B_HI, SW_SP, SW_SP_LO, SW_SP_HI, SW_PCT_A, SW_PCT_B,
       SW_DRIFT, SW_FLOOR };

static void sweep_dat(FILE *f, const void *vp)
{
	const struct plot_sweep *p = vp;
	for (int s = 0; s < p->n_series; s++) {
		fprintf(f, "%s# block %d: ", s ? "\n\n" : "", s);
		dat_string(f, p->series_names[s]);
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
				dat_number(f, v[j]);
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

/* One clause of a plot command; the first names the data file. */
static void sweep_clause(FILE *f, const char *stem, bool *first, int s, const char *using_, const char *style,
			 const char *title)
{
	if (*first)
		fprintf(f, "plot \"%s.dat\"", stem);
	else
		fputs(", \\\n     \"\"", f);
	*first = false;
	fprintf(f, " index %d using %s with %s lc %d ", s, using_, style, s + 1);
	if (title) {
		fputs("title ", f);
		gp_string(f, title);
	} else
		fputs("notitle", f);
}

/* "GPU (run 3): B (fused)" */
static const char *series_arm(const struct plot_sweep *p, int s, int arm, char *buf, size_t len)
{
	snprintf(buf, len, "%s: %s", p->series_names[s], p->arm_names[arm]);
	return buf;
}

static void sweep_panel_time(FILE *f, const char *stem, const struct plot_sweep *p)
{
	char using_[32], title[300];
	bool first = true;
	fputs("set title \"time per launch: median, band = its 95% confidence interval\"\n", f);
	fputs("set ylabel ", f);
	gp_string(f, p->time_unit);
	fputs("\nset logscale y\nset yrange [*:*]\n", f);
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
		if (!any_finite(p->copy_floor + s * p->n_points, p->n_points))
			continue;
		snprintf(using_, sizeof using_, "1:%d", SW_FLOOR);
		snprintf(title, sizeof title, "%s: copy floor", p->series_names[s]);
		sweep_clause(f, stem, &first, s, using_, "lines dt 3", title);
	}
	fputs("\nunset logscale y\n", f);
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
	bool any = false;
	for (int k = 0; p->drifted && k < p->n_series * p->n_points; k++)
		any = any || p->drifted[k];
	for (int s = 0; any && s < p->n_series; s++) {
		snprintf(using_, sizeof using_, "1:%d", SW_DRIFT);
		fprintf(f, ", \\\n     \"\" index %d using %s with points pt 2 ps 2.5 lw 2 lc rgb \"#b03a2e\" %s", s, using_,
			s ? "notitle" : "title 'drifted: not trusted'");
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
	if (!any_finite(p->pct_copy[0], n) && !any_finite(p->pct_copy[1], n)) {
		/* nothing to draw: an empty panel that says why (an all-missing
		 * plot is a gnuplot error) */
		fputs("set label 1 \"no % of copy: no copy bandwidth known, or the cases are cache-resident\" at graph 0.5, "
		      "graph 0.5 center\n", f);
		fputs("set yrange [0:100]\nplot 1/0 notitle\nunset label 1\n", f);
		return;
	}
	for (int s = 0; s < p->n_series; s++)
		for (int a = 0; a < 2; a++) {
			if (!any_finite(p->pct_copy[a] + s * p->n_points, p->n_points))
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

static void sweep_gp(FILE *f, const char *stem, const void *vp)
{
	const struct plot_sweep *p = vp;
	int key = sweep_key_chars(p);
	fputs("# Written by abbench. Redraw with: gnuplot ", f);
	fprintf(f, "%s.gp (in this directory)\n", stem);
	fprintf(f, "if (!exists(\"outfile\")) outfile = \"%s.png\"\n", stem);
	fprintf(f, "set terminal pngcairo size %d,1300 noenhanced font \"sans,10\"\nset output outfile\n",
		1000 + 7 * key);
	fputs("set datafile missing \"?\"\nset multiplot layout 3,1 title ", f);
	gp_string(f, p->title);
	fputs("\nset logscale x 2\nset format x \"%.0f\"\nset xlabel ", f);
	gp_string(f, p->xlabel);
	fputs("\nset grid xtics ytics\nset key outside right top\nset lmargin 12\n", f);
	fprintf(f, "set rmargin %d\n", key + 10);
	fprintf(f, "set xrange [%.9g:%.9g]\n", p->x[0] / 1.2, p->x[p->n_points - 1] * 1.2);
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
	if (!any_finite(p->time[0], p->n_series * p->n_points) && !any_finite(p->time[1], p->n_series * p->n_points))
		return ab_fail(d, AB_ERR_DATA, "plot '%s': no time to draw", stem);
	return write_pair(dir, stem, p, sweep_dat, sweep_gp, d);
}

/* ---- samples in time order ---- */

static void series_dat(FILE *f, const void *vp)
{
	const struct plot_series *p = vp;
	group_blocks(f, p->n_groups, p->group_names, p->values, p->n_values, p->start);
	/* one more block per group: its median as a segment over its x range */
	for (int g = 0; g < p->n_groups; g++) {
		double m = p->medians[g];
		fprintf(f, "\n\n# block %d: median of ", p->n_groups + g);
		dat_comment(f, p->group_names[g]);
		fprintf(f, "\n%d", p->start[g] + 1);
		dat_number(f, m);
		fprintf(f, "\n%d", p->start[g] + p->n_values[g]);
		dat_number(f, m);
		fputc('\n', f);
	}
}

static void series_panel(FILE *f, const char *stem, const struct plot_series *p, int k, bool last)
{
	double lo, hi;
	int n = 0;
	panel_range(p->panel_lo, p->panel_hi, k, &lo, &hi);
	fputs("set ylabel ", f);
	gp_string(f, p->panel_names[k]);
	fputc('\n', f);
	if (isfinite(lo))
		fprintf(f, "set yrange [%.9g:%.9g]\n", lo, hi);
	if (last) {
		fputs("set format x \"%g\"\nset xlabel ", f);
		gp_string(f, p->xlabel);
		fputc('\n', f);
	} else
		fputs("set format x \"\"\nunset xlabel\n", f);
	for (int g = 0; g < p->n_groups; g++) {
		if (p->panel[g] != k)
			continue;
		const char *rgb = p->second[g] ? "#e07b28" : (n % 2 ? "#6aa0de" : "#1f4e9c");
		fprintf(f, "%s\"%s.dat\" index %d using 1:2 with points pt 7 ps 0.5 lc rgb \"%s\" title ",
			n ? ", \\\n     " : "plot ", stem, g, rgb);
		gp_string(f, p->group_names[g]);
		fprintf(f, ", \\\n     \"%s.dat\" index %d using 1:2 with lines dt 2 lw 2 lc rgb \"%s\" notitle", stem,
			p->n_groups + g, rgb);
		n++;
	}
	fputc('\n', f);
}

static void series_gp(FILE *f, const char *stem, const void *vp)
{
	const struct plot_series *p = vp;
	int last = 0;
	for (int g = 0; g < p->n_groups; g++)
		last = last > p->start[g] + p->n_values[g] ? last : p->start[g] + p->n_values[g];
	gp_head(f, stem, p->title, p->ylabel, 1000);
	fputs("unset title\nset key top right horizontal font \",9\"\nset yrange [*:*]\n", f);
	fprintf(f, "set xrange [0:%d]\nset lmargin 10\nset multiplot layout %d,1 title ", last + 1, p->n_panels);
	gp_string(f, p->title);
	fputc('\n', f);
	for (int k = 0; k < p->n_panels; k++)
		series_panel(f, stem, p, k, k == p->n_panels - 1);
	fputs("unset multiplot\n", f);
}

enum ab_rc plot_write_series(const char *dir, const char *stem, const struct plot_series *p, struct ab_diag *d)
{
	if (p->n_groups < 1 || p->n_panels < 1)
		return ab_fail(d, AB_ERR_INTERNAL, "plot '%s' has no data", stem);
	for (int g = 0; g < p->n_groups; g++)
		if (p->n_values[g] < 1)
			return ab_fail(d, AB_ERR_DATA, "plot '%s': group '%s' has no values", stem, p->group_names[g]);
	return write_pair(dir, stem, p, series_dat, series_gp, d);
}

/* ---- trends over runs ---- */

/* Block 0: a row per point. Block 1: the levels, a horizontal segment per
 * stretch of equal level from half a point before it to half after. */
static void trend_dat(FILE *f, const void *vp)
{
	const struct plot_trend *p = vp;
	fputs("# x value low high level commit date run\n", f);
	for (int i = 0; i < p->n; i++) {
		fprintf(f, "%d", i + 1);
		dat_number(f, p->value[i]);
		dat_number(f, p->low[i]);
		dat_number(f, p->high[i]);
		dat_number(f, p->level[i]);
		fputc(' ', f);
		dat_string(f, p->commits[i]);
		fputc(' ', f);
		dat_string(f, p->dates[i]);
		fputc(' ', f);
		dat_string(f, p->run_ids ? p->run_ids[i] : "");
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
		dat_number(f, p->level[i]);
		fprintf(f, "\n%g", j + 1.5);
		dat_number(f, p->level[i]);
		fputc('\n', f);
	}
}

/* A vertical line at x with a label at the top. */
static void gp_vline(FILE *f, double x, const char *rgb, const char *dash, const char *text, double at_y)
{
	fprintf(f, "set arrow from %g, graph 0 to %g, graph 1 nohead lw 1.5 lc rgb \"%s\" %s\n", x, x, rgb, dash);
	fputs("set label ", f);
	gp_string(f, text);
	fprintf(f, " at %g, graph %g left offset 0.5,0 textcolor rgb \"%s\" front\n", x, at_y, rgb);
}

static void trend_gp(FILE *f, const char *stem, const void *vp)
{
	const struct plot_trend *p = vp;
	if (p->svg)
		gp_head_svg(f, stem, p->title, p->ylabel);
	else
		gp_head(f, stem, p->title, p->ylabel, 1000);
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
	gp_string(f, p->value_name);
	fputc('\n', f);
}

enum ab_rc plot_write_trend(const char *dir, const char *stem, const struct plot_trend *p, struct ab_diag *d)
{
	if (p->n < 1)
		return ab_fail(d, AB_ERR_INTERNAL, "plot '%s' has no data", stem);
	return write_pair(dir, stem, p, trend_dat, trend_gp, d);
}

/* ---- several trends on one chart ---- */

/* One row per run: x, commit, date, then a column per line. */
static void trends_dat(FILE *f, const void *vp)
{
	const struct plot_trends *p = vp;
	fputs("# x commit date, then one column per line:", f);
	for (int l = 0; l < p->n_lines; l++) {
		fprintf(f, " %d=", l + 4);
		dat_comment(f, p->line_names[l]);
	}
	fputc('\n', f);
	for (int i = 0; i < p->n; i++) {
		fprintf(f, "%d ", i + 1);
		dat_string(f, p->commits[i]);
		fputc(' ', f);
		dat_string(f, p->dates[i]);
		for (int l = 0; l < p->n_lines; l++)
			dat_number(f, p->values[l * p->n + i]);
		fputc('\n', f);
	}
}

static void trends_gp(FILE *f, const char *stem, const void *vp)
{
	const struct plot_trends *p = vp;
	if (p->svg)
		gp_head_svg(f, stem, p->title, p->ylabel);
	else
		gp_head(f, stem, p->title, p->ylabel, 1000);
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
		gp_string(f, p->line_names[l]);
	}
	fputc('\n', f);
}

enum ab_rc plot_write_trends(const char *dir, const char *stem, const struct plot_trends *p, struct ab_diag *d)
{
	if (p->n < 1 || p->n_lines < 1)
		return ab_fail(d, AB_ERR_INTERNAL, "plot '%s' has no data", stem);
	return write_pair(dir, stem, p, trends_dat, trends_gp, d);
}

/* ---- running gnuplot ---- */

bool plot_find_gnuplot(char *path, size_t len, char *why, size_t why_len)
{
	const char *env = getenv("PATH");
	char dir[PATH_MAX];

	for (const char *p = env ? env : ""; ; ) {
		size_t n = strcspn(p, ":");
		snprintf(dir, sizeof dir, "%.*s", (int)n, p);
		if (snprintf(path, len, "%s/gnuplot", n ? dir : ".") < (int)len && access(path, X_OK) == 0)
			return true;
		if (!p[n])
			break;
		p += n + 1;
	}
	snprintf(why, why_len, "gnuplot not found on PATH (install gnuplot, e.g. 'apt-get install gnuplot-nox')");
	return false;
}

static const unsigned char png_end[12] = { 0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82 };

/* A whole PNG: the signature first and the IEND chunk last (a PNG cut
 * short by a full disk keeps its signature). */
static bool png_whole(const unsigned char *head, size_t n_head, const unsigned char *tail, size_t n_tail)
{
	return n_head == sizeof png_signature && !memcmp(head, png_signature, sizeof png_signature) &&
	       n_tail == sizeof png_end && !memcmp(tail, png_end, sizeof png_end);
}

bool plot_png_valid(const char *path)
{
	unsigned char head[8], tail[12];
	size_t nh = 0, nt = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	nh = fread(head, 1, sizeof head, f);
	if (fseek(f, -(long)sizeof tail, SEEK_END) == 0)
		nt = fread(tail, 1, sizeof tail, f);
	fclose(f);
	return png_whole(head, nh, tail, nt);
}

/* Child side: run gnuplot in dir, the PNG to png_fd, messages to log_fd. */
static void exec_gnuplot(const char *gnuplot, const char *dir, const char *stem, int png_fd, int log_fd)
{
	char script[300];

	snprintf(script, sizeof script, "%s.gp", stem);
	dup2(png_fd, STDOUT_FILENO);
	dup2(log_fd, STDERR_FILENO);
	close(png_fd);
	close(log_fd);
	int nul = open("/dev/null", O_RDONLY);
	if (nul >= 0)
		dup2(nul, STDIN_FILENO);
	if (chdir(dir) != 0) {
		dprintf(STDERR_FILENO, "cannot enter '%s': %s", dir, strerror(errno));
		_exit(126);
	}
	execl(gnuplot, "gnuplot", "-e", "outfile='/dev/stdout'", script, (char *)NULL);
	dprintf(STDERR_FILENO, "cannot run '%s': %s", gnuplot, strerror(errno));
	_exit(127);
}

/* What the reader of gnuplot's two pipes keeps: the PNG goes into the
 * outfile as it comes, its first and last bytes are kept to check it, and
 * the first len - 1 bytes of the messages. */
struct gp_read {
	struct outfile *png;
	unsigned char head[8], tail[12];
	size_t n_head, n_tail;
	char *log;
	size_t log_len, log_used;
};

static void png_bytes(struct gp_read *g, const unsigned char *b, size_t n)
{
	size_t w = fwrite(b, 1, n, g->png->f); /* a write error is sticky: the commit reports it */
	(void)w;
	for (size_t i = 0; i < n && g->n_head < sizeof g->head; i++)
		g->head[g->n_head++] = b[i];
	for (size_t i = n > sizeof g->tail ? n - sizeof g->tail : 0; i < n; i++) {
		if (g->n_tail == sizeof g->tail) {
			memmove(g->tail, g->tail + 1, sizeof g->tail - 1);
			g->n_tail--;
		}
		g->tail[g->n_tail++] = b[i];
	}
}

static void log_bytes(struct gp_read *g, const char *b, size_t n)
{
	for (size_t i = 0; i < n && g->log_used + 1 < g->log_len; i++)
		g->log[g->log_used++] = b[i] == '\n' ? ' ' : b[i];
}

/* Reads both pipes until both end (poll: neither can fill and block the
 * child while the other is read). */
static void drain(int png_fd, int log_fd, struct gp_read *g)
{
	struct pollfd fds[2] = { { png_fd, POLLIN, 0 }, { log_fd, POLLIN, 0 } };
	unsigned char chunk[65536];
	while (fds[0].fd >= 0 || fds[1].fd >= 0) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int k = 0; k < 2; k++) {
			if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t n = read(fds[k].fd, chunk, sizeof chunk);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				fds[k].fd = -1;
				continue;
			}
			if (k == 0)
				png_bytes(g, chunk, (size_t)n);
			else
				log_bytes(g, (const char *)chunk, (size_t)n);
		}
	}
	while (g->log_used && g->log[g->log_used - 1] == ' ')
		g->log_used--;
	g->log[g->log_used] = '\0';
}

static void close_pair(int *p)
{
	close(p[0]);
	close(p[1]);
}

static enum ab_rc spawn_gnuplot(const char *gnuplot, const char *dir, const char *stem, struct gp_read *g,
				int *status, struct ab_diag *d)
{
	int png[2], log[2];
	if (pipe(png) != 0)
		return ab_fail(d, AB_ERR_IO, "cannot create a pipe for gnuplot: %s", strerror(errno));
	if (pipe(log) != 0) {
		close_pair(png);
		return ab_fail(d, AB_ERR_IO, "cannot create a pipe for gnuplot: %s", strerror(errno));
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close_pair(png);
		close_pair(log);
		return ab_fail(d, AB_ERR_IO, "cannot start gnuplot: %s", strerror(errno));
	}
	if (pid == 0) {
		close(png[0]);
		close(log[0]);
		exec_gnuplot(gnuplot, dir, stem, png[1], log[1]);
	}
	close(png[1]);
	close(log[1]);
	drain(png[0], log[0], g);
	close(png[0]);
	close(log[0]);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return ab_fail(d, AB_ERR_IO, "cannot wait for gnuplot: %s", strerror(errno));
	return AB_OK;
}

/* Whether the last bytes of an SVG close it: "</svg>" and then only
 * line ends (gnuplot writes two). */
static bool svg_closed(const unsigned char *tail, size_t n)
{
	while (n && (tail[n - 1] == '\n' || tail[n - 1] == '\r'))
		n--;
	return n >= 6 && !memcmp(tail + n - 6, "</svg>", 6);
}

static enum ab_rc render_as(const char *gnuplot, const char *dir, const char *stem, bool svg, struct ab_diag *d);

enum ab_rc plot_render(const char *gnuplot, const char *dir, const char *stem, struct ab_diag *d)
{
	return render_as(gnuplot, dir, stem, false, d);
}

enum ab_rc plot_render_svg(const char *gnuplot, const char *dir, const char *stem, struct ab_diag *d)
{
	return render_as(gnuplot, dir, stem, true, d);
}

static enum ab_rc render_as(const char *gnuplot, const char *dir, const char *stem, bool svg, struct ab_diag *d)
{
	char log[400], png[4096];
	struct outfile of;
	int status;
	if (!stem_ok(stem))
		return ab_fail(d, AB_ERR_INTERNAL, "chart stem '%.64s' is not a file-name stem", stem);
	if (snprintf(png, sizeof png, "%s/%s.%s", dir, stem, svg ? "svg" : "png") >= (int)sizeof png)
		return ab_fail(d, AB_ERR_USAGE, "output path too long in '%s'", dir);
	enum ab_rc rc = outfile_open(&of, png, d);
	if (rc != AB_OK)
		return rc;
	struct gp_read g = { .png = &of, .log = log, .log_len = sizeof log };
	errno = 0;
	if ((rc = spawn_gnuplot(gnuplot, dir, stem, &g, &status, d)) != AB_OK) {
		outfile_abort(&of);
		return rc;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		outfile_abort(&of);
		return ab_fail(d, AB_ERR_DATA, "gnuplot failed on '%s.gp': %s", stem, log[0] ? log : "no message");
	}
	bool whole = svg ? g.n_head >= 5 && !memcmp(g.head, "<?xml", 5) && svg_closed(g.tail, g.n_tail)
			 : png_whole(g.head, g.n_head, g.tail, g.n_tail);
	if (!whole && !ferror(of.f)) {
		outfile_abort(&of);
		return ab_fail(d, AB_ERR_DATA, "gnuplot wrote no valid %s for '%s.gp'%s%s", svg ? "SVG" : "PNG", stem,
			       log[0] ? ": " : "", log);
	}
	return outfile_commit(&of, d);
}
