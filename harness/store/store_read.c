/*
 * store_read.c - reading runs back (store.h): the listing of `abbench
 * list`, a RUN resolved to one run's id, a whole run loaded into a
 * results_run in one read transaction, and the lookups a merge makes
 * (every run's UUID and status, a run by UUID) and the runner makes (the
 * device's cached copy bandwidth).
 */
#include "store/store.h"
#include "store/store_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

/* ---- listing and resolving runs -------------------------------------- */

static void read_summary(struct col *c, void *p)
{
	struct results_run_summary *m = p;
	m->id = c_i64(c);
	C_STR(c, m->started_at);
	C_STR(c, m->status);
	C_STR(c, m->label);
	C_STR(c, m->scenario_name);
	C_STR(c, m->backend);
	C_STR(c, m->device);
	m->n_cases = c_int(c);
	C_STR(c, m->git_commit);
	m->quick = c_bool(c);
	C_STR(c, m->only_cases);
	m->fake_timer = c_bool(c);
	C_STR(c, m->run_set);
	m->shard_index = c_int(c);
	m->shard_count = c_int(c);
	m->recheck = c_bool(c);
}

enum ab_rc store_list_runs(struct store *st, struct results_run_summary **out, int *n, struct ab_diag *d)
{
	void *v;
	enum ab_rc rc = store_list_rows(st,
					"SELECT r.id, r.started_at, r.status, r.label, r.scenario_name, r.backend, dv.name,"
					" (SELECT count(*) FROM cases c WHERE c.run_id = r.id),"
					" r.git_commit, r.quick, r.only_cases, r.fake_timer, r.run_set, r.shard_index,"
					" r.shard_count, r.recheck FROM runs r JOIN devices dv ON dv.id = r.device_id"
					" ORDER BY r.started_at DESC, r.id DESC",
					NULL, sizeof **out, read_summary, &v, n, "list runs", d);
	*out = v;
	return rc;
}

/* A run id written in decimal, nothing else around it. */
static bool parse_id(const char *spec, int64_t *id)
{
	char *end;
	if (*spec < '0' || *spec > '9')
		return false;
	errno = 0;
	long long v = strtoll(spec, &end, 10);
	if (errno || *end || v <= 0)
		return false;
	*id = v;
	return true;
}

enum ab_rc store_resolve_run(struct store *st, const char *spec, int64_t *id, struct ab_diag *d)
{
	bool found = false;
	int64_t num = 0;
	enum ab_rc rc;
	if (store_set_spec(spec))
		return ab_fail(d, AB_ERR_USAGE, "'%s' names a run set; this takes one run", spec);
	if (!spec || strcmp(spec, "last") == 0)
		rc = store_query_id(st,
			      "SELECT id FROM runs WHERE status <> 'running' ORDER BY started_at DESC, id DESC LIMIT 1",
			      NULL, 0, id, &found, d);
	else if (parse_id(spec, &num))
		rc = store_query_id(st, "SELECT id FROM runs WHERE id = ?", NULL, num, id, &found, d);
	else
		rc = store_query_id(st,
			      "SELECT id FROM runs WHERE label = ? AND status <> 'running'"
			      " ORDER BY started_at DESC, id DESC LIMIT 1",
			      spec, 0, id, &found, d);
	if (!rc && !found)
		rc = ab_fail(d, AB_ERR_DATA, "no run '%s' in '%s'", spec ? spec : "last", st->path);
	return rc;
}

static void read_ref(struct col *c, void *p)
{
	struct store_run_ref *m = p;
	m->id = c_i64(c);
	C_STR(c, m->uuid);
	C_STR(c, m->status);
}

enum ab_rc store_list_refs(struct store *st, struct store_run_ref **out, int *n, struct ab_diag *d)
{
	void *v;
	enum ab_rc rc = store_list_rows(st, "SELECT id, uuid, status FROM runs ORDER BY id", NULL, sizeof **out,
					read_ref, &v, n, "list runs", d);
	*out = v;
	return rc;
}

enum ab_rc store_find_uuid(struct store *st, const char *uuid, int64_t *id, struct ab_diag *d)
{
	bool found = false;
	*id = 0;
	enum ab_rc rc = store_query_id(st, "SELECT id FROM runs WHERE uuid = ?", uuid, 0, id, &found, d);
	if (!found)
		*id = 0;
	return rc;
}

