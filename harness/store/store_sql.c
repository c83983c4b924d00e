/*
 * store_sql.c - the SQL plumbing of the store family (store_int.h): one
 * message shape for SQLite failures, statements prepared, bound, stepped
 * and finalized one way, transactions rolled back one way, and lists of
 * rows read into arrays.
 */
#include "store/store.h"
#include "store/store_int.h"

#include <stdlib.h>

enum ab_rc store_db_vfail(struct store *st, struct ab_diag *d, const char *fmt, va_list ap)
{
	char what[256];
	vsnprintf(what, sizeof what, fmt, ap);
	return ab_fail(d, AB_ERR_DB, "cannot %s: %s", what, sqlite3_errmsg(st->db));
}

enum ab_rc store_db_fail(struct store *st, struct ab_diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	enum ab_rc rc = store_db_vfail(st, d, fmt, ap);
	va_end(ap);
	return rc;
}

enum ab_rc store_nomem(struct ab_diag *d, const char *what)
{
	return ab_fail(d, AB_ERR_NOMEM, "cannot %s: out of memory", what);
}

enum ab_rc store_exec(struct store *st, const char *sql, const char *what, struct ab_diag *d)
{
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return store_db_fail(st, d, "%s", what);
	return AB_OK;
}

void store_rollback(struct store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

enum ab_rc store_prepare(struct store *st, const char *sql, sqlite3_stmt **s, struct ab_diag *d)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, s, NULL) != SQLITE_OK) {
		*s = NULL;
		return store_db_fail(st, d, "prepare '%.60s'", sql);
	}
	return AB_OK;
}

enum ab_rc store_read_error(struct store *st, int src, const char *what, struct ab_diag *d)
{
	if ((src & 0xff) == SQLITE_NOTADB)
		return ab_fail(d, AB_ERR_DATA, "'%s' is not an abbench database (%s)", st->path,
			       sqlite3_errmsg(st->db));
	return store_db_fail(st, d, "read %s of '%s'", what, st->path);
}

enum ab_rc store_query_int(struct store *st, const char *sql, int64_t *v, struct ab_diag *d)
{
	sqlite3_stmt *s = NULL;
	int src = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	if (src == SQLITE_OK) {
		src = sqlite3_step(s);
		if (src == SQLITE_ROW) {
			*v = sqlite3_column_int64(s, 0);
			src = SQLITE_OK;
		}
	}
	enum ab_rc rc = src == SQLITE_OK ? AB_OK : store_read_error(st, src, sql, d);
	sqlite3_finalize(s);
	return rc;
}

enum ab_rc store_query_id(struct store *st, const char *sql, const char *text, int64_t num, int64_t *id,
			  bool *found, struct ab_diag *d)
{
	struct bind b;
	enum ab_rc rc = store_prepare_bind(st, sql, &b, d);
	if (rc)
		return rc;
	if (text)
		b_text(&b, text);
	else if (sqlite3_bind_parameter_count(b.s) > 0)
		b_i64(&b, num);
	int src = step_bound(&b);
	*found = src == SQLITE_ROW;
	if (*found)
		*id = sqlite3_column_int64(b.s, 0);
	else if (src != SQLITE_DONE)
		rc = store_db_fail(st, d, "look up a run in '%s'", st->path);
	sqlite3_finalize(b.s);
	return rc;
}

void *store_grow(void *p, int n, int *cap, size_t size)
{
	if (n < *cap)
		return p;
	int nc = *cap ? *cap * 2 : 8;
	void *q = realloc(p, (size_t)nc * size);
	if (q)
		*cap = nc;
	return q;
}

enum ab_rc store_prepare_bind(struct store *st, const char *sql, struct bind *b, struct ab_diag *d)
{
	sqlite3_stmt *s;
	enum ab_rc rc = store_prepare(st, sql, &s, d);
	*b = bind_start(s);
	b->once = true;
	return rc;
}

enum ab_rc store_run_bound(struct store *st, struct bind *b, struct ab_diag *d, const char *fmt, ...)
{
	enum ab_rc rc = AB_OK;
	if (b->i != sqlite3_bind_parameter_count(b->s)) {
		rc = ab_fail(d, AB_ERR_INTERNAL, "bound %d of %d parameters of '%.60s'", b->i,
			     sqlite3_bind_parameter_count(b->s), sqlite3_sql(b->s));
	} else if (step_bound(b) != SQLITE_DONE) {
		va_list ap;
		va_start(ap, fmt);
		rc = store_db_vfail(st, d, fmt, ap);
		va_end(ap);
	}
	if (b->once) {
		sqlite3_finalize(b->s);
		return rc;
	}
	sqlite3_reset(b->s);
	sqlite3_clear_bindings(b->s);
	return rc;
}

enum ab_rc store_prepare_all(struct store *st, const char *const *sql, sqlite3_stmt **s, int n, struct ab_diag *d)
{
	enum ab_rc rc = AB_OK;
	for (int i = 0; !rc && i < n; i++)
		rc = store_prepare(st, sql[i], &s[i], d);
	return rc;
}

void store_finalize_all(sqlite3_stmt **s, int n)
{
	for (int i = 0; i < n; i++)
		sqlite3_finalize(s[i]);
}

enum ab_rc store_bad_row(struct store *st, const char *table, const char *where, const char *why, struct ab_diag *d)
{
	return ab_fail(d, AB_ERR_DATA, "'%s': bad row in table %s (%s): %s", st->path, table, where, why);
}

/* A listed row that did not read, named by its first column (an id or a
 * name). */
static enum ab_rc list_row_refused(struct store *st, sqlite3_stmt *s, const struct col *c, const char *what,
				   struct ab_diag *d)
{
	char at[200];
	const char *table = sqlite3_column_table_name(s, 0);
	if (sqlite3_column_type(s, 0) == SQLITE_INTEGER)
		snprintf(at, sizeof at, "%s %lld, while %s", sqlite3_column_name(s, 0), (long long)sqlite3_column_int64(s, 0),
			 what);
	else
		snprintf(at, sizeof at, "%s '%.80s', while %s", sqlite3_column_name(s, 0),
			 (const char *)sqlite3_column_text(s, 0), what);
	return store_bad_row(st, table ? table : "?", at, c->why, d);
}

enum ab_rc store_list_rows(struct store *st, const char *sql, const char *param, size_t size,
			   void (*read_row)(struct col *, void *), void **out, int *n, const char *what,
			   struct ab_diag *d)
{
	sqlite3_stmt *s;
	void *v = NULL;
	int cap = 0, src;
	*out = NULL;
	*n = 0;
	enum ab_rc rc = store_prepare(st, sql, &s, d);
	if (rc)
		return rc;
	if (param && sqlite3_bind_text(s, 1, param, -1, SQLITE_STATIC) != SQLITE_OK) {
		rc = store_db_fail(st, d, "%s of '%s'", what, st->path);
		sqlite3_finalize(s);
		return rc;
	}
	while ((src = sqlite3_step(s)) == SQLITE_ROW) {
		void *q = store_grow(v, *n, &cap, size);
		if (!q) {
			rc = store_nomem(d, what);
			break;
		}
		v = q;
		struct col c = { .s = s };
		read_row(&c, (char *)v + (size_t)(*n)++ * size);
		if (c.bad) {
			rc = list_row_refused(st, s, &c, what, d);
			break;
		}
	}
	if (!rc && src != SQLITE_DONE)
		rc = store_db_fail(st, d, "%s of '%s'", what, st->path);
	sqlite3_finalize(s);
	if (rc) {
		free(v);
		*n = 0;
		return rc;
	}
	*out = v;
	return AB_OK;
}
