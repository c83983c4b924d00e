/*
 * plugin_arm.h - an arm from a plugin library (include/abbench/plugin.h):
 * opened with dlopen, checked (entry symbol, ABI version, the arm's name
 * and site), and wrapped in a site_ext_arm that hands the plugin its
 * tensors by the site's names.
 *
 * Errors at load and check time are bad input (AB_ERR_INPUT, exit 2) and
 * name the scenario's FILE:LINE; a plugin function that fails while the
 * run measures makes the backend fail the run with its message.
 */
#ifndef AB_PLUGIN_ARM_H
#define AB_PLUGIN_ARM_H

#include <stdbool.h>

#include "common/diag.h"
#include "common/results.h"
#include "config/scenario.h"

struct plugin_arm;

enum ab_rc plugin_arm_load(const char *scenario_path, const struct arm_spec *spec, struct plugin_arm **out,
			   struct ab_diag *d);
void plugin_arm_free(struct plugin_arm *pa);

/* The site the plugin's arm implements. */
const struct site_desc *plugin_arm_site(const struct plugin_arm *pa);
bool plugin_arm_has_cpu(const struct plugin_arm *pa);
bool plugin_arm_has_cuda(const struct plugin_arm *pa);

/* The arm's own check of a case (its check function, if any). */
enum ab_rc plugin_arm_check_case(struct plugin_arm *pa, const struct scenario_case *c, struct ab_diag *d);

/* The case the next calls are for (its name and shape reach the plugin). */
void plugin_arm_begin_case(struct plugin_arm *pa, const struct scenario_case *c);

const struct site_ext_arm *plugin_arm_ext(const struct plugin_arm *pa);
void plugin_arm_source(const struct plugin_arm *pa, struct results_arm_source *src);

#endif