enum ab_rc store_device_copy_gbps(struct store *st, const char *uuid, double *gbps, struct ab_diag *d)
{
	struct bind b;
	*gbps = 0;
	enum ab_rc rc = store_prepare_bind(st,
					   "SELECT copy_gbps FROM devices WHERE uuid = ? AND copy_gbps > 0"
					   " ORDER BY id DESC LIMIT 1",
					   &b, d);
	if (rc)
		return rc;
	b_text(&b, uuid);
	int src = step_bound(&b);
	if (src == SQLITE_ROW)
		*gbps = sqlite3_column_double(b.s, 0);
	else if (src != SQLITE_DONE)
		rc = store_db_fail(st, d, "read the copy bandwidth of device '%s'", uuid);
	sqlite3_finalize(b.s);
	return rc;
}

/* ---- loading a run back ---------------------------------------------- */

/* The loader's child queries, one parameter each (the parent's id), indexed by L_*. */
enum { L_CASES, L_SLOTS, L_SAMPLES, L_KERNELS, L_OUTPUTS, L_N };

static const char *const loader_sql[L_N] = {
	[L_CASES] = "SELECT id, ordinal, " CASE_COLS " FROM cases WHERE run_id = ? ORDER BY ordinal",
	[L_SLOTS] = "SELECT id, " SLOT_COLS " FROM slots WHERE case_id = ? ORDER BY position",
	[L_SAMPLES] = "SELECT idx, wall_ns, kernel_ns FROM samples WHERE slot_id = ? ORDER BY idx",
	[L_KERNELS] = "SELECT " KERNEL_COLS " FROM kernel_times WHERE slot_id = ? ORDER BY total_ns DESC, id",
	[L_OUTPUTS] = "SELECT idx, " OUTPUT_COLS " FROM outputs WHERE slot_id = ? ORDER BY idx",
};

/* Where the loader is, for the messages about a row: the run, and the
 * case and slot being read. */
struct loader {
	struct store *st;
	sqlite3_stmt *s[L_N];
	const struct results_run *run;
	const struct results_case *k;
	const struct results_slot *slot;
};

/* "run 3, case 'x' (ordinal 0), slot 'A1' (position 0)" as far as known,
 * then extra ("sample 4"). */
static const char *where(const struct loader *L, char *buf, size_t len, const char *extra)
{
	int n = snprintf(buf, len, "run %lld", (long long)L->run->id);
	if (L->k && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ", case '%.64s' (ordinal %d)", L->k->name, L->k->ordinal);
	if (L->slot && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ", slot '%.8s' (position %d)", L->slot->label, L->slot->position);
	if (extra && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ", %s", extra);
	return buf;
}

/* A row of table refused: its column that did not read (c->bad), else
 * ok false with why from a check of results_check.h. */
static enum ab_rc row_refused(struct loader *L, const char *table, const struct col *c, const char *why,
			      const char *extra, struct ab_diag *d)
{
	char at[300];
	return store_bad_row(L->st, table, where(L, at, sizeof at, extra), c && c->bad ? c->why : why, d);
}

/* Binds the parent id of a child query (always parameter 1). */
static enum ab_rc bind_parent(struct loader *L, sqlite3_stmt *s, int64_t id, struct ab_diag *d)
{
	sqlite3_reset(s);
	if (sqlite3_bind_int64(s, 1, id) != SQLITE_OK)
		return store_db_fail(L->st, d, "bind id %" PRId64, id);
	return AB_OK;
}

/* Samples are stored one row per index 0..n_samples-1 (n_samples already
 * checked to be in range); anything else means the file was edited or
 * damaged. */
