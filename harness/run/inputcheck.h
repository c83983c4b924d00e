/*
 * inputcheck.h - a digest of a tensor's bytes, to see whether an arm wrote
 * into its inputs.
 *
 * The runner digests every input once, when the case makes it, and again
 * after reading it back from the backend: after the first call of each
 * slot and at the slot's end (run_case.c). Comparing digests needs no
 * second copy of an input, and checking after the first call catches an
 * arm that changes an input on every call and so restores it after an
 * even number of them.
 *
 * The digest is four 64-bit lanes, each xxHash64's round
 * (acc += w * P2; acc = rotl(acc, 31); acc *= P1) over every fourth
 * little-endian 8-byte word, lane i starting at word i; the last partial
 * group of 32 bytes is zero-padded, and the length is one more round of
 * lane 0. Each round is a bijection of its lane for a given word (P1 and
 * P2 are odd), so a change of a single word always changes the digest;
 * changes of several words cancel with a chance near 2^-64. It is not
 * cryptographic: it catches an arm's writes, not an adversary's. It runs
 * at memory speed (four independent multiply chains), where md5 would
 * cost seconds per run at glm_1024's sizes.
 */
#ifndef AB_INPUTCHECK_H
#define AB_INPUTCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct inputcheck_digest {
	uint64_t lane[4];
};

void inputcheck_digest(const void *data, size_t bytes, struct inputcheck_digest *out);
bool inputcheck_same(const struct inputcheck_digest *a, const struct inputcheck_digest *b);

#endif
