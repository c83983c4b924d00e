/*
 * cli.h - command-line options declared once, in a table that also carries
 * their help text (git's parse-options, in miniature).
 *
 * A subcommand declares its options and positional arguments, then calls
 * cli_parse. --help/-h on any subcommand prints the usage generated from the
 * table. Values are written through the table's pointers.
 */
#ifndef AB_CLI_H
#define AB_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "common/diag.h"

enum cli_type {
	CLI_FLAG,   /* bool, no argument */
	CLI_STRING, /* const char * */
	CLI_INT,    /* int */
	CLI_DOUBLE, /* double */
	CLI_END,
};

struct cli_option {
	const char *name;     /* long name without "--" */
	enum cli_type type;
	void *value;
	const char *arg_name; /* e.g. "FILE" */
	const char *help;
};

#define CLI_OPT_END { NULL, CLI_END, NULL, NULL, NULL }

/* --db FILE, with one help text for every command that opens the store. */
#define CLI_OPT_DB(ptr) { "db", CLI_STRING, (ptr), "FILE", "database file (default $ABBENCH_DB, else abbench.db)" }

/* The output of every command that prints: --format NAME (a printer of
 * print/printer.h, found by name) and --out FILE (a directory for report,
 * publish and history's charts), declared once here. The older spellings
 * stay as aliases: --json (show, compare, gate) is --format json, and
 * export's --csv FILE, --json FILE and --benchmark-json FILE are
 * --format csv|json|benchmark --out FILE. */
struct cli_output {
	const char *format;   /* NULL: the command's default */
	const char *out;      /* NULL: standard output, or the command's default directory */
	bool json;            /* --json, the alias */
	char help[256];       /* --format's help: the formats this command prints (cli/output.h) */
};
#define CLI_OPT_FORMAT(o) { "format", CLI_STRING, &(o)->format, "NAME", (o)->help }
#define CLI_OPT_OUT(o, what) { "out", CLI_STRING, &(o)->out, "FILE", "write to FILE instead of standard output (atomically: " what ")" }
#define CLI_OPT_OUT_DIR(o, what) { "out", CLI_STRING, &(o)->out, "DIR", what }
#define CLI_OPT_JSON_ALIAS(o) { "json", CLI_FLAG, &(o)->json, NULL, "alias of --format json" }

struct cli_spec {
	const char *command;     /* "run" */
	const char *args;        /* positional synopsis: "SCENARIO.ini" or "[RUN]" */
	const char *summary;     /* one line */
	const char *description; /* longer text for --help, may be NULL */
	int min_positional, max_positional;
	const struct cli_option *options;
};

enum cli_result {
	CLI_OK = 0,
	CLI_HELP_SHOWN, /* caller exits 0 */
	CLI_BAD,        /* message printed; caller exits 2 */
};

/* Parses argv (argv[0] is the subcommand name). Positional arguments are
 * stored in pos[0..*n_pos). Options may come before or after them; "--"
 * ends options. */
enum cli_result cli_parse(const struct cli_spec *spec, int argc, char **argv, const char **pos, int *n_pos);

/* What cli_parse_or_exit returns when the command should go on. */
#define CLI_CONTINUE (-1)

/* cli_parse as a subcommand's first step: CLI_CONTINUE, or the exit status
 * to return at once (0 after --help, stdout checked; AB_EXIT_USAGE after a
 * bad command line, its message printed). */
int cli_parse_or_exit(const struct cli_spec *spec, int argc, char **argv, const char **pos, int *n_pos);

void cli_usage(const struct cli_spec *spec, FILE *out);

/* Exit helper: flushes stdout and checks ferror, so that a full disk or a
 * closed pipe is an error, not silence. Returns status or 3 on failure. */
int cli_finish(int status);

/* A subcommand's last step: AB_OK is cli_finish(AB_EXIT_OK); anything else
 * prints "abbench: error: COMMAND: MSG" (just MSG when command is NULL) and
 * returns rc's exit status. */
int cli_exit_rc(enum ab_rc rc, const struct ab_diag *d, const char *command);

#endif
