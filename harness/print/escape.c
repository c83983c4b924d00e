/*
 * escape.c - escaping per sink (escape.h has the rules).
 */
#include "print/escape.h"

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
