/*
 * test_report.c - the markdown report and its charts, from a run built by
 * hand with a deterministic fake timer.
 *
 * The samples of a slot are base x {1.0, 1.1, 0.9, 1.05, 0.95}: median
 * = base, mean = base, sum = 5 base. With A at 100 us and B at 50 us every
 * expected number below follows by hand:
 *   - A1, B, A2 medians 100.00 / 50.00 / 100.00 us (units scale as show's),
 *     speedup 2.000x with no interval (5 samples of B: under the 10 an
 *     interval needs), so not bold, and the verdict INCONCLUSIVE;
 *   - kernels: the eager "LayerNorm" kernel totals 0.5 of the slot's wall
 *     time, the elementwise one 0.3: per sample 50.00 and 30.00 us,
 *     shares 50.00% and 30.00%, kernel sum / wall 0.800, gaps 20.0%;
 *   - case "img|txt" has A2 at 110 us: drift 10.00% over a 1% noise floor,
 *     and its pooled A arm (A1 and A2, ten samples) has the median
 *     (104.5 + 105) / 2 = 104.75 us;
 *   - projection with count 3, 2 forwards per step, 30 steps:
 *     ln_modulate A 3 x 2 x 100 = 600.00 us per step, B 300.00;
 *     img|txt A 3 x 2 x 104.75 = 628.50, B 300.00, saving 328.50;
 *     totals 1.228 ms / 600.00 / 628.50 us; per image x 30: 36.855 ms,
 *     18.000 ms, saving 18.855 ms = 628.5 / 1228.5 = 51.2%.
 * A run of 10 samples a slot has intervals: a 2x speedup is bold, a 0.5%
 * one (inside its interval) and a 3% one inside a 5% A drift are not.
 * Sweeps and bandwidth: three cases ln[T=64], ln[T=16], ln[T=32] of one
 * sweep (out of order), B moving 50000 bytes in its 50 us median: 1.0 GB/s,
 * 25.0% of a measured 4 GB/s copy bandwidth; the floor is the copy
 * measured in the run: 40 us for ln[T=32] (B / floor 1.25x), not measured
 * for the others. A peer run on another device, B at 100 us: 0.5 GB/s.
 * PNG checks need gnuplot and are skipped (visibly, cmocka "SKIPPED")
 * without it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "print/plot.h"
#include "print/report.h"
#include "fixtures.h"

static const double PATTERN[5] = { 1.0, 1.1, 0.9, 1.05, 0.95 };

static void add_kernel(struct results_slot *s, const char *name, const char *family, double share, double wall)
{
	struct results_kernel *k = &s->kernels[s->n_kernels++];
	snprintf(k->name, sizeof k->name, "%s", name);
	snprintf(k->family, sizeof k->family, "%s", family);
	k->launches = s->n_samples;
	k->total_ns = share * wall;
	k->min_ns = k->max_ns = k->total_ns / s->n_samples;
}

static void make_slot(struct results_slot *s, const char *label, char arm, double base_ns)
{
	double wall = 0;
	snprintf(s->label, sizeof s->label, "%s", label);
	s->arm = arm;
	snprintf(s->variant, sizeof s->variant, "%s", arm == 'a' ? "eager" : "fused");
	s->warmup = 2;
	s->n_samples = 5;
	s->samples_ns = calloc(5, sizeof *s->samples_ns);
	s->kernel_ns = calloc(5, sizeof *s->kernel_ns);
	for (int i = 0; i < 5; i++)
		wall += s->samples_ns[i] = base_ns * PATTERN[i];
	s->median_ns = base_ns; /* median of the pattern is 1.0 */
	s->noise = 0.079;
	snprintf(s->stopping_reason, sizeof s->stopping_reason, "target_noise");
	s->kernels = calloc(2, sizeof *s->kernels);
	if (arm == 'a') {
		add_kernel(s, "vectorized_layer_norm_kernel<c10::BFloat16, float, false>", "LayerNorm", 0.5, wall);
		add_kernel(s, "elementwise_kernel<128, 4, a|b>", "elementwise", 0.3, wall);
	} else
		add_kernel(s, "fused_ln_modulate", "fused", 0.9, wall);
	s->n_outputs = 1;
	snprintf(s->outputs[0].tensor, sizeof s->outputs[0].tensor, "out");
	snprintf(s->outputs[0].md5, sizeof s->outputs[0].md5, "c532829f551b8d65bc9093f23ac32020");
	s->outputs[0].bytes = 8192;
	s->outputs[0].bit_exact = true;
	s->outputs[0].max_abs_err = 0.03125;
	s->outputs[0].max_err_ratio = 0.5;
	s->outputs[0].has_ref = s->outputs[0].ref_ok = true;
}

