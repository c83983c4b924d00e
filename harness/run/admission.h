/*
 * admission.h - memory admission: before a run writes anything, each case's
 * host and device memory is estimated and compared with what the machine
 * has, so that a shape too large is refused with a message (exit 2)
 * instead of being killed by the kernel's OOM killer half-way.
 *
 * Host: run_case_host_bytes (the runner's copies, the float64 reference,
 * the first A slot's outputs, the samples) plus the backend's own host
 * share (bk_memory.host_bytes), against MemAvailable of /proc/meminfo.
 * Device: bk_memory.device_bytes against bk_memory.device_free
 * (cudaMemGetInfo on CUDA). Cases run one after another and free their
 * memory in between, so each case is judged alone.
 */
#ifndef AB_ADMISSION_H
#define AB_ADMISSION_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/backend.h"
#include "common/diag.h"
#include "config/case_plan.h"
#include "config/scenario.h"
#include "run/shard.h"

/* AB_ERR_INPUT naming FILE:LINE of the first case of the shard that does
 * not fit, what it needs and what is available; AB_OK when every case the
 * run will measure fits. plans[k] is s's case k resolved (case_plan.h). */
enum ab_rc admission_check(const struct scenario *s, const struct case_plan *plans, const struct shard *shard,
			   const struct scenario_sampling *sampling, const struct backend_ops *ops, struct backend *bk,
			   struct ab_diag *d);

#endif
