/*
 * report.c - the markdown report of one run (report.h), shaped for a pull
 * request. The charts are drawn first (print/report_charts.c) so that the
 * text knows which PNGs exist. Every figure comes from the run's summary
 * (analysis/summary.h) or is a stored slot figure, so report, show,
 * export, compare and gate agree to the digit. Each section is rendered
 * into memory, to be shortened when the whole passes REPORT_BUDGET.
 */
#include "print/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/certified.h"
#include "analysis/projection.h"
#include "print/escape.h"
#include "print/figure_fmt.h"
#include "print/md.h"

/* Below GitHub's 65,536-character comment limit, with room for a header
 * that CI may put around it. Bytes are counted: a character is at least
 * one. */
#define REPORT_BUDGET 60000

/* One line: the verdict, what it rests on, and which run it is. */
static void sec_verdict(FILE *f, const struct report_ctx *R, bool compact)
{
	const struct summary_run *S = R->S;
	const struct results_run *r = S->run;
	(void)compact;
	if (strcmp(r->status, "ok")) {
		md_printf(f, "**INCOMPLETE**: run %lld is `%s` with %d", (long long)r->id, r->status, S->n_cases);
		if (r->cases_planned > 0)
			fprintf(f, " of %d", r->cases_planned);
		fprintf(f, " cases finished; the figures below are those cases only, and it is never gated "
			   "(`abbench run --resume %lld` measures the rest).\n\n", (long long)r->id);
	}
	md_printf(f, "**%s**: B `%s` vs A `%s`: ", summary_verdict_str(S->verdict), r->arm_b[0] ? r->arm_b : "per case",
		  r->arm_a[0] ? r->arm_a : "per case");
	md_verdict_counts(f, S);
	bool drifted = S->n_verdict[SUMMARY_CASE_DRIFTED], few = S->n_verdict[SUMMARY_CASE_FEW_SAMPLES];
	if (drifted)
		fputs(" (drifted: the A arm moved beyond the device profile's noise floor within the bracket, see "
		      "A/B/A brackets", f);
	if (few)
		fprintf(f, "%stoo few samples: under %d an arm, no interval", drifted ? "; " : " (", SUMMARY_MIN_SAMPLES);
	if (drifted || few)
		fputc(')', f);
	if (r->quick)
		fputs("; **quick run** (`--quick`): do not quote", f);
	md_printf(f, ". Scenario `%s` on %s, run %lld", r->scenario_name, r->device.name, (long long)r->id);
	if (r->label[0])
		md_printf(f, " `%s`", r->label);
	md_printf(f, ", commit `%s`.\n\n", r->git_commit[0] ? r->git_commit : "unknown");
}

/* What the host columns are, or why there are none, and each
 * launch-bound arm with both figures (issue 28): at most 20, then a count. */
static void sum_host(FILE *f, const struct summary_run *S)
{
	const char *why = md_host_unmeasured(S);
	int n = 0;
	if (why) {
		md_printf(f, "Host time a call: not measured (%s).\n\n", why);
		return;
	}
	fputs("Host a call: an arm's host time of one call (entered to returned), median and p90, beside its GPU "
	      "time; an arm whose host time a call exceeds its GPU time is **launch-bound**: a model calling it "
	      "eagerly waits on the host, whatever its kernel's speed (the verdict stays the GPU's).\n\n", f);
	for (int i = 0; i < S->n_cases; i++)
		for (int k = 0; k < 2; k++) {
			const struct summary_case *c = &S->cases[i];
			struct figure_at at = { S, c, k ? &c->b : &c->a, NULL };
			char lb[96];
			if (!at.arm->host.launch_bound || n++ >= 20)
				continue;
			md_printf(f, "- `%s`: %s: ", c->c->name, k ? c->arm_b : c->arm_a);
			fprintf(f, "%s a call: a model calling it eagerly waits on the host\n",
				figure_fmt_text_at("arm_launch_bound", &at, lb, sizeof lb));
		}
	if (n > 20)
		fprintf(f, "- and %d more launch-bound arms (the Summary's launch-bound columns)\n", n - 20);
	if (n)
		fputc('\n', f);
}

/* "backend cuda, device NVIDIA H200, compute capability 9.0, ..." */
static void env_line(FILE *f, const struct cert_env *e)
{
	for (int i = 0; i < e->n; i++) {
		char key[32];
		snprintf(key, sizeof key, "%s", e->kv[i].key);
		for (char *p = key; *p; p++)
			*p = *p == '_' ? ' ' : *p;
		md_printf(f, "%s%s `%s`", i ? ", " : "", key, e->kv[i].value);
	}
}

/* The signatures the run proves byte-equal in every slot and the
 * environment they were proven on, beside the speedup, so that a reviewer
 * reads the scope of the bit-exact claim (analysis/certified.h; `abbench
 * certify` writes them as a certificate), then the cases not certified.
 * compact: the counts and the environment. */
