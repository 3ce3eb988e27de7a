/* Helpers shared by the subcommands: option values and JSON output. */
#ifndef SKELSCHED_CLI_UTIL_H
#define SKELSCHED_CLI_UTIL_H

#include <stdio.h>

/* Parse a number option; on failure print "skelsched CMD: bad value for
 * OPT: VALUE" and return -1. */
int cli_double(const char *cmd, const char *opt, const char *value, double *out);
int cli_ulong(const char *cmd, const char *opt, const char *value, unsigned long long *out);

/* cli_ulong, and the value must be lo .. hi, else "skelsched CMD: OPT must
 * be LO .. HI" and -1. */
int cli_ulong_in(const char *cmd, const char *opt, const char *value, unsigned long long lo,
                 unsigned long long hi, unsigned long long *out);

/* A --sharing value: ps or static; else "skelsched CMD: --sharing must be
 * ps or static" and -1. */
int cli_sharing_arg(const char *cmd, const char *value);

/* "--opt VALUE" or "--opt=VALUE" at argv[*i]: returns the value (advancing
 * *i past it) or NULL when argv[*i] is another option. A missing value
 * prints "skelsched CMD: --opt needs a value", sets *bad and returns NULL. */
const char *cli_option_value(const char *cmd, int argc, char **argv, int *i, const char *opt, int *bad);

/* Run "gnuplot SCRIPT", which writes output. Returns 0, or -1 with a
 * message (gnuplot missing: how to install it; a failure naming output). */
struct diag;
int cli_gnuplot(const char *script, const char *output, struct diag *err);

/* Write s as a JSON string literal (quotes included). */
void json_string(FILE *f, const char *s);

/* Write a double as a JSON number (non-finite values become null). */
void json_number(FILE *f, double v);

#endif
