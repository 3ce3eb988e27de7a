/* skelsched solve: steady-state analysis of a PEPA model.
 *
 * parse -> static checks -> compile -> derive -> classify -> solve ->
 * measures, each step timed; every failure is reported with the file and
 * position it concerns, and exits 1. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>

#include "base/clock.h"
#include "bpel/bpel.h"
#include "cli/cmds.h"
#include "cli/input.h"
#include "cli/opt.h"
#include "cli/util.h"
#include "cli/json.h"
#include "pepa/check.h"
#include "pepa/export.h"
#include "pepa/solve.h"
#include "pepa/space.h"
#include "pepa/system.h"

static void usage(FILE *f)
{
    fputs("usage: skelsched solve MODEL.pepa [options]\n"
          "       skelsched solve SKELETON [--platform FILE] [--place t0=NODE,...] [options]\n"
          "\n"
          "Derive the CTMC of a PEPA model, or of the model of a skeleton placed on a\n"
          "platform, and solve it for its steady state: throughput of every action,\n"
          "probability of every local state.\n"
          "\n"
          "options:\n"
          "  --platform FILE    node speeds and latencies, for a skeleton (docs/platform.md)\n"
          "  --place SPEC       t0=NODE,t1=NODE,...: where each task runs (default round robin)\n"
          "  --style S          producer (default) or stream: a skeleton's boundaries\n"
          "  --sharing S        ps (default) or static: how a node's tasks share it\n"
          "  --no-lump          one component per farm member (default: interchangeable\n"
          "                     members are one aggregated array, docs/pepa.md)\n"
          "  --buffer N         items every move may hold between its tasks (the job's\n"
          "                     buffering; default: the platform's Buffer=, 0 = rendezvous)\n"
          "  --link-scv C       squared coefficient of variation of a move's time\n"
          "                     (default: the platform's LinkSCV=, else 1, exponential)\n"
          "  --method M         auto (default), direct, gs, sor, gmres; approx: a skeleton's\n"
          "                     throughput by the decomposition approximation, any size,\n"
          "                     no chain derived (docs/approximation.md)\n"
          "  --tol X            target residual ||pi Q||_inf of iterative methods (default 1e-12)\n"
          "  --max-iter N       iteration cap of iterative methods (default 100000); with\n"
          "                     --method approx, the fixed point's sweeps (default 200)\n"
          "  --omega W          SOR relaxation factor (default 1.0)\n"
          "  --max-states N     stop deriving beyond N states (default 4000000: a larger\n"
          "                     chain stops with its size bound and what to run instead)\n"
          "  --time-limit S     give up after S seconds of deriving or solving\n"
          "  --threads N        threads of the direct method's multifrontal LU (default 1;\n"
          "                     at most 2 are used, at most the CPUs it may run on)\n"
          "  --json             print one JSON object instead of tables\n"
          "  --export-prism P   write the chain as P.tra and P.sta (PRISM explicit format)\n"
          "  --export-mm FILE   write the generator Q in Matrix Market format\n"
          "  -h, --help         this text\n", f);
}

typedef struct solve_args {
    const char *path;
    cli_input_opts in;
    pepa_solve_opts sopts;
    pepa_derive_opts dopts;
    int json;
    int approx;              /* --method approx */
    int threads_asked;       /* --threads given (else: the CPUs we may run on) */
    int approx_iter;         /* --max-iter for --method approx: its sweeps (0: 200) */
    const char *export_prism, *export_mm;
} solve_args;

/* A real-valued option (c: its code in solve_opts); -1 after a usage error. */
static int real_option(solve_args *a, int c, const char *v)
{
    double d;
    if (c == 't') {
        if (cli_double("solve", "--tol", v, &d) < 0 || !(d > 0))
            return -1;
        a->sopts.tol = d;
    } else if (c == 'w') {
        if (cli_double("solve", "--omega", v, &d) < 0 || !(d > 0 && d < 2))
            return -1;
        a->sopts.omega = d;
        a->sopts.method = a->sopts.method == PEPA_METHOD_AUTO ? PEPA_METHOD_SOR : a->sopts.method;
    } else {                                         /* 'L' */
        if (cli_double("solve", "--time-limit", v, &d) < 0 || !(d > 0))
            return -1;
        a->dopts.time_limit = a->sopts.time_limit = d;
    }
    return 0;
}

