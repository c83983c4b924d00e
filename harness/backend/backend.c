/*
 * backend.c - the backends' names and the choice of the one a run uses:
 * explicit cpu/cuda, or auto (CUDA when a device answers, else the CPU,
 * said loudly by the caller).
 */
#include "backend/backend.h"

#include <stdio.h>
#include <string.h>

const char *const backend_choice_names[] = { "auto", "cpu", "cuda", NULL };

bool backend_choice_parse(const char *name, enum backend_choice *out)
{
	static const enum backend_choice choices[] = { BACKEND_AUTO, BACKEND_CPU, BACKEND_CUDA };
	for (int i = 0; backend_choice_names[i]; i++)
		if (!strcmp(name, backend_choice_names[i])) {
			*out = choices[i];
			return true;
		}
	return false;
}

const char *backend_choice_name(enum backend_choice c)
{
	switch (c) {
	case BACKEND_AUTO: return "auto";
	case BACKEND_CPU: return "cpu";
	case BACKEND_CUDA: return "cuda";
	}
	return "unknown";
}

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

enum ab_rc backend_choose(enum backend_choice want, const struct backend_ops **out, bool *fell_back, char *why,
			  size_t why_len, struct ab_diag *d)
{
	*fell_back = false;
	why[0] = '\0';
	switch (want) {
	case BACKEND_CPU:
		*out = &backend_cpu;
		return AB_OK;
	case BACKEND_CUDA:
		if (!cuda_usable(why, why_len))
			return ab_fail(d, AB_ERR_USAGE, "backend 'cuda' is not available: %s", why);
		*out = backend_cuda_ops;
		return AB_OK;
	case BACKEND_AUTO:
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