static enum ab_rc load_samples(struct loader *L, int64_t slot_id, struct results_slot *s, struct ab_diag *d)
{
	int n = 0, src = SQLITE_DONE;
	char why[160], extra[48];
	if (s->n_samples > 0) {
		s->samples_ns = malloc((size_t)s->n_samples * sizeof *s->samples_ns);
		s->kernel_ns = malloc((size_t)s->n_samples * sizeof *s->kernel_ns);
		if (!s->samples_ns || !s->kernel_ns)
			return store_nomem(d, "load samples");
	}
	enum ab_rc rc = bind_parent(L, L->s[L_SAMPLES], slot_id, d);
	while (!rc && (src = sqlite3_step(L->s[L_SAMPLES])) == SQLITE_ROW) {
		struct col c = { .s = L->s[L_SAMPLES] };
		if (c_i64(&c) != n || n >= s->n_samples)
			break;
		double wall = c_real(&c), kernel = c_real(&c);
		snprintf(extra, sizeof extra, "sample %d", n);
		if (c.bad || !results_check_sample(wall, kernel, why, sizeof why))
			rc = row_refused(L, "samples", &c, why, extra, d);
		s->samples_ns[n] = wall;
		s->kernel_ns[n++] = kernel;
	}
	if (!rc && src != SQLITE_DONE && src != SQLITE_ROW)
		rc = store_db_fail(L->st, d, "read samples of slot '%s' of case '%s'", s->label, L->k->name);
	else if (!rc && (src == SQLITE_ROW || n != s->n_samples)) {
		snprintf(why, sizeof why, "the slot should have %d samples 0..%d, has others", s->n_samples,
			 s->n_samples - 1);
		rc = row_refused(L, "samples", NULL, why, NULL, d);
	}
	sqlite3_reset(L->s[L_SAMPLES]);
	return rc;
}

static enum ab_rc load_kernels(struct loader *L, int64_t slot_id, struct results_slot *s, struct ab_diag *d)
{
	int cap = 0, src = SQLITE_DONE;
	char why[160], extra[48];
	enum ab_rc rc = bind_parent(L, L->s[L_KERNELS], slot_id, d);
	while (!rc && (src = sqlite3_step(L->s[L_KERNELS])) == SQLITE_ROW) {
		snprintf(extra, sizeof extra, "kernel record %d", s->n_kernels);
		if (s->n_kernels == RESULTS_MAX_KERNELS) {
			snprintf(why, sizeof why, "more than %d kernel records", RESULTS_MAX_KERNELS);
			rc = row_refused(L, "kernel_times", NULL, why, NULL, d);
			break;
		}
		void *q = store_grow(s->kernels, s->n_kernels, &cap, sizeof *s->kernels);
		if (!q) {
			rc = store_nomem(d, "load kernel times");
			break;
		}
		s->kernels = q;
		struct col c = { .s = L->s[L_KERNELS] };
		struct results_kernel *k = &s->kernels[s->n_kernels++];
		store_read_kernel(&c, k);
		if (c.bad || !results_check_kernel(k, why, sizeof why))
			rc = row_refused(L, "kernel_times", &c, why, extra, d);
	}
	if (!rc && src != SQLITE_DONE)
		rc = store_db_fail(L->st, d, "read kernel times of slot '%s' of case '%s'", s->label, L->k->name);
	sqlite3_reset(L->s[L_KERNELS]);
	return rc;
}

/* Outputs are stored one row per index 0..n-1, at most RESULTS_MAX_OUTPUTS. */
static enum ab_rc load_outputs(struct loader *L, int64_t slot_id, struct results_slot *s, struct ab_diag *d)
{
	int src = SQLITE_DONE;
	char why[160], extra[48];
	enum ab_rc rc = bind_parent(L, L->s[L_OUTPUTS], slot_id, d);
	while (!rc && (src = sqlite3_step(L->s[L_OUTPUTS])) == SQLITE_ROW) {
		struct col c = { .s = L->s[L_OUTPUTS] };
		int64_t idx = c_i64(&c);
		snprintf(extra, sizeof extra, "output %lld", (long long)idx);
		if (s->n_outputs == RESULTS_MAX_OUTPUTS || idx != s->n_outputs) {
			snprintf(why, sizeof why, "outputs are numbered 0 to %d, in order", RESULTS_MAX_OUTPUTS - 1);
			rc = row_refused(L, "outputs", NULL, why, extra, d);
			break;
		}
		struct results_output *o = &s->outputs[s->n_outputs++];
		store_read_output(&c, o);
		if (c.bad || !results_check_output(o, why, sizeof why))
			rc = row_refused(L, "outputs", &c, why, extra, d);
	}
	if (!rc && src != SQLITE_DONE)
		rc = store_db_fail(L->st, d, "read outputs of slot '%s' of case '%s'", s->label, L->k->name);
	sqlite3_reset(L->s[L_OUTPUTS]);
	return rc;
}

/* A slot's row, checked before anything is sized from it, then its
 * samples, kernel records and outputs. Slots are read by position, which
 * must run 0..n-1. */