static void make_case(struct results_case *c, const char *name, double a2_ns)
{
	snprintf(c->name, sizeof c->name, "%s", name);
	snprintf(c->shape, sizeof c->shape, "1x16x256");
	c->count = 3;
	c->n_slots = 3;
	c->slots = calloc(3, sizeof *c->slots);
	make_slot(&c->slots[0], "A1", 'a', 100e3);
	make_slot(&c->slots[1], "B", 'b', 50e3);
	make_slot(&c->slots[2], "A2", 'a', a2_ns);
}

static struct results_run *make_run(int64_t id, const char *device)
{
	struct results_run *r = calloc(1, sizeof *r);
	r->id = id;
	snprintf(r->status, sizeof r->status, "ok");
	snprintf(r->started_at, sizeof r->started_at, "2026-11-29T12:00:00Z");
	snprintf(r->scenario_name, sizeof r->scenario_name, "smoke");
	snprintf(r->scenario_path, sizeof r->scenario_path, "/home/someone/abbench/scenarios/smoke.ini");
	snprintf(r->scenario_hash, sizeof r->scenario_hash, "%064d", 7);
	r->command_line = strdup("/opt/x/build/abbench run /home/someone/s.ini --db /tmp/secret/ab.db");
	snprintf(r->git_commit, sizeof r->git_commit, "abc123def456");
	snprintf(r->backend, sizeof r->backend, "cuda");
	snprintf(r->device.name, sizeof r->device.name, "%s", device);
	snprintf(r->device.backend, sizeof r->device.backend, "cuda");
	snprintf(r->bracket, sizeof r->bracket, "ABA");
	snprintf(r->arm_a, sizeof r->arm_a, "eager");
	snprintf(r->arm_b, sizeof r->arm_b, "fused");
	snprintf(r->notes, sizeof r->notes, "cupti overhead note from /usr/local/cuda/lib64");
	r->steps = 30;
	r->forwards_per_step = 2;
	r->n_cases = 2;
	r->cases = calloc(2, sizeof *r->cases);
	make_case(&r->cases[0], "ln_modulate", 100e3);
	make_case(&r->cases[1], "img|txt", 110e3);
	struct results_clocks *c = &r->cases[0].slots[1].clocks_after;
	c->valid = true;
	c->sm_mhz = 1755;
	c->mem_mhz = 2619;
	c->temp_c = 61;
	c->throttle_reasons = 0x4; /* sw power cap */
	return r;
}

static struct profile PROFILE = { .file = "h200.ini", .name = "H200", .noise_floor = 0.01,
				       .gate_max_regression_pct = 5 };

static char dir[64];

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/test_report.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd);
}

/* The whole of DIR/name, malloc'd. */
static char *slurp(const char *name)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open '%s'", path);
	char *buf = calloc(1, 1 << 20);
	size_t n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static bool exists(const char *name)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static void contains(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("report lacks \"%s\" in:\n%.700s", want, text);
}