static void sec_certified(FILE *f, const struct report_ctx *R, bool compact)
{
	static const char *const cols[] = { "site", "shapes", "dtype", "eps", "affine", "inputs", "arms (a / b)",
					    "cases" };
	const struct results_run *r = R->S->run;
	struct certified_scope sc;
	struct ab_diag d;
	fputs("## Certified\n\n", f);
	if (certified_scope(r, &sc, &d)) {
		md_printf(f, "_%s_\n\n", d.msg);
		return;
	}
	md_printf(f, "%d of %d cases are byte-equal in every slot of their bracket (%s): their signatures are proven "
		   "bit-exact on the environment below, and only there (`abbench certify` writes them as a "
		   "certificate; docs/CERTIFICATE.md).\n\n", sc.n_exact, sc.n, r->bracket);
	if (!compact && sc.n_exact) {
		md_table_head(f, 8, cols, "lllllllr");
		for (int i = 0; i < sc.n_groups; i++) {
			const struct results_case *c = sc.groups[i].k->c;
			md_printf(f, "| `%s` | %s | %s | %s | %s | %s | `%s` / `%s` | %d |\n", c->site,
				  sc.groups[i].shapes, c->dtype, sc.groups[i].k->eps, c->affine ? "yes" : "no",
				  c->input, c->arm_a[0] ? c->arm_a : r->arm_a, c->arm_b[0] ? c->arm_b : r->arm_b,
				  sc.groups[i].n);
		}
		fputc('\n', f);
	}
	if (sc.n_exact) { /* what all proven cases share, then what only some arms used */
		fputs("Proven on: ", f);
		env_line(f, &sc.common);
		if (sc.some.n) {
			fputs("; where an arm used them: ", f);
			env_line(f, &sc.some);
			if (sc.some_differ)
				fputs(" (not every case's: `abbench certify` names each one's)", f);
		}
		fputs(".\n\n", f);
	}
	if (!compact && sc.n_exact < sc.n) {
		int listed = 0, left = sc.n - sc.n_exact;
		fprintf(f, "Not certified (%d): ", left);
		for (int i = 0; i < sc.n && listed < 10; i++) /* the first 10, then a count */
			if (!sc.cases[i].exact)
				md_printf(f, "%s`%s`: %s", listed++ ? "; " : "", sc.cases[i].c->name, sc.cases[i].why);
		if (left > listed)
			fprintf(f, "; and %d more (the Accuracy section has each output)", left - listed);
		fputs(".\n\n", f);
	}
	certified_scope_free(&sc);
}

static void sec_summary(FILE *f, const struct report_ctx *R, bool compact)
{
	const struct figure_fmt_md_table t = { FIGURE_IN_REPORT, "case", false, compact };
	fputs("## Summary\n\n", f);
	figure_fmt_md_table(f, &t, R->S, NULL, 0);
	fprintf(f, "\nAll slots of an arm pooled; speedup = median(A) / median(B) with a %.0f%% bootstrap interval "
		   "(%d resamples, fixed seed; n/a under %d samples an arm), **bold** when the case is faster: the "
		   "interval above 1, the speedup above the A arm's drift, and that drift within the device profile's "
		   "noise floor (a drifted case is not trusted, whatever its speedup); bit-exact = every output of "
		   "every slot byte-equal to the first A slot's.\n\n",
		SUMMARY_CI_LEVEL * 100, SUMMARY_RESAMPLES, SUMMARY_MIN_SAMPLES);
	if (R->S->run->fake_timer)
		fputs("**Fake timer** (`ABBENCH_FAKE_TIMER=1`): these times are the CPU backend's cost model, not "
		      "measurements.\n\n", f);
	sum_host(f, R->S);
	report_chart_md(f, &R->ch.speedup, "speedup per case and device", "Chart", R->out->note);
	sec_certified(f, R, compact);
}

static void sec_bandwidth(FILE *f, const struct report_ctx *R, bool compact)
{
	const struct figure_fmt_md_table t = { FIGURE_IN_BANDWIDTH, "case", false, compact };
	const struct bandwidth_ref *c = &R->S->copy;
	fputs("## Bandwidth\n\nThe bytes each arm moves, as its site declares them (kernels/common/site.h): the "
	      "`eager` arm is credited with the eager chain's real traffic, every launch's reads and writes with the "
	      "intermediates; any other arm with the minimum, every input read once and every output written once. "
	      "GB/s = bytes / the arm's pooled median; % of copy = that over the device's copy bandwidth, ", f);
	if (c->source == BANDWIDTH_NONE)
		fputs("unknown (the run measured none and the device profile has no dram_gbps), so no percentage", f);
	else if (c->source == BANDWIDTH_MEASURED)
		fprintf(f, "%.0f GB/s (measured by this run's backend, read + write)", c->gbps);
	else
		md_printf(f, "%.0f GB/s (the device profile `%s`'s dram_gbps: this run measured none)", c->gbps,
			  c->profile);
	fputs(". The floor is the copy of the minimum bytes measured in this run (harness/backend/copy_floor.h); "
	      "B / floor is B's median over it. ", f);
	if (!compact) /* the compact section keeps its words for a 100-case report's rows (t194) */
		fputs("The copy is the best of the backend's streaming copies of exactly those bytes, on the case's "
		      "buffers, under the arms' protocol; B kernel / floor is B's kernel-time median over the copy's "
		      "(n/a without kernel records); a run stored before the floor was measured reads not measured. ",
		      f);
	if (R->S->cache_bytes > 0)
		fprintf(f, "A case whose minimum bytes fit the device's last-level cache (%s) is **cache-resident**: its "
			   "traffic need not reach DRAM, so it is held against no DRAM figure (no %% of copy; its floor "
			   "is the measured copy, as cache-resident as the arms).\n\n",
			MD_BYTES((double)R->S->cache_bytes));
	else
		fputs("The device's cache size is not known, so no case is called cache-resident.\n\n", f);
	figure_fmt_md_table(f, &t, R->S, NULL, 0);
	fputc('\n', f);
}

