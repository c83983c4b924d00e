/*
 * json_verdict.h - JSON documents of the judging commands: `abbench
 * compare --json` (format "abbench.compare") and `abbench gate --json`
 * (format "abbench.gate", the verdict and exit status included), written
 * from the analysis layer's results; and the "customSmallerIsBetter" list
 * that github-action-benchmark and similar trend services read (`abbench
 * export --benchmark-json`). Schemas: docs/JSON.md.
 */
#ifndef AB_JSON_VERDICT_H
#define AB_JSON_VERDICT_H

#include <jansson.h>

#include "analysis/compare.h"
#include "analysis/gate.h"
#include "analysis/summary.h"
#include "common/results.h"

/* NULL when out of memory, for each. */
json_t *json_verdict_compare(const struct summary_run *a, const struct summary_run *b, const struct compare_result *r);
json_t *json_verdict_gate(const struct results_run *base, const struct results_run *run, const struct gate_options *o,
			  const struct gate_result *r);

/* Two entries per case, "SCENARIO/CASE/b:VARIANT" and ".../a:VARIANT":
 * {name, unit "ns", value (the arm's pooled median), range ("± half the
 * p10-p90 spread"), extra (samples, p10, p90, speedup with its interval,
 * device)}. */
json_t *json_verdict_benchmark(const struct summary_run *s);

#endif