/* What a test asks of the report: as the command would pass it. */
struct report_args {
	const char *out_dir;
	const struct profile *profile;          /* NULL: none */
	const char *profile_note;
	const struct summary_run *const *peers; /* summarised by the test */
	int n_peers;
	bool no_plots;
	bool peers_named;
};

/* report_write on the run's summary (with the profile, as the command
 * computes it) and its peers' table. */
static enum ab_rc report_run(const struct results_run *r, const struct report_args *o, struct printer_charts *out,
			     struct ab_diag *d)
{
	struct summary_run s;
	struct summary_profile sp = { "", 0, 0 };
	const struct summary_run *series[8];
	struct peers_table peers;
	if (o->profile) {
		snprintf(sp.name, sizeof sp.name, "%s", o->profile->name);
		sp.dram_gbps = o->profile->dram_gbps;
		sp.noise_floor = o->profile->noise_floor;
	}
	if (summary_compute_profile(r, SUMMARY_FULL, o->profile ? &sp : NULL, &s, d))
		fail_msg("summary: %s", d->msg);
	series[0] = &s;
	for (int i = 0; i < o->n_peers; i++)
		series[i + 1] = o->peers[i];
	if (peers_table_build(series, 1 + o->n_peers, &peers, d))
		fail_msg("peers: %s", d->msg);
	struct printer_report rep = { &peers, o->profile, o->profile_note, o->peers_named, NULL };
	struct printer_job job = { .dir = o->out_dir, .no_plots = o->no_plots, .charts = out, .report = &rep };
	enum ab_rc rc = report_write(&job, d);
	peers_table_free(&peers);
	summary_free(&s);
	return rc;
}

static void write_report(const struct results_run *r, bool no_plots, struct printer_charts *out)
{
	struct report_args o = { dir, &PROFILE, NULL, NULL, 0, no_plots, false };
	struct ab_diag d = { "" };
	if (report_run(r, &o, out, &d) != AB_OK)
		fail_msg("report_write: %s", d.msg);
}

