/*
 * attrib.h - per-kernel attribution: kernel records in, per-kernel totals out.
 *
 * Both backends feed the same collector: the CUDA backend from CUPTI
 * CONCURRENT_KERNEL activity records (tied to a sample by the external
 * correlation id the runner pushed), the CPU backend from its per-step
 * monotonic-clock spans. A record whose timestamps are zero or reversed is
 * counted in bad_records and never summed. Records tagged ATTR_UNTIMED
 * (warm-up, L2 flush, spin and probe kernels) are counted as ignored.
 *
 * Names are demangled (libstdc++'s __cxa_demangle, the Itanium ABI that nvcc
 * uses) and grouped into families by a pattern table for the report.
 */
#ifndef AB_ATTRIB_H
#define AB_ATTRIB_H

#include <stdint.h>

#include "diag.h"
#include "results.h"

#define ATTR_UNTIMED 0u /* correlation id for records outside any sample */

struct attr_collector {
	int max_samples;
	double *sample_kernel_ns; /* [max_samples]: sum of kernel time per sample (index = id - 1) */
	int n_kernels, cap_kernels;
	struct res_kernel *kernels;
	int64_t bad_records;
	int64_t ignored_records;
	int64_t out_of_range;     /* sample id past max_samples */
};

enum ab_rc attr_init(struct attr_collector *c, int max_samples, struct ab_diag *d);
void attr_free(struct attr_collector *c);
/* Forgets everything recorded (between slots), keeps the memory. */
void attr_reset(struct attr_collector *c);

/* One kernel execution. sample_id is 1-based; ATTR_UNTIMED is ignored. */
enum ab_rc attr_add(struct attr_collector *c, const char *name, uint64_t start_ns, uint64_t end_ns,
		    uint32_t sample_id, struct ab_diag *d);

/* Demangles an Itanium C++ name into buf; copies it unchanged when it is
 * not a mangled name. Returns buf. */
char *attr_demangle(const char *name, char *buf, size_t len);

/* Family of a (demangled) kernel name: "LayerNorm", "elementwise",
 * "fused", "LayerNorm two-pass", "memset", or "other". */
const char *attr_family(const char *demangled);

/* Moves the per-kernel table into the slot (the slot owns it afterwards)
 * and copies per-sample kernel sums for samples 1..n_samples into
 * slot->kernel_ns (which must be allocated for n_samples). */
enum ab_rc attr_export(struct attr_collector *c, struct res_slot *slot, struct ab_diag *d);

#endif
