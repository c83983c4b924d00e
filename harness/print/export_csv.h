/*
 * export_csv.h - one run's results as CSV, for spreadsheets and pandas.
 *
 * One row per (case, slot), cases in run order, slots in bracket order,
 * after one header row:
 *
 *   case,site,shape,dtype,arm,slot,samples,median_ns,p10_ns,p90_ns,md5,
 *   bit_exact,variant,eps,input,stopping_reason,discarded,noise,mean_ns,min_ns,
 *   max_ns,kernel_median_ns,mismatches,max_abs_err,max_err_ratio,ref_ok,run_id,
 *   arm_samples,arm_median_ns,arm_p10_ns,arm_p90_ns,speedup,speedup_low,
 *   speedup_high,drift,case_bit_exact,sweep,axis,axis_value,bytes,gbps,pct_copy,
 *   arm_gbps,arm_pct_copy,copy_floor_ns,copy_floor_kernel_ns,copy_floor_method,
 *   arm_over_copy,verdict
 *
 * verdict is the case's one verdict (summary_case_verdict_key: faster,
 * slower, no_clear_change, drifted, few_samples, not_exact), the one the
 * report's summary table prints.
 *
 * The columns up to run_id are the slot's; the nine after it are its case's
 * figures from the summary (analysis/summary.h), the same numbers show and
 * report print: arm_* the row's arm, all its slots pooled (count, median,
 * p10, p90); speedup = median(A) / median(B) with its 95% bootstrap
 * interval; drift the largest |A_k - A1| / A1 (empty under two A slots);
 * case_bit_exact 1 when every output of every slot of the case is
 * byte-equal to the first A slot's (empty without outputs).
 *
 * sweep, axis and axis_value name the swept [case] a case was expanded from
 * and its value there (empty when not swept). bytes is what the slot's arm
 * moves (analysis/bandwidth.h), gbps that over the slot's median_ns, and
 * pct_copy that as a percentage of the device's copy bandwidth (the run's
 * measured one, else its profile's); empty when unknown. arm_gbps and
 * arm_pct_copy are the same for the row's arm at its pooled median (the
 * figures show and report print).
 *
 * copy_floor_ns, copy_floor_kernel_ns and copy_floor_method are the case's
 * copy floor measured in the run (its median wall and kernel time and the
 * method that won: backend/copy_floor.h), arm_over_copy the row's arm's
 * pooled median over copy_floor_ns; empty when the run measured none.
 *
 * arm is "a" or "b"; slot is the bracket label (A1, B, A2). A slot with
 * several outputs (qk_layernorm: q_out, k_out) gets their md5s joined by
 * '+' in tensor order; bit_exact and ref_ok are 1 only when they hold for
 * every output, mismatches is their sum, max_abs_err and max_err_ratio the
 * largest. A slot without outputs leaves those fields empty.
 *
 * Numbers: integers and integral reals as integers; other reals with 15
 * significant digits (%.15g): every double holds 15 decimal digits, so a
 * figure prints as its decimal inputs make it ("25252297.5") and not with
 * the binary noise of its last bit that the shortest round-trip form
 * showed ("25252297.500000022"); the value read back is within 1e-15 of
 * the double. NAN (unknown) is an
 * empty field. A text field that a spreadsheet would run as a formula
 * (starting with =, +, -, @, a tab or a CR: a case named "=HYPERLINK(...)"
 * from a merged shard) is written with a leading ' (OWASP's advice;
 * numbers, negative ones included, are never touched). Fields that need
 * it (a comma, a quote, a line break, or a leading or trailing blank) are
 * quoted by libcsv (csv_fwrite); lines end in "\n".
 */
#ifndef AB_EXPORT_CSV_H
#define AB_EXPORT_CSV_H

#include "analysis/summary.h"
#include "common/diag.h"
#include "print/printer.h"

/* The csv printer's PRINTER_SUMMARY: the run of job->summary to job->f
 * (printer_emit writes a file atomically: a failed export never leaves a
 * partial file). AB_ERR_IO when the stream fails. */
enum ab_rc export_csv_print(const struct printer_job *job, struct ab_diag *d);

#endif