/* A count option (c: its code in solve_opts); -1 after a usage error. */
static int count_option(solve_args *a, int c, const char *v)
{
    unsigned long long u;
    if (c == 'i') {
        if (cli_ulong("solve", "--max-iter", v, &u) < 0 || u == 0)
            return -1;
        a->sopts.max_iter = (long)(u > 1000000000ULL ? 1000000000ULL : u);
        a->approx_iter = (int)(u > 1000000ULL ? 1000000ULL : u);
    } else if (c == 's') {
        if (cli_ulong("solve", "--max-states", v, &u) < 0 || u == 0)
            return -1;
        a->dopts.max_states = u;
    } else {                                         /* 'T' */
        if (cli_ulong_in("solve", "--threads", v, 1, 1024, &u) < 0)
            return -1;
        a->sopts.lu_threads = (int)u;
        a->threads_asked = 1;
    }
    return 0;
}

static const cli_opt solve_opts[] = {
    { "--method", 'm', CLI_VALUE },
    { "--tol", 't', CLI_VALUE },
    { "--max-iter", 'i', CLI_VALUE },
    { "--omega", 'w', CLI_VALUE },
    { "--max-states", 's', CLI_VALUE },
    { "--time-limit", 'L', CLI_VALUE },
    { "--threads", 'T', CLI_VALUE },
    { "--json", 'j', CLI_FLAG },
    { "--export-prism", 'P', CLI_VALUE },
    { "--export-mm", 'M', CLI_VALUE },
    { "--platform", 'p', CLI_VALUE },
    { "--place", 'l', CLI_VALUE },
    { "--style", 'y', CLI_VALUE },
    { "--sharing", 'H', CLI_VALUE },
    { "--buffer", 'B', CLI_VALUE },
    { "--link-scv", 'V', CLI_VALUE },
    { "--no-lump", 'N', CLI_FLAG },
    { "--help", 'h', CLI_FLAG },
    { "-h", 'h', CLI_FLAG },
    { NULL, 0, CLI_FLAG }
};

/* --method M; -1 after a usage error. */
static int method_option(solve_args *a, const char *v)
{
    if (strcmp(v, "approx") == 0) {
        a->approx = 1;
        return 0;
    }
    if (pepa_method_parse(v, &a->sopts.method) < 0) {
        fprintf(stderr, "skelsched solve: unknown method '%s' (auto, direct, gs, sor, gmres, approx)\n", v);
        return -1;
    }
    return 0;
}

/* An option of the input or output (c: its code in solve_opts); -1 after
 * a usage error, 1 when c is none of them. */
static int io_option(solve_args *a, int c, const char *v)
{
    switch (c) {
    case 'p': a->in.platform = v; return 0;
    case 'B': a->in.buffer = v; return 0;
    case 'V': a->in.link_scv = v; return 0;
    case 'l': a->in.place = v; return 0;
    case 'j': a->json = 1; return 0;
    case 'N': a->in.no_lump = 1; return 0;
    case 'P': a->export_prism = v; return 0;
    case 'M': a->export_mm = v; return 0;
    case 'H':
        if (cli_sharing_arg("solve", v) < 0)
            return -1;
        a->in.sharing = v;
        return 0;
    case 'y':
        if (cli_style_parse(v, &a->in.style) == 0)
            return 0;
        fprintf(stderr, "skelsched solve: --style must be producer or stream, not '%s'\n", v);
        return -1;
    default:
        return 1;
    }
}

/* One option (c, its value v); 2 after a usage error, 0 after --help, -1 to go on. */
static int one_option(solve_args *a, int c, const char *v, const char *arg)
{
    int rc;
    if (c == 'm')
        rc = method_option(a, v);
    else if (c == 't' || c == 'w' || c == 'L')
        rc = real_option(a, c, v);
    else if (c == 'i' || c == 's' || c == 'T')
        rc = count_option(a, c, v);
    else if (c == 'h') {
        usage(stdout);
        return 0;
    } else if ((rc = io_option(a, c, v)) > 0) {
        fprintf(stderr, "skelsched solve: unknown or incomplete option '%s'\n", arg);
        usage(stderr);
        return 2;
    }
    return rc < 0 ? 2 : -1;
}

