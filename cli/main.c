/* skelsched: model-driven placement of skeleton-structured jobs.
 * The command dispatches to one subcommand per file in cli/. */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "base/blaskern.h"
#include "cmds.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    { "solve", cmd_solve, "steady-state throughput and utilisation of a PEPA model or skeleton" },
    { "gen", cmd_gen, "generate the PEPA model of a skeleton on a platform" },
    { "transient", cmd_transient, "throughput and local states over time (CVODE or uniformisation)" },
    { "fluid", cmd_fluid, "fluid (ODE) approximation of a PEPA model with large populations" },
    { "map", cmd_map, "search the placement of a skeleton's tasks with the best throughput" },
    { "bpel", cmd_bpel, "import a WS-BPEL / BPEL4WS process as a skeleton or PEPA model" },
    { "advise", cmd_advise, "replicate the bottleneck (deal/farm) or merge stages: throughput of each" },
    { "simulate", cmd_simulate, "stochastic simulation with confidence intervals, for models of any size" },
    { "estimate", cmd_estimate, "the papers' analytic cost models beside the Markov model" },
    { "plan", cmd_plan, "what the Slurm plugin decides for a batch script (#SKEL lines, skeleton.conf)" },
};

static void usage(FILE *f)
{
    fprintf(f, "usage: skelsched COMMAND [ARGS...]\n"
               "       skelsched COMMAND --help\n"
               "       skelsched --version\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nExit status: 0 success, 1 bad input or failed analysis, 2 usage error.\n"
               "See skelsched(1).\n");
}

int main(int argc, char **argv)
{
    blaskern_reexec(argv); /* OpenBLAS's kernels for this CPU: base/blaskern.h */
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        char blas[96];
        printf("skelsched %s\nBLAS: %s\n", PACKAGE_VERSION, blaskern_describe(blas, sizeof blas));
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "skelsched: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
