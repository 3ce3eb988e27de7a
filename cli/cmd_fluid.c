/* skelsched fluid: the fluid (ODE) approximation of a PEPA model or
 * skeleton: populations and throughputs over time and at the fixed point
 * (docs/transient.md). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmds.h"
#include "cli/model.h"
#include "cli/opt.h"
#include "cli/util.h"
#include "cli/json.h"

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

typedef struct fluid_args {
    cli_series_args s;       /* the operand and the options transient has too */
    tr_opts o;
} fluid_args;

/* One option's value (c: its code in fluid_opts); -1 after a usage error. */
static int fluid_option(void *args, int c, const char *v)
{
    fluid_args *a = args;
    double d;
    int rc = cli_series_option("fluid", &a->s, c, v);
    if (rc <= 0)
        return rc;
    switch (c) {
    case 'r':
    case 'a':
    case 'd': {
        const char *opt = c == 'r' ? "--rtol" : c == 'a' ? "--atol" : "--delta";
        if (cli_double("fluid", opt, v, &d) < 0 || !(d > 0 && d < 1))
            return -1;
        *(c == 'r' ? &a->o.rtol : c == 'a' ? &a->o.atol : &a->o.delta) = d;
        return 0;
    }
    default: return -1;
    }
}

static const cli_opt fluid_opts[] = {
    { "--until", 'u', CLI_VALUE },
    { "--points", 'n', CLI_VALUE },
    { "--times", 'T', CLI_VALUE },
    { "--rtol", 'r', CLI_VALUE },
    { "--atol", 'a', CLI_VALUE },
    { "--delta", 'd', CLI_VALUE },
    { "--csv", 'c', CLI_FLAG },
    { "--json", 'j', CLI_FLAG },
    { "--plot", 'p', CLI_VALUE },
    { "--platform", 'P', CLI_VALUE },
    { "--place", 'l', CLI_VALUE },
    { "--help", 'h', CLI_FLAG },
    { "-h", 'h', CLI_FLAG },
    { NULL, 0, CLI_FLAG }
};

/* Returns -1 to go on, else the exit code (0 after --help, 2 usage). */
static int parse_args(int argc, char **argv, fluid_args *a)
{
    memset(a, 0, sizeof *a);
    a->s.until = 100;
    a->s.points = 101;
    tr_opts_init(&a->o);
    cli_parser p;
    cli_parser_init(&p, "fluid", argc, argv, fluid_opts, CLI_GNU);
    int operands = 0, rc = cli_parse_gnu(&p, usage, fluid_option, a, &a->s.path, &operands);
    return rc >= 0 ? rc : cli_series_check("fluid", operands, &a->s, usage);
}

/* What the fluid analysis found. */
typedef struct fluid_out {
    cli_model cm;
    tr_fluid *fl;
    tr_series *ser;
    tr_result res;
    double *x, *thr, tfix;   /* the fixed point, its throughputs, when reached */
    int conv;
} fluid_out;

static int compute(fluid_args *a, fluid_out *f, diag *err)
{
    cli_series_args *sa = &a->s;
    if (cli_series_times(sa, err) < 0)
        return -1;
    cli_input_opts io = { .platform = sa->platform, .place = sa->place,
                          .style = SKEL_STYLE_PRODUCER };
    if (cli_model_load(sa->path, &io, &f->cm, err) < 0 || !(f->fl = tr_fluid_new(f->cm.s, err)))
        return -1;
    fluid_applies(sa->path, f->cm.s);
    int nv = tr_fluid_nvars(f->fl);
    if (!(f->ser = tr_series_new(f->cm.s, sa->times, sa->ntimes)) ||
        !(f->x = malloc((size_t)nv * sizeof *f->x)) ||
        !(f->thr = malloc((size_t)f->cm.s->nactions * sizeof *f->thr)))
        return diag_set(err, "out of memory");
    tr_fluid_rec rec = { f->fl, f->ser, a->o.delta };
    if (tr_fluid_solve(f->fl, sa->times, sa->ntimes, &a->o, tr_fluid_record, &rec, &f->res, err) < 0 ||
        (f->conv = tr_fluid_fixed_point(f->fl, &a->o, 1e-10, 1e9, f->x, &f->tfix, err)) < 0)
        return -1;
    tr_fluid_throughput(f->fl, f->x, a->o.delta, f->thr);
    if (sa->plot) {
        char title[512];
        snprintf(title, sizeof title, "Fluid throughput of %s", sa->path);
        if (cli_plot_series(f->ser, f->cm.s, sa->plot, title, "throughput (events per unit time)", err) < 0)
            return -1;
    }
    return 0;
}

