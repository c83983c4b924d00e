/*
 * report_details.c - the report's Accuracy section, "Where the bits
 * differ" (with the heatmaps it shows) and the folded details, then the
 * folded Clocks, Sampling and Provenance (report.h). A <details> block's
 * "</summary>" is followed by a blank line: GitHub renders markdown inside
 * only after one.
 */
#include "print/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "print/escape.h"
#include "print/figure_fmt.h"
#include "print/md.h"
#include "print/plot.h"

/* The stored divergence the summary names for case c (its most differing
 * B output), NULL when none. */
static const struct results_divergence *stored(const struct summary_case *c)
{
	const struct results_slot *s = c->div.slot && c->div.tensor ? results_case_slot(c->c, c->div.slot) : NULL;
	for (int k = 0; s && k < s->n_div; k++)
		if (!strcmp(s->div[k].tensor, c->div.tensor))
			return &s->div[k];
	return NULL;
}

enum ab_rc report_divergence_heatmaps(const char *dir, const struct summary_run *S, const char *gnuplot,
				      const char *why_not, struct report_chart *out, struct ab_diag *d)
{
	int drawn = 0;
	for (int i = 0; i < S->n_cases && drawn < REPORT_HEATMAPS_MAX; i++) {
		const struct summary_case *c = &S->cases[i];
		const struct results_divergence *v = diff_case_differs(c) ? stored(c) : NULL;
		struct ab_diag hd = { "" };
		char title[300];
		if (!v || !v->map)
			continue;
		drawn++;
		snprintf(title, sizeof title, "heatmap-%s-%s-%s", c->c->name, c->div.slot, c->div.tensor);
		escape_stem(title, out[i].stem, sizeof out[i].stem - 12);
		for (int j = 0; j < i; j++) /* the stem unique among out[0..i) */
			if (!strcmp(out[j].stem, out[i].stem)) {
				snprintf(out[i].stem + strlen(out[i].stem), 12, "-%d", i + 1);
				break;
			}
		snprintf(title, sizeof title, "%s, %s: '%s' elements not byte-equal to A1 (%lld of %lld)", c->c->name,
			 c->div.slot, v->tensor, (long long)v->n_diff, (long long)v->elems);
		enum ab_rc rc = heatmap_write(dir, out[i].stem, title, v, gnuplot, &hd);
		if (rc == AB_ERR_NOMEM || rc == AB_ERR_IO) {
			*d = hd;
			return rc;
		}
		out[i].written = rc == AB_OK || rc == AB_ERR_DATA; /* DATA: gnuplot failed on written files */
		out[i].drawn = rc == AB_OK && gnuplot;
		md_scrub_paths(rc ? hd.msg : why_not ? why_not : "", out[i].note, sizeof out[i].note);
	}
	return AB_OK;
}

/* "Where the bits differ" (issue 29), which opens the Accuracy section:
 * the accuracy view of the figures (analysis/figures.h) over the cases
 * not bit-exact or whose batch invariance broke, and their heatmaps;
 * nothing when no case is listed. */
