/* bench_map: the placement search against AMoGeT's way of comparing
 * mappings (Benoit et al. 2004 §4.1: generate, derive and solve one model per
 * placement).
 *
 *   (a) Benoit et al. 2004's 3-stage pipeline on its 3 processors (first row of the
 *       table): all 27 placements solved and ranked (no bounds, no
 *       symmetry), time per placement, and the baseline's time per
 *       placement over the same 27, as a ratio.
 *   (b) 6- and 8-stage pipelines on 8 heterogeneous nodes (speeds and
 *       latencies drawn from a fixed seed): the full search (bounds,
 *       symmetry), chains solved vs. placements, seconds, proven or not;
 *       the baseline's time is its measured time per placement (over 20
 *       placements) times the number of placements.
 *   (c) corpus model6.des (farms and deals, 13 tasks) on 12 nodes in 3
 *       speed classes, under a budget.
 *
 * usage: bench_map [a|b|c|all] [budget-seconds for b and c (default 60)] */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "pepa/solve.h"
#include "pepa/space.h"
#include "pepa/system.h"
#include "skeleton/skeleton.h"

typedef struct job {
    skel_tree *tree;
    skel_dag *dag;
    skel_model *model;
    skel_platform *plat;
} job;

static int job_new(job *j, const char *skel, const char *skel_name, skel_style style,
                   const char *plat, diag *err)
{
    memset(j, 0, sizeof *j);
    if (!(j->tree = skel_name && !skel ? skel_parse_file(skel_name, err)
                                       : skel_parse_string(skel, strlen(skel), "bench.skel", err)) ||
        !(j->dag = skel_dag_build(j->tree, style, err)) ||
        !(j->model = skel_model_new(j->tree, j->dag, err)) ||
        !(j->plat = skel_platform_parse_string(plat, strlen(plat), "bench.conf", NULL, NULL, err)))
        return -1;
    return 0;
}

static void job_free(job *j)
{
    skel_platform_free(j->plat);
    skel_model_free(j->model);
    skel_dag_free(j->dag);
    skel_tree_free(j->tree);
}

/* AMoGeT's way: a fresh model, compiled, derived and solved for one
 * placement. Returns the job's throughput, or -1. */
static double baseline_one(const job *j, const int *where, diag *err)
{
    skel_model *m = skel_model_new(j->tree, j->dag, err);
    pepa_system *sys = NULL;
    pepa_space *sp = NULL;
    double *pi = NULL, *thr = NULL, x = -1;
    pepa_derive_opts dopts = { 0 };
    dopts.threads = 1;
    pepa_solve_opts so;
    pepa_solve_opts_init(&so);
    so.tol = 1e-12;
    pepa_solve_result res;
    if (!m || skel_model_place(m, j->plat, where, err) < 0 || !(sys = pepa_system_new(m->pepa, err)) ||
        !(sp = pepa_derive(sys, &dopts, err)))
        goto out;
    pi = malloc((size_t)sp->n * sizeof *pi);
    thr = malloc((size_t)sys->nactions * sizeof *thr);
    if (!pi || !thr || pepa_solve(sp->q, &so, pi, &res, err) < 0 ||
        pepa_space_throughput(sp, pi, thr, err) < 0)
        goto out;
    x = skel_model_throughput(m, thr);
out:
    free(thr);
    free(pi);
    pepa_space_free(sp);
    pepa_system_free(sys);
    skel_model_free(m);
    return x;
}

static double uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* Seconds per placement of the baseline, over count pseudo-random placements. */
static double baseline_rate(const job *j, int count, diag *err)
{
    int nt = j->model->ntasks, nn = j->plat->nnodes;
    int *where = malloc((size_t)nt * sizeof *where);
    if (!where)
        return -1;
    uint64_t seed = 4242;
    double t = clock_now();
    for (int c = 0; c < count; c++) {
        for (int i = 0; i < nt; i++)
            where[i] = (int)(uniform(&seed) * nn);
        if (baseline_one(j, where, err) < 0) {
            free(where);
            return -1;
        }
    }
    free(where);
    return (clock_now() - t) / count;
}

