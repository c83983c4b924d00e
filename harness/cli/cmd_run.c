/*
 * cmd_run.c - `abbench run SCENARIO.ini`: parse, validate, measure, store;
 * a shard of the scenario with --shard, one worker per device with
 * --devices (run/devices.h). It ends with the run's summary table, read
 * back from the database.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/summary.h"
#include "arms/arms.h"
#include "backend/backend.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "common/diag.h"
#include "common/suggest.h"
#include "config/scenario.h"
#include "run/devices.h"
#include "run/interrupt.h"
#include "run/provenance.h"
#include "run/resume.h"
#include "run/runner.h"
#include "run/shard.h"
#include "run/supervise.h"
#include "print/figure_fmt.h"
#include "store/store.h"

struct run_args {
	const char *db, *backend, *dump, *label, *only, *shard, *run_set, *devices, *resume;
	bool quick, no_progress, progress, no_cupti, no_wait, recheck, require_exact;
	int device;
};

#define RUN_N_OPTIONS 18 /* run_options' rows, CLI_OPT_END included */

/* "auto|cpu|cuda": the choices of --backend, from the backend table. */
static const char *backend_arg_name(void)
{
	static char buf[96];
	if (!buf[0])
		for (const char *const *n = backend_choice_names(); *n; n++)
			snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", n == backend_choice_names() ? "" : "|",
				 *n);
	return buf;
}

/* run's options, bound to a: the one table, read by cli_parse for this
 * process and written back by worker_argv for a --devices worker. */
static void run_options(struct run_args *a, struct cli_option out[RUN_N_OPTIONS])
{
	const struct cli_option opts[] = {
		{ "db", CLI_STRING, &a->db, "FILE", "database file (default $ABBENCH_DB, else abbench.db)" },
		{ "backend", CLI_STRING, &a->backend, backend_arg_name(), "override the scenario's backend" },
		{ "quick", CLI_FLAG, &a->quick, NULL, "cap samples (3 to 10 per slot, 1 s) for a fast look" },
		{ "dump", CLI_STRING, &a->dump, "DIR", "write inputs and outputs as .npy files plus manifest.json" },
		{ "label", CLI_STRING, &a->label, "NAME", "label the run (e.g. main, pr) for compare and gate; at most 63 characters, not all digits, not 'last'" },
		{ "only", CLI_STRING, &a->only, "CASES", "run only these cases: names or globs, comma-separated ('img_*,qk*')" },
		{ "recheck", CLI_FLAG, &a->recheck, NULL, "mark the run as cases measured again (a second opinion): list and history leave it out unless --rechecks" },
		{ "shard", CLI_STRING, &a->shard, "I/N", "measure shard I of N: the cases at places k with k mod N = I-1" },
		{ "run-set", CLI_STRING, &a->run_set, "ID", "store the run as a shard of run set ID (read back as set:ID)" },
		{ "device", CLI_INT, &a->device, "N", "the device to measure on (cuda: as cudaSetDevice counts, i.e. after CUDA_VISIBLE_DEVICES; default 0)" },
		{ "devices", CLI_STRING, &a->devices, "all|LIST", "one worker per device (e.g. all, 0,1), each a shard; merged into one run set" },
		{ "no-progress", CLI_FLAG, &a->no_progress, NULL, "no progress lines even on a terminal" },
		{ "progress", CLI_FLAG, &a->progress, NULL, "progress lines (elapsed, time left) even when stderr is not a terminal" },
		{ "no-cupti", CLI_FLAG, &a->no_cupti, NULL, "cuda: no per-kernel records (measures CUPTI's overhead)" },
		{ "no-wait", CLI_FLAG, &a->no_wait, NULL, "when another run holds the device, fail at once (exit 3) instead of waiting" },
		{ "require-exact", CLI_FLAG, &a->require_exact, NULL, "exit 1 when a case is not bit-exact (a B output not byte-equal to A1's, or an arm's outputs changing between calls); the run is stored all the same" },
		{ "resume", CLI_STRING, &a->resume, "RUN", "measure the cases an interrupted or failed run lacks, into it (same scenario text, build, backend and device; the run's own --only, --shard, --quick, --device, --label, --recheck)" },
		CLI_OPT_END,
	};
	_Static_assert(sizeof opts / sizeof opts[0] == RUN_N_OPTIONS, "RUN_N_OPTIONS");
	memcpy(out, opts, sizeof opts);
}

/* path made absolute against the working directory, in buf; path itself
 * when it is absolute, or when the result would not fit (the store and
 * dump refuse such a path with its length). */
