/*
 * escape.h - one escaping function per sink that text from a database or
 * a command line reaches. Database rows come from other machines (`abbench
 * merge` copies shards' rows as they are), so every name, label, commit or
 * device string is treated as hostile wherever it is printed:
 *
 *   sink        function          rule
 *   terminal    escape_term       control characters (C0, DEL, C1) and bytes
 *                                 that are not UTF-8 as \xNN: ab_put_escaped's
 *                                 rule (common/diag.h), into a buffer so that
 *                                 columns can be aligned
 *   HTML        escape_html       < > & " ' as entities, control characters as
 *                                 a space: text content and attribute values
 *   gnuplot     escape_gnuplot    a single-quoted string (a quote as U+2019, control
 *                                 characters as a space): gnuplot runs `command`
 *                                 in double-quoted strings, never in single-quoted
 *                                 ones, and a raw newline would end the command
 *   file names  escape_stem       letters, digits, '-', '_' and '.' kept, any
 *                                 other byte '_', never a leading '.', never empty
 *   CSV         escape_csv_formula
 *                                 a text cell starting with = + - @ tab or CR gets
 *                                 a leading ' (OWASP's advice against formula
 *                                 injection); numbers are written as they are
 *   URL part    escape_url_part   every byte but A-Z a-z 0-9 - . _ ~ as %XX: a value
 *                                 put into a URL (a commit into a commit-link
 *                                 template) cannot end its part or add another;
 *                                 the URL then goes through escape_html as any
 *                                 attribute value
 *   markdown    md_cell, md_code  (print/md.h)
 */
#ifndef AB_ESCAPE_H
#define AB_ESCAPE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* s escaped for a terminal into buf (cut to len - 1 bytes). Returns buf. */
char *escape_term(const char *s, char *buf, size_t len);

/* A few escaped copies at once, for one printf of a line: escape_t copies
 * s into the next of the pool's buffers (round robin) and returns it. */
#define ESCAPE_POOL_N 12
#define ESCAPE_POOL_LEN 1024
struct escape_pool {
	char buf[ESCAPE_POOL_N][ESCAPE_POOL_LEN];
	int next;
};
const char *escape_t(struct escape_pool *p, const char *s);

void escape_html(FILE *f, const char *s);

/* printf whose plain %s arguments go through text, and a %s between
 * backticks in fmt ("`%s`") through code (code NULL: text, backticks kept);
 * every other conversion is printf's: a %s with a width or a precision
 * ("%-14s", "%.16s") is printed raw, so escape its argument first. md_printf
 * (print/md.h) and html_printf are it for their sinks. */
typedef void (*escape_fn)(FILE *f, const char *s);
void escape_vprintf(FILE *f, escape_fn text, escape_fn code, const char *fmt, va_list ap);
/* printf for HTML: each %s argument escaped as escape_html does. */
void html_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void escape_url_part(FILE *f, const char *s);

void escape_gnuplot(FILE *f, const char *s);

/* A file-name stem from s (at most len - 1 bytes; len >= 2). Returns buf. */
char *escape_stem(const char *s, char *buf, size_t len);

bool escape_csv_formula(const char *s);

#endif
