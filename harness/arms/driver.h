/*
 * driver.h - the CUDA driver API for compiled binaries: load a cubin, PTX
 * or fatbin image into the device's context, find a kernel, ask its
 * parameters, launch it on a stream.
 *
 * libcuda is opened with dlopen (libcuda.so.1, or the path in
 * $ABBENCH_LIBCUDA) on first use and stays open; abbench links the
 * runtime statically and needs no driver to start. The calls run in the
 * context the runtime made current when the CUDA backend opened (the
 * device's primary context), so streams and device pointers of the
 * runtime are valid here. Handles are opaque pointers (CUmodule,
 * CUfunction, CUstream); device pointers are uint64_t.
 *
 * Errors name the driver call and its message (cuGetErrorString). A load
 * the image itself makes fail (no code for this GPU, bad PTX, an image
 * the driver cannot read) is AB_ERR_INPUT: the user's file is wrong.
 *
 * It needs no CUDA header and builds without nvcc (the few types and
 * constants of cuda.h it uses are spelled out in driver.c); only the CUDA
 * backend makes a context for it to work in.
 */
#ifndef AB_DRIVER_H
#define AB_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

#define DRIVER_MAX_PARAMS 64

/* Loads image (a NUL-terminated text for PTX); the JIT's log goes into the
 * message of a failed PTX load. */
enum ab_rc driver_module_load(const void *image, void **module, struct ab_diag *d);
void driver_module_unload(void *module);
/* AB_ERR_INPUT when the module has no kernel called name. */
enum ab_rc driver_function(void *module, const char *name, void **fn, struct ab_diag *d);

/* The kernel's parameter count and sizes (cuFuncGetParamInfo); -1 when the
 * driver lacks that call (before CUDA 12.4). */
int driver_param_sizes(void *fn, size_t sizes[DRIVER_MAX_PARAMS]);

/* Threads per block the kernel can be launched with, its static shared
 * memory, and the dynamic shared memory it may use (set_max_shared raises
 * the limit above the 48 KiB default when a launch needs more). */
enum ab_rc driver_max_threads(void *fn, int *threads, struct ab_diag *d);
enum ab_rc driver_set_max_shared(void *fn, int bytes, struct ab_diag *d);

/* Queues one launch; returns the CUresult (0 on success). */
int driver_launch(void *fn, const unsigned grid[3], const unsigned block[3], unsigned shared, void *stream,
		  void **params);
/* "an illegal memory access was encountered (CUDA_ERROR_ILLEGAL_ADDRESS)". */
const char *driver_errstr(int code, char *buf, size_t len);

/* The device of the context current on this thread (the one the CUDA
 * backend opened), numbered as the runtime numbers devices (after
 * CUDA_VISIBLE_DEVICES): for arms that name the device themselves, as
 * torch does. */
enum ab_rc driver_current_device(int *ordinal, struct ab_diag *d);

enum ab_rc driver_alloc(size_t bytes, uint64_t *ptr, struct ab_diag *d);
void driver_free(uint64_t ptr);

#endif
