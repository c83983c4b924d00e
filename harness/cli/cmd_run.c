/*
 * cmd_run.c - `abbench run SCENARIO.ini`: parse, validate, measure, store;
 * a shard of the scenario with --shard, one worker per device with
 * --devices (run/devices.h). It ends with the run's summary table, read
 * back from the database.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/summary.h"
#include "arms/arms.h"
#include "backend/backend.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "common/diag.h"
#include "config/scenario.h"
#include "run/devices.h"
#include "run/interrupt.h"
#include "run/provenance.h"
#include "run/runner.h"
#include "run/shard.h"
#include "print/show.h"
#include "store/store.h"

struct run_args {
	const char *db, *backend, *dump, *label, *only, *shard, *run_set, *devices;
	bool quick, no_progress, progress, no_cupti, no_wait;
	int device;
};

/* Options that cannot go together, and the shard and run set syntax. */
static enum ab_rc check_args(const struct run_args *a, struct runner_options *o, struct ab_diag *d)
{
	if (a->backend && !backend_choice_parse(a->backend, &o->backend))
		return ab_fail(d, AB_ERR_USAGE, "--backend must be auto, cpu or cuda, not '%s'", a->backend);
	o->have_backend = a->backend != NULL;
	if (a->device < 0)
		return ab_fail(d, AB_ERR_USAGE, "--device must be 0 or more, not %d", a->device);
	if (a->shard && !a->run_set)
		return ab_fail(d, AB_ERR_USAGE, "--shard needs --run-set ID (the id every shard of the set shares)");
	if (a->shard && a->only)
		return ab_fail(d, AB_ERR_USAGE, "--shard and --only cannot be combined");
	if (a->devices && (a->shard || a->dump || a->device))
		return ab_fail(d, AB_ERR_USAGE, "--devices cannot be combined with --%s",
			       a->shard ? "shard" : a->dump ? "dump" : "device");
	enum ab_rc rc = a->label ? store_check_label(a->label, d) : AB_OK;
	if (!rc && a->shard)
		rc = shard_parse(a->shard, &o->shard, d);
	if (!rc && a->run_set)
		rc = shard_check_set_id(a->run_set, d);
	return rc;
}

/* The stored run's summary table (spec: an id or set:ID), read back from
 * the database: what the run measured, as every other command sees it. */
static int print_summary(const char *db_path, const char *spec)
{
	struct ab_diag d;
	struct results_run *r;
	struct summary_run s;
	enum ab_rc rc = store_load_spec(db_path, spec, &r, &d);
	if (rc)
		return cli_exit_rc(rc, &d, "run");
	if (!(rc = summary_compute(r, SUMMARY_FULL, &s, &d))) {
		show_summary_table(&s, stdout);
		summary_free(&s);
	}
	results_run_free(r);
	return cli_exit_rc(rc, &d, "run");
}

/* Measures in this process and says where the run went. */
static int run_here(const struct scenario *s, struct runner_options *o, int argc, char **argv)
{
	struct ab_diag d;
	int64_t run_id;
	char *cmdline = provenance_command_line(argc + 1, argv - 1);
	o->command_line = cmdline;
	enum ab_rc rc = runner_scenario(s, o, &run_id, &d);
	free(cmdline);
	if (rc) {
		bool signal = rc == AB_ERR_INTERRUPTED;
		ab_error("%s", d.msg);
		if (run_id)
			fprintf(stderr, "abbench: run %lld marked %s in '%s'\n", (long long)run_id,
				signal ? "interrupted" : "failed", o->db_path);
		return signal ? AB_EXIT_SIGNAL_BASE + interrupt_signal() : ab_rc_exit_status(rc);
	}
	if (o->run_set)
		printf("run %lld (shard %d/%d of run set '%s') stored in '%s' (abbench show %lld)\n", (long long)run_id,
		       o->shard.count ? o->shard.index : 1, o->shard.count ? o->shard.count : 1, o->run_set, o->db_path,
		       (long long)run_id);
	else
		printf("run %lld stored in '%s' (abbench show %lld)\n", (long long)run_id, o->db_path, (long long)run_id);
	char id[32];
	snprintf(id, sizeof id, "%lld", (long long)run_id);
	return print_summary(o->db_path, id);
}

/* --devices: the device list, then one worker each (or, for one device,
 * a plain run on it in this process). */
static int run_devices(const struct scenario *s, const struct run_args *a, struct runner_options *o, int argc,
		       char **argv)
{
	const struct backend_ops *ops;
	struct ab_diag d;
	char why[256], set[64];
	bool fell_back;
	int dev[DEVICES_MAX], n = 0;
	enum ab_rc rc = backend_choose(o->have_backend ? o->backend : s->backend, &ops, &fell_back, why, sizeof why, &d);
	if (!rc)
		rc = devices_parse(a->devices, ops->device_count(), dev, &n, &d);
	if (rc)
		return cli_exit_rc(rc, &d, "run");
	if (n == 1) {
		o->device = dev[0];
		return run_here(s, o, argc, argv);
	}
	if (!a->run_set)
		devices_default_set_id(set, sizeof set);
	struct devices_job j = {
		.scenario_path = s->path, .db_path = o->db_path, .backend = ops->name,
		.run_set = a->run_set ? a->run_set : set, .label = a->label, .only = a->only, .quick = a->quick,
		.no_cupti = a->no_cupti, .no_wait = a->no_wait, .n = n, .device = dev,
	};
	if ((rc = devices_run(&j, &d)))
		return cli_exit_rc(rc, &d, "run");
	printf("run set '%s' (%d shards on devices %s) stored in '%s' (abbench show set:%s)\n", j.run_set, n, a->devices,
	       o->db_path, j.run_set);
	char spec[80];
	snprintf(spec, sizeof spec, "set:%s", j.run_set);
	return print_summary(o->db_path, spec);
}