static enum ab_rc load_slot(struct loader *L, struct results_case *k, struct results_slot *s, struct ab_diag *d)
{
	char why[160];
	struct col c = { .s = L->s[L_SLOTS] };
	int64_t slot_id = c_i64(&c);
	int want = (int)(s - k->slots);
	store_read_slot(&c, s);
	L->slot = s;
	if (c.bad || !results_check_slot_row(s, why, sizeof why))
		return row_refused(L, "slots", &c, why, NULL, d);
	if (s->position != want) {
		snprintf(why, sizeof why, "position %d where the case's slot %d should be", s->position, want);
		return row_refused(L, "slots", NULL, why, NULL, d);
	}
	enum ab_rc rc = load_samples(L, slot_id, s, d);
	if (!rc)
		rc = load_kernels(L, slot_id, s, d);
	if (!rc)
		rc = load_outputs(L, slot_id, s, d);
	return rc;
}

static enum ab_rc load_slots(struct loader *L, int64_t case_id, struct results_case *k, struct ab_diag *d)
{
	int cap = 0, src = SQLITE_DONE;
	char why[160];
	enum ab_rc rc = bind_parent(L, L->s[L_SLOTS], case_id, d);
	while (!rc && (src = sqlite3_step(L->s[L_SLOTS])) == SQLITE_ROW) {
		if (k->n_slots == RESULTS_MAX_SLOTS) {
			snprintf(why, sizeof why, "more than %d slots", RESULTS_MAX_SLOTS);
			rc = row_refused(L, "slots", NULL, why, NULL, d);
			break;
		}
		void *q = store_grow(k->slots, k->n_slots, &cap, sizeof *k->slots);
		if (!q) {
			rc = store_nomem(d, "load slots");
			break;
		}
		k->slots = q;
		struct results_slot *s = &k->slots[k->n_slots++];
		memset(s, 0, sizeof *s);
		rc = load_slot(L, k, s, d);
	}
	L->slot = NULL;
	if (!rc && src != SQLITE_DONE)
		rc = store_db_fail(L->st, d, "read slots of case '%s'", k->name);
	else if (!rc && !results_check_bracket(L->run->bracket, k, why, sizeof why))
		rc = row_refused(L, "slots", NULL, why, NULL, d);
	sqlite3_reset(L->s[L_SLOTS]);
	return rc;
}

static enum ab_rc load_cases(struct loader *L, struct results_run *r, struct ab_diag *d)
{
	int cap = 0, src = SQLITE_DONE;
	char why[160];
	enum ab_rc rc = bind_parent(L, L->s[L_CASES], r->id, d);
	while (!rc && (src = sqlite3_step(L->s[L_CASES])) == SQLITE_ROW) {
		void *q = store_grow(r->cases, r->n_cases, &cap, sizeof *r->cases);
		if (!q) {
			rc = store_nomem(d, "load cases");
			break;
		}
		r->cases = q;
		struct results_case *k = &r->cases[r->n_cases++];
		memset(k, 0, sizeof *k);
		struct col c = { .s = L->s[L_CASES] };
		int64_t case_id = c_i64(&c);
		store_read_case(&c, k);
		L->k = k;
		/* a run stored before schema 9: every case ran the run's arms */
		if (!k->arm_a[0] && !k->arm_b[0]) {
			snprintf(k->arm_a, sizeof k->arm_a, "%s", r->arm_a);
			snprintf(k->arm_b, sizeof k->arm_b, "%s", r->arm_b);
		}
		if (c.bad || !results_check_case_row(k, why, sizeof why))
			rc = row_refused(L, "cases", &c, why, NULL, d);
		else
			rc = load_slots(L, case_id, k, d);
	}
	L->k = NULL;
	if (!rc && src != SQLITE_DONE)
		rc = store_db_fail(L->st, d, "read cases of run %" PRId64, r->id);
	sqlite3_reset(L->s[L_CASES]);
	return rc;
}

