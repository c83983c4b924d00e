/*
 * merge.c - copying runs and baselines from input databases into one
 * (merge.h): inputs checked first, then one write transaction on OUT. A
 * new OUT is built in a temporary file beside it and linked into place
 * whole, so that a merge never removes a file it did not create: of two
 * merges into one new OUT, the one that fails removes only its temporary.
 */
#include "store/merge.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/results.h"
#include "store/store.h"

struct merge {
	struct store *out;
	struct store **in;
	const char *const *paths;
	int n;
	struct merge_stats *ms;
};

/* Refuses an input that is OUT itself (the same file by device and inode). */
static enum ab_rc check_not_out(const char *out_path, const char *in_path, struct ab_diag *d)
{
	struct stat so, si;
	if (stat(out_path, &so) == 0 && stat(in_path, &si) == 0 && so.st_dev == si.st_dev && so.st_ino == si.st_ino)
		return ab_fail(d, AB_ERR_USAGE, "'%s' is both the output and an input", in_path);
	return AB_OK;
}

static enum ab_rc open_inputs(struct merge *m, const char *out_path, struct ab_diag *d)
{
	enum ab_rc rc = AB_OK;
	for (int i = 0; !rc && i < m->n; i++) {
		rc = check_not_out(out_path, m->paths[i], d);
		if (!rc)
			rc = store_open_input(m->paths[i], &m->in[i], d);
	}
	return rc;
}

/* A run OUT already holds: equal content, or the merge stops. */
static enum ab_rc compare_present(struct merge *m, const struct results_run *r, int64_t out_id, const char *in_path,
				  struct ab_diag *d)
{
	struct results_run *have;
	char why[256];
	enum ab_rc rc = store_load_run(m->out, out_id, &have, d);
	if (rc)
		return rc;
	if (!results_run_same(have, r, why, sizeof why))
		rc = ab_fail(d, AB_ERR_DATA, "run %s of '%s' differs from run %lld of '%s' with the same UUID: %s", r->uuid,
			     in_path, (long long)out_id, store_path(m->out), why);
	else
		m->ms->present++;
	results_run_free(have);
	return rc;
}

static enum ab_rc merge_run(struct merge *m, struct store *in, const char *in_path, const struct store_run_ref *ref,
			    struct ab_diag *d)
{
	struct results_run *r;
	int64_t out_id = 0;
	if (!strcmp(ref->status, "running")) {
		m->ms->running++;
		return AB_OK;
	}
	enum ab_rc rc = store_load_run(in, ref->id, &r, d);
	if (rc) /* a data error names the file already */
		return rc == AB_ERR_DATA ? rc : ab_wrap(d, rc, "'%s'", in_path);
	rc = store_find_uuid(m->out, r->uuid, &out_id, d);
	if (!rc && out_id)
		rc = compare_present(m, r, out_id, in_path, d);
	else if (!rc && !(rc = store_import_run(m->out, r, &out_id, d)))
		m->ms->copied++;
	results_run_free(r);
	return rc;
}

static void note_clash(struct merge_stats *ms, const char *name)
{
	size_t used = strlen(ms->clash_names);
	if (ms->clashes++ < 8)
		snprintf(ms->clash_names + used, sizeof ms->clash_names - used, "%s'%s'", used ? ", " : "", name);
}

/* The row named name in a baseline list, NULL when absent. */
static const struct store_baseline *find_baseline(const struct store_baseline *list, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(list[i].name, name))
			return &list[i];
	return NULL;
}

static enum ab_rc merge_baseline(struct merge *m, const struct store_baseline *b, struct ab_diag *d)
{
	struct store_baseline *have = NULL;
	int n = 0;
	int64_t out_id = 0;
	enum ab_rc rc = store_baseline_list(m->out, &have, &n, d);
	const struct store_baseline *same = rc ? NULL : find_baseline(have, n, b->name);
	if (!rc && same && (strcmp(same->run_uuid, b->run_uuid) || strcmp(same->run_set, b->run_set)))
		note_clash(m->ms, b->name);
	else if (!rc && !same && !(rc = store_find_uuid(m->out, b->run_uuid, &out_id, d)) && out_id) {
		if (!(rc = store_baseline_copy(m->out, b, out_id, d)))
			m->ms->baselines++;
	}
	free(have);
	return rc;
}

