/*
 * plot.h - the report's charts as gnuplot scripts, and running gnuplot.
 *
 * Three chart kinds, each described by plain arrays (the report fills
 * them from a run; nothing here knows what a run is):
 *
 *   bars     rows x series of values with [low, high] error bars
 *            (speedup per case and device, with the bootstrap interval)
 *   stacked  rows x segments, stacked (per-kernel time per arm)
 *   boxes    one box plot per group of values (samples per slot)
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

enum ab_rc plot_write_bars(const char *dir, const char *stem, const struct plot_bars *p, struct ab_diag *d);
enum ab_rc plot_write_stacked(const char *dir, const char *stem, const struct plot_stack *p, struct ab_diag *d);
enum ab_rc plot_write_boxes(const char *dir, const char *stem, const struct plot_boxes *p, struct ab_diag *d);

/* Finds an executable "gnuplot" on $PATH; on failure fills why (a
 * sentence saying what to install) and returns false. */
bool plot_find_gnuplot(char *path, size_t len, char *why, size_t why_len);

/* Runs `gnuplot STEM.gp` in dir (output to STEM.png.tmp, installed as
 * STEM.png by outfile_install when it is a valid PNG). AB_ERR_IO with gnuplot's own message
 * when it fails. */
enum ab_rc plot_render(const char *gnuplot, const char *dir, const char *stem, struct ab_diag *d);

/* Whether the file starts with the 8-byte PNG signature. */
bool plot_png_valid(const char *path);

#endif