static enum ab_rc load_arm_sources(struct loader *L, struct results_run *r, struct ab_diag *d)
{
	struct bind b;
	int src;
	char why[160];
	enum ab_rc rc = store_prepare_bind(L->st, "SELECT " ARM_SOURCE_COLS " FROM run_arms WHERE run_id = ? ORDER BY arm, name",
					   &b, d);
	if (rc)
		return rc;
	b_i64(&b, r->id);
	r->n_arm_sources = 0;
	while (!rc && (src = step_bound(&b)) == SQLITE_ROW && r->n_arm_sources < RESULTS_MAX_ARM_SOURCES) {
		struct col c = { .s = b.s };
		struct results_arm_source *a = &r->arm_sources[r->n_arm_sources++];
		store_read_arm_source(&c, a);
		if (c.bad || !results_check_arm_source(a, why, sizeof why))
			rc = row_refused(L, "run_arms", &c, why, NULL, d);
	}
	if (!rc && src != SQLITE_ROW && src != SQLITE_DONE)
		rc = store_db_fail(L->st, d, "read the arm sources of run %" PRId64, r->id);
	sqlite3_finalize(b.s);
	return rc;
}

static enum ab_rc load_device(struct loader *L, int64_t device_id, struct results_device *dv, struct ab_diag *d)
{
	struct bind b;
	char why[160], extra[48];
	enum ab_rc rc = store_prepare_bind(L->st, "SELECT " DEVICE_COLS " FROM devices WHERE id = ?", &b, d);
	if (rc)
		return rc;
	b_i64(&b, device_id);
	int src = step_bound(&b);
	if (src == SQLITE_ROW) {
		struct col c = { .s = b.s };
		store_read_device(&c, dv);
		snprintf(extra, sizeof extra, "device %lld", (long long)device_id);
		if (c.bad || !results_check_device(dv, why, sizeof why))
			rc = row_refused(L, "devices", &c, why, extra, d);
	} else if (src == SQLITE_DONE) {
		rc = ab_fail(d, AB_ERR_DATA, "no device %" PRId64 " in '%s'", device_id, L->st->path);
	} else {
		rc = store_db_fail(L->st, d, "read device %" PRId64, device_id);
	}
	sqlite3_finalize(b.s);
	return rc;
}

static enum ab_rc load_header(struct loader *L, int64_t id, struct results_run *r, struct ab_diag *d)
{
	struct bind b;
	int64_t device_id = 0;
	bool ok = true;
	char why[160];
	enum ab_rc rc = store_prepare_bind(L->st, "SELECT id, " RUN_COLS " FROM runs WHERE id = ?", &b, d);
	if (rc)
		return rc;
	b_i64(&b, id);
	int src = step_bound(&b);
	if (src == SQLITE_ROW) {
		struct col c = { .s = b.s };
		r->id = c_i64(&c);
		device_id = store_read_run(&c, r, &ok);
		if (!ok)
			rc = store_nomem(d, "load the run");
		else if (c.bad || !results_check_run_row(r, why, sizeof why))
			rc = row_refused(L, "runs", &c, why, NULL, d);
	} else if (src == SQLITE_DONE) {
		rc = ab_fail(d, AB_ERR_DATA, "no run '%" PRId64 "' in '%s'", id, L->st->path);
	} else {
		rc = store_db_fail(L->st, d, "read run %" PRId64, id);
	}
	sqlite3_finalize(b.s);
	if (!rc)
		rc = load_device(L, device_id, &r->device, d);
	if (!rc)
		rc = load_arm_sources(L, r, d);
	return rc;
}

/* One read transaction, so that the run is read from one snapshot (or
 * the caller's transaction: a merge reads what it wrote). Every row is
 * checked as it is read (results_check.h), before anything is sized from
 * it: a damaged or edited row is AB_ERR_DATA naming its table, run, case
 * and slot. */
enum ab_rc store_load_run(struct store *st, int64_t id, struct results_run **out, struct ab_diag *d)
{
	bool own = sqlite3_get_autocommit(st->db) != 0;
	*out = NULL;
	struct results_run *r = calloc(1, sizeof *r);
	if (!r)
		return store_nomem(d, "load the run");
	struct loader L = { .st = st, .run = r };
	r->id = id;
	enum ab_rc rc = own ? store_exec(st, "BEGIN", "begin reading the run", d) : AB_OK;
	if (!rc)
		rc = load_header(&L, id, r, d);
	if (!rc)
		rc = store_prepare_all(st, loader_sql, L.s, L_N, d);
	if (!rc)
		rc = load_cases(&L, r, d);
	store_finalize_all(L.s, L_N);
	if (own)
		store_rollback(st); /* read only: nothing to commit */
	if (rc) {
		results_run_free(r);
		return rc;
	}
	*out = r;
	return AB_OK;
}
