/* cli_input: what the analysis commands read - a PEPA model, or a skeleton
 * description placed on a platform - loaded into one PEPA model.
 *
 * A file is a skeleton when its first word is a skeleton construct
 * (pipe, deal, farm, task, xdeal, xfarm ...) followed by '('; otherwise it
 * is read as PEPA. Ownership: the cli_input owns everything it loaded;
 * cli_input_free releases it. */
#ifndef SKELSCHED_CLI_INPUT_H
#define SKELSCHED_CLI_INPUT_H

#include <stdio.h>

#include "base/diag.h"
#include "pepa/ast.h"
#include "skeleton/skeleton.h"
#include "cli/opt.h"

typedef struct cli_input_opts {
    const char *platform;    /* platform file for a skeleton, or NULL */
    const char *place;       /* "t0=p1,t1=p2" for a skeleton, or NULL */
    skel_style style;
    int skeleton;            /* read the file as a skeleton whatever it looks like */
    const char *sharing;     /* --sharing ps|static over the platform's, or NULL */
    int unplaced;            /* build the placement-independent model (the search's)
                                even under Sharing=ps */
    const char *buffer;      /* --buffer N: the job's buffering of every move, or NULL */
    const char *link_scv;    /* --link-scv C over the platform's LinkSCV=, or NULL */
    int no_lump;             /* --no-lump: one component per farm member even where
                                members are interchangeable (skel_model_new_lumped) */
} cli_input_opts;

typedef struct cli_input {
    pepa_model *model;       /* the model to analyse (owned here or by skel) */
    pepa_model *own;         /* set when the file was PEPA */
    skel_tree *tree;         /* the rest: set when the file was a skeleton */
    skel_dag *dag;
    skel_model *skel;
    skel_platform *platform;
    int *node_of_task;
} cli_input;

/* Is the file at path a skeleton description? -1 when it cannot be read
 * (message in err). */
int cli_is_skeleton(const char *path, diag *err);

/* Load path. PEPA files reject --platform/--place (usage errors are the
 * caller's: it checks cli_is_skeleton first). Returns 0, or -1 with a
 * message naming the file and position. */
int cli_input_load(const char *path, const cli_input_opts *o, cli_input *in, diag *err);

/* Free everything in. */
void cli_input_free(cli_input *in);

/* Parse "--style" values. Returns 0 or -1. */
int cli_style_parse(const char *s, skel_style *style);

/* The options of a command on a placed skeleton, for its cli_opt table
 * (cli/opt.h): --platform FILE, --place SPEC, --sharing ps|static,
 * --buffer N, --link-scv C, --style S. Their codes are far above a
 * command's own. */
typedef enum cli_input_opt {
    CLI_IN_PLATFORM = 1000, CLI_IN_PLACE, CLI_IN_SHARING, CLI_IN_BUFFER, CLI_IN_LINK_SCV, CLI_IN_STYLE
} cli_input_opt;

#define CLI_INPUT_OPTS                                                                           \
    { "--platform", CLI_IN_PLATFORM, CLI_VALUE }, { "--place", CLI_IN_PLACE, CLI_VALUE },          \
    { "--sharing", CLI_IN_SHARING, CLI_VALUE },   { "--buffer", CLI_IN_BUFFER, CLI_VALUE },        \
    { "--link-scv", CLI_IN_LINK_SCV, CLI_VALUE }, { "--style", CLI_IN_STYLE, CLI_VALUE }

/* Take option code (value v) into o: 1 when it is one of CLI_INPUT_OPTS,
 * 0 when it is not, -1 after printing a usage error ("skelsched CMD: ..."). */
int cli_input_option(const char *cmd, int code, const char *v, cli_input_opts *o);

/* An argument no option took: an unknown option (error), or the input
 * file, stored in *file the first time. Returns 0, or -1 after printing a
 * usage error. */
int cli_input_operand(const char *cmd, const char *arg, const char **file);

/* The option loop of a CLI_EXACT command on a placed skeleton (advise,
 * estimate): CLI_INPUT_OPTS go to o, the first operand to *file, the
 * command's own options to take, which returns -1 to go on or the exit
 * code to stop with. Returns -1 when every argument was taken and *file
 * was given, else the exit code (2 after a usage error; without *file,
 * after usage(stderr)). */
int cli_parse_input(cli_parser *p, const char **file, cli_input_opts *o, cli_take_fn take,
                    void *cmd_args, void (*usage)(FILE *));

#endif