/* What the report calls its side-by-side runs, by what sets them apart
 * (analysis/peers.h, peers_axis): runs that differ in arms are never
 * called GPUs, and their md5 column compares against the reported run. */
static const struct {
	const char *section, *md5_head, *one;
} peer_words[] = {
	[PEERS_ARMS] = { "Per run: the arms differ", "md5 against run %lld", "run" },
	[PEERS_GPUS] = { "Per GPU", "md5 across GPUs", "GPU" },
	[PEERS_RUNS] = { "Per run", "md5 across runs", "run" },
};

static void sec_sweeps(FILE *f, const struct report_ctx *R, bool compact)
{
	if (!R->S->n_sweeps)
		return;
	fputs("## Sweeps\n\nEach swept case against its axis: the arms' medians with their 95% distribution-free "
	      "intervals, the speedup with its bootstrap interval, and GB/s (% of copy). The chart draws them on a "
	      "log2 axis: time per arm (band: the interval), speedup, and % of copy bandwidth", f);
	if (R->P->n_series > 1)
		fprintf(f, ", one colour per %s (the runs of section %s)", peer_words[R->P->axis].one,
			peer_words[R->P->axis].section);
	fputs(".\n\n", f);
	for (int g = 0; g < R->S->n_sweeps; g++) {
		const struct summary_sweep *w = &R->S->sweeps[g];
		const struct figure_fmt_md_table t = { FIGURE_IN_SWEEPS, w->axis, true, compact };
		char alt[160];
		snprintf(alt, sizeof alt, "%s over %s: time, speedup and %% of copy bandwidth", w->name, w->axis);
		md_printf(f, "### `%s` over %s\n\n", w->name, w->axis);
		figure_fmt_md_table(f, &t, R->S, w->idx, w->n);
		fputc('\n', f);
		if (g >= R->ch.n_sweep_charts) /* past REPORT_SWEEP_CHARTS_MAX sweeps the tables stand alone */
			fprintf(f, "_No chart: only the first %d sweeps get one._\n\n", REPORT_SWEEP_CHARTS_MAX);
		else if (compact)
			fprintf(f, "Chart: `%s.png`, beside this report.\n\n", R->ch.sweeps[g].stem);
		else
			report_chart_md(f, &R->ch.sweeps[g], alt, "Chart", R->out->note);
	}
}

/* A run's cell: the Summary's speedup cell and B's GB/s, " **2.001x**
 * [1.990, 2.010], B 2873.4 GB/s (68.4%) |" (or "(cache-resident)":
 * md_bw_pct). */
static void per_gpu_cell(FILE *f, const struct summary_run *S, const struct summary_case *s)
{
	const struct figure *sp = figure_find("speedup");
	struct figure_at at = { S, s, NULL, NULL };
	struct figure_value v;
	char pct[48];
	if (!s) {
		fputs(" n/a |", f);
		return;
	}
	figure_value_of(sp, &at, &v);
	fputc(' ', f);
	figure_fmt_md(f, sp, &v);
	if (isnan(s->b.bw.gbps))
		fputs(", B n/a", f);
	else
		fprintf(f, ", B %.1f GB/s%s", s->b.bw.gbps, md_bw_pct(s, &s->b.bw, false, pct, sizeof pct));
	for (int i = 0; i < s->n_slots; i++)
		if (s->slots[i].slot->arm == 'b' && s->slots[i].md5[0]) { /* B's output, its first 8 hex digits */
			fprintf(f, ", md5 `%.8s`", s->slots[i].md5);
			break;
		}
	fputs(" |", f);
}

/* The first case whose arms differ between the runs, -1 when none. */
static int first_differing(const struct peers_table *P)
{
	for (int i = 0; i < P->n_cases; i++)
		if (P->arms_differ[i])
			return i;
	return -1;
}

char *report_peers_series_name(const struct peers_table *P, int s, char *buf, size_t len)
{
	const struct results_run *r = P->series[s]->run;
	int i = first_differing(P); /* none unless the arms differ */
	const struct summary_case *c = i >= 0 ? peers_cell(P, i, s) : NULL;
	if (c)
		snprintf(buf, len, "run %lld: A %.31s, B %.31s (%.80s)", (long long)r->id, c->arm_a, c->arm_b,
			 r->device.name);
	else if (P->axis == PEERS_ARMS)
		snprintf(buf, len, "run %lld (%.80s)", (long long)r->id, r->device.name);
	else
		snprintf(buf, len, "%.120s (run %lld)", r->device.name, (long long)r->id);
	return buf;
}

