/* skelsched fluid: the fluid (ODE) approximation of a PEPA model or
 * skeleton: populations and throughputs over time and at the fixed point
 * (docs/transient.md). */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmds.h"
#include "cli/model.h"
#include "cli/util.h"

static void usage(FILE *f)
{
    fputs("usage: skelsched fluid MODEL.pepa|SKELETON [--platform F --place SPEC] --until T\n"
          "                 [--points N | --times t1,t2,...] [--rtol X --atol X]\n"
          "                 [--csv | --json] [--plot FILE.svg|FILE.png]\n"
          "\n"
          "Fluid approximation: one ODE per local state of every component or array P[n]\n"
          "(population counts), min-based synchronisation with apparent rates, solved with\n"
          "CVODE. Reports populations and throughputs over time and at the fixed point.\n"
          "Passive activities are taken as a very fast rate (weight x population / delta);\n"
          "refused: an action passive at the top level, or active and passive in parallel\n"
          "branches that do not synchronise on it.\n"
          "\n"
          "  --until T          last output time (default 100)\n"
          "  --points N         number of output points (default 101)\n"
          "  --times LIST       explicit output times\n"
          "  --rtol, --atol X   CVODE tolerances (default 1e-8, 1e-12 x population)\n"
          "  --delta D          passive rate scale (default 1e-7)\n"
          "  --csv, --json      machine-readable output\n"
          "  --plot FILE        chart of throughput over time, .svg or .png (needs gnuplot)\n", f);
}

/* The fluid ODE is the limit of populations growing large (Kurtz); on
 * single components or a few copies it can be far from the chain (a
 * pipeline of single stages: 2.0 against the chain's 1.319). Say so. */
#define FLUID_MIN_COPIES 10

static void fluid_applies(const char *path, const pepa_system *s)
{
    const pepa_node *small = NULL;
    int singles = 0;
    for (int i = 0; i < s->nleaves; i++) {
        const pepa_node *nd = &s->nodes[s->leaves[i]];
        long n = nd->kind == PEPA_N_ARRAY ? nd->count : 1;
        singles += n == 1;
        if (n < FLUID_MIN_COPIES && (!small || n < (small->kind == PEPA_N_ARRAY ? small->count : 1)))
            small = nd;
    }
    if (!small)
        return;
    long n = small->kind == PEPA_N_ARRAY ? small->count : 1;
    fprintf(stderr, "%s: warning: the fluid approximation is the limit of large populations, but %s "
            "has %ld cop%s%s: its answer can be far from the Markov chain's (skelsched solve gives "
            "the exact steady state)\n", path, small->name, n, n == 1 ? "y" : "ies",
            singles > 1 ? " (and other components are single too)" : "");
}

