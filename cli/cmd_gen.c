/* skelsched gen: print the PEPA model of a skeleton description, placed on
 * a platform (docs/skeleton-language.md, docs/platform.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "../skeleton/skeleton.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: skelsched gen SKELETON [--platform FILE] [--place t0=NODE,t1=NODE,...]\n"
            "                     [--style producer|stream]\n"
            "\n"
            "Print the PEPA model of the skeleton description SKELETON ('-' reads stdin).\n"
            "\n"
            "  --platform FILE  node speeds and latencies (docs/platform.md). Without it,\n"
            "                   every task runs on its own node n<i> of Speed=1 and every\n"
            "                   move has rate 1 (seed 002's Fig. 4).\n"
            "  --place SPEC     put task tN on node NODE; tasks not named are placed\n"
            "                   round robin over the nodes in the order declared.\n"
            "  --style producer the first tasks produce and the last consume (default,\n"
            "                   seed 002)\n"
            "  --style stream   items enter the first tasks by an input move and leave the\n"
            "                   last by an output move (seed 000)\n"
            "\n"
            "Tasks are t0, t1, ... in depth-first order. Exit status: 0 ok, 1 bad input,\n"
            "2 usage error.\n");
}

/* "--opt VALUE" or "--opt=VALUE"; returns the value or NULL, advancing *i. */
static const char *option_value(int argc, char **argv, int *i, const char *opt, int *bad)
{
    size_t n = strlen(opt);
    if (strncmp(argv[*i], opt, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        fprintf(stderr, "skelsched gen: %s needs a value\n", opt);
        *bad = 1;
        return NULL;
    }
    return argv[++*i];
}

int cmd_gen(int argc, char **argv)
{
    const char *skel_path = NULL, *plat_path = NULL, *place = NULL, *style_s = NULL;
    for (int i = 1; i < argc; i++) {
        int bad = 0;
        const char *v;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if ((v = option_value(argc, argv, &i, "--platform", &bad))) {
            plat_path = v;
        } else if ((v = option_value(argc, argv, &i, "--place", &bad))) {
            place = v;
        } else if ((v = option_value(argc, argv, &i, "--style", &bad))) {
            style_s = v;
        } else if (bad) {
            return 2;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "skelsched gen: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        } else if (skel_path) {
            fprintf(stderr, "skelsched gen: one skeleton description only\n");
            return 2;
        } else {
            skel_path = argv[i];
        }
    }
    if (!skel_path) {
        usage(stderr);
        return 2;
    }
    skel_style style = SKEL_STYLE_PRODUCER;
    if (style_s) {
        if (strcmp(style_s, "stream") == 0)
            style = SKEL_STYLE_STREAM;
        else if (strcmp(style_s, "producer") != 0) {
            fprintf(stderr, "skelsched gen: --style must be producer or stream, not '%s'\n",
                    style_s);
            return 2;
        }
    }

    diag err;
    diag_clear(&err);
    int rc = 1;
    skel_dag *dag = NULL;
    skel_model *model = NULL;
    skel_platform *plat = NULL;
    int *where = NULL;
    skel_tree *tree = skel_parse_file(skel_path, &err);
    if (!tree)
        goto out;
    int n = skel_tree_ntasks(tree);
    if (!(dag = skel_dag_build(tree, style, &err)) || !(model = skel_model_new(tree, dag, &err)))
        goto out;
    plat = plat_path ? skel_platform_parse_file(plat_path, NULL, NULL, &err)
                     : skel_platform_default(n, &err);
    if (!plat)
        goto out;
    if (plat->nnodes == 0) {
        diag_set(&err, "%s: no nodes (add NodeName= lines)", plat->file);
        goto out;
    }
    if (!(where = malloc((size_t)n * sizeof *where))) {
        diag_set(&err, "out of memory");
        goto out;
    }
    skel_place_default(n, plat, where);
    if (place && skel_place_parse(place, n, plat, where, &err) < 0)
        goto out;
    if (skel_model_place(model, plat, where, &err) < 0)
        goto out;
    pepa_model_print(model->pepa, stdout);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        diag_set(&err, "error writing the model to standard output");
        goto out;
    }
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "skelsched gen: %s\n", err.set ? err.msg : "failed");
    free(where);
    skel_platform_free(plat);
    skel_model_free(model);
    skel_dag_free(dag);
    skel_tree_free(tree);
    return rc;
}
