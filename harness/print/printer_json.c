/*
 * printer_json.c - the "json" format: the documents of docs/JSON.md,
 * built with jansson by print/json_export.c (abbench.show, abbench.export),
 * print/json_verdict.c (abbench.compare, abbench.gate) and
 * print/json_list.c (abbench.list).
 */
#include "print/diff_json.h"
#include "print/figures_list.h"
#include "print/json_export.h"
#include "print/json_list.h"
#include "print/json_out.h"
#include "print/json_verdict.h"
#include "print/printer.h"

static enum ab_rc json_summary(const struct printer_job *job, struct ab_diag *d)
{
	return json_out_print(json_export_show(job->summary), job->f, d);
}

static enum ab_rc json_record(const struct printer_job *job, struct ab_diag *d)
{
	return json_out_print(json_export_run(job->run), job->f, d);
}

static enum ab_rc json_compare(const struct printer_job *job, struct ab_diag *d)
{
	return json_out_print(json_verdict_compare(job->summary, job->second, job->compare), job->f, d);
}

static enum ab_rc json_gate(const struct printer_job *job, struct ab_diag *d)
{
	const struct printer_gate *g = job->gate;
	return json_out_print(json_verdict_gate(g->base, g->run, g->o, g->r), job->f, d);
}

static enum ab_rc json_runs(const struct printer_job *job, struct ab_diag *d)
{
	return json_out_print(json_list_runs(job->runs, job->n_runs), job->f, d);
}

extern const struct printer printer_json;

const struct printer printer_json = {
	"json", "JSON documents (schemas: docs/JSON.md)",
	{
		[PRINTER_SUMMARY] = json_summary,
		[PRINTER_RECORD] = json_record,
		[PRINTER_COMPARE] = json_compare,
		[PRINTER_GATE] = json_gate,
		[PRINTER_RUNS] = json_runs,
		[PRINTER_DIFF] = diff_json_print,
		[PRINTER_FIGURES] = figures_list_json,
	},
};
