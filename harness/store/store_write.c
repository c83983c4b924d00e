/*
 * store_write.c - writing runs (store.h): a device row found or added, a
 * run begun ('running', committed before anything is measured), its cases
 * committed one transaction each as they finish, the run finished (the
 * transaction that sets 'ok' once every planned case is stored), failed or
 * interrupted (its finished cases kept, each whole), taken up again by
 * `run --resume`, and a run of another database imported inside a merge's
 * transaction.
 */
#include "store/store.h"
#include "store/store_int.h"

#include <inttypes.h>
#include <unistd.h>

#include "common/procid.h"
#include "common/utc.h"

/* ---- devices ------------------------------------------------------------ */

/* Looks the device up by its identity; *id = 0 when absent. */
static enum ab_rc device_find(struct store *st, const struct results_device *dv, int64_t *id, struct ab_diag *d)
{
	struct bind b;
	enum ab_rc rc = store_prepare_bind(st,
				     "SELECT id FROM devices WHERE uuid = ? AND name = ? AND backend = ?"
				     " AND driver_version = ? AND runtime_version = ?",
				     &b, d);
	if (rc)
		return rc;
	B_STR(&b, dv->uuid);
	B_STR(&b, dv->name);
	B_STR(&b, dv->backend);
	B_STR(&b, dv->driver_version);
	B_STR(&b, dv->runtime_version);
	int src = step_bound(&b);
	*id = src == SQLITE_ROW ? sqlite3_column_int64(b.s, 0) : 0;
	if (src != SQLITE_ROW && src != SQLITE_DONE)
		rc = store_db_fail(st, d, "look up device '%s'", dv->name);
	sqlite3_finalize(b.s);
	return rc;
}

/* Caches a newly measured copy bandwidth on the device row. */
static enum ab_rc device_set_copy(struct store *st, int64_t id, double gbps, struct ab_diag *d)
{
	struct bind b;
	if (!(isfinite(gbps) && gbps > 0))
		return AB_OK;
	enum ab_rc rc = store_prepare_bind(st, "UPDATE devices SET copy_gbps = ? WHERE id = ?", &b, d);
	if (rc)
		return rc;
	b_real(&b, gbps);
	b_i64(&b, id);
	return store_run_bound(st, &b, d, "update the copy bandwidth of device %" PRId64, id);
}

/* The existing row for this device (same uuid, name, backend, driver and
 * runtime), else a new one. */
