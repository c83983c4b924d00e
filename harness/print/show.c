/*
 * show.c - prints a stored run for a terminal: one table per case.
 */
#include "print/show.h"

#include <math.h>
#include <string.h>

#include "analysis/summary.h"

static void show_header(const struct results_run *r, FILE *out)
{
	fprintf(out, "run %lld  %s  scenario '%s'  status %s%s%s  commit %s\n", (long long)r->id, r->started_at,
		r->scenario_name, r->status, r->label[0] ? "  label " : "", r->label,
		r->git_commit[0] ? r->git_commit : "unknown");
	fprintf(out, "backend %s  device %s", r->backend, r->device.name);
	if (r->device.copy_gbps > 0)
		fprintf(out, "  copy %.0f GB/s", r->device.copy_gbps);
	fprintf(out, "\nbracket %s  a=%s b=%s  l2_flush %s  launch_gaps %s%s\n", r->bracket, r->arm_a, r->arm_b,
		r->l2_flush ? "on" : "off", r->launch_gaps, r->quick ? "  (quick: capped samples)" : "");
	if (r->only_cases[0])
		fprintf(out, "partial: only %s (run --only)\n", r->only_cases);
	if (!strcmp(r->status, "failed"))
		fprintf(out, "error: %s\n", r->error);
	if (r->notes[0])
		fprintf(out, "notes: %s\n", r->notes);
}

/* md5 of a slot: outputs joined by '+'. */
static void slot_md5(const struct results_slot *sl, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int o = 0; o < sl->n_outputs && used < len; o++)
		used += (size_t)snprintf(buf + used, len - used, "%s%.8s", o ? "+" : "", sl->outputs[o].md5);
}

static void slot_verdicts(const struct results_slot *sl, const char **exact, const char **ref)
{
	bool ex = true, ok = true;
	for (int o = 0; o < sl->n_outputs; o++) {
		ex = ex && sl->outputs[o].bit_exact;
		ok = ok && sl->outputs[o].ref_ok;
	}
	*exact = ex ? "yes" : "NO";
	*ref = ok ? "ok" : "FAIL";
}

static void show_slot(const struct results_slot *sl, FILE *out)
{
	char med[24], p10[24], p90[24], ks[24], md5[40];
	const char *exact, *ref;
	slot_md5(sl, md5, sizeof md5);
	slot_verdicts(sl, &exact, &ref);
	fprintf(out, "  %-4s %-3c %-9s %7d %12s %12s %12s %12s  %-16s %-17s %-5s %s\n", sl->label, sl->arm,
		sl->variant, sl->n_samples, summary_format_ns(sl->median_ns, med, sizeof med),
		summary_format_ns(sl->p10_ns, p10, sizeof p10), summary_format_ns(sl->p90_ns, p90, sizeof p90),
		summary_format_ns(sl->kernel_median_ns, ks, sizeof ks), sl->stopping_reason, md5, exact, ref);
	for (int o = 0; o < sl->n_outputs; o++) {
		const struct results_output *ro = &sl->outputs[o];
		if (!ro->bit_exact || !ro->ref_ok)
			fprintf(out, "       %s: %lld of %lld elements differ from A1; max |err| vs float64 %.3g "
				     "(%.2fx tolerance)%s\n",
				ro->tensor, (long long)ro->mismatches, (long long)(ro->bytes / 2), ro->max_abs_err,
				ro->max_err_ratio, ro->ref_ok ? "" : "  REFERENCE CHECK FAILED");
	}
	if (sl->n_discarded)
		fprintf(out, "       %d samples discarded by the throttle probe\n", sl->n_discarded);
	if (sl->clocks_before.valid && sl->clocks_after.valid &&
	    (sl->clocks_before.sm_mhz != sl->clocks_after.sm_mhz || sl->clocks_after.throttle_reasons))
		fprintf(out, "       warning: SM clock %d -> %d MHz, throttle reasons 0x%llx\n", sl->clocks_before.sm_mhz,
			sl->clocks_after.sm_mhz, (unsigned long long)sl->clocks_after.throttle_reasons);
}

