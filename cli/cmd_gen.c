/* skelsched gen: print the PEPA model of a skeleton description, placed on
 * a platform (docs/skeleton-language.md, docs/platform.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "util.h"
#include "opt.h"
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

typedef enum gen_opt {
    GEN_HELP, GEN_NO_LUMP, GEN_PLATFORM, GEN_PLACE, GEN_STYLE, GEN_SHARING, GEN_BUFFER, GEN_LINK_SCV
} gen_opt;

static const cli_opt gen_opts[] = {
    { "--help", GEN_HELP, CLI_FLAG },         { "-h", GEN_HELP, CLI_FLAG },
    { "--no-lump", GEN_NO_LUMP, CLI_FLAG },   { "--platform", GEN_PLATFORM, CLI_VALUE },
    { "--place", GEN_PLACE, CLI_VALUE },      { "--style", GEN_STYLE, CLI_VALUE },
    { "--sharing", GEN_SHARING, CLI_VALUE },  { "--buffer", GEN_BUFFER, CLI_VALUE },
    { "--link-scv", GEN_LINK_SCV, CLI_VALUE }, { NULL, 0, CLI_FLAG }
};

typedef struct gen_args {
    const char *skel, *style;
    cli_input_opts in;
} gen_args;

/* One option (code c, value v); -1 to go on, else the exit code. */
static int take_option(gen_args *a, int c, const char *v)
{
    switch ((gen_opt)c) {
    case GEN_HELP: usage(stdout); return 0;
    case GEN_NO_LUMP: a->in.no_lump = 1; break;
    case GEN_PLATFORM: a->in.platform = v; break;
    case GEN_PLACE: a->in.place = v; break;
    case GEN_STYLE: a->style = v; break;
    case GEN_SHARING:
        if (cli_sharing_arg("gen", v) < 0)
            return 2;
        a->in.sharing = v;
        break;
    case GEN_BUFFER: a->in.buffer = v; break;
    case GEN_LINK_SCV: a->in.link_scv = v; break;
    }
    return -1;
}

/* Returns -1 to go on, else the exit code (0 after --help, 2 usage). */
static int parse_args(int argc, char **argv, gen_args *a)
{
    cli_parser p;
    cli_parser_init(&p, "gen", argc, argv, gen_opts, CLI_EXACT);
    a->in.style = SKEL_STYLE_PRODUCER;
    a->in.skeleton = 1;
    for (int c, rc; (c = cli_parser_next(&p)) != CLI_END;) {
        if (c == CLI_NO_VALUE)
            return cli_no_value(&p);
        if (c == CLI_UNKNOWN) {
            fprintf(stderr, "skelsched gen: unknown option '%s'\n", p.arg);
            usage(stderr);
            return 2;
        }
        if (c == CLI_OPERAND && a->skel) {
            fprintf(stderr, "skelsched gen: one skeleton description only\n");
            return 2;
        }
        if (c == CLI_OPERAND)
            a->skel = p.arg;
        else if ((rc = take_option(a, c, p.value)) >= 0)
            return rc;
    }
    if (!a->skel) {
        usage(stderr);
        return 2;
    }
    if (a->style && cli_style_parse(a->style, &a->in.style) < 0) {
        fprintf(stderr, "skelsched gen: --style must be producer or stream, not '%s'\n", a->style);
        return 2;
    }
    return -1;
}

int cmd_gen(int argc, char **argv)
{
    gen_args a = { 0 };
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    diag err;
    diag_clear(&err);
    rc = 1;
    cli_input in = { 0 };
    if (cli_input_load(a.skel, &a.in, &in, &err) < 0)
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
