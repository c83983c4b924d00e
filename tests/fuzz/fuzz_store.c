/*
 * fuzz_store.c - libFuzzer harness for the database loader: a mutated
 * database through every reader. The input is one of two things:
 *
 *   an SQLite file image ("SQLite format 3\0..."): written as a database,
 *     opened once by the writer (store_open: an older schema is migrated,
 *     so old images stay useful), then read;
 *   any other bytes: SQL applied to a fresh copy of a base database this
 *     harness builds at start (a labelled run with a baseline, a run set
 *     of two shards named by a baseline, a failed run, a recheck run; a
 *     row in every table and column of every migration: host times per
 *     sample and slot, a run's env, a user arm's provenance, slot checks,
 *     a divergence with its map, batch invariance): UPDATE, INSERT,
 *     DELETE and SELECT on any table, PRAGMA writable_schema and
 *     user_version, nothing else (an authorizer refuses ATTACH and every
 *     other statement, random functions too, for repeatable inputs; a
 *     progress handler stops runaway queries).
 *
 * Then what the reading commands call on it: store_open_readonly, the
 * listing, store_load_run of every run (up to 8), summary_compute, each
 * case's divergence report (diff) and the run's certifiable cases
 * (report); for 'last' also the bootstrap intervals, compare_runs and
 * gate_check against itself, and its certificate (certify: its stored
 * scenario text read again);
 * 'last', a label and 'set:s' resolved and loaded, the baselines listed
 * and loaded, the UUID lookups; and merge_files of it into an empty
 * database.
 * Its files live in a directory of its own, on /dev/shm when there is one
 * (fsync on a disk would take most of the time), removed at exit.
 * Every one must end in a result or a message, never a crash, a hang, a
 * leak or a sanitizer report. With FUZZ_SEED_DIR set, the base database
 * is also written there (page size 512, so that it fits -max_len) as the
 * seed of the image form; tests/fuzz/corpus/store holds the SQL seeds.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analysis/certified.h"
#include "analysis/compare.h"
#include "analysis/divergence.h"
#include "analysis/gate.h"
#include "analysis/summary.h"
#include "common/cert.h"
#include "common/results.h"
#include "run/certify.h"
#include "store/merge.h"
#include "store/store.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], base[96], empty[96], in[96], out[96];

/* ---- the base database ---------------------------------------------------- */

static void fill_slot(struct results_slot *s, const char *label, char arm, int pos, int n, double t)
{
	memset(s, 0, sizeof *s);
	snprintf(s->label, sizeof s->label, "%s", label);
	s->arm = arm;
	snprintf(s->variant, sizeof s->variant, "%s", arm == 'a' ? "eager" : "fused");
	s->position = pos;
	s->warmup = 1;
	s->n_samples = n;
	s->samples_ns = calloc((size_t)n, sizeof *s->samples_ns);
	s->kernel_ns = calloc((size_t)n, sizeof *s->kernel_ns);
	s->host_ns = calloc((size_t)n, sizeof *s->host_ns);
	for (int i = 0; i < n; i++) {
		s->samples_ns[i] = t * (1 + 0.01 * (i % 5));
		s->kernel_ns[i] = i == 1 ? NAN : 0.9 * s->samples_ns[i];
		s->host_ns[i] = i == 2 ? NAN : 0.3 * s->samples_ns[i]; /* schema 13 */
	}
	s->host_median_ns = 0.3 * t;
	s->host_p90_ns = 0.31 * t;
	snprintf(s->stopping_reason, sizeof s->stopping_reason, "target_noise");
	s->median_ns = t;
	s->p10_ns = t;
	s->p90_ns = 1.04 * t;
	s->min_ns = t;
	s->max_ns = 1.04 * t;
	s->mean_ns = 1.02 * t;
	s->noise = 0.01;
	s->kernel_median_ns = 0.9 * t;
	s->n_kernels = 2;
	s->kernels = calloc(2, sizeof *s->kernels);
	snprintf(s->kernels[0].name, sizeof s->kernels[0].name, "%s",
		 arm == 'a' ? "vectorized_layer_norm_kernel" : "ab_fused");
	snprintf(s->kernels[0].family, sizeof s->kernels[0].family, "%s", arm == 'a' ? "LayerNorm" : "fused");
	snprintf(s->kernels[1].name, sizeof s->kernels[1].name, "elementwise_kernel<mul>");
	snprintf(s->kernels[1].family, sizeof s->kernels[1].family, "elementwise");
	for (int k = 0; k < 2; k++) {
		s->kernels[k].launches = n;
		s->kernels[k].total_ns = 0.4 * t * n;
		s->kernels[k].min_ns = 0.3 * t;
		s->kernels[k].max_ns = 0.5 * t;
	}
	s->n_outputs = 1;
	snprintf(s->outputs[0].tensor, sizeof s->outputs[0].tensor, "out");
	snprintf(s->outputs[0].md5, sizeof s->outputs[0].md5, "0123456789abcdef0123456789abcdef");
	s->outputs[0].bytes = 512;
	s->outputs[0].bit_exact = true;
	s->outputs[0].max_abs_err = 0.01;
	s->outputs[0].max_err_ratio = 0.5;
	s->outputs[0].ref_ok = true;
	if (pos > 0) /* schema 12: what the slot's checks compared with A1 */
		snprintf(s->check.compared, sizeof s->check.compared, "mean,rstd,out");
	s->check.calls_checked = 3;
}

