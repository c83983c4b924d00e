/*
 * test_infile.c - every file abbench reads is opened without blocking
 * (common/infile.h): a regular file opens and reads; a FIFO with no
 * writer, a directory and a character device are refused at once with
 * what they are, errno EINVAL; a missing file keeps ENOENT. Before, a
 * FIFO's open waited for a writer forever (issue 31 row 3): this test
 * would hang.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/infile.h"
#include "fixtures.h"

static void refused(const char *path, const char *want, int want_errno)
{
	char why[128] = "";
	errno = 0;
	FILE *f = infile_open(path, NULL, why, sizeof why);
	assert_null(f);
	assert_int_equal(errno, want_errno);
	if (strcmp(why, want))
		fail_msg("%s: got '%s', want '%s'", path, why, want);
}

static void test_regular_and_not(void **state)
{
	(void)state;
	char dir[64], path[128], buf[8] = "";
	struct stat st;
	assert_int_equal(fx_tmpdir_make(dir, sizeof dir, "infile"), 0);
	snprintf(path, sizeof path, "%s/a.txt", dir);
	FILE *w = fopen(path, "w");
	assert_non_null(w);
	fputs("abc", w);
	fclose(w);
	char why[128];
	FILE *f = infile_open(path, &st, why, sizeof why);
	assert_non_null(f);
	assert_int_equal(st.st_size, 3);
	assert_int_equal(fread(buf, 1, sizeof buf, f), 3); /* a blocking stream again */
	assert_string_equal(buf, "abc");
	fclose(f);
	snprintf(path, sizeof path, "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	refused(path, "it is a FIFO, not a regular file", EINVAL);
	refused(dir, "it is a directory, not a regular file", EINVAL);
	refused("/dev/null", "it is a character device, not a regular file", EINVAL);
	snprintf(path, sizeof path, "%s/missing", dir);
	refused(path, "No such file or directory", ENOENT);
	fx_tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regular_and_not),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
