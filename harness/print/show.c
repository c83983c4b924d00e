/*
 * show.c - prints a run's summary for a terminal: one table per case.
 * Every string from the database goes through term_printf (escape_term
 * for the cut sha256): a name cannot send the terminal a control sequence.
 */
#include "print/figure_fmt.h"

#include <math.h>
#include <string.h>

#include "print/escape.h"
#include "print/md.h"

static void show_header(const struct results_run *r, FILE *out)
{
	char sha[ESCAPE_POOL_LEN];
	term_printf(out, "run %lld  %s  scenario '%s'  status %s%s%s  commit %s\n", (long long)r->id, r->started_at,
		    r->scenario_name, r->status, r->label[0] ? "  label " : "", r->label,
		    r->git_commit[0] ? r->git_commit : "unknown");
	term_printf(out, "backend %s  device %s", r->backend, r->device.name);
	if (r->device.copy_gbps > 0)
		fprintf(out, "  copy %.0f GB/s", r->device.copy_gbps);
	if (r->device_index)
		fprintf(out, "  (cuda device %d)", r->device_index);
	term_printf(out, "\nbracket %s  a=%s b=%s  l2_flush %s  launch_gaps %s  noise %s%s\n", r->bracket,
		    r->arm_a[0] ? r->arm_a : "(per case)", r->arm_b[0] ? r->arm_b : "(per case)",
		    r->l2_flush ? "on" : "off", r->launch_gaps, r->noise_measure,
		    r->quick ? "  (quick: capped samples)" : "");
	if (!strcmp(r->timing, "graph"))
		fputs("timing graph: each sample a CUDA graph of flushed launches replayed, less its flushes, per launch "
		      "(no launch overhead)\n", out);
	if (r->only_cases[0])
		term_printf(out, "partial: only %s (run --only)\n", r->only_cases);
	if (strcmp(r->status, "ok") && strcmp(r->status, "running")) {
		char of[32] = "";
		if (r->cases_planned > 0)
			snprintf(of, sizeof of, " of %d", r->cases_planned);
		term_printf(out, "INCOMPLETE: the run is %s with %d%s cases finished; never gated (abbench run --resume "
			    "%lld measures the rest)\n", r->status, r->n_cases, of, (long long)r->id);
	}
	for (int i = 0; i < r->n_arm_sources; i++) {
		const struct results_arm_source *a = &r->arm_sources[i];
		term_printf(out, "arm %c=%s: %s '%s' sha256 %.16s... (%s)\n", a->arm, a->name, a->kind, a->path,
			    escape_term(a->sha256, sha, sizeof sha), a->detail); /* escaped, then cut */
	}
	if (r->n_set_runs) {
		term_printf(out, "run set '%s': %d shards, runs", r->run_set, r->n_set_runs);
		for (int i = 0; i < r->n_set_runs; i++)
			fprintf(out, "%s%lld", i ? ", " : " ", (long long)r->set_run_ids[i]);
		fputc('\n', out);
	} else if (r->run_set[0]) {
		term_printf(out, "shard %d/%d of run set '%s'\n", r->shard_index, r->shard_count, r->run_set);
	}
	if (!strcmp(r->status, "failed"))
		term_printf(out, "error: %s\n", r->error);
	if (r->notes[0])
		term_printf(out, "notes: %s\n", r->notes);
}

/* What belongs under a slot's row: each output that differs from A1 or
 * fails its reference, the samples the throttle probe dropped, a clock
 * that moved. */
static void show_slot_notes(FILE *out, const struct summary_slot *ss)
{
	const struct results_slot *sl = ss->slot;
	for (int o = 0; o < sl->n_outputs; o++) {
		const struct results_output *ro = &sl->outputs[o];
		if (!ro->has_ref && !ro->bit_exact)
			term_printf(out, "       %s: %lld elements differ from A1 (no reference)\n", ro->tensor,
				    (long long)ro->mismatches);
		else if (ro->has_ref && (!ro->bit_exact || !ro->ref_ok))
			term_printf(out, "       %s: %lld of %lld elements differ from A1; max |err| vs float64 %.3g "
				    "(%.2fx tolerance)%s\n", ro->tensor, (long long)ro->mismatches,
				    (long long)(ro->bytes / 2), ro->max_abs_err, ro->max_err_ratio,
				    ro->ref_ok ? "" : "  REFERENCE CHECK FAILED");
	}
	if (sl->n_discarded)
		fprintf(out, "       %d samples discarded by the throttle probe\n", sl->n_discarded);
	if (ss->clock_moved)
		fprintf(out, "       warning: SM clock %d -> %d MHz, throttle reasons 0x%llx\n", sl->clocks_before.sm_mhz,
			sl->clocks_after.sm_mhz, (unsigned long long)sl->clocks_after.throttle_reasons);
}

