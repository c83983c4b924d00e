/*
 * digest.h - md5 (output identity, via OpenSSL's libcrypto EVP) and sha256
 * (scenario text identity) as lowercase hex.
 */
#ifndef AB_DIGEST_H
#define AB_DIGEST_H

#include <stddef.h>

#include "common/diag.h"

enum ab_rc digest_md5_hex(const void *data, size_t len, char out[33], struct ab_diag *d);
enum ab_rc digest_sha256_hex(const void *data, size_t len, char out[65], struct ab_diag *d);

#endif
