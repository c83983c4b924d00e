/*
 * report_details.c - the report's folded sections (report_details.h).
 */
#include "print/report_details.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "print/md.h"

/* Text inside <summary>, where GitHub renders HTML but no markdown: the
 * markdown escapes of md_cell would show, so HTML's own. */
static void html_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s == '\n' ? ' ' : *s, f);
	}
}

/* "<details><summary><b>TITLE</b>: " ... "</summary>" then a blank line:
 * GitHub renders markdown inside only after one. */
static void open_details(FILE *f, const char *title)
{
	fprintf(f, "<details><summary><b>%s</b>: ", title);
}

static void end_summary(FILE *f)
{
	fputs("</summary>\n\n", f);
}

static void close_details(FILE *f)
{
	fputs("</details>\n\n", f);
}

/* ---- accuracy ---- */

struct acc_counts {
	int outputs, not_exact, not_ref;
	double worst_ratio; /* largest max_err_ratio */
};

static void acc_count(const struct results_case *c, struct acc_counts *n)
{
	for (int s = 0; s < c->n_slots; s++)
		for (int k = 0; k < c->slots[s].n_outputs; k++) {
			const struct results_output *o = &c->slots[s].outputs[k];
			n->outputs++;
			n->not_exact += !o->bit_exact;
			n->not_ref += !o->ref_ok;
			if (isfinite(o->max_err_ratio))
				n->worst_ratio = isnan(n->worst_ratio) ? o->max_err_ratio : fmax(n->worst_ratio, o->max_err_ratio);
		}
}

static void accuracy_row(FILE *f, const struct results_case *c, const struct results_slot *s, const struct results_output *o)
{
	fputs("| ", f);
	md_code(f, c->name);
	fprintf(f, " | %s | %c | ", s->label, s->arm == 'a' ? 'A' : 'B');
	md_code(f, o->tensor);
	fprintf(f, " | %lld | `%s` | %s | %lld | %.6g | %.4g | %s | %lld |\n", (long long)o->bytes, o->md5,
		o->bit_exact ? "yes" : "**no**", (long long)o->mismatches, o->max_abs_err, o->max_err_ratio,
		o->ref_ok ? "yes" : "**no**", (long long)o->ref_skipped);
}

/* One row per case: its outputs, whether all are byte-equal and within
 * the tolerance, and the largest error (the md5s are in the full table). */
static void accuracy_case_row(FILE *f, const struct summary_case *sc)
{
	struct acc_counts n = { 0, 0, 0, NAN };
	acc_count(sc->c, &n);
	fputs("| ", f);
	md_code(f, sc->c->name);
	fprintf(f, " | %d | %s | %s | %.3g |\n", n.outputs, n.not_exact ? "**no**" : "yes", n.not_ref ? "**no**" : "yes",
		n.worst_ratio);
}

static void accuracy_compact(FILE *f, const struct summary_run *S)
{
	static const char *const cols[] = { "case", "outputs", "byte-equal", "within tol", "max err / tol" };
	static const char *const full[] = { "case", "slot", "arm", "tensor", "bytes", "md5", "byte-equal",
					    "mismatches", "max abs err", "max err / tol", "ref ok", "skipped" };
	int bad = 0;
	md_table_head(f, 5, cols, "lrccr");
	for (int i = 0; i < S->n_cases; i++)
		accuracy_case_row(f, &S->cases[i]);
	fputc('\n', f);
	for (int i = 0; i < S->n_cases; i++) {
		const struct results_case *c = S->cases[i].c;
		for (int s = 0; s < c->n_slots; s++)
			for (int k = 0; k < c->slots[s].n_outputs; k++) {
				const struct results_output *o = &c->slots[s].outputs[k];
				if (o->bit_exact && o->ref_ok)
					continue;
				if (!bad++) {
					fputs("Outputs with a problem:\n\n", f);
					md_table_head(f, 12, full, "llllrlcrrrcr");
				}
				accuracy_row(f, c, &c->slots[s], o);
			}
	}
	if (bad)
		fputc('\n', f);
}