static void test_sections_and_numbers(void **state)
{
	(void)state;
	struct results_run *r = make_run(12, "NVIDIA H200");
	struct printer_charts out;
	write_report(r, true, &out);
	assert_true(out.skipped);
	char *md = slurp("report.md");
	static const char *const sections[] = { "## Summary", "## A/B/A brackets", "## Charts per case",
						"## Kernel attribution", "<details><summary><b>Accuracy</b>: ",
						"## Model-level projection", "<details><summary><b>Clocks</b>: ",
						"<details><summary><b>Sampling</b>: ", "<details><summary><b>Provenance</b>: " };
	for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
		contains(md, sections[i]);
	/* the verdict first, then the summary table */
	assert_true(!strncmp(md, "**INCONCLUSIVE**: ", strlen("**INCONCLUSIVE**: ")));
	contains(md, "**INCONCLUSIVE**: B `fused` vs A `eager`: faster in 0 of 2 cases, drifted 1 (not trusted), too few "
		     "samples 1 (not trusted), slower 0, no clear change 0; bit-exact in 2 of 2 (drifted: the A arm moved "
		     "beyond the device profile's noise floor within the bracket, see A/B/A brackets; too few samples: "
		     "under 10 an arm, no interval). Scenario `smoke` on NVIDIA H200, run 12, commit `abc123def456`."
		     "\n\n## Summary\n\n| case |");
	/* summary: medians with spread and count in scaled units, no interval
	 * on 5 samples, so not bold */
	contains(md, "| `ln_modulate` | 1x16x256 | 100.00 us [90.00, 110.00] n=10 | 50.00 us [46.00, 54.00] n=5 | "
		     "2.000x [n/a] | yes | too few samples (not trusted) |");
	/* A/B/A and drift */
	contains(md, "| `ln_modulate` | 100.00 us ±7.90% n=5 | 50.00 us ±7.90% n=5 | 100.00 us ±7.90% n=5 | 0.00% | ok |");
	contains(md, "| `img\\|txt` | 100.00 us ±7.90% n=5 | 50.00 us ±7.90% n=5 | 110.00 us ±7.90% n=5 | 10.00% | "
		     "**environmental drift** |");
	/* kernel attribution */
	contains(md, "window 100.00 us per sample (mean wall time, n=10); kernels sum to 80.00 us, kernel sum / "
		     "wall = 0.800, so 20.0% of the window is launch gaps and host overhead.");
	contains(md, "| `vectorized_layer_norm_kernel<c10::BFloat16, float, false>` | LayerNorm | 50.00 us | 50.00% | 1.00 |");
	contains(md, "| `elementwise_kernel<128, 4, a\\|b>` | elementwise | 30.00 us | 30.00% | 1.00 |");
	/* accuracy */
	contains(md, "| `ln_modulate` | B | B | `out` | 8192 | `c532829f551b8d65bc9093f23ac32020` | yes | 0 | 0.03125 | 0.5 | yes | 0 |");
	/* projection */
	contains(md, "| `ln_modulate` | 3 | 600.00 us | 300.00 us | 300.00 us |");
	contains(md, "| `img\\|txt` | 3 | 628.50 us | 300.00 us | 328.50 us |");
	contains(md, "| **total of 2 cases** | | 1.228 ms | 600.00 us | **628.50 us** |");
	contains(md, "Per image (30 steps): A 36.855 ms, B 18.000 ms, saving **18.855 ms** (51.2% of these sites' time).");
	/* provenance, scrubbed of this machine's paths */
	contains(md, "- command line: `abbench run s.ini --db ab.db`");
	contains(md, "- scenario file: `smoke.ini`");
	contains(md, "| 1755 | 2619 | 61 | sw power cap **(throttled)** |");
	contains(md, "- device profile `H200` (`profiles/h200.ini`): noise floor 1.00%, gate threshold 5.00%");
	assert_null(strstr(md, "/home/"));
	assert_null(strstr(md, "/tmp/"));
	assert_null(strstr(md, "/opt/"));
	assert_null(strstr(md, "/usr/"));
	free(md);
	results_run_free(r);
}

/* Bold marks an improvement beyond noise, nothing else: 10 samples a
 * slot (fake_run's +-1% pattern) give intervals; "fast" (2x) is bold,
 * "same" (B = A: the interval holds 1) is not, and "drift" (A2 10% above
 * A1, B 7% under the pooled A) is not: 7% is within the A arm's drift. */
static void test_bold_only_beyond_noise(void **state)
{
	(void)state;
	const struct fake_case fc[] = { { "fast", 100e3, 50e3, 10, true }, { "same", 100e3, 100e3, 10, true },
					{ "drift", 100e3, 98e3, 10, true } };
	struct results_run *r = fake_run(3, "smoke", "NVIDIA H200", fc, 3);
	struct results_slot *a2 = &r->cases[2].slots[2];
	for (int i = 0; i < a2->n_samples; i++)
		a2->samples_ns[i] = fake_sample(110e3, i);
	fake_slot_stats(a2);
	struct printer_charts out;
	write_report(r, true, &out);
	char *md = slurp("report.md");
	contains(md, "| `fast` | 1x16x256 | 100.10 us [");
	contains(md, " | **2.000x** [1.984, 2.018] | yes | faster |");
	contains(md, "| `same` | 1x16x256 | 100.10 us [99.18, 100.82] n=20 | 100.10 us [99.18, 100.82] n=10 | 1.000x [");
	/* 1.070x with an interval above 1, but within the 10% drift of its A arm */
	contains(md, "| 1.070x [1.021, 1.122] | yes | drifted 10.00% (not trusted) |");
	assert_null(strstr(md, "| **1.000x**"));
	char *drift = strstr(md, "| `drift` | 1x16x256 |");
	assert_non_null(drift);
	assert_null(strstr(drift, "**1.0")); /* no bold speedup on its row */
	contains(md, "10.00% | **environmental drift** |");
	/* one faster, one no clear change, the drifted one not weighed: partly faster, and the headline counts it */
	contains(md, "**PARTLY FASTER**: B `fused` vs A `eager`: faster in 1 of 3 cases (speedup 2.00x), drifted 1 (not "
		     "trusted), slower 0, no clear change 1; bit-exact in 3 of 3");
	free(md);
	results_run_free(r);
}

