/* bench_transient: CVODE (BDF; KLU or SPGMR linear solves) against
 * uniformisation on stiff models, and the fluid analysis of a farm of
 * 10,000 workers. One table; ratios computed in the same run.
 *
 *   stiff pipeline: Benoit et al. 2004's shape (stages passive, processors and the
 *     network active), moves at 1e4 (latency 1e-4 s) beside compute rates
 *     near 1: uniformisation's rate is ~1e4, so it needs ~1e4 t products.
 *   production.pepa (corpus): rates differing by orders of magnitude.
 *
 * usage: bench_transient [quick]   (SHARED_DIR locates the corpus) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "pepa/parse.h"
#include "pepa/space.h"
#include "transient/transient.h"

static const char pipeline[] =
    "lat = 1.0e-4;\n"
    "Stage1 = (move1, infty).(process1, infty).(move2, infty).Stage1;\n"
    "Stage2 = (move2, infty).(process2, infty).(move3, infty).Stage2;\n"
    "Stage3 = (move3, infty).(process3, infty).(move4, infty).Stage3;\n"
    "Stage4 = (move4, infty).(process4, infty).(move5, infty).Stage4;\n"
    "Processor1 = (process1, 1.0).Processor1;\n"
    "Processor2 = (process2, 0.8).Processor2;\n"
    "Processor3 = (process3, 1.25).Processor3;\n"
    "Processor4 = (process4, 0.9).Processor4;\n"
    "Network = (move1, 1/lat).Network + (move2, 1/lat).Network + (move3, 1/lat).Network\n"
    "        + (move4, 1/lat).Network + (move5, 1/lat).Network;\n"
    "((Stage1 <move2> Stage2 <move3> Stage3 <move4> Stage4)\n"
    "   <process1, process2, process3, process4> (Processor1 || Processor2 || Processor3 || Processor4))\n"
    "   <move1, move2, move3, move4, move5> Network\n";

static int drop(void *ctx, int k, double t, const double *x, diag *err)
{
    (void)k, (void)t, (void)err;
    double *last = ctx;
    *last = x[0];
    return 0;
}

typedef struct run_out {
    double sec;
    long steps;
    double *pi;        /* pi(T), malloc'd */
    int ok;
} run_out;

typedef struct keep_ctx {
    double *pi;
    uint32_t n;
} keep_ctx;

static int keep(void *ctx, int k, double t, const double *x, diag *err)
{
    (void)k, (void)t, (void)err;
    keep_ctx *c = ctx;
    memcpy(c->pi, x, c->n * sizeof *x);
    return 0;
}

static double maxdiff(const run_out *a, const run_out *b, uint32_t n)
{
    double d = 0;
    for (uint32_t i = 0; a->pi && b->pi && i < n; i++)
        d = fmax(d, fabs(a->pi[i] - b->pi[i]));
    return d;
}

static run_out run(const pepa_ctmc *q, double until, tr_method m, tr_linsol ls)
{
    tr_opts o;
    tr_opts_init(&o);
    o.method = m;
    o.linsol = ls;
    double times[] = { until };
    tr_result res;
    diag err;
    diag_clear(&err);
    run_out r = { 0, 0, malloc(q->n * sizeof(double)), 0 };
    keep_ctx kc = { r.pi, q->n };
    double t = clock_now();
    r.ok = r.pi && tr_solve(q, NULL, times, 1, &o, keep, &kc, &res, &err) == 0;
    r.sec = clock_now() - t;
    r.steps = res.steps;
    if (!r.ok)
        fprintf(stderr, "bench_transient: %s\n", err.msg);
    return r;
}

static void row(const char *name, const pepa_space *sp, double until, int with_klu)
{
    run_out u = run(sp->q, until, TR_UNIFORM, TR_LS_AUTO);
    run_out g = run(sp->q, until, TR_CVODE, TR_LS_GMRES);
    run_out k = with_klu ? run(sp->q, until, TR_CVODE, TR_LS_KLU) : (run_out){ NAN, 0, NULL, 0 };
    printf("%-16s %7u %7g | %9ld %8.3f | %6ld %8.3f %7.1fx | ", name, sp->n, until, u.steps, u.sec, g.steps,
           g.sec, u.sec / g.sec);
    if (with_klu)
        printf("%6ld %8.3f %7.1fx | %.1e\n", k.steps, k.sec, u.sec / k.sec,
               fmax(maxdiff(&k, &u, sp->n), maxdiff(&g, &u, sp->n)));
    else
        printf("%6s %8s %8s | %.1e\n", "-", "skipped", "", maxdiff(&g, &u, sp->n));
    free(k.pi);
    free(g.pi);
    free(u.pi);
}

