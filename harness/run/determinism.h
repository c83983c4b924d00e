/*
 * determinism.h - whether an arm's outputs change between calls on the
 * same inputs (atomics, split-K, a race): the outputs hashed after a
 * fixed subset of a slot's measured samples and at its end, each hash
 * held to the first one's (issue 29.4).
 *
 * Which samples: ids 1, 2, 3 and 4, then every power of two (8, 16, 32,
 * ...), and the slot's last call (its outputs as the slot's checks read
 * them). A slot of n samples is so checked on about 4 + log2(n) calls,
 * every call of a short slot. A slot measured in rounds (run_slot.h)
 * numbers its samples on over the rounds and keeps one set of hashes:
 * the powers of two of its whole count, and the last call of each round. The hash is inputcheck.h's (xxHash64 rounds
 * over four lanes, at memory speed); the outputs are read back with the
 * backend's read_tensor after the sample has returned, outside its timed
 * span (the CUDA backend's sample has synchronised on its stop event by
 * then), and the time it takes is left out of the stopping rule's elapsed
 * time, as the input check after a slot's first call is. The copy floor's
 * samples are not hashed.
 */
#ifndef AB_DETERMINISM_H
#define AB_DETERMINISM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/results.h"
#include "run/inputcheck.h"

/* Whether measured sample id is one of those hashed. */
bool determinism_hashed(uint32_t id);

/* One slot's hashes. */
struct determinism {
	int n_out;
	bool have_first;
	struct inputcheck_digest first[RESULTS_MAX_OUTPUTS];
	int calls_checked, calls_differ, first_differ, differ_out;
};

void determinism_begin(struct determinism *m, int n_out);

/* The outputs after call id (a sample id, or the slot's last): out[o] of
 * bytes[o] bytes each. */
void determinism_take(struct determinism *m, uint32_t id, const void *const *out, const size_t *bytes);

/* The figures into check (calls_checked, calls_differ, first_differ,
 * differ_tensor from names[differ_out]). */
void determinism_result(const struct determinism *m, const char *const *names, struct results_slot_check *check);

#endif
