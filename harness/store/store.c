/*
 * store.c - opening and closing the database (store.h): where it is, the
 * read-write open that creates, migrates and reaps, the read-only open of
 * the reading commands (on read-only media: immutable, or a private copy
 * with its WAL), and the open of a merge's inputs, which writes nothing at
 * all.
 */
#include "store/store.h"
#include "store/store_int.h"

#include <ctype.h>
#include <stdio.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

const char *store_default_path(const char *cli_value)
{
	if (cli_value)
		return cli_value;
	const char *env = getenv("ABBENCH_DB");
	return env && *env ? env : "abbench.db";
}

enum ab_rc store_connect(struct store *st, const char *name, int flags, struct ab_diag *d)
{
	if (sqlite3_open_v2(name, &st->db, flags, NULL) != SQLITE_OK)
		return ab_fail(d, AB_ERR_DB, "cannot open database '%s': %s", st->path,
			       st->db ? sqlite3_errmsg(st->db) : "out of memory");
	sqlite3_busy_timeout(st->db, STORE_BUSY_MS);
	return AB_OK;
}

void store_disconnect(struct store *st)
{
	sqlite3_close(st->db);
	st->db = NULL;
}

/* The path SQLite will open: absolute, with the links of its directory
 * (and of the file, when it exists) resolved, as SQLite's unix VFS makes
 * it; as spelled, made absolute, when the directory cannot be resolved. */
static void full_path(const char *path, char *buf, size_t len)
{
	char real[PATH_MAX], dir[PATH_MAX];
	buf[0] = '\0';
	if (realpath(path, real)) {
		snprintf(buf, len, "%s", real);
		return;
	}
	const char *slash = strrchr(path, '/');
	if ((size_t)snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".") >= sizeof dir)
		return;
	if (!dir[0])
		snprintf(dir, sizeof dir, "/");
	if (realpath(dir, real))
		snprintf(buf, len, "%s/%s", strcmp(real, "/") ? real : "", slash ? slash + 1 : path);
	else if (path[0] == '/')
		snprintf(buf, len, "%s", path);
	else if (getcwd(real, sizeof real))
		snprintf(buf, len, "%s/%s", real, path);
}

/* SQLite's unix VFS takes full paths of at most 512 bytes, its journal's
 * "-journal" included: a longer --db is refused here, with its length,
 * rather than cut or failed with "unable to open database file". */
static enum ab_rc check_path_length(const char *path, struct ab_diag *d)
{
	char full[2 * PATH_MAX];
	full_path(path, full, sizeof full);
	size_t n = strlen(full);
	if (n <= STORE_PATH_MAX)
		return AB_OK;
	return ab_fail(d, AB_ERR_USAGE,
		       "database path '%.40s...%s' is %zu characters long as a full path; SQLite opens at most %d: "
		       "use a shorter path",
		       full, full + n - 40, n, STORE_PATH_MAX);
}

/* What sits at path must be a regular file (or nothing, when creating):
 * SQLite would block forever on a FIFO and call a directory a "disk I/O
 * error". */