static int parse_args(int argc, char **argv, solve_args *a)
{
    cli_parser p;
    cli_parser_init(&p, "solve", argc, argv, solve_opts, CLI_GNU);
    int operands = 0;
    for (int c; (c = cli_parser_next(&p)) != CLI_END;) {
        if (c == CLI_OPERAND) {
            a->path = operands++ ? a->path : p.arg;
            continue;
        }
        int rc = one_option(a, c, p.value, p.arg);
        if (rc >= 0)
            return rc;
    }
    if (operands != 1) {
        fprintf(stderr, "skelsched solve: expected one model file\n");
        usage(stderr);
        return 2;
    }
    return -1;
}

static void warn(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "%s\n", msg);
}

/* A state as text, malloc'd (NULL when out of memory). */
static char *state_text(const pepa_space *sp, uint32_t k)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    pepa_space_print_state(sp, k, f);
    fclose(f);
    return buf;
}

/* Explain why a chain has no unique steady state; mark the states of its
 * closed class in closed (n entries). */
static int check_chain(const pepa_space *sp, const char *path, unsigned char *closed, diag *err)
{
    pepa_chain_class cls;
    if (sp->deadlocks) {
        char *st = state_text(sp, sp->first_deadlock);
        diag_set(err, "%s: the model deadlocks: %u state(s) can do nothing at all, e.g. state %u %s",
                 path, sp->deadlocks, sp->first_deadlock, st ? st : "");
        free(st);
        return -1;
    }
    if (pepa_space_recurrent(sp, &cls, closed, err) < 0)
        return -1;
    if (cls.bottom > 1) {
        char *a = state_text(sp, cls.first_bottom[0]), *b = state_text(sp, cls.first_bottom[1]);
        diag_set(err, "%s: the chain is not ergodic: it has %u closed classes of states (e.g. one holding "
                 "%s, another holding %s), so its long-run behaviour depends on which one it enters",
                 path, cls.bottom, a ? a : "?", b ? b : "?");
        free(a);
        free(b);
        return -1;
    }
    if (cls.transient)
        fprintf(stderr, "%s: note: %u transient state(s) (left forever once the chain moves on) get "
                "steady-state probability 0; the %u state(s) of the closed class are solved alone\n",
                path, cls.transient, sp->n - cls.transient);
    return 0;
}

/* The answer and its error bounds (absolute, per entry). */
typedef struct solve_out {
    double *pi, *dpi;         /* n */
    double *thr, *thr_err;    /* nactions */
    unsigned char *closed;    /* n */
} solve_out;

/* key: {component: {local state: probability, ...}, ...} */
static void json_local(cli_json *j, const char *key, const pepa_space *sp, const double *pi)
{
    const pepa_system *s = sp->sys;
    cli_json_object(j, key);
    for (int i = 0; i < s->nleaves; i++) {
        const pepa_node *nd = &s->nodes[s->leaves[i]];
        const pepa_seq *q = &s->seqs[nd->seq];
        double *loc = malloc((size_t)q->nstates * sizeof *loc);
        if (!loc)
            continue;
        pepa_space_local(sp, pi, i, loc);
        cli_json_object(j, nd->name);
        for (int k = 0; k < q->nstates; k++)
            cli_json_number(j, q->state_name[k], loc[k]);
        cli_json_end(j);
        free(loc);
    }
    cli_json_end(j);
}

/* key: {action: throughput, ...} */
static void json_thr(cli_json *j, const char *key, const pepa_system *s, const double *thr, int tau)
{
    cli_json_object(j, key);
    for (int act = tau ? 0 : 1; act < s->nactions; act++)   /* tau only when it happens */
        cli_json_number(j, pepa_model_action(s->model, act), thr[act]);
    cli_json_end(j);
}