/* Slot B differs from A1 in one output (schema 12): its divergence row
 * with a 2 x 2 map, and a call that differed from its first. */
static void plant_divergence(struct results_slot *s)
{
	struct results_divergence *v = calloc(1, sizeof *v);
	snprintf(v->tensor, sizeof v->tensor, "out");
	snprintf(v->role, sizeof v->role, "output");
	snprintf(v->dtype, sizeof v->dtype, "bf16");
	v->stage = 2;
	snprintf(v->axes, sizeof v->axes, "B,T,W");
	snprintf(v->dims, sizeof v->dims, "1,16,256");
	v->elems = 4096;
	v->ulp_hist[0] = 5;
	v->ulp_hist[2] = 2;
	v->n_class = 1;
	v->n_diff = 8;
	v->n_sign = 1;
	v->max_ulp = 7;
	v->at_max_ulp = (struct results_div_elem){ 300, 0x3f80, 0x3f87, 1.0 };
	v->max_abs = 0.0546875;
	v->at_max_abs = (struct results_div_elem){ 300, 0x3f80, 0x3f87, NAN };
	v->first = (struct results_div_elem){ 17, 0x4000, 0x4001, 2.0 };
	v->rows = 16;
	v->rows_touched = 3;
	v->map_rows = v->map_cols = 2;
	v->map_row_bin = 8;
	v->map_col_bin = 128;
	v->map = calloc(4, sizeof *v->map);
	v->map[0] = 5, v->map[3] = 3;
	v->has_ref = true;
	v->ref_compared = 6;
	v->b_closer = 4;
	v->a_closer = 1;
	s->n_div = 1;
	s->div = v;
	s->outputs[0].bit_exact = false;
	s->check.calls_differ = 1;
	s->check.first_differ = 4;
	snprintf(s->check.differ_tensor, sizeof s->check.differ_tensor, "out");
}
/* A run of the cases with the given ordinals, bracket ABA. */
static struct results_run *make_run(const char *label, const int *ordinals, int n_cases)
{
	static const char *const names[] = { "ln_modulate", "qk_layernorm" };
	struct results_run *r = calloc(1, sizeof *r);
	snprintf(r->label, sizeof r->label, "%s", label);
	snprintf(r->scenario_name, sizeof r->scenario_name, "smoke");
	snprintf(r->scenario_path, sizeof r->scenario_path, "scenarios/smoke.ini");
	/* the scenario the cases came from: certify reads it again */
	r->scenario_text = strdup("[scenario]\nname = smoke\nbackend = cpu\n[arms]\na = eager\nb = fused\n"
				  "[case ln_modulate]\nsite = ln_modulate\nshape = 1x16x256\n"
				  "[case qk_layernorm]\nsite = qk_layernorm\nshape = 1x16x2x128\n");
	snprintf(r->scenario_hash, sizeof r->scenario_hash, "%064d", 7);
	r->command_line = strdup("abbench run scenarios/smoke.ini");
	snprintf(r->git_commit, sizeof r->git_commit, "0123456789ab");
	snprintf(r->host, sizeof r->host, "fuzz-host");
	snprintf(r->backend, sizeof r->backend, "cpu");
	snprintf(r->version, sizeof r->version, "0.1.0");
	snprintf(r->noise_measure, sizeof r->noise_measure, "median");
	snprintf(r->bracket, sizeof r->bracket, "ABA");
	snprintf(r->arm_a, sizeof r->arm_a, "eager");
	snprintf(r->arm_b, sizeof r->arm_b, "fused");
	snprintf(r->launch_gaps, sizeof r->launch_gaps, "include");
	r->steps = 2;
	r->forwards_per_step = 1;
	snprintf(r->device.name, sizeof r->device.name, "CPU fake timer");
	snprintf(r->device.uuid, sizeof r->device.uuid, "cpu-fuzz");
	snprintf(r->device.backend, sizeof r->device.backend, "cpu");
	r->device.copy_gbps = 16;
	r->n_cases = n_cases;
	r->cases = calloc((size_t)n_cases, sizeof *r->cases);
	for (int i = 0; i < n_cases; i++) {
		struct results_case *c = &r->cases[i];
		c->ordinal = ordinals[i];
		snprintf(c->name, sizeof c->name, "%s", names[ordinals[i] % 2]);
		snprintf(c->site, sizeof c->site, "%s", names[ordinals[i] % 2]);
		snprintf(c->shape, sizeof c->shape, "%s", ordinals[i] % 2 ? "1x16x2x128" : "1x16x256");
		snprintf(c->dtype, sizeof c->dtype, "bf16");
		snprintf(c->input, sizeof c->input, "normal(mean=0, std=1)");
		c->eps = 1e-5;
		c->count = 1;
		c->bytes_min = c->bytes_a = c->bytes_b = 16384;
		c->n_slots = 3;
		c->slots = calloc(3, sizeof *c->slots);
		fill_slot(&c->slots[0], "A1", 'a', 0, 6, 8000 + 100 * i);
		fill_slot(&c->slots[1], "B", 'b', 1, 6, 2000 + 100 * i);
		fill_slot(&c->slots[2], "A2", 'a', 2, 6, 8010 + 100 * i);
		snprintf(c->arm_a, sizeof c->arm_a, "eager");
		snprintf(c->arm_b, sizeof c->arm_b, "fused");
		if (ordinals[i] == 0)
			plant_divergence(&c->slots[1]);
		/* schema 12: each arm's batch invariance */
		c->inv[0] = (struct results_invariance){ .checked = true, .slot = "A1", .rows_compared = 16,
							 .first_row = -1, .tensor = "" };
		c->inv[1] = (struct results_invariance){ .checked = true, .slot = "B", .rows_compared = 16, .first_row = 3,
							 .other_value = 8, .tensor = "out", .note = "" };
	}
	/* schemas 10 and 11: the run's env and a user arm's provenance */
	snprintf(r->env, sizeof r->env, "cupti=130100 driver=13000");
	r->n_arm_sources = 1;
	struct results_arm_source *a = &r->arm_sources[0];
	a->arm = 'b';
	snprintf(a->name, sizeof a->name, "fused");
	snprintf(a->kind, sizeof a->kind, "python");
	snprintf(a->path, sizeof a->path, "/work/arms/fused.py");
	snprintf(a->sha256, sizeof a->sha256, "%064d", 3);
	snprintf(a->detail, sizeof a->detail, "fused.py:fused");
	snprintf(a->function, sizeof a->function, "fused");
	snprintf(a->versions, sizeof a->versions, "python=3.11.2 numpy=1.24.2 torch=2.11.0 triton=3.6.0");
	return r;
}