/* The sentence that says what differs between the runs, none when they
 * are GPUs. */
static void peers_lead(FILE *f, const struct peers_table *P)
{
	int i = first_differing(P);
	if (P->axis == PEERS_RUNS)
		fputs("These runs ran the same arms on the same device: repeated runs, not GPUs. ", f);
	if (P->axis != PEERS_ARMS || i < 0)
		return;
	md_printf(f, "**These runs measured different arms** (in %d of %d cases; `%s`:", P->n_arms_differ, P->n_cases,
		  P->series[0]->cases[i].c->name);
	for (int s = 0; s < P->n_series; s++) {
		const struct summary_case *c = peers_cell(P, i, s);
		if (c)
			md_printf(f, "%s run %lld A `%s`, B `%s`", s ? ";" : "", (long long)P->series[s]->run->id,
				  c->arm_a, c->arm_b);
	}
	fputs("): the columns compare arms, not GPUs, and the md5s of arms with other arithmetic are not expected to "
	      "agree. ", f);
}

static void sec_per_gpu(FILE *f, const struct report_ctx *R, bool compact)
{
	char name[200], md5_head[48];
	(void)compact; /* one row per case already */
	if (R->P->n_series < 2)
		return;
	snprintf(md5_head, sizeof md5_head, peer_words[R->P->axis].md5_head, (long long)R->S->run->id);
	fprintf(f, "## %s\n\n", peer_words[R->P->axis].section);
	peers_lead(f, R->P);
	fprintf(f, "The scenario's runs side by side, %s. Each cell: the speedup with its 95%% bootstrap interval, "
		   "the B arm's GB/s (%% of that device's copy bandwidth) and the md5 of its first slot's output "
		   "(8 hex digits). %s: every output of every slot compared with run %lld's, slot by slot and tensor "
		   "by tensor.\n\n",
		R->o->peers_named ? "as named on the command line"
				  : "this one and the newest 'ok' run on each other device (quick and fake-timer runs "
				    "are left out unless named: `abbench report RUN RUN...`)",
		md5_head, (long long)R->S->run->id);
	for (int s = 0; s < R->P->n_series; s++) { /* each run's line */
		const struct summary_run *S = R->P->series[s];
		const struct results_run *r = S->run;
		md_printf(f, "- run %lld: %s (backend %s, commit `%s`, started %s)", (long long)r->id, r->device.name,
			  r->backend, r->git_commit[0] ? r->git_commit : "unknown", r->started_at);
		fprintf(f, "%s%s, copy bandwidth ", r->quick ? ", **quick run**" : "",
			r->fake_timer ? ", **fake timer**" : "");
		if (S->copy.source == BANDWIDTH_NONE)
			fputs("unknown\n", f);
		else
			fprintf(f, "%.0f GB/s (%s)\n", S->copy.gbps, bandwidth_source_str(S->copy.source));
	}
	fputs("\n| case |", f);
	for (int s = 0; s < R->P->n_series; s++)
		md_printf(f, " %s |", report_peers_series_name(R->P, s, name, sizeof name));
	fprintf(f, " %s |\n|---|", md5_head);
	for (int s = 0; s < R->P->n_series; s++)
		fputs("---:|", f);
	fputs(":---:|\n", f);
	for (int i = 0; i < R->S->n_cases; i++) {
		const struct peers_md5 *m = &R->P->md5[i];
		md_printf(f, "| `%s` |", R->S->cases[i].c->name);
		for (int s = 0; s < R->P->n_series; s++)
			per_gpu_cell(f, R->P->series[s], peers_cell(R->P, i, s));
		if (!m->compared) /* every output of every slot, in every peer that has it, against this run's */
			fputs(" n/a |\n", f);
		else if (!m->differ)
			fprintf(f, " yes (%d outputs, %d run%s) |\n", m->compared, m->runs, m->runs == 1 ? "" : "s");
		else
			fprintf(f, " **no** (%d of %d differ) |\n", m->differ, m->compared);
	}
	fputc('\n', f);
}

/* Per case, each slot's median, noise and count, then the drift and its
 * verdict (summary_case.drift_verdict). */
