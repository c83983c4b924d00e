/*
 * cmd_run.c - `abbench run SCENARIO.ini`: parse, validate, measure, store.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "common/diag.h"
#include "run/interrupt.h"
#include "run/provenance.h"
#include "run/runner.h"
#include "config/scenario.h"
#include "store/store.h"

static bool parse_backend(const char *s, enum scenario_backend *out)
{
	static const struct { const char *name; enum scenario_backend b; } names[] = {
		{ "auto", SCENARIO_BACKEND_AUTO }, { "cpu", SCENARIO_BACKEND_CPU }, { "cuda", SCENARIO_BACKEND_CUDA },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(s, names[i].name)) {
			*out = names[i].b;
			return true;
		}
	return false;
}

int cmd_run(int argc, char **argv)
{
	const char *db = NULL, *backend = NULL, *dump = NULL, *label = NULL, *only = NULL;
	bool quick = false, no_progress = false, no_cupti = false, no_wait = false;
	const struct cli_option opts[] = {
		{ "db", CLI_STRING, &db, "FILE", "database file (default $ABBENCH_DB, else abbench.db)" },
		{ "backend", CLI_STRING, &backend, "auto|cpu|cuda", "override the scenario's backend" },
		{ "quick", CLI_FLAG, &quick, NULL, "cap samples (3 to 10 per slot, 1 s) for a fast look" },
		{ "dump", CLI_STRING, &dump, "DIR", "write inputs and outputs as .npy files plus manifest.json" },
		{ "label", CLI_STRING, &label, "NAME", "label the run (e.g. main, pr) for compare and gate; at most 63 characters, not all digits, not 'last'" },
		{ "only", CLI_STRING, &only, "CASE", "run only the named case" },
		{ "no-progress", CLI_FLAG, &no_progress, NULL, "no progress lines even on a terminal" },
		{ "no-cupti", CLI_FLAG, &no_cupti, NULL, "cuda: no per-kernel records (measures CUPTI's overhead)" },
		{ "no-wait", CLI_FLAG, &no_wait, NULL, "when another run holds the device, fail at once (exit 3) instead of waiting" },
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"run", "SCENARIO.ini", "measure a scenario's cases in A/B/A brackets and store the run",
		"Every case runs arm a and arm b in the scenario's bracket (ABA: A1, B, A2), each slot\n"
		"warmed up and sampled until the stopping rule is met. Outputs are hashed (md5),\n"
		"byte-compared with arm a's and checked against a float64 reference. Results go to\n"
		"the database in one transaction; 'abbench show' prints them. One run measures a device at\n"
		"a time: a second run on it waits for the first (see --no-wait). SIGINT or SIGTERM stops the run\n"
		"at the next sample, marks it 'interrupted' and exits 130 or 143 (docs/RELIABILITY.md).",
		1, 1, opts,
	};
	const char *pos[1];
	int n_pos;
	enum cli_result cr = cli_parse(&spec, argc, argv, pos, &n_pos);
	if (cr != CLI_OK)
		return cr == CLI_HELP_SHOWN ? cli_finish(0) : AB_EXIT_USAGE;

	struct runner_options o = {
		.db_path = store_default_path(db),
		.dump_dir = dump,
		.label = label,
		.quick = quick,
		.progress = !no_progress && isatty(STDERR_FILENO),
		.no_cupti = no_cupti,
		.no_wait = no_wait,
	};
	if (backend && !parse_backend(backend, &o.backend)) {
		ab_error("run: --backend must be auto, cpu or cuda, not '%s'", backend);
		return AB_EXIT_USAGE;
	}
	o.have_backend = backend != NULL;

	struct ab_diag d;
	struct scenario *s;
	enum ab_rc rc = label ? store_check_label(label, &d) : AB_OK;
	if (rc) {
		ab_error("run: --label: %s", d.msg);
		return ab_rc_exit_status(rc);
	}
	rc = scenario_parse_file(pos[0], &s, &d);
	if (rc) {
		/* An unreadable scenario is bad input like a malformed one. */
		ab_error("%s", d.msg);
		return rc == AB_ERR_NOMEM ? AB_EXIT_FAILURE : AB_EXIT_USAGE;
	}
	if (only && (rc = scenario_keep_only(s, only, &d))) {
		ab_error("%s", d.msg);
		scenario_free(s);
		return ab_rc_exit_status(rc);
	}
	char *cmdline = provenance_command_line(argc + 1, argv - 1);
	o.command_line = cmdline;
	int64_t run_id;
	rc = runner_scenario(s, &o, &run_id, &d);
	free(cmdline);
	scenario_free(s);
	if (rc) {
		bool signal = rc == AB_ERR_INTERRUPTED;
		ab_error("%s", d.msg);
		if (run_id)
			fprintf(stderr, "abbench: run %lld marked %s in '%s'\n", (long long)run_id,
				signal ? "interrupted" : "failed", o.db_path);
		return signal ? AB_EXIT_SIGNAL_BASE + interrupt_signal() : ab_rc_exit_status(rc);
	}
	printf("run %lld stored in '%s' (abbench show %lld)\n", (long long)run_id, o.db_path, (long long)run_id);
	return cli_finish(AB_EXIT_OK);
}
