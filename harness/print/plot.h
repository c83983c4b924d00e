/*
 * plot.h - charts as gnuplot data and scripts, and running gnuplot (the
 * files, scales and layouts: docs/REPORTS.md). Each chart is described by
 * plain arrays: nothing here knows what a run is. plot_write_* writes
 * DIR/STEM.dat and DIR/STEM.gp (atomically; the script names its data by
 * its relative name); values that are not finite are written as "?",
 * gnuplot's missing value; STEM must be a file-name stem (escape_stem).
 */
#ifndef AB_PLOT_H
#define AB_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/diag.h"

/* One bar: its value, its [low, high] whiskers (NAN: none), marked (a
 * drifted case: hatched grey) or inexact (B's bytes are not A's: red). */
struct plot_bar {
	double value, low, high;
	bool marked, inexact;
};

/* Rows x series of bars with error bars (the speedup per case and device). */
struct plot_bars {
	const char *title, *ylabel;
	int n_rows, n_series;
	const char *const *row_names;    /* [n_rows] x tick labels */
	const char *const *row_notes;    /* [n_rows] their second line (the case's shape) */
	const char *const *series_names; /* [n_series] key entries */
	const struct plot_bar *bars;     /* [row * n_series + series] */
	double reference_line;           /* dashed horizontal line */
	const char *value_format;        /* each bar's value printed above its whisker ("%.2fx") */
	const char *mark_word, *inexact_word; /* "drifted: not trusted", "not bit-exact" */
};

/* Rows x segments, stacked (the time per kernel of each arm). */
struct plot_stack {
	const char *title, *ylabel;
	int n_rows, n_segments;
	const char *const *row_names;     /* [n_rows] */
	const char *const *segment_names; /* [n_segments] */
	const char *const *segment_colors; /* [n_segments] "#rrggbb", one per name across a report */
	const double *values;             /* [row * n_segments + segment] */
};

/* A slot's samples: a box, or its points in time order. */
struct plot_group {
	const char *name, *note; /* "A1" and the variant: a box's tick lines, a series' key entry */
	const double *values;    /* [n_values], n_values >= 1; drawn divided by the chart's div */
	int n_values;
	int panel;               /* 0 .. n_panels - 1 */
	int start;               /* x offset of its first value in time order */
	double median;           /* dashed (divided by div too) */
	bool second;             /* drawn in the second colour (the B arm) */
};

/* A case's slots, a group each: a box plot per group, panels side by side
 * on one y range, or (in_time) every sample at x = start + 1 .. start +
 * n_values, panels stacked, each on its own range (plot_write_samples). */
struct plot_samples {
	const char *title, *xlabel, *ylabel; /* xlabel: the series' */
	int n_groups;
	const struct plot_group *groups;
	double div;
	int n_panels;
	const char *const *panel_names;    /* [n_panels] the boxes' titles, the series' y labels */
	double y_lo, y_hi;                 /* the boxes' range, in the chart's unit; NAN: autoscale */
	const double *panel_lo, *panel_hi; /* [n_panels] the series' zoom, in the chart's unit; NAN: autoscale */
};

/* A figure over runs: the value as a line with points, its interval as a
 * band, a fitted level (the step detector's segments) as a dashed line,
 * a vertical line at the baseline's run and one per step with its label. */
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
	const bool *step_better;      /* [n_steps]: an improvement (drawn green), else a regression (red) */
	const bool *step_noise;       /* [n_steps]: noise (runs of one commit: grey, dashed); NULL: none */
	const char *const *step_text; /* [n_steps] */
	double y_min, y_max;          /* the y range; NAN: gnuplot's autoscale */
	bool svg;                     /* an SVG (PLOT_SVG_WIDTH x PLOT_SVG_HEIGHT) instead of a PNG */
	const char *const *run_ids;   /* [n] "r12": the tick's first line, the run; NULL: none */
	const char *const *hover;     /* [n] each point's text when hovered (plot_hover_trend); NULL: none */
};

/* Several figures over the same runs, a line each (the cases of one
 * sweep, each relative to its own median). */
struct plot_trends {
	const char *title, *ylabel;
	int n_lines, n;                          /* lines, runs */
	const char *const *line_names;           /* [n_lines] key entries */
	const char *const *commits, *const *dates; /* [n] */
	const double *values;                    /* [line * n + x]; NAN: no point of that line there */
	bool svg;                                /* as plot_trend's */
	const char *const *hover;                /* [line * n + x] as plot_trend's; NULL: none */
};

/* Three panels against a swept size (time, speedup, % of copy), a colour
 * per series. Its columns, each [series * n_points + point], times in
 * time_unit: A's and B's medians and their intervals, the speedup and its
 * interval, each arm's % of copy bandwidth, the copy floor (NAN: not
 * measured). */
enum { PLOT_SW_A, PLOT_SW_A_LO, PLOT_SW_A_HI, PLOT_SW_B, PLOT_SW_B_LO, PLOT_SW_B_HI, PLOT_SW_SP, PLOT_SW_SP_LO,
       PLOT_SW_SP_HI, PLOT_SW_PCT_A, PLOT_SW_PCT_B, PLOT_SW_FLOOR, PLOT_SW_N };

struct plot_sweep {
	const char *title, *xlabel;
	int n_points, n_series;
	const double *x;                  /* [n_points], > 0, ascending */
	const char *const *series_names;  /* [n_series] */
	const char *arm_names[2];         /* A, B */
	const double *v[PLOT_SW_N];
	const bool *drifted;              /* crossed out on the speedup panel (not trusted) */
	const char *time_unit;            /* the times' unit ("us", "ms") */
};

