/*
 * printer_benchmark.c - the "benchmark" format: github-action-benchmark's
 * customSmallerIsBetter list, two entries per case (print/json_verdict.c).
 */
#include "print/json_out.h"
#include "print/printer.h"

static enum ab_rc benchmark_summary(const struct printer_job *job, struct ab_diag *d)
{
	return json_out_print(json_verdict_benchmark(job->summary), job->f, d);
}

extern const struct printer printer_benchmark;

const struct printer printer_benchmark = {
	"benchmark", "github-action-benchmark's customSmallerIsBetter JSON",
	{
		[PRINTER_SUMMARY] = benchmark_summary,
	},
};
