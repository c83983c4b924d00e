/*
 * md.c - markdown escaping, tables, number formats and atomic output files
 * for the report, compare and gate printers, and a report's markdown as an
 * HTML page for the dashboard (cmark-gfm).
 */
#include "print/md.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include "analysis/figures.h"
#include "print/escape.h"

/* GitHub-flavoured markdown: a backslash escapes any ASCII punctuation;
 * '<', '>' and '&' would otherwise start HTML or entities. */
void md_cell(FILE *f, const char *s)
{
	static const char *const instead[256] = {
		['<'] = "&lt;", ['>'] = "&gt;", ['&'] = "&amp;", ['\n'] = " ", ['\r'] = " ", ['\t'] = " ",
		['|'] = "\\|", ['\\'] = "\\\\", ['*'] = "\\*", ['_'] = "\\_", ['`'] = "\\`", ['['] = "\\[",
		[']'] = "\\]", ['~'] = "\\~",
	};
	for (; s && *s; s++) {
		const char *in = instead[(unsigned char)*s];
		if (in)
			fputs(in, f);
		else
			fputc(*s, f);
	}
}

void md_code(FILE *f, const char *s)
{
	if (!s || !*s || strchr(s, '`')) {
		md_cell(f, s);
		return;
	}
	fputc('`', f);
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(strchr("\n\r\t", *s) ? ' ' : *s, f);
	}
	fputc('`', f);
}

void md_printf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	escape_vprintf(f, md_cell, md_code, fmt, ap);
	va_end(ap);
}

void md_case_name(FILE *f, const char *name, bool own_arms, const char *arm_a, const char *arm_b)
{
	md_code(f, name);
	if (own_arms)
		md_printf(f, " (a `%s`, b `%s`)", arm_a, arm_b);
}

void md_table_head(FILE *f, int n, const char *const *cols, const char *align)
{
	fputc('|', f);
	for (int i = 0; i < n; i++)
		md_printf(f, " %s |", cols[i]);
	fputs("\n|", f);
	for (int i = 0; i < n; i++) {
		char a = align ? align[i] : 'l';
		fputs(a == 'r' ? "---:|" : a == 'c' ? ":---:|" : "---|", f);
	}
	fputc('\n', f);
}

char *md_scrub_paths(const char *s, char *buf, size_t len)
{
	size_t o = 0;
	if (!len)
		return buf;
	for (const char *p = s ? s : ""; *p && o + 1 < len;) {
		if (*p != '/' || (p != s && !strchr(" \t=\"'(", p[-1]))) {
			buf[o++] = *p++;
			continue;
		}
		/* a path token [p, p + n): its last component [b, e), trailing
		 * slashes left out; "/" alone stays */
		size_t n = strcspn(p, " \t\n\"')"), e = n, b;
		while (e > 1 && p[e - 1] == '/')
			e--;
		b = e;
		while (b > 0 && p[b - 1] != '/')
			b--;
		if (b == e)
			b = 0;
		while (b < e && o + 1 < len)
			buf[o++] = p[b++];
		p += n;
	}
	buf[o] = '\0';
	return buf;
}