static void must(enum ab_rc rc, const struct ab_diag *d, const char *what)
{
	if (rc) {
		fprintf(stderr, "fuzz_store: cannot build the base database: %s: %s\n", what, d->msg);
		abort();
	}
}

static void add_run(struct store *st, struct results_run *r, const char *set, int shard, int count)
{
	struct ab_diag d;
	snprintf(r->run_set, sizeof r->run_set, "%s", set);
	r->shard_index = shard;
	r->shard_count = count;
	must(store_begin_run(st, r, &d), &d, "begin a run");
	must(store_finish_run(st, r, &d), &d, "finish a run");
	results_run_free(r);
}

static void build_base(void)
{
	struct store *st;
	struct ab_diag d;
	static const int both[] = { 0, 1 }, first[] = { 0 }, second[] = { 1 };
	must(store_open(base, true, &st, &d), &d, "open");
	struct results_run *r = make_run("main", both, 2);
	add_run(st, r, "", 0, 0);
	must(store_baseline_set(st, "nightly", 1, &d), &d, "baseline");
	add_run(st, make_run("", first, 1), "s", 1, 2);
	add_run(st, make_run("", second, 1), "s", 2, 2);
	struct results_run *set = NULL;
	must(store_resolve_load(st, "set:s", &set, &d), &d, "load the set");
	must(store_baseline_set_run_set(st, "set-base", set, &d), &d, "baseline of the set");
	results_run_free(set);
	r = make_run("again", first, 1); /* schema 10: a run --recheck */
	r->recheck = true;
	add_run(st, r, "", 0, 0);
	r = make_run("broken", first, 0);
	must(store_begin_run(st, r, &d), &d, "begin the failed run");
	must(store_fail_run(st, r->id, "case 'ln_modulate': the device fell off", &d), &d, "fail a run");
	results_run_free(r);
	must(store_leave_wal(st, &d), &d, "leave WAL");
	store_close(st);
	must(store_open(empty, true, &st, &d), &d, "open the empty database");
	must(store_leave_wal(st, &d), &d, "leave WAL");
	store_close(st);
	sqlite3 *db;
	if (sqlite3_open(base, &db) != SQLITE_OK || sqlite3_exec(db, "PRAGMA page_size = 512; VACUUM", 0, 0, 0))
		abort();
	sqlite3_close(db);
}