/* Bytes and bandwidth of both arms ("201.39 MB, 1234.5 GB/s (29.4% of
 * copy)"), what they are held against; then the copy floor ("18.05 us
 * (vec_cs, n=57, 3719 GB/s, 88.1% of copy); A 6.72x, B 1.01x of it (kernel
 * 1.01x)"): the copy of the case's bytes measured in the run, and each arm
 * as a multiple of it. */
static void show_bandwidth(const struct summary_run *S, const struct summary_case *s, FILE *out)
{
	char fl[32], fl2[32], pct[48];
	const char *why = s->c->copy_floor_detail;
	for (int k = 0; k < 2; k++) {
		const struct bandwidth_arm *a = k ? &s->b.bw : &s->a.bw;
		term_printf(out, "%s %s ", k ? "; b" : "  bandwidth: a", k ? s->arm_b : s->arm_a);
		if (isnan(a->bytes))
			fputs("n/a", out);
		else
			fprintf(out, "%s, %.1f GB/s%s", md_bytes(a->bytes, fl, sizeof fl), a->gbps,
				md_bw_pct(s, a, true, pct, sizeof pct));
	}
	if (s->cache_resident)
		fprintf(out, "; cache-resident: its %s fit the %s cache, no %% of DRAM copy",
			md_bytes((double)s->c->bytes_min, fl, sizeof fl),
			md_bytes((double)S->cache_bytes, fl2, sizeof fl2));
	else if (S->copy.source != BANDWIDTH_NONE)
		fprintf(out, "; copy %.0f GB/s (%s)", S->copy.gbps, bandwidth_source_str(S->copy.source));
	fputc('\n', out);
	if (isnan(s->copy_floor_ns)) { /* the detail says why, where the run knew (copy_floor_fits) */
		term_printf(out, "  copy floor: not measured%s%s%s\n", why[0] ? " (" : "", why, why[0] ? ")" : "");
		return;
	}
	term_printf(out, "  copy floor: %s (%s, n=%d, %.1f GB/s", md_time(s->copy_floor_ns, fl, sizeof fl),
		    s->c->copy_floor_method, s->c->copy_floor_samples, s->copy_floor_bw.gbps);
	if (s->cache_resident)
		fputs(", cache-resident", out);
	else if (!isnan(s->copy_floor_bw.pct_copy))
		fprintf(out, ", %.1f%% of copy", s->copy_floor_bw.pct_copy);
	fprintf(out, "); A %.2fx, B %.2fx of it", s->a_over_copy, s->b_over_copy);
	if (!isnan(s->b_kernel_over_copy))
		fprintf(out, " (kernel %.2fx)", s->b_kernel_over_copy);
	term_printf(out, "; methods: %s\n", why);
}

/* A figure of the table (analysis/figures.h) of case s, arm arm, as text. */
static char *fig(const char *key, const struct summary_run *S, const struct summary_case *s,
		 const struct summary_arm *arm, char *buf, size_t len)
{
	struct figure_at at = { S, s, arm, NULL };
	return figure_fmt_text_at(key, &at, buf, len);
}

/* Each arm's host time a call beside the GPU time it is held against, and
 * the launch-bound mark with both figures (issue 28), where measured. */
static void show_host(const struct summary_run *S, const struct summary_case *s, FILE *out)
{
	char ha[64], hb[64], ga[64], gb[64], lb[96];
	if (!s->a.host.n && !s->b.host.n)
		return;
	fprintf(out, "  host a call: a %s; b %s (GPU a call: a %s, b %s)\n",
		fig("arm_host_median_ns", S, s, &s->a, ha, sizeof ha),
		fig("arm_host_median_ns", S, s, &s->b, hb, sizeof hb), fig("arm_gpu_ns", S, s, &s->a, ga, sizeof ga),
		fig("arm_gpu_ns", S, s, &s->b, gb, sizeof gb));
	for (int k = 0; k < 2; k++) {
		const struct summary_arm *arm = k ? &s->b : &s->a;
		if (!arm->host.launch_bound)
			continue;
		term_printf(out, "  launch-bound: %s: %s a call: a model calling it eagerly waits on the host (the "
			    "verdict is the GPU's)\n", k ? s->arm_b : s->arm_a,
			    fig("arm_launch_bound", S, s, arm, lb, sizeof lb));
	}
}

