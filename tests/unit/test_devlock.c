/*
 * test_devlock.c - device locks: two devices are locked at once without
 * waiting; a second lock of one device fails at once when told not to wait,
 * naming the holder; the lock file says who holds it and is emptied when
 * released; a lock is free again after release; $ABBENCH_LOCK_DIR places
 * the files, and a device key becomes a safe file name. flock locks of two
 * open files conflict within one process too, so one process can play both
 * runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/procid.h"
#include "run/devlock.h"
#include "fixtures.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	if (fx_tmpdir_make(dir, sizeof dir, "devlock"))
		return -1;
	setenv("ABBENCH_LOCK_DIR", dir, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fx_tmpdir_remove(dir);
	return 0;
}

static void read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static void test_two_devices_do_not_wait(void **state)
{
	(void)state;
	struct devlock *a = NULL, *b = NULL;
	struct devlock_owner who = { "smoke", "main" };
	struct ab_diag d = { "" };
	assert_string_equal(devlock_dir(), dir);
	assert_int_equal(devlock_acquire("GPU-aaaa", &who, false, &a, &d), AB_OK);
	assert_int_equal(devlock_acquire("GPU-bbbb", &who, false, &b, &d), AB_OK);
	devlock_release(a);
	devlock_release(b);
}

static void test_one_device_is_exclusive(void **state)
{
	(void)state;
	struct devlock *a = NULL, *b = NULL;
	struct devlock_owner first = { "smoke", "main" }, second = { "glm", NULL };
	struct ab_diag d = { "" };
	char path[160], text[600], want[400], host[256];
	assert_int_equal(devlock_acquire("GPU-1234/5", &first, false, &a, &d), AB_OK);
	snprintf(path, sizeof path, "%s/GPU-1234_5.lock", dir); /* '/' is no file name character */
	read_file(path, text, sizeof text);
	procid_host(host, sizeof host);
	snprintf(want, sizeof want, "pid %ld on host %s, scenario 'smoke' (label 'main'), since ", (long)getpid(), host);
	assert_non_null(strstr(text, want));

	b = (struct devlock *)&d; /* must be reset to NULL on failure */
	assert_int_equal(devlock_acquire("GPU-1234/5", &second, false, &b, &d), AB_ERR_BACKEND);
	assert_null(b);
	assert_non_null(strstr(d.msg, "device 'GPU-1234/5' is in use by "));
	assert_non_null(strstr(d.msg, want));
	assert_non_null(strstr(d.msg, "not waiting (--no-wait)"));
	read_file(path, text, sizeof text);
	assert_non_null(strstr(text, want)); /* the failed attempt did not touch it */

	devlock_release(a);
	read_file(path, text, sizeof text);
	assert_string_equal(text, "");
	assert_int_equal(devlock_acquire("GPU-1234/5", &second, false, &b, &d), AB_OK);
	read_file(path, text, sizeof text);
	assert_non_null(strstr(text, "scenario 'glm', since "));
	devlock_release(b);

	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0666); /* other users' runs can open it */
	devlock_release(NULL);
}

static void test_lock_directory_is_made(void **state)
{
	(void)state;
	char sub[128];
	struct devlock *a = NULL;
	struct devlock_owner who = { "smoke", NULL };
	struct ab_diag d = { "" };
	struct stat st;
	snprintf(sub, sizeof sub, "%s/locks", dir);
	setenv("ABBENCH_LOCK_DIR", sub, 1);
	assert_int_equal(devlock_acquire("cpu-host", &who, true, &a, &d), AB_OK);
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 07777, 01777);
	devlock_release(a);
	snprintf(sub, sizeof sub, "%s/locks/cpu-host.lock", dir);
	unlink(sub);
	snprintf(sub, sizeof sub, "%s/locks", dir);
	rmdir(sub);

	snprintf(sub, sizeof sub, "%s/file", dir);
	FILE *f = fopen(sub, "w");
	assert_non_null(f);
	fclose(f);
	setenv("ABBENCH_LOCK_DIR", sub, 1);
	assert_int_equal(devlock_acquire("cpu-host", &who, true, &a, &d), AB_ERR_IO);
	assert_non_null(strstr(d.msg, "is not a directory (set ABBENCH_LOCK_DIR)"));
	setenv("ABBENCH_LOCK_DIR", dir, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_two_devices_do_not_wait, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_device_is_exclusive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_directory_is_made, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
