/*
 * md.c - markdown escaping, tables, number formats and atomic output files
 * for the report, compare and gate printers.
 */
#include "print/md.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* GitHub-flavoured markdown: a backslash escapes any ASCII punctuation;
 * '<', '>' and '&' would otherwise start HTML or entities. */
static void cell_char(FILE *f, char ch)
{
	switch (ch) {
	case '\n': case '\r': case '\t':
		fputc(' ', f);
		return;
	case '<':
		fputs("&lt;", f);
		return;
	case '>':
		fputs("&gt;", f);
		return;
	case '&':
		fputs("&amp;", f);
		return;
	case '|': case '\\': case '*': case '_': case '`': case '[': case ']': case '~':
		fputc('\\', f);
		break;
	}
	fputc(ch, f);
}

void md_cell(FILE *f, const char *s)
{
	for (; s && *s; s++)
		cell_char(f, *s);
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
			fputs("\\|", f);
		else if (*s == '\n' || *s == '\r' || *s == '\t')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
	fputc('`', f);
}

void md_case_name(FILE *f, const char *name, bool own_arms, const char *arm_a, const char *arm_b)
{
	md_code(f, name);
	if (!own_arms)
		return;
	fputs(" (a ", f);
	md_code(f, arm_a);
	fputs(", b ", f);
	md_code(f, arm_b);
	fputc(')', f);
}

static const char *delimiter(char align)
{
	switch (align) {
	case 'r': return "---:";
	case 'c': return ":---:";
	default: return "---";
	}
}

