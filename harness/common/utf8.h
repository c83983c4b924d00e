/*
 * utf8.h - one strict UTF-8 check for every text abbench takes in or
 * writes out (scenario strings, labels, names, database rows, JSON).
 *
 * Strict means RFC 3629: no overlong forms, no surrogates (U+D800..DFFF),
 * nothing above U+10FFFF. jansson refuses anything else, so a string that
 * passes here can always be written as JSON; one that fails is refused
 * where it enters (docs/RELIABILITY.md), with the byte offset named.
 */
#ifndef AB_UTF8_H
#define AB_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* The length (1-4) of the valid UTF-8 sequence at s[0..avail), or 0 when
 * the bytes there do not start one. avail must be at least 1. */
int utf8_seq_len(const unsigned char *s, size_t avail);

/* Whether s[0..n) is valid UTF-8 (a NUL byte is valid: callers that hold C
 * strings pass strlen). On false, *bad (when not NULL) is the offset of the
 * first byte that does not start a valid sequence. */
bool utf8_valid(const char *s, size_t n, size_t *bad);

/* utf8_valid over a C string. */
bool utf8_valid_str(const char *s, size_t *bad);

#endif
