/*
 * json_list.h - the JSON document of `abbench list --format json`
 * ("abbench.list"): the stored runs as list shows them, one object each,
 * for scripts that need a run's id, status or label without the database
 * (scripts/gpu/, docs/JSON.md).
 */
#ifndef AB_JSON_LIST_H
#define AB_JSON_LIST_H

#include <jansson.h>

#include "common/results.h"

/* runs[0..n) in the order given. NULL when out of memory. */
json_t *json_list_runs(const struct results_run_summary *const *runs, int n);

#endif