static void print_json(const fluid_args *a, const fluid_out *f)
{
    const pepa_system *s = f->cm.s;
    cli_json j;
    cli_json_start(&j, stdout);
    cli_json_object(&j, NULL);
    cli_json_string(&j, "model", a->s.path);
    cli_json_string(&j, "method", "fluid");
    cli_json_int(&j, "variables", tr_fluid_nvars(f->fl));
    cli_json_int(&j, "steps", f->res.steps);
    cli_json_series(&j, f->ser, s);
    cli_json_object(&j, "fixed_point");
    cli_json_bool(&j, "converged", f->conv);
    cli_json_number(&j, "time", f->tfix);
    cli_json_object(&j, "throughput");
    for (int act = 1; act < s->nactions; act++)
        cli_json_number(&j, pepa_model_action(s->model, act), f->thr[act]);
    cli_json_end(&j);
    cli_json_object(&j, "populations");
    for (int i = 0; i < s->nleaves; i++) {
        const pepa_node *nd = &s->nodes[s->leaves[i]];
        const pepa_seq *q = &s->seqs[nd->seq];
        cli_json_object(&j, nd->name);
        for (int st = 0; st < q->nstates; st++)
            cli_json_number(&j, q->state_name[st], f->x[tr_fluid_offset(f->fl, i) + st]);
        cli_json_end(&j);
    }
    cli_json_end(&j);
    cli_json_end(&j);
    cli_json_end(&j);
    fputc('\n', stdout);
}

static void print_table(const fluid_args *a, const fluid_out *f)
{
    const pepa_system *s = f->cm.s;
    printf("model        %s\nvariables    %d\nmethod       fluid (CVODE BDF), %ld steps\n\n",
           a->s.path, tr_fluid_nvars(f->fl), f->res.steps);
    cli_print_series(f->ser, s, 0, stdout);
    printf("\nfixed point  %s at t = %.6g\n", f->conv ? "reached" : "NOT reached", f->tfix);
    printf("%-32s %s\n", "action", "throughput");
    for (int act = 1; act < s->nactions; act++)
        printf("%-32s %.10g\n", pepa_model_action(s->model, act), f->thr[act]);
    for (int i = 0; i < s->nleaves; i++) {
        const pepa_node *nd = &s->nodes[s->leaves[i]];
        const pepa_seq *q = &s->seqs[nd->seq];
        printf("\n%-32s %s\n", nd->name, "population");
        for (int st = 0; st < q->nstates; st++)
            printf("  %-30s %.10g\n", q->state_name[st], f->x[tr_fluid_offset(f->fl, i) + st]);
    }
}

int cmd_fluid(int argc, char **argv)
{
    fluid_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0) {
        free(a.s.times);
        return rc;
    }
    diag err;
    diag_clear(&err);
    fluid_out f;
    memset(&f, 0, sizeof f);
    rc = 1;
    if (compute(&a, &f, &err) == 0) {
        if (a.s.csv)
            cli_print_series(f.ser, f.cm.s, 1, stdout);
        else if (a.s.json)
            print_json(&a, &f);
        else
            print_table(&a, &f);
        rc = cli_flush_stdout(&err) < 0 ? 1 : 0;
    }
    if (rc)
        fprintf(stderr, "skelsched fluid: %s\n", err.set ? err.msg : "failed");
    free(f.thr);
    free(f.x);
    tr_series_free(f.ser);
    tr_fluid_free(f.fl);
    cli_model_free(&f.cm);
    free(a.s.times);
    return rc;
}