static enum ab_rc check_file(const char *path, bool create, struct ab_diag *d)
{
	struct stat sb;
	if (stat(path, &sb) != 0) {
		if (errno == ENOENT && create)
			return AB_OK;
		if (errno == ENOENT)
			return ab_fail(d, AB_ERR_DATA, "no database '%s' (run 'abbench run' first or pass --db)", path);
		return ab_fail(d, AB_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
	}
	if (S_ISREG(sb.st_mode))
		return AB_OK;
	return ab_fail(d, AB_ERR_USAGE, "'%s' is %s, not a database file", path,
		       S_ISDIR(sb.st_mode) ? "a directory" : S_ISFIFO(sb.st_mode) ? "a FIFO" :
		       S_ISSOCK(sb.st_mode) ? "a socket" : "a device");
}

/* A store for path, or the message why not: a missing file is AB_ERR_DATA
 * unless it is to be created; anything but a regular file, and a path too
 * long for SQLite, is AB_ERR_USAGE. Nothing is opened for reading here. */
static enum ab_rc store_new(const char *path, bool create, struct store **out, struct ab_diag *d)
{
	*out = NULL;
	enum ab_rc rc = check_file(path, create, d);
	if (!rc)
		rc = check_path_length(path, d);
	if (rc)
		return rc;
	struct store *st = calloc(1, sizeof *st);
	if (!st)
		return ab_fail(d, AB_ERR_NOMEM, "cannot open the database: out of memory");
	if ((size_t)snprintf(st->path, sizeof st->path, "%s", path) >= sizeof st->path) {
		free(st);
		return ab_fail(d, AB_ERR_USAGE, "database path too long '%.64s...'", path);
	}
	*out = st;
	return AB_OK;
}

/* store_open, migrating up to schema version target only. */
static enum ab_rc open_to(const char *path, bool create, int target, struct store **out, struct ab_diag *d)
{
	struct store *st;
	int64_t version;
	*out = NULL;
	enum ab_rc rc = store_new(path, create, &st, d);
	if (rc)
		return rc;
	rc = store_connect(st, path, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0), d);
	if (!rc)
		rc = store_check_header_now(st, &version, NULL, d);
	if (!rc)
		rc = store_exec(st, "PRAGMA foreign_keys = ON", "enable foreign keys", d);
	if (!rc)
		rc = store_ensure_wal(st, d);
	if (!rc)
		rc = store_migrate(st, create, target, d);
	if (!rc && target == store_schema_version())
		rc = store_reap_stale(st, d); /* older schemas have no owner columns */
	if (rc) {
		store_close(st);
		return rc;
	}
	*out = st;
	return AB_OK;
}

/* "file:PATH?immutable=1" with PATH percent-encoded as URIs want. */
static bool immutable_uri(const char *path, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p && n + 4 < len; p++) {
		if (isalnum(*p) || strchr("/._-~", *p))
			buf[n++] = (char)*p;
		else
			n += (size_t)snprintf(buf + n, len - n, "%%%02X", *p);
	}
	return n + sizeof "?immutable=1" <= len && snprintf(buf + n, len - n, "?immutable=1") > 0;
}

/* A WAL database that nobody has open and that sits where we cannot create
 * its -shm file (read-only media, a directory we may not write) cannot be
 * opened read-only in the ordinary way. Nothing can be writing it, since a
 * writer needs that same -shm file. */
static bool needs_fallback(int src)
{
	return (src & 0xff) == SQLITE_CANTOPEN || (src & 0xff) == SQLITE_READONLY;
}

/* Without a WAL to read, SQLite is told that the file is immutable. */
static enum ab_rc reconnect_immutable(struct store *st, struct ab_diag *d)
{
	char uri[3 * sizeof st->path + 32];
	if (!immutable_uri(st->path, uri, sizeof uri))
		return ab_fail(d, AB_ERR_USAGE, "database path too long '%.64s...'", st->path);
	store_disconnect(st);
	st->immutable = true;
	return store_connect(st, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, d);
}

/* Copies the file from to the new file to; false with errno set. */
static bool copy_file(const char *from, const char *to)
{
	char buf[1 << 16];
	FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wbx") : NULL;
	size_t n = 0;
	bool ok = in && out;
	while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
		ok = fwrite(buf, 1, n, out) == n;
	ok = ok && !ferror(in);
	int saved = errno;
	if (in)
		fclose(in);
	if (out && fclose(out) != 0)
		ok = false;
	errno = ok ? 0 : saved;
	return ok;
}

/* path + suffix ("-wal") into buf; false when it does not fit. */
static bool side_path(const char *path, const char *suffix, char *buf, size_t len)
{
	return (size_t)snprintf(buf, len, "%s%s", path, suffix) < len;
}

