/*
 * guard.h - guard bytes around every tensor buffer of a case, so that an
 * arm writing past either end of a tensor is caught and named.
 *
 * Each buffer is allocated GUARD_BYTES larger at both ends; the tensor
 * starts GUARD_BYTES into it (4096 keeps the 256-byte alignment of
 * cudaMalloc). The backends fill both zones with GUARD_FILL when a slot
 * begins and compare them after it ends (for CUDA, on host copies of the
 * zones); guard_check describes what changed.
 */
#ifndef AB_GUARD_H
#define AB_GUARD_H

#include <stdbool.h>
#include <stddef.h>

#define GUARD_BYTES 4096
#define GUARD_FILL 0xA5

/* Both zones intact? Otherwise why says which end and where, e.g. "2 of
 * the 4096 guard bytes after its end changed (the first at end+0)". */
bool guard_check(const unsigned char *before, const unsigned char *after, char *why, size_t len);

#endif
