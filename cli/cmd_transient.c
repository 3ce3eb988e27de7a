/* skelsched transient: the CTMC's throughput and local-state measures as
 * functions of time (CVODE BDF or uniformisation), when throughput settles,
 * and the makespan of a finite stream. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmds.h"
#include "cli/model.h"
#include "cli/opt.h"
#include "cli/util.h"
#include "cli/json.h"
#include "pepa/check.h"
#include "pepa/parse.h"
#include "pepa/solve.h"
#include "skeleton/skeleton.h"

static void usage(FILE *f)
{
    fputs("usage: skelsched transient MODEL.pepa|SKELETON [--platform F --place SPEC] --until T\n"
          "                 [--points N | --times t1,t2,...] [--method cvode|uniformisation]\n"
          "                 [--rtol X --atol X] [--items N] [--settle-tol X] [--csv | --json]\n"
          "                 [--plot FILE.svg|FILE.png]\n"
          "\n"
          "Transient analysis of the CTMC from its initial state: throughput of every action\n"
          "and local-state measures at each output time (docs/transient.md).\n"
          "\n"
          "  --until T          last output time (outputs at N equally spaced points from 0)\n"
          "  --points N         number of output points (default 101)\n"
          "  --times LIST       explicit output times instead of --until/--points\n"
          "  --method M         cvode (BDF, sparse direct KLU Jacobian; default) or\n"
          "                     uniformisation (exact reference, slow on stiff models)\n"
          "  --rtol, --atol X   CVODE tolerances (default 1e-8, 1e-12)\n"
          "  --linsol S         CVODE's linear solver: auto (default: klu up to 4000 states),\n"
          "                     klu (sparse LU) or gmres (SPGMR, ILU(0) preconditioner)\n"
          "  --settle-tol X     report when each throughput stays within X (relative) of its\n"
          "                     steady-state value (default 0.01)\n"
          "  --items N          makespan: expected time to complete N items (a skeleton's last\n"
          "                     task; a PEPA model needs --count-action)\n"
          "  --count-action A   the action that completes one item\n"
          "  --max-states N     stop deriving beyond N states\n"
          "  --csv, --json      machine-readable output\n"
          "  --plot FILE        chart of throughput over time, .svg or .png (needs gnuplot)\n"
          "  --platform, --place, --sharing  as for skelsched gen\n", f);
}

typedef struct tr_args {
    cli_series_args s;       /* the operand and the options fluid has too */
    const char *count_action, *sharing;
    double settle_tol, items;
    tr_opts o;
    pepa_derive_opts dopts;
} tr_args;

/* --linsol's value; -1 after a usage error. */
static int linsol_arg(const char *v, tr_linsol *ls)
{
    if (strcmp(v, "auto") == 0)
        *ls = TR_LS_AUTO;
    else if (strcmp(v, "klu") == 0)
        *ls = TR_LS_KLU;
    else if (strcmp(v, "gmres") == 0)
        *ls = TR_LS_GMRES;
    else {
        fprintf(stderr, "skelsched transient: --linsol must be auto, klu or gmres\n");
        return -1;
    }
    return 0;
}

/* A number option (c: its code in transient_opts); -1 after a usage error. */
static int number_option(tr_args *a, int c, const char *v)
{
    unsigned long long u;
    double d;
    switch (c) {
    case 'r':
    case 'a':
        if (cli_double("transient", c == 'r' ? "--rtol" : "--atol", v, &d) < 0 || !(d > 0 && d < 1))
            return -1;
        *(c == 'r' ? &a->o.rtol : &a->o.atol) = d;
        return 0;
    case 's':
        if (cli_double("transient", "--settle-tol", v, &d) < 0 || !(d > 0))
            return -1;
        a->settle_tol = d;
        return 0;
    case 'I':
        if (cli_double("transient", "--items", v, &d) < 0 || !(d > 0) || !isfinite(d))
            return -1;
        a->items = d;
        return 0;
    default:                                         /* 'S' */
        if (cli_ulong("transient", "--max-states", v, &u) < 0 || u == 0)
            return -1;
        a->dopts.max_states = u;
        return 0;
    }
}

/* One option's value; -1 after a usage error. */
static int tr_option(void *args, int c, const char *v)
{
    tr_args *a = args;
    int rc = cli_series_option("transient", &a->s, c, v);
    if (rc <= 0)
        return rc;
    switch (c) {
    case 'm':
        if (tr_method_parse(v, &a->o.method) < 0) {
            fprintf(stderr, "skelsched transient: unknown method '%s' (cvode, uniformisation)\n", v);
            return -1;
        }
        return 0;
    case 'L': return linsol_arg(v, &a->o.linsol);
    case 'H':
        if (cli_sharing_arg("transient", v) < 0)
            return -1;
        a->sharing = v;
        return 0;
    case 'A': a->count_action = v; return 0;
    default: return number_option(a, c, v);
    }
}

