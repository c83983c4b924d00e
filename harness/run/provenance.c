/*
 * provenance.c - the command line recorded with every run.
 */
#include "run/provenance.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool needs_quotes(const char *s)
{
	if (!*s)
		return true;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%", *s))
			return true;
	return false;
}

char *provenance_command_line(int argc, char **argv)
{
	size_t len = 1;
	for (int i = 0; i < argc; i++)
		len += 4 * strlen(argv[i]) + 3;
	char *out = malloc(len), *p = out;
	if (!out)
		return NULL;
	for (int i = 0; i < argc; i++) {
		if (i)
			*p++ = ' ';
		if (!needs_quotes(argv[i])) {
			p += sprintf(p, "%s", argv[i]);
			continue;
		}
		*p++ = '\'';
		for (const char *s = argv[i]; *s; s++) {
			if (*s == '\'')
				p += sprintf(p, "'\\''");
			else
				*p++ = *s;
		}
		*p++ = '\'';
	}
	*p = '\0';
	return out;
}