void store_remove_db_files(const char *path)
{
	static const char *const sides[] = { "", "-wal", "-shm", "-journal" };
	char side[4200 + 16];
	for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++)
		if (side_path(path, sides[i], side, sizeof side))
			unlink(side);
}

static void remove_copy(struct store *st)
{
	char p[sizeof st->copy_dir + 16];
	if (!st->copy_dir[0])
		return;
	if (side_path(st->copy_dir, "/db", p, sizeof p))
		store_remove_db_files(p);
	rmdir(st->copy_dir);
	st->copy_dir[0] = '\0';
}

/* The database and its WAL copied into a private directory, the same
 * before and after the copy (else tried again: a copy must be one state of
 * the files). */
static enum ab_rc copy_with_wal(struct store *st, struct ab_diag *d)
{
	char wal[sizeof st->path + 8], to[sizeof st->copy_dir + 16], to_wal[sizeof st->copy_dir + 16];
	const char *tmp = getenv("TMPDIR");
	struct stat a0, w0, a1, w1;
	if (!side_path(st->path, "-wal", wal, sizeof wal))
		return ab_fail(d, AB_ERR_USAGE, "database path too long '%.64s...'", st->path);
	for (int attempt = 0; attempt < 3; attempt++) {
		snprintf(st->copy_dir, sizeof st->copy_dir, "%s/abbench-read-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(st->copy_dir)) {
			st->copy_dir[0] = '\0';
			return ab_fail(d, AB_ERR_IO, "cannot make a directory to read '%s' with its WAL: %s", st->path,
				       strerror(errno));
		}
		side_path(st->copy_dir, "/db", to, sizeof to);
		side_path(st->copy_dir, "/db-wal", to_wal, sizeof to_wal);
		bool ok = !stat(st->path, &a0) && !stat(wal, &w0) && copy_file(st->path, to) && copy_file(wal, to_wal) &&
			  !stat(st->path, &a1) && !stat(wal, &w1);
		if (!ok) {
			int saved = errno;
			remove_copy(st);
			return ab_fail(d, AB_ERR_IO, "cannot copy '%s' and its WAL to read them: %s", st->path,
				       strerror(saved));
		}
		if (a0.st_size == a1.st_size && a0.st_mtim.tv_nsec == a1.st_mtim.tv_nsec && a0.st_mtime == a1.st_mtime &&
		    w0.st_size == w1.st_size && w0.st_mtim.tv_nsec == w1.st_mtim.tv_nsec && w0.st_mtime == w1.st_mtime)
			return AB_OK;
		remove_copy(st);
	}
	return ab_fail(d, AB_ERR_DB, "cannot read '%s': it changed while it was being copied with its WAL", st->path);
}

/* A WAL that holds transactions and no -shm: immutable=1 would ignore the
 * WAL and read old data as if it were all there is. The database and its
 * WAL are copied into a private directory instead, where SQLite can make
 * the -shm, and read from there; the copy goes with store_close. With a
 * -shm that cannot be opened a writer may be at work: refused, saying so. */
static enum ab_rc reconnect_fallback(struct store *st, struct ab_diag *d)
{
	char wal[sizeof st->path + 8], shm[sizeof st->path + 8];
	struct stat sb;
	if (!side_path(st->path, "-wal", wal, sizeof wal) || !side_path(st->path, "-shm", shm, sizeof shm))
		return ab_fail(d, AB_ERR_USAGE, "database path too long '%.64s...'", st->path);
	if (stat(wal, &sb) != 0 || sb.st_size == 0)
		return reconnect_immutable(st, d);
	if (stat(shm, &sb) == 0)
		return ab_fail(d, AB_ERR_DB,
			       "cannot read '%s': its WAL holds transactions and its -shm cannot be opened (a writer may "
			       "be at work): read it where its directory is writable, or have its owner run "
			       "sqlite3 FILE 'PRAGMA wal_checkpoint(TRUNCATE)'",
			       st->path);
	enum ab_rc rc = copy_with_wal(st, d);
	if (rc)
		return rc;
	char db[sizeof st->copy_dir + 16];
	side_path(st->copy_dir, "/db", db, sizeof db);
	store_disconnect(st);
	st->immutable = true;
	return store_connect(st, db, SQLITE_OPEN_READONLY, d);
}