static void divergence_section(FILE *f, const struct report_ctx *R, bool compact)
{
	const struct summary_run *S = R->S;
	int *idx = malloc(((size_t)S->n_cases + 1) * sizeof *idx), n = 0, swept = 0;
	char line[600];
	if (!idx) { /* a stream error: the report's render fails on it */
		fputs("## Where the bits differ\n\n_Out of memory._\n\n", f);
		return;
	}
	for (int i = 0; i < S->n_cases; i++)
		if (diff_case_differs(&S->cases[i]))
			idx[n++] = i;
	for (int w = 0; w < S->n_sweeps; w++)
		swept += S->sweeps[w].invariance != SUMMARY_INVARIANCE_NOT_CHECKED;
	if (n || swept)
		fputs("## Where the bits differ\n\n", f);
	if (n) {
		const struct figure_fmt_md_table t = { FIGURE_IN_ACCURACY, "case", false, compact };
		fprintf(f, "%d of %d cases are not bit-exact (a B output not byte-equal to the first A slot's, or an "
			   "arm whose outputs changed between its calls), not batch-invariant, or depart from the "
			   "eager chain in an intermediate. Per case, its most differing B output: elements that "
			   "differ, the largest distance in ULPs of the dtype and where (the coordinates in the site's "
			   "axes), the first difference in memory order, NaN/Inf against another class, rows (vectors "
			   "along the last axis) holding a difference, the first stage of the eager chain that "
			   "departs, and of the differing elements the share nearer the float64 reference in B. "
			   "`abbench diff RUN CASE` prints the whole report of a case.\n\n", n, S->n_cases);
		figure_fmt_md_table(f, &t, S, idx, n);
		fputc('\n', f);
	}
	for (int w = 0; w < S->n_sweeps; w++) {
		const struct summary_sweep *sw = &S->sweeps[w];
		if (sw->invariance == SUMMARY_INVARIANCE_NOT_CHECKED)
			continue;
		diff_invariance(S, &S->cases[sw->idx[0]], line, sizeof line);
		md_printf(f, "- `%s`: %s\n", sw->name, line);
	}
	if (swept)
		fputc('\n', f);
	for (int k = 0; R->ch.heatmaps && k < n; k++) {
		const struct summary_case *c = &S->cases[idx[k]];
		char alt[300];
		snprintf(alt, sizeof alt, "%s: where '%s' of slot %s differs, per row", c->c->name, c->div.tensor,
			 c->div.slot);
		if (R->ch.heatmaps[idx[k]].written)
			report_chart_md(f, &R->ch.heatmaps[idx[k]], alt, "Heatmap", "gnuplot did not run");
	}
	free(idx);
}

/* A row per output of every slot; problems_only: only those not
 * byte-equal or outside the tolerance, under a line saying so, and
 * nothing when there is none. */
static void output_table(FILE *f, const struct summary_run *S, bool problems_only)
{
	static const char *const cols[] = { "case", "slot", "arm", "tensor", "bytes", "md5", "byte-equal",
					    "mismatches", "max abs err", "max err / tol", "ref ok", "skipped" };
	int n = 0;
	if (!problems_only)
		md_table_head(f, 12, cols, "llllrlcrrrcr");
	for (int i = 0; i < S->n_cases; i++) {
		const struct results_case *c = S->cases[i].c;
		for (int s = 0; s < c->n_slots; s++)
			for (int k = 0; k < c->slots[s].n_outputs; k++) {
				const struct results_output *o = &c->slots[s].outputs[k];
				if (problems_only && o->bit_exact && (o->ref_ok || !o->has_ref))
					continue;
				if (problems_only && !n++) {
					fputs("Outputs with a problem:\n\n", f);
					md_table_head(f, 12, cols, "llllrlcrrrcr");
				}
				md_printf(f, "| `%s` | %s | %c | `%s` | %lld | `%s`", c->name, c->slots[s].label,
					  c->slots[s].arm == 'a' ? 'A' : 'B', o->tensor, (long long)o->bytes, o->md5);
				fprintf(f, " | %s | %lld | %s | %s | %s | %lld |\n", o->bit_exact ? "yes" : "**no**",
					(long long)o->mismatches,
					o->has_ref ? MD_NUM(o->max_abs_err, 6) : "no reference",
					o->has_ref ? MD_NUM(o->max_err_ratio, 4) : "no reference",
					!o->has_ref ? "no reference" : o->ref_ok ? "yes" : "**no**",
					(long long)o->ref_skipped);
			}
	}
	if (n || !problems_only)
		fputc('\n', f);
}

/* compact: one row per case (its outputs, whether all are byte-equal and
 * within the tolerance, the largest error; the md5s are in the full
 * table), then the outputs with a problem. */