int cmd_run(int argc, char **argv)
{
	struct run_args a = { 0 };
	const struct cli_option opts[] = {
		{ "db", CLI_STRING, &a.db, "FILE", "database file (default $ABBENCH_DB, else abbench.db)" },
		{ "backend", CLI_STRING, &a.backend, "auto|cpu|cuda", "override the scenario's backend" },
		{ "quick", CLI_FLAG, &a.quick, NULL, "cap samples (3 to 10 per slot, 1 s) for a fast look" },
		{ "dump", CLI_STRING, &a.dump, "DIR", "write inputs and outputs as .npy files plus manifest.json" },
		{ "label", CLI_STRING, &a.label, "NAME", "label the run (e.g. main, pr) for compare and gate; at most 63 characters, not all digits, not 'last'" },
		{ "only", CLI_STRING, &a.only, "CASES", "run only these cases: names or globs, comma-separated ('img_*,qk*')" },
		{ "shard", CLI_STRING, &a.shard, "I/N", "measure shard I of N: the cases at places k with k mod N = I-1" },
		{ "run-set", CLI_STRING, &a.run_set, "ID", "store the run as a shard of run set ID (read back as set:ID)" },
		{ "device", CLI_INT, &a.device, "N", "the device to measure on (cuda: as cudaSetDevice counts, i.e. after CUDA_VISIBLE_DEVICES; default 0)" },
		{ "devices", CLI_STRING, &a.devices, "all|LIST", "one worker per device (e.g. all, 0,1), each a shard; merged into one run set" },
		{ "no-progress", CLI_FLAG, &a.no_progress, NULL, "no progress lines even on a terminal" },
		{ "progress", CLI_FLAG, &a.progress, NULL, "progress lines (elapsed, time left) even when stderr is not a terminal" },
		{ "no-cupti", CLI_FLAG, &a.no_cupti, NULL, "cuda: no per-kernel records (measures CUPTI's overhead)" },
		{ "no-wait", CLI_FLAG, &a.no_wait, NULL, "when another run holds the device, fail at once (exit 3) instead of waiting" },
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"run", "SCENARIO.ini", "measure a scenario's cases in A/B/A brackets and store the run",
		"Every case runs arm a and arm b in the scenario's bracket (ABA: A1, B, A2), each slot\n"
		"warmed up and sampled until the stopping rule is met. Outputs are hashed (md5),\n"
		"byte-compared with arm a's and checked against a float64 reference. Results go to\n"
		"the database in one transaction; 'abbench show' prints them. --shard I/N --run-set ID\n"
		"measures a share of the cases (round-robin over the scenario's order, the same on every\n"
		"machine); 'abbench merge' joins the shards' files and 'set:ID' reads them as one run.\n"
		"One run measures a device at a time: a second run on it waits for the first (see --no-wait).\n"
		"SIGINT or SIGTERM stops the run at the next sample, marks it 'interrupted' and exits 130 or\n"
		"143 (docs/RELIABILITY.md).",
		1, 1, opts,
	};
	const char *pos[1];
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;

	struct runner_options o = {
		.db_path = store_default_path(a.db),
		.dump_dir = a.dump,
		.label = a.label,
		.quick = a.quick,
		.progress = !a.no_progress && (a.progress || isatty(STDERR_FILENO)),
		.no_cupti = a.no_cupti,
		.run_set = a.run_set,
		.device = a.device,
		.only = a.only,
		.no_wait = a.no_wait,
	};
	struct ab_diag d;
	struct scenario *s;
	enum ab_rc rc = check_args(&a, &o, &d);
	if (rc)
		return cli_exit_rc(rc, &d, "run");
	if ((rc = scenario_parse_file(pos[0], &s, &d)) || (rc = arms_check(s, &d))) {
		/* An unreadable scenario is bad input like a malformed one; the
		 * user arms' keys are checked by their kinds (arms/), here too so
		 * that --devices refuses them before any worker starts. */
		scenario_free(s);
		ab_error("%s", d.msg);
		return rc == AB_ERR_NOMEM ? AB_EXIT_FAILURE : AB_EXIT_USAGE;
	}
	if (a.only && (rc = scenario_keep_only(s, a.only, &d))) {
		scenario_free(s);
		return cli_exit_rc(rc, &d, NULL);
	}
	int status = a.devices ? run_devices(s, &a, &o, argc, argv) : run_here(s, &o, argc, argv);
	scenario_free(s);
	return status;
}