static bool copy_file(const char *from, const char *to)
{
	FILE *a = fopen(from, "rb"), *b = a ? fopen(to, "wb") : NULL;
	char buf[1 << 14];
	size_t n;
	bool ok = a && b;
	while (ok && (n = fread(buf, 1, sizeof buf, a)) > 0)
		ok = fwrite(buf, 1, n, b) == n;
	if (a)
		fclose(a);
	if (b && fclose(b))
		ok = false;
	return ok;
}

static void remove_db(const char *path);

/* The harness's directory goes with the process. */
static void cleanup(void)
{
	remove_db(in);
	remove_db(out);
	remove_db(base);
	remove_db(empty);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* On tmpfs when there is one: each input writes, migrates and merges
	 * a database, and fsync on a disk would be most of the time. */
	const char *tmp = getenv("TMPDIR");
	if (access("/dev/shm", W_OK) == 0)
		tmp = "/dev/shm";
	snprintf(dir, sizeof dir, "%.40s/fuzz-store-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		abort();
	snprintf(base, sizeof base, "%s/base.db", dir);
	snprintf(empty, sizeof empty, "%s/empty.db", dir);
	snprintf(in, sizeof in, "%s/in.db", dir);
	snprintf(out, sizeof out, "%s/out.db", dir);
	atexit(cleanup);
	build_base();
	const char *seeds = getenv("FUZZ_SEED_DIR");
	if (seeds && *seeds) {
		char seed[4200];
		snprintf(seed, sizeof seed, "%s/base.db", seeds);
		if (!copy_file(base, seed))
			abort();
	}
	return 0;
}

/* ---- one input -------------------------------------------------------------- */

static int authorize(void *u, int action, const char *a1, const char *a2, const char *a3, const char *a4)
{
	(void)u, (void)a3, (void)a4;
	switch (action) {
	case SQLITE_SELECT: case SQLITE_READ: case SQLITE_UPDATE: case SQLITE_INSERT: case SQLITE_DELETE:
	case SQLITE_RECURSIVE: case SQLITE_TRANSACTION:
		return SQLITE_OK;
	case SQLITE_FUNCTION:
		return a2 && (strstr(a2, "random") || !strcmp(a2, "load_extension")) ? SQLITE_DENY : SQLITE_OK;
	case SQLITE_PRAGMA:
		return a1 && (!strcmp(a1, "writable_schema") || !strcmp(a1, "user_version")) ? SQLITE_OK : SQLITE_DENY;
	default:
		return SQLITE_DENY;
	}
}

static int progress(void *u)
{
	return ++*(int *)u > 20000; /* x 100 instructions */
}

static void remove_db(const char *path)
{
	static const char *const sides[] = { "", "-wal", "-shm", "-journal" };
	char p[128];
	for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++) {
		snprintf(p, sizeof p, "%s%s", path, sides[i]);
		unlink(p);
	}
}