static void accuracy_full(FILE *f, const struct summary_run *S)
{
	static const char *const cols[] = { "case", "slot", "arm", "tensor", "bytes", "md5", "byte-equal",
					    "mismatches", "max abs err", "max err / tol", "ref ok", "skipped" };
	md_table_head(f, 12, cols, "llllrlcrrrcr");
	for (int i = 0; i < S->n_cases; i++) {
		const struct results_case *c = S->cases[i].c;
		for (int s = 0; s < c->n_slots; s++)
			for (int k = 0; k < c->slots[s].n_outputs; k++)
				accuracy_row(f, c, &c->slots[s], &c->slots[s].outputs[k]);
	}
	fputc('\n', f);
}

void report_details_accuracy(FILE *f, const struct summary_run *S, bool compact)
{
	struct acc_counts n = { 0, 0, 0, NAN };
	for (int i = 0; i < S->n_cases; i++)
		acc_count(S->cases[i].c, &n);
	open_details(f, "Accuracy");
	if (!n.not_exact && !n.not_ref)
		fprintf(f, "all %d outputs byte-equal to the first A slot and within the float64 reference's "
			   "tolerance (largest error %.3g of it)", n.outputs, n.worst_ratio);
	else
		fprintf(f, "%d of %d outputs <b>not byte-equal</b>, %d outside the reference's tolerance", n.not_exact,
			n.outputs, n.not_ref);
	end_summary(f);
	fputs("Every output of every slot: its md5, whether its bytes equal those of the bracket's first A slot "
	      "(and how many elements differ), and the largest error against the float64 reference computed from "
	      "the same bf16 inputs, absolute and relative to the tolerance of a correct float32 chain. Skipped: "
	      "elements outside float32's range, not compared.\n\n", f);
	if (compact)
		accuracy_compact(f, S);
	else
		accuracy_full(f, S);
	close_details(f);
}

/* ---- clocks ---- */

/* NVML clocks-event reason bits (nvml.h, nvmlClocksEventReason*). */
static const struct {
	uint64_t bit;
	const char *name;
	bool slows; /* the clock was held down by power, heat or hardware */
} throttle_bits[] = {
	{ 0x1, "idle", false },
	{ 0x2, "applications clocks", false },
	{ 0x4, "sw power cap", true },
	{ 0x8, "hw slowdown", true },
	{ 0x10, "sync boost", false },
	{ 0x20, "sw thermal", true },
	{ 0x40, "hw thermal", true },
	{ 0x80, "hw power brake", true },
	{ 0x100, "display clocks", false },
};

static bool slowed(uint64_t mask)
{
	for (size_t i = 0; i < sizeof throttle_bits / sizeof throttle_bits[0]; i++)
		if ((mask & throttle_bits[i].bit) && throttle_bits[i].slows)
			return true;
	return false;
}

static bool put_throttle(FILE *f, uint64_t mask)
{
	bool first = true;
	for (size_t i = 0; i < sizeof throttle_bits / sizeof throttle_bits[0]; i++) {
		if (!(mask & throttle_bits[i].bit))
			continue;
		fprintf(f, "%s%s", first ? "" : ", ", throttle_bits[i].name);
		first = false;
	}
	if (first)
		fputs("none", f);
	return slowed(mask);
}

static void put_clocks(FILE *f, const struct results_clocks *c)
{
	if (!c->valid)
		fputs("n/a | n/a | n/a | n/a", f);
	else {
		fprintf(f, "%d | %d | %d | ", c->sm_mhz, c->mem_mhz, c->temp_c);
		if (put_throttle(f, c->throttle_reasons))
			fputs(" **(throttled)**", f);
	}
}

static bool slot_throttled(const struct results_slot *s)
{
	return (s->clocks_before.valid && slowed(s->clocks_before.throttle_reasons)) ||
	       (s->clocks_after.valid && slowed(s->clocks_after.throttle_reasons));
}

struct clock_span {
	int slots, throttled, sm_lo, sm_hi, temp_hi;
};