/* The checks after the options; -1 when they pass, else 2. */
static int check_args(int operands, tr_args *a)
{
    int rc = cli_series_check("transient", operands, &a->s, usage);
    if (rc >= 0)
        return rc;
    if (!a->s.times && !(a->s.until > 0)) {
        fprintf(stderr, "skelsched transient: --until T (or --times) is required\n");
        return 2;
    }
    return -1;
}

static const cli_opt transient_opts[] = {
    { "--until", 'u', CLI_VALUE },
    { "--points", 'n', CLI_VALUE },
    { "--times", 'T', CLI_VALUE },
    { "--method", 'm', CLI_VALUE },
    { "--rtol", 'r', CLI_VALUE },
    { "--atol", 'a', CLI_VALUE },
    { "--csv", 'c', CLI_FLAG },
    { "--json", 'j', CLI_FLAG },
    { "--plot", 'p', CLI_VALUE },
    { "--platform", 'P', CLI_VALUE },
    { "--place", 'l', CLI_VALUE },
    { "--items", 'I', CLI_VALUE },
    { "--settle-tol", 's', CLI_VALUE },
    { "--count-action", 'A', CLI_VALUE },
    { "--max-states", 'S', CLI_VALUE },
    { "--linsol", 'L', CLI_VALUE },
    { "--sharing", 'H', CLI_VALUE },
    { "--help", 'h', CLI_FLAG },
    { "-h", 'h', CLI_FLAG },
    { NULL, 0, CLI_FLAG }
};

/* Returns -1 to go on, else the exit code (0 after --help, 2 usage). */
static int parse_args(int argc, char **argv, tr_args *a)
{
    memset(a, 0, sizeof *a);
    tr_opts_init(&a->o);
    a->s.points = 101;
    a->settle_tol = 0.01;
    cli_parser p;
    cli_parser_init(&p, "transient", argc, argv, transient_opts, CLI_GNU);
    int operands = 0, rc = cli_parse_gnu(&p, usage, tr_option, a, &a->s.path, &operands);
    return rc >= 0 ? rc : check_args(operands, a);
}

/* Steady-state throughput, if the chain has a unique steady state. */
static int steady(const pepa_space *sp, double *thr, diag *err)
{
    pepa_chain_class cls;
    if (sp->deadlocks)
        return 0;
    double *pi = malloc((size_t)sp->n * sizeof *pi);
    unsigned char *closed = malloc(sp->n);
    int rc = -1;
    if (!pi || !closed)
        diag_set(err, "out of memory");
    else if (pepa_space_recurrent(sp, &cls, closed, err) == 0)
        rc = cls.bottom == 1 ? 1 : 0;
    if (rc == 1) {
        pepa_solve_opts so;
        pepa_solve_opts_init(&so);
        so.recurrent = closed;
        pepa_solve_result res;
        if (pepa_solve(sp->q, &so, pi, &res, err) < 0 || pepa_space_throughput(sp, pi, thr, err) < 0)
            rc = -1;
    }
    free(closed);
    free(pi);
    return rc;
}

/* What the transient analysis found. */
typedef struct tr_out {
    cli_model cm;
    pepa_space *sp;
    tr_series *ser;
    tr_result res;
    double *ss;              /* steady-state throughputs, when have_ss */
    int have_ss, count_action;
    double t_make;           /* the makespan of --items, -1: not reached */
} tr_out;

/* The makespan of --items (t->t_make). */
static int makespan(const tr_args *a, tr_out *t, diag *err)
{
    t->count_action = a->count_action ? pepa_model_find_action(t->cm.m, a->count_action)
                                      : t->cm.last_action;
    if (a->count_action && t->count_action <= 0)
        return diag_set(err, "--count-action: no action '%s' in the model", a->count_action);
    if (!(a->items > 0))
        return 0;
    if (t->count_action <= 0)
        return diag_set(err, "--items needs --count-action ACTION for a PEPA model");
    if (!t->have_ss)
        return diag_set(err, "--items: the chain has no unique steady state to size the horizon");
    return tr_makespan(t->sp, t->count_action, a->items, t->ss[t->count_action], 1e12, 400, &a->o,
                       &t->t_make, err);
}