static void print_json(const solve_args *a, const pepa_space *sp, const pepa_solve_result *res,
                       const solve_out *o, const double *times)
{
    int tau = o->thr[0] != 0;
    cli_json j;
    cli_json_start(&j, stdout);
    cli_json_object(&j, NULL);
    cli_json_string(&j, "model", a->path);
    cli_json_int(&j, "states", sp->n);
    cli_json_int(&j, "transitions", (long long)sp->q->nnz);
    cli_json_string(&j, "method", pepa_method_name(res->method));
    cli_json_int(&j, "iterations", res->iterations);
    cli_json_number(&j, "residual", res->residual);
    cli_json_int(&j, "lu_threads", res->lu_threads);
    cli_json_string(&j, "decision", pepa_decision_name(res->decision));
    cli_json_int(&j, "orderings", res->orderings);
    cli_json_int(&j, "probe_states", res->probe_states);
    json_thr(&j, "throughput", sp->sys, o->thr, tau);
    json_thr(&j, "throughput_error", sp->sys, o->thr_err, tau);
    json_local(&j, "local", sp, o->pi);
    json_local(&j, "local_error", sp, o->dpi);
    cli_json_object(&j, "time");
    cli_json_numberf(&j, "parse", "%.6f", times[0]);
    cli_json_numberf(&j, "derive", "%.6f", times[1]);
    cli_json_numberf(&j, "solve", "%.6f", times[2]);
    cli_json_end(&j);
    cli_json_end(&j);
    fputc('\n', stdout);
}

static void print_local(const pepa_space *sp, const solve_out *o, int i)
{
    const pepa_node *nd = &sp->sys->nodes[sp->sys->leaves[i]];
    const pepa_seq *q = &sp->sys->seqs[nd->seq];
    double *loc = malloc((size_t)q->nstates * 2 * sizeof *loc);
    if (!loc)
        return;
    pepa_space_local(sp, o->pi, i, loc);
    pepa_space_local(sp, o->dpi, i, loc + q->nstates);
    printf("\n%-32s %s\n", nd->name, nd->kind == PEPA_N_ARRAY ? "mean copies" : "probability");
    for (int k = 0; k < q->nstates; k++) {
        printf("  %-30s ", q->state_name[k]);
        cli_print_digits(stdout, loc[k], loc[q->nstates + k]);
        putchar('\n');
    }
    free(loc);
}

/* Only the digits the error bounds justify (at most 10). */
static void print_table(const solve_args *a, const pepa_space *sp, const pepa_solve_result *res,
                        const solve_out *o, const double *times)
{
    const pepa_system *s = sp->sys;
    printf("model        %s\n", a->path);
    printf("states       %u\n", sp->n);
    printf("transitions  %llu\n", (unsigned long long)sp->q->nnz);
    printf("method       %s, %ld iteration%s, residual %.3g\n", pepa_method_name(res->method),
           res->iterations, res->iterations == 1 ? "" : "s", res->residual);
    printf("time         parse %.3f s, derive %.3f s, solve %.3f s\n\n", times[0], times[1], times[2]);
    printf("%-32s %s\n", "action", "throughput");
    for (int act = 0; act < s->nactions; act++)
        if (act > 0 || o->thr[0] != 0) {
            printf("%-32s ", pepa_model_action(s->model, act));
            cli_print_digits(stdout, o->thr[act], o->thr_err[act]);
            putchar('\n');
        }
    for (int i = 0; i < s->nleaves; i++)
        print_local(sp, o, i);
}

/* Solve the closed class, then the measures and their error bounds. */
static int solve_measure(const pepa_space *sp, pepa_solve_opts *so, solve_out *o,
                         pepa_solve_result *res, diag *err)
{
    so->recurrent = o->closed;
    so->error = o->dpi;
    if (pepa_solve(sp->q, so, o->pi, res, err) < 0)
        return -1;
    return pepa_space_throughput(sp, o->pi, o->thr, err) < 0
           || pepa_space_throughput(sp, o->dpi, o->thr_err, err) < 0 ? -1 : 0;
}

static int out_alloc(solve_out *o, uint32_t n, int nactions)
{
    o->pi = malloc((size_t)n * sizeof *o->pi);
    o->dpi = malloc((size_t)n * sizeof *o->dpi);
    o->closed = malloc((size_t)n);
    o->thr = malloc((size_t)nactions * sizeof *o->thr);
    o->thr_err = malloc((size_t)nactions * sizeof *o->thr_err);
    return o->pi && o->dpi && o->closed && o->thr && o->thr_err ? 0 : -1;
}

static void out_free(solve_out *o)
{
    free(o->thr_err);
    free(o->thr);
    free(o->closed);
    free(o->dpi);
    free(o->pi);
}

