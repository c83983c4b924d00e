/*
 * utf8.c - the strict UTF-8 check of utf8.h (RFC 3629, table 3-7 of the
 * Unicode standard: the second byte's range depends on the first).
 */
#include "common/utf8.h"

#include <string.h>

int utf8_seq_len(const unsigned char *s, size_t avail)
{
	unsigned char c = s[0];
	int n;
	unsigned char lo = 0x80, hi = 0xBF; /* the second byte's range */
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		lo = c == 0xE0 ? 0xA0 : 0x80; /* no overlong */
		hi = c == 0xED ? 0x9F : 0xBF; /* no surrogate */
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		lo = c == 0xF0 ? 0x90 : 0x80; /* no overlong */
		hi = c == 0xF4 ? 0x8F : 0xBF; /* nothing past U+10FFFF */
	} else
		return 0;
	if (avail < (size_t)n || s[1] < lo || s[1] > hi)
		return 0;
	for (int i = 2; i < n; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	return n;
}

bool utf8_valid(const char *s, size_t n, size_t *bad)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		int len = utf8_seq_len(p + i, n - i);
		if (len == 0) {
			if (bad)
				*bad = i;
			return false;
		}
		i += (size_t)len;
	}
	return true;
}

bool utf8_valid_str(const char *s, size_t *bad)
{
	return utf8_valid(s, strlen(s), bad);
}
