/* skelsched bpel: import a WS-BPEL 2.0 / BPEL4WS 1.1 process and print it
 * as a skeleton description, a PEPA model, or the activity tree
 * (docs/bpel.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "util.h"
#include "opt.h"
#include "../bpel/bpel.h"
#include "../skeleton/skeleton.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: skelsched bpel FILE.bpel [--params SIDEFILE] [--emit skeleton|pepa|tree]\n"
            "\n"
            "Import a WS-BPEL 2.0 (executable or abstract) or BPEL4WS 1.1 process.\n"
            "\n"
            "  --params FILE    performance parameters: lines 'NAME-OR-PATH key=value ...'\n"
            "                   with keys rate, prob, iterations, count, arrival\n"
            "  --emit skeleton  the skeleton description (default; docs/skeleton-language.md)\n"
            "  --emit pepa      its PEPA model (Speed=1 nodes, rate-1 network)\n"
            "  --emit tree      the activity tree with paths and parameters\n"
            "\n"
            "Parameters may also be attributes in the namespace urn:skelsched:perf\n"
            "(perf:rate, perf:prob, perf:iterations, perf:count, perf:arrival). Missing\n"
            "ones take documented defaults and are listed in one warning; side-file entries\n"
            "that nothing reads are warned about with their line. See docs/bpel.md.\n"
            "Exit status: 0 ok, 1 bad input, 2 usage error.\n");
}

/* The PEPA model of the imported skeleton on the default platform; with
 * take set, the model is handed to the caller instead of printed. */
static int emit_pepa(const skel_tree *tree, pepa_model **take, diag *err)
{
    int rc = -1, n = skel_tree_ntasks(tree);
    skel_dag *dag = NULL;
    skel_model *model = NULL;
    skel_platform *plat = NULL;
    int *where = NULL;
    if (!(dag = skel_dag_build(tree, SKEL_STYLE_PRODUCER, err)) ||
        !(model = skel_model_new(tree, dag, err)) || !(plat = skel_platform_default(n, err)))
        goto out;
    if (!(where = malloc((size_t)n * sizeof *where))) {
        diag_set(err, "out of memory");
        goto out;
    }
    skel_place_default(n, plat, where);
    if (skel_model_place(model, plat, where, err) < 0)
        goto out;
    if (take) {
        *take = model->pepa;
        model->pepa = NULL;
    } else {
        pepa_model_print(model->pepa, stdout);
    }
    rc = 0;
out:
    free(where);
    skel_platform_free(plat);
    skel_model_free(model);
    skel_dag_free(dag);
    return rc;
}

typedef enum bpel_opt { BPEL_HELP, BPEL_PARAMS, BPEL_EMIT } bpel_opt;

static const cli_opt bpel_opts[] = {
    { "--help", BPEL_HELP, CLI_FLAG },     { "-h", BPEL_HELP, CLI_FLAG },
    { "--params", BPEL_PARAMS, CLI_VALUE }, { "--emit", BPEL_EMIT, CLI_VALUE },
    { NULL, 0, CLI_FLAG }
};

typedef struct bpel_args {
    const char *path, *params, *emit;
} bpel_args;

/* Returns -1 to go on, else the exit code (0 after --help, 2 usage). */
static int parse_args(int argc, char **argv, bpel_args *a)
{
    cli_parser p;
    cli_parser_init(&p, "bpel", argc, argv, bpel_opts, CLI_EXACT);
    a->emit = "skeleton";
    for (int c; (c = cli_parser_next(&p)) != CLI_END;) {
        if (c == BPEL_HELP) {
            usage(stdout);
            return 0;
        } else if (c == BPEL_PARAMS) {
            a->params = p.value;
        } else if (c == BPEL_EMIT) {
            a->emit = p.value;
        } else if (c == CLI_NO_VALUE) {
            return cli_no_value(&p);
        } else if (c == CLI_UNKNOWN) {
            fprintf(stderr, "skelsched bpel: unknown option '%s'\n", p.arg);
            usage(stderr);
            return 2;
        } else if (a->path) {
            fprintf(stderr, "skelsched bpel: one BPEL file only\n");
            return 2;
        } else {
            a->path = p.arg;
        }
    }
    if (!a->path) {
        usage(stderr);
        return 2;
    }
    if (strcmp(a->emit, "skeleton") != 0 && strcmp(a->emit, "pepa") != 0 && strcmp(a->emit, "tree") != 0) {
        fprintf(stderr, "skelsched bpel: --emit must be skeleton, pepa or tree, not '%s'\n", a->emit);
        return 2;
    }
    return -1;
}

int cmd_bpel(int argc, char **argv)
{
    bpel_args a = { 0 };
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    const char *path = a.path, *params_path = a.params, *emit = a.emit;
    diag err;
    diag_clear(&err);
    rc = 1;
    bpel_params *params = NULL;
    bpel_import imp = { 0 };
    if (params_path && !(params = bpel_params_parse_file(params_path, &err)))
        goto out;
    if (bpel_import_file(path, params, &imp, &err) < 0)
        goto out;
    if (imp.warning)
        fprintf(stderr, "%s\n", imp.warning);   /* lines naming their file */
    if (strcmp(emit, "tree") == 0)
        bpel_import_print_tree(&imp, stdout);
    else if (strcmp(emit, "skeleton") == 0)
        skel_tree_print(imp.tree, stdout);
    else if (emit_pepa(imp.tree, NULL, &err) < 0)
        goto out;
    if (cli_flush_stdout(&err) < 0)
        goto out;
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "skelsched bpel: %s\n", err.set ? err.msg : "failed");
    bpel_import_clear(&imp);
    bpel_params_free(params);
    return rc;
}