/* --method approx --json */
static void print_approx_json(const solve_args *a, int nt, const skel_approx_result *r,
                              const double *u, const double *x, const double *times)
{
    char bottleneck[32];
    snprintf(bottleneck, sizeof bottleneck, "t%d", r->bottleneck);
    cli_json j;
    cli_json_start(&j, stdout);
    cli_json_object(&j, NULL);
    cli_json_string(&j, "model", a->path);
    cli_json_int(&j, "tasks", nt);
    cli_json_string(&j, "method", "approx");
    cli_json_int(&j, "iterations", r->iterations);
    cli_json_bool(&j, "converged", r->converged);
    cli_json_numberf(&j, "change", "%.3g", r->change);
    cli_json_numberf(&j, "throughput", "%.10g", r->throughput);
    if (r->half_width > 0)
        cli_json_numberf(&j, "half_width", "%.3g", r->half_width);
    if (r->items > 0)
        cli_json_int(&j, "items", r->items);
    cli_json_bool(&j, "at_bound", r->at_bound);
    cli_json_bool(&j, "whole", r->whole);
    cli_json_string(&j, "estimate", r->estimate == SKEL_APPROX_EST_GRAPH    ? "event graph"
                                    : r->estimate == SKEL_APPROX_EST_EVENTS ? "events"
                                    : r->estimate == SKEL_APPROX_EST_PAIRS  ? "pairs (rough)"
                                                                            : "none");
    cli_json_string(&j, "bottleneck", bottleneck);
    cli_json_array(&j, "task");
    for (int i = 0; i < nt; i++) {
        cli_json_object(&j, NULL);
        cli_json_numberf(&j, "utilisation", "%.10g", u[i]);
        cli_json_numberf(&j, "throughput", "%.10g", x[i]);
        cli_json_end(&j);
    }
    cli_json_end(&j);
    cli_json_object(&j, "time");
    cli_json_numberf(&j, "load", "%.6f", times[0]);
    cli_json_numberf(&j, "approx", "%.6f", times[1]);
    cli_json_end(&j);
    cli_json_end(&j);
    fputc('\n', stdout);
}

/* --method approx: the skeleton's throughput by skel_approx, no chain. */
/* The reduced chain's state, for the method line: FES(n,L), or with the
 * branches' entries held FES(n,F,L,bit), into buf. */
static const char *fes_state(const skel_approx_result *r, char *buf, size_t n)
{
    if (r->fes_held == 0)
        snprintf(buf, n, "FES(n,L)");
    else if (r->fes_held == r->fes_branches)
        snprintf(buf, n, "FES(n,F,L,bit) (its entry and exit held)");
    else
        snprintf(buf, n, "FES(n,F,L,bit) for %d of %d branches (entry and exit held), "
                         "FES(n,L) the others", r->fes_held, r->fes_branches);
    return buf;
}