int cmd_fluid(int argc, char **argv)
{
    static const struct option opts[] = {
        { "until", required_argument, NULL, 'u' },   { "points", required_argument, NULL, 'n' },
        { "times", required_argument, NULL, 'T' },   { "rtol", required_argument, NULL, 'r' },
        { "atol", required_argument, NULL, 'a' },    { "delta", required_argument, NULL, 'd' },
        { "csv", no_argument, NULL, 'c' },           { "json", no_argument, NULL, 'j' },
        { "plot", required_argument, NULL, 'p' },    { "platform", required_argument, NULL, 'P' },
        { "place", required_argument, NULL, 'l' },   { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char *platform = NULL, *place = NULL, *plot = NULL;
    double until = 100, *times = NULL, d;
    int points = 101, ntimes = 0, csv = 0, json = 0, c;
    unsigned long long u;
    tr_opts o;
    tr_opts_init(&o);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'u':
            if (cli_double("fluid", "--until", optarg, &d) < 0 || !(d > 0) || !isfinite(d))
                goto usage_err;
            until = d;
            break;
        case 'n':
            if (cli_ulong("fluid", "--points", optarg, &u) < 0 || u < 2 || u > 10000000)
                goto usage_err;
            points = (int)u;
            break;
        case 'T':
            free(times);
            times = NULL;
            if (cli_parse_times("fluid", optarg, &times, &ntimes) < 0)
                goto usage_err;
            break;
        case 'r':
            if (cli_double("fluid", "--rtol", optarg, &d) < 0 || !(d > 0 && d < 1))
                goto usage_err;
            o.rtol = d;
            break;
        case 'a':
            if (cli_double("fluid", "--atol", optarg, &d) < 0 || !(d > 0 && d < 1))
                goto usage_err;
            o.atol = d;
            break;
        case 'd':
            if (cli_double("fluid", "--delta", optarg, &d) < 0 || !(d > 0 && d < 1))
                goto usage_err;
            o.delta = d;
            break;
        case 'c': csv = 1; break;
        case 'j': json = 1; break;
        case 'p': plot = optarg; break;
        case 'P': platform = optarg; break;
        case 'l': place = optarg; break;
        case 'h':
            usage(stdout);
            free(times);
            return 0;
        default:
            fprintf(stderr, "skelsched fluid: unknown or incomplete option '%s'\n", argv[optind - 1]);
            usage(stderr);
            goto usage_err;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "skelsched fluid: expected one model or skeleton file\n");
        usage(stderr);
        goto usage_err;
    }
    if (csv && json) {
        fprintf(stderr, "skelsched fluid: --csv and --json exclude each other\n");
        goto usage_err;
    }
    const char *path = argv[optind];

    diag err;
    diag_clear(&err);
    cli_model cm;
    memset(&cm, 0, sizeof cm);
    tr_fluid *fl = NULL;
    tr_series *ser = NULL;
    double *x = NULL, *thr = NULL, tfix = 0;
    int rc = 1, conv = 0;
    if (!times) {
        if (!(times = tr_times_linear(until, points))) {
            diag_set(&err, "out of memory");
            goto done;
        }
        ntimes = points;
    }
    cli_input_opts io = { platform, place, SKEL_STYLE_PRODUCER, 0, NULL, 0, NULL, NULL, 0 };
    if (cli_model_load(path, &io, &cm, &err) < 0 || !(fl = tr_fluid_new(cm.s, &err)))
        goto done;
    fluid_applies(path, cm.s);
    int nv = tr_fluid_nvars(fl);
    if (!(ser = tr_series_new(cm.s, times, ntimes)) || !(x = malloc((size_t)nv * sizeof *x)) ||
        !(thr = malloc((size_t)cm.s->nactions * sizeof *thr))) {
        diag_set(&err, "out of memory");
        goto done;
    }
    tr_fluid_rec rec = { fl, ser, o.delta };
    tr_result res;
    if (tr_fluid_solve(fl, times, ntimes, &o, tr_fluid_record, &rec, &res, &err) < 0)
        goto done;
    if ((conv = tr_fluid_fixed_point(fl, &o, 1e-10, 1e9, x, &tfix, &err)) < 0)
        goto done;
    tr_fluid_throughput(fl, x, o.delta, thr);
    if (plot) {
        char title[512];
        snprintf(title, sizeof title, "Fluid throughput of %s", path);
        if (cli_plot_series(ser, cm.s, plot, title, "throughput (events per unit time)", &err) < 0)
            goto done;
    }
    const pepa_system *s = cm.s;
    if (csv) {
        cli_print_series(ser, s, 1, 0, stdout);
    } else if (json) {
        printf("{\"model\": ");
        json_string(stdout, path);
        printf(", \"method\": \"fluid\", \"variables\": %d, \"steps\": %ld, ", nv, res.steps);
        cli_print_series(ser, s, 0, 1, stdout);
        printf(", \"fixed_point\": {\"converged\": %s, \"time\": ", conv ? "true" : "false");
        json_number(stdout, tfix);
        printf(", \"throughput\": {");
        for (int a = 1; a < s->nactions; a++) {
            printf("%s", a > 1 ? ", " : "");
            json_string(stdout, pepa_model_action(s->model, a));
            printf(": ");
            json_number(stdout, thr[a]);
        }
        printf("}, \"populations\": {");
        for (int i = 0; i < s->nleaves; i++) {
            const pepa_node *nd = &s->nodes[s->leaves[i]];
            const pepa_seq *q = &s->seqs[nd->seq];
            printf("%s", i ? ", " : "");
            json_string(stdout, nd->name);
            printf(": {");
            for (int st = 0; st < q->nstates; st++) {
                printf("%s", st ? ", " : "");
                json_string(stdout, q->state_name[st]);
                printf(": ");
                json_number(stdout, x[tr_fluid_offset(fl, i) + st]);
            }
            printf("}");
        }
        printf("}}}\n");
    } else {
        printf("model        %s\nvariables    %d\nmethod       fluid (CVODE BDF), %ld steps\n\n", path, nv,
               res.steps);
        cli_print_series(ser, s, 0, 0, stdout);
        printf("\nfixed point  %s at t = %.6g\n", conv ? "reached" : "NOT reached", tfix);
        printf("%-32s %s\n", "action", "throughput");
        for (int a = 1; a < s->nactions; a++)
            printf("%-32s %.10g\n", pepa_model_action(s->model, a), thr[a]);
        for (int i = 0; i < s->nleaves; i++) {
            const pepa_node *nd = &s->nodes[s->leaves[i]];
            const pepa_seq *q = &s->seqs[nd->seq];
            printf("\n%-32s %s\n", nd->name, "population");
            for (int st = 0; st < q->nstates; st++)
                printf("  %-30s %.10g\n", q->state_name[st], x[tr_fluid_offset(fl, i) + st]);
        }
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        diag_set(&err, "error writing to standard output");
        goto done;
    }
    rc = 0;
done:
    if (rc)
        fprintf(stderr, "skelsched fluid: %s\n", err.set ? err.msg : "failed");
    free(thr);
    free(x);
    tr_series_free(ser);
    tr_fluid_free(fl);
    cli_model_free(&cm);
    free(times);
    return rc;
usage_err:
    free(times);
    return 2;
}
