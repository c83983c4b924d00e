/*
 * test_utc.c - the one formatter of the current time (common/utc.h): both
 * forms have their exact shape and agree with time(2) to the second (a
 * retry covers a second boundary between the calls); a short buffer gets
 * "" rather than a cut time. utc_ago writes the time that many seconds
 * back in the same form (a retry again), and sorts as the times do.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/utc.h"

/* Whether s has shape (digits as 9, other characters literal). */
static int shaped(const char *s, const char *shape)
{
	if (strlen(s) != strlen(shape))
		return 0;
	for (; *shape; s++, shape++)
		if (*shape == '9' ? (*s < '0' || *s > '9') : *s != *shape)
			return 0;
	return 1;
}

static void test_forms(void **state)
{
	(void)state;
	char iso[32], basic[32], want[32];
	for (int tries = 0; tries < 3; tries++) {
		time_t t = time(NULL);
		struct tm tm;
		utc_now(iso, sizeof iso);
		utc_now_basic(basic, sizeof basic);
		gmtime_r(&t, &tm);
		strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%SZ", &tm);
		if (!strcmp(iso, want))
			break;
	}
	assert_true(shaped(iso, "9999-99-99T99:99:99Z"));
	assert_true(shaped(basic, "99999999T999999Z"));
	assert_string_equal(iso, want);
	assert_memory_equal(basic, iso, 4); /* the same year */
	char small[8] = "xxxxxxx";
	utc_now(small, sizeof small);
	assert_string_equal(small, "");
}

static void test_ago(void **state)
{
	(void)state;
	char ago[32], now[32], want[32];
	for (int tries = 0; tries < 3; tries++) {
		time_t t = time(NULL) - 7 * 86400 - 3600;
		struct tm tm;
		utc_ago(7 * 86400 + 3600, ago, sizeof ago);
		gmtime_r(&t, &tm);
		strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%SZ", &tm);
		if (!strcmp(ago, want))
			break;
	}
	assert_string_equal(ago, want);
	utc_now(now, sizeof now);
	assert_true(strcmp(ago, now) < 0);
	utc_ago(1e12, ago, sizeof ago); /* before 1970: 1970 */
	assert_string_equal(ago, "1970-01-01T00:00:00Z");
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_forms), cmocka_unit_test(test_ago) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
