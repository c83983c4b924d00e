/*
 * driver.c - the CUDA driver calls of compiled-binary arms (driver.h),
 * through pointers found with dlsym in libcuda.
 *
 * The table is filled once (pthread_once); a driver without
 * cuFuncGetParamInfo (before CUDA 12.4) still loads: that one pointer
 * stays NULL and driver_param_sizes says so.
 */
#include "arms/driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DRIVER_JIT_LOG 2048

/* The driver API's types and the constants used here, as cuda.h defines
 * them (values of the driver's ABI, stable across CUDA versions). */
typedef int CUresult;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef int CUjit_option;
typedef int CUfunction_attribute;

enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_NOT_INITIALIZED = 3,
	CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
	CUDA_ERROR_INVALID_PTX = 218,
	CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
	CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
	CUDA_ERROR_INVALID_IMAGE = 200,
	CUDA_ERROR_INVALID_SOURCE = 300,
	CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND = 302,
	CUDA_ERROR_NOT_FOUND = 500,
};
enum { CU_JIT_ERROR_LOG_BUFFER = 5, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6 };
enum { CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8 };

static struct {
	void *lib;
	char why[256]; /* why lib is NULL */
	CUresult (*module_load)(CUmodule *, const void *, unsigned, CUjit_option *, void **);
	CUresult (*module_unload)(CUmodule);
	CUresult (*get_function)(CUfunction *, CUmodule, const char *);
	CUresult (*param_info)(CUfunction, size_t, size_t *, size_t *);
	CUresult (*func_attr)(int *, CUfunction_attribute, CUfunction);
	CUresult (*set_attr)(CUfunction, CUfunction_attribute, int);
	CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
			   void **, void **);
	CUresult (*err_string)(CUresult, const char **);
	CUresult (*err_name)(CUresult, const char **);
	CUresult (*mem_alloc)(CUdeviceptr *, size_t);
	CUresult (*mem_free)(CUdeviceptr);
	CUresult (*ctx_device)(CUdevice *);
} drv;

static pthread_once_t drv_once = PTHREAD_ONCE_INIT;

/* dlsym into a function pointer (POSIX's sanctioned conversion). */
static bool sym(const char *name, void *fnp, bool required)
{
	void *p = dlsym(drv.lib, name);
	memcpy(fnp, &p, sizeof p);
	if (!p && required)
		snprintf(drv.why, sizeof drv.why, "libcuda has no '%s' (driver too old?)", name);
	return p || !required;
}

static void drv_load(void)
{
	const char *path = getenv("ABBENCH_LIBCUDA");
	path = path && *path ? path : "libcuda.so.1";
	drv.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!drv.lib) {
		snprintf(drv.why, sizeof drv.why, "cannot open the cuda driver '%s': %s", path, dlerror());
		return;
	}
	bool ok = sym("cuModuleLoadDataEx", &drv.module_load, true) && sym("cuModuleUnload", &drv.module_unload, true) &&
		  sym("cuModuleGetFunction", &drv.get_function, true) &&
		  sym("cuFuncGetParamInfo", &drv.param_info, false) && sym("cuFuncGetAttribute", &drv.func_attr, true) &&
		  sym("cuFuncSetAttribute", &drv.set_attr, true) && sym("cuLaunchKernel", &drv.launch, true) &&
		  sym("cuGetErrorString", &drv.err_string, true) && sym("cuGetErrorName", &drv.err_name, true) &&
		  sym("cuMemAlloc_v2", &drv.mem_alloc, true) && sym("cuMemFree_v2", &drv.mem_free, true) &&
		  sym("cuCtxGetDevice", &drv.ctx_device, true);
	if (!ok) {
		dlclose(drv.lib);
		drv.lib = NULL;
	}
}

static enum ab_rc drv_ready(struct ab_diag *d)
{
	pthread_once(&drv_once, drv_load);
	return drv.lib ? AB_OK : ab_fail(d, AB_ERR_BACKEND, "%s", drv.why);
}

const char *driver_errstr(int code, char *buf, size_t len)
{
	const char *msg = NULL, *name = NULL;
	pthread_once(&drv_once, drv_load);
	if (drv.lib) {
		drv.err_string((CUresult)code, &msg);
		drv.err_name((CUresult)code, &name);
	}
	snprintf(buf, len, "%s (%s)", msg ? msg : "unknown error", name ? name : "unknown code");
	return buf;
}

static enum ab_rc drv_fail(struct ab_diag *d, enum ab_rc rc, const char *call, CUresult r)
{
	char msg[160];
	return ab_fail(d, rc, "cuda driver call %s failed: %s", call, driver_errstr((int)r, msg, sizeof msg));
}

