/*
 * ulp.h - how far apart two elements of one dtype are, in units in the
 * last place, and what each element is (the divergence report, run/
 * divergence.h; the printers decode the stored bits with ulp_value).
 *
 * Distance is the ordered-integer distance: every bit pattern that is
 * not a NaN gets a signed key that grows with the value it stands for,
 * adjacent representable values (subnormals and infinities included)
 * getting adjacent keys, and the distance of two elements is |key(a) -
 * key(b)|. For a float of sign s and magnitude bits m (the bits without
 * the sign), key = s ? -m - 1 : m, so that
 *
 *   -0 and +0 are one ULP apart (their bytes differ; numpy's nulp_diff
 *   calls them 0 apart), the smallest subnormals of either sign one ULP
 *   from their zero, the largest finite one ULP from its infinity, and v
 *   and -v are 2 m + 1 apart;
 *
 * for an integer dtype the key is the integer, so the distance is
 * |a - b| (as an unsigned 64-bit number: i64's extremes are 2^64 - 1
 * apart). NaN has no key: a NaN against a number is a class mismatch
 * (classes: NaN, Inf, finite), two NaNs of different bits a NaN payload
 * difference, neither measured in ULPs. An infinity against a finite
 * value is a class mismatch too; an infinity against the other infinity
 * is of one class and measured (a sign flip of 2 m + 1 ULPs).
 *
 * Elements are read as their raw bits, widened to 64: bf16, f16 and u8
 * zero-extended, i32 sign-extended, f32 zero-extended, i64 as is.
 */
#ifndef AB_ULP_H
#define AB_ULP_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/common/site.h"

enum ulp_class { ULP_FINITE, ULP_INF, ULP_NAN };

/* The histogram's buckets: 1 | 2 | 3-10 | 11-1000 | >1000 ULPs. */
#define ULP_BUCKETS 5

/* Element i of an array of dtype dt as raw bits (above). */
int64_t ulp_bits_at(enum site_dtype dt, const void *base, int64_t i);

/* The class of an element's bits (integers are always finite). */
enum ulp_class ulp_class_of(enum site_dtype dt, int64_t bits);

/* Whether the element's sign bit is set (a negative integer); u8: never. */
bool ulp_negative(enum site_dtype dt, int64_t bits);

/* The ordered-integer distance of two elements that are not NaN. */
uint64_t ulp_distance(enum site_dtype dt, int64_t a, int64_t b);

/* The bucket of a distance >= 1: 0 for 1, 1 for 2, 2 for 3-10, 3 for
 * 11-1000, 4 beyond. */
int ulp_bucket(uint64_t d);

/* The bucket's label: "1", "2", "3-10", "11-1000", ">1000". */
const char *ulp_bucket_name(int bucket);

/* The value the bits stand for (exact for every float dtype; an i64
 * beyond 2^53 rounds). */
double ulp_value(enum site_dtype dt, int64_t bits);

#endif