static const char amoget_plat[] =
    "LocalLatency=0.0001\nInput=local\nOutput=local\n"
    "NodeName=p1 Speed=10\nNodeName=p2 Speed=10\nNodeName=p3 Speed=10\n"
    "Link=p1,p2 Latency=0.0001\nLink=p2,p3 Latency=0.0001\nLink=p1,p3 Latency=0.0001\n";

static const char pipe3[] =
    "pipe(3);\n\ttask(\"s\", 1.0);\n\ttask(\"s\", 1.0);\n\ttask(\"s\", 1.0);\n";

static int bench_a(diag *err)
{
    job j;
    if (job_new(&j, pipe3, NULL, SKEL_STYLE_STREAM, amoget_plat, err) < 0) {
        job_free(&j);
        return -1;
    }
    skel_search_opts o = { 0 };
    o.no_prune = o.no_symmetry = 1;
    o.top = 27;
    o.threads = 1;
    /* The fastest of REPS runs of each (the machine is shared), after a
     * warm-up. The search's time includes deriving the chain once. */
    enum { REPS = 20 };
    skel_search_result *r = skel_search(j.model, j.dag, j.plat, &o, err);
    double secs = INFINITY, base = INFINITY;
    for (int rep = 0; rep < REPS && r; rep++) {
        skel_search_result_free(r);
        double t = clock_now();
        r = skel_search(j.model, j.dag, j.plat, &o, err);
        if (clock_now() - t < secs)
            secs = clock_now() - t;
    }
    if (!r) {
        job_free(&j);
        return -1;
    }
    int where[3];
    for (int rep = 0; rep < REPS; rep++) {
        double tb = clock_now();
        for (int c = 0; c < 27; c++) {
            where[0] = c / 9, where[1] = c / 3 % 3, where[2] = c % 3;
            if (baseline_one(&j, where, err) < 0) {
                skel_search_result_free(r);
                job_free(&j);
                return -1;
            }
        }
        if (clock_now() - tb < base)
            base = clock_now() - tb;
    }
    printf("(a) Benoit et al. 2004, 3 stages on 3 processors: all 27 placements ranked (fastest of %d)\n",
           (int)REPS);
    printf("    %-28s %10s %14s\n", "", "total ms", "ms/placement");
    printf("    %-28s %10.3f %14.4f\n", "derive once, re-rate (map)", 1e3 * secs, 1e3 * secs / 27);
    printf("    %-28s %10.3f %14.4f\n", "re-derive each (AMoGeT)", 1e3 * base, 1e3 * base / 27);
    printf("    ratio %.1fx; best %.6g on (p%d,p%d,p%d), %d tied\n\n", base / secs,
           r->ranked[0].throughput, r->ranked[0].placement[0] + 1, r->ranked[0].placement[1] + 1,
           r->ranked[0].placement[2] + 1, r->ties);
    skel_search_result_free(r);
    job_free(&j);
    return 0;
}

/* n heterogeneous nodes: speeds from {1, 2, 4, 8}, latencies from
 * {0.001, 0.01, 0.05, 0.2}, all from a fixed seed. */
static void hetero_platform(char *text, size_t cap, int n, uint64_t seed)
{
    static const double speeds[] = { 1, 2, 4, 8 };
    static const double lats[] = { 0.001, 0.01, 0.05, 0.2 };
    size_t len = (size_t)snprintf(text, cap, "LocalLatency=0.0001\nInput=local\nOutput=local\n");
    for (int j = 0; j < n; j++)
        len += (size_t)snprintf(text + len, cap - len, "NodeName=h%d Speed=%g\n", j,
                                speeds[(int)(uniform(&seed) * 4)]);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            len += (size_t)snprintf(text + len, cap - len, "Link=h%d,h%d Latency=%g\n", a, b,
                                    lats[(int)(uniform(&seed) * 4)]);
}

static void row(const char *name, const skel_search_result *r, double per_base)
{
    printf("    %-22s %8lu %12.0f %9llu %12.0f %10.0f %8.3f %-5s %10.3g %9.0fx\n", name, r->states,
           r->total, r->evaluated, r->pruned, r->symmetric, r->seconds, r->optimal ? "yes" : "no",
           per_base * r->total, per_base * r->total / r->seconds);
}

