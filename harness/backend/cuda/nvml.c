/*
 * nvml.c - GPU clocks, clocks-event reasons and temperature through NVML,
 * loaded with dlopen so that abbench builds without nvml.h and runs on
 * machines without the driver.
 *
 * The declarations below are the few NVML types and entry points used,
 * copied from the stable NVML ABI (nvml.h, R535 and later): every function
 * returns nvmlReturn_t, 0 on success.
 */
#include "backend/cuda/nvml.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_check.h"

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;

enum {
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_CLOCK_SM = 1,
	NVML_CLOCK_MEM = 2,
	NVML_TEMPERATURE_GPU = 0,
	NVML_DRIVER_VERSION_LEN = 80, /* NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE */
};

#define NVML_DEFAULT_LIB "libnvidia-ml.so.1"

struct nvml_fns {
	nvmlReturn_t (*nvmlInit_v2)(void);
	nvmlReturn_t (*nvmlShutdown)(void);
	const char *(*nvmlErrorString)(nvmlReturn_t r);
	nvmlReturn_t (*nvmlDeviceGetHandleByPciBusId_v2)(const char *bus_id, nvmlDevice_t *dev);
	nvmlReturn_t (*nvmlDeviceGetClockInfo)(nvmlDevice_t dev, int type, unsigned int *mhz);
	nvmlReturn_t (*nvmlDeviceGetCurrentClocksEventReasons)(nvmlDevice_t dev, unsigned long long *reasons);
	nvmlReturn_t (*nvmlDeviceGetTemperature)(nvmlDevice_t dev, int sensor, unsigned int *temp);
	nvmlReturn_t (*nvmlSystemGetDriverVersion)(char *buf, unsigned int len);
};

struct nvml {
	void *lib;
	struct nvml_fns f;
	nvmlDevice_t dev;
	char driver[NVML_DRIVER_VERSION_LEN];
};

/* nvmlErrorString of the loaded library, for AB_CHECK. Only one NVML is
 * loaded per process, so a file-level pointer is enough. */
static const char *(*nvml_error_string)(nvmlReturn_t r);

static const char *nvml_errstr(int code)
{
	return nvml_error_string ? nvml_error_string(code) : NULL;
}

static const struct ab_api nvml_api = {"nvml", nvml_errstr};

/* The clocks-event reasons call was renamed in R535; older drivers only
 * have the throttle-reasons name, with the same signature. */
static bool nvml_resolve(struct nvml *n, const char *path, char *why, size_t len)
{
#define NVML_SYM(fn) {#fn, (void **)&n->f.fn}
	const struct {
		const char *name;
		void **slot;
	} syms[] = {
		NVML_SYM(nvmlInit_v2), NVML_SYM(nvmlShutdown), NVML_SYM(nvmlErrorString),
		NVML_SYM(nvmlDeviceGetHandleByPciBusId_v2), NVML_SYM(nvmlDeviceGetClockInfo),
		NVML_SYM(nvmlDeviceGetCurrentClocksEventReasons), NVML_SYM(nvmlDeviceGetTemperature),
		NVML_SYM(nvmlSystemGetDriverVersion),
	};
#undef NVML_SYM
	for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
		*syms[i].slot = dlsym(n->lib, syms[i].name);
		if (!*syms[i].slot && !strcmp(syms[i].name, "nvmlDeviceGetCurrentClocksEventReasons"))
			*syms[i].slot = dlsym(n->lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
		if (!*syms[i].slot) {
			snprintf(why, len, "nvml library '%s' lacks '%s'", path, syms[i].name);
			return false;
		}
	}
	return true;
}

/* Initialises NVML and finds the device; the strings are read once here. */
static bool nvml_attach(struct nvml *n, const char *pci_bus_id, char *why, size_t len)
{
	struct ab_diag d;
	nvml_error_string = n->f.nvmlErrorString;
	if (AB_CHECK(&d, &nvml_api, n->f.nvmlInit_v2())) {
		snprintf(why, len, "%s", d.msg);
		return false;
	}
	if (AB_CHECK(&d, &nvml_api, n->f.nvmlDeviceGetHandleByPciBusId_v2(pci_bus_id, &n->dev)) ||
	    AB_CHECK(&d, &nvml_api, n->f.nvmlSystemGetDriverVersion(n->driver, sizeof n->driver))) {
		snprintf(why, len, "device '%s': %s", pci_bus_id, d.msg);
		n->f.nvmlShutdown();
		return false;
	}
	return true;
}

struct nvml *nvml_open(const char *pci_bus_id, char *why, size_t why_len)
{
	const char *env = getenv("ABBENCH_NVML");
	const char *path = env && *env ? env : NVML_DEFAULT_LIB;
	struct nvml *n = calloc(1, sizeof *n);
	if (!n) {
		snprintf(why, why_len, "cannot allocate the nvml state");
		return NULL;
	}
	n->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!n->lib) {
		const char *err = dlerror();
		snprintf(why, why_len, "cannot load nvml library '%s': %s", path, err ? err : "unknown error");
		free(n);
		return NULL;
	}
	if (!nvml_resolve(n, path, why, why_len) || !nvml_attach(n, pci_bus_id, why, why_len)) {
		dlclose(n->lib);
		free(n);
		return NULL;
	}
	return n;
}

void nvml_close(struct nvml *n)
{
	if (!n)
		return;
	n->f.nvmlShutdown();
	/* The library stays mapped: the driver may keep threads inside it. */
	free(n);
}

/* An optional field: NOT_SUPPORTED leaves it 0, other errors fail. */
static enum ab_rc nvml_optional(nvmlReturn_t r, const char *call, int line, struct ab_diag *d)
{
	if (r == NVML_ERROR_NOT_SUPPORTED)
		return AB_OK;
	return ab_check_call(r, &nvml_api, call, __FILE__, line, d);
}

#define NVML_OPTIONAL(d, call) nvml_optional((call), #call, __LINE__, (d))

enum ab_rc nvml_read(struct nvml *n, struct results_clocks *c, struct ab_diag *d)
{
	memset(c, 0, sizeof *c);
	if (!n)
		return AB_OK;
	unsigned int sm = 0, mem = 0, temp = 0;
	unsigned long long reasons = 0;
	enum ab_rc rc;
	if ((rc = AB_CHECK(d, &nvml_api, n->f.nvmlDeviceGetClockInfo(n->dev, NVML_CLOCK_SM, &sm))) ||
	    (rc = AB_CHECK(d, &nvml_api, n->f.nvmlDeviceGetClockInfo(n->dev, NVML_CLOCK_MEM, &mem))) ||
	    (rc = NVML_OPTIONAL(d, n->f.nvmlDeviceGetCurrentClocksEventReasons(n->dev, &reasons))) ||
	    (rc = NVML_OPTIONAL(d, n->f.nvmlDeviceGetTemperature(n->dev, NVML_TEMPERATURE_GPU, &temp))))
		return rc;
	c->valid = true;
	c->sm_mhz = (int)sm;
	c->mem_mhz = (int)mem;
	c->throttle_reasons = reasons;
	c->temp_c = (int)temp;
	return AB_OK;
}

const char *nvml_driver_version(const struct nvml *n)
{
	return n ? n->driver : "";
}