static enum ab_rc device_upsert(struct store *st, const struct results_device *dv, int64_t *id, struct ab_diag *d)
{
	struct bind b;
	enum ab_rc rc = device_find(st, dv, id, d);
	if (rc || *id)
		return rc ? rc : device_set_copy(st, *id, dv->copy_gbps, d);
	rc = store_prepare_bind(st, "INSERT INTO devices (" DEVICE_COLS ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", &b, d);
	if (rc)
		return rc;
	store_bind_device(&b, dv);
	rc = store_run_bound(st, &b, d, "insert device '%s'", dv->name);
	*id = sqlite3_last_insert_rowid(st->db);
	return rc;
}

/* ---- the run row ---------------------------------------------------- */

static enum ab_rc insert_run(struct store *st, const struct results_run *r, int64_t device_id, int64_t *id,
			     struct ab_diag *d)
{
	struct bind b;
	enum ab_rc rc = store_prepare_bind(st,
				     "INSERT INTO runs (" RUN_COLS ") VALUES "
				     "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
				     &b, d);
	if (rc)
		return rc;
	store_bind_run(&b, r, device_id);
	rc = store_run_bound(st, &b, d, "insert run of scenario '%s'", r->scenario_name);
	*id = sqlite3_last_insert_rowid(st->db);
	return rc;
}

/* Records this process as the run's owner (procid.h), so that another
 * command can tell when it is gone. */
static enum ab_rc claim_run(struct store *st, int64_t id, struct ab_diag *d)
{
	struct bind b;
	char process[PROCID_MAX];
	int64_t pid = procid_owner(); /* the supervisor of `abbench run`, which outlives the run */
	procid_of(pid, process, sizeof process);
	enum ab_rc rc = store_prepare_bind(st, "UPDATE runs SET pid = ?, process = ? WHERE id = ?", &b, d);
	if (rc)
		return rc;
	b_i64(&b, pid);
	b_text(&b, process);
	b_i64(&b, id);
	return store_run_bound(st, &b, d, "record the owner of run %" PRId64, id);
}

/* The user arms' provenance, written with the run row. */
static enum ab_rc insert_arm_sources(struct store *st, const struct results_run *r, int64_t id, struct ab_diag *d)
{
	enum ab_rc rc = AB_OK;
	for (int i = 0; !rc && i < r->n_arm_sources; i++) {
		struct bind b;
		rc = store_prepare_bind(st, "INSERT INTO run_arms (run_id, " ARM_SOURCE_COLS ") VALUES (?,?,?,?,?,?,?,?,?)",
					&b, d);
		if (rc)
			break;
		b_i64(&b, id);
		store_bind_arm_source(&b, &r->arm_sources[i]);
		rc = store_run_bound(st, &b, d, "insert the source of arm %c", r->arm_sources[i].arm);
	}
	return rc;
}

/* A random (version 4) UUID from SQLite's generator, which the OS seeds. */
static void new_uuid(char *buf, size_t len)
{
	unsigned char u[16];
	sqlite3_randomness(sizeof u, u);
	u[6] = (unsigned char)((u[6] & 0x0f) | 0x40);
	u[8] = (unsigned char)((u[8] & 0x3f) | 0x80);
	snprintf(buf, len, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
		 u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* What store_begin_run writes: the run row, its device, its arm sources. */
static enum ab_rc check_begin(const struct results_run *r, struct ab_diag *d)
{
	char why[AB_DIAG_MAX - 64];
	const char *what = NULL;
	if (!results_check_run_row(r, why, sizeof why))
		what = "the run";
	else if (!results_check_device(&r->device, why, sizeof why))
		what = "the device";
	for (int i = 0; !what && i < r->n_arm_sources; i++)
		if (!results_check_arm_source(&r->arm_sources[i], why, sizeof why))
			what = "an arm's source";
	return what ? ab_fail(d, AB_ERR_DATA, "the run cannot be stored: %s: %s", what, why) : AB_OK;
}

/* What a run about to be written holds, checked whole (results_check.h). */
static enum ab_rc check_whole(const struct results_run *r, const char *what, struct ab_diag *d)
{
	char why[AB_DIAG_MAX - 64];
	if (!results_check_run(r, why, sizeof why))
		return ab_fail(d, AB_ERR_DATA, "%s cannot be stored: %s", what, why);
	return AB_OK;
}

enum ab_rc store_begin_run(struct store *st, struct results_run *r, struct ab_diag *d)
{
	int64_t device_id = 0, id = 0;
	if (!r->started_at[0])
		utc_now(r->started_at, sizeof r->started_at);
	new_uuid(r->uuid, sizeof r->uuid); /* a new run: a new identity */
	snprintf(r->status, sizeof r->status, "running");
	enum ab_rc rc = check_begin(r, d);
	if (rc)
		return rc;
	rc = store_exec(st, "BEGIN IMMEDIATE", "begin the run", d);
	if (!rc)
		rc = device_upsert(st, &r->device, &device_id, d);
	if (!rc)
		rc = insert_run(st, r, device_id, &id, d);
	if (!rc)
		rc = insert_arm_sources(st, r, id, d);
	if (!rc)
		rc = claim_run(st, id, d);
	if (!rc)
		rc = store_exec(st, "COMMIT", "commit the new run", d);
	if (rc) {
		store_rollback(st);
		return rc;
	}
	r->id = id;
	return AB_OK;
}

/* ---- writing cases --------------------------------------------------- */

/* The writer's statements, prepared once per run and indexed by W_*. */
enum { W_CASE, W_SLOT, W_SAMPLE, W_KERNEL, W_OUTPUT, W_DIV, W_CHECK, W_INV, W_N };

static const char *const writer_sql[W_N] = {
	[W_CASE] = "INSERT INTO cases (run_id, ordinal, " CASE_COLS ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?"
		   ",?,?,?,?,?,?,?)",
	[W_SLOT] = "INSERT INTO slots (case_id, " SLOT_COLS ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?"
		   ",?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[W_SAMPLE] = "INSERT INTO samples (slot_id, idx, wall_ns, kernel_ns, host_ns) VALUES (?,?,?,?,?)",
	[W_KERNEL] = "INSERT INTO kernel_times (slot_id, " KERNEL_COLS ") VALUES (?,?,?,?,?,?,?)",
	[W_OUTPUT] = "INSERT INTO outputs (slot_id, idx, " OUTPUT_COLS ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
	[W_DIV] = "INSERT INTO divergence (slot_id, idx, " DIV_COLS ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[W_CHECK] = "INSERT INTO slot_checks (slot_id, " CHECK_COLS ") VALUES (?,?,?,?,?,?)",
	[W_INV] = "INSERT INTO invariance (case_id, " INV_COLS ") VALUES (?,?,?,?,?,?,?,?)",
};
_Static_assert(DIV_N_COLS == 42, "W_DIV's placeholders");

struct writer {
	struct store *st;
	sqlite3_stmt *s[W_N];
};

static enum ab_rc write_samples(struct writer *w, int64_t slot_id, const struct results_slot *s, const char *cname,
				struct ab_diag *d)
{
	if (s->n_samples > 0 && !s->samples_ns)
		return ab_fail(d, AB_ERR_INTERNAL, "slot '%s' of case '%s' has %d samples and no array", s->label,
			       cname, s->n_samples);
	for (int i = 0; i < s->n_samples; i++) {
		struct bind b = bind_start(w->s[W_SAMPLE]);
		b_i64(&b, slot_id);
		b_i64(&b, i);
		b_real(&b, s->samples_ns[i]);
		b_real(&b, s->kernel_ns ? s->kernel_ns[i] : NAN);
		b_real(&b, s->host_ns ? s->host_ns[i] : NAN);
		enum ab_rc rc = store_run_bound(w->st, &b, d, "insert sample %d of slot '%s' of case '%s'", i, s->label,
					  cname);
		if (rc)
			return rc;
	}
	return AB_OK;
}

static enum ab_rc write_kernels(struct writer *w, int64_t slot_id, const struct results_slot *s, const char *cname,
				struct ab_diag *d)
{
	for (int i = 0; i < s->n_kernels; i++) {
		struct bind b = bind_start(w->s[W_KERNEL]);
		b_i64(&b, slot_id);
		store_bind_kernel(&b, &s->kernels[i]);
		enum ab_rc rc = store_run_bound(w->st, &b, d, "insert kernel '%.80s' of slot '%s' of case '%s'",
					  s->kernels[i].name, s->label, cname);
		if (rc)
			return rc;
	}
	return AB_OK;
}

static enum ab_rc write_outputs(struct writer *w, int64_t slot_id, const struct results_slot *s, const char *cname,
				struct ab_diag *d)
{
	if (s->n_outputs < 0 || s->n_outputs > RESULTS_MAX_OUTPUTS)
		return ab_fail(d, AB_ERR_INTERNAL, "slot '%s' of case '%s' has %d outputs", s->label, cname,
			       s->n_outputs);
	for (int i = 0; i < s->n_outputs; i++) {
		struct bind b = bind_start(w->s[W_OUTPUT]);
		b_i64(&b, slot_id);
		b_i64(&b, i);
		store_bind_output(&b, &s->outputs[i]);
		enum ab_rc rc = store_run_bound(w->st, &b, d, "insert output '%s' of slot '%s' of case '%s'",
					  s->outputs[i].tensor, s->label, cname);
		if (rc)
			return rc;
	}
	return AB_OK;
}

/* The slot's check row and its divergences, in order. */
static enum ab_rc write_divergences(struct writer *w, int64_t slot_id, const struct results_slot *s, const char *cname,
				    struct ab_diag *d)
{
	struct bind b = bind_start(w->s[W_CHECK]);
	b_i64(&b, slot_id);
	store_bind_check(&b, &s->check);
	enum ab_rc rc = store_run_bound(w->st, &b, d, "insert the checks of slot '%s' of case '%s'", s->label, cname);
	for (int i = 0; !rc && i < s->n_div; i++) {
		b = bind_start(w->s[W_DIV]);
		b_i64(&b, slot_id);
		b_i64(&b, i);
		store_bind_divergence(&b, &s->div[i]);
		rc = store_run_bound(w->st, &b, d, "insert the divergence of '%s' in slot '%s' of case '%s'", s->div[i].tensor,
				     s->label, cname);
	}
	return rc;
}

/* Each arm's batch invariance, where it was checked. */
static enum ab_rc write_invariance(struct writer *w, int64_t case_id, const struct results_case *c, struct ab_diag *d)
{
	enum ab_rc rc = AB_OK;
	for (int a = 0; !rc && a < 2; a++) {
		if (!c->inv[a].checked)
			continue;
		struct bind b = bind_start(w->s[W_INV]);
		b_i64(&b, case_id);
		store_bind_invariance(&b, a ? 'b' : 'a', &c->inv[a]);
		rc = store_run_bound(w->st, &b, d, "insert the batch invariance of case '%s'", c->name);
	}
	return rc;
}

static enum ab_rc write_slot(struct writer *w, int64_t case_id, const struct results_case *c, const struct results_slot *s,
			     struct ab_diag *d)
{
	struct bind b = bind_start(w->s[W_SLOT]);
	b_i64(&b, case_id);
	store_bind_slot(&b, s);
	enum ab_rc rc = store_run_bound(w->st, &b, d, "insert slot '%s' of case '%s'", s->label, c->name);
	int64_t slot_id = sqlite3_last_insert_rowid(w->st->db);
	if (!rc)
		rc = write_samples(w, slot_id, s, c->name, d);
	if (!rc)
		rc = write_kernels(w, slot_id, s, c->name, d);
	if (!rc)
		rc = write_outputs(w, slot_id, s, c->name, d);
	if (!rc)
		rc = write_divergences(w, slot_id, s, c->name, d);
	return rc;
}

static enum ab_rc write_case(struct writer *w, int64_t run_id, const struct results_case *c, struct ab_diag *d)
{
	struct bind b = bind_start(w->s[W_CASE]);
	b_i64(&b, run_id);
	b_i64(&b, c->ordinal);
	store_bind_case(&b, c);
	enum ab_rc rc = store_run_bound(w->st, &b, d, "insert case '%s'", c->name);
	int64_t case_id = sqlite3_last_insert_rowid(w->st->db);
	for (int i = 0; !rc && i < c->n_slots; i++)
		rc = write_slot(w, case_id, c, &c->slots[i], d);
	if (!rc)
		rc = write_invariance(w, case_id, c, d);
	return rc;
}

/* The status of run id into status (AB_ERR_DATA: no such run). */
static enum ab_rc run_status(struct store *st, int64_t id, char *status, size_t len, struct ab_diag *d)
{
	struct bind b;
	enum ab_rc rc = store_prepare_bind(st, "SELECT status FROM runs WHERE id = ?", &b, d);
	if (rc)
		return rc;
	b_i64(&b, id);
	int src = step_bound(&b);
	if (src == SQLITE_DONE)
		rc = ab_fail(d, AB_ERR_DATA, "no run %" PRId64 " in '%s'", id, st->path);
	else if (src != SQLITE_ROW)
		rc = store_db_fail(st, d, "read the status of run %" PRId64, id);
	else
		snprintf(status, len, "%s", (const char *)sqlite3_column_text(b.s, 0));
	sqlite3_finalize(b.s);
	return rc;
}

/* The run must exist and still be 'running': results are written once. */
static enum ab_rc check_running(struct store *st, int64_t id, struct ab_diag *d)
{
	char status[16];
	enum ab_rc rc = run_status(st, id, status, sizeof status, d);
	if (!rc && strcmp(status, "running"))
		rc = ab_fail(d, AB_ERR_DATA, "run %" PRId64 " is already '%s'", id, status);
	return rc;
}

/* How many cases run id holds, and (ordinal >= 0) whether one of them is
 * at that ordinal. */
static enum ab_rc count_cases(struct store *st, int64_t id, int ordinal, int64_t *n, bool *has, struct ab_diag *d)
{
	struct bind b;
	enum ab_rc rc = store_prepare_bind(st, "SELECT count(*), coalesce(sum(ordinal = ?), 0) FROM cases WHERE run_id = ?",
					   &b, d);
	if (rc)
		return rc;
	b_i64(&b, ordinal);
	b_i64(&b, id);
	if (step_bound(&b) == SQLITE_ROW) {
		*n = sqlite3_column_int64(b.s, 0);
		*has = sqlite3_column_int64(b.s, 1) > 0;
	} else {
		rc = store_db_fail(st, d, "count the cases of run %" PRId64, id);
	}
	sqlite3_finalize(b.s);
	return rc;
}

/* Every case of r that run_id does not hold yet (a case committed as it
 * finished is there already), each with its slots, samples, kernels and
 * outputs. */
static enum ab_rc write_missing_cases(struct store *st, const struct results_run *r, int64_t run_id, struct ab_diag *d)
{
	struct writer w = { .st = st };
	enum ab_rc rc = store_prepare_all(st, writer_sql, w.s, W_N, d);
	for (int i = 0; !rc && i < r->n_cases; i++) {
		int64_t n = 0;
		bool has = false;
		rc = count_cases(st, run_id, r->cases[i].ordinal, &n, &has, d);
		if (!rc && !has)
			rc = write_case(&w, run_id, &r->cases[i], d);
	}
	store_finalize_all(w.s, W_N);
	return rc;
}

/* 'ok' means every planned case is stored (a run recorded before schema
 * version 8 plans 0: not checked). */
static enum ab_rc check_complete(struct store *st, const struct results_run *r, struct ab_diag *d)
{
	int64_t n = 0;
	bool has;
	enum ab_rc rc = count_cases(st, r->id, -1, &n, &has, d);
	if (!rc && r->cases_planned > 0 && n != r->cases_planned)
		rc = ab_fail(d, AB_ERR_INTERNAL, "run %" PRId64 " holds %" PRId64 " of its %d cases: it cannot be 'ok'",
			     r->id, n, r->cases_planned);
	return rc;
}

enum ab_rc store_commit_case(struct store *st, const struct results_run *r, const struct results_case *c,
			     struct ab_diag *d)
{
	char why[AB_DIAG_MAX - 64];
	int64_t n = 0;
	bool has = false;
	if (!results_check_case(r->bracket, c, why, sizeof why))
		return ab_fail(d, AB_ERR_DATA, "case '%s' cannot be stored: %s", c->name, why);
	struct writer w = { .st = st };
	enum ab_rc rc = store_exec(st, "BEGIN IMMEDIATE", "begin writing a case", d);
	if (!rc)
		rc = check_running(st, r->id, d);
	if (!rc)
		rc = count_cases(st, r->id, c->ordinal, &n, &has, d);
	if (!rc && has)
		rc = ab_fail(d, AB_ERR_INTERNAL, "run %" PRId64 " already holds a case at ordinal %d", r->id, c->ordinal);
	if (!rc)
		rc = store_prepare_all(st, writer_sql, w.s, W_N, d);
	if (!rc)
		rc = write_case(&w, r->id, c, d);
	store_finalize_all(w.s, W_N);
	if (!rc)
		rc = store_exec(st, "COMMIT", "commit the case", d);
	if (rc)
		store_rollback(st);
	return rc;
}

/* ---- finishing a run -------------------------------------------------- */

static enum ab_rc mark_ok(struct store *st, const struct results_run *r, struct ab_diag *d)
{
	struct bind b;
	char now[32];
	enum ab_rc rc = store_prepare_bind(st, "UPDATE runs SET status = 'ok', finished_at = ?, notes = ? WHERE id = ?", &b, d);
	if (rc)
		return rc;
	utc_now(now, sizeof now);
	if (r->finished_at[0])
		B_STR(&b, r->finished_at);
	else
		b_text(&b, now);
	B_STR(&b, r->notes);
	b_i64(&b, r->id);
	return store_run_bound(st, &b, d, "mark run %" PRId64 " 'ok'", r->id);
}

/* The copy bandwidth may have been measured after store_begin_run. */
static enum ab_rc update_run_device(struct store *st, const struct results_run *r, struct ab_diag *d)
{
	int64_t device_id = 0;
	enum ab_rc rc = device_find(st, &r->device, &device_id, d);
	if (rc || !device_id)
		return rc;
	return device_set_copy(st, device_id, r->device.copy_gbps, d);
}

/* Every case of r (slots, samples, kernels, outputs) under run run_id. */
static enum ab_rc write_cases(struct store *st, const struct results_run *r, int64_t run_id, struct ab_diag *d)
{
	struct writer w = { .st = st };
	enum ab_rc rc = store_prepare_all(st, writer_sql, w.s, W_N, d);
	for (int i = 0; !rc && i < r->n_cases; i++)
		rc = write_case(&w, run_id, &r->cases[i], d);
	store_finalize_all(w.s, W_N);
	return rc;
}

enum ab_rc store_finish_run(struct store *st, const struct results_run *r, struct ab_diag *d)
{
	enum ab_rc rc = check_whole(r, "the results", d);
	if (rc)
		return rc;
	rc = store_exec(st, "BEGIN IMMEDIATE", "begin writing the results", d);
	if (!rc)
		rc = check_running(st, r->id, d);
	if (!rc)
		rc = write_missing_cases(st, r, r->id, d);
	if (!rc)
		rc = check_complete(st, r, d);
	if (!rc)
		rc = mark_ok(st, r, d);
	if (!rc)
		rc = update_run_device(st, r, d);
	if (!rc)
		rc = store_exec(st, "COMMIT", "commit the results", d);
	if (rc)
		store_rollback(st);
	return rc;
}

/* Sets a run that is still 'running' to status ('failed', 'interrupted')
 * with its error text and finish time. */
static enum ab_rc mark_ended(struct store *st, int64_t id, const char *status, const char *error, struct ab_diag *d)
{
	struct bind b;
	char now[32], text[sizeof ((struct results_run *)0)->error];
	enum ab_rc rc = store_prepare_bind(st, "UPDATE runs SET status = ?, error = ?, finished_at = ? WHERE id = ?", &b, d);
	if (rc)
		return rc;
	utc_now(now, sizeof now);
	results_check_fit(text, sizeof text, error ? error : ""); /* it must read back as it was written */
	b_text(&b, status);
	b_text(&b, text);
	b_text(&b, now);
	b_i64(&b, id);
	return store_run_bound(st, &b, d, "mark run %" PRId64 " '%s'", id, status);
}

/* The cases a run committed as they finished stay: each is whole (one
 * transaction), and the run's status says it did not finish. */
enum ab_rc store_end_run(struct store *st, int64_t run_id, const char *status, const char *error, struct ab_diag *d)
{
	enum ab_rc rc = check_running(st, run_id, d);
	if (!rc)
		rc = mark_ended(st, run_id, status, error, d);
	return rc;
}

static enum ab_rc end_run_now(struct store *st, int64_t run_id, const char *status, const char *error,
			      struct ab_diag *d)
{
	enum ab_rc rc = store_exec(st, "BEGIN IMMEDIATE", "begin ending the run", d);
	if (!rc)
		rc = store_end_run(st, run_id, status, error, d);
	if (!rc)
		rc = store_exec(st, "COMMIT", "commit the end of the run", d);
	if (rc)
		store_rollback(st);
	return rc;
}

enum ab_rc store_fail_run(struct store *st, int64_t run_id, const char *error, struct ab_diag *d)
{
	return end_run_now(st, run_id, "failed", error, d);
}

enum ab_rc store_interrupt_run(struct store *st, int64_t run_id, const char *why, struct ab_diag *d)
{
	return end_run_now(st, run_id, "interrupted", why, d);
}

/* ---- taking a run up again (run --resume) ------------------------------ */

/* Only a run that did not finish: 'interrupted' or 'failed'. */
static enum ab_rc check_resumable(struct store *st, int64_t id, struct ab_diag *d)
{
	char status[16];
	enum ab_rc rc = run_status(st, id, status, sizeof status, d);
	if (!rc && !strcmp(status, "ok"))
		rc = ab_fail(d, AB_ERR_USAGE, "run %" PRId64 " is 'ok': it has every case, nothing to resume", id);
	else if (!rc && !strcmp(status, "running"))
		rc = ab_fail(d, AB_ERR_USAGE, "run %" PRId64 " is still 'running' (its process is alive): nothing to resume "
			     "until it ends", id);
	return rc;
}

enum ab_rc store_resume_run(struct store *st, int64_t run_id, struct ab_diag *d)
{
	struct bind b;
	enum ab_rc rc = store_exec(st, "BEGIN IMMEDIATE", "begin resuming the run", d);
	if (!rc)
		rc = check_resumable(st, run_id, d);
	if (!rc)
		rc = store_prepare_bind(st,
					"UPDATE runs SET status = 'running', error = '', finished_at = NULL,"
					" resumed = resumed + 1 WHERE id = ?",
					&b, d);
	if (!rc) {
		b_i64(&b, run_id);
		rc = store_run_bound(st, &b, d, "take run %" PRId64 " up again", run_id);
	}
	if (!rc)
		rc = claim_run(st, run_id, d);
	if (!rc)
		rc = store_exec(st, "COMMIT", "commit the resumed run", d);
	if (rc)
		store_rollback(st);
	return rc;
}

/* ---- copying runs from another database (abbench merge) --------------- */

enum ab_rc store_write_begin(struct store *st, struct ab_diag *d)
{
	return store_exec(st, "BEGIN IMMEDIATE", "lock the database for writing", d);
}

enum ab_rc store_write_commit(struct store *st, struct ab_diag *d)
{
	enum ab_rc rc = store_exec(st, "COMMIT", "commit", d);
	if (rc)
		store_rollback(st);
	return rc;
}

void store_write_rollback(struct store *st)
{
	store_rollback(st);
}

enum ab_rc store_import_run(struct store *st, const struct results_run *r, int64_t *id, struct ab_diag *d)
{
	int64_t device_id = 0;
	*id = 0;
	if (sqlite3_get_autocommit(st->db))
		return ab_fail(d, AB_ERR_INTERNAL, "store_import_run outside a transaction");
	if (!r->uuid[0] || !strcmp(r->status, "running"))
		return ab_fail(d, AB_ERR_INTERNAL, "run %lld cannot be copied (no uuid or still running)",
			       (long long)r->id);
	enum ab_rc rc = check_whole(r, "the copied run", d);
	if (!rc)
		rc = device_upsert(st, &r->device, &device_id, d);
	if (!rc)
		rc = insert_run(st, r, device_id, id, d);
	if (!rc)
		rc = insert_arm_sources(st, r, *id, d);
	if (!rc)
		rc = write_cases(st, r, *id, d);
	return rc;
}