static const char *absolute(const char *path, char *buf, size_t len)
{
	char cwd[PATH_MAX];
	if (path[0] == '/' || !getcwd(cwd, sizeof cwd))
		return path;
	int n = snprintf(buf, len, "%s/%s", strcmp(cwd, "/") ? cwd : "", path);
	return n > 0 && (size_t)n < len ? buf : path;
}

/* Options that cannot go together, and the shard and run set syntax. */
static enum ab_rc check_args(const struct run_args *a, struct runner_options *o, struct ab_diag *d)
{
	const char *choice;
	if (a->backend && !backend_choice_parse(a->backend, &choice)) {
		char names[128];
		const char *const *words = backend_choice_names();
		int n = 0;
		while (words[n])
			n++;
		const char *near = suggest_nearest(a->backend, words, n);
		backend_names(names, sizeof names, " or ");
		return ab_fail(d, AB_ERR_USAGE, "--backend must be auto, %s, not '%s'%s%s%s", names, a->backend,
			       near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
	}
	if (a->device < 0)
		return ab_fail(d, AB_ERR_USAGE, "--device must be 0 or more, not %d", a->device);
	if (a->shard && !a->run_set)
		return ab_fail(d, AB_ERR_USAGE, "--shard needs --run-set ID (the id every shard of the set shares)");
	if (a->shard && a->only)
		return ab_fail(d, AB_ERR_USAGE, "--shard and --only cannot be combined");
	if (a->devices && (a->shard || a->dump || a->device))
		return ab_fail(d, AB_ERR_USAGE, "--devices cannot be combined with --%s",
			       a->shard ? "shard" : a->dump ? "dump" : "device");
	if (a->resume && (a->label || a->only || a->shard || a->run_set || a->devices || a->dump || a->quick || a->device ||
			  a->recheck))
		return ab_fail(d, AB_ERR_USAGE, "--resume takes the run's own options: drop --%s",
			       a->label ? "label" : a->only ? "only" : a->shard ? "shard" : a->run_set ? "run-set" :
			       a->devices ? "devices" : a->dump ? "dump (a dump of part of a run would be partial)" :
			       a->quick ? "quick" : a->device ? "device" : "recheck");
	enum ab_rc rc = a->label ? store_check_label(a->label, d) : AB_OK;
	if (!rc && a->shard)
		rc = shard_parse(a->shard, &o->shard, d);
	if (!rc && a->run_set)
		rc = shard_check_set_id(a->run_set, d);
	return rc;
}

/* The backend of the run, chosen once, here: --backend, else the
 * scenario's; auto's fall-back to the CPU said on stderr. */
static enum ab_rc choose_backend(const struct scenario *s, const struct run_args *a, const struct backend_ops **ops,
				 struct ab_diag *d)
{
	char why[512], name[16];
	bool fell_back;
	enum ab_rc rc = backend_choose(a->backend ? a->backend : s->backend, ops, &fell_back, why, sizeof why, d);
	if (rc || !fell_back)
		return rc;
	for (size_t i = 0; i + 1 < sizeof name; i++)
		if (!(name[i] = (char)toupper((unsigned char)(*ops)->name[i])))
			break;
	name[sizeof name - 1] = '\0';
	fprintf(stderr, "abbench: note: backend auto: %s; running on the %s backend\n", why, name);
	return AB_OK;
}

/* --require-exact: exit 1 when a case lost bit-exactness (summary.h's
 * SUMMARY_CASE_NOT_EXACT: a B output not byte-equal to A1's, or an arm's
 * outputs changing between calls), saying how many; else 0. */
static int exact_status(const struct summary_run *s, bool require_exact)
{
	int n = s->n_verdict[SUMMARY_CASE_NOT_EXACT];
	if (!require_exact || !n)
		return AB_EXIT_OK;
	ab_error("run: %d of %d case%s not bit-exact (--require-exact)", n, s->n_cases, s->n_cases == 1 ? "" : "s");
	return AB_EXIT_VERDICT;
}

/* The stored run's summary table (spec: an id or set:ID), read back from
 * the database and held to its device profile (drift judged as the report
 * judges it): what the run measured, as every other command sees it; with
 * require_exact, exit 1 when a case is not bit-exact. */
static int print_summary(const char *db_path, const char *spec, bool require_exact)
{
	int status = AB_EXIT_OK;
	struct ab_diag d;
	struct results_run *r;
	struct summary_run s;
	struct load_profile lp;
	enum ab_rc rc = store_load_spec(db_path, spec, &r, &d);
	if (rc)
		return cli_exit_rc(rc, &d, "run");
	load_profile(r, &lp);
	load_profile_warn(&lp, "run", "drift is not judged");
	if (!(rc = load_summary(r, SUMMARY_FULL, &lp, &s, &d))) {
		show_summary_table(&s, stdout);
		status = exact_status(&s, require_exact);
		summary_free(&s);
	}
	results_run_free(r);
	return rc ? cli_exit_rc(rc, &d, "run") : status;
}

/* A failed run: its error, then what became of its row (one true line). */
static int run_failed(enum ab_rc rc, const struct ab_diag *d, const struct runner_result *res, const char *db)
{
	bool signal = rc == AB_ERR_INTERRUPTED;
	const char *status = signal ? "interrupted" : "failed";
	ab_error("%s", d->msg);
	if (res->run_id && res->marked)
		fprintf(stderr, "abbench: run %lld marked %s in '%s'\n", (long long)res->run_id, status, db);
	else if (res->run_id)
		ab_error("run %lld could not be marked %s: %s (it reads 'running' until a later abbench command on '%s' "
			 "finds its process gone and marks it interrupted)",
			 (long long)res->run_id, status, res->mark_error, db);
	return signal ? AB_EXIT_SIGNAL_BASE + interrupt_signal() : ab_rc_exit_status(rc);
}

/* Measures in this process and says where the run went (in db, the
 * database as the command line spelled it). */
static int run_here(const struct scenario *s, struct runner_options *o, const char *db, bool require_exact, int argc,
		    char **argv)
{
	struct ab_diag d;
	struct runner_result res;
	char *cmdline = provenance_command_line(argc + 1, argv - 1);
	o->command_line = cmdline;
	enum ab_rc rc = runner_scenario(s, o, &res, &d);
	free(cmdline);
	if (rc)
		return run_failed(rc, &d, &res, db);
	long long id = (long long)res.run_id;
	if (o->run_set)
		printf("run %lld (shard %d/%d of run set '%s') stored in '%s' (abbench show %lld)\n", id,
		       o->shard.count ? o->shard.index : 1, o->shard.count ? o->shard.count : 1, o->run_set, db, id);
	else
		printf("run %lld stored in '%s' (abbench show %lld)\n", id, db, id);
	char spec[32];
	snprintf(spec, sizeof spec, "%lld", id);
	return print_summary(o->db_path, spec, require_exact);
}

/* What options_argv writes of opts, at most: "--name" and a value each. */
static size_t options_text_bytes(const struct cli_option *opts)
{
	size_t len = 0;
	for (const struct cli_option *o = opts; o->type != CLI_END; o++) {
		const char *value = o->type == CLI_STRING ? *(const char *const *)o->value : NULL;
		len += strlen(o->name) + 3 + (value ? strlen(value) + 1 : 32);
	}
	return len;
}

/* Writes the options of opts that are set as "--name [value]" after
 * argv[0..n) into av (at most cap entries, NULL-terminated), their
 * values' text into buf; false when it does not fit. A flag is written
 * when true, a string when not NULL, a number always. */
static bool options_argv(const struct cli_option *opts, char **av, int n, int cap, char *buf, size_t len)
{
	size_t used = 0;
	for (const struct cli_option *o = opts; o->type != CLI_END; o++) {
		const char *value = NULL;
		char num[32];
		if (o->type == CLI_FLAG && !*(const bool *)o->value)
			continue;
		if (o->type == CLI_STRING && !(value = *(const char *const *)o->value))
			continue;
		if (o->type == CLI_INT)
			snprintf(num, sizeof num, "%d", *(const int *)o->value);
		if (o->type == CLI_DOUBLE)
			snprintf(num, sizeof num, "%.17g", *(const double *)o->value);
		if (o->type == CLI_INT || o->type == CLI_DOUBLE)
			value = num;
		for (int k = 0; k < (value ? 2 : 1); k++) {
			int w = snprintf(buf + used, len - used, "%s%s", k ? "" : "--", k ? value : o->name);
			if (n + 1 >= cap || w < 0 || (size_t)w >= len - used)
				return false;
			av[n++] = buf + used;
			used += (size_t)w + 1;
		}
	}
	av[n] = NULL;
	return true;
}

/* What the workers of one --devices run share: this process's options,
 * the scenario and the backend chosen here. */
struct worker_ctx {
	const struct run_args *args;
	const char *scenario_path;
	const char *backend;
};

#define WORKER_ARGV_MAX (2 * RUN_N_OPTIONS + 4)

/* A worker's command line (devices_argv_fn): this process's options, with
 * the worker's device, shard, run set and database, the chosen backend,
 * no progress lines and no --devices, written through run's own option
 * table. One allocation: the pointers, then their text. */
static char **worker_argv(const struct devices_worker *w, const void *ctx)
{
	const struct worker_ctx *c = ctx;
	struct run_args wa = *c->args;
	struct cli_option opts[RUN_N_OPTIONS];
	char shard[32];
	snprintf(shard, sizeof shard, "%d/%d", w->shard.index, w->shard.count);
	wa.backend = c->backend;
	wa.device = w->device;
	wa.shard = shard;
	wa.run_set = w->run_set;
	wa.db = w->db;
	wa.devices = NULL;
	wa.progress = false;
	wa.no_progress = true;
	wa.require_exact = false; /* judged once, on the whole set, by the caller */
	run_options(&wa, opts);
	size_t text = options_text_bytes(opts);
	char **av = malloc(WORKER_ARGV_MAX * sizeof *av + text);
	if (!av)
		return NULL;
	av[0] = "abbench";
	av[1] = "run";
	av[2] = (char *)c->scenario_path;
	if (!options_argv(opts, av, 3, WORKER_ARGV_MAX, (char *)(av + WORKER_ARGV_MAX), text)) {
		free(av);
		return NULL;
	}
	return av;
}

/* --devices: the device list, then one worker each (or, for one device,
 * a plain run on it in this process). */
static int run_devices(const struct scenario *s, const struct run_args *a, struct runner_options *o, const char *db,
		       int argc, char **argv)
{
	struct ab_diag d;
	char set[64];
	int dev[DEVICES_MAX], n = 0;
	enum ab_rc rc = devices_parse(a->devices, o->ops->device_count(), dev, &n, &d);
	if (rc)
		return cli_exit_rc(rc, &d, "run");
	if (n == 1) {
		o->device = dev[0];
		return run_here(s, o, db, a->require_exact, argc, argv);
	}
	if (a->only) /* each worker is a shard, and a shard takes no --only */
		return cli_exit_rc(ab_fail(&d, AB_ERR_USAGE, "--devices over %d devices cannot be combined with --only", n),
				   &d, "run");
	if (!a->run_set)
		devices_default_set_id(set, sizeof set);
	const struct worker_ctx ctx = { .args = a, .scenario_path = s->path, .backend = o->ops->name };
	struct devices_job j = {
		.db_path = o->db_path, .run_set = a->run_set ? a->run_set : set, .n = n, .device = dev,
		.argv = worker_argv, .ctx = &ctx,
	};
	if ((rc = devices_run(&j, &d)))
		return cli_exit_rc(rc, &d, "run");
	printf("run set '%s' (%d shards on devices %s) stored in '%s' (abbench show set:%s)\n", j.run_set, n, a->devices,
	       db, j.run_set);
	char spec[80];
	snprintf(spec, sizeof spec, "set:%s", j.run_set);
	return print_summary(o->db_path, spec, a->require_exact);
}

/* --resume: the stored run's own options (resume.h), in place of the
 * command line's (check_args refused those given with it). */
static void resume_options(const struct results_run *r, struct runner_options *o)
{
	o->resume = r;
	o->quick = r->quick;
	o->label = r->label[0] ? r->label : NULL;
	o->only = r->only_cases[0] ? r->only_cases : NULL;
	o->recheck = r->recheck;
	o->device = r->device_index;
	o->run_set = r->run_set[0] ? r->run_set : NULL;
	o->shard = (struct shard){ r->shard_count > 1 ? r->shard_index : 0, r->shard_count > 1 ? r->shard_count : 0 };
}

/* The scenario at path, its arms' keys checked, cut to --only, and the
 * backend chosen: CLI_CONTINUE, or the exit status (said on stderr). */
static int load_scenario(const char *path, const struct run_args *a, struct runner_options *o, struct scenario **s)
{
	struct ab_diag d;
	enum ab_rc rc;
	if ((rc = scenario_parse_file(path, s, &d)) || (rc = arms_check(*s, &d))) {
		/* An unreadable scenario is bad input like a malformed one; the
		 * user arms' keys are checked by their kinds (arms/), here too so
		 * that --devices refuses them before any worker starts. */
		ab_error("%s", d.msg);
		return rc == AB_ERR_NOMEM ? AB_EXIT_FAILURE : AB_EXIT_USAGE;
	}
	if (o->only && (rc = scenario_keep_only(*s, o->only, &d)))
		return cli_exit_rc(rc, &d, NULL);
	if ((rc = choose_backend(*s, a, &o->ops, &d))) {
		ab_error("%s", d.msg);
		return ab_rc_exit_status(rc);
	}
	return CLI_CONTINUE;
}

int cmd_run(int argc, char **argv)
{
	struct run_args a = { 0 };
	struct cli_option opts[RUN_N_OPTIONS];
	run_options(&a, opts);
	const struct cli_spec spec = {
		"run", "SCENARIO.ini | [SCENARIO.ini] --resume RUN", "measure a scenario's cases in A/B/A brackets and store the run",
		"Every case runs arm a and arm b in the scenario's bracket (ABA: A1, B, A2), each slot\n"
		"warmed up and sampled until the stopping rule is met. Outputs are hashed (md5),\n"
		"byte-compared with arm a's and checked against a float64 reference. Results go to\n"
		"the database case by case, each as it finishes; 'abbench show' prints them. --shard I/N --run-set ID\n"
		"measures a share of the cases (round-robin over the scenario's order, the same on every\n"
		"machine); 'abbench merge' joins the shards' files and 'set:ID' reads them as one run.\n"
		"One run measures a device at a time: a second run on it waits for the first (see --no-wait).\n"
		"The locks are files in $ABBENCH_LOCK_DIR (default /tmp/abbench-locks; keep it on a local file\n"
		"system); a run under ABBENCH_FAKE_TIMER=1 measures no device and takes no lock.\n"
		"SIGINT or SIGTERM stops the run at the next sample (within 2 s, whatever an arm does), marks\n"
		"it 'interrupted' and exits 130 or 143 (docs/RELIABILITY.md); the cases it finished stay. A call\n"
		"of an arm from outside may take call_limit_s ([scenario], 60 s by default): past it the run\n"
		"fails (exit 3), as when an arm ends the process. --resume RUN measures the cases an\n"
		"interrupted or failed run lacks into it (the scenario from its stored path, or the one given,\n"
		"must have the text the run measured; the same build, backend and device).",
		0, 1, opts,
	};
	const char *pos[1];
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;

	/* The database and the dump folder as absolute paths, taken now: an arm
	 * that changes the working directory (os.chdir in a Python module)
	 * moves neither. Messages keep the spelling of the command line. */
	const char *db = store_default_path(a.db);
	char db_abs[PATH_MAX], dump_abs[PATH_MAX];
	struct runner_options o = {
		.db_path = absolute(db, db_abs, sizeof db_abs),
		.dump_dir = a.dump ? absolute(a.dump, dump_abs, sizeof dump_abs) : NULL,
		.label = a.label,
		.quick = a.quick,
		.progress = !a.no_progress && (a.progress || isatty(STDERR_FILENO)),
		.no_cupti = a.no_cupti,
		.run_set = a.run_set,
		.device = a.device,
		.only = a.only,
		.recheck = a.recheck,
		.no_wait = a.no_wait,
	};
	struct ab_diag d;
	struct scenario *s = NULL;
	struct results_run *resumed = NULL;
	enum ab_rc rc = check_args(&a, &o, &d);
	if (!rc && !n_pos && !a.resume)
		rc = ab_fail(&d, AB_ERR_USAGE, "missing argument (usage: abbench run SCENARIO.ini, or --resume RUN)");
	/* From here on two processes (run/supervise.h): this one waits and
	 * answers for the one that runs, before anything (CUDA, Python, the
	 * database) is opened. */
	const struct supervise_target target = { .db = db, .db_path = o.db_path };
	int supervised_status;
	if (!rc && !supervise_fork(&target, &supervised_status))
		return supervised_status;
	if (!rc && a.resume && !(rc = resume_load(o.db_path, a.resume, &resumed, &d)))
		resume_options(resumed, &o);
	if (rc)
		return supervise_done(cli_exit_rc(rc, &d, "run"));
	int status = load_scenario(n_pos ? pos[0] : resumed->scenario_path, &a, &o, &s);
	if (status == CLI_CONTINUE)
		status = a.devices ? run_devices(s, &a, &o, db, argc, argv)
				   : run_here(s, &o, db, a.require_exact, argc, argv);
	scenario_free(s);
	results_run_free(resumed);
	return supervise_done(status);
}
