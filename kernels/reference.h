/*
 * reference.h - float64 references of every site (site_desc.reference).
 *
 * Each function computes, from the same bf16 inputs, the exact result in
 * double of every SITE_OUT tensor and the absolute tolerance a correct
 * float32/bf16 chain may show at each element (the derivation is at the top
 * of reference.c). tol is NAN where float32 leaves its range and no
 * comparison is meaningful; ref is NaN where the float chain must give NaN.
 * ref[o] and tol[o] hold site_tensor_elems elements of the o-th SITE_OUT
 * tensor, in registry order.
 */
#ifndef AB_REFERENCE_H
#define AB_REFERENCE_H

#include "site.h"

void reference_ln_modulate(const struct site_args *in, double *const *ref, double *const *tol);
void reference_qk_layernorm(const struct site_args *in, double *const *ref, double *const *tol);
void reference_residual_gate_add(const struct site_args *in, double *const *ref, double *const *tol);

#endif
