/*
 * numparse.h - whole-string numbers for command-line options (cli.c) and
 * device profile keys (profile.c), parsed one way.
 *
 * A number is what strtod / strtoll accept (leading blanks and a sign
 * included) and nothing after it. Each function returns false, leaving
 * *out alone, for an empty string, trailing characters, a value out of
 * range, or (for doubles) an infinity or NaN. The callers word the error.
 */
#ifndef AB_NUMPARSE_H
#define AB_NUMPARSE_H

#include <stdbool.h>
#include <stdint.h>

bool numparse_double(const char *s, double *out); /* finite only */
bool numparse_i64(const char *s, int64_t *out);
bool numparse_int(const char *s, int *out);       /* within INT_MIN..INT_MAX */

#endif