/* snprintf into buf, returning buf: each number format's one line. */
static char *str(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static char *str(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return buf;
}

struct md_unit md_time_unit(double ns)
{
	static const struct md_unit units[] = { { "ns", 1, 0 }, { "us", 1e3, 2 }, { "ms", 1e6, 3 }, { "s", 1e9, 3 } };
	int k = 0;
	while (k < 3 && fabs(ns) >= units[k + 1].div) /* NAN compares false: ns */
		k++;
	return units[k];
}

char *md_time_in(double ns, const struct md_unit *u, char *buf, size_t len)
{
	return isnan(ns) ? str(buf, len, "n/a") : str(buf, len, "%.*f", u->decimals, ns / u->div);
}

char *md_time(double ns, char *buf, size_t len)
{
	struct md_unit u = md_time_unit(ns);
	return isnan(ns) ? str(buf, len, "n/a") : str(buf, len, "%.*f %s", u.decimals, ns / u.div, u.name);
}

char *md_spread_str(double median_ns, double lo_ns, double hi_ns, int n, char *buf, size_t len)
{
	struct md_unit u = md_time_unit(median_ns);
	char m[32], lo[32], hi[32];
	if (!n)
		return str(buf, len, "n/a");
	if (isnan(lo_ns))
		return str(buf, len, "%s %s [n/a] n=%d", md_time_in(median_ns, &u, m, sizeof m), u.name, n);
	return str(buf, len, "%s %s [%s, %s] n=%d", md_time_in(median_ns, &u, m, sizeof m), u.name,
		   md_time_in(lo_ns, &u, lo, sizeof lo), md_time_in(hi_ns, &u, hi, sizeof hi), n);
}

void md_spread_time(FILE *f, const struct summary_spread *s)
{
	char buf[128];
	fputs(md_spread_str(s->median_ns, s->p10_ns, s->p90_ns, s->n, buf, sizeof buf), f);
}

char *md_pct(double frac, char *buf, size_t len)
{
	return isnan(frac) ? str(buf, len, "n/a") : str(buf, len, "%+.2f%%", frac * 100);
}

char *md_num(double x, int digits, char *buf, size_t len)
{
	return isnan(x) ? str(buf, len, "n/a") : str(buf, len, "%.*g", digits, x);
}

char *md_share(double frac, char *buf, size_t len)
{
	return isnan(frac) ? str(buf, len, "n/a") : str(buf, len, "%.2f%%", frac * 100);
}

char *md_bytes(double bytes, char *buf, size_t len)
{
	if (!(bytes > 0))
		return str(buf, len, "n/a");
	if (bytes < 1e6)
		return str(buf, len, "%.1f kB", bytes / 1e3);
	return bytes < 1e9 ? str(buf, len, "%.2f MB", bytes / 1e6) : str(buf, len, "%.2f GB", bytes / 1e9);
}

char *md_bw_pct(const struct summary_case *c, const struct bandwidth_arm *a, bool with_word, char *buf, size_t len)
{
	if (c->cache_resident && !isnan(a->gbps))
		return str(buf, len, " (cache-resident)");
	if (isnan(a->pct_copy))
		return str(buf, len, "%s", "");
	return str(buf, len, " (%.1f%%%s)", a->pct_copy, with_word ? " of copy" : "");
}

char *md_case_verdict(const struct summary_case *c, char *buf, size_t len)
{
	struct figure_at at = { .c = c };
	struct figure_value v;
	figure_value_of(figure_find("verdict"), &at, &v);
	return str(buf, len, "%s", v.words);
}

const char *md_host_unmeasured(const struct summary_run *S)
{
	for (int i = 0; i < S->n_cases; i++)
		if (S->cases[i].a.host.n || S->cases[i].b.host.n)
			return NULL;
	if (!strcmp(S->run->backend, "cpu"))
		return "the CPU backend: its call is the work";
	return !strcmp(S->run->timing, "graph") ? "timing = graph times no single call" : "the run stored none";
}

void md_verdict_counts(FILE *f, const struct summary_run *S)
{
	static const struct {
		enum summary_case_verdict v;
		const char *word;
		bool always;
	} rest[] = { { SUMMARY_CASE_NOT_EXACT, ", lost bit-exactness %d", false },
		     { SUMMARY_CASE_DRIFTED, ", drifted %d (not trusted)", false },
		     { SUMMARY_CASE_FEW_SAMPLES, ", too few samples %d (not trusted)", false },
		     { SUMMARY_CASE_SLOWER, ", slower %d", true },
		     { SUMMARY_CASE_NO_CLEAR_CHANGE, ", no clear change %d", true } };
	int n = S->n_cases;
	fprintf(f, "faster in %d of %d case%s", S->n_verdict[SUMMARY_CASE_FASTER], n, n == 1 ? "" : "s");
	if (!isnan(S->min_speedup) && S->min_speedup == S->max_speedup)
		fprintf(f, " (speedup %.2fx)", S->min_speedup);
	else if (!isnan(S->min_speedup))
		fprintf(f, " (speedup %.2fx to %.2fx)", S->min_speedup, S->max_speedup);
	for (size_t k = 0; k < sizeof rest / sizeof rest[0]; k++) {
		int c = S->n_verdict[rest[k].v];
		if (!c && !rest[k].always)
			continue;
		fprintf(f, rest[k].word, c);
		if (rest[k].v == SUMMARY_CASE_NOT_EXACT && S->n_nondeterministic)
			fprintf(f, " (%d nondeterministic)", S->n_nondeterministic);
	}
	fprintf(f, "; bit-exact in %d of %d", n - S->n_verdict[SUMMARY_CASE_NOT_EXACT], n);
}

enum ab_rc md_file_open(struct md_file *mf, const char *path, struct ab_diag *d)
{
	enum ab_rc rc = outfile_open(&mf->out, path, d);
	mf->f = mf->out.f;
	return rc;
}

enum ab_rc md_file_commit(struct md_file *mf, struct ab_diag *d)
{
	mf->f = NULL;
	return outfile_commit(&mf->out, d);
}

void md_file_abort(struct md_file *mf)
{
	mf->f = NULL;
	outfile_abort(&mf->out);
}

enum ab_rc md_mkdirs(const char *dir, struct ab_diag *d)
{
	char path[4096];
	struct stat st;
	if (!*dir)
		return ab_fail(d, AB_ERR_USAGE, "empty directory name");
	if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
		return ab_fail(d, AB_ERR_USAGE, "path too long '%.64s...'", dir);
	for (char *p = strchr(path + 1, '/');; p = strchr(p + 1, '/')) { /* each parent, then dir */
		if (p)
			*p = '\0';
		if (mkdir(path, 0777) != 0 && errno != EEXIST)
			return ab_fail(d, AB_ERR_IO, "cannot create directory '%s': %s", path, strerror(errno));
		if (!p)
			break;
		*p = '/';
	}
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return ab_fail(d, AB_ERR_IO, "'%s' is not a directory", dir);
	return AB_OK;
}

/* GitHub's flavour: tables and strikethrough; raw HTML kept. Not the
 * autolink extension: the report's cells hold text from outside (a device
 * name, a host, notes, an arm's details), and a "www." or "http://" there
 * must stay text, never become a link (md_cell escapes the rest). */
enum ab_rc md_html_render(const char *md_path, const char *html_path, const char *title, const char *css,
			  struct ab_diag *d)
{
	const int opt = CMARK_OPT_UNSAFE | CMARK_OPT_GITHUB_PRE_LANG;
	char chunk[65536];
	size_t n;
	FILE *in = fopen(md_path, "rb");
	if (!in)
		return ab_fail(d, AB_ERR_IO, "cannot read '%s': %s", md_path, strerror(errno));
	cmark_gfm_core_extensions_ensure_registered();
	cmark_parser *p = cmark_parser_new(opt); /* nothing of cmark's is NULL: its allocator aborts */
	cmark_parser_attach_syntax_extension(p, cmark_find_syntax_extension("table")); /* registered: not NULL */
	cmark_parser_attach_syntax_extension(p, cmark_find_syntax_extension("strikethrough"));
	while ((n = fread(chunk, 1, sizeof chunk, in)) > 0)
		cmark_parser_feed(p, chunk, n);
	if (ferror(in)) { /* a page cut short would read as the whole report */
		cmark_parser_free(p);
		fclose(in);
		return ab_fail(d, AB_ERR_IO, "cannot read '%s'", md_path);
	}
	fclose(in);
	cmark_node *doc = cmark_parser_finish(p);
	char *html = cmark_render_html(doc, opt, cmark_parser_get_syntax_extensions(p));
	cmark_node_free(doc);
	cmark_parser_free(p);
	struct md_file mf;
	enum ab_rc rc = md_file_open(&mf, html_path, d);
	if (!rc) {
		html_printf(mf.f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			    "<title>%s</title>\n<link rel=\"stylesheet\" href=\"%s\">\n</head>\n"
			    "<body class=\"report\">\n<main>\n", title, css);
		fprintf(mf.f, "%s</main>\n</body>\n</html>\n", html);
		rc = md_file_commit(&mf, d);
	}
	free(html);
	return rc;
}
