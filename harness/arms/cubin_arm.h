/*
 * cubin_arm.h - an arm that is one kernel of a compiled GPU binary
 * (cubin, PTX, fatbin; Triton's cache artefacts included), launched with
 * the driver API with the launch geometry and parameters the scenario's
 * [arm NAME] section gives (config/arm_spec.h).
 *
 * Life: load (read and check the files: the kernel exists, its parameter
 * count and sizes match the params list, Triton's metadata) -> check_case
 * for every case (the expressions give a valid launch) -> bind to the
 * device (architecture, module load, the driver's own parameter info) ->
 * per case begin_case -> the backend's prepare (scratch buffers, argument
 * values) and launches. Every error before the run names FILE:LINE.
 */
#ifndef AB_CUBIN_ARM_H
#define AB_CUBIN_ARM_H

#include "common/diag.h"
#include "common/results.h"
#include "config/scenario.h"

struct cubin_arm;

enum ab_rc cubin_arm_load(const char *scenario_path, const struct arm_spec *spec, struct cubin_arm **out,
			  struct ab_diag *d);
void cubin_arm_free(struct cubin_arm *ca);

enum ab_rc cubin_arm_check_case(const struct cubin_arm *ca, const struct scenario_case *c, struct ab_diag *d);

/* Loads the code into the device's context (the CUDA backend is open). */
enum ab_rc cubin_arm_bind(struct cubin_arm *ca, const struct results_device *dev, const struct scenario *s,
			  struct ab_diag *d);

void cubin_arm_begin_case(struct cubin_arm *ca, const struct scenario_case *c);

const struct site_ext_arm *cubin_arm_ext(const struct cubin_arm *ca);
void cubin_arm_source(const struct cubin_arm *ca, struct results_arm_source *src);

#endif