void report_details_accuracy(FILE *f, const struct report_ctx *R, bool compact)
{
	static const char *const brief[] = { "case", "outputs", "byte-equal", "within tol", "max err / tol" };
	const struct summary_run *S = R->S;
	divergence_section(f, R, compact);
	fputs("<details><summary><b>Accuracy</b>: ", f);
	if (!S->n_not_exact && !S->n_not_ref && !S->n_no_ref)
		fprintf(f, "all %d outputs byte-equal to the first A slot and within the float64 reference's "
			   "tolerance (largest error %s of it)", S->n_outputs, MD_NUM(S->max_err_ratio, 3));
	else if (!S->n_not_exact && !S->n_not_ref)
		fprintf(f, "all %d outputs byte-equal to the first A slot; %d with no reference (a declared site's: "
			   "nothing to check them against)", S->n_outputs, S->n_no_ref);
	else
		fprintf(f, "%d of %d outputs <b>not byte-equal</b>, %d outside the reference's tolerance, %d with no "
			   "reference", S->n_not_exact, S->n_outputs, S->n_not_ref, S->n_no_ref);
	fputs("</summary>\n\nEvery output of every slot: its md5, whether its bytes equal those of the bracket's first "
	      "A slot (and how many elements differ), and the largest error against the float64 reference computed "
	      "from the same bf16 inputs, absolute and relative to the tolerance of a correct float32 chain. Skipped: "
	      "elements outside float32's range, not compared.\n\n", f);
	if (compact)
		md_table_head(f, 5, brief, "lrccr");
	for (int i = 0; compact && i < S->n_cases; i++) {
		const struct summary_case *c = &S->cases[i];
		fputs("| ", f);
		md_case_name(f, c->c->name, c->own_arms, c->arm_a, c->arm_b);
		fprintf(f, " | %d | %s | %s | %s |\n", c->n_outputs, c->n_not_exact ? "**no**" : "yes",
			c->n_not_ref ? "**no**" : !c->has_ref ? "no reference" : "yes",
			isnan(c->max_err_ratio) && !c->has_ref ? "no reference" : MD_NUM(c->max_err_ratio, 3));
	}
	if (compact)
		fputc('\n', f);
	output_table(f, S, compact);
	fputs("</details>\n\n", f);
}

/* A reading's four cells: the clocks, the temperature, the reasons its
 * mask names (analysis's table of NVML's bits) and whether the summary
 * judges them throttling. */
static void put_clocks(FILE *f, const struct results_clocks *c)
{
	const char *sep = "";
	if (!c->valid) {
		fputs("n/a | n/a | n/a | n/a", f);
		return;
	}
	fprintf(f, "%d | %d | %d | ", c->sm_mhz, c->mem_mhz, c->temp_c);
	for (const struct summary_throttle_reason *t = summary_throttle_reasons; t->bit; t++)
		if (c->throttle_reasons & t->bit) {
			fprintf(f, "%s%s", sep, t->name);
			sep = ", ";
		}
	fputs(*sep ? "" : "none", f);
	if (summary_throttle_slows(c->throttle_reasons))
		fputs(" **(throttled)**", f);
}

/* compact: one row per case (its lowest and highest SM clock, hottest
 * reading and throttled slots) instead of one per slot. */
void report_details_clocks(FILE *f, const struct report_ctx *R, bool compact)
{
	static const char *const cols[] = { "case", "slot", "SM MHz before", "mem MHz before", "temp C before",
					    "clock events before", "SM MHz after", "mem MHz after", "temp C after",
					    "clock events after" };
	static const char *const brief[] = { "case", "SM MHz (lowest - highest)", "hottest C", "slots throttled" };
	const struct summary_run *S = R->S;
	const struct summary_clocks *all = &S->clocks;
	fputs("<details><summary><b>Clocks</b>: ", f);
	if (!all->readings) { /* the backend's name in <summary>: HTML */
		html_printf(f, "not recorded (backend %s has no NVML readings)</summary>\n\nNo clock readings in this "
			       "run.\n\n</details>\n\n", S->run->backend);
		return;
	}
	fprintf(f, "SM %d - %d MHz, up to %d C; %s%d slot%s throttled%s</summary>\n\nSM and memory clocks, temperature "
		   "and NVML clock-event reasons before and after each slot (default SM clock %d MHz).\n\n",
		all->sm_lo_mhz, all->sm_hi_mhz, all->temp_hi_c, all->throttled ? "<b>" : "", all->throttled,
		all->throttled == 1 ? "" : "s", all->throttled ? "</b>" : "", S->run->device.default_sm_mhz);
	md_table_head(f, compact ? 4 : 10, compact ? brief : cols, compact ? "lrrr" : "llrrrlrrrl");
	for (int i = 0; i < S->n_cases; i++) {
		const struct results_case *c = S->cases[i].c;
		const struct summary_clocks *sp = &S->cases[i].clocks;
		for (int s = 0; !compact && s < c->n_slots; s++) {
			md_printf(f, "| `%s` | %s | ", c->name, c->slots[s].label);
			put_clocks(f, &c->slots[s].clocks_before);
			fputs(" | ", f);
			put_clocks(f, &c->slots[s].clocks_after);
			fputs(" |\n", f);
		}
		if (!compact)
			continue;
		md_printf(f, "| `%s`", c->name);
		if (!sp->readings)
			fputs(" | n/a | n/a | n/a |\n", f);
		else
			fprintf(f, " | %d - %d | %d | %s%d%s |\n", sp->sm_lo_mhz, sp->sm_hi_mhz, sp->temp_hi_c,
				sp->throttled ? "**" : "", sp->throttled, sp->throttled ? "**" : "");
	}
	fputs("\n</details>\n\n", f);
}