static void span_add(struct clock_span *sp, const struct results_clocks *c)
{
	if (!c->valid)
		return;
	sp->sm_lo = sp->slots && sp->sm_lo < c->sm_mhz ? sp->sm_lo : c->sm_mhz;
	sp->sm_hi = sp->slots && sp->sm_hi > c->sm_mhz ? sp->sm_hi : c->sm_mhz;
	sp->temp_hi = sp->slots && sp->temp_hi > c->temp_c ? sp->temp_hi : c->temp_c;
	sp->slots++;
}

static void span_of(const struct results_case *c, struct clock_span *sp)
{
	for (int s = 0; s < c->n_slots; s++) {
		span_add(sp, &c->slots[s].clocks_before);
		span_add(sp, &c->slots[s].clocks_after);
		sp->throttled += slot_throttled(&c->slots[s]);
	}
}

static void clocks_full(FILE *f, const struct summary_run *S)
{
	static const char *const cols[] = { "case", "slot", "SM MHz before", "mem MHz before", "temp C before",
					    "clock events before", "SM MHz after", "mem MHz after", "temp C after",
					    "clock events after" };
	md_table_head(f, 10, cols, "llrrrlrrrl");
	for (int i = 0; i < S->n_cases; i++) {
		const struct results_case *c = S->cases[i].c;
		for (int s = 0; s < c->n_slots; s++) {
			fputs("| ", f);
			md_code(f, c->name);
			fprintf(f, " | %s | ", c->slots[s].label);
			put_clocks(f, &c->slots[s].clocks_before);
			fputs(" | ", f);
			put_clocks(f, &c->slots[s].clocks_after);
			fputs(" |\n", f);
		}
	}
	fputc('\n', f);
}

static void clocks_compact(FILE *f, const struct summary_run *S)
{
	static const char *const cols[] = { "case", "SM MHz (lowest - highest)", "hottest C", "slots throttled" };
	md_table_head(f, 4, cols, "lrrr");
	for (int i = 0; i < S->n_cases; i++) {
		struct clock_span sp = { 0 };
		span_of(S->cases[i].c, &sp);
		fputs("| ", f);
		md_code(f, S->cases[i].c->name);
		if (!sp.slots)
			fputs(" | n/a | n/a | n/a |\n", f);
		else
			fprintf(f, " | %d - %d | %d | %s%d%s |\n", sp.sm_lo, sp.sm_hi, sp.temp_hi, sp.throttled ? "**" : "",
				sp.throttled, sp.throttled ? "**" : "");
	}
	fputc('\n', f);
}

void report_details_clocks(FILE *f, const struct summary_run *S, bool compact)
{
	struct clock_span all = { 0 };
	for (int i = 0; i < S->n_cases; i++)
		span_of(S->cases[i].c, &all);
	open_details(f, "Clocks");
	if (!all.slots) {
		fprintf(f, "not recorded (backend %s has no NVML readings)", S->run->backend);
		end_summary(f);
		fputs("No clock readings in this run.\n\n", f);
		close_details(f);
		return;
	}
	fprintf(f, "SM %d - %d MHz, up to %d C; %s%d slot%s throttled%s", all.sm_lo, all.sm_hi, all.temp_hi,
		all.throttled ? "<b>" : "", all.throttled, all.throttled == 1 ? "" : "s", all.throttled ? "</b>" : "");
	end_summary(f);
	fprintf(f, "SM and memory clocks, temperature and NVML clock-event reasons before and after each slot "
		   "(default SM clock %d MHz).\n\n", S->run->device.default_sm_mhz);
	if (compact)
		clocks_compact(f, S);
	else
		clocks_full(f, S);
	close_details(f);
}

/* ---- sampling ---- */

static void sampling_full(FILE *f, const struct summary_run *S)
{
	static const char *const cols[] = { "case", "slot", "variant", "warm-up", "samples", "discarded",
					    "stopped by", "slot time (s)", "noise" };
	md_table_head(f, 9, cols, "lllrrrlrr");
	for (int i = 0; i < S->n_cases; i++) {
		const struct results_case *c = S->cases[i].c;
		for (int k = 0; k < c->n_slots; k++) {
			const struct results_slot *s = &c->slots[k];
			fputs("| ", f);
			md_code(f, c->name);
			fprintf(f, " | %s | ", s->label);
			md_code(f, s->variant);
			fprintf(f, " | %d | %d | %d | ", s->warmup, s->n_samples, s->n_discarded);
			md_cell(f, s->stopping_reason);
			fprintf(f, " | %.3f | %.2f%% |\n", s->elapsed_s, s->noise * 100);
		}
	}
	fputc('\n', f);
}

