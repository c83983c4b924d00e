/*
 * backend_cuda.h - what the CUDA backend offers beyond struct backend_ops.
 *
 * cuda_backend_notes returns the backend's remarks for the run's notes
 * column: whether CUPTI was loaded (and from where), its measured overhead,
 * record counts (kernel records, tied to samples, zero timestamps, dropped)
 * and whether NVML answered. Call it after the last slot_end and before
 * close, on a backend opened through backend_cuda_ops only. The string
 * belongs to the backend (valid until the next call or close) and fits
 * results_run.notes. In a build without CUDA it returns "".
 */
#ifndef AB_BACKEND_CUDA_H
#define AB_BACKEND_CUDA_H

#include "backend/backend.h"

#if AB_HAVE_CUDA
const char *cuda_backend_notes(struct backend *b);
#else
static inline const char *cuda_backend_notes(struct backend *b)
{
	(void)b;
	return "";
}
#endif

#endif
