/* cli_parser: the one option parser of the skelsched commands.
 *
 * A command lists its options in a table ending in { NULL }: the name as
 * typed ("--platform", "-N"), the command's code for it (>= 0) and whether a
 * value follows. "--name VALUE" and "--name=VALUE" both give the value.
 * cli_parser_next steps through argv like getopt: it returns an option's
 * code (value in p->value), CLI_OPERAND for an argument that is not an
 * option (p->arg), CLI_UNKNOWN for an option not in the table (or a flag
 * given "=VALUE"), CLI_NO_VALUE for a last option that needs a value, and
 * CLI_END. It prints nothing: the messages are each command's.
 *
 * Two syntaxes, as the commands have always read their options:
 *   CLI_EXACT  every argument in order, names exactly as in the table
 *              (gen, map, bpel, plan, advise, estimate);
 *   CLI_GNU    getopt_long's: a long name may be shortened to a unique
 *              prefix, "--" ends the options, and the operands come after
 *              every option (solve, transient, fluid, simulate). */
#ifndef SKELSCHED_CLI_OPT_H
#define SKELSCHED_CLI_OPT_H

#include <stdio.h>

typedef enum cli_arg { CLI_FLAG, CLI_VALUE } cli_arg;

typedef enum cli_syntax { CLI_EXACT, CLI_GNU } cli_syntax;

typedef enum cli_next {
    CLI_END = -1,
    CLI_OPERAND = -2,
    CLI_UNKNOWN = -3,
    CLI_NO_VALUE = -4
} cli_next;

typedef struct cli_opt {
    const char *name;
    int code;
    cli_arg arg;
} cli_opt;

typedef struct cli_parser {
    const char *cmd;         /* for messages: "skelsched CMD: ..." */
    int argc;
    char **argv;             /* argv[0] is the command's name */
    const cli_opt *opts;
    cli_syntax syntax;
    int i;                   /* the argument last looked at */
    int operands;            /* CLI_GNU: the second pass, over the operands */
    int rest;                /* CLI_GNU: past "--" */
    const char *arg;         /* the argument as typed */
    const char *value;       /* an option's value */
} cli_parser;

void cli_parser_init(cli_parser *p, const char *cmd, int argc, char **argv, const cli_opt *opts,
                     cli_syntax syntax);

/* The next option or operand (see above); a cli_next or an option's code. */
int cli_parser_next(cli_parser *p);

/* "skelsched CMD: OPT needs a value" after CLI_NO_VALUE; returns 2, the
 * usage error's exit code. */
int cli_no_value(const cli_parser *p);

/* A command's handler of one of its own options (code, value); its return
 * is given by the loop that calls it (below, cli_parse_input). */
typedef int (*cli_take_fn)(void *cmd_args, int code, const char *value);

/* The option loop of a CLI_GNU command that reads one file (transient,
 * fluid): code 'h' prints usage to stdout; an unknown or incomplete option
 * is a usage error; every other option goes to take, which returns 0, or
 * -1 after printing its usage error. The first operand is stored in *path,
 * and *operands counts them (the caller checks there was one). Returns -1
 * to go on, 0 after --help, 2 on a usage error. */
int cli_parse_gnu(cli_parser *p, void (*usage)(FILE *), cli_take_fn take, void *cmd_args,
                  const char **path, int *operands);

#endif
