/*
 * plot_samples.c - a case's samples (plot.h): box plots of every slot, and
 * every sample in time order, in a panel per arm.
 */
#include "print/plot.h"

#include <math.h>
#include <string.h>

/* Data blocks, one per group ("index g"): its values, one a line, after
 * their x (start + i + 1 in time order, else i + 1). */
static void group_blocks(FILE *f, const struct plot_samples *p, bool in_time)
{
	for (int g = 0; g < p->n_groups; g++) {
		const struct plot_group *G = &p->groups[g];
		fputs(g ? "\n\n" : "", f);
		plot_dat_printf(f, false, "# block %d: %s", g, G->name);
		if (in_time) /* the series' key entry */
			plot_dat_printf(f, false, " %s", G->note);
		fputc('\n', f);
		for (int i = 0; i < G->n_values; i++)
			if (isfinite(G->values[i] / p->div))
				fprintf(f, "%d %.9g\n", (in_time ? G->start : 0) + i + 1, G->values[i] / p->div);
	}
}

static void boxes_dat(FILE *f, const void *vp)
{
	group_blocks(f, vp, false);
}

/* One panel: its groups side by side, ticked "A1\neager". */
static void boxes_panel(FILE *f, const char *stem, const struct plot_samples *p, int k)
{
	int n = 0;
	plot_printf(f, "set title %s\nset xtics (", p->panel_names[k]);
	for (int g = 0; g < p->n_groups; g++) {
		char tick[160];
		if (p->groups[g].panel != k)
			continue;
		snprintf(tick, sizeof tick, "%s\n%s", p->groups[g].name, p->groups[g].note);
		fputs(n ? ", " : "", f);
		plot_printf(f, "%s %d", tick, ++n);
	}
	fprintf(f, ")\nset xrange [0.4:%d.6]\n", n);
	n = 0;
	for (int g = 0; g < p->n_groups; g++) {
		if (p->groups[g].panel != k)
			continue;
		fprintf(f, "%s\"%s.dat\" index %d using (%d):2 lc rgb \"%s\"", n ? ", \\\n     " : "plot ", stem, g,
			n + 1, k ? "#e07b28" : "#2f6db5");
		n++;
	}
	fputc('\n', f);
}

static void boxes_gp(FILE *f, const char *stem, const void *vp)
{
	const struct plot_samples *p = vp;
	double lo = p->y_lo, hi = p->y_hi;
	plot_head(f, stem, false, p->title, p->ylabel, 900, 500);
	fputs("unset title\nset style data boxplot\nset style boxplot outliers pointtype 7\nset pointsize 0.5\n", f);
	fputs("set style fill solid 0.35 border -1\nset boxwidth 0.5\nset key off\n", f);
	/* one range for every panel: 5% of the span around it (of the log
	 * span on a log axis) */
	if (!(isfinite(lo) && isfinite(hi) && hi > lo))
		fputs("set yrange [*:*]\n", f);
	else if (!plot_axis_scale(f, 'y', lo, hi))
		fprintf(f, "set yrange [%.9g:%.9g]\n", fmax(0, lo - 0.05 * (hi - lo)), hi + 0.05 * (hi - lo));
	plot_printf(f, "set multiplot layout 1,%d title %s\n", p->n_panels, p->title);
	for (int k = 0; k < p->n_panels; k++)
		boxes_panel(f, stem, p, k);
	fputs("unset multiplot\n", f);
}

/* ---- samples in time order ---- */

static void series_dat(FILE *f, const void *vp)
{
	const struct plot_samples *p = vp;
	group_blocks(f, p, true);
	/* one more block per group: its median as a segment over its x range */
	for (int g = 0; g < p->n_groups; g++) {
		const struct plot_group *G = &p->groups[g];
		plot_dat_printf(f, false, "\n\n# block %d: median of %s %s\n%d", p->n_groups + g, G->name, G->note,
				G->start + 1);
		plot_dat_number(f, G->median / p->div);
		fprintf(f, "\n%d", G->start + G->n_values);
		plot_dat_number(f, G->median / p->div);
		fputc('\n', f);
	}
}

