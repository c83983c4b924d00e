/*
 * output.h - what a printing command does with --format NAME and --out
 * (struct cli_output, cli/cli.h): finds the printer by name in the table
 * of print/printer.h and the kind it prints, before any database work, so
 * that a bad format is exit 2 with nothing read or written.
 */
#ifndef AB_OUTPUT_H
#define AB_OUTPUT_H

#include <stdbool.h>

#include "cli/cli.h"
#include "print/printer.h"

/* Fills o->help for CLI_OPT_FORMAT: "output format: text (default), json,
 * csv" from the printers that print one of kinds[0..n). Call before
 * cli_parse. */
void output_help(struct cli_output *o, const enum printer_kind *kinds, int n, const char *def);

/* The printer and kind a command prints with: o->format (json under
 * --json; def when neither) looked up by name, and the first of kinds it
 * prints. Prints "COMMAND: ..." and returns false for an unknown format,
 * one that prints none of kinds, or --json beside another --format (the
 * caller exits 2). */
bool output_pick(const struct cli_output *o, const char *command, const enum printer_kind *kinds, int n,
		 const char *def, const struct printer **p, enum printer_kind *kind);

#endif
