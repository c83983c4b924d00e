/*
 * heatmap.c - a divergence's map as data, a gnuplot script and a PNG
 * (plot.h), drawn by plot_render.
 */
#include "print/plot.h"

#include <string.h>

#include "common/results.h"
#include "print/escape.h"

char *heatmap_stem(const char *slot, const char *tensor, char *buf, size_t len)
{
	char raw[96];
	snprintf(raw, sizeof raw, "heatmap-%s-%s", slot, tensor);
	return escape_stem(raw, buf, len);
}

/* What heatmap_write hands plot_write_pair's writers. */
struct heatmap {
	const char *title;
	const struct results_divergence *v;
};

static void heatmap_dat(FILE *f, const void *vp)
{
	const struct results_divergence *v = ((const struct heatmap *)vp)->v;
	fprintf(f, "# differing elements: %d rows (each %lld %s) x %d columns (each %lld %s)\n", v->map_rows,
		(long long)v->map_row_bin, v->map_by_head ? "rows of heads" : "rows", v->map_cols,
		(long long)v->map_col_bin, v->map_by_head ? "heads" : "elements");
	for (int r = 0; r < v->map_rows; r++) {
		for (int c = 0; c < v->map_cols; c++)
			fprintf(f, "%s%u", c ? " " : "", v->map[(size_t)r * (size_t)v->map_cols + (size_t)c]);
		fputc('\n', f);
	}
}

/* The axes' labels: a map row runs along "B x T" and a map column along
 * "W" for B,T,W; along "B x T" and "H (heads)" for B,T,H,D. */
static void axis_labels(const struct results_divergence *v, char *ylabel, size_t ylen, char *xlabel, size_t xlen)
{
	char names[8][32], rows[96] = "";
	int n = 0;
	for (const char *p = v->axes; *p && n < 8;) {
		size_t len = strcspn(p, ",");
		snprintf(names[n++], sizeof names[0], "%.*s", (int)len, p);
		p += len + (p[len] == ',');
	}
	int col = v->map_by_head ? n - 2 : n - 1;
	for (int k = 0; k < col; k++)
		snprintf(rows + strlen(rows), sizeof rows - strlen(rows), "%s%s", k ? " x " : "", names[k]);
	snprintf(ylabel, ylen, "row: %s%s", rows[0] ? rows : "(one row)", v->map_row_bin > 1 ? " (binned)" : "");
	snprintf(xlabel, xlen, "%s%s%s", col >= 0 ? names[col] : "",
		 v->map_by_head ? " (heads)" : " (a row's elements)", v->map_col_bin > 1 ? ", binned" : "");
}

static void heatmap_gp(FILE *f, const char *stem, const void *vp)
{
	const struct heatmap *h = vp;
	const struct results_divergence *v = h->v;
	char ylabel[160], xlabel[160];
	axis_labels(v, ylabel, sizeof ylabel, xlabel, sizeof xlabel);
	plot_script(f, stem, false, 900, 640);
	plot_printf(f, "set title %s\nset ylabel %s\nset xlabel %s\n", h->title, ylabel, xlabel);
	fputs("set cblabel 'differing elements'\nset palette defined (0 'white', 1 '#fee8c8', 4 '#fdbb84', "
	      "10 '#e34a33', 20 '#7f0000')\nset cbrange [0:*]\nset tics out\n", f);
	fprintf(f, "rb = %lld\ncb = %lld\nset xrange [0:%lld]\nset yrange [%lld:0]\n", (long long)v->map_row_bin,
		(long long)v->map_col_bin, (long long)v->map_cols * v->map_col_bin,
		(long long)v->map_rows * v->map_row_bin);
	fprintf(f, "plot '%s.dat' matrix using (($1 + 0.5) * cb):(($2 + 0.5) * rb):3 with image notitle\n", stem);
}

enum ab_rc heatmap_write(const char *dir, const char *stem, const char *title, const struct results_divergence *v,
			 const char *gnuplot, struct ab_diag *d)
{
	struct heatmap h = { title, v };
	if (!v->map || v->map_rows <= 0 || v->map_cols <= 0)
		return AB_OK;
	enum ab_rc rc = plot_write_pair(dir, stem, &h, true, heatmap_dat, heatmap_gp, d);
	return rc != AB_OK || !gnuplot ? rc : plot_render(gnuplot, dir, stem, d);
}