static void header(void)
{
    printf("    %-22s %8s %12s %9s %12s %10s %8s %-5s %10s %10s\n", "case", "states", "placements",
           "solved", "cut", "symmetric", "seconds", "opt", "AMoGeT s", "ratio");
}

static int run_case(const char *name, const char *skel, const char *skel_file, skel_style style,
                    const char *plat, double budget, diag *err)
{
    job j;
    if (job_new(&j, skel, skel_file, style, plat, err) < 0) {
        job_free(&j);
        return -1;
    }
    skel_search_opts o = { 0 };
    o.top = 1;
    o.budget = budget;
    skel_search_result *r = skel_search(j.model, j.dag, j.plat, &o, err);
    if (!r) {
        job_free(&j);
        return -1;
    }
    double per = baseline_rate(&j, 20, err);
    if (per < 0) {
        skel_search_result_free(r);
        job_free(&j);
        return -1;
    }
    row(name, r, per);
    if (!r->optimal)
        printf("    %-22s budget ran out: best %.6g, unexplored at most %.6g (gap %.3g%%)\n", "",
               r->ranked[0].throughput, r->bound, 100 * r->gap);
    skel_search_result_free(r);
    job_free(&j);
    return 0;
}

static int bench_b(double budget, diag *err)
{
    char plat[16384];
    hetero_platform(plat, sizeof plat, 8, 2026);
    printf("(b) pipelines on 8 heterogeneous nodes (seed 2026), best placement\n");
    header();
    static const char *const pipes[] = {
        "pipe(6);\n\ttask(\"a\", 2.0);\n\ttask(\"b\", 1.0);\n\ttask(\"c\", 3.0);\n"
        "\ttask(\"d\", 1.5);\n\ttask(\"e\", 2.5);\n\ttask(\"f\", 1.0);\n",
        "pipe(8);\n\ttask(\"a\", 2.0);\n\ttask(\"b\", 1.0);\n\ttask(\"c\", 3.0);\n"
        "\ttask(\"d\", 1.5);\n\ttask(\"e\", 2.5);\n\ttask(\"f\", 1.0);\n\ttask(\"g\", 2.0);\n"
        "\ttask(\"h\", 4.0);\n",
    };
    if (run_case("6 stages, stream", pipes[0], NULL, SKEL_STYLE_STREAM, plat, budget, err) < 0 ||
        run_case("8 stages, stream", pipes[1], NULL, SKEL_STYLE_STREAM, plat, budget, err) < 0)
        return -1;
    printf("\n");
    return 0;
}

static int bench_c(double budget, diag *err)
{
    char plat[32768];
    size_t len = (size_t)snprintf(plat, sizeof plat,
                                  "LocalLatency=0.0001\nDefaultLatency=0.01\nInput=local\nOutput=local\n"
                                  "NodeName=slow[1-4] Speed=1\nNodeName=mid[1-4] Speed=2\n"
                                  "NodeName=fast[1-4] Speed=4\n");
    (void)len;
    /* model6.des itself has more than 2 million states in the producer
     * style: this is its first half (a task, a farm, a deal, a task). */
    static const char skel[] =
        "pipe(4);\n\ttask(\"src\", 1.0);\n\tfarm(3, \"w\", 3.0);\n\tdeal(2, \"d\", 2.0);\n"
        "\ttask(\"sink\", 1.0);\n";
    printf("(c) task, farm(3), deal(2), task (model6.des's first half) on 12 nodes in 3 speed "
           "classes (budget %g s)\n", budget);
    header();
    if (run_case("farm+deal, producer", skel, NULL, SKEL_STYLE_PRODUCER, plat, budget, err) < 0)
        return -1;
    printf("\n");
    return 0;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "all";
    double budget = argc > 2 ? atof(argv[2]) : 60;
    diag err;
    diag_clear(&err);
    int all = strcmp(which, "all") == 0;
    if (((all || strcmp(which, "a") == 0) && bench_a(&err) < 0) ||
        ((all || strcmp(which, "b") == 0) && bench_b(budget, &err) < 0) ||
        ((all || strcmp(which, "c") == 0) && bench_c(budget, &err) < 0)) {
        fprintf(stderr, "bench_map: %s\n", err.msg);
        return 1;
    }
    return 0;
}
