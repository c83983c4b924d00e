/*
 * cpu_target.h - lets the hot CPU kernel loops use vector and FMA
 * instructions.
 *
 * The kernels spell every fused multiply-add out with fmaf(). Built for
 * baseline x86-64 (no -mfma), each fmaf() is a call into libm, and the
 * loops over the LayerNorm block's 128 threads or over a row's elements
 * cannot use 256-bit vectors. CPU_HOT compiles a function twice, for
 * x86-64-v3 (AVX2 + FMA) and for the baseline, and picks one at load time
 * (GCC/clang target_clones, an ifunc). Results are identical: every
 * operation is the same IEEE operation in a vector lane as in a scalar
 * register, fmaf is correctly rounded either way, and -ffp-contract=off
 * still forbids any contraction the source does not spell out.
 */
#ifndef AB_CPU_TARGET_H
#define AB_CPU_TARGET_H

/* -DCPU_HOT= on the command line turns the clones off. */
#ifndef CPU_HOT
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define CPU_HOT __attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
#endif
#endif

#ifndef CPU_HOT
#define CPU_HOT
#endif

#endif
