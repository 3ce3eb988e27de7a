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

struct diag;

/* Flush standard output: 0, or -1 with "error writing to standard
 * output" (a full disk, a closed pipe) in err. */
int cli_flush_stdout(struct diag *err);

/* Run "gnuplot SCRIPT", which writes output. Returns 0, or -1 with a
 * message (gnuplot missing: how to install it; a failure naming output). */
int cli_gnuplot(const char *script, const char *output, struct diag *err);

/* Write s as one CSV field (RFC 4180): as is when it holds no comma,
 * double quote, CR or LF; otherwise quoted, inner quotes doubled. */
void csv_field(FILE *f, const char *s);

/* csv_field of a formatted text (names up to a few KB). */
void csv_fieldf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print v with only the significant digits its absolute error bound
 * err justifies (at most 10; at least 1): the last digit printed is worth
 * at least 2 err, so it is off by at most one. err <= 0 means exact. */
void cli_print_digits(FILE *f, double v, double err);

/* The same, left-aligned in a field of width characters. */
void cli_print_digits_w(FILE *f, int width, double v, double err);

#endif