static void sec_bracket(FILE *f, const struct report_ctx *R, bool compact)
{
	static const char *const drift_cells[] = {
		[SUMMARY_DRIFT_ONE_SLOT] = " n/a | not judged (one A slot) |\n",
		[SUMMARY_DRIFT_NO_PROFILE] = " %.2f%% | not judged (no device profile) |\n",
		[SUMMARY_DRIFT_OK] = " %.2f%% | ok |\n",
		[SUMMARY_DRIFT_ENVIRONMENTAL] = " %.2f%% | **environmental drift** |\n",
	};
	const struct results_case *c0 = R->S->n_cases ? R->S->cases[0].c : NULL;
	int ns = c0 ? c0->n_slots : 0;
	(void)compact;
	fprintf(f, "## A/B/A brackets\n\nMedian of each slot, its %s and sample count. Drift = |A_k - A1| / A1, "
		   "the largest over the later A slots; ", report_details_noise_words(R->S->run));
	if (R->S->have_profile)
		md_printf(f, "above the noise floor of %.2f%% (profile `%s`) it is called environmental drift: the "
			  "device changed under the measurement, and the speedup of that case should not be "
			  "trusted.\n\n", R->S->profile.noise_floor * 100, R->S->profile.name);
	else
		fputs("no device profile was found, so drift is shown but not judged.\n\n", f);
	fputs("| case |", f);
	for (int s = 0; s < ns; s++)
		md_printf(f, " %s |", c0->slots[s].label);
	fputs(" drift | verdict |\n|---|", f);
	for (int s = 0; s < ns + 1; s++)
		fputs("---:|", f);
	fputs("---|\n", f);
	for (int i = 0; i < R->S->n_cases; i++) {
		const struct summary_case *sc = &R->S->cases[i];
		md_printf(f, "| `%s` |", sc->c->name);
		for (int s = 0; s < ns; s++) {
			const struct results_slot *sl = results_case_slot(sc->c, c0->slots[s].label);
			if (!sl || !sl->n_samples)
				fputs(" n/a |", f);
			else
				fprintf(f, " %s ±%s n=%d |", MD_TIME(sl->median_ns), MD_SHARE(sl->noise),
					sl->n_samples);
		}
		fprintf(f, drift_cells[sc->drift_verdict], sc->drift * 100);
	}
	fputc('\n', f);
}

static void sec_charts(FILE *f, const struct report_ctx *R, bool compact)
{
	int drawn = 0;
	fputs("## Charts per case\n\nPer case: box plots of every slot's samples (both arms on one y range), every "
	      "sample in bracket order with each slot's median dashed (each arm zoomed to its p1-p99: the A/B/A drift "
	      "picture), and the time per kernel, stacked per arm.\n\n", f);
	if (!R->ch.per_case) {
		fprintf(f, "Drawn for a run of at most %d cases; this one has %d, so its figures are in the tables and "
			   "%s.\n\n", REPORT_CASE_CHARTS_MAX, R->S->n_cases,
			R->S->n_sweeps ? "the sweep charts (section Sweeps)" : "the speedup chart");
		return;
	}
	for (int i = 0; i < R->S->n_cases; i++) {
		const struct report_case_charts *ch = &R->ch.cases[i];
		const struct report_chart *chart[] = { &ch->samples, &ch->series, &ch->kernels };
		static const char *const alt_of[] = { "samples per slot of %s", "samples of %s in time order",
						      "per-kernel time of %s" };
		if (!compact)
			md_printf(f, "### `%s`\n\n", R->S->cases[i].c->name);
		for (int k = 0; k < 3; k++) {
			char alt[160];
			snprintf(alt, sizeof alt, alt_of[k], R->S->cases[i].c->name);
			drawn += chart[k]->drawn;
			if (!compact)
				report_chart_md(f, chart[k], alt, "Chart", R->out->note);
		}
	}
	if (compact) /* a line in place of the charts */
		fprintf(f, "%d charts of %d cases beside this report: `samples-CASE.png`, `series-CASE.png` and "
			   "`kernels-CASE.png` (each with its `.dat` and `.gp`).\n\n", drawn, R->S->n_cases);
}

/* One arm's attribution: the window line, then a row per kernel. */
static void arm_table(FILE *f, const char *which, const char *variant, const struct summary_arm *ak)
{
	static const char *const cols[] = { "kernel", "family", "self-time per sample", "share of window",
					    "launches per sample" };
	md_printf(f, "**%s (`%s`)**", which, variant);
	if (!ak->time.n || !(ak->wall_ns > 0)) {
		fputs(": no samples.\n\n", f);
		return;
	}
	fprintf(f, ": window %s per sample (mean wall time, n=%d); kernels sum to %s, kernel sum / wall = "
		   "%.3f, so %.1f%% of the window is launch gaps and host overhead.",
		MD_TIME(ak->window_ns), ak->time.n, MD_TIME(ak->kernels_per_sample_ns), ak->kernel_share,
		100 * (1 - ak->kernel_share));
	if (ak->kernel_records_bad)
		fprintf(f, " %lld kernel records had invalid timestamps and were not summed.",
			(long long)ak->kernel_records_bad);
	fputs("\n\n", f);
	if (!ak->n_kernels) {
		fputs("No kernel records for this arm.\n\n", f);
		return;
	}
	md_table_head(f, 5, cols, "llrrr");
	for (int i = 0; i < ak->n_kernels; i++) /* the numbers through md_cell unchanged */
		md_printf(f, "| `%s` | %s | %s | %.2f%% | %.2f |\n", ak->kernels[i].name, ak->kernels[i].family,
			  MD_TIME(ak->kfig[i].per_sample_ns), 100 * ak->kfig[i].share, ak->kfig[i].launches_per_sample);
	fputc('\n', f);
}