static void print_approx(const solve_args *a, const cli_input *in, const skel_approx *ax,
                         const skel_approx_result *r, const double *times)
{
    const double *u = skel_approx_task_util(ax), *x = skel_approx_task_throughput(ax);
    int nt = in->skel->ntasks;
    char state[160];
    if (a->json) {
        print_approx_json(a, nt, r, u, x, times);
        return;
    }
    printf("model        %s\n", a->path);
    printf("tasks        %d\n", nt);
    if (r->estimate == SKEL_APPROX_EST_GRAPH)
        printf("method       approx, a deal the windows cannot answer: its event graph's "
               "max-plus recursion, sampled (%ld items, fixed seed; 95%% half-width %.2g "
               "by batch means) (docs/approximation.md)\n",
               r->items, r->half_width);
    else if (r->estimate == SKEL_APPROX_EST_EVENTS)
        printf("method       approx, a deal the windows cannot answer: its model sampled event "
               "by event (a farm's choice or a node's sharing: not the event graph's recursion; "
               "%ld items, fixed seed; 95%% half-width %.2g by batch means) "
               "(docs/approximation.md)\n",
               r->items, r->half_width);
    else if (r->estimate)
        printf("method       approx, a deal the windows cannot answer, not an event graph: a "
               "rough estimate from the per-task cycles, each move's ends a tandem without "
               "buffer (docs/approximation.md)\n");
    else if (r->fes && r->fes_parts > 1)   /* one chain past 65,536 states: split */
        printf("method       approx, a par block too large for one window: each branch a "
               "flow-equivalent server, %s, %d reduced chains (one per par block and, if any, one "
               "of the tasks outside) of %d + %d states coupled by their moves' measured rates, %d "
               "round%s%s (docs/approximation.md)\n",
               fes_state(r, state, sizeof state), r->fes_parts, r->fes, r->fes_out,
               r->iterations, r->iterations == 1 ? "" : "s",
               r->converged ? "" : " (not converged)");
    else if (r->fes)
        printf("method       approx, a par block too large for one window: each branch a "
               "flow-equivalent server, %s, the reduced chain %d states, %d round%s%s "
               "(docs/approximation.md)\n",
               fes_state(r, state, sizeof state), r->fes, r->iterations,
               r->iterations == 1 ? "" : "s", r->converged ? "" : " (not converged)");
    else
        printf("method       approx, %d sweeps, last change %.3g%s%s\n", r->iterations, r->change,
               r->converged ? "" : " (not converged)",
               r->whole ? "; the whole model as one window: its exact chain" : "");
    printf("time         load %.3f s, approx %.6f s\n\n", times[0], times[1]);
    printf("throughput   ");
    /* the digits the sampling justifies; the rough estimate's two (up to 29% off) */
    cli_print_digits(stdout, r->throughput,
                     r->estimate == SKEL_APPROX_EST_PAIRS ? 0.01 * r->throughput : r->half_width);
    printf(" items/s (leaving the skeleton%s)\n",
           r->at_bound ? "; the one-item-at-a-time lower bound, above the fixed point's" : "");
    printf("bottleneck   t%d\n\n", r->bottleneck);
    printf("task   utilisation  throughput\n");
    for (int i = 0; i < nt; i++)
        printf("t%-5d %-12.6g %.10g\n", i, u[i], x[i]);
}


/* A par block answered by its reduced chain (flow-equivalent servers),
 * docs/approximation.md "Par blocks too large for one window": within
 * 3.5% on the named cases; on random blocks, every branch held (n, F, L,
 * bit), worst 5.7% on 39 blocks and 10.1% on 30 with a nested branch
 * (2026-11-28 00:31-00:39 UTC); a branch not held, (n, L), p95 15.0% off
 * static and 14.8% under processor sharing, worst +24.8% ("up to 25%").
 * Not converged: its own rounds (not the windows' sweeps, whose 32-38%
 * is another method's). */
static void warn_fes(const char *path, const skel_approx_result *r)
{
    int held = r->fes_held == r->fes_branches;
    if (r->fes_unmeasured)    /* split: a move between two chains no chain measured */
        fprintf(stderr, "warning: %s: the par's reduced chains did not converge: %d move%s "
                        "between them never measured, run at the move's own rate\n",
                path, r->fes_unmeasured, r->fes_unmeasured == 1 ? "" : "s");
    else if (!r->converged)
        fprintf(stderr, "warning: %s: the par's reduced chain did not converge in %d rounds "
                        "(last change %.3g)\n", path, r->iterations, r->change);
    fprintf(stderr, "warning: %s: a par block answered by flow-equivalent servers: within "
                    "3.5%% on the named cases, up to %s off on random blocks "
                    "(docs/approximation.md); check it with `skelsched simulate`\n",
            path, held ? "6% (10% with a nested branch)" : "25%");
}

/* Why the cut windows answered a par block too large for one window
 * (skel_approx_result.fes_past), for the warning. */
static const char *par_past_why(int why)
{
    switch (why) {
    case SKEL_APPROX_PAR_PAST:
        return "its reduced chains (or a branch's closed chain) are past 65,536 states, even split";
    case SKEL_APPROX_PAR_SHAPE: return "a branch the reduced chain does not cover";
    case SKEL_APPROX_PAR_LINKS: return "link buffers or phases, which it does not cover";
    case SKEL_APPROX_PAR_WIDE: return "its reduced chain is past 24 components";
    default: return "?";
    }
}

/* A par block too large for one window that the reduced chain could not
 * answer: the cut windows answered, which can be far off even when they
 * converge (pfarm: -76%, converged), so never silently. */
static void warn_par_cut(const char *path, const skel_approx_result *r)
{
    fprintf(stderr, "warning: %s: a par block too large for one window answered by the cut "
                    "windows (%s): they can be far off even converged (-76%% where measured); "
                    "check it with `skelsched simulate`\n",
            path, par_past_why(r->fes_past));
}

