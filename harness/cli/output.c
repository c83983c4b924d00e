/*
 * output.c - --format and --out resolved against the printer table
 * (output.h).
 */
#include "cli/output.h"

#include <stdio.h>
#include <string.h>

#include "common/diag.h"
#include "common/suggest.h"

void output_help(struct cli_output *o, const enum printer_kind *kinds, int n, const char *def)
{
	char names[200];
	printer_names(kinds, n, names, sizeof names);
	snprintf(o->help, sizeof o->help, "output format: %s (default %s)", names, def);
}

bool output_pick(const struct cli_output *o, const char *command, const enum printer_kind *kinds, int n,
		 const char *def, const struct printer **p, enum printer_kind *kind)
{
	char names[200];
	const char *name = o->format ? o->format : o->json ? "json" : def;
	if (o->json && o->format && strcmp(o->format, "json")) {
		ab_error("%s: --json is --format json, not --format %s", command, o->format);
		return false;
	}
	printer_names(kinds, n, names, sizeof names);
	if (!(*p = printer_find(name))) {
		char near[32], dym[64] = "";
		if (suggest_nearest_in(name, names, near, sizeof near))
			snprintf(dym, sizeof dym, "did you mean '%s'? ", near);
		ab_error("%s: unknown format '%s' (%s%s prints %s)", command, name, dym, command, names);
		return false;
	}
	int k = printer_pick(*p, kinds, n);
	if (k < 0) {
		ab_error("%s: format '%s' does not print %s (%s prints %s)", command, name, printer_kind_words(kinds[0]),
			 command, names);
		return false;
	}
	*kind = (enum printer_kind)k;
	return true;
}
