/*
 * load.c - profiles, peers and histories read for the printing commands
 * (load.h).
 */
#include "cli/load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/peers.h"
#include "arms/blob.h"

void load_profile(const struct results_run *r, struct load_profile *out)
{
	memset(out, 0, sizeof *out);
	out->rc = profile_find(r->device.name, r->backend, &out->prof, &out->fell_back, &out->err);
	if (out->rc)
		return;
	snprintf(out->sp.name, sizeof out->sp.name, "%s", out->prof.name);
	out->sp.dram_gbps = out->prof.dram_gbps;
	out->sp.noise_floor = out->prof.noise_floor;
}

void load_profile_warn(const struct load_profile *lp, const char *command, const char *what)
{
	if (lp->rc)
		ab_warn("%s: %s (%s)", command, lp->err.msg, what);
}

enum ab_rc load_summary(const struct results_run *r, enum summary_detail detail, const struct load_profile *lp,
			struct summary_run *out, struct ab_diag *d)
{
	return summary_compute_profile(r, detail, lp && !lp->rc ? &lp->sp : NULL, out, d);
}

enum ab_rc load_peers(struct store *st, const struct results_run *run, struct results_run **runs, int *n, int max,
		      struct ab_diag *d)
{
	struct results_run_summary *list = NULL;
	int64_t *ids = calloc((size_t)max + 1, sizeof *ids);
	int n_list = 0;
	enum ab_rc rc = ids ? store_list_runs(st, &list, &n_list, d) : ab_fail(d, AB_ERR_NOMEM, "out of memory");
	int k = rc ? 0 : peers_pick(list, n_list, run, ids, max - *n);
	free(list);
	for (int i = 0; !rc && i < k; i++)
		if (!(rc = store_load_run(st, ids[i], &runs[*n], d)))
			(*n)++;
	free(ids);
	return rc;
}

/* The newest 'ok' run of scenario on run's device that may stand beside
 * run; 0 when none. */
static int64_t newest_of(const struct results_run_summary *list, int n, const char *scenario,
			 const struct results_run *run)
{
	for (int i = 0; i < n; i++) {
		const struct results_run_summary *s = &list[i];
		if (!strcmp(s->status, "ok") && !strcmp(s->scenario_name, scenario) &&
		    !strcmp(s->device, run->device.name) && !s->quick && (!s->fake_timer || run->fake_timer))
			return s->id;
	}
	return 0;
}

enum ab_rc load_projecting_run(struct store *st, const struct results_run *run, const char *spec,
			       struct results_run **out, struct ab_diag *d)
{
	struct results_run_summary *list = NULL;
	int64_t id = 0;
	int n = 0;
	struct ab_diag ignored;
	if (!store_resolve_run(st, spec, &id, &ignored))
		return store_load_run(st, id, out, d);
	enum ab_rc rc = store_list_runs(st, &list, &n, d);
	if (!rc)
		id = newest_of(list, n, spec, run);
	free(list);
	if (rc)
		return rc;
	if (!id)
		return ab_fail(d, AB_ERR_DATA, "--projected-by '%s': no run, label or scenario of that name (a "
			       "scenario's newest 'ok' run on device '%s', not quick%s)", spec, run->device.name,
			       run->fake_timer ? "" : ", not fake-timer");
	return store_load_run(st, id, out, d);
}

static const char *baseline_of(const struct store_baseline *b, int nb, int64_t run_id)
{
	for (int i = 0; i < nb; i++)
		if (b[i].run_id == run_id)
			return b[i].name;
	return "";
}

enum ab_rc load_history(struct store *st, const struct history_filter *f, struct history *h, struct ab_diag *d)
{
	struct results_run_summary *runs = NULL;
	struct store_baseline *b = NULL;
	int n = 0, nb = 0;
	enum ab_rc rc = history_begin(h, f, d);
	if (!rc)
		rc = store_list_runs(st, &runs, &n, d);
	if (!rc)
		rc = store_baseline_list(st, &b, &nb, d);
	for (int i = 0; !rc && i < n; i++) {
		struct results_run *r;
		if (!history_run_wanted(f, &runs[i]))
			continue;
		if (!(rc = store_load_run(st, runs[i].id, &r, d))) {
			rc = history_add_run(h, f, r, baseline_of(b, nb, r->id), d);
			results_run_free(r);
		}
	}
	free(runs);
	free(b);
	if (!rc)
		return history_finish(h, f, d);
	history_free(h);
	return rc;
}

#define CERT_FILE_MAX (256u << 20)

enum ab_rc load_cert(const char *path, struct cert *c, struct ab_diag *d)
{
	struct blob b;
	enum ab_rc rc = blob_read(path, CERT_FILE_MAX, &b, d);
	if (rc)
		return rc;
	rc = cert_parse((const char *)b.data, b.size, path, c, d);
	blob_free(&b);
	return rc;
}