static enum ab_rc check_readable(struct store *st, struct ab_diag *d)
{
	int64_t version = 0;
	int src;
	enum ab_rc rc = store_check_header_now(st, &version, &src, d);
	if (rc && !st->immutable && needs_fallback(src)) {
		rc = reconnect_fallback(st, d);
		if (!rc)
			rc = store_check_header_now(st, &version, NULL, d);
	}
	if (!rc && version == 0)
		rc = store_empty_database(st, d);
	if (!rc && version < store_schema_version())
		rc = ab_fail(d, AB_ERR_DATA,
			     "database '%s' has schema version %" PRId64 " and needs migrating to version %d, which a "
			     "reading command does not do: 'abbench run' or 'abbench baseline set' with this abbench "
			     "migrates it",
			     st->path, version, store_schema_version());
	return rc;
}

/* SQLite's own check of every page, index and constraint it can verify:
 * a merge copies nothing from a file that fails it. */
static enum ab_rc check_integrity(struct store *st, struct ab_diag *d)
{
	sqlite3_stmt *s = NULL;
	int src = sqlite3_prepare_v2(st->db, "PRAGMA integrity_check(1)", -1, &s, NULL);
	if (src == SQLITE_OK)
		src = sqlite3_step(s);
	const char *what = src == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0) : sqlite3_errmsg(st->db);
	enum ab_rc rc = AB_OK;
	if (src != SQLITE_ROW || !what || strcmp(what, "ok"))
		rc = ab_fail(d, AB_ERR_DATA, "'%s' fails SQLite's integrity check (%s): it is not merged", st->path,
			     what ? what : "no answer");
	sqlite3_finalize(s);
	return rc;
}

/* store_open_readonly, with (reap) or without the marking of stale runs. */
static enum ab_rc open_readonly(const char *path, bool reap, struct store **out, struct ab_diag *d)
{
	struct store *st;
	*out = NULL;
	enum ab_rc rc = store_new(path, false, &st, d);
	if (rc)
		return rc;
	st->read_only = true;
	rc = store_connect(st, path, SQLITE_OPEN_READONLY, d);
	if (!rc)
		rc = check_readable(st, d);
	if (rc) {
		store_close(st);
		return rc;
	}
	if (reap)
		store_reap_stale_from_reader(st);
	*out = st;
	return AB_OK;
}

enum ab_rc store_open_readonly(const char *path, struct store **out, struct ab_diag *d)
{
	return open_readonly(path, true, out, d);
}

bool store_is_read_only(const struct store *st)
{
	return st->read_only;
}

enum ab_rc store_open(const char *path, bool create, struct store **out, struct ab_diag *d)
{
	return open_to(path, create, store_schema_version(), out, d);
}

enum ab_rc store_open_version(const char *path, int version, struct store **out, struct ab_diag *d)
{
	*out = NULL;
	if (version < 1 || version > store_schema_version())
		return ab_fail(d, AB_ERR_USAGE, "no schema version %d (1 to %d)", version, store_schema_version());
	return open_to(path, true, version, out, d);
}

void store_close(struct store *st)
{
	if (!st)
		return;
	sqlite3_close(st->db);
	remove_copy(st);
	free(st);
}

const char *store_path(const struct store *st)
{
	return st->path;
}

enum ab_rc store_open_input(const char *path, struct store **out, struct ab_diag *d)
{
	enum ab_rc rc = open_readonly(path, false, out, d);
	if (!rc && (rc = check_integrity(*out, d))) {
		store_close(*out);
		*out = NULL;
	}
	return rc;
}