static void sec_kernels(FILE *f, const struct report_ctx *R, bool compact)
{
	static const char *const cols[] = { "case", "A: window per sample, kernels' share", "B: window per sample, kernels' share" };
	fputs("## Kernel attribution\n\nPer arm, all its slots together. Self-time is the kernel's own "
	      "execution time (CUPTI activity records on CUDA, per-step clocks on the CPU) averaged per sample; "
	      "the window is the sample's wall time, so the share of all kernels falls short of 100% by the "
	      "launch gaps.\n\n", f);
	if (compact)
		md_table_head(f, 3, cols, "lrr");
	for (int i = 0; i < R->S->n_cases; i++) {
		const struct summary_case *s = &R->S->cases[i];
		if (compact) {
			fputs("| ", f);
			md_case_name(f, s->c->name, s->own_arms, s->arm_a, s->arm_b);
			fputs(" |", f);
			for (int k = 0; k < 2; k++) { /* " 16.20 us, kernels 99.5%, 3 kernels |" */
				const struct summary_arm *ak = k ? &s->b : &s->a;
				if (!ak->time.n || !(ak->wall_ns > 0))
					fputs(" n/a |", f);
				else
					fprintf(f, " %s, kernels %.1f%%, %d kernel%s |", MD_TIME(ak->window_ns),
						100 * ak->kernel_share, ak->n_kernels, ak->n_kernels == 1 ? "" : "s");
			}
			fputc('\n', f);
			continue;
		}
		md_printf(f, "### `%s`\n\n", s->c->name);
		arm_table(f, "A", s->arm_a, &s->a);
		arm_table(f, "B", s->arm_b, &s->b);
	}
	if (compact)
		fputc('\n', f);
}

static void sec_projection(FILE *f, const struct report_ctx *R, bool compact)
{
	static const char *const cols[] = { "case", "count per forward", "A per step", "B per step",
					    "saving per step" };
	const struct summary_run *S = R->S;
	fputs("## Model-level projection\n\n", f);
	if (!S->have_model) {
		fputs("The scenario has no [model] section (steps, forwards_per_step): no projection.\n\n", f);
		return;
	}
	fprintf(f, "From the scenario's [model] section: %d steps per image, %d forwards per step. Per step, each "
		   "case contributes count x forwards per step x its median; only the measured sites are counted, "
		   "the rest of the model is not.\n\n", S->run->steps, S->run->forwards_per_step);
	md_table_head(f, 5, cols, "lrrrr");
	for (int i = 0; !compact && i < S->n_cases; i++) {
		const struct summary_case *c = &S->cases[i];
		md_printf(f, "| `%s` | %d | %s | %s | %s |\n", c->c->name, c->c->count, MD_TIME(c->per_step.a_ns),
			  MD_TIME(c->per_step.b_ns), MD_TIME(c->per_step.saving_ns));
	}
	fprintf(f, "| **total of %d cases** | | %s | %s | **%s** |\n\n", S->n_cases, MD_TIME(S->per_step.a_ns),
		MD_TIME(S->per_step.b_ns), MD_TIME(S->per_step.saving_ns));
	fprintf(f, "Per image (%d steps): A %s, B %s, saving **%s** (%.1f%% of these sites' time).\n\n", S->run->steps,
		MD_TIME(S->per_image.a_ns), MD_TIME(S->per_image.b_ns), MD_TIME(S->per_image.saving_ns),
		isnan(S->saving_fraction) ? 0.0 : 100 * S->saving_fraction);
}

/* " | A | B | saving | per image |": the cells after a row's first. */
static void projection_cells(FILE *f, const struct summary_share *fw, const struct summary_share *im)
{
	fprintf(f, " | %s | %s | **%s** | %s |", MD_TIME(fw->a_ns), MD_TIME(fw->b_ns), MD_TIME(fw->saving_ns),
		MD_TIME(im->saving_ns));
}

static void projection_headline(FILE *f, const struct projection *p)
{
	static const char *const cols[] = { "", "A per forward", "B per forward", "saving per forward",
					    "saving per image", "B byte-equal to A", "projection off by" };
	md_table_head(f, 7, cols, "lrrrrll");
	fprintf(f, "| projected: %d site case%s of run %lld", p->n_site_cases, p->n_site_cases == 1 ? "" : "s",
		(long long)p->sites->run->id);
	projection_cells(f, &p->per_forward, &p->per_image);
	fprintf(f, " %d of %d cases |  |\n", p->sites->n_cases - p->sites->n_not_byte_equal, p->sites->n_cases);
	for (int i = 0; i < p->n_measured; i++) {
		const struct projection_measured *m = &p->m[i];
		double diff = p->per_forward.saving_ns - m->per_forward.saving_ns;
		fputs("| measured: ", f);
		md_case_name(f, m->c->c->name, m->c->own_arms, m->c->arm_a, m->c->arm_b); /* a case's own arms */
		fprintf(f, " x %d", m->c->c->count);
		projection_cells(f, &m->per_forward, &m->per_image);
		fprintf(f, " %s | ", m->exact ? "yes" : "**no**");
		if (isnan(m->error)) /* "+39.1% (projects 5.32 ms more than measured)" */
			fputs("n/a", f);
		else
			fprintf(f, "**%+.1f%%** (%s %s)", 100 * m->error, MD_TIME(fabs(diff)),
				diff >= 0 ? "more than measured" : "less than measured");
		fputs(" |\n", f);
	}
	fputc('\n', f);
}

