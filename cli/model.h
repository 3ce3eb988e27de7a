/* cli_model: an input (cli/input.h) compiled for the transient and fluid
 * commands, and the helpers they share (cli/model.c). */
#ifndef SKELSCHED_CLI_MODEL_H
#define SKELSCHED_CLI_MODEL_H

#include <stdio.h>

#include "cli/input.h"
#include "cli/json.h"
#include "pepa/system.h"
#include "transient/transient.h"

typedef struct cli_model {
    cli_input in;                /* what was loaded (owned) */
    pepa_model *m;               /* in.model */
    int last_action;             /* skeleton: comp_<last task>; else -1 */
    pepa_system *s;              /* compiled and checked (owned) */
} cli_model;

/* Load path (PEPA, skeleton or BPEL), check and compile it. Returns 0, or
 * -1 with a message; free with cli_model_free either way. */
int cli_model_load(const char *path, const cli_input_opts *o, cli_model *cm, diag *err);
void cli_model_free(cli_model *cm);

/* The operand and the options of the series commands (fluid,
 * transient): --until T (positive, finite), --points N (2 .. 10^7),
 * --times t1,t2,..., --csv, --json, --plot, --platform, --place. */
typedef struct cli_series_args {
    const char *path, *platform, *place, *plot;
    double until, *times;    /* times: --times (malloc'd), or NULL (--until, --points) */
    int points, ntimes, csv, json;
} cli_series_args;

/* Option c of command cmd into sa when it is one of those ('u' --until,
 * 'n' --points, 'T' --times, 'c' --csv, 'j' --json, 'p' --plot,
 * 'P' --platform, 'l' --place): 0, or -1 after a message on stderr;
 * 1 when c is none of them. */
int cli_series_option(const char *cmd, cli_series_args *sa, int c, const char *v);

/* The checks after the options: one operand (else usage), not --csv with
 * --json. -1 when they pass, else the exit code 2 after a message. */
int cli_series_check(const char *cmd, int operands, const cli_series_args *sa,
                     void (*usage)(FILE *));

/* sa->times, when --times did not give them: --points from 0 to --until. */
int cli_series_times(cli_series_args *sa, diag *err);

/* Plot a time series with gnuplot into file (.svg or .png). */
int cli_plot_series(const tr_series *ser, const pepa_system *s, const char *file, const char *title,
                    const char *ylabel, diag *err);

/* Print a time series as a table or CSV. */
void cli_print_series(const tr_series *ser, const pepa_system *s, int csv, FILE *f);

/* The series as the members "times", "throughput" and "local" of the JSON
 * object open in j. */
void cli_json_series(cli_json *j, const tr_series *ser, const pepa_system *s);

#endif
