/*
 * test_digest.c - md5 and sha256 against published test vectors.
 *
 * md5: RFC 1321 appendix A.5 ("" and "abc"), and the widely quoted
 * "The quick brown fox jumps over the lazy dog" value. sha256: FIPS 180-2
 * appendix B (B.1 "abc", B.2 the 448-bit message, B.3 one million 'a'),
 * plus "" and the fox sentence. Each was also checked on the development
 * machine with coreutils md5sum and sha256sum.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/digest.h"

static const char FOX[] = "The quick brown fox jumps over the lazy dog";

static void check_md5(const char *msg, size_t len, const char *want)
{
	char out[33];
	struct ab_diag d = { { 0 } };
	memset(out, 'x', sizeof out);
	assert_int_equal(digest_md5_hex(msg, len, out, &d), AB_OK);
	assert_string_equal(out, want);
}

static void check_sha256(const char *msg, size_t len, const char *want)
{
	char out[65];
	struct ab_diag d = { { 0 } };
	memset(out, 'x', sizeof out);
	assert_int_equal(digest_sha256_hex(msg, len, out, &d), AB_OK);
	assert_string_equal(out, want);
}

static void test_md5_vectors(void **state)
{
	(void)state;
	check_md5("", 0, "d41d8cd98f00b204e9800998ecf8427e");
	check_md5("abc", 3, "900150983cd24fb0d6963f7d28e17f72");
	check_md5(FOX, strlen(FOX), "9e107d9d372bb6826bd81d3542a419d6");
	/* a NUL inside the data counts: len, not strlen, decides */
	check_md5("abc\0", 4, "147a664a2ca9410911e61986d3f0d52a");
}

static void test_sha256_vectors(void **state)
{
	const char *b2 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	(void)state;
	check_sha256("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_sha256("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_sha256(b2, strlen(b2), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	check_sha256(FOX, strlen(FOX), "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592");
}

static void test_sha256_million_a(void **state)
{
	char *m = malloc(1000000);
	(void)state;
	assert_non_null(m);
	memset(m, 'a', 1000000);
	check_sha256(m, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	check_md5(m, 1000000, "7707d6ae4e027c70eea2a935c2296f21");
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_md5_vectors),
		cmocka_unit_test(test_sha256_vectors),
		cmocka_unit_test(test_sha256_million_a),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
