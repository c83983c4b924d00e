/*
 * test_report.c - the markdown report and its charts, from a run built by
 * hand with a deterministic fake timer.
 *
 * The samples of a slot are base x {1.0, 1.1, 0.9, 1.05, 0.95}: median
 * = base, mean = base, sum = 5 base. With A at 100 us and B at 50 us every
 * expected number below follows by hand:
 *   - A1, B, A2 medians 100.000 / 50.000 / 100.000 us, speedup 2.000x;
 *   - kernels: the eager "LayerNorm" kernel totals 0.5 of the slot's wall
 *     time, the elementwise one 0.3: per sample 50.000 and 30.000 us,
 *     shares 50.00% and 30.00%, kernel sum / wall 0.800, gaps 20.0%;
 *   - case "img|txt" has A2 at 110 us: drift 10.00% over a 1% noise floor,
 *     and its pooled A arm (A1 and A2, ten samples) has the median
 *     (104.5 + 105) / 2 = 104.75 us;
 *   - projection with count 3, 2 forwards per step, 30 steps:
 *     ln_modulate A 3 x 2 x 100 = 600.000 us per step, B 300.000;
 *     img|txt A 3 x 2 x 104.75 = 628.500, B 300.000, saving 328.500;
 *     totals 1228.500 / 600.000 / 628.500; per image x 30: 36.855 ms,
 *     18.000 ms, saving 18.855 ms = 628.5 / 1228.5 = 51.2%.
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
	s->outputs[0].ref_ok = true;
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
		fail_msg("report lacks \"%s\"", want);
}

/* report_write on the run's summary. */
static enum ab_rc report_run(const struct results_run *r, const struct report_options *o, struct report_outcome *out,
			     struct ab_diag *d)
{
	struct summary_run *s = fx_summary(r, SUMMARY_FULL);
	enum ab_rc rc = report_write(s, o, out, d);
	fx_summary_free(s);
	return rc;
}

static void write_report(const struct results_run *r, bool no_plots, struct report_outcome *out)
{
	struct report_options o = { dir, &PROFILE, NULL, NULL, 0, no_plots };
	struct ab_diag d = { "" };
	if (report_run(r, &o, out, &d) != AB_OK)
		fail_msg("report_write: %s", d.msg);
}