static void test_charts_written_with_relative_data(void **state)
{
	(void)state;
	struct results_run *r = make_run(12, "NVIDIA H200");
	struct printer_charts out;
	write_report(r, true, &out);
	static const char *const stems[] = { "speedup", "kernels-ln_modulate", "kernels-img_txt", "samples-ln_modulate",
					     "samples-img_txt", "series-ln_modulate", "series-img_txt" };
	for (size_t i = 0; i < sizeof stems / sizeof stems[0]; i++) {
		char dat[96], gp[96], want[128];
		snprintf(dat, sizeof dat, "%s.dat", stems[i]);
		snprintf(gp, sizeof gp, "%s.gp", stems[i]);
		assert_true(exists(dat));
		char *script = slurp(gp);
		snprintf(want, sizeof want, "plot \"%s.dat\"", stems[i]);
		contains(script, want);
		assert_null(strstr(script, dir)); /* no absolute path */
		free(script);
	}
	/* kernels data: the eager bar 50 + 30 + 20 us of gaps, no fused kernel;
	 * the fused bar 45 + 5 us of gaps, no eager kernel */
	char *k = slurp("kernels-ln_modulate.dat");
	contains(k, "\"A (eager)\" 50 30 0 20\n");
	contains(k, "\"B (fused)\" 0 0 45 5\n");
	free(k);
	char *s = slurp("samples-img_txt.dat");
	contains(s, "# block 2: A2\n1 110\n2 121\n3 99\n4 115.5\n5 104.5\n");
	free(s);
	/* the time series: A1 at x 1-5, B at 6-10, A2 at 11-15, and each slot's
	 * median as a segment over its x range */
	s = slurp("series-img_txt.dat");
	contains(s, "# block 1: B fused\n6 50\n7 55\n8 45\n9 52.5\n10 47.5\n");
	contains(s, "# block 5: median of A2 eager\n11 110\n15 110\n");
	free(s);
	/* the stacked kernels are labelled "family: operation" */
	s = slurp("kernels-ln_modulate.dat");
	contains(s, "2=LayerNorm: layer_norm 3=elementwise 4=fused: ln_modulate 5=launch gaps and host overhead");
	free(s);
	/* boxes: a panel per arm, ticked with the slot and its variant */
	s = slurp("samples-ln_modulate.gp");
	contains(s, "set multiplot layout 1,2");
	contains(s, "set xtics ('A1 eager' 1, 'A2 eager' 2)");
	contains(s, "set title 'B (fused)'");
	free(s);
	char *md = slurp("report.md");
	contains(md, "_Chart `speedup.png` not drawn: charts turned off. Its data and script are `speedup.dat` and "
		     "`speedup.gp`._");
	free(md);
	results_run_free(r);
}

/* A run of one sweep over T, given out of order; B at b_ns. */
static struct results_run *make_sweep_run(int64_t id, const char *device, double b_ns)
{
	static const int64_t t[3] = { 64, 16, 32 };
	struct results_run *r = make_run(id, device);
	for (int i = 0; i < r->n_cases; i++) {
		for (int k = 0; k < r->cases[i].n_slots; k++)
			results_slot_release(&r->cases[i].slots[k]);
		free(r->cases[i].slots);
	}
	free(r->cases);
	r->n_cases = 3;
	r->cases = calloc(3, sizeof *r->cases);
	r->device.copy_gbps = 4;
	for (int i = 0; i < 3; i++) {
		struct results_case *c = &r->cases[i];
		char name[32];
		snprintf(name, sizeof name, "ln[T=%lld]", (long long)t[i]);
		make_case(c, name, 100e3);
		results_slot_release(&c->slots[1]);
		make_slot(&c->slots[1], "B", 'b', b_ns);
		snprintf(c->sweep, sizeof c->sweep, "ln");
		snprintf(c->axis, sizeof c->axis, "T");
		c->axis_value = t[i];
		c->bytes_min = c->bytes_b = 50000;
		c->bytes_a = 150000;
	}
	return r;
}

