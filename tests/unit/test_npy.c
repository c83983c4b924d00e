/*
 * test_npy.c - .npy files byte for byte.
 *
 * Expected headers follow the NumPy format 1.0 specification
 * (numpy.lib.format): the dict literal of 62 characters for shape (1, 2, 3)
 * plus the 10-byte preamble and the final '\n' round up to 128 bytes, so
 * the header length field is 118 (0x76 0x00) and 55 spaces pad the dict.
 * The float32 payload bytes were produced with Python's
 * struct.pack('<5f', 1.5, -2, 0.25, 3e38, -0.0). numpy was not installed on
 * the development machine, so numpy.load was not run on these files; the
 * layout is what numpy.lib.format.write_array emits for version 1.0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "run/npy.h"

static char dir[64];

static int make_dir(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/test_npy.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	(void)state;
	return rmdir(dir);
}

/* Reads a whole file; *len gets its size. */
static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = malloc(1 << 16);
	assert_non_null(f);
	assert_non_null(buf);
	*len = fread(buf, 1, 1 << 16, f);
	fclose(f);
	return buf;
}

static void check_header(const unsigned char *b, const char *dict, size_t total)
{
	size_t n = strlen(dict);
	assert_memory_equal(b, "\x93NUMPY\x01\x00", 8);
	assert_int_equal(b[8] | b[9] << 8, total - 10);
	assert_memory_equal(b + 10, dict, n);
	for (size_t i = 10 + n; i < total - 1; i++)
		assert_int_equal(b[i], ' ');
	assert_int_equal(b[total - 1], '\n');
}

static void test_u2_rank3(void **state)
{
	const uint16_t data[6] = { 0x3f80, 0xbf80, 0x7fff, 0x0001, 0x7f80, 0x1234 };
	const int64_t shape[3] = { 1, 2, 3 };
	struct ab_diag d = { { 0 } };
	char path[128], tmp[160];
	size_t len;
	(void)state;
	snprintf(path, sizeof path, "%s/out.npy", dir);
	assert_int_equal(npy_write(path, data, NPY_U2, 3, shape, &d), AB_OK);
	unsigned char *b = slurp(path, &len);
	assert_int_equal(len, 128 + 12);
	check_header(b, "{'descr': '<u2', 'fortran_order': False, 'shape': (1, 2, 3), }", 128);
	/* little-endian payload: 0x3f80 is 80 3f */
	assert_int_equal(b[128], 0x80);
	assert_int_equal(b[129], 0x3f);
	assert_memory_equal(b + 128, data, sizeof data);
	free(b);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	assert_int_equal(access(tmp, F_OK), -1); /* renamed away */
	assert_int_equal(unlink(path), 0);
}

static void test_f4_rank1(void **state)
{
	const float data[5] = { 1.5f, -2.0f, 0.25f, 3e38f, -0.0f };
	const unsigned char want[20] = { 0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x00, 0xc0, 0x00, 0x00,
					 0x80, 0x3e, 0xe6, 0xb1, 0x61, 0x7f, 0x00, 0x00, 0x00, 0x80 };
	const int64_t shape[1] = { 5 };
	struct ab_diag d = { { 0 } };
	char path[128];
	size_t len;
	(void)state;
	snprintf(path, sizeof path, "%s/v.npy", dir);
	assert_int_equal(npy_write(path, data, NPY_F4, 1, shape, &d), AB_OK);
	unsigned char *b = slurp(path, &len);
	assert_int_equal(len, 128 + 20);
	check_header(b, "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", 128);
	assert_memory_equal(b + 128, want, sizeof want);
	free(b);
	assert_int_equal(unlink(path), 0);
}

static void test_big_shape_header_only(void **state)
{
	/* the GLM shape's header, with an empty leading dimension so that no
	 * 32 MiB payload is needed: (0, 4096, 4096) */
	const int64_t shape[3] = { 0, 4096, 4096 };
	struct ab_diag d = { { 0 } };
	char path[128];
	size_t len;
	(void)state;
	snprintf(path, sizeof path, "%s/e.npy", dir);
	assert_int_equal(npy_write(path, NULL, NPY_U2, 3, shape, &d), AB_OK);
	unsigned char *b = slurp(path, &len);
	assert_int_equal(len, 128);
	check_header(b, "{'descr': '<u2', 'fortran_order': False, 'shape': (0, 4096, 4096), }", 128);
	free(b);
	assert_int_equal(unlink(path), 0);
}

static void test_header_grows_past_128(void **state)
{
	/* rank 8: the dict is 161 characters, 10 + 161 + 1 = 172 rounds up to
	 * 192 (python: len of the literal below) */
	const int64_t shape[8] = { 0, 1234567890123LL, 1234567890123LL, 1234567890123LL, 1234567890123LL,
				   1234567890123LL, 1234567890123LL, 1234567890123LL };
	struct ab_diag d = { { 0 } };
	char path[128];
	size_t len;
	(void)state;
	snprintf(path, sizeof path, "%s/g.npy", dir);
	assert_int_equal(npy_write(path, NULL, NPY_F4, 8, shape, &d), AB_OK);
	unsigned char *b = slurp(path, &len);
	assert_int_equal(len, 192);
	check_header(b,
		     "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 1234567890123, 1234567890123, "
		     "1234567890123, 1234567890123, 1234567890123, 1234567890123, 1234567890123), }",
		     192);
	free(b);
	assert_int_equal(unlink(path), 0);
}

static void test_errors(void **state)
{
	const uint16_t data[2] = { 1, 2 };
	const int64_t shape[1] = { 2 }, neg[1] = { -1 };
	struct ab_diag d = { { 0 } };
	char path[128];
	(void)state;
	snprintf(path, sizeof path, "%s/no/such/dir/x.npy", dir);
	assert_int_equal(npy_write(path, data, NPY_U2, 1, shape, &d), AB_ERR_IO);
	assert_non_null(strstr(d.msg, "cannot write"));
	assert_non_null(strstr(d.msg, "x.npy': No such file or directory"));
	snprintf(path, sizeof path, "%s/neg.npy", dir);
	assert_int_equal(npy_write(path, data, NPY_U2, 1, neg, &d), AB_ERR_INTERNAL);
	assert_int_equal(npy_write(path, NULL, NPY_U2, 1, shape, &d), AB_ERR_INTERNAL);
	assert_int_equal(access(path, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u2_rank3),
		cmocka_unit_test(test_f4_rank1),
		cmocka_unit_test(test_big_shape_header_only),
		cmocka_unit_test(test_header_grows_past_128),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