/* One row per case: the slots' sample counts ("20/20/20"), the stopping
 * reasons that ended them, the largest noise and the discarded samples. */
static void sampling_compact(FILE *f, const struct summary_run *S)
{
	static const char *const cols[] = { "case", "samples per slot", "stopped by", "largest noise", "discarded" };
	md_table_head(f, 5, cols, "lllrr");
	for (int i = 0; i < S->n_cases; i++) {
		const struct results_case *c = S->cases[i].c;
		int discarded = 0;
		double noise = 0;
		fputs("| ", f);
		md_code(f, c->name);
		fputs(" | ", f);
		for (int k = 0; k < c->n_slots; k++) {
			fprintf(f, "%s%d", k ? "/" : "", c->slots[k].n_samples);
			discarded += c->slots[k].n_discarded;
			noise = fmax(noise, c->slots[k].noise);
		}
		fputs(" | ", f);
		for (int k = 0; k < c->n_slots; k++) {
			bool seen = false;
			for (int j = 0; j < k && !seen; j++)
				seen = !strcmp(c->slots[j].stopping_reason, c->slots[k].stopping_reason);
			if (seen)
				continue;
			fputs(k ? ", " : "", f);
			md_cell(f, c->slots[k].stopping_reason);
		}
		fprintf(f, " | %.2f%% | %d |\n", noise * 100, discarded);
	}
	fputc('\n', f);
}

void report_details_sampling(FILE *f, const struct summary_run *S, bool compact)
{
	int lo = 0, hi = 0, slots = 0;
	for (int i = 0; i < S->n_cases; i++)
		for (int k = 0; k < S->cases[i].c->n_slots; k++) {
			int n = S->cases[i].c->slots[k].n_samples;
			lo = slots && lo < n ? lo : n;
			hi = slots && hi > n ? hi : n;
			slots++;
		}
	open_details(f, "Sampling");
	fprintf(f, "%d to %d samples a slot over %d slots, %d discarded%s", lo, hi, slots, S->n_discarded,
		S->run->quick ? " (<b>quick run</b>)" : "");
	end_summary(f);
	fputs("Samples kept per slot and the rule that ended the slot (target_noise, noise_converged, max_samples or "
	      "max_time); discarded samples failed the throttle probe.\n\n", f);
	if (compact)
		sampling_compact(f, S);
	else
		sampling_full(f, S);
	close_details(f);
}

/* ---- provenance ---- */

static void device_list(FILE *f, const struct results_device *v)
{
	fputs("- device: ", f);
	md_cell(f, v->name);
	fprintf(f, " (backend %s", v->backend);
	if (v->uuid[0])
		fprintf(f, ", uuid `%s`", v->uuid);
	fputs(")\n", f);
	if (v->cc_major)
		fprintf(f, "- compute capability %d.%d, %d SMs, L2 %lld bytes, memory %lld bytes\n", v->cc_major,
			v->cc_minor, v->sm_count, (long long)v->l2_bytes, (long long)v->mem_bytes);
	fputs("- driver ", f);
	md_cell(f, v->driver_version[0] ? v->driver_version : "n/a");
	fputs(", runtime ", f);
	md_cell(f, v->runtime_version[0] ? v->runtime_version : "n/a");
	fputc('\n', f);
	if (v->copy_gbps > 0)
		fprintf(f, "- measured copy bandwidth (read + write): %.1f GB/s\n", v->copy_gbps);
}