static int compute(tr_args *a, tr_out *t, diag *err)
{
    cli_series_args *sa = &a->s;
    if (cli_series_times(sa, err) < 0)
        return -1;
    cli_input_opts io = { .platform = sa->platform, .place = sa->place,
                          .style = SKEL_STYLE_PRODUCER, .sharing = a->sharing };
    if (cli_model_load(sa->path, &io, &t->cm, err) < 0 || !(t->sp = pepa_derive(t->cm.s, &a->dopts, err)))
        return -1;
    if (!(t->ser = tr_series_new(t->cm.s, sa->times, sa->ntimes)) ||
        !(t->ss = calloc((size_t)t->cm.s->nactions, sizeof *t->ss)))
        return diag_set(err, "out of memory");
    t->ser->sp = t->sp;
    if ((t->have_ss = steady(t->sp, t->ss, err)) < 0 ||
        tr_solve(t->sp->q, NULL, sa->times, sa->ntimes, &a->o, tr_series_record, t->ser, &t->res, err) < 0)
        return -1;
    if (t->res.warning[0])
        fprintf(stderr, "%s: %s\n", sa->path, t->res.warning);
    if (t->res.mass_error > 1e-9)
        fprintf(stderr, "%s: warning: probability mass drifted by %.3g (more than 1e-9)\n", sa->path,
                t->res.mass_error);
    if (makespan(a, t, err) < 0)
        return -1;
    if (sa->plot) {
        char title[512];
        snprintf(title, sizeof title, "Transient throughput of %s (%s)", sa->path, tr_method_name(a->o.method));
        if (cli_plot_series(t->ser, t->cm.s, sa->plot, title, "throughput (events per unit time)", err) < 0)
            return -1;
    }
    return 0;
}

/* A time, or null for a negative one (never). */
static void json_time(cli_json *j, const char *key, double t)
{
    if (t < 0)
        cli_json_null(j, key);
    else
        cli_json_number(j, key, t);
}

static void print_json_steady(cli_json *j, const tr_args *a, const tr_out *t)
{
    cli_json_object(j, "steady_state");
    for (int x = 1; x < t->cm.s->nactions; x++)
        cli_json_number(j, pepa_model_action(t->cm.m, x), t->ss[x]);
    cli_json_end(j);
    cli_json_object(j, "settle_time");
    for (int x = 1; x < t->cm.s->nactions; x++)
        json_time(j, pepa_model_action(t->cm.m, x), tr_settle_time(t->ser, x, t->ss[x], a->settle_tol));
    cli_json_end(j);
    cli_json_number(j, "settle_tol", a->settle_tol);
}

static void print_json(const tr_args *a, const tr_out *t)
{
    cli_json j;
    cli_json_start(&j, stdout);
    cli_json_object(&j, NULL);
    cli_json_string(&j, "model", a->s.path);
    cli_json_int(&j, "states", t->sp->n);
    cli_json_string(&j, "method", tr_method_name(a->o.method));
    cli_json_int(&j, "steps", t->res.steps);
    cli_json_number(&j, "mass_error", t->res.mass_error);
    cli_json_int(&j, "clipped", t->res.clipped);
    cli_json_series(&j, t->ser, t->cm.s);
    if (t->have_ss)
        print_json_steady(&j, a, t);
    if (a->items > 0) {
        cli_json_object(&j, "makespan");
        cli_json_number(&j, "items", a->items);
        cli_json_string(&j, "action", pepa_model_action(t->cm.m, t->count_action));
        json_time(&j, "time", t->t_make);
        cli_json_end(&j);
    }
    cli_json_end(&j);
    fputc('\n', stdout);
}

static void print_table(const tr_args *a, const tr_out *t)
{
    printf("model        %s\nstates       %u\nmethod       %s, %ld step%s, mass error %.3g\n\n",
           a->s.path, t->sp->n, tr_method_name(a->o.method), t->res.steps, t->res.steps == 1 ? "" : "s",
           t->res.mass_error);
    cli_print_series(t->ser, t->cm.s, 0, stdout);
    if (t->have_ss) {
        printf("\n%-32s %16s %16s\n", "action", "steady state", "settles at");
        for (int x = 1; x < t->cm.s->nactions; x++) {
            double st = tr_settle_time(t->ser, x, t->ss[x], a->settle_tol);
            printf("%-32s %16.10g ", pepa_model_action(t->cm.m, x), t->ss[x]);
            if (st < 0)
                printf("%16s\n", "not by --until");
            else
                printf("%16.6g\n", st);
        }
    }
    if (a->items > 0) {
        if (t->t_make < 0)
            printf("\nmakespan     not reached\n");
        else
            printf("\nmakespan     %.10g items (%s) by t = %.6g\n", a->items,
                   pepa_model_action(t->cm.m, t->count_action), t->t_make);
    }
}

int cmd_transient(int argc, char **argv)
{
    tr_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0) {
        free(a.s.times);
        return rc;
    }
    diag err;
    diag_clear(&err);
    tr_out t;
    memset(&t, 0, sizeof t);
    t.count_action = -1;
    t.t_make = -1;
    rc = 1;
    if (compute(&a, &t, &err) == 0) {
        if (a.s.csv)
            cli_print_series(t.ser, t.cm.s, 1, stdout);
        else if (a.s.json)
            print_json(&a, &t);
        else
            print_table(&a, &t);
        rc = cli_flush_stdout(&err) < 0 ? 1 : 0;
    }
    if (rc)
        fprintf(stderr, "skelsched transient: %s\n", err.set ? err.msg : "failed");
    free(t.ss);
    tr_series_free(t.ser);
    pepa_space_free(t.sp);
    cli_model_free(&t.cm);
    free(a.s.times);
    return rc;
}
