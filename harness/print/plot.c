/*
 * plot.c - gnuplot scripts and data files for the report's three charts,
 * and the driver that runs gnuplot on them.
 *
 * Every chart is a pair STEM.dat + STEM.gp in one directory; the script
 * names the data by its bare file name, so `cd DIR && gnuplot STEM.gp`
 * redraws STEM.png by hand. The harness runs gnuplot in DIR with
 * `-e "outfile='STEM.png.tmp'"` (the script honours outfile when it is set)
 * and installs the result as STEM.png (outfile_install: renamed, or written
 * into a FIFO or device in place) once its PNG signature checks out.
 * Strings go into scripts double-quoted with '"' and '\' escaped and the
 * terminal is noenhanced, so a kernel named a_b does not grow a subscript.
 */
#include "print/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/outfile.h"
#include "print/md.h"

static const unsigned char png_signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

/* A double-quoted gnuplot string literal. */
static void gp_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
	fputc('"', f);
}

/* A string field of a data file: quoted, with no quote inside (gnuplot's
 * data reader has no escape for it). */
static void dat_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++)
		fputc(*s == '"' ? '\'' : (*s == '\n' ? ' ' : *s), f);
	fputc('"', f);
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
static void gp_head(FILE *f, const char *stem, const char *title, const char *ylabel, int width)
{
	fputs("# Written by abbench. Redraw with: gnuplot ", f);
	fprintf(f, "%s.gp (in this directory)\n", stem);
	fprintf(f, "if (!exists(\"outfile\")) outfile = \"%s.png\"\n", stem);
	fprintf(f, "set terminal pngcairo size %d,500 noenhanced font \"sans,10\"\n", width);
	fputs("set output outfile\n", f);
	fputs("set datafile missing \"?\"\n", f);
	fputs("set title ", f);
	gp_string(f, title);
	fputs("\nset ylabel ", f);
	gp_string(f, ylabel);
	fputs("\nset yrange [0:*]\nset grid ytics\n", f);
}

/* Writes the .dat with write_dat and the .gp with write_gp, both
 * committed only when both were written. */
static enum ab_rc write_pair(const char *dir, const char *stem, const void *p,
			     void (*write_dat)(FILE *, const void *), void (*write_gp)(FILE *, const char *, const void *),
			     struct ab_diag *d)
{
	struct md_file dat, gp;
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
	fputs("# row", f);
	for (int s = 0; s < p->n_series; s++)
		fprintf(f, " | series %d: value low high", s + 1);
	fputc('\n', f);
	for (int r = 0; r < p->n_rows; r++) {
		dat_string(f, p->row_names[r]);
		for (int s = 0; s < p->n_series; s++) {
			int i = r * p->n_series + s;
			dat_number(f, p->value[i]);
			dat_number(f, p->low[i]);
			dat_number(f, p->high[i]);
		}
		fputc('\n', f);
	}
}