static int solve_approx(const solve_args *a)
{
    diag err;
    diag_clear(&err);
    double times[2], t = clock_now();
    cli_input_opts o = a->in;
    o.skeleton = 1;
    cli_input in = { 0 };
    skel_approx *ax = NULL;
    skel_approx_result r;
    int rc = 1;
    if (!bpel_is_bpel_path(a->path) && cli_is_skeleton(a->path, &err) == 0)  /* BPEL: a skeleton */
        diag_set(&err, "%s: --method approx needs a skeleton (a PEPA model has no skeleton "
                       "structure to decompose)", a->path);
    else if (cli_input_load(a->path, &o, &in, &err) == 0) {
        times[0] = clock_now() - t;
        t = clock_now();
        skel_approx_opts ao = { 0 };
        ao.scv = in.skel->scv;
        ao.max_iter = a->approx_iter;
        if ((ax = skel_approx_new(in.dag, &ao, &err)) &&
            skel_approx_place(ax, in.skel, in.platform, in.node_of_task, &r, &err) == 0) {
            times[1] = clock_now() - t;
            if (r.estimate == SKEL_APPROX_EST_PAIRS)
                fprintf(stderr, "warning: %s: a rough estimate, not converged (up to 29%% off where "
                                "measured): use `skelsched simulate`\n", a->path);
            else if (r.fes)
                warn_fes(a->path, &r);
            else if (r.unsettled)    /* the inner fixed point converged; the passes did not */
                fprintf(stderr, "warning: %s: the approximation did not converge: a one-server "
                                "loop's body never settled under processor sharing (its "
                                "stretches still moving after its last evaluation); check it "
                                "with `skelsched simulate`\n", a->path);
            else if (!r.estimate && !r.converged)    /* the method line says it too */
                fprintf(stderr, "warning: %s: the approximation did not converge in %d sweeps "
                                "(last change %.3g): its throughput may be far off (pars too "
                                "large for one window: 32-38%% where measured); check it with "
                                "`skelsched simulate`\n", a->path, r.iterations, r.change);
            if (r.fes_past)          /* converged or not: the cut windows' answer */
                warn_par_cut(a->path, &r);
            print_approx(a, &in, ax, &r, times);
            rc = 0;
        }
    }
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    skel_approx_free(ax);
    cli_input_free(&in);
    return rc;
}

/* solve's own cap on the chain (--max-states raises it): about 1.5 GB and
 * tens of seconds of deriving, far below what would take the machine's
 * memory. */
#define SOLVE_MAX_STATES 4000000ULL

/* Derive within the cap. A model whose components' local states allow
 * more (pepa_system_state_bound) may exceed it: then it stops there, with
 * its size as far as known and what answers instead. */
static pepa_space *derive_capped(const solve_args *a, pepa_system *s, int skeleton, diag *err)
{
    pepa_derive_opts d = a->dopts;
    if (!d.max_states)
        d.max_states = SOLVE_MAX_STATES;
    double bound = pepa_system_state_bound(s);
    pepa_space *sp = pepa_derive(s, &d, err);
    if (sp || !(bound > (double)d.max_states))
        return sp;
    diag first = *err;
    diag_clear(err);
    diag_set(err, "%s; its components' local states allow up to %.3g states, too many to solve "
             "exactly here (--max-states raises the limit). The throughput of a model this size: "
             "%s`skelsched simulate` (95%% confidence intervals)", first.msg, bound,
             skeleton ? "`skelsched solve --method approx` (milliseconds), or " : "");
    return NULL;
}

/* The LU's threads: one by default (one thread's wall time was 0.74-1.26
 * times two threads' under the machine's load, two slower in half the
 * runs, no idle-machine run: docs/pepa.md);
 * --threads N beyond the CPUs this process may run on (its affinity mask:
 * a container's or taskset's, not the machine's) would only wait for a
 * core: at most that many, with a warning. */