static void profile_list(FILE *f, const struct report_options *o)
{
	const struct profile *p = o->profile;
	if (p) {
		fputs("- device profile ", f);
		md_code(f, p->name);
		fprintf(f, " (`profiles/%s`): noise floor %.2f%%, gate threshold %.2f%%", p->file, p->noise_floor * 100,
			p->gate_max_regression_pct);
		if (p->dram_gbps > 0)
			fprintf(f, ", copy bandwidth ceiling %.0f GB/s", p->dram_gbps);
		if (p->sm_count > 0)
			fprintf(f, ", %d SMs, L2 %lld bytes", p->sm_count, (long long)p->l2_bytes);
		fputc('\n', f);
	}
	if (o->profile_note) {
		char clean[512];
		fputs("- profile note: ", f);
		md_cell(f, md_scrub_paths(o->profile_note, clean, sizeof clean));
		fputc('\n', f);
	}
}

static void put_scrubbed(FILE *f, const char *label, const char *text)
{
	char clean[4096];
	fprintf(f, "- %s: ", label);
	md_code(f, md_scrub_paths(text && *text ? text : "n/a", clean, sizeof clean));
	fputc('\n', f);
}

/* The user arms (plugins, compiled binaries): what file ran, and its hash. */
static void arm_sources_list(FILE *f, const struct results_run *r)
{
	char clean[1024];
	for (int i = 0; i < r->n_arm_sources; i++) {
		const struct results_arm_source *a = &r->arm_sources[i];
		fprintf(f, "- arm %c ", a->arm == 'a' ? 'A' : 'B');
		md_code(f, a->name);
		fprintf(f, " is a %s: ", a->kind);
		md_code(f, md_scrub_paths(a->path, clean, sizeof clean));
		fprintf(f, ", sha256 `%s`, ", a->sha256);
		md_cell(f, a->detail);
		fputc('\n', f);
	}
}

static void run_list(FILE *f, const struct results_run *r)
{
	fprintf(f, "- run %lld, status %s, started %s, finished %s\n", (long long)r->id, r->status, r->started_at,
		r->finished_at);
	fputs("- abbench ", f);
	md_cell(f, r->version[0] ? r->version : "n/a");
	fputs(", commit ", f);
	md_code(f, r->git_commit[0] ? r->git_commit : "unknown");
	fputs(", host ", f);
	md_cell(f, r->host);
	fputs("\n- scenario ", f);
	md_code(f, r->scenario_name);
	fprintf(f, ", sha256 `%s`\n", r->scenario_hash);
	put_scrubbed(f, "scenario file", r->scenario_path);
	put_scrubbed(f, "command line", r->command_line);
	fprintf(f, "- bracket %s, arms A = ", r->bracket);
	md_code(f, r->arm_a);
	fputs(", B = ", f);
	md_code(f, r->arm_b);
	fprintf(f, ", L2 flush %s, launch gaps %s, quick %s", r->l2_flush ? "on" : "off",
		r->launch_gaps[0] ? r->launch_gaps : "n/a", r->quick ? "yes" : "no");
	if (r->only_cases[0]) {
		fputs(", partial: only ", f);
		md_code(f, r->only_cases);
	}
	fputc('\n', f);
	arm_sources_list(f, r);
}

static void notes_list(FILE *f, const struct summary_run *S, const struct report_outcome *res)
{
	char clean[1024];
	fprintf(f, "- %d sample%s discarded by the throttle probe\n", S->n_discarded, S->n_discarded == 1 ? "" : "s");
	if (S->run->notes[0]) {
		fputs("- ", f);
		md_cell(f, md_scrub_paths(S->run->notes, clean, sizeof clean));
		fputc('\n', f);
	}
	if (res->plots_skipped || res->n_plot_failures) {
		fputs("- charts: ", f);
		md_cell(f, res->plots_skipped ? "skipped: " : "some failed: ");
		md_cell(f, res->plots_note);
		fputc('\n', f);
	}
}

void report_details_provenance(FILE *f, const struct summary_run *S, const struct report_options *o,
			       const struct report_outcome *res)
{
	const struct results_run *r = S->run;
	open_details(f, "Provenance");
	html_text(f, r->device.name);
	fputs(", commit ", f);
	html_text(f, r->git_commit[0] ? r->git_commit : "unknown");
	fprintf(f, ", run %lld started %s", (long long)r->id, r->started_at);
	end_summary(f);
	device_list(f, &r->device);
	profile_list(f, o);
	run_list(f, r);
	notes_list(f, S, res);
	fputc('\n', f);
	close_details(f);
}
