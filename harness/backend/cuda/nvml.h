/*
 * nvml.h - SM and memory clocks, clocks-event (throttle) reasons and
 * temperature of the measured GPU, read through NVML.
 *
 * libnvidia-ml.so.1 is opened with dlopen at run time (the path can be
 * forced with $ABBENCH_NVML), and nvml.h is not needed to build: the few
 * types and prototypes are declared in nvml.c. NVML is optional: when it
 * cannot be loaded or initialised, nvml_open returns NULL with the reason,
 * and nvml_read on a NULL handle reports clocks as not valid. Neither is an
 * error; a run without NVML simply records no clocks.
 *
 * The device is matched to the CUDA device by PCI bus id (NVML ignores
 * CUDA_VISIBLE_DEVICES, so an index would be wrong on a shared host).
 */
#ifndef AB_NVML_H
#define AB_NVML_H

#include <stddef.h>

#include "common/diag.h"
#include "common/results.h"

struct nvml;

/* Loads NVML, initialises it and finds the device whose PCI bus id is
 * pci_bus_id ("0000:3B:00.0", as cudaDeviceGetPCIBusId writes it). Returns
 * NULL when NVML is unavailable, with the reason in why. */
struct nvml *nvml_open(const char *pci_bus_id, char *why, size_t why_len);

/* Shuts NVML down. NULL is fine. */
void nvml_close(struct nvml *n);

/* Current SM and memory clocks, clocks-event reasons and temperature.
 * With n == NULL: c->valid = false and AB_OK. A failing NVML call is an
 * AB_ERR_BACKEND naming the call; a field the device does not support reads
 * as 0. */
enum ab_rc nvml_read(struct nvml *n, struct results_clocks *c, struct ab_diag *d);

/* The driver version string ("580.159"), "" when unknown. */
const char *nvml_driver_version(const struct nvml *n);

#endif