static void test_sweeps_bandwidth_per_gpu(void **state)
{
	(void)state;
	struct results_run *r = make_sweep_run(12, "NVIDIA H200", 50e3), *peer = make_sweep_run(9, "NVIDIA A100", 100e3);
	struct summary_run *peer_summary = fx_summary(peer, SUMMARY_FULL);
	const struct summary_run *peers[] = { peer_summary };
	struct report_args o = { dir, &PROFILE, NULL, peers, 1, true, true };
	struct printer_charts out;
	struct ab_diag d = { "" };
	for (int i = 0; i < r->n_cases; i++) /* a copy floor measured for one case */
		if (!strcmp(r->cases[i].name, "ln[T=32]"))
			r->cases[i].copy_floor_ns = 40e3;
	assert_int_equal(report_run(r, &o, &out, &d), AB_OK);
	fx_summary_free(peer_summary);
	char *md = slurp("report.md");
	if (getenv("TEST_DUMP"))
		fputs(md, stderr);
	contains(md, "\n## Bandwidth\n");
	/* the floor is the measured copy: ln[T=32]'s 40 us under B's 50 us median;
	 * the others were not measured (bytes_min at the copy bandwidth is no floor) */
	contains(md, "| `ln[T=64]` | 150.0 kB | 50.0 kB | 50.0 kB | 1.5 (37.5%) | 1.0 (25.0%) | not measured | n/a | "
		     "n/a | n/a |\n");
	contains(md, "| `ln[T=32]` | 150.0 kB | 50.0 kB | 50.0 kB | 1.5 (37.5%) | 1.0 (25.0%) | 40.00 us | 1.25x | "
		     "n/a | n/a |\n");
	contains(md, "4 GB/s (measured by this run's backend, read + write)");
	contains(md, "\n## Sweeps\n");
	contains(md, "\n### `ln` over T\n");
	/* the sweep table ascends along T */
	const char *t16 = strstr(md, "\n| 16 | "), *t32 = strstr(md, "\n| 32 | "), *t64 = strstr(md, "\n| 64 | ");
	assert_true(t16 && t32 && t64 && t16 < t32 && t32 < t64);
	/* A pools ten samples, 90 90 95 95 100 100 105 105 110 110: ranks 2 and
	 * 9 (stats.h); B has five, too few for an interval (and for the
	 * speedup's, under SUMMARY_MIN_SAMPLES) */
	contains(md, "| 16 | 100.00 us [90.00, 110.00] n=10 | 50.00 us [n/a] n=5 | 2.000x [n/a] | 1.5 (37.5%) | "
		     "1.0 (25.0%) |\n");
	contains(md, "\n## Per GPU\n");
	contains(md, "as named on the command line");
	contains(md, "| case | NVIDIA H200 (run 12) | NVIDIA A100 (run 9) | md5 across GPUs |\n");
	/* each cell ends with the B output's md5, its first 8 hex digits */
	contains(md, "B 1.0 GB/s (25.0%), md5 `c532829f` | 1.000x [n/a], ");
	contains(md, "B 0.5 GB/s (12.5%), md5 `c532829f` | yes (3 outputs, 1 run) |\n");
	free(md);
	char *dat = slurp("sweep-ln.dat");
	contains(dat, "# block 0: \"NVIDIA H200 (run 12)\"\n");
	contains(dat, "# block 1: \"NVIDIA A100 (run 9)\"\n");
	contains(dat, "\n16 100 90 110 50 ? ? 2 ");
	const char *b1 = strstr(dat, "# block 1");
	assert_non_null(b1);
	assert_non_null(strstr(b1, "\n16 100 90 110 100 ? ? 1 "));
	assert_true(strstr(dat, "\n16 ") < strstr(dat, "\n32 ") && strstr(dat, "\n32 ") < strstr(dat, "\n64 "));
	free(dat);
	char *gp = slurp("sweep-ln.gp");
	contains(gp, "set multiplot layout 3,1");
	/* T 16 to 64 is within a decade: a linear axis ticked at the sizes */
	contains(gp, "unset logscale x\n");
	contains(gp, "set xtics (\"16\" 16, \"32\" 32, \"64\" 64)\n");
	contains(gp, "plot \"sweep-ln.dat\" index 0 using 1:3:4 with filledcurves");
	free(gp);
	results_run_free(r);
	results_run_free(peer);
}