static void series_panel(FILE *f, const char *stem, const struct plot_samples *p, int k, bool last)
{
	double p1 = p->panel_lo[k], p99 = p->panel_hi[k];
	int n = 0;
	plot_printf(f, "set ylabel %s\n", p->panel_names[k]);
	if (isfinite(p1) && isfinite(p99)) {
		/* the zoom padded by 10% of its span (never a zero span) */
		double pad = fmax((p99 - p1) * 0.10, fabs(p99) * 0.005);
		fprintf(f, "set yrange [%.9g:%.9g]\n", p1 - pad, p99 + pad);
	}
	if (last)
		plot_printf(f, "set format x \"%%g\"\nset xlabel %s\n", p->xlabel);
	else
		fputs("set format x \"\"\nunset xlabel\n", f);
	for (int g = 0; g < p->n_groups; g++) {
		const struct plot_group *G = &p->groups[g];
		char key[96];
		if (G->panel != k)
			continue;
		const char *rgb = G->second ? "#e07b28" : (n % 2 ? "#6aa0de" : "#1f4e9c");
		fprintf(f, "%s\"%s.dat\" index %d using 1:2 with points pt 7 ps 0.5 lc rgb \"%s\" ",
			n ? ", \\\n     " : "plot ", stem, g, rgb);
		snprintf(key, sizeof key, "%s %s", G->name, G->note);
		plot_title(f, key);
		fprintf(f, ", \\\n     \"%s.dat\" index %d using 1:2 with lines dt 2 lw 2 lc rgb \"%s\" notitle", stem,
			p->n_groups + g, rgb);
		n++;
	}
	fputc('\n', f);
}

/* The key beside the panels (a fixed right margin, as wide as its longest
 * entry, keeps their x axes aligned), never on the samples. */
static void series_gp(FILE *f, const char *stem, const void *vp)
{
	const struct plot_samples *p = vp;
	int last = 0, key = 0;
	for (int g = 0; g < p->n_groups; g++) {
		const struct plot_group *G = &p->groups[g];
		int w = (int)(strlen(G->name) + 1 + strlen(G->note));
		last = last > G->start + G->n_values ? last : G->start + G->n_values;
		key = w > key ? w : key;
	}
	key = key < 60 ? key : 60;
	plot_head(f, stem, false, p->title, p->ylabel, 940 + 7 * key, 500);
	fputs("unset title\nset key outside right top vertical Left reverse samplen 1 font \",9\"\nset yrange [*:*]\n", f);
	plot_printf(f, "set xrange [0:%d]\nset lmargin 10\nset rmargin %d\nset multiplot layout %d,1 title %s\n",
		    last + 1, key + 8, p->n_panels, p->title);
	for (int k = 0; k < p->n_panels; k++)
		series_panel(f, stem, p, k, k == p->n_panels - 1);
	fputs("unset multiplot\n", f);
}

/* Every group has a value (a box plot or a median of none is no chart);
 * a series names a group by its key entry. */
enum ab_rc plot_write_samples(const char *dir, const char *stem, const struct plot_samples *p, bool in_time,
			      struct ab_diag *d)
{
	for (int g = 0; g < p->n_groups; g++)
		if (p->groups[g].n_values < 1)
			return ab_fail(d, AB_ERR_DATA, "plot '%s': group '%s%s%s' has no values", stem,
				       p->groups[g].name, in_time ? " " : "", in_time ? p->groups[g].note : "");
	return plot_write_pair(dir, stem, p, p->n_groups >= 1 && (!in_time || p->n_panels >= 1),
			       in_time ? series_dat : boxes_dat, in_time ? series_gp : boxes_gp, d);
}
