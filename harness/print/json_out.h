/*
 * json_out.h - the JSON documents abbench writes, built with jansson
 * (Debian's libjansson-dev, linked statically), and what they share:
 * numbers (NAN and infinities become null), lists, the run header, and
 * writing a document to a printer job's stream. docs/JSON.md is the
 * schema of every document; tests/tools/json_check.py validates against it.
 *
 * Builders return a new reference, or NULL when out of memory; a NULL
 * handed to json_pack's "o", json_out_set or json_out_push is dropped and
 * makes it fail, so a document built from them is either whole or NULL.
 */
#ifndef AB_JSON_OUT_H
#define AB_JSON_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "common/stats.h"
#include "common/diag.h"
#include "common/results.h"
#include "print/printer.h"

/* Every document's "format_version" (docs/JSON.md: its versions, and what
 * bumps it). */
#define JSON_OUT_FORMAT_VERSION 2

/* v as a JSON number, null when NAN or infinite. */
json_t *json_out_num(double v);

/* {"point", "low", "high"} of an interval, numbers or null. */
json_t *json_out_interval(struct stats_interval iv);

/* Sets key of obj to v (stolen); false when v is NULL or out of memory. */
bool json_out_set(json_t *obj, const char *key, json_t *v);

/* Appends v (stolen) to arr; false as json_out_set. */
bool json_out_push(json_t *arr, json_t *v);

/* v when ok, else NULL with v released: a builder's last line. */
json_t *json_out_whole(json_t *v, bool ok);

/* [item(&items[0]), ..., item(&items[n - 1])], items an array of n
 * elements of size bytes. */
json_t *json_out_array(const void *items, size_t size, int n, json_t *(*item)(const void *));

/* A stored divergence's ULP histogram and map (its cells a list per row
 * when by_row, else one list, row after row). */
json_t *json_out_ulp_histogram(const struct results_divergence *v);
json_t *json_out_div_map(const struct results_divergence *v, bool by_row);

/* The run's header (docs/JSON.md's run); full adds its provenance
 * (scenario_path, scenario_text, command_line, arm_sources). */
json_t *json_out_run(const struct results_run *r, bool full);

/* A document: {"format": name, "format_version": JSON_OUT_FORMAT_VERSION}
 * plus body's keys (body is stolen). NULL when body is NULL. */
json_t *json_out_document(const char *format, json_t *body);

/* Writes doc (stolen, may be NULL: then AB_ERR_NOMEM) indented, with a
 * final newline, to f (a printer job's stream). */
enum ab_rc json_out_print(json_t *doc, FILE *f, struct ab_diag *d);

/* The "json" format's kinds (print/printer.c), a document each:
 * abbench.show and abbench.export (json_export.c), abbench.compare and
 * abbench.gate (json_verdict.c, the gate's exit status included),
 * abbench.list (json_out.c), abbench.diff (diff_json.c). */
enum ab_rc json_export_show(const struct printer_job *job, struct ab_diag *d);
enum ab_rc json_export_run(const struct printer_job *job, struct ab_diag *d);
enum ab_rc json_verdict_compare(const struct printer_job *job, struct ab_diag *d);
enum ab_rc json_verdict_gate(const struct printer_job *job, struct ab_diag *d);
enum ab_rc json_list_runs(const struct printer_job *job, struct ab_diag *d);
enum ab_rc diff_json_print(const struct printer_job *job, struct ab_diag *d);

/* The "benchmark" format's PRINTER_SUMMARY (json_verdict.c): the
 * customSmallerIsBetter list of github-action-benchmark, two entries per
 * case (docs/JSON.md, "--benchmark-json"). */
enum ab_rc json_verdict_benchmark(const struct printer_job *job, struct ab_diag *d);

#endif
