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

/* The ASCII letters and digits, which every sink keeps (isalnum's set
 * depends on the locale). */
#define ALNUM "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

void escape_html(FILE *f, const char *s)
{
	static const char *const entity[128] = {
		['<'] = "&lt;", ['>'] = "&gt;", ['&'] = "&amp;", ['"'] = "&quot;", ['\''] = "&#39;",
	};
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 128 && entity[c])
			fputs(entity[c], f);
		else
			fputc(is_control(c) ? ' ' : c, f);
	}
}

void escape_url_part(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (strchr(ALNUM "-._~", *s))
			fputc(*s, f);
		else
			fprintf(f, "%%%02X", (unsigned char)*s);
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
	for (; s && s[k] && k + 1 < len; k++)
		buf[k] = strchr(ALNUM "-_.", s[k]) && !(k == 0 && s[k] == '.') ? s[k] : '_';
	if (!k && len > 1)
		buf[k++] = '_';
	buf[k] = '\0';
	return buf;
}

bool escape_csv_formula(const char *s)
{
	return s && s[0] && strchr("=+-@\t\r", s[0]) != NULL;
}

/* One conversion of printf's, spec ("%lld", "%.*f", "%%"): ap is moved
 * past its arguments (an int per '*', then the value, of the type that
 * spec's conversion and length say), and vfprintf prints them from a copy
 * taken before. */
static void put_conversion(FILE *f, const char *spec, va_list *ap)
{
	char conv = spec[strlen(spec) - 1];
	va_list one;
	va_copy(one, *ap);
	for (const char *star = strchr(spec, '*'); star; star = strchr(star + 1, '*'))
		(void)va_arg(*ap, int);
	if (strchr("fFeEgGaA", conv))
		(void)va_arg(*ap, double);
	else if (conv == 's' || conv == 'p')
		(void)va_arg(*ap, void *);
	else if (strstr(spec, "ll"))
		(void)va_arg(*ap, long long);
	else if (strchr(spec, 'l'))
		(void)va_arg(*ap, long);
	else if (strchr(spec, 'z'))
		(void)va_arg(*ap, size_t);
	else if (conv != '%')
		(void)va_arg(*ap, int);
	vfprintf(f, spec, one);
	va_end(one);
}

void escape_vprintf(FILE *f, escape_fn text, escape_fn code, const char *fmt, va_list args)
{
	char spec[32];
	va_list ap; /* a copy: a va_list parameter cannot be passed on by address */
	va_copy(ap, args);
	for (const char *p = fmt; *p;) {
		size_t n = strcspn(p, "%");
		bool span = code && n && p[n - 1] == '`' && !strncmp(p + n, "%s`", 3); /* "`%s`": code's own backticks */
		fwrite(p, 1, n - span, f);
		if (!*(p += n))
			break;
		n = 2 + strspn(p + 1, "-+ #0123456789.*hlz"); /* flags, width, precision, length, conversion */
		snprintf(spec, sizeof spec, "%.*s", (int)n, p);
		p += n + span;
		if (!strcmp(spec, "%s"))
			(span ? code : text)(f, va_arg(ap, const char *));
		else
			put_conversion(f, spec, &ap);
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