static void bars_gp(FILE *f, const char *stem, const void *vp)
{
	const struct plot_bars *p = vp;
	gp_head(f, stem, p->title, p->ylabel, 900);
	fputs("set style data histograms\nset style histogram errorbars gap 2 lw 1\n", f);
	fputs("set style fill solid 0.6 border -1\nset key top right\nset xtics rotate by -20\n", f);
	if (isfinite(p->reference_line))
		fprintf(f, "set arrow from graph 0, first %g to graph 1, first %g nohead dt 2\n", p->reference_line,
			p->reference_line);
	for (int s = 0; s < p->n_series; s++) {
		int c = 2 + 3 * s;
		fputs(s ? ", \\\n     \"\"" : "plot ", f);
		if (!s)
			fprintf(f, "\"%s.dat\"", stem);
		fprintf(f, " using %d:%d:%d%s title ", c, c + 1, c + 2, s ? "" : ":xtic(1)");
		gp_string(f, p->series_names[s]);
	}
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
	for (int s = 0; s < p->n_segments; s++)
		fprintf(f, " %d=%s", s + 2, p->segment_names[s]);
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
		fprintf(f, " using %d%s title ", s + 2, s ? "" : ":xtic(1)");
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

/* ---- box plots ---- */

static void boxes_dat(FILE *f, const void *vp)
{
	const struct plot_boxes *p = vp;
	for (int g = 0; g < p->n_groups; g++) {
		fprintf(f, "%s# block %d: %s\n", g ? "\n\n" : "", g, p->group_names[g]);
		for (int i = 0; i < p->n_values[g]; i++) {
			if (!isfinite(p->values[g][i]))
				continue;
			dat_number(f, p->values[g][i]);
			fputc('\n', f);
		}
	}
}

static void boxes_gp(FILE *f, const char *stem, const void *vp)
{
	const struct plot_boxes *p = vp;
	gp_head(f, stem, p->title, p->ylabel, 900);
	fputs("set style data boxplot\nset style boxplot outliers pointtype 7\n", f);
	fputs("set style fill solid 0.4 border -1\nset boxwidth 0.5\nset key off\n", f);
	fprintf(f, "set xrange [0.5:%d.5]\nset xtics (", p->n_groups);
	for (int g = 0; g < p->n_groups; g++) {
		fputs(g ? ", " : "", f);
		gp_string(f, p->group_names[g]);
		fprintf(f, " %d", g + 1);
	}
	fputs(")\n", f);
	for (int g = 0; g < p->n_groups; g++) {
		fputs(g ? ", \\\n     \"\"" : "plot ", f);
		if (!g)
			fprintf(f, "\"%s.dat\"", stem);
		fprintf(f, " index %d using (%d):1", g, g + 1);
	}
	fputc('\n', f);
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

bool plot_png_valid(const char *path)
{
	unsigned char head[8];
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	size_t n = fread(head, 1, sizeof head, f);
	fclose(f);
	return n == sizeof head && !memcmp(head, png_signature, sizeof head);
}

/* Child side: run gnuplot in dir, stdout and stderr into the pipe. */
static void exec_gnuplot(const char *gnuplot, const char *dir, const char *stem, int out_fd)
{
	char script[300], outvar[320];

	snprintf(script, sizeof script, "%s.gp", stem);
	snprintf(outvar, sizeof outvar, "outfile='%s.png.tmp'", stem);
	dup2(out_fd, STDOUT_FILENO);
	dup2(out_fd, STDERR_FILENO);
	close(out_fd);
	int nul = open("/dev/null", O_RDONLY);
	if (nul >= 0)
		dup2(nul, STDIN_FILENO);
	if (chdir(dir) != 0) {
		dprintf(STDERR_FILENO, "cannot enter '%s': %s", dir, strerror(errno));
		_exit(126);
	}
	execl(gnuplot, "gnuplot", "-e", outvar, script, (char *)NULL);
	dprintf(STDERR_FILENO, "cannot run '%s': %s", gnuplot, strerror(errno));
	_exit(127);
}

/* Reads what the child printed (the first len - 1 bytes kept) until EOF. */
static void drain(int fd, char *buf, size_t len)
{
	size_t used = 0;
	char chunk[512];
	ssize_t n;

	while ((n = read(fd, chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR)) {
		for (ssize_t i = 0; i < n && used + 1 < len; i++)
			buf[used++] = chunk[i] == '\n' ? ' ' : chunk[i];
	}
	while (used && buf[used - 1] == ' ')
		used--;
	buf[used] = '\0';
}

static enum ab_rc spawn_gnuplot(const char *gnuplot, const char *dir, const char *stem, char *log, size_t loglen,
				int *status, struct ab_diag *d)
{
	int fds[2];
	if (pipe(fds) != 0)
		return ab_fail(d, AB_ERR_IO, "cannot create a pipe for gnuplot: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return ab_fail(d, AB_ERR_IO, "cannot start gnuplot: %s", strerror(errno));
	}
	if (pid == 0) {
		close(fds[0]);
		exec_gnuplot(gnuplot, dir, stem, fds[1]);
	}
	close(fds[1]);
	drain(fds[0], log, loglen);
	close(fds[0]);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return ab_fail(d, AB_ERR_IO, "cannot wait for gnuplot: %s", strerror(errno));
	return AB_OK;
}

enum ab_rc plot_render(const char *gnuplot, const char *dir, const char *stem, struct ab_diag *d)
{
	char log[400], tmp[4096], png[4096];
	int status;

	if (snprintf(tmp, sizeof tmp, "%s/%s.png.tmp", dir, stem) >= (int)sizeof tmp ||
	    snprintf(png, sizeof png, "%s/%s.png", dir, stem) >= (int)sizeof png)
		return ab_fail(d, AB_ERR_USAGE, "output path too long in '%s'", dir);
	enum ab_rc rc = spawn_gnuplot(gnuplot, dir, stem, log, sizeof log, &status, d);
	if (rc != AB_OK)
		return rc;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		unlink(tmp);
		return ab_fail(d, AB_ERR_IO, "gnuplot failed on '%s.gp': %s", stem, log[0] ? log : "no message");
	}
	if (!plot_png_valid(tmp)) {
		unlink(tmp);
		return ab_fail(d, AB_ERR_IO, "gnuplot wrote no valid PNG for '%s.gp'%s%s", stem, log[0] ? ": " : "", log);
	}
	return outfile_install(tmp, png, d);
}
