/*
 * inputcheck.c - the input digest (inputcheck.h).
 */
#include "run/inputcheck.h"

#include <string.h>

#define P1 0x9E3779B185EBCA87ull /* xxHash64's primes */
#define P2 0xC2B2AE3D27D4EB4Full

static uint64_t round64(uint64_t acc, uint64_t word)
{
	acc += word * P2;
	acc = acc << 31 | acc >> 33;
	return acc * P1;
}

/* The 8-byte word at p, little-endian whatever the host's order (one
 * load on a little-endian host). */
static uint64_t word_at(const unsigned char *p)
{
	uint64_t w;
	memcpy(&w, p, sizeof w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

void inputcheck_digest(const void *data, size_t bytes, struct inputcheck_digest *out)
{
	const unsigned char *p = data;
	uint64_t a[4] = { P1 + P2, P2, 0, -P1 }; /* xxHash64's lanes for seed 0 */
	size_t full = bytes / 32 * 32;
	for (size_t i = 0; i < full; i += 32)
		for (int k = 0; k < 4; k++)
			a[k] = round64(a[k], word_at(p + i + 8 * (size_t)k));
	if (full < bytes) { /* bytes > 0 here: p is a real pointer */
		unsigned char tail[32] = { 0 };
		memcpy(tail, p + full, bytes - full);
		for (int k = 0; k < 4; k++)
			a[k] = round64(a[k], word_at(tail + 8 * k));
	}
	a[0] = round64(a[0], (uint64_t)bytes);
	memcpy(out->lane, a, sizeof a);
}

bool inputcheck_same(const struct inputcheck_digest *a, const struct inputcheck_digest *b)
{
	return memcmp(a->lane, b->lane, sizeof a->lane) == 0;
}
