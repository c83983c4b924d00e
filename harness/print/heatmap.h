/*
 * heatmap.h - a divergence's map (common/results.h: differing elements
 * per row and column block, or per head) drawn as a PNG heatmap with
 * gnuplot: `abbench diff --out DIR` draws one per tensor that differs,
 * and the report can call heatmap_write for its accuracy section.
 *
 * DIR/STEM.dat holds the grid (one line per map row, one count per
 * column), DIR/STEM.gp the script (plot.h's conventions: redraw with
 * `gnuplot STEM.gp` in DIR), DIR/STEM.png the picture: rows down the y
 * axis (row 0 at the top), columns (a row's elements in blocks, or the
 * heads) along x, white where nothing differs, the count of differing
 * elements in colour elsewhere.
 */
#ifndef AB_HEATMAP_H
#define AB_HEATMAP_H

#include <stddef.h>

#include "common/diag.h"
#include "common/results.h"

/* "heatmap-B-out": the stem of slot's tensor's heatmap (escape_stem). */
char *heatmap_stem(const char *slot, const char *tensor, char *buf, size_t len);

/* Writes DIR/STEM.dat and .gp for v's map under title, and renders
 * STEM.png with gnuplot (its path; NULL: write the script only). AB_OK
 * with nothing written when v has no map. */
enum ab_rc heatmap_write(const char *dir, const char *stem, const char *title, const struct results_divergence *v,
			 const char *gnuplot, struct ab_diag *d);

#endif
