/*
 * attrib.h - per-kernel attribution: kernel records in, per-kernel totals out.
 *
 * Both backends feed the same collector: the CUDA backend from CUPTI
 * CONCURRENT_KERNEL activity records (tied to a sample by the external
 * correlation id the runner pushed), the CPU backend from its per-step
 * monotonic-clock spans. A record whose timestamps are zero or reversed is
 * counted in bad_records and never summed. Records tagged ATTRIB_UNTIMED
 * (warm-up, L2 flush, spin and probe kernels) are counted as ignored.
 *
 * Names are demangled (libstdc++'s __cxa_demangle, the Itanium ABI that nvcc
 * uses) and grouped into families by a pattern table for the report.
 */
#ifndef AB_ATTRIB_H
#define AB_ATTRIB_H

#include <stdint.h>

#include "common/diag.h"
#include "common/results.h"

#define ATTRIB_UNTIMED 0u /* correlation id for records outside any sample */

struct attrib_collector {
	int max_samples;
	double *sample_kernel_ns; /* [max_samples]: sum of kernel time per sample (index = id - 1) */
	int n_kernels, cap_kernels;
	struct results_kernel *kernels;
	int64_t bad_records;
	int64_t ignored_records;
	int64_t out_of_range;     /* sample id past max_samples */
};

enum ab_rc attrib_init(struct attrib_collector *c, int max_samples, struct ab_diag *d);
void attrib_free(struct attrib_collector *c);
/* Forgets everything recorded (between slots), keeps the memory. */
void attrib_reset(struct attrib_collector *c);

/* One kernel execution. sample_id is 1-based; ATTRIB_UNTIMED is ignored. */
enum ab_rc attrib_add(struct attrib_collector *c, const char *name, uint64_t start_ns, uint64_t end_ns,
		    uint32_t sample_id, struct ab_diag *d);

/* Demangles an Itanium C++ name into buf; copies it unchanged when it is
 * not a mangled name. Returns buf. */
char *attrib_demangle(const char *name, char *buf, size_t len);

/* Family of a (demangled) kernel name: "LayerNorm", "elementwise",
 * "fused", "LayerNorm two-pass", "memset", or "other". */
const char *attrib_family(const char *demangled);

/* The operation a kernel performs, short, for chart labels: the functor of
 * a PyTorch elementwise kernel ("...binary_internal::MulFunctor<float>..."
 * -> "mul", "CUDAFunctor_add" -> "add"), else the function's own name
 * without namespaces, templates, a "cpu_" prefix, the family's word and a
 * "_kernel" suffix ("cpu_elementwise_mul_broadcast" -> "mul_broadcast",
 * "at::native::vectorized_layer_norm_kernel<...>" -> "layer_norm").
 * Returns buf; "" when nothing is left. */
char *attrib_operation(const char *demangled, char *buf, size_t len);

/* Adds src's records into dst (kernels by name, per-sample sums by id,
 * the counts): a slot measured in several rounds (run_case.h) gathers
 * each round's collector into its own. AB_ERR_NOMEM when dst's table
 * cannot grow. */
enum ab_rc attrib_merge(struct attrib_collector *dst, const struct attrib_collector *src, struct ab_diag *d);

/* A sample that launched its arm n times (a graph of n launches,
 * backend.h's timing = graph): every figure summed per sample, and the
 * per-kernel totals and launch counts, divided by n, so that they read
 * per launch of the arm as in events mode (min and max are per record
 * already). n < 2 changes nothing. */
void attrib_divide(struct attrib_collector *c, int n);

/* Moves the per-kernel table into the slot (the slot owns it afterwards)
 * and copies per-sample kernel sums for samples 1..n_samples into
 * slot->kernel_ns (which must be allocated for n_samples). */
enum ab_rc attrib_export(struct attrib_collector *c, struct results_slot *slot, struct ab_diag *d);

#endif