static bool have_gnuplot(void)
{
	char path[PATH_MAX], why[256];
	return plot_find_gnuplot(path, sizeof path, why, sizeof why);
}

static void assert_png(const char *name)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!plot_png_valid(path))
		fail_msg("'%s' is not a PNG", name);
}

static void test_pngs_valid(void **state)
{
	(void)state;
	if (!have_gnuplot()) {
		print_message("gnuplot not found: PNG checks skipped\n");
		skip();
	}
	struct results_run *r = make_run(12, "NVIDIA H200"), *peer = make_run(9, "CPU Xeon");
	struct summary_run *peer_summary = fx_summary(peer, SUMMARY_FULL);
	const struct summary_run *peers[] = { peer_summary };
	struct report_args o = { dir, &PROFILE, NULL, peers, 1, false, false };
	struct printer_charts out;
	struct ab_diag d = { "" };
	assert_int_equal(report_run(r, &o, &out, &d), AB_OK);
	fx_summary_free(peer_summary);
	if (out.n_failed)
		print_message("plot failure: %s\n", out.note);
	assert_int_equal(out.n_failed, 0);
	assert_int_equal(out.n_drawn, 7);
	assert_false(out.skipped);
	assert_png("speedup.png");
	assert_png("kernels-ln_modulate.png");
	assert_png("kernels-img_txt.png");
	assert_png("samples-ln_modulate.png");
	assert_png("samples-img_txt.png");
	assert_png("series-ln_modulate.png");
	assert_png("series-img_txt.png");
	assert_false(exists("speedup.png.tmp"));
	char *md = slurp("report.md");
	contains(md, "![speedup per case and device](speedup.png)");
	contains(md, "![samples per slot of img\\|txt](samples-img_txt.png)");
	free(md);
	/* two devices: the shape, then per device on every row a value and
	 * its interval (here the value: 5 samples have none), the value where
	 * drifted and where not bit-exact (neither: ?), and the y of its label
	 * (exact: the value) and of a red one (none) */
	char *dat = slurp("speedup.dat");
	contains(dat, "\"ln_modulate\" \"1x16x256\" 2 2 2 ? ? 2 ? 2 2 2 ? ? 2 ?\n");
	char *row = strstr(dat, "\"img|txt\"");
	assert_non_null(row);
	int fields = 0;
	for (char *p = row + 9; *p && *p != '\n'; p++)
		fields += p[0] == ' ' && p[1] != ' ';
	assert_int_equal(fields, 15);
	free(dat);
	char *gp = slurp("speedup.gp");
	contains(gp, "with labels center offset 0,0.9"); /* the values above the bars */
	contains(gp, "stringcolumn(1).\"\\n\".stringcolumn(2)"); /* the shape under the name */
	free(gp);
	/* the script redraws by hand from inside the directory */
	char cmd[256], path[128];
	snprintf(path, sizeof path, "%s/speedup.png", dir);
	unlink(path);
	snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot speedup.gp 2>/dev/null", dir);
	assert_int_equal(system(cmd), 0);
	assert_png("speedup.png");
	results_run_free(r);
	results_run_free(peer);
}

