/*
 * fault_plugin.h - the CUDA halves of the fault plugin's arms
 * (fault_plugin_cuda.cu).
 */
#ifndef FAULT_PLUGIN_H
#define FAULT_PLUGIN_H

#include "abbench/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What into_input stores in x[0]: a NaN payload the input generator never
 * makes, so that the change is seen whatever x[0] was. */
#define FAULT_INPUT_MARK 0x7FC1

int fault_illegal_address_cuda(const struct abbench_call *call);
int fault_overrun_cuda(const struct abbench_call *call);
int fault_into_input_cuda(const struct abbench_call *call);
/* out = x when forever is false; else a kernel that never ends. */
int fault_spin_cuda(const struct abbench_call *call, int forever);

#ifdef __cplusplus
}
#endif

#endif