static pepa_space *load(const char *text, const char *path, pepa_model **m, pepa_system **s)
{
    diag err;
    diag_clear(&err);
    *m = text ? pepa_parse_string(text, strlen(text), "pipeline.pepa", &err) : pepa_parse_file(path, &err);
    pepa_space *sp = NULL;
    if (!*m || !(*s = pepa_system_new(*m, &err)) || !(sp = pepa_derive(*s, NULL, &err)))
        fprintf(stderr, "bench_transient: %s\n", err.msg);
    return sp;
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    printf("bench_transient: pi(T) from the initial state; uniformisation eps 1e-12, CVODE rtol 1e-8 "
           "atol 1e-12\n");
    printf("%-16s %7s %7s | %9s %8s | %6s %8s %8s | %6s %8s %8s | %s\n", "model", "states", "T",
           "unif.prod", "unif s", "gmres", "steps s", "speedup", "klu", "steps s", "speedup",
           "max|diff|");
    pepa_model *m = NULL;
    pepa_system *s = NULL;
    pepa_space *sp = load(pipeline, NULL, &m, &s);
    if (sp) {
        row("stiff pipeline", sp, 10, 1);
        row("stiff pipeline", sp, 100, 1);
    }
    pepa_space_free(sp);
    pepa_system_free(s);
    pepa_model_free(m);

    char path[4096];
    const char *dir = getenv("SHARED_DIR");
    snprintf(path, sizeof path, "%s/corpus/pepa/pepa-eclipse-plugin/production.pepa", dir && *dir ? dir : "../shared");
    m = NULL;
    s = NULL;
    if ((sp = load(NULL, path, &m, &s))) {
        row("production", sp, 10, 0);
        if (!quick)
            row("production", sp, 200, 0);
    }
    pepa_space_free(sp);
    pepa_system_free(s);
    pepa_model_free(m);
    printf("(klu skipped on production: its LU fills in to ~1 s per factorisation, ~50 s in all; "
           "auto uses klu up to %d states)\n", TR_KLU_MAX_STATES);

    /* fluid: a farm of 10,000 workers as an array */
    const char *farm = "Emitter = (task, 6000.0).Emitter;\nWorker = (task, 1.0).Work;\n"
                       "Work = (compute, 1.0).Worker;\nEmitter <task> Worker[10000]\n";
    diag err;
    diag_clear(&err);
    double t = clock_now();
    m = pepa_parse_string(farm, strlen(farm), "farm.pepa", &err);
    s = m ? pepa_system_new(m, &err) : NULL;
    tr_fluid *f = s ? tr_fluid_new(s, &err) : NULL;
    double x[8], thr[8], tfix = 0;
    int conv = -1;
    if (f && tr_fluid_nvars(f) <= 8 && s->nactions <= 8) {
        double times[101];
        for (int k = 0; k <= 100; k++)
            times[k] = k * 0.1;
        tr_result res;
        double last;
        if (tr_fluid_solve(f, times, 101, NULL, drop, &last, &res, &err) == 0)
            conv = tr_fluid_fixed_point(f, NULL, 1e-10, 1e9, x, &tfix, &err);
        if (conv >= 0)
            tr_fluid_throughput(f, x, 1e-7, thr);
    }
    double sec = clock_now() - t;
    if (conv < 0)
        fprintf(stderr, "bench_transient: fluid: %s\n", err.msg);
    else
        printf("\nfluid farm of 10000 workers: parse + 101 outputs over [0,10] + fixed point in %.4f s "
               "(%s 0.1 s); compute throughput %.6f (fluid limit 5000)\n", sec, sec <= 0.1 ? "<=" : "MORE THAN",
               thr[pepa_model_find_action(m, "compute")]);
    tr_fluid_free(f);
    pepa_system_free(s);
    pepa_model_free(m);
    return conv < 0;
}
