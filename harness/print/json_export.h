/*
 * json_export.h - JSON documents of one run: everything it holds
 * (`abbench export --json`, format "abbench.export") and the per-case
 * figures of `abbench show --json` (format "abbench.show"), read from the
 * summary layer (analysis/summary.h) like every printer. Schemas: docs/JSON.md.
 */
#ifndef AB_JSON_EXPORT_H
#define AB_JSON_EXPORT_H

#include <jansson.h>

#include "analysis/summary.h"
#include "common/results.h"

/* The whole run: header with provenance, every case, slot, sample,
 * kernel record and output. NULL when out of memory. */
json_t *json_export_run(const struct results_run *r);

/* The run as `abbench show` prints it: header, per case its slots and
 * summary (arm medians, speedup with its interval, drift, bit-exactness),
 * and the model projection. NULL when out of memory. */
json_t *json_export_show(const struct summary_run *s);

#endif
