/* bench_decide: AUTO's decision with pepa_solve_probe against the same
 * decision without it (opts.no_probe: the library as it was), on the
 * chains bench_solve builds for its direct table, a 15-dimensional
 * hypercube walk (32,768 states: a product of 15 two-state components,
 * like RKIP_MEK.pepa's 13 arrays), a 110^2 grid walk (12,100 states,
 * factorised: what the probe costs where the LU is right), seven workers
 * of five one-way steps joined by a barrier (78,125 states, pattern
 * symmetry 0: UMFPACK's unsymmetric strategy, where the probe does not
 * look; before it did, and refused an LU UMFPACK does in 0.2 s), and any
 * PEPA files named on the command line (the generated chains are
 * tests/unit/chaingen.h's, the unit suites' own). The "sym" column is the pattern
 * symmetry (pepa_solve_pattern_symmetry). */
#define _DEFAULT_SOURCE         /* getloadavg */
#include "bench/bench_decide.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "pepa/parse.h"
#include "pepa/solve.h"
#include "pepa/space.h"
#include "pepa/system.h"
#include "tests/unit/chaingen.h"

#define DECIDE_RUNS 3

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

pepa_ctmc *bench_file_chain(const char *path)
{
    diag err;
    diag_clear(&err);
    pepa_model *m = pepa_parse_file(path, &err);
    pepa_system *s = m ? pepa_system_new(m, &err) : NULL;
    pepa_space *sp = s ? pepa_derive(s, NULL, &err) : NULL;
    pepa_ctmc *q = sp ? sp->q : NULL;   /* taken over */
    if (sp)
        sp->q = NULL;
    if (!q)
        printf("  (%s: %s)\n", path, err.set ? err.msg : "out of memory");
    pepa_space_free(sp);
    pepa_system_free(s);
    pepa_model_free(m);
    return q;
}

/* One AUTO solve to 1e-12 (no_probe: as before the probe); CPU and wall
 * seconds added to cpu[k], wall[k]. Returns 0 or -1 (printed). */
static int auto_once(const pepa_ctmc *q, int no_probe, double *pi, pepa_solve_result *r,
                     double *cpu, double *wall)
{
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    o.tol = 1e-12;
    o.no_probe = no_probe;
    diag e;
    diag_clear(&e);
    double c0 = cpu_seconds(), w0 = clock_now();
    int rc = pepa_solve(q, &o, pi, r, &e);
    *cpu = cpu_seconds() - c0;
    *wall = clock_now() - w0;
    if (rc)
        printf("  (auto%s: %s)\n", no_probe ? " without the probe" : "", e.msg);
    return rc;
}

static double median3(const double *x)
{
    double a = x[0], b = x[1], c = x[2];
    return fmax(fmin(a, b), fmin(fmax(a, b), c));
}

static double max_diff(uint32_t n, const double *a, const double *b)
{
    double d = 0.0;
    for (uint32_t i = 0; i < n; i++)
        d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

/* One row: before (no probe) and with the probe, alternated. */
static void decide_row(const char *name, const pepa_ctmc *q)
{
    double *a = malloc(q->n * sizeof *a), *b = malloc(q->n * sizeof *b);
    double c[2][DECIDE_RUNS], w[2][DECIDE_RUNS];
    pepa_solve_result r[2];
    int rc = !a || !b;
    for (int k = 0; k < DECIDE_RUNS && !rc; k++)
        rc = auto_once(q, 1, a, &r[0], &c[0][k], &w[0][k])
             || auto_once(q, 0, b, &r[1], &c[1][k], &w[1][k]);
    if (!rc) {
        double c0 = median3(c[0]), c1 = median3(c[1]), w0 = median3(w[0]), w1 = median3(w[1]);
        printf("%-18s %7u %8llu %5.3f %-9s %-6s %3d %7.3f %7.3f %-9s %-6s %3d %7u %7.3f %7.3f "
               "%6.2fx %6.2fx %9.1e\n", name, q->n, (unsigned long long)q->nnz,
               pepa_solve_pattern_symmetry(q),
               pepa_decision_name(r[0].decision), pepa_method_name(r[0].method), r[0].orderings,
               c0, w0, pepa_decision_name(r[1].decision), pepa_method_name(r[1].method),
               r[1].orderings, r[1].probe_states, c1, w1, c0 / c1, w0 / w1,
               max_diff(q->n, a, b));
    }
    free(b);
    free(a);
}

static void print_load(const char *when)
{
    double load;
    if (getloadavg(&load, 1) == 1)
        printf("(load %s: %.1f)\n", when, load);
}

void decide_table(pepa_ctmc *const *qs, const char *const *names, int nq, char *const *files,
                  int nfiles)
{
    print_load("before");
    printf("\n%-18s %7s %8s %5s %-9s %-6s %3s %7s %7s %-9s %-6s %3s %7s %7s %7s %7s %7s %9s\n",
           "chain", "states", "nnz", "sym", "before", "method", "ord", "cpu", "wall", "probe",
           "method", "ord", "ball", "cpu", "wall", "cpu x", "wall x", "|diff|");
    /* the 110^2 grid's rates span 1.1^110 in probability: well conditioned */
    pepa_ctmc *own[3] = {chaingen_cube(15), chaingen_grid(110, 2, 1.1, 1.0, 0.1),
                         chaingen_barrier(7, 5)};
    static const char *const own_names[] = {"15-cube walk", "grid 110^2", "barrier 7x5"};
    for (int k = 0; k < 3; k++)
        if (own[k])
            decide_row(own_names[k], own[k]);
    for (int k = 0; k < nq; k++)
        if (qs[k])
            decide_row(names[k], qs[k]);
    for (int k = 0; k < nfiles; k++) {
        pepa_ctmc *q = bench_file_chain(files[k]);
        if (q) {
            const char *slash = strrchr(files[k], '/');
            decide_row(slash ? slash + 1 : files[k], q);
        }
        pepa_ctmc_free(q);
    }
    for (int k = 0; k < 3; k++)
        pepa_ctmc_free(own[k]);
    print_load("after");
}
