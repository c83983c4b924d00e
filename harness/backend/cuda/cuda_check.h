/*
 * cuda_check.h - one checking macro for CUDA runtime, CUPTI and NVML calls.
 *
 * All three APIs return 0 on success and a numeric code otherwise, so one
 * macro serves them: AB_CHECK(d, api, call) evaluates call once and, on a
 * non-zero code, writes into d the call text, the API's name and message
 * for the code, and the file:line of the call, and yields AB_ERR_BACKEND;
 * it yields AB_OK otherwise. It is an expression, so it threads one rc:
 *
 *   if ((rc = AB_CHECK(d, &cuda_api, cudaMalloc(&p, n))))
 *           goto out;
 *
 * The caller wraps the message with its context (case and arm) with
 * ab_wrap. Each module describes its API once in a struct ab_api whose
 * errstr turns a code into text (cudaGetErrorString, cuptiGetResultString
 * or nvmlErrorString through the dlsym'd pointer).
 */
#ifndef AB_CUDA_CHECK_H
#define AB_CUDA_CHECK_H

#include <stdio.h>

#include "common/diag.h"

struct ab_api {
	const char *name;              /* "cuda", "cupti", "nvml" */
	const char *(*errstr)(int code); /* message for a code; may return NULL */
};

static inline enum ab_rc ab_check_call(int code, const struct ab_api *api, const char *call, const char *file,
				       int line, struct ab_diag *d)
{
	if (code == 0)
		return AB_OK;
	const char *msg = api->errstr ? api->errstr(code) : NULL;
	return ab_fail(d, AB_ERR_BACKEND, "%s call '%s' failed: %s (code %d) at %s:%d", api->name, call,
		       msg ? msg : "unknown error", code, file, line);
}

#define AB_CHECK(d, api, call) ab_check_call((int)(call), (api), #call, __FILE__, __LINE__, (d))

#endif