enum ab_rc plot_write_bars(const char *dir, const char *stem, const struct plot_bars *p, struct ab_diag *d);
enum ab_rc plot_write_stacked(const char *dir, const char *stem, const struct plot_stack *p, struct ab_diag *d);
enum ab_rc plot_write_samples(const char *dir, const char *stem, const struct plot_samples *p, bool in_time,
			      struct ab_diag *d);
enum ab_rc plot_write_sweep(const char *dir, const char *stem, const struct plot_sweep *p, struct ab_diag *d);
enum ab_rc plot_write_trend(const char *dir, const char *stem, const struct plot_trend *p, struct ab_diag *d);
enum ab_rc plot_write_trends(const char *dir, const char *stem, const struct plot_trends *p, struct ab_diag *d);

/* Finds an executable "gnuplot" on $PATH; on failure fills why (a
 * sentence saying what to install) and returns false. */
bool plot_find_gnuplot(char *path, size_t len, char *why, size_t why_len);

/* Runs `gnuplot STEM.gp` in dir, its PNG (plot_render_svg: SVG) written
 * to STEM.png (.svg) as an outfile when it is whole. AB_ERR_DATA with
 * gnuplot's own message when gnuplot fails or writes no whole image;
 * AB_ERR_IO when it cannot be written (a full disk). */
enum ab_rc plot_render(const char *gnuplot, const char *dir, const char *stem, struct ab_diag *d);
enum ab_rc plot_render_svg(const char *gnuplot, const char *dir, const char *stem, struct ab_diag *d);

/* The hover values of a drawn SVG chart: DIR/STEM.svg rewritten with,
 * before its closing tag, a transparent circle over each point whose text
 * is given, holding that text as its <title>; placed by the script's fixed
 * margins and ranges. AB_ERR_DATA when the file is no whole SVG. */
enum ab_rc plot_hover_trend(const char *dir, const char *stem, const struct plot_trend *p, struct ab_diag *d);
enum ab_rc plot_hover_trends(const char *dir, const char *stem, const struct plot_trends *p, struct ab_diag *d);

/* Whether the file is a whole PNG (signature first, IEND last). */
bool plot_png_valid(const char *path);

/* ---- a divergence's map (heatmap.c): the differing elements per row
 * and column block, or per head (common/results.h), row 0 at the top ---- */
struct results_divergence;

/* "heatmap-B-out": the stem of slot's tensor's heatmap (escape_stem). */
char *heatmap_stem(const char *slot, const char *tensor, char *buf, size_t len);

/* Writes DIR/STEM.dat and .gp for v's map under title, and renders
 * STEM.png with gnuplot (its path; NULL: write the script only). AB_OK
 * with nothing written when v has no map. */
enum ab_rc heatmap_write(const char *dir, const char *stem, const char *title, const struct results_divergence *v,
			 const char *gnuplot, struct ab_diag *d);

/* ---- what the family's files share (plot.c) ---- */

/* printf for a data file: each %s argument a quoted string (a quote in
 * it becomes ') or, quoted false, a comment's text; neither breaks its
 * line. A number: " %.9g", " ?" when not finite. */
void plot_dat_printf(FILE *f, bool quoted, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void plot_dat_number(FILE *f, double v);

/* printf for a script: each %s argument a string literal (escape_gnuplot). */
void plot_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A script's first lines: how to redraw it, its outfile, the terminal
 * (pngcairo at width x height px; svg at the size a dashboard card shows
 * it) and the output. */
void plot_script(FILE *f, const char *stem, bool svg, int width, int height);
#define PLOT_SVG_WIDTH 720
#define PLOT_SVG_HEIGHT 380
/* plot_script, then the title and the y label, y from 0 and a y grid. */
void plot_head(FILE *f, const char *stem, bool svg, const char *title, const char *ylabel, int width, int height);
/* Clause k of a plot command: the first names the data file. */
void plot_clause(FILE *f, const char *stem, int k);
/* A clause's key entry: "title 'TEXT'", "notitle" for NULL. */
void plot_title(FILE *f, const char *text);

/* DIR/STEM.EXT into buf: AB_ERR_INTERNAL when stem is no file-name stem
 * (escape_stem's characters), AB_ERR_USAGE when the path is too long. */
enum ab_rc plot_path(char *buf, size_t len, const char *dir, const char *stem, const char *ext, struct ab_diag *d);
/* Writes DIR/STEM.dat and DIR/STEM.gp, both committed only when both
 * were written; a chart without data is an internal error. */
enum ab_rc plot_write_pair(const char *dir, const char *stem, const void *p, bool has_data,
			   void (*write_dat)(FILE *, const void *), void (*write_gp)(FILE *, const char *, const void *),
			   struct ab_diag *d);

/* Whether values in [lo, hi] are drawn on a logarithmic axis: only across
 * more than a decade (lo > 0). plot_axis_scale sets axis ('x' or 'y') so,
 * with labelled 1-2-5 ticks and its range, else linear with numbered ticks,
 * and returns whether it is logarithmic. */
bool plot_log_scale(double lo, double hi);
bool plot_axis_scale(FILE *f, char axis, double lo, double hi);

/* Series s's colour (Okabe-Ito), the same in every chart of a report. */
const char *plot_series_color(int s);

/* The length of the longest string of v[0..n) (NULL: none). */
int plot_longest(const char *const *v, int n);

/* The smallest and largest finite values of v[0..n) into *lo, *hi (left as
 * they are when there is none). */
void plot_extent(const double *v, int n, double *lo, double *hi);

#endif
