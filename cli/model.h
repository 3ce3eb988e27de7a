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

/* The options of a time series over [0, until]: --until T (positive,
 * finite) and --points N (2 .. 10^7). -1 after a message on stderr. */
int cli_until_arg(const char *cmd, const char *v, double *until);
int cli_points_arg(const char *cmd, const char *v, int *points);

/* Parse "t1,t2,..." into a malloc'd array of n times; -1 with a message
 * on stderr. */
int cli_parse_times(const char *cmd, const char *s, double **out, int *n);

/* Plot a time series with gnuplot into file (.svg or .png). */
int cli_plot_series(const tr_series *ser, const pepa_system *s, const char *file, const char *title,
                    const char *ylabel, diag *err);

/* Print a time series as a table or CSV. */
void cli_print_series(const tr_series *ser, const pepa_system *s, int csv, FILE *f);

/* The series as the members "times", "throughput" and "local" of the JSON
 * object open in j. */
void cli_json_series(cli_json *j, const tr_series *ser, const pepa_system *s);

#endif
