/*
 * shard.h - which of a scenario's cases a shard measures.
 *
 * `abbench run --shard I/N` measures shard I (1-based) of N: the cases at
 * places k (0-based, in the scenario's order after --only and any sweep
 * expansion) with k mod N == I - 1, round-robin. The split depends on
 * nothing but the scenario file and N, so every machine of a CI matrix or a
 * Slurm array computes the same one, the shards cover every case exactly
 * once, and their sizes differ by at most one case. Each case keeps k as its
 * ordinal, so merged shards read back in the scenario's order.
 */
#ifndef AB_SHARD_H
#define AB_SHARD_H

#include <stdbool.h>
#include <stddef.h>

#include "common/diag.h"

#define SHARD_MAX 4096

struct shard {
	int index; /* 1..count */
	int count; /* 0: the whole scenario, not sharded */
};

/* Parses "I/N" with 1 <= I <= N <= SHARD_MAX; AB_ERR_USAGE otherwise. */
enum ab_rc shard_parse(const char *text, struct shard *out, struct ab_diag *d);

/* Whether the shard measures the case at place k. */
bool shard_has(const struct shard *s, int k);

/* A run set id: 1 to 63 of [A-Za-z0-9._-] (a CI job id, a Slurm job id,
 * a date); AB_ERR_USAGE otherwise. */
enum ab_rc shard_check_set_id(const char *id, struct ab_diag *d);

#endif