void md_table_head(FILE *f, int n, const char *const *cols, const char *align)
{
	fputc('|', f);
	for (int i = 0; i < n; i++) {
		fputc(' ', f);
		md_cell(f, cols[i]);
		fputs(" |", f);
	}
	fputs("\n|", f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s|", delimiter(align ? align[i] : 'l'));
	fputc('\n', f);
}

static bool path_boundary(const char *start, const char *p)
{
	return p == start || strchr(" \t=\"'(", p[-1]) != NULL;
}

static bool token_end(char ch)
{
	return ch == '\0' || strchr(" \t\n\"')", ch) != NULL;
}

/* Appends the last component of the path token [p, end) to the output. */
static void put_basename(const char *p, const char *end, char *buf, size_t len, size_t *o)
{
	const char *e = end;
	while (e > p + 1 && e[-1] == '/')
		e--;
	const char *b = e;
	while (b > p && b[-1] != '/')
		b--;
	if (b == e) /* the token was "/" alone */
		b = p;
	for (; b < e && *o + 1 < len; b++)
		buf[(*o)++] = *b;
}

char *md_scrub_paths(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	if (!len)
		return buf;
	for (const char *p = s ? s : ""; *p && o + 1 < len;) {
		if (*p == '/' && path_boundary(s, p)) {
			const char *end = p;
			while (!token_end(*end))
				end++;
			put_basename(p, end, buf, len, &o);
			p = end;
			continue;
		}
		buf[o++] = *p++;
	}
	buf[o] = '\0';
	return buf;
}

char *md_us(double ns, char *buf, size_t len)
{
	if (isnan(ns))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.3f", ns / 1e3);
	return buf;
}

struct md_unit md_time_unit(double ns)
{
	double a = fabs(ns);
	if (isnan(ns) || a < 1e3)
		return (struct md_unit){ "ns", 1, 0 };
	if (a < 1e6)
		return (struct md_unit){ "us", 1e3, 2 };
	if (a < 1e9)
		return (struct md_unit){ "ms", 1e6, 3 };
	return (struct md_unit){ "s", 1e9, 3 };
}

char *md_time_in(double ns, const struct md_unit *u, char *buf, size_t len)
{
	if (isnan(ns))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.*f", u->decimals, ns / u->div);
	return buf;
}

char *md_time(double ns, char *buf, size_t len)
{
	struct md_unit u = md_time_unit(ns);
	char v[48];
	if (isnan(ns))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%s %s", md_time_in(ns, &u, v, sizeof v), u.name);
	return buf;
}

void md_spread_time(FILE *f, const struct summary_spread *s)
{
	char m[32], lo[32], hi[32];
	if (!s->n) {
		fputs("n/a", f);
		return;
	}
	struct md_unit u = md_time_unit(s->median_ns);
	fprintf(f, "%s %s [%s, %s] n=%d", md_time_in(s->median_ns, &u, m, sizeof m), u.name,
		md_time_in(s->p10_ns, &u, lo, sizeof lo), md_time_in(s->p90_ns, &u, hi, sizeof hi), s->n);
}

char *md_pct(double frac, char *buf, size_t len)
{
	if (isnan(frac))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%+.2f%%", frac * 100);
	return buf;
}

char *md_bytes(double bytes, char *buf, size_t len)
{
	if (!(bytes > 0))
		snprintf(buf, len, "n/a");
	else if (bytes < 1e6)
		snprintf(buf, len, "%.1f kB", bytes / 1e3);
	else if (bytes < 1e9)
		snprintf(buf, len, "%.2f MB", bytes / 1e6);
	else
		snprintf(buf, len, "%.2f GB", bytes / 1e9);
	return buf;
}

char *md_p(double p, char *buf, size_t len)
{
	if (isnan(p))
		snprintf(buf, len, "n/a");
	else if (p < 1e-6)
		snprintf(buf, len, "<1e-6");
	else if (p < 0.01)
		snprintf(buf, len, "%.1e", p);
	else
		snprintf(buf, len, "%.3f", p);
	return buf;
}

char *md_bw_pct(const struct summary_case *c, const struct bandwidth_arm *a, bool with_word, char *buf, size_t len)
{
	if (c->cache_resident && !isnan(a->gbps))
		snprintf(buf, len, " (cache-resident)");
	else if (!isnan(a->pct_copy))
		snprintf(buf, len, " (%.1f%%%s)", a->pct_copy, with_word ? " of copy" : "");
	else
		buf[0] = '\0';
	return buf;
}

char *md_floor(const struct summary_case *c, char *buf, size_t len)
{
	if (!isnan(c->copy_floor_ns))
		md_time(c->copy_floor_ns, buf, len);
	else if (c->cache_resident)
		snprintf(buf, len, "cache-resident");
	else
		snprintf(buf, len, "not measured");
	return buf;
}

char *md_b_over_floor(const struct summary_case *c, char *buf, size_t len)
{
	if (!isnan(c->b_over_copy))
		snprintf(buf, len, "%.2fx", c->b_over_copy);
	else if (isnan(c->copy_floor_ns) && c->cache_resident)
		snprintf(buf, len, "n/a (cache-resident)");
	else
		snprintf(buf, len, "n/a");
	return buf;
}

char *md_case_verdict(const struct summary_case *c, char *buf, size_t len)
{
	if (c->verdict == SUMMARY_CASE_DRIFTED)
		snprintf(buf, len, "drifted %.2f%% (not trusted)", c->drift * 100);
	else
		snprintf(buf, len, "%s", summary_case_verdict_str(c->verdict));
	return buf;
}

void md_verdict_counts(FILE *f, const struct summary_run *S)
{
	static const struct {
		enum summary_case_verdict v;
		const char *word;
		bool always;
	} rest[] = { { SUMMARY_CASE_NOT_EXACT, "lost bit-exactness %d", false },
		     { SUMMARY_CASE_DRIFTED, "drifted %d (not trusted)", false },
		     { SUMMARY_CASE_FEW_SAMPLES, "too few samples %d (not trusted)", false },
		     { SUMMARY_CASE_SLOWER, "slower %d", true },
		     { SUMMARY_CASE_NO_CLEAR_CHANGE, "no clear change %d", true } };
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
		fputs(", ", f);
		fprintf(f, rest[k].word, c);
		if (rest[k].v == SUMMARY_CASE_NOT_EXACT && S->n_nondeterministic)
			fprintf(f, " (%d nondeterministic)", S->n_nondeterministic);
	}
	fprintf(f, "; bit-exact in %d of %d", n - S->n_verdict[SUMMARY_CASE_NOT_EXACT], n);
}

void md_spread(FILE *f, const struct summary_spread *s)
{
	char m[32], lo[32], hi[32];
	if (!s->n) {
		fputs("n/a", f);
		return;
	}
	fprintf(f, "%s [%s, %s] n=%d", md_us(s->median_ns, m, sizeof m), md_us(s->p10_ns, lo, sizeof lo),
		md_us(s->p90_ns, hi, sizeof hi), s->n);
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
	for (char *p = path + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char saved = *p;
		*p = '\0';
		if (mkdir(path, 0777) != 0 && errno != EEXIST)
			return ab_fail(d, AB_ERR_IO, "cannot create directory '%s': %s", path, strerror(errno));
		*p = saved;
		if (saved == '\0')
			break;
	}
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return ab_fail(d, AB_ERR_IO, "'%s' is not a directory", dir);
	return AB_OK;
}