static void family_row(FILE *f, const struct projection_family *r, bool bold)
{
	const char *q = bold ? "**" : "";
	fprintf(f, "| %s", q); /* bold: markup, not a cell's text */
	md_cell(f, r->name);
	fprintf(f, "%s | %s | %s | %s%s%s | %s | %s | %s%s%s | %s |\n", q, MD_TIME(r->context.a_ns),
		MD_TIME(r->context.b_ns), q, MD_TIME(r->context.saving_ns), q, MD_TIME(r->isolated.a_ns),
		MD_TIME(r->isolated.b_ns), q, MD_TIME(r->isolated.saving_ns), q,
		MD_TIME(r->isolated.saving_ns - r->context.saving_ns));
}

/* "Projection against measurement" (issue 22.3): the saving a site run
 * projects (each site in isolation, count x (A - B)) beside the saving
 * this run's block-level cases measured, by how much the projection is
 * off, and per measured case the kernel families in context against the
 * same families in isolation (analysis/projection.h), with their totals;
 * nothing without --projected-by. */
static void sec_measured(FILE *f, const struct report_ctx *R, bool compact)
{
	static const char *const cols[] = { "family", "in context A", "in context B", "saved in context",
					    "isolated A", "isolated B", "saved isolated", "isolated - context" };
	const struct projection *p = R->o->projection;
	if (!p)
		return;
	const struct results_run *s = p->sites->run, *r = p->measured->run;
	md_printf(f, "## Projection against measurement\n\nThe saving that run %lld (`%s`, %s, %s) projects from its "
		  "site cases, each measured in isolation (L2 %s between samples), count x (A - B) per forward, beside "
		  "the saving this run's cases measured in context (L2 %s). Per image: x %d forwards per step x %d "
		  "steps of this run's [model].", (long long)s->id, s->scenario_name, s->device.name, s->started_at,
		  s->l2_flush ? "flushed" : "not flushed", r->l2_flush ? "flushed" : "not flushed",
		  r->forwards_per_step, r->steps);
	if (strcmp(s->device.name, r->device.name))
		md_printf(f, " **The two runs measured different devices** (%s, %s): the comparison mixes them.",
			  s->device.name, r->device.name);
	if (s->fake_timer || r->fake_timer)
		fputs(" A fake-timer run is among them: its times are a cost model, not measurements.", f);
	if (p->n_site_unknown)
		fprintf(f, " %d site case%s lack a median of an arm: the projection is unknown.", p->n_site_unknown,
			p->n_site_unknown == 1 ? "" : "s");
	fputs("\n\n", f);
	projection_headline(f, p);
	fputs("Each family's part of an arm is its kernels' share of the arm's sample window times the arm's "
	      "median, so a column sums to count x the median; the gaps are what the kernels leave of it (launches, "
	      "host work, overlap). The isolated columns add up the site cases of the projecting run with their "
	      "counts; a family the sites do not touch (GEMM, attention) is only in context.\n\n", f);
	if (compact)
		fputs("_The per-family tables are in `report-full.md`._\n\n", f);
	for (int k = 0; !compact && k < p->n_measured; k++) { /* each total is count x the arm's median */
		const struct projection_measured *m = &p->m[k];
		md_printf(f, "### Where the difference goes: `%s` against run %lld's sites\n\n", m->c->c->name,
			  (long long)s->id);
		md_table_head(f, 8, cols, "lrrrrrrr");
		for (int i = 0; i <= m->n_families; i++) /* then the total, bold */
			family_row(f, i < m->n_families ? &m->families[i] : &m->total, i == m->n_families);
		fputc('\n', f);
		if (m->families_cut)
			fputs("More families than rows: the last row, `other`, holds the rest.\n\n", f);
	}
}

/* ---- assembling within the budget ---- */

/* The sections in report order, and the order in which they give way
 * when the report is over budget (the least needed first). */
enum { SEC_VERDICT, SEC_SUMMARY, SEC_BANDWIDTH, SEC_SWEEPS, SEC_PER_GPU, SEC_BRACKET, SEC_CHARTS, SEC_KERNELS,
       SEC_PROJECTION, SEC_MEASURED, SEC_ACCURACY, SEC_CLOCKS, SEC_SAMPLING, SEC_PROVENANCE, SEC_N };

static const struct {
	const char *title;
	report_section_fn *write;
} sections[SEC_N] = {
	{ "Verdict", sec_verdict }, { "Summary", sec_summary }, { "Bandwidth", sec_bandwidth },
	{ "Sweeps", sec_sweeps }, { "Per GPU", sec_per_gpu }, { "A/B/A brackets", sec_bracket },
	{ "Charts per case", sec_charts }, { "Kernel attribution", sec_kernels },
	{ "Model-level projection", sec_projection }, { "Projection against measurement", sec_measured },
	{ "Accuracy", report_details_accuracy }, { "Clocks", report_details_clocks },
	{ "Sampling", report_details_sampling }, { "Provenance", report_details_provenance },
};

