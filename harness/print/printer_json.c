/*
 * printer_json.c - the "json" format: the documents of docs/JSON.md
 * (print/json_out.h says where each is built; abbench.figures in
 * print/figures_list.c).
 */
#include "print/figures_list.h"
#include "print/json_out.h"
#include "print/printer.h"

extern const struct printer printer_json;

const struct printer printer_json = {
	"json", "JSON documents (schemas: docs/JSON.md)",
	{
		[PRINTER_SUMMARY] = json_export_show,
		[PRINTER_RECORD] = json_export_run,
		[PRINTER_COMPARE] = json_verdict_compare,
		[PRINTER_GATE] = json_verdict_gate,
		[PRINTER_RUNS] = json_list_runs,
		[PRINTER_DIFF] = diff_json_print,
		[PRINTER_FIGURES] = figures_list_json,
	},
};