/* Results of a load that say the image is wrong, not the machine. */
static bool image_error(CUresult r)
{
	return r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_PTX ||
	       r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION || r == CUDA_ERROR_INVALID_IMAGE ||
	       r == CUDA_ERROR_INVALID_SOURCE || r == CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND ||
	       r == CUDA_ERROR_JIT_COMPILER_NOT_FOUND;
}

enum ab_rc driver_module_load(const void *image, void **module, struct ab_diag *d)
{
	char log[DRIVER_JIT_LOG] = "";
	CUjit_option opt[2] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
	void *val[2] = { log, (void *)(uintptr_t)sizeof log };
	CUmodule m = NULL;
	enum ab_rc rc = drv_ready(d);
	if (rc)
		return rc;
	CUresult r = drv.module_load(&m, image, 2, opt, val);
	if (r == CUDA_SUCCESS) {
		*module = m;
		return AB_OK;
	}
	char msg[160];
	log[strcspn(log, "\n")] = '\0';
	return ab_fail(d, image_error(r) ? AB_ERR_INPUT : AB_ERR_BACKEND, "cuda driver call cuModuleLoadDataEx failed: %s%s%.200s",
		       driver_errstr((int)r, msg, sizeof msg), log[0] ? ": " : "", log);
}

void driver_module_unload(void *module)
{
	if (module && drv.lib)
		drv.module_unload((CUmodule)module);
}

enum ab_rc driver_function(void *module, const char *name, void **fn, struct ab_diag *d)
{
	CUfunction f = NULL;
	enum ab_rc rc = drv_ready(d);
	if (rc)
		return rc;
	CUresult r = drv.get_function(&f, (CUmodule)module, name);
	if (r == CUDA_ERROR_NOT_FOUND)
		return ab_fail(d, AB_ERR_INPUT, "the binary has no kernel '%s'", name);
	if (r != CUDA_SUCCESS)
		return drv_fail(d, AB_ERR_BACKEND, "cuModuleGetFunction", r);
	*fn = f;
	return AB_OK;
}

int driver_param_sizes(void *fn, size_t sizes[DRIVER_MAX_PARAMS])
{
	if (!drv.lib || !drv.param_info)
		return -1;
	int n = 0;
	for (; n < DRIVER_MAX_PARAMS; n++) {
		size_t offset = 0;
		if (drv.param_info((CUfunction)fn, (size_t)n, &offset, &sizes[n]) != CUDA_SUCCESS)
			break;
	}
	return n;
}

enum ab_rc driver_max_threads(void *fn, int *threads, struct ab_diag *d)
{
	enum ab_rc rc = drv_ready(d);
	if (rc)
		return rc;
	CUresult r = drv.func_attr(threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, (CUfunction)fn);
	return r == CUDA_SUCCESS ? AB_OK : drv_fail(d, AB_ERR_BACKEND, "cuFuncGetAttribute", r);
}

enum ab_rc driver_set_max_shared(void *fn, int bytes, struct ab_diag *d)
{
	enum ab_rc rc = drv_ready(d);
	if (rc)
		return rc;
	CUresult r = drv.set_attr((CUfunction)fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
	return r == CUDA_SUCCESS ? AB_OK : drv_fail(d, AB_ERR_INPUT, "cuFuncSetAttribute(max dynamic shared)", r);
}

int driver_launch(void *fn, const unsigned grid[3], const unsigned block[3], unsigned shared, void *stream,
		  void **params)
{
	if (!drv.lib)
		return CUDA_ERROR_NOT_INITIALIZED;
	return (int)drv.launch((CUfunction)fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared,
			       (CUstream)stream, params, NULL);
}

enum ab_rc driver_alloc(size_t bytes, uint64_t *ptr, struct ab_diag *d)
{
	CUdeviceptr p = 0;
	enum ab_rc rc = drv_ready(d);
	if (rc)
		return rc;
	CUresult r = drv.mem_alloc(&p, bytes);
	if (r != CUDA_SUCCESS)
		return drv_fail(d, AB_ERR_BACKEND, "cuMemAlloc", r);
	*ptr = (uint64_t)p;
	return AB_OK;
}

void driver_free(uint64_t ptr)
{
	if (ptr && drv.lib)
		drv.mem_free((CUdeviceptr)ptr);
}

enum ab_rc driver_current_device(int *ordinal, struct ab_diag *d)
{
	CUdevice dev = 0;
	enum ab_rc rc = drv_ready(d);
	if (rc)
		return rc;
	CUresult r = drv.ctx_device(&dev);
	if (r != CUDA_SUCCESS)
		return drv_fail(d, AB_ERR_BACKEND, "cuCtxGetDevice", r);
	*ordinal = (int)dev;
	return AB_OK;
}