/* Where a case that is not bit-exact differs (issue 29), in two lines:
 * how much, how far, from which stage, whether its calls agree; then
 * where, in the site's axes, and its sweep's batch invariance. */
static void show_divergence(const struct summary_run *S, const struct summary_case *s, FILE *out)
{
	char line[600], first[160], worst[160], rows[64], nearer[64];
	if (!diff_case_differs(s))
		return;
	diff_case_line(s, line, sizeof line);
	term_printf(out, "  %s\n", line);
	if (s->div.measured && s->div.tensor)
		fprintf(out, "     first at %s, largest ULP at %s; rows touched %s; B nearer the reference: %s\n",
			fig("diff_first_at", S, s, NULL, first, sizeof first),
			fig("diff_max_ulp_at", S, s, NULL, worst, sizeof worst),
			fig("diff_rows", S, s, NULL, rows, sizeof rows),
			fig("b_nearer_pct", S, s, NULL, nearer, sizeof nearer));
	diff_invariance(S, s, line, sizeof line);
	if (line[0])
		term_printf(out, "     %s\n", line);
}

/* A case: what it is, its slots' table, the arms pooled with the speedup,
 * exactness, the verdict and the bandwidth. */
static void show_case(const struct summary_run *S, const struct summary_case *s, FILE *out)
{
	const struct results_case *c = s->c;
	const struct results_run *r = S->run;
	char a[24], b[24], sp[64], v[96];
	term_printf(out, "\ncase %s  site %s  shape %s  %s  input %s  count %d/forward%s\n", c->name, c->site, c->shape,
		    c->dtype, c->input, c->count, c->affine ? "  affine" : "");
	if (s->own_arms)
		term_printf(out, "  arms: a=%s b=%s (its own; the run's: a=%s b=%s)\n", s->arm_a, s->arm_b,
			    r->arm_a[0] ? r->arm_a : "-", r->arm_b[0] ? r->arm_b : "-");
	figure_fmt_text_table(out, S, s, show_slot_notes);
	term_printf(out, "  %s / %s: a %s, b %s, speedup %s 95%% CI (n=%d/%d)", s->arm_a, s->arm_b,
		    fig("arm_median_ns", S, s, &s->a, a, sizeof a), fig("arm_median_ns", S, s, &s->b, b, sizeof b),
		    fig("speedup", S, s, &s->b, sp, sizeof sp), s->a.time.n, s->b.time.n);
	if (!isnan(s->drift))
		fprintf(out, ", drift A %.2f%%", 100.0 * s->drift);
	fputc('\n', out);
	show_host(S, s, out);
	fprintf(out, "  b byte-equal to a: %s%s\n", s->b_byte_equal ? "yes" : "NO",
		s->a_deterministic ? "" : "  (warning: arm a's own slots differ: nondeterministic outputs)");
	show_divergence(S, s, out);
	fprintf(out, "  verdict: %s\n", fig("verdict", S, s, &s->b, v, sizeof v));
	show_bandwidth(S, s, out);
}

enum ab_rc show_print(const struct printer_job *job, struct ab_diag *d)
{
	const struct summary_run *s = job->summary;
	FILE *out = job->f;
	char f[24], st[24], im[24];
	show_header(s->run, out);
	const char *no_host = s->n_cases ? md_host_unmeasured(s) : NULL;
	if (no_host)
		fprintf(out, "host time a call: not measured (%s)\n", no_host);
	for (int i = 0; i < s->n_cases; i++)
		show_case(s, &s->cases[i], out);
	if (s->n_cases)
		fprintf(out, "\nprojection ([model] steps %d, forwards/step %d): saving %s per forward, %s per step, "
			     "%s per image\n",
			s->run->steps, s->run->forwards_per_step, md_time(s->per_forward.saving_ns, f, sizeof f),
			md_time(s->per_step.saving_ns, st, sizeof st), md_time(s->per_image.saving_ns, im, sizeof im));
	return ferror(out) ? ab_fail(d, AB_ERR_IO, "cannot write the run") : AB_OK;
}

void show_summary_table(const struct summary_run *s, FILE *out)
{
	fputc('\n', out);
	figure_fmt_text_table(out, s, NULL, NULL);
	fputs("verdict: ", out);
	md_verdict_counts(out, s);
	if (!s->have_profile)
		fputs(" (no device profile: drift not judged)", out);
	fputc('\n', out);
}
