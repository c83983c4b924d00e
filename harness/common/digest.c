/*
 * digest.c - md5 and sha256 as lowercase hex, through OpenSSL's EVP API
 * (the one interface that works on both OpenSSL 1.1 and 3.x without
 * deprecation warnings).
 *
 * libcrypto is initialised without its exit handler
 * (OPENSSL_INIT_NO_ATEXIT, before the first digest): the library is shared
 * with what a Python arm loads (Python's hashlib, which numpy imports,
 * fetches its digests from the same method store), and the interpreter is
 * never finalised (arms/pyrt.h), so OpenSSL's cleanup at exit would free
 * the store under objects Python still holds. The process's exit reclaims
 * it all; LeakSanitizer then sees those objects reachable from the store,
 * as they are.
 */
#include "common/digest.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

/* Digests data with md into out as 2 * EVP_MD_size(md) hex digits + NUL. */
static enum ab_rc dig_hex(const EVP_MD *md, const char *what, const void *data, size_t len, char *out,
			  struct ab_diag *d)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	EVP_MD_CTX *ctx;
	int ok;

	OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL); /* the first call decides; the later ones cost a check */
	ctx = EVP_MD_CTX_new();
	if (!ctx)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate a '%s' digest context", what);
	ok = EVP_DigestInit_ex(ctx, md, NULL) == 1 && EVP_DigestUpdate(ctx, data, len) == 1 &&
	     EVP_DigestFinal_ex(ctx, raw, &n) == 1;
	EVP_MD_CTX_free(ctx);
	if (!ok)
		return ab_fail(d, AB_ERR_INTERNAL, "libcrypto failed to compute '%s'", what);
	for (unsigned int i = 0; i < n; i++) {
		out[2 * i] = hex[raw[i] >> 4];
		out[2 * i + 1] = hex[raw[i] & 15];
	}
	out[2 * n] = '\0';
	return AB_OK;
}

enum ab_rc digest_md5_hex(const void *data, size_t len, char out[33], struct ab_diag *d)
{
	return dig_hex(EVP_md5(), "md5", data, len, out, d);
}

enum ab_rc digest_sha256_hex(const void *data, size_t len, char out[65], struct ab_diag *d)
{
	return dig_hex(EVP_sha256(), "sha256", data, len, out, d);
}
