/*
 * plot.c - what every chart of the plot family shares (plot.h's last
 * part). Every string that reaches a script goes through escape_gnuplot
 * (print/escape.h), in which gnuplot expands nothing. The terminal is
 * noenhanced, so a kernel named a_b does not grow a subscript.
 */
#include "print/plot.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "print/escape.h"
#include "print/md.h"

/* A comment's text: no line break. */
static void dat_comment(FILE *f, const char *s)
{
	for (; s && *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
}

/* gnuplot's data reader has no escape for a quote: in a string it becomes ' */
static void dat_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++)
		fputc(*s == '"' ? '\'' : ((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s), f);
	fputc('"', f);
}

void plot_dat_printf(FILE *f, bool quoted, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	escape_vprintf(f, quoted ? dat_quoted : dat_comment, NULL, fmt, ap);
	va_end(ap);
}

void plot_printf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	escape_vprintf(f, escape_gnuplot, NULL, fmt, ap);
	va_end(ap);
}

void plot_dat_number(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, " %.9g", v);
	else
		fputs(" ?", f);
}

/* Scripts name their data and output by the stem inside double quotes. */
enum ab_rc plot_path(char *buf, size_t len, const char *dir, const char *stem, const char *ext, struct ab_diag *d)
{
	char clean[256];
	if (!*stem || strlen(stem) >= sizeof clean || strcmp(escape_stem(stem, clean, sizeof clean), stem))
		return ab_fail(d, AB_ERR_INTERNAL, "chart stem '%.64s' is not a file-name stem", stem);
	if (snprintf(buf, len, "%s/%s.%s", dir, stem, ext) >= (int)len)
		return ab_fail(d, AB_ERR_USAGE, "output path too long in '%s'", dir);
	return AB_OK;
}

void plot_script(FILE *f, const char *stem, bool svg, int width, int height)
{
	fprintf(f, "# Written by abbench. Redraw with: gnuplot %s.gp (in this directory)\n", stem);
	fprintf(f, "if (!exists(\"outfile\")) outfile = \"%s.%s\"\n", stem, svg ? "svg" : "png");
	if (svg)
		fprintf(f, "set terminal svg size %d,%d dynamic noenhanced font \"sans,13\" background rgb \"white\"\n",
			PLOT_SVG_WIDTH, PLOT_SVG_HEIGHT);
	else
		fprintf(f, "set terminal pngcairo size %d,%d noenhanced font \"sans,10\"\n", width, height);
	fputs("set output outfile\n", f);
}

void plot_head(FILE *f, const char *stem, bool svg, const char *title, const char *ylabel, int width, int height)
{
	plot_script(f, stem, svg, width, height);
	plot_printf(f, "set datafile missing \"?\"\nset title %s\nset ylabel %s\nset yrange [0:*]\nset grid ytics\n",
		    title, ylabel);
}

void plot_clause(FILE *f, const char *stem, int k)
{
	if (k)
		fputs(", \\\n     \"\"", f);
	else
		fprintf(f, "plot \"%s.dat\"", stem);
}

void plot_title(FILE *f, const char *text)
{
	if (text)
		plot_printf(f, "title %s", text);
	else
		fputs("notitle", f);
}

enum ab_rc plot_write_pair(const char *dir, const char *stem, const void *p, bool has_data,
			   void (*write_dat)(FILE *, const void *), void (*write_gp)(FILE *, const char *, const void *),
			   struct ab_diag *d)
{
	struct md_file dat = { 0 }, gp = { 0 };
	char path[4096];
	if (!has_data)
		return ab_fail(d, AB_ERR_INTERNAL, "plot '%s' has no data", stem);
	enum ab_rc rc = plot_path(path, sizeof path, dir, stem, "dat", d);
	if (rc == AB_OK)
		rc = md_file_open(&dat, path, d);
	if (rc == AB_OK)
		rc = plot_path(path, sizeof path, dir, stem, "gp", d);
	if (rc == AB_OK)
		rc = md_file_open(&gp, path, d);
	if (rc == AB_OK) {
		write_dat(dat.f, p);
		write_gp(gp.f, stem, p);
		rc = md_file_commit(&dat, d);
	}
	if (rc == AB_OK)
		return md_file_commit(&gp, d);
	md_file_abort(&dat); /* a file not opened, or committed, is left as it is */
	md_file_abort(&gp);
	return rc;
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

const char *plot_series_color(int s)
{
	static const char *const colors[] = { "#0072b2", "#e69f00", "#009e73", "#cc79a7",
					      "#56b4e9", "#d55e00", "#f0e442", "#000000" };
	return colors[(s < 0 ? 0 : s) % (int)(sizeof colors / sizeof colors[0])];
}

int plot_longest(const char *const *v, int n)
{
	int w = 0;
	for (int i = 0; v && i < n; i++)
		w = v[i] && (int)strlen(v[i]) > w ? (int)strlen(v[i]) : w;
	return w;
}

void plot_extent(const double *v, int n, double *lo, double *hi)
{
	for (int i = 0; v && i < n; i++)
		if (isfinite(v[i])) {
			*lo = isfinite(*lo) ? fmin(*lo, v[i]) : v[i];
			*hi = isfinite(*hi) ? fmax(*hi, v[i]) : v[i];
		}
}
