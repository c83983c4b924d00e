/*
 * diff_json.h - `abbench diff --format json`: the abbench.diff document
 * (docs/JSON.md has its schema), built with jansson from the same
 * divergence report (analysis/divergence.h) the text and markdown print.
 */
#ifndef AB_DIFF_JSON_H
#define AB_DIFF_JSON_H

#include "common/diag.h"
#include "print/printer.h"

enum ab_rc diff_json_print(const struct printer_job *job, struct ab_diag *d);

#endif
