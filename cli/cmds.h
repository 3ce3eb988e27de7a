/* The skelsched subcommands. Each lives in cli/cmd_NAME.c and is called by
 * main with argv[0] = the subcommand's name. Each returns the process exit
 * code: 0 success, 1 bad input or a failed analysis (a message naming the
 * file:line:column was printed to stderr), 2 usage error. */
#ifndef SKELSCHED_CLI_CMDS_H
#define SKELSCHED_CLI_CMDS_H

int cmd_solve(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_transient(int argc, char **argv);
int cmd_fluid(int argc, char **argv);
int cmd_map(int argc, char **argv);
int cmd_bpel(int argc, char **argv);
int cmd_advise(int argc, char **argv);
int cmd_estimate(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_simulate(int argc, char **argv);

#endif
