/*
 * backend.c - picks the backend a run uses: explicit cpu/cuda, or auto
 * (CUDA when a device answers, else the CPU, said loudly by the caller).
 */
#include "backend/backend.h"

#include <stdio.h>

#if !AB_HAVE_CUDA
const struct backend_ops *const backend_cuda_ops = NULL;
#endif

static bool cuda_usable(char *why, size_t len)
{
	if (!backend_cuda_ops) {
		snprintf(why, len, "this abbench was built without the CUDA backend (no nvcc at build time)");
		return false;
	}
	return backend_cuda_ops->available(why, len);
}

enum ab_rc backend_choose(enum scenario_backend want, const struct backend_ops **out, bool *fell_back, char *why,
			  size_t why_len, struct ab_diag *d)
{
	*fell_back = false;
	why[0] = '\0';
	switch (want) {
	case SCENARIO_BACKEND_CPU:
		*out = &backend_cpu;
		return AB_OK;
	case SCENARIO_BACKEND_CUDA:
		if (!cuda_usable(why, why_len))
			return ab_fail(d, AB_ERR_USAGE, "backend 'cuda' is not available: %s", why);
		*out = backend_cuda_ops;
		return AB_OK;
	case SCENARIO_BACKEND_AUTO:
		if (cuda_usable(why, why_len)) {
			*out = backend_cuda_ops;
			return AB_OK;
		}
		*fell_back = true;
		*out = &backend_cpu;
		return AB_OK;
	}
	return ab_fail(d, AB_ERR_INTERNAL, "unknown backend choice %d", (int)want);
}
