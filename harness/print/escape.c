/*
 * escape.c - escaping per sink (escape.h has the rules).
 */
#include "print/escape.h"

#include <stdarg.h>
#include <string.h>

#include "common/diag.h"

char *escape_term(const char *s, char *buf, size_t len)
{
	if (!len)
		return buf;
	buf[0] = '\0';
	FILE *m = fmemopen(buf, len, "w");
	if (!m) {
		/* no stream (out of memory): every byte that is not printable
		 * ASCII becomes '?', still safe for a terminal */
		size_t i = 0;
		for (; s && s[i] && i + 1 < len; i++)
			buf[i] = (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f ? s[i] : '?';
		buf[i] = '\0';
		return buf;
	}
	ab_put_escaped(m, s ? s : "");
	fclose(m);
	buf[len - 1] = '\0';
	return buf;
}

const char *escape_t(struct escape_pool *p, const char *s)
{
	char *b = p->buf[p->next];
	p->next = (p->next + 1) % ESCAPE_POOL_N;
	return escape_term(s, b, ESCAPE_POOL_LEN);
}

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

void escape_html(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(is_control((unsigned char)*s) ? ' ' : *s, f);
		}
	}
}

void escape_url_part(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
				  c == '.' || c == '_' || c == '~';
		if (unreserved)
			fputc(c, f);
		else
			fprintf(f, "%%%02X", c);
	}
}

/* gnuplot 5.4's lexer takes a doubled quote inside a single-quoted string
 * as one quote only where no other quote touches it: a literal whose text
 * starts with a quote, or holds two quotes in a row, is a syntax error
 * there, so such a name would fail its chart. A quote is therefore written
 * as the typographic apostrophe U+2019, which gnuplot passes through as
 * text: the literal holds no quote at all, and a chart reads the same to a
 * person. */
void escape_gnuplot(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; s && *s; s++) {
		if (*s == '\'')
			fputs("\xE2\x80\x99", f);
		else
			fputc(is_control((unsigned char)*s) ? ' ' : *s, f);
	}
	fputc('\'', f);
}

char *escape_stem(const char *s, char *buf, size_t len)
{
	size_t k = 0;
	for (; s && s[k] && k + 1 < len; k++) {
		char ch = s[k];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
			  ch == '_' || ch == '.';
		buf[k] = ok && !(k == 0 && ch == '.') ? ch : '_';
	}
	if (!k && len > 1)
		buf[k++] = '_';
	buf[k] = '\0';
	return buf;
}

bool escape_csv_formula(const char *s)
{
	return s && s[0] && strchr("=+-@\t\r", s[0]) != NULL;
}

/* The conversion at p ("%lld", "%.*f", "%s"): its length, and through
 * *kind what its argument is: 'i' int, 'l' long, 'L' long long, 'z'
 * size_t, 'd' double, 's' string, 'p' pointer, '%' none; *star: whether
 * an int width or precision ('*') comes first. */
static size_t conversion(const char *p, char *kind, bool *star)
{
	size_t n = 1 + strspn(p + 1, "-+ #0123456789.*");
	int longs = 0;
	bool size = false;
	*star = memchr(p, '*', n) != NULL;
	for (; p[n] && strchr("hlz", p[n]); n++) {
		longs += p[n] == 'l';
		size = size || p[n] == 'z';
	}
	if (p[n] && strchr("fFeEgGaA", p[n]))
		*kind = 'd';
	else if (p[n] == 's' || p[n] == 'p' || p[n] == '%')
		*kind = p[n];
	else
		*kind = size ? 'z' : longs > 1 ? 'L' : longs ? 'l' : 'i';
	return n + 1;
}

/* One conversion of printf's, its argument taken from ap. */
static void put_conversion(FILE *f, const char *spec, char kind, bool star, va_list *ap)
{
	int w = star ? va_arg(*ap, int) : 0;
	switch (kind) {
	case 'd': { double x = va_arg(*ap, double); star ? fprintf(f, spec, w, x) : fprintf(f, spec, x); break; }
	case 's': case 'p': { void *x = va_arg(*ap, void *); star ? fprintf(f, spec, w, x) : fprintf(f, spec, x); break; }
	case 'L': fprintf(f, spec, va_arg(*ap, long long)); break;
	case 'l': fprintf(f, spec, va_arg(*ap, long)); break;
	case 'z': fprintf(f, spec, va_arg(*ap, size_t)); break;
	case '%': fputc('%', f); break;
	default: { int x = va_arg(*ap, int); star ? fprintf(f, spec, w, x) : fprintf(f, spec, x); break; }
	}
}

void escape_vprintf(FILE *f, escape_fn text, escape_fn code, const char *fmt, va_list args)
{
	char spec[32], kind;
	bool star;
	va_list ap; /* a copy: a va_list parameter cannot be passed on by address */
	va_copy(ap, args);
	for (const char *p = fmt; *p;) {
		size_t n = strcspn(p, "%");
		bool span = code && n && p[n - 1] == '`' && !strncmp(p + n, "%s`", 3); /* "`%s`": code's own backticks */
		fwrite(p, 1, n - span, f);
		if (!*(p += n))
			break;
		n = conversion(p, &kind, &star);
		snprintf(spec, sizeof spec, "%.*s", (int)n, p);
		p += n + span;
		if (!strcmp(spec, "%s"))
			(span ? code : text)(f, va_arg(ap, const char *));
		else
			put_conversion(f, spec, kind, star, &ap);
	}
	va_end(ap);
}

void html_printf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	escape_vprintf(f, escape_html, NULL, fmt, ap);
	va_end(ap);
}
