/* skelsched gen: print the PEPA model of a skeleton description, placed on
 * a platform (docs/skeleton-language.md, docs/platform.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "util.h"
#include "input.h"
#include "../skeleton/skeleton.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: skelsched gen SKELETON [--platform FILE] [--place t0=NODE,t1=NODE,...]\n"
            "                     [--style producer|stream] [--no-lump]\n"
            "\n"
            "Print the PEPA model of the skeleton description SKELETON ('-' reads stdin).\n"
            "\n"
            "  --platform FILE  node speeds and latencies (docs/platform.md). Without it,\n"
            "                   every task runs on its own node n<i> of Speed=1 and every\n"
            "                   move has rate 1 (Yaikhom et al. 2007's Fig. 4).\n"
            "  --place SPEC     put task tN on node NODE; tasks not named are placed\n"
            "                   round robin over the nodes in the order declared.\n"
            "  --style producer the first tasks produce and the last consume (default,\n"
            "                   Yaikhom et al. 2007)\n"
            "  --style stream   items enter the first tasks by an input move and leave the\n"
            "                   last by an output move (Benoit et al. 2004)\n"
            "  --sharing ps     the tasks computing on a node share it (default): the\n"
            "                   tasks of a node holding several become one Node<j>\n"
            "  --sharing static each of n tasks on a node gets Speed/n (Benoit et al. 2004)\n"
            "  --buffer N       items every move may hold between its tasks (Link_<i>_<j>\n"
            "                   components; 0 = rendezvous, the default)\n"
            "  --link-scv C     squared coefficient of variation of a move's time\n"
            "  --no-lump        one component per farm member; by default the members of\n"
            "                   a farm placed on nodes of one class are one aggregated\n"
            "                   array Task<i>[n] (Copy<i>[n] for xfarm sub-skeletons),\n"
            "                   the same throughputs from a far smaller chain\n"
            "                   (docs/pepa.md, \"Lumped farms\")\n"
            "\n"
            "Tasks are t0, t1, ... in depth-first order. Exit status: 0 ok, 1 bad input,\n"
            "2 usage error.\n");
}

int cmd_gen(int argc, char **argv)
{
    const char *skel_path = NULL, *plat_path = NULL, *place = NULL, *style_s = NULL;
    const char *sharing = NULL, *buffer = NULL, *link_scv = NULL;
    int no_lump = 0;
    for (int i = 1; i < argc; i++) {
        int bad = 0;
        const char *v;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--no-lump") == 0) {
            no_lump = 1;
        } else if ((v = cli_option_value("gen", argc, argv, &i, "--platform", &bad))) {
            plat_path = v;
        } else if ((v = cli_option_value("gen", argc, argv, &i, "--place", &bad))) {
            place = v;
        } else if ((v = cli_option_value("gen", argc, argv, &i, "--style", &bad))) {
            style_s = v;
        } else if ((v = cli_option_value("gen", argc, argv, &i, "--sharing", &bad))) {
            if (cli_sharing_arg("gen", v) < 0)
                return 2;
            sharing = v;
        } else if ((v = cli_option_value("gen", argc, argv, &i, "--buffer", &bad))) {
            buffer = v;
        } else if ((v = cli_option_value("gen", argc, argv, &i, "--link-scv", &bad))) {
            link_scv = v;
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
    cli_input_opts o = { plat_path, place, SKEL_STYLE_PRODUCER, 1, sharing, 0, buffer, link_scv,
                         no_lump };
    if (style_s && cli_style_parse(style_s, &o.style) < 0) {
        fprintf(stderr, "skelsched gen: --style must be producer or stream, not '%s'\n", style_s);
        return 2;
    }
    diag err;
    diag_clear(&err);
    int rc = 1;
    cli_input in = { 0 };
    if (cli_input_load(skel_path, &o, &in, &err) < 0)
        goto out;
    pepa_model_print(in.model, stdout);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        diag_set(&err, "error writing the model to standard output");
        goto out;
    }
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "skelsched gen: %s\n", err.set ? err.msg : "failed");
    cli_input_free(&in);
    return rc;
}
