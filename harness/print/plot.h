/*
 * plot.h - the report's charts as gnuplot scripts, and running gnuplot.
 *
 * Four chart kinds, each described by plain arrays (the report fills
 * them from a run; nothing here knows what a run is):
 *
 *   bars     rows x series of values with [low, high] error bars
 *            (speedup per case and device, with the bootstrap interval)
 *   stacked  rows x segments, stacked (per-kernel time per arm)
 *   boxes    one box plot per group of values (samples per slot)
 *   trend    a figure over runs with its interval band, fitted levels,
 *            the baseline and the steps marked (abbench history)
 *
 * plot_write_* writes DIR/STEM.dat and DIR/STEM.gp (atomically); the
 * script refers to the data by its relative name, so a reader can redraw
 * the chart with `gnuplot STEM.gp` inside DIR. plot_render runs gnuplot
 * there and leaves DIR/STEM.png. Values that are not finite are written as
 * "?", gnuplot's missing value.
 */
#ifndef AB_PLOT_H
#define AB_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/diag.h"

struct plot_bars {
	const char *title, *ylabel;
	int n_rows, n_series;
	const char *const *row_names;    /* [n_rows], x tick labels */
	const char *const *series_names; /* [n_series], key entries */
	const double *value, *low, *high; /* [row * n_series + series] */
	double reference_line;           /* dashed horizontal line; NAN for none */
};

struct plot_stack {
	const char *title, *ylabel;
	int n_rows, n_segments;
	const char *const *row_names;     /* [n_rows] */
	const char *const *segment_names; /* [n_segments] */
	const double *values;             /* [row * n_segments + segment] */
};

struct plot_boxes {
	const char *title, *ylabel;
	int n_groups;
	const char *const *group_names;   /* [n_groups] */
	const double *const *values;      /* [n_groups][n_values[g]] */
	const int *n_values;              /* each >= 1 */
};

/* A figure over runs: the value as a line with points, its interval as a
 * band, a fitted level (the step detector's segments) as a dashed line,
 * a vertical line at the baseline's run and one per step with its label.
 * x is the point's position; its tick shows the commit and the date
 * (every k-th point when they would crowd). */
struct plot_trend {
	const char *title, *ylabel;
	const char *value_name;       /* the key entry of the line: "fused median of the run" */
	int n;
	const char *const *commits, *const *dates; /* [n] */
	const double *value, *low, *high, *level;  /* [n]; NAN: missing */
	int baseline;                 /* index of the baseline's point, -1: none */
	const char *baseline_name;
	int n_steps;
	const int *step_at;           /* [n_steps]: index of the first point after the step */
	const char *const *step_text; /* [n_steps] */
	bool log_y;                   /* a logarithmic y axis */
	double y_min, y_max;          /* the y range; NAN: gnuplot's autoscale */
};

enum ab_rc plot_write_bars(const char *dir, const char *stem, const struct plot_bars *p, struct ab_diag *d);
enum ab_rc plot_write_stacked(const char *dir, const char *stem, const struct plot_stack *p, struct ab_diag *d);
enum ab_rc plot_write_boxes(const char *dir, const char *stem, const struct plot_boxes *p, struct ab_diag *d);
enum ab_rc plot_write_trend(const char *dir, const char *stem, const struct plot_trend *p, struct ab_diag *d);

/* Finds an executable "gnuplot" on $PATH; on failure fills why (a
 * sentence saying what to install) and returns false. */
bool plot_find_gnuplot(char *path, size_t len, char *why, size_t why_len);

/* Runs `gnuplot STEM.gp` in dir (output to STEM.png.tmp, renamed to
 * STEM.png when it is a valid PNG). AB_ERR_IO with gnuplot's own message
 * when it fails. */
enum ab_rc plot_render(const char *gnuplot, const char *dir, const char *stem, struct ab_diag *d);

/* Whether the file starts with the 8-byte PNG signature. */
bool plot_png_valid(const char *path);

#endif