const char *report_details_noise_words(const struct results_run *r)
{
	if (!strcmp(r->noise_measure, "median"))
		return "relative noise (half-width of the median's 95% interval over the median)";
	return "relative noise (stdev / mean)";
}

/* compact: one row per case (the slots' sample counts "20/20/20", the
 * stopping reasons that ended them, the largest noise and the discarded
 * samples) instead of one per slot. */
void report_details_sampling(FILE *f, const struct report_ctx *R, bool compact)
{
	static const char *const cols[] = { "case", "slot", "variant", "warm-up", "samples", "discarded",
					    "stopped by", "slot time (s)", "noise" };
	static const char *const brief[] = { "case", "samples per slot", "stopped by", "largest noise", "discarded" };
	const struct summary_run *S = R->S;
	fprintf(f, "<details><summary><b>Sampling</b>: %d to %d samples a slot over %d slots, %d discarded%s</summary>"
		   "\n\nSamples kept per slot and the rule that ended the slot (target_noise, interval_stalled, "
		   "noise_converged, max_samples or max_time); noise is the %s; discarded samples failed the throttle "
		   "probe.\n\n", S->min_slot_samples, S->max_slot_samples, S->n_slots, S->n_discarded,
		S->run->quick ? " (<b>quick run</b>)" : "", report_details_noise_words(S->run));
	md_table_head(f, compact ? 5 : 9, compact ? brief : cols, compact ? "lllrr" : "lllrrrlrr");
	for (int i = 0; i < S->n_cases; i++) {
		const struct results_case *c = S->cases[i].c;
		for (int k = 0; !compact && k < c->n_slots; k++) {
			const struct results_slot *s = &c->slots[k];
			md_printf(f, "| `%s` | %s | `%s` | %d | %d | %d | %s | %.3f | %s |\n", c->name, s->label,
				  s->variant, s->warmup, s->n_samples, s->n_discarded, s->stopping_reason, s->elapsed_s,
				  MD_SHARE(s->noise));
		}
		if (!compact)
			continue;
		md_printf(f, "| `%s` | ", c->name);
		for (int k = 0; k < c->n_slots; k++)
			fprintf(f, "%s%d", k ? "/" : "", c->slots[k].n_samples);
		fputs(" | ", f);
		for (int k = 0; k < c->n_slots; k++) {
			bool seen = false;
			for (int j = 0; j < k && !seen; j++)
				seen = !strcmp(c->slots[j].stopping_reason, c->slots[k].stopping_reason);
			if (!seen)
				md_printf(f, "%s%s", k ? ", " : "", c->slots[k].stopping_reason);
		}
		fprintf(f, " | %s | %d |\n", MD_SHARE(S->cases[i].max_noise), S->cases[i].n_discarded);
	}
	fputs("\n</details>\n\n", f);
}

/* The device, its profile, the run's settings, its user arms (plugins,
 * compiled binaries: what file ran, and its hash), then notes. */
