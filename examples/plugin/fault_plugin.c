/*
 * fault_plugin.c - a plugin whose arms misbehave on purpose, one way each,
 * so that abbench's answers to them are tested (tests/cli/t13x) and shown
 * on the GPU (scripts/gpu/plugins.sh). All are for residual_gate_add.
 *
 *   fail           returns an error with a message (cpu and cuda): the run
 *                  fails with that message, exit 3
 *   illegal_address  cuda only: a kernel that stores to an address far
 *                  outside any allocation (CUDA_ERROR_ILLEGAL_ADDRESS)
 *   overrun        computes out, then writes one element past its end
 *                  (cpu and cuda): caught by the guard bytes, arm named
 *   into_input     computes out, then sets x[0] to a NaN no input has
 *                  (cpu and cuda): caught by the input check after the slot
 *   bad_tensor     its check asks for a tensor 'y' the site does not have:
 *                  refused before the run, exit 2
 *   wrong_site     declares site ln_modulate: refused against a
 *                  residual_gate_add case, exit 2
 *   no_such_site   declares a site abbench does not know, exit 2
 *   cuda_only      has no cpu function: refused on the cpu backend, exit 2
 *   spin           copies x into out on its calls before call
 *                  FAULT_SPIN_FROM of the process (environment; default
 *                  2), then never returns (cpu: a loop; cuda: a kernel
 *                  that never ends): abbench's per-call time limit
 *                  (call_limit_s) fails the run, naming case and arm, and a
 *                  SIGTERM ends it within 2 s (run/supervise.h). The check
 *                  of every arm before the run calls it once on the cpu
 *                  backend, twice on cuda (the slot's first call, then a
 *                  sample): so FAULT_SPIN_FROM 2 on cpu, 4 on cuda, is the
 *                  first sample of the run's slot B.
 *   exits          ends the process with _exit(0) in its first call, which
 *                  nothing in the process can catch: abbench's supervisor
 *                  marks the run failed and exits 3, never 0
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abbench/plugin.h"
#include "fault_plugin.h"

static int fail_any(const struct abbench_call *call)
{
	return abbench_fail(call, ABBENCH_ERR, "deliberate failure of the fault plugin (case '%s', %s)",
			    call->case_name, call->stream ? "cuda" : "cpu");
}

/* out = x: a simple complete output (correctness is not the point). */
static int copy_x(const struct abbench_call *call)
{
	const struct abbench_tensor *x = abbench_find(call, "x"), *out = abbench_find(call, "out");
	if (!x || !out)
		return abbench_fail(call, ABBENCH_ERR_UNSUPPORTED, "site '%s' has no tensor x or out", call->site);
	memcpy(out->data, x->data, (size_t)out->elems * 2);
	return ABBENCH_OK;
}

static int overrun_cpu(const struct abbench_call *call)
{
	int status = copy_x(call);
	if (status == ABBENCH_OK) {
		const struct abbench_tensor *out = abbench_find(call, "out");
		((uint16_t *)out->data)[out->elems] = 0; /* one element past the end */
	}
	return status;
}

static int into_input_cpu(const struct abbench_call *call)
{
	int status = copy_x(call);
	if (status == ABBENCH_OK)
		((uint16_t *)abbench_tensor(call, "x"))[0] = FAULT_INPUT_MARK;
	return status;
}

/* Calls of spin's cpu and cuda functions in this process. */
static int spin_calls;

/* Whether this call of spin is one that never returns: from call
 * FAULT_SPIN_FROM (1-based; default 2) on. */
static bool spin_now(void)
{
	const char *from = getenv("FAULT_SPIN_FROM");
	int n = from ? atoi(from) : 2;
	return ++spin_calls >= (n > 0 ? n : 2);
}

static int spin_cpu(const struct abbench_call *call)
{
	if (!spin_now())
		return copy_x(call);
	for (volatile unsigned long i = 0;; i++)
		;
	return ABBENCH_OK;
}

#if PLUGIN_HAVE_CUDA
static int spin_cuda(const struct abbench_call *call)
{
	return fault_spin_cuda(call, spin_now());
}
#endif

static int exits_any(const struct abbench_call *call)
{
	(void)call;
	_exit(0);
}

static int bad_tensor_check(const struct abbench_call *call)
{
	if (!abbench_find(call, "y"))
		return abbench_fail(call, ABBENCH_ERR_UNSUPPORTED, "site '%s' has no tensor 'y'", call->site);
	return ABBENCH_OK;
}

#if PLUGIN_HAVE_CUDA
#define CUDA_FN(fn) fn
#else
#define CUDA_FN(fn) NULL
#endif

static const struct abbench_arm arms[] = {
	{ "fail", "residual_gate_add", "returns an error", NULL, fail_any, fail_any, NULL },
	{ "illegal_address", "residual_gate_add", "a kernel storing far outside any allocation", NULL,
	  CUDA_FN(fault_illegal_address_cuda), NULL, NULL },
	{ "overrun", "residual_gate_add", "writes one element past the end of out", NULL, CUDA_FN(fault_overrun_cuda),
	  overrun_cpu, NULL },
	{ "into_input", "residual_gate_add", "sets x[0]", NULL, CUDA_FN(fault_into_input_cuda), into_input_cpu, NULL },
	{ "bad_tensor", "residual_gate_add", "asks for a tensor the site lacks", bad_tensor_check, NULL, copy_x, NULL },
	{ "wrong_site", "ln_modulate", "an arm of another site", NULL, NULL, copy_x, NULL },
	{ "no_such_site", "no_such_site", "an arm of a site abbench lacks", NULL, NULL, copy_x, NULL },
	{ "cuda_only", "residual_gate_add", "no cpu function", NULL, fail_any, NULL, NULL },
	{ "spin", "residual_gate_add", "never returns after its first call", NULL, CUDA_FN(spin_cuda), spin_cpu, NULL },
	{ "exits", "residual_gate_add", "_exit(0) in its first call", NULL, exits_any, exits_any, NULL },
};

static const struct abbench_plugin table = {
	.abi_version = ABBENCH_PLUGIN_ABI_VERSION,
	.name = "fault_plugin",
	.n_arms = (int32_t)(sizeof arms / sizeof arms[0]),
	.arms = arms,
};

ABBENCH_PLUGIN_EXPORT const struct abbench_plugin *abbench_plugin_entry(uint32_t harness_abi_version);

ABBENCH_PLUGIN_EXPORT const struct abbench_plugin *abbench_plugin_entry(uint32_t harness_abi_version)
{
	(void)harness_abi_version;
	return &table;
}