/* "3.993x [3.980, 4.014]", "3.993x [n/a]" (too few samples), "n/a". */
static const char *show_speedup(const struct stats_interval *v, char *buf, size_t len)
{
	if (isnan(v->point))
		snprintf(buf, len, "n/a");
	else if (isnan(v->low))
		snprintf(buf, len, "%.3fx [n/a]", v->point);
	else
		snprintf(buf, len, "%.3fx [%.3f, %.3f]", v->point, v->low, v->high);
	return buf;
}

static int show_case(const struct results_case *c, const struct results_run *r, FILE *out)
{
	struct summary_case s;
	char a[24], b[24];
	if (!summary_case(c, &s))
		return -1;
	fprintf(out, "\ncase %s  site %s  shape %s  %s  input %s  count %d/forward%s\n", c->name, c->site, c->shape,
		c->dtype, c->input, c->count, c->affine ? "  affine" : "");
	fprintf(out, "  %-4s %-3s %-9s %7s %12s %12s %12s %12s  %-16s %-17s %-5s %s\n", "slot", "arm", "variant",
		"samples", "median", "p10", "p90", "kernel-sum", "stopped by", "md5", "exact", "ref");
	for (int i = 0; i < c->n_slots; i++)
		show_slot(&c->slots[i], out);
	char sp[64];
	fprintf(out, "  %s / %s: a %s, b %s, speedup %s 95%% CI (n=%d/%d)", r->arm_a, r->arm_b,
		summary_format_ns(s.median_a_ns, a, sizeof a), summary_format_ns(s.median_b_ns, b, sizeof b),
		show_speedup(&s.speedup, sp, sizeof sp), s.n_a, s.n_b);
	if (!isnan(s.drift))
		fprintf(out, ", drift A %.2f%%", 100.0 * s.drift);
	fprintf(out, "\n  b byte-equal to a: %s%s\n", s.b_byte_equal ? "yes" : "NO",
		s.a_deterministic ? "" : "  (warning: arm a's own slots differ: nondeterministic outputs)");
	return 0;
}

static int show_projection(const struct results_run *r, FILE *out)
{
	struct summary_projection p;
	char f[24], st[24], im[24];
	if (!summary_projection(r, &p))
		return -1;
	fprintf(out, "\nprojection ([model] steps %d, forwards/step %d): saving %s per forward, %s per step, %s per "
		     "image\n",
		r->steps, r->forwards_per_step, summary_format_ns(p.per_forward_ns, f, sizeof f),
		summary_format_ns(p.per_step_ns, st, sizeof st), summary_format_ns(p.per_image_ns, im, sizeof im));
	return 0;
}

int show_summary_table(const struct results_run *r, FILE *out)
{
	char ha[48], hb[48];
	snprintf(ha, sizeof ha, "A %s", r->arm_a);
	snprintf(hb, sizeof hb, "B %s", r->arm_b);
	fprintf(out, "\n%-24s %-14s %12s %12s  %-26s %-9s %s\n", "case", "shape", ha, hb, "speedup [95% CI]", "n A/B",
		"bit-exact");
	for (int i = 0; i < r->n_cases; i++) {
		const struct results_case *c = &r->cases[i];
		struct summary_case s;
		char a[24], b[24], sp[64], n[24];
		if (!summary_case(c, &s))
			return -1;
		snprintf(n, sizeof n, "%d/%d", s.n_a, s.n_b);
		fprintf(out, "%-24s %-14s %12s %12s  %-26s %-9s %s\n", c->name, c->shape,
			summary_format_ns(s.median_a_ns, a, sizeof a), summary_format_ns(s.median_b_ns, b, sizeof b),
			show_speedup(&s.speedup, sp, sizeof sp), n, s.b_byte_equal ? "yes" : "NO");
	}
	return 0;
}

int show_run(const struct results_run *r, FILE *out)
{
	show_header(r, out);
	for (int i = 0; i < r->n_cases; i++)
		if (show_case(&r->cases[i], r, out))
			return -1;
	if (r->n_cases)
		return show_projection(r, out);
	return 0;
}
