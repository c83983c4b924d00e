/*
 * commands.h - the subcommands main.c dispatches to, one cmd_<name>.c each.
 *
 * Each takes (argc, argv) with argv[0] the subcommand's name and returns the
 * process exit status (diag.h and docs/USAGE.md "Exit status": 0 ok, 1 verdict,
 * 2 usage/data, 3 failure, 4 inconclusive, 128 + signal for a run stopped
 * by one).
 */
#ifndef AB_COMMANDS_H
#define AB_COMMANDS_H

int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_sites(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_baseline(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_backends(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_publish(int argc, char **argv);
int cmd_certify(int argc, char **argv);
int cmd_coverage(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_figures(int argc, char **argv);
int cmd_prune(int argc, char **argv);

#endif