static enum ab_rc merge_input(struct merge *m, int i, struct ab_diag *d)
{
	struct store_run_ref *refs = NULL;
	struct store_baseline *bl = NULL;
	int n = 0, nb = 0;
	enum ab_rc rc = store_list_refs(m->in[i], &refs, &n, d);
	for (int k = 0; !rc && k < n; k++)
		rc = merge_run(m, m->in[i], m->paths[i], &refs[k], d);
	if (!rc)
		rc = store_baseline_list(m->in[i], &bl, &nb, d);
	for (int k = 0; !rc && k < nb; k++)
		rc = merge_baseline(m, &bl[k], d);
	free(refs);
	free(bl);
	return rc;
}

/* Every input into m->out, in one transaction: all of it or nothing. */
static enum ab_rc merge_all(struct merge *m, struct ab_diag *d)
{
	enum ab_rc rc = store_write_begin(m->out, d);
	for (int i = 0; !rc && i < m->n; i++)
		rc = merge_input(m, i, d);
	if (rc) {
		store_write_rollback(m->out);
		return rc;
	}
	return store_write_commit(m->out, d);
}

/* Into OUT as it is: a failure rolls back and leaves it as it was. */
static enum ab_rc merge_existing(struct merge *m, const char *out_path, struct ab_diag *d)
{
	memset(m->ms, 0, sizeof *m->ms);
	enum ab_rc rc = store_open(out_path, true, &m->out, d);
	if (!rc)
		rc = merge_all(m, d);
	store_close(m->out);
	m->out = NULL;
	return rc;
}

/* A new empty file beside out_path, created exclusively: its name in tmp. */
static enum ab_rc temp_beside(const char *out_path, char *tmp, size_t len, struct ab_diag *d)
{
	for (int attempt = 0; attempt < 100; attempt++) {
		if ((size_t)snprintf(tmp, len, "%s.merge-%ld-%d", out_path, (long)getpid(), attempt) >= len)
			return ab_fail(d, AB_ERR_USAGE, "output path too long '%.64s...'", out_path);
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0) {
			close(fd);
			return AB_OK;
		}
		if (errno != EEXIST)
			return ab_fail(d, AB_ERR_IO, "cannot create '%s': %s", tmp, strerror(errno));
	}
	return ab_fail(d, AB_ERR_IO, "cannot create a temporary file beside '%s'", out_path);
}

/* OUT does not exist: the merge is made whole in a temporary beside it
 * (its WAL folded back into it), then linked to OUT, which fails if OUT
 * appeared meanwhile (*raced: another merge or run made it). The
 * temporary is removed in every case; OUT never is. */
static enum ab_rc merge_new(struct merge *m, const char *out_path, bool *raced, struct ab_diag *d)
{
	char tmp[4200];
	*raced = false;
	enum ab_rc rc = temp_beside(out_path, tmp, sizeof tmp, d);
	if (rc)
		return rc;
	rc = store_open(tmp, true, &m->out, d);
	if (rc)
		ab_wrap(d, rc, "the merge's temporary file beside OUT");
	if (!rc)
		rc = merge_all(m, d);
	if (!rc)
		rc = store_leave_wal(m->out, d);
	store_close(m->out);
	m->out = NULL;
	if (!rc && link(tmp, out_path) != 0) {
		if (errno == EEXIST)
			*raced = true;
		else
			rc = ab_fail(d, AB_ERR_IO, "cannot create '%s': %s", out_path, strerror(errno));
	}
	store_remove_db_files(tmp); /* only ever the merge's own temporary */
	return rc;
}

enum ab_rc merge_files(const char *out_path, const char *const *inputs, int n_inputs, struct merge_stats *ms,
		       struct ab_diag *d)
{
	struct merge m = { .paths = inputs, .n = n_inputs, .ms = ms };
	struct stat sb;
	bool raced = false;
	memset(ms, 0, sizeof *ms);
	m.in = calloc((size_t)n_inputs + 1, sizeof *m.in);
	enum ab_rc rc = m.in ? AB_OK : ab_fail(d, AB_ERR_NOMEM, "out of memory opening %d inputs", n_inputs);
	if (!rc)
		rc = open_inputs(&m, out_path, d);
	if (!rc && (stat(out_path, &sb) == 0 || errno != ENOENT))
		rc = merge_existing(&m, out_path, d);
	else if (!rc && !(rc = merge_new(&m, out_path, &raced, d)) && raced)
		rc = merge_existing(&m, out_path, d);
	for (int i = 0; m.in && i < n_inputs; i++)
		store_close(m.in[i]);
	free(m.in);
	return rc;
}
