/*
 * json_out.h - what every JSON document abbench writes shares: numbers
 * (NAN and infinities become null), the run header, and writing a
 * document to standard output or, atomically, to a file. Built on jansson
 * (Debian's libjansson-dev, linked statically). docs/JSON.md is the schema
 * of every document; tests/tools/json_check.py validates against it.
 *
 * Builders return a new reference, or NULL when out of memory; a NULL
 * handed to a json_out_set/json_out_push is dropped and makes it fail, so a
 * document built from them is either whole or NULL.
 */
#ifndef AB_JSON_OUT_H
#define AB_JSON_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "common/stats.h"
#include "common/diag.h"
#include "common/results.h"

/* Each format's "format_version"; a change that removes or retypes a
 * field, or changes what one means, bumps it (adding a field does not).
 * 2: p_value of compare and gate is a block bootstrap's, no longer a
 * Mann-Whitney test's on single samples (docs/JSON.md). */
#define JSON_OUT_FORMAT_VERSION 2

/* v as a JSON number, null when NAN or infinite. */
json_t *json_out_num(double v);

/* {"point", "low", "high"} of an interval, numbers or null. */
json_t *json_out_interval(struct stats_interval iv);

/* Sets key of obj to v (stolen). false when v is NULL or out of memory;
 * ok-chaining: `ok = json_out_set(o, "k", v) && ok`. */
bool json_out_set(json_t *obj, const char *key, json_t *v);

/* Appends v (stolen) to arr; false as json_out_set. */
bool json_out_push(json_t *arr, json_t *v);

/* v when ok, else NULL with v released: a builder's last line. */
json_t *json_out_whole(json_t *v, bool ok);

/* The run's header: identity (id, uuid, run set and shard), status,
 * times, scenario, build, host, backend, bracket and arms, the device.
 * full adds the provenance texts (scenario_text, command_line). */
json_t *json_out_run(const struct results_run *r, bool full);

/* A document: {"format": name, "format_version": 1} plus body's keys
 * (body is stolen). NULL when body is NULL. */
json_t *json_out_document(const char *format, json_t *body);

/* Writes doc (stolen, may be NULL: then AB_ERR_NOMEM) indented, with a
 * final newline, to f (a printer job's stream). */
enum ab_rc json_out_print(json_t *doc, FILE *f, struct ab_diag *d);

#endif
