/*
 * diag.c - result codes, their exit statuses, and message helpers.
 */
#include "common/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/utf8.h"

int ab_rc_exit_status(enum ab_rc rc)
{
	switch (rc) {
	case AB_OK:
		return AB_EXIT_OK;
	case AB_ERR_USAGE:
	case AB_ERR_INPUT:
	case AB_ERR_DATA:
		return AB_EXIT_USAGE;
	case AB_ERR_INTERRUPTED:
		return AB_EXIT_SIGNAL_BASE + 2; /* SIGINT's; `abbench run` gives the signal it caught */
	default:
		return AB_EXIT_FAILURE;
	}
}

enum ab_rc ab_fail(struct ab_diag *d, enum ab_rc rc, const char *fmt, ...)
{
	if (d) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(d->msg, sizeof d->msg, fmt, ap);
		va_end(ap);
	}
	return rc;
}

enum ab_rc ab_wrap(struct ab_diag *d, enum ab_rc rc, const char *fmt, ...)
{
	if (d) {
		char old[AB_DIAG_MAX];
		va_list ap;
		memcpy(old, d->msg, sizeof old);
		va_start(ap, fmt);
		int n = vsnprintf(d->msg, sizeof d->msg, fmt, ap);
		va_end(ap);
		size_t used = n < 0 ? 0 : (size_t)n;
		/* Append ": old" by hand: snprintf here trips -Wformat-truncation. */
		const char *parts[2] = { ": ", old };
		for (int p = 0; p < 2; p++)
			for (const char *c = parts[p]; *c && used + 1 < sizeof d->msg; c++)
				d->msg[used++] = *c;
		if (used < sizeof d->msg)
			d->msg[used] = '\0';
	}
	return rc;
}

/* The length of the valid UTF-8 sequence at s that is not a C1 control
 * (U+0080..U+009F), or 0. */
static int utf8_printable_len(const unsigned char *s)
{
	int n = utf8_seq_len(s, strnlen((const char *)s, 4));
	return n == 2 && s[0] == 0xC2 && s[1] < 0xA0 ? 0 : n;
}

void ab_put_escaped(FILE *f, const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	while (*s) {
		int n = *s < 0x80 ? (*s >= 0x20 && *s != 0x7F) : utf8_printable_len(s);
		if (n == 0) {
			fprintf(f, "\\x%02X", *s++);
			continue;
		}
		fwrite(s, 1, (size_t)n, f);
		s += n;
	}
}

/* "abbench: KIND: MSG\n" with MSG escaped (see diag.h). */
static void print_line(const char *kind, const char *fmt, va_list ap)
{
	char msg[4 * AB_DIAG_MAX];
	vsnprintf(msg, sizeof msg, fmt, ap);
	fprintf(stderr, "abbench: %s: ", kind);
	ab_put_escaped(stderr, msg);
	fputc('\n', stderr);
}

int ab_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	print_line("error", fmt, ap);
	va_end(ap);
	return -1;
}

void ab_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	print_line("warning", fmt, ap);
	va_end(ap);
}

bool ab_fail_text(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return false;
}
