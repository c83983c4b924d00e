/*
 * plot_int.h - what the files of the plot family share (print/plot.h is
 * their interface): plot.c holds these helpers (quoting, data values, the
 * scripts' heads, the .dat/.gp pair, axis scales, panels), plot_run.c runs
 * gnuplot, and one file per family of charts writes their scripts:
 * plot_bars.c (bars, stacked bars), plot_samples.c (box plots, samples in
 * time order), plot_sweep.c (the three sweep panels), plot_trend.c (trends
 * over runs). Private to print/plot*.c.
 */
#ifndef AB_PLOT_INT_H
#define AB_PLOT_INT_H

#include <stdbool.h>
#include <stdio.h>

#include "common/diag.h"

/* Every string of a script: escape_gnuplot's single-quoted literal. */
void plot_gp_string(FILE *f, const char *s);
/* A string field of a data file: quoted, no quote inside, no line break. */
void plot_dat_string(FILE *f, const char *s);
/* A comment line's text in a data file: no line break. */
void plot_dat_comment(FILE *f, const char *s);
/* " %.9g", or " ?" (gnuplot's missing value) when not finite. */
void plot_dat_number(FILE *f, double v);

/* The head of a PNG script (pngcairo, width x height px, sans 10): the
 * output, the title and the y label, y from 0 and a y grid. */
void plot_head(FILE *f, const char *stem, const char *title, const char *ylabel, int width, int height);
/* The head of an SVG script drawn at the size a dashboard card shows it
 * (PLOT_SVG_WIDTH x PLOT_SVG_HEIGHT px, text at PLOT_SVG_FONT pt). */
void plot_head_svg(FILE *f, const char *stem, const char *title, const char *ylabel);
#define PLOT_SVG_WIDTH 720
#define PLOT_SVG_HEIGHT 380
#define PLOT_SVG_FONT 13

/* Whether stem is a file-name stem (escape_stem's characters). */
bool plot_stem_ok(const char *stem);

/* Writes DIR/STEM.dat with write_dat and DIR/STEM.gp with write_gp, both
 * committed only when both were written. */
enum ab_rc plot_write_pair(const char *dir, const char *stem, const void *p, void (*write_dat)(FILE *, const void *),
			   void (*write_gp)(FILE *, const char *, const void *), struct ab_diag *d);

/* The scale of axis ('x' or 'y') for values in [lo, hi] (lo > 0 for a
 * log scale): logarithmic only across more than a decade, then with
 * labelled ticks at 1, 2 and 5 of each decade (1 alone past 4 decades) and
 * its range set; else linear with gnuplot's numbered ticks. Returns whether
 * it is logarithmic. Values that are not finite: linear. */
bool plot_axis_scale(FILE *f, char axis, double lo, double hi);

/* A panel's y range: its zoom [lo_in[k], hi_in[k]] padded by 10% of its
 * span (never a zero span); NAN when unknown (autoscale). */
void plot_panel_range(const double *lo_in, const double *hi_in, int k, double *lo, double *hi);

/* Data blocks, one per group ("index g"): the values, one a line, with x
 * (start[g] + i + 1; start NULL: i + 1). */
void plot_group_blocks(FILE *f, int n_groups, const char *const *names, const double *const *values,
		       const int *n_values, const int *start);

bool plot_any_finite(const double *v, int n);

/* Series s's colour (colour-blind safe, Okabe-Ito), the same in every chart
 * of a report: bars, sweeps. */
const char *plot_series_color(int s);

/* The smallest and largest finite values of v[0..n) into *lo, *hi (left as
 * they are when there is none). */
void plot_extent(const double *v, int n, double *lo, double *hi);

#endif