/* The SQL of the input on a fresh copy of the base database. */
static void edit_copy(const uint8_t *data, size_t size)
{
	char *sql = malloc(size + 1);
	sqlite3 *db = NULL;
	int steps = 0;
	if (!sql || !copy_file(base, in))
		abort();
	memcpy(sql, data, size);
	sql[size] = '\0';
	if (sqlite3_open_v2(in, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
		sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
		sqlite3_set_authorizer(db, authorize, NULL);
		sqlite3_progress_handler(db, 100, progress, &steps);
		sqlite3_exec(db, sql, NULL, NULL, NULL);
	}
	sqlite3_close(db);
	free(sql);
}

static void write_image(const uint8_t *data, size_t size)
{
	FILE *f = fopen(in, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	struct store *st = NULL;
	struct ab_diag d;
	if (!store_open(in, false, &st, &d)) /* migrates an older schema; reaps */
		store_close(st);
}

/* Each case's divergence report as `abbench diff` makes it (every tensor,
 * then the first one's alone, with the coordinates of its elements). */
static void diff_cases(const struct results_run *r)
{
	struct divergence_report rep;
	struct divergence_coords at;
	struct ab_diag d;
	for (int i = 0; i < r->n_cases && i < 4; i++) {
		const struct results_case *c = &r->cases[i];
		if (divergence_report_of(r, c, NULL, &rep, &d))
			continue;
		const char *first = NULL;
		for (int k = 0; k < rep.n_slots; k++)
			for (int t = 0; t < rep.slots[k].n_tensors; t++) {
				const struct results_divergence *v = rep.slots[k].tensors[t].v;
				first = first ? first : v->tensor;
				divergence_coords_of(v, v->first.index, &at);
				divergence_coords_of(v, v->at_max_ulp.index, &at);
			}
		divergence_report_free(&rep);
		if (first && !divergence_report_of(r, c, first, &rep, &d))
			divergence_report_free(&rep);
	}
}

/* The run's certificate as `abbench certify` makes it (its stored
 * scenario read again): what certify writes must read back, the same. */
static void certify(struct results_run *r)
{
	struct cert c, back;
	struct ab_diag d;
	char *text = NULL;
	if (certify_runs(&r, 1, &c, &d))
		return;
	if (cert_write(&c, false, &text, &d) || cert_parse(text, strlen(text), "certify", &back, &d)) {
		fprintf(stderr, "fuzz_store: a certificate certify wrote does not read back: %s\n", d.msg);
		abort();
	}
	if (strcmp(back.sha256, c.sha256))
		abort();
	cert_free(&back);
	cert_free(&c);
	free(text);
}

/* A run summarised as show and report summarise it, its cases' divergence
 * reports and its certifiable cases; with all (once per input: the
 * bootstrap intervals are the slow part, and pure statistics) also with
 * its intervals, compared and gated against itself; with cert (once per
 * input) certified when it is 'ok'. */
static void judge(struct results_run *r, bool all, bool cert)
{
	struct summary_run s;
	struct compare_result cr;
	struct gate_result gr;
	struct certified_scope sc;
	struct ab_diag d;
	struct gate_options o = { .max_regression_pct = 5 };
	diff_cases(r);
	if (!certified_scope(r, &sc, &d))
		certified_scope_free(&sc);
	if (cert && !strcmp(r->status, "ok"))
		certify(r);
	if (summary_compute(r, all ? SUMMARY_FULL : SUMMARY_NO_INTERVALS, &s, &d))
		return;
	if (all && !compare_runs(&s, &s, &cr, &d))
		compare_result_free(&cr);
	if (all && !gate_check(&s, &s, &o, &gr, &d))
		gate_result_free(&gr);
	summary_free(&s);
}

static void load_spec(struct store *st, const char *spec, bool baseline, bool all, bool cert)
{
	struct results_run *r = NULL;
	struct ab_diag d;
	if (!(baseline ? store_baseline_load(st, spec, &r, &d) : store_resolve_load(st, spec, &r, &d)))
		judge(r, all, cert);
	results_run_free(r);
}

static void read_all(void)
{
	struct store *st;
	struct ab_diag d;
	struct results_run_summary *list = NULL;
	struct store_baseline *bl = NULL;
	struct store_run_ref *refs = NULL;
	int n = 0, nb = 0, nr = 0;
	int64_t id;
	if (store_open_readonly(in, &st, &d))
		return;
	if (!store_list_runs(st, &list, &n, &d))
		for (int i = 0; i < n && i < 8; i++) {
			struct results_run *r = NULL;
			if (!store_load_run(st, list[i].id, &r, &d))
				judge(r, false, false);
			results_run_free(r);
		}
	load_spec(st, "last", false, true, false);
	load_spec(st, "main", false, false, true);
	load_spec(st, "set:s", false, false, false);
	if (!store_baseline_list(st, &bl, &nb, &d))
		for (int i = 0; i < nb && i < 4; i++)
			load_spec(st, bl[i].name, true, false, false);
	if (!store_list_refs(st, &refs, &nr, &d) && nr)
		store_find_uuid(st, refs[0].uuid, &id, &d);
	free(list);
	free(bl);
	free(refs);
	store_close(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct merge_stats ms;
	struct ab_diag d;
	const char *inputs[1] = { in };
	remove_db(in);
	if (size >= 16 && !memcmp(data, "SQLite format 3", 16))
		write_image(data, size);
	else
		edit_copy(data, size);
	read_all();
	if (!copy_file(empty, out)) /* into an existing OUT: no migrations to run each time */
		abort();
	merge_files(out, inputs, 1, &ms, &d);
	remove_db(out);
	remove_db(in);
	return 0;
}
