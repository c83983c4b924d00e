/*
 * parallel.h - runs a function over the index range [0, n) split into k
 * contiguous parts on k threads (the caller's thread runs the last part).
 *
 * For host work whose pieces are independent (the float64 references by
 * row, the reference check by element): part p covers
 * [n p / k, n (p + 1) / k), the same split for the same n and k, so a
 * caller that keeps one result per part and combines them in part order
 * gets the same figures as one thread would, whatever the scheduling. A
 * thread that cannot be created has its part run on the caller's thread:
 * slower, never different.
 */
#ifndef AB_PARALLEL_H
#define AB_PARALLEL_H

#include <stdint.h>

/* The most threads par_threads ever chooses (the H200 host's 16 cores). */
#define PAR_THREADS_MAX 16

/* fn(ctx, lo, hi, part) handles [lo, hi), the part-th of the split. */
typedef void (*par_fn)(void *ctx, int64_t lo, int64_t hi, int part);

/* How many parts to split a job of `work` units (elements) into: 1 below
 * min_work, else the online CPUs, capped at PAR_THREADS_MAX and at n (the
 * number of indices). */
int par_threads(int64_t n, int64_t work, int64_t min_work);

/* The bounds of part p of k over [0, n). */
int64_t par_part_lo(int64_t n, int k, int p);

/* Runs fn over [0, n) in k parts (k < 1 counts as 1), returns when all
 * are done. */
void par_for(int64_t n, int k, par_fn fn, void *ctx);

#endif