static void cap_threads(solve_args *a)
{
    cpu_set_t set;
    int cpus = 1;
    if (!a->threads_asked) {
        a->sopts.lu_threads = 1;
        return;
    }
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        cpus = CPU_COUNT(&set);
    } else {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        cpus = online > 0 && online < 1024 ? (int)online : 1;
    }
    if (cpus < 1)
        cpus = 1;
    if (a->sopts.lu_threads <= cpus)
        return;
    fprintf(stderr, "warning: --threads %d: this process may run on %d CPU(s); using %d\n",
            a->sopts.lu_threads, cpus, cpus);
    a->sopts.lu_threads = cpus;
}

/* What the threads asked for did not do: --threads with a solve the
 * multifrontal LU did not run in, or a helper thread that could not be
 * started (the LU then ran those fronts on one thread). */
static void warn_threads(const solve_args *a, const pepa_solve_result *res)
{
    if (a->threads_asked && a->sopts.lu_threads > 1 && res->lu_threads == 0)
        fprintf(stderr, "warning: --threads %d unused: only the direct method's multifrontal "
                "LU (chains of 10,000 states or more) runs on two threads; this solve used %s%s\n",
                a->sopts.lu_threads, pepa_method_name(res->method),
                res->method == PEPA_METHOD_DIRECT ? " on UMFPACK" : "");
    if (a->threads_asked && a->sopts.lu_threads > 1 && res->lu_par_unavailable[0])
        fprintf(stderr, "warning: --threads %d: the LU ran on one thread: its helper's copy "
                "of the BLAS could not be loaded: %s\n", a->sopts.lu_threads,
                res->lu_par_unavailable);
    if (res->lu_unstarted > 0)
        fprintf(stderr, "warning: %ld front(s) of the LU ran on one thread: a helper thread "
                "could not be started\n", res->lu_unstarted);
}

/* The derived chain exported as asked, o allocated, the chain checked
 * for a unique steady state (its closed class in o->closed). */
static int chain_ready(const solve_args *a, const pepa_space *sp, solve_out *o, diag *err)
{
    if ((a->export_prism && pepa_export_prism(sp, a->export_prism, err) < 0) ||
        (a->export_mm && pepa_export_mm(sp, a->export_mm, err) < 0))
        return -1;
    if (out_alloc(o, sp->n, sp->sys->nactions) < 0)
        return diag_set(err, "out of memory");
    return check_chain(sp, a->path, o->closed, err);
}

/* Derive, check and solve the chain of the loaded model; print the
 * answer. times: parse, derive, solve (the first set by the caller). */
static int solve_chain(const solve_args *a, const cli_input *in, pepa_system *s, double *times,
                       diag *err)
{
    pepa_space *sp;
    solve_out o = { 0 };
    pepa_solve_result res = { 0 };
    pepa_solve_opts so = a->sopts;
    int rc = -1;
    double t = clock_now();
    if (!(sp = derive_capped(a, s, in->skel != NULL, err)))
        return -1;
    times[1] = clock_now() - t;
    if (chain_ready(a, sp, &o, err) < 0)
        goto done;
    t = clock_now();
    if (solve_measure(sp, &so, &o, &res, err) < 0) {
        diag tmp = *err;
        diag_clear(err);
        diag_set(err, "%s: %s", a->path, tmp.msg);
        goto done;
    }
    times[2] = clock_now() - t;
    warn_threads(a, &res);
    if (a->json)
        print_json(a, sp, &res, &o, times);
    else
        print_table(a, sp, &res, &o, times);
    rc = 0;
done:
    out_free(&o);
    pepa_space_free(sp);
    return rc;
}

int cmd_solve(int argc, char **argv)
{
    solve_args a = { 0 };
    pepa_solve_opts_init(&a.sopts);
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    if (a.approx)
        return solve_approx(&a);
    cap_threads(&a);
    diag err;
    diag_clear(&err);
    double times[3] = { 0 }, t = clock_now();
    cli_input in = { 0 };
    pepa_system *s = NULL;
    rc = 1;
    if (cli_input_load(a.path, &a.in, &in, &err) < 0 || pepa_check(in.model, warn, NULL, &err) < 0 ||
        !(s = pepa_system_new(in.model, &err)) || pepa_check_system(s, warn, NULL, &err) < 0)
        goto done;
    times[0] = clock_now() - t;
    if (solve_chain(&a, &in, s, times, &err) == 0)
        rc = 0;
done:
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    pepa_system_free(s);
    cli_input_free(&in);
    return rc;
}