static void test_sections_and_numbers(void **state)
{
	(void)state;
	struct results_run *r = make_run(12, "NVIDIA H200");
	struct report_outcome out;
	write_report(r, true, &out);
	assert_true(out.plots_skipped);
	char *md = slurp("report.md");
	static const char *const sections[] = { "# `fused` vs `eager`: scenario `smoke` on NVIDIA H200",
						"## Summary", "## A/B/A brackets", "### Sample distributions",
						"## Kernel attribution", "## Accuracy", "## Model-level projection",
						"## Provenance", "### Device", "### Run", "### Clocks", "### Sampling",
						"### Notes" };
	for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
		contains(md, sections[i]);
	/* summary: medians with spread and count, speedup with its interval */
	contains(md, "| `ln_modulate` | 1x16x256 | 100.000 [");
	contains(md, "] n=10 | 50.000 [");
	contains(md, "] n=5 | **2.000x** [");
	/* A/B/A and drift */
	contains(md, "| `ln_modulate` | 100.000 ±7.90% n=5 | 50.000 ±7.90% n=5 | 100.000 ±7.90% n=5 | 0.00% | ok |");
	contains(md, "| `img\\|txt` | 100.000 ±7.90% n=5 | 50.000 ±7.90% n=5 | 110.000 ±7.90% n=5 | 10.00% | "
		     "**environmental drift** |");
	/* kernel attribution */
	contains(md, "window 100.000 us per sample (mean wall time, n=10); kernels sum to 80.000 us, kernel sum / "
		     "wall = 0.800, so 20.0% of the window is launch gaps and host overhead.");
	contains(md, "| `vectorized_layer_norm_kernel<c10::BFloat16, float, false>` | LayerNorm | 50.000 | 50.00% | 1.00 |");
	contains(md, "| `elementwise_kernel<128, 4, a\\|b>` | elementwise | 30.000 | 30.00% | 1.00 |");
	/* accuracy */
	contains(md, "| `ln_modulate` | B | B | `out` | 8192 | `c532829f551b8d65bc9093f23ac32020` | yes | 0 | 0.03125 | 0.5 | yes | 0 |");
	/* projection */
	contains(md, "| `ln_modulate` | 3 | 600.000 | 300.000 | 300.000 |");
	contains(md, "| `img\\|txt` | 3 | 628.500 | 300.000 | 328.500 |");
	contains(md, "| **total** | | 1228.500 | 600.000 | **628.500** |");
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

static void test_charts_written_with_relative_data(void **state)
{
	(void)state;
	struct results_run *r = make_run(12, "NVIDIA H200");
	struct report_outcome out;
	write_report(r, true, &out);
	static const char *const stems[] = { "speedup", "kernels-ln_modulate", "kernels-img_txt", "samples-ln_modulate",
					     "samples-img_txt" };
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
	contains(s, "# block 2: A2\n 110\n 121\n 99\n 115.5\n 104.5\n");
	free(s);
	char *md = slurp("report.md");
	contains(md, "_Chart `speedup.png` not drawn: charts turned off. Its data and script are `speedup.dat` and "
		     "`speedup.gp`._");
	free(md);
	results_run_free(r);
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
	struct report_options o = { dir, &PROFILE, NULL, peers, 1, false };
	struct report_outcome out;
	struct ab_diag d = { "" };
	assert_int_equal(report_run(r, &o, &out, &d), AB_OK);
	fx_summary_free(peer_summary);
	assert_int_equal(out.n_plot_failures, 0);
	assert_int_equal(out.n_plots, 5);
	assert_false(out.plots_skipped);
	assert_png("speedup.png");
	assert_png("kernels-ln_modulate.png");
	assert_png("kernels-img_txt.png");
	assert_png("samples-ln_modulate.png");
	assert_png("samples-img_txt.png");
	assert_false(exists("speedup.png.tmp"));
	char *md = slurp("report.md");
	contains(md, "![speedup per case and device](speedup.png)");
	contains(md, "![samples per slot of img\\|txt](samples-img_txt.png)");
	free(md);
	/* two devices: a value and its interval per device on every row */
	char *dat = slurp("speedup.dat");
	contains(dat, "\"ln_modulate\" 2 ");
	char *row = strstr(dat, "\"img|txt\"");
	assert_non_null(row);
	int fields = 0;
	for (char *p = row + 9; *p && *p != '\n'; p++)
		fields += p[0] == ' ' && p[1] != ' ';
	assert_int_equal(fields, 6);
	free(dat);
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
	struct report_outcome out;
	char *saved = strdup(getenv("PATH") ? getenv("PATH") : "");
	setenv("PATH", "/nonexistent-abbench-test", 1);
	write_report(r, false, &out);
	setenv("PATH", saved, 1);
	free(saved);
	assert_true(out.plots_skipped);
	assert_int_equal(out.n_plots, 0);
	assert_non_null(strstr(out.plots_note, "gnuplot not found"));
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
	struct report_options o = { dir, NULL, "no profile: nothing in /etc/profiles", NULL, 0, true };
	struct report_outcome out;
	struct ab_diag d;
	assert_int_equal(report_run(r, &o, &out, &d), AB_OK);
	char *md = slurp("report.md");
	contains(md, "The scenario has no [model] section (steps, forwards_per_step): no projection.");
	contains(md, "| 10.00% | not judged (no device profile) |");
	contains(md, "- profile note: no profile: nothing in profiles");
	free(md);
	results_run_free(r);
}

static void test_refuses_unfinished_run(void **state)
{
	(void)state;
	struct results_run *r = make_run(4, "NVIDIA H200");
	snprintf(r->status, sizeof r->status, "failed");
	struct report_options o = { dir, &PROFILE, NULL, NULL, 0, true };
	struct report_outcome out;
	struct ab_diag d;
	assert_int_equal(report_run(r, &o, &out, &d), AB_ERR_DATA);
	assert_string_equal(d.msg, "run 4 is 'failed', not 'ok': nothing to report");
	assert_false(exists("report.md"));
	results_run_free(r);
}

static void test_pick_peers(void **state)
{
	(void)state;
	/* newest first: the newest ok run of smoke on each other device */
	const struct results_run_summary list[] = {
		{ .id = 9, .status = "ok", .scenario_name = "smoke", .device = "NVIDIA H200" },
		{ .id = 8, .status = "failed", .scenario_name = "smoke", .device = "NVIDIA A100" },
		{ .id = 7, .status = "ok", .scenario_name = "glm_1024", .device = "NVIDIA A100" },
		{ .id = 6, .status = "ok", .scenario_name = "smoke", .device = "NVIDIA A100" },
		{ .id = 5, .status = "ok", .scenario_name = "smoke", .device = "CPU Xeon" },
		{ .id = 4, .status = "ok", .scenario_name = "smoke", .device = "NVIDIA A100" },
		{ .id = 3, .status = "ok", .scenario_name = "smoke", .device = "CPU Xeon" },
	};
	struct results_run *r = make_run(9, "NVIDIA H200");
	int64_t ids[8];
	int n = report_pick_peers(list, 7, r, ids, 8);
	assert_int_equal(n, 2);
	assert_true(ids[0] == 6 && ids[1] == 5);
	assert_int_equal(report_pick_peers(list, 7, r, ids, 1), 1);
	char buf[64];
	report_default_dir(42, buf, sizeof buf);
	assert_string_equal(buf, "reports/run-42");
	results_run_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sections_and_numbers, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_charts_written_with_relative_data, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_pngs_valid, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_without_gnuplot, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_no_model_and_no_profile, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_refuses_unfinished_run, make_dir, remove_dir),
		cmocka_unit_test(test_pick_peers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
