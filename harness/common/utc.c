/*
 * utc.c - the current time in UTC (utc.h).
 */
#include "common/utc.h"

#include <time.h>

static void utc_format_at(time_t t, const char *fmt, char *buf, size_t len)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	if (!strftime(buf, len, fmt, &tm) && len)
		buf[0] = '\0';
}

static void utc_format(const char *fmt, char *buf, size_t len)
{
	utc_format_at(time(NULL), fmt, buf, len);
}

void utc_ago(double seconds, char *buf, size_t len)
{
	time_t now = time(NULL);
	double t = (double)now - seconds;
	utc_format_at(t > 0 ? (time_t)t : 0, "%Y-%m-%dT%H:%M:%SZ", buf, len);
}

void utc_now(char *buf, size_t len)
{
	utc_format("%Y-%m-%dT%H:%M:%SZ", buf, len);
}

void utc_now_basic(char *buf, size_t len)
{
	utc_format("%Y%m%dT%H%M%SZ", buf, len);
}
