/*
 * cli.c - the option-table parser and usage printer behind every subcommand.
 */
#include "cli/cli.h"

#include <errno.h>
#include <string.h>

#include "common/diag.h"
#include "common/numparse.h"
#include "common/suggest.h"

static const struct cli_option *find_option(const struct cli_spec *spec, const char *name, size_t len)
{
	for (const struct cli_option *o = spec->options; o && o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	return NULL;
}

static bool store_value(const struct cli_spec *spec, const struct cli_option *o, const char *arg)
{
	switch (o->type) {
	case CLI_STRING:
		*(const char **)o->value = arg;
		return true;
	case CLI_INT:
		if (numparse_int(arg, o->value))
			return true;
		break;
	case CLI_DOUBLE:
		if (numparse_double(arg, o->value))
			return true;
		break;
	default:
		return false;
	}
	ab_error("%s: option '--%s' needs a number, not '%s'", spec->command, o->name, arg);
	return false;
}

/* The option a mistyped name most likely meant (common/suggest.h), or NULL. */
static const char *nearest_option(const struct cli_spec *spec, const char *name, size_t len)
{
	const char *names[64];
	char typed[64];
	int n = 0;
	for (const struct cli_option *o = spec->options; o && o->name && n < 63; o++)
		names[n++] = o->name;
	names[n++] = "help";
	snprintf(typed, sizeof typed, "%.*s", (int)(len < sizeof typed ? len : sizeof typed - 1), name);
	return suggest_nearest(typed, names, n);
}

/* Handles one "--name[=value]" at argv[*i]; advances *i past a separate value. */
static enum cli_result parse_long(const struct cli_spec *spec, int argc, char **argv, int *i)
{
	const char *name = argv[*i] + 2;
	const char *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	if ((len == 4 && !strncmp(name, "help", 4))) {
		cli_usage(spec, stdout);
		return CLI_HELP_SHOWN;
	}
	const struct cli_option *o = find_option(spec, name, len);
	if (!o) {
		const char *near = nearest_option(spec, name, len);
		if (near)
			ab_error("%s: unknown option '--%.*s' (did you mean '--%s'?)", spec->command, (int)len, name, near);
		else
			ab_error("%s: unknown option '--%.*s' (see 'abbench %s --help')", spec->command, (int)len, name,
				 spec->command);
		return CLI_BAD;
	}
	if (o->type == CLI_FLAG) {
		if (eq) {
			ab_error("%s: option '--%s' takes no value", spec->command, o->name);
			return CLI_BAD;
		}
		*(bool *)o->value = true;
		return CLI_OK;
	}
	const char *arg = eq ? eq + 1 : NULL;
	if (!arg) {
		if (*i + 1 >= argc) {
			ab_error("%s: option '--%s' needs a value (%s)", spec->command, o->name, o->arg_name);
			return CLI_BAD;
		}
		arg = argv[++*i];
	}
	return store_value(spec, o, arg) ? CLI_OK : CLI_BAD;
}

enum cli_result cli_parse(const struct cli_spec *spec, int argc, char **argv, const char **pos, int *n_pos)
{
	bool only_positional = false;
	*n_pos = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!only_positional && !strcmp(a, "--")) {
			only_positional = true;
			continue;
		}
		if (!only_positional && (!strcmp(a, "-h"))) {
			cli_usage(spec, stdout);
			return CLI_HELP_SHOWN;
		}
		if (!only_positional && a[0] == '-' && a[1] == '-') {
			enum cli_result r = parse_long(spec, argc, argv, &i);
			if (r != CLI_OK)
				return r;
			continue;
		}
		if (!only_positional && a[0] == '-' && a[1]) {
			ab_error("%s: unknown option '%s' (see 'abbench %s --help')", spec->command, a, spec->command);
			return CLI_BAD;
		}
		if (*n_pos >= spec->max_positional) {
			ab_error("%s: unexpected argument '%s' (usage: abbench %s %s)", spec->command, a, spec->command,
				 spec->args ? spec->args : "");
			return CLI_BAD;
		}
		pos[(*n_pos)++] = a;
	}
	if (*n_pos < spec->min_positional) {
		ab_error("%s: missing argument (usage: abbench %s %s)", spec->command, spec->command,
			 spec->args ? spec->args : "");
		return CLI_BAD;
	}
	return CLI_OK;
}

int cli_parse_or_exit(const struct cli_spec *spec, int argc, char **argv, const char **pos, int *n_pos)
{
	switch (cli_parse(spec, argc, argv, pos, n_pos)) {
	case CLI_OK:
		return CLI_CONTINUE;
	case CLI_HELP_SHOWN:
		return cli_finish(AB_EXIT_OK);
	default:
		return AB_EXIT_USAGE;
	}
}

void cli_usage(const struct cli_spec *spec, FILE *out)
{
	fprintf(out, "usage: abbench %s%s%s [options]\n\n%s\n", spec->command, spec->args ? " " : "",
		spec->args ? spec->args : "", spec->summary);
	if (spec->description)
		fprintf(out, "\n%s\n", spec->description);
	fputs("\noptions:\n", out);
	for (const struct cli_option *o = spec->options; o && o->name; o++) {
		char left[64];
		if (o->type == CLI_FLAG)
			snprintf(left, sizeof left, "--%s", o->name);
		else
			snprintf(left, sizeof left, "--%s %s", o->name, o->arg_name ? o->arg_name : "VALUE");
		fprintf(out, "  %-24s %s\n", left, o->help);
	}
	fprintf(out, "  %-24s %s\n", "-h, --help", "show this help");
}

int cli_finish(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "abbench: error: cannot write standard output: %s\n", strerror(errno));
		return AB_EXIT_FAILURE;
	}
	return status;
}

int cli_exit_rc(enum ab_rc rc, const struct ab_diag *d, const char *command)
{
	if (rc == AB_OK)
		return cli_finish(AB_EXIT_OK);
	if (command)
		ab_error("%s: %s", command, d->msg);
	else
		ab_error("%s", d->msg);
	return ab_rc_exit_status(rc);
}
