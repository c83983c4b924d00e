/*
 * numparse.c - whole-string numbers (see numparse.h).
 */
#include "common/numparse.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

bool numparse_double(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		return false;
	*out = v;
	return true;
}

bool numparse_i64(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return false;
	*out = (int64_t)v;
	return true;
}

bool numparse_int(const char *s, int *out)
{
	int64_t v;
	if (!numparse_i64(s, &v) || v < INT_MIN || v > INT_MAX)
		return false;
	*out = (int)v;
	return true;
}
