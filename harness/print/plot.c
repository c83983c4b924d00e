/*
 * plot.c - what every chart of the plot family shares (plot_int.h): the
 * quoting of strings, the values of data files, the scripts' heads, the
 * .dat/.gp pair, axis scales and panels. The charts' scripts are in
 * plot_bars.c, plot_samples.c, plot_sweep.c and plot_trend.c; running
 * gnuplot in plot_run.c.
 *
 * Every chart is a pair STEM.dat + STEM.gp in one directory; the script
 * names the data by its bare file name, so `cd DIR && gnuplot STEM.gp`
 * redraws STEM.png by hand (the script honours outfile when it is set).
 * Every string that reaches a script (titles, key entries, tick labels,
 * names from the database) goes through one quoting function,
 * escape_gnuplot (print/escape.h): a single-quoted gnuplot string, in which
 * gnuplot expands nothing (no `command`, no @macro, no backslash escape),
 * with '' for a quote and control characters as spaces (a raw newline
 * would end the command and start another). Data files hold strings too,
 * but gnuplot only reads them as data. The terminal is noenhanced, so a
 * kernel named a_b does not grow a subscript. Figures come computed (the
 * zoom of a panel, a group's median): the family only draws.
 */
#include "print/plot.h"
#include "print/plot_int.h"

#include <math.h>
#include <string.h>

#include "print/escape.h"
#include "print/md.h"

void plot_gp_string(FILE *f, const char *s)
{
	escape_gnuplot(f, s);
}

/* gnuplot's data reader has no escape for a quote: it becomes ' */
void plot_dat_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++)
		fputc(*s == '"' ? '\'' : ((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s), f);
	fputc('"', f);
}

void plot_dat_comment(FILE *f, const char *s)
{
	for (; s && *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
}

void plot_dat_number(FILE *f, double v)
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

static void head_common(FILE *f, const char *title, const char *ylabel)
{
	fputs("set output outfile\nset datafile missing \"?\"\nset title ", f);
	plot_gp_string(f, title);
	fputs("\nset ylabel ", f);
	plot_gp_string(f, ylabel);
	fputs("\nset yrange [0:*]\nset grid ytics\n", f);
}

void plot_head_svg(FILE *f, const char *stem, const char *title, const char *ylabel)
{
	fprintf(f, "# Written by abbench. Redraw with: gnuplot %s.gp (in this directory)\n", stem);
	fprintf(f, "if (!exists(\"outfile\")) outfile = \"%s.svg\"\n", stem);
	fprintf(f, "set terminal svg size %d,%d dynamic noenhanced font \"sans,%d\" background rgb \"white\"\n",
		PLOT_SVG_WIDTH, PLOT_SVG_HEIGHT, PLOT_SVG_FONT);
	head_common(f, title, ylabel);
}

void plot_head(FILE *f, const char *stem, const char *title, const char *ylabel, int width, int height)
{
	fprintf(f, "# Written by abbench. Redraw with: gnuplot %s.gp (in this directory)\n", stem);
	fprintf(f, "if (!exists(\"outfile\")) outfile = \"%s.png\"\n", stem);
	fprintf(f, "set terminal pngcairo size %d,%d noenhanced font \"sans,10\"\n", width, height);
	head_common(f, title, ylabel);
}

/* Scripts name their data and output by the stem inside double quotes. */
bool plot_stem_ok(const char *stem)
{
	char clean[256];
	return *stem && strlen(stem) < sizeof clean && !strcmp(escape_stem(stem, clean, sizeof clean), stem);
}

enum ab_rc plot_write_pair(const char *dir, const char *stem, const void *p, void (*write_dat)(FILE *, const void *),
			   void (*write_gp)(FILE *, const char *, const void *), struct ab_diag *d)
{
	struct md_file dat, gp;
	if (!plot_stem_ok(stem))
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

/* "set ytics (\"1\" 1, \"2\" 2, ...)": the 1-2-5 ticks of every decade
 * that meets [lo, hi] (1 alone past 4 decades), and one tick below and
 * above so that the range ends on labelled ground. */
static void log_ticks(FILE *f, char axis, double lo, double hi)
{
	static const double steps[] = { 1, 2, 5 };
	int k0 = (int)floor(log10(lo)), k1 = (int)ceil(log10(hi)), n = 0;
	int per = k1 - k0 > 4 ? 1 : 3;
	fprintf(f, "set %ctics (", axis);
	for (int k = k0; k <= k1; k++)
		for (int j = 0; j < per; j++) {
			double v = steps[j] * pow(10, k);
			if (v < lo / 2.5 || v > hi * 2.5)
				continue;
			fprintf(f, "%s\"%g\" %.9g", n++ ? ", " : "", v, v);
		}
	fputs(")\n", f);
}

bool plot_log_scale(double lo, double hi)
{
	return lo > 0 && isfinite(lo) && isfinite(hi) && hi / lo > 10;
}

bool plot_axis_scale(FILE *f, char axis, double lo, double hi)
{
	if (!plot_log_scale(lo, hi)) {
		fprintf(f, "unset logscale %c\nset %ctics autofreq\nset format %c \"%%g\"\n", axis, axis, axis);
		return false;
	}
	double r = pow(hi / lo, 0.05); /* 5% of the log span as padding */
	fprintf(f, "set logscale %c 10\nset %crange [%.9g:%.9g]\nset format %c \"%%g\"\nset m%ctics 1\n", axis, axis,
		lo / r, hi * r, axis, axis);
	log_ticks(f, axis, lo / r, hi * r);
	return true;
}

void plot_panel_range(const double *lo_in, const double *hi_in, int k, double *lo, double *hi)
{
	double p1 = lo_in ? lo_in[k] : NAN, p99 = hi_in ? hi_in[k] : NAN;
	*lo = *hi = NAN;
	if (!isfinite(p1) || !isfinite(p99))
		return;
	double pad = fmax((p99 - p1) * 0.10, fabs(p99) * 0.005);
	*lo = p1 - pad;
	*hi = p99 + pad;
}

void plot_group_blocks(FILE *f, int n_groups, const char *const *names, const double *const *values,
		       const int *n_values, const int *start)
{
	for (int g = 0; g < n_groups; g++) {
		fprintf(f, "%s# block %d: ", g ? "\n\n" : "", g);
		plot_dat_comment(f, names[g]);
		fputc('\n', f);
		for (int i = 0; i < n_values[g]; i++) {
			if (!isfinite(values[g][i]))
				continue;
			fprintf(f, "%d", (start ? start[g] : 0) + i + 1);
			plot_dat_number(f, values[g][i]);
			fputc('\n', f);
		}
	}
}

const char *plot_series_color(int s)
{
	static const char *const colors[] = { "#0072b2", "#e69f00", "#009e73", "#cc79a7",
					      "#56b4e9", "#d55e00", "#f0e442", "#000000" };
	return colors[(s < 0 ? 0 : s) % (int)(sizeof colors / sizeof colors[0])];
}

bool plot_any_finite(const double *v, int n)
{
	for (int i = 0; i < n; i++)
		if (isfinite(v[i]))
			return true;
	return false;
}

void plot_extent(const double *v, int n, double *lo, double *hi)
{
	for (int i = 0; v && i < n; i++)
		if (isfinite(v[i])) {
			*lo = isfinite(*lo) ? fmin(*lo, v[i]) : v[i];
			*hi = isfinite(*hi) ? fmax(*hi, v[i]) : v[i];
		}
}