static void test_without_gnuplot(void **state)
{
	(void)state;
	struct results_run *r = make_run(12, "NVIDIA H200");
	struct printer_charts out;
	char *saved = strdup(getenv("PATH") ? getenv("PATH") : "");
	setenv("PATH", "/nonexistent-abbench-test", 1);
	write_report(r, false, &out);
	setenv("PATH", saved, 1);
	free(saved);
	assert_true(out.skipped);
	assert_int_equal(out.n_drawn, 0);
	assert_non_null(strstr(out.note, "gnuplot not found"));
	assert_true(exists("report.md"));
	assert_true(exists("speedup.dat") && exists("speedup.gp"));
	assert_false(exists("speedup.png"));
	char *md = slurp("report.md");
	contains(md, "_Chart `speedup.png` not drawn: gnuplot not found on PATH");
	contains(md, "- charts: skipped: gnuplot not found");
	free(md);
	results_run_free(r);
}

static void test_no_model_and_no_profile(void **state)
{
	(void)state;
	struct results_run *r = make_run(3, "NVIDIA H200");
	r->steps = 0;
	struct report_args o = { dir, NULL, "no profile: nothing in /etc/profiles", NULL, 0, true, false };
	struct printer_charts out;
	struct ab_diag d;
	assert_int_equal(report_run(r, &o, &out, &d), AB_OK);
	char *md = slurp("report.md");
	contains(md, "The scenario has no [model] section (steps, forwards_per_step): no projection.");
	contains(md, "| 10.00% | not judged (no device profile) |");
	contains(md, "- profile note: no profile: nothing in profiles");
	free(md);
	results_run_free(r);
}

/* A run that did not finish is reported with the cases it kept, marked
 * INCOMPLETE; one that kept none has nothing to report. */
static void test_refuses_unfinished_run(void **state)
{
	(void)state;
	struct results_run *r = make_run(4, "NVIDIA H200");
	snprintf(r->status, sizeof r->status, "failed");
	struct report_args o = { dir, &PROFILE, NULL, NULL, 0, true, false };
	struct printer_charts out;
	struct ab_diag d;
	int n = r->n_cases;
	r->n_cases = 0;
	assert_int_equal(report_run(r, &o, &out, &d), AB_ERR_DATA);
	assert_string_equal(d.msg, "run 4 is 'failed', not 'ok': nothing to report");
	assert_false(exists("report.md"));
	r->n_cases = n;
	r->cases_planned = n + 1;
	assert_int_equal(report_run(r, &o, &out, &d), AB_OK);
	char *md = slurp("report.md");
	char want[160];
	snprintf(want, sizeof want, "**INCOMPLETE**: run 4 is `failed` with %d of %d cases finished", n, n + 1);
	contains(md, want);
	contains(md, "never gated (`abbench run --resume 4` measures the rest)");
	free(md);
	results_run_free(r);
}

static void test_default_dirs(void **state)
{
	(void)state;
	char buf[64];
	int64_t three[3] = { 4, 7, 12 };
	report_default_dir_runs(three, 3, buf, sizeof buf);
	assert_string_equal(buf, "reports/runs-4-7-12");
	report_default_dir_runs(three, 1, buf, sizeof buf);
	assert_string_equal(buf, "reports/run-4");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bold_only_beyond_noise, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_sections_and_numbers, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_charts_written_with_relative_data, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_pngs_valid, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_without_gnuplot, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_no_model_and_no_profile, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_refuses_unfinished_run, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_sweeps_bandwidth_per_gpu, make_dir, remove_dir),
		cmocka_unit_test(test_default_dirs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