void report_details_provenance(FILE *f, const struct report_ctx *R, bool compact)
{
	const struct results_run *r = R->S->run;
	const struct results_device *v = &r->device;
	const struct profile *p = R->o->profile;
	const struct printer_charts *res = R->out;
	char clean[1024], note[512], cmd[4096];
	(void)compact;
	html_printf(f, "<details><summary><b>Provenance</b>: %s, commit %s, run %lld started %s</summary>\n\n",
		    r->device.name, r->git_commit[0] ? r->git_commit : "unknown", (long long)r->id, r->started_at);
	md_printf(f, "- device: %s (backend %s", v->name, v->backend);
	if (v->uuid[0])
		md_printf(f, ", uuid `%s`", v->uuid);
	fputs(")\n", f);
	if (v->cc_major)
		fprintf(f, "- compute capability %d.%d, %d SMs, L2 %lld bytes, memory %lld bytes\n", v->cc_major,
			v->cc_minor, v->sm_count, (long long)v->l2_bytes, (long long)v->mem_bytes);
	md_printf(f, "- driver %s, runtime %s\n", v->driver_version[0] ? v->driver_version : "n/a",
		  v->runtime_version[0] ? v->runtime_version : "n/a");
	if (v->copy_gbps > 0)
		fprintf(f, "- measured copy bandwidth (read + write): %.1f GB/s\n", v->copy_gbps);
	if (p) {
		md_printf(f, "- device profile `%s` (`profiles/", p->name);
		fprintf(f, "%s`): noise floor %.2f%%, gate threshold %.2f%%", p->file, p->noise_floor * 100,
			p->gate_max_regression_pct);
		if (p->dram_gbps > 0)
			fprintf(f, ", copy bandwidth ceiling %.0f GB/s", p->dram_gbps);
		if (p->sm_count > 0)
			fprintf(f, ", %d SMs, L2 %lld bytes", p->sm_count, (long long)p->l2_bytes);
		fputc('\n', f);
	}
	if (R->o->profile_note)
		md_printf(f, "- profile note: %s\n", md_scrub_paths(R->o->profile_note, note, sizeof note));
	md_printf(f, "- run %lld, status %s, started %s, finished %s\n- abbench %s, commit `%s`, host %s\n",
		  (long long)r->id, r->status, r->started_at, r->finished_at, r->version[0] ? r->version : "n/a",
		  r->git_commit[0] ? r->git_commit : "unknown", r->host);
	md_printf(f, "- scenario `%s`, sha256 `%s`\n- scenario file: `%s`\n- command line: `%s`\n", r->scenario_name,
		  r->scenario_hash, md_scrub_paths(r->scenario_path[0] ? r->scenario_path : "n/a", clean, sizeof clean),
		  md_scrub_paths(r->command_line && *r->command_line ? r->command_line : "n/a", cmd, sizeof cmd));
	md_printf(f, "- bracket %s, arms A = `%s`, B = `%s`, L2 flush %s, launch gaps %s", r->bracket,
		  r->arm_a[0] ? r->arm_a : "per case", r->arm_b[0] ? r->arm_b : "per case", r->l2_flush ? "on" : "off",
		  r->launch_gaps[0] ? r->launch_gaps : "n/a");
	if (!strcmp(r->timing, "graph"))
		fputs(", timing graph (CUDA graph replays, launch overhead excluded)", f);
	md_printf(f, ", quick %s, fake timer %s, stopping noise %s, device index %d", r->quick ? "yes" : "no",
		  r->fake_timer ? "yes" : "no", r->noise_measure[0] ? r->noise_measure : "n/a", r->device_index);
	if (r->only_cases[0])
		md_printf(f, ", partial: only `%s`", r->only_cases);
	fputc('\n', f);
	for (int i = 0; i < r->n_arm_sources; i++) {
		const struct results_arm_source *a = &r->arm_sources[i];
		md_printf(f, "- arm %c `%s` is a %s: `%s`, sha256 `%s`, %s\n", a->arm == 'a' ? 'A' : 'B', a->name,
			  a->kind, md_scrub_paths(a->path, clean, sizeof clean), a->sha256, a->detail);
	}
	fprintf(f, "- %d sample%s discarded by the throttle probe\n", R->S->n_discarded,
		R->S->n_discarded == 1 ? "" : "s");
	if (r->notes[0])
		md_printf(f, "- %s\n", md_scrub_paths(r->notes, clean, sizeof clean));
	if (res->skipped || res->n_failed)
		md_printf(f, "- charts: %s%s\n", res->skipped ? "skipped: " : "some failed: ", res->note);
	fputs("\n</details>\n\n", f);
}
