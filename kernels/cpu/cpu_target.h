/*
 * cpu_target.h - lets the hot CPU kernel loops use the FMA instruction.
 *
 * The kernels spell every fused multiply-add out with fmaf(). Built for
 * baseline x86-64 (no -mfma), each fmaf() is a call into libm, which makes
 * the Welford emulation about twice as slow (4096x4096 LayerNorm: 0.14 s
 * against 0.05 s with the instruction). CPU_HOT compiles a function twice,
 * for FMA-capable x86-64 and for the baseline, and picks one at load time
 * (GCC/clang target_clones, an ifunc). Results are identical: fmaf is
 * correctly rounded either way, and -ffp-contract=off still forbids any
 * contraction the source does not spell out.
 */
#ifndef AB_CPU_TARGET_H
#define AB_CPU_TARGET_H

/* -DCPU_HOT= on the command line turns the clones off. */
#ifndef CPU_HOT
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define CPU_HOT __attribute__((target_clones("fma", "default")))
#endif
#endif
#endif

#ifndef CPU_HOT
#define CPU_HOT
#endif

#endif
