/*
 * cupti.h - per-kernel GPU times from the CUPTI activity API, tied to the
 * sample that launched each kernel.
 *
 * libcupti is opened with dlopen at run time and every CUPTI function is
 * called through a dlsym'd pointer, so abbench starts where CUPTI is
 * missing (the CUDA backend then reports wall times only, and says so).
 *
 * Collection: CONCURRENT_KERNEL records give each kernel's start, end, name
 * and correlation id; EXTERNAL_CORRELATION records map the correlation id
 * of the API call that launched it to the id the backend pushed around the
 * arm's launches (CUSTOM0, the sample id). DRIVER records are enabled too,
 * only because CUPTI emits external-correlation records for API records;
 * they are otherwise skipped. Buffers are parsed as CUPTI hands them back
 * (possibly on its own thread) into a record log; cupti_collect flushes,
 * joins kernels with correlations and feeds the attribution collector:
 * attrib_add(name, start, end, sample id or ATTRIB_UNTIMED).
 *
 * The log is usable without libcupti (cupti_log_*): tests feed it
 * synthetic buffers through their own record iterator.
 */
#ifndef AB_CUPTI_H
#define AB_CUPTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/attrib.h"
#include "common/diag.h"

/* Running totals over a session, for the run's notes. */
struct cupti_counts {
	int64_t kernels;      /* kernel records fed to the collector */
	int64_t timed;        /* of those, tied to a sample by external correlation */
	int64_t zero_ts;      /* of those, with a zero start or end (the collector counts them bad) */
	int64_t correlations; /* CUSTOM0 external-correlation records seen */
	int64_t dropped;      /* records CUPTI dropped for lack of buffer space */
	int64_t bad_buffers;  /* buffers whose iteration stopped on an invalid record */
};

/* ---- The record log: parse buffers, then join and drain ---- */

struct cupti_log;

/* The next record of a buffer, cuptiActivityGetNextRecord's contract:
 * *rec == NULL asks for the first; returns 1 with *rec set, 0 at the end of
 * the valid bytes, -1 on an incomplete or invalid record. */
typedef int (*cupti_next_fn)(uint8_t *buf, size_t valid, void **rec);

enum ab_rc cupti_log_new(struct cupti_log **out, struct ab_diag *d);
void cupti_log_free(struct cupti_log *log);

/* Appends the kernel and CUSTOM0 external-correlation records of one
 * buffer (records of other kinds are skipped). Thread-safe. A failure to
 * allocate is kept and reported by the next drain. */
void cupti_log_parse(struct cupti_log *log, uint8_t *buf, size_t valid, cupti_next_fn next);

/* Joins every logged kernel with its external id and feeds it to k (when k
 * is not NULL; NULL discards), adds to n, and empties the log. */
enum ab_rc cupti_log_drain(struct cupti_log *log, struct attrib_collector *k, struct cupti_counts *n,
			   struct ab_diag *d);

/* ---- The CUPTI session (needs libcupti, and a device for most calls) ---- */

struct cupti;

/* Loads libcupti: $ABBENCH_CUPTI alone when set, else "libcupti.so.13",
 * "libcupti.so", then lib64/ and extras/CUPTI/lib64/ under /usr/local/cuda
 * and $CUDA_HOME; a library older than CUDA 13's API (130000) is passed
 * over. AB_ERR_BACKEND with every path tried when none loads. */
enum ab_rc cupti_load(struct cupti **out, struct ab_diag *d);

/* The library that was loaded and its API version (cuptiGetVersion). */
const char *cupti_library(const struct cupti *c);
uint32_t cupti_version(const struct cupti *c);

/* Registers the buffer callbacks and enables the record kinds. One
 * started session per process. */
enum ab_rc cupti_start(struct cupti *c, struct ab_diag *d);

/* Turns record collection off and on again (for measuring its overhead). */
enum ab_rc cupti_enable(struct cupti *c, bool on, struct ab_diag *d);

/* Also records runtime API calls. A kernel's correlation id is that of
 * the API call that launched it; should the driver-level records not carry
 * the runtime launches' ids (the backend's self-check finds no kernel tied
 * to its sample), runtime records give CUPTI a second call to correlate.
 * Costs host time per CUDA call. */
enum ab_rc cupti_trace_runtime(struct cupti *c, struct ab_diag *d);

/* Tags the calling thread's launches with sample_id until cupti_pop. */
enum ab_rc cupti_push(struct cupti *c, uint32_t sample_id, struct ab_diag *d);
enum ab_rc cupti_pop(struct cupti *c, struct ab_diag *d);

/* Forced flush (the caller has synchronised the work), then drain into k
 * (NULL discards) and count dropped records into n. */
enum ab_rc cupti_collect(struct cupti *c, struct attrib_collector *k, struct cupti_counts *n, struct ab_diag *d);

/* Disables collection and frees the session. libcupti stays loaded: the
 * driver keeps pointers into it. NULL is fine. */
void cupti_close(struct cupti *c);

#endif