static const int give_way[] = { SEC_SAMPLING,   SEC_ACCURACY, SEC_CLOCKS,  SEC_CHARTS, SEC_KERNELS,
				SEC_MEASURED,   SEC_PROJECTION, SEC_BRACKET, SEC_PER_GPU, SEC_BANDWIDTH, SEC_SWEEPS, SEC_PROVENANCE };

enum sec_form { FORM_FULL, FORM_COMPACT, FORM_POINTER };

/* Each section as rendered last: in full, compact, or a pointer to
 * report-full.md. */
struct rendered {
	char *buf[SEC_N];
	size_t len[SEC_N];
	size_t total;
};

static enum ab_rc render_section(const struct report_ctx *R, int i, enum sec_form form, struct rendered *x,
				 struct ab_diag *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory rendering the report");
	if (form == FORM_POINTER)
		fprintf(f, "## %s\n\n_Left out to keep this report within a pull-request comment: see "
			   "`report-full.md`._\n\n", sections[i].title);
	else
		sections[i].write(f, R, form == FORM_COMPACT);
	bool bad = ferror(f);
	if (fclose(f) || bad) {
		free(buf);
		return ab_fail(d, AB_ERR_NOMEM, "cannot render the report's %s", sections[i].title);
	}
	free(x->buf[i]);
	x->buf[i] = buf;
	x->total += len - x->len[i]; /* size_t's arithmetic wraps back when the section shrinks */
	x->len[i] = len;
	return AB_OK;
}

static enum ab_rc write_sections(const struct report_ctx *R, const char *name, const struct rendered *x, bool note,
				 struct ab_diag *d)
{
	struct md_file mf;
	char path[4096];
	if (snprintf(path, sizeof path, "%s/%s", R->job->dir, name) >= (int)sizeof path)
		return ab_fail(d, AB_ERR_USAGE, "output directory name too long");
	enum ab_rc rc = md_file_open(&mf, path, d);
	if (rc != AB_OK)
		return rc;
	for (int i = 0; i < SEC_N; i++)
		fwrite(x->buf[i], 1, x->len[i], mf.f);
	if (note)
		fprintf(mf.f, "_Shortened to stay within a pull-request comment (%d cases): every row of every section "
			      "is in `report-full.md`._\n", R->S->n_cases);
	return md_file_commit(&mf, d);
}

/* report.md within the budget: over it, every section in full goes to
 * report-full.md, then sections are rendered compact, then as a pointer to
 * it, in give_way order until the rest fits. With nothing shortened
 * report-full.md is removed (a stale one would mislead). */
static enum ab_rc write_markdown(const struct report_ctx *R, struct ab_diag *d)
{
	struct rendered x = { 0 };
	char full[4096];
	enum ab_rc rc = AB_OK;
	for (int i = 0; !rc && i < SEC_N; i++)
		rc = render_section(R, i, FORM_FULL, &x, d);
	bool over = !rc && x.total > REPORT_BUDGET;
	if (over)
		rc = write_sections(R, "report-full.md", &x, false, d);
	for (int form = FORM_COMPACT; over && form <= FORM_POINTER; form++)
		for (size_t k = 0; !rc && k < sizeof give_way / sizeof give_way[0] && x.total > REPORT_BUDGET; k++)
			rc = render_section(R, give_way[k], (enum sec_form)form, &x, d);
	if (!rc && !over && snprintf(full, sizeof full, "%s/report-full.md", R->job->dir) < (int)sizeof full &&
	    unlink(full) != 0 && errno != ENOENT)
		rc = ab_fail(d, AB_ERR_IO, "cannot remove the stale '%s': %s", full, strerror(errno));
	if (!rc)
		rc = write_sections(R, "report.md", &x, over, d);
	for (int i = 0; i < SEC_N; i++)
		free(x.buf[i]);
	return rc;
}

enum ab_rc report_write(const struct printer_job *job, struct ab_diag *d)
{
	const struct peers_table *P = job->report->peers;
	const struct summary_run *S = P->series[0];
	const struct results_run *run = S->run;
	struct report_ctx R = { .S = S, .job = job, .o = job->report, .P = P, .out = job->charts };
	memset(job->charts, 0, sizeof *job->charts);
	if (strcmp(run->status, "ok") && !run->n_cases) /* an unfinished run with cases is reported, marked */
		return ab_fail(d, AB_ERR_DATA, "run %lld is '%s', not 'ok': nothing to report", (long long)run->id,
			       run->status);
	enum ab_rc rc = md_mkdirs(job->dir, d);
	if (rc == AB_OK)
		rc = report_charts_write(job, &R.ch, d);
	if (rc == AB_OK)
		rc = write_markdown(&R, d);
	report_charts_free(&R.ch);
	return rc;
}

void report_default_dir_set(const char *run_set, char *buf, size_t len)
{
	char stem[160];
	snprintf(buf, len, "reports/set-%s", escape_stem(run_set, stem, sizeof stem));
}

void report_default_dir_runs(const int64_t *ids, int n, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, n > 1 ? "reports/runs" : "reports/run");
	for (int i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "-%lld", (long long)ids[i]);
}
