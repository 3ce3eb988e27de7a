/* bench_approx part (e), the estimate's pass (20 fresh seeds a case,
 * APPROX_EST_SEEDS=N another number): the estimate of last resort's
 * coverage on real models (docs/approximation.md "The estimate's cost").
 * bench_approx cov feeds the stopping rule independent
 * normal sub-batches; a model's sub-batches are correlated, its start
 * transient, its control fitted by a pilot. Here each case whose exact
 * chain is known is estimated afresh on N seeds (opts.est_seed 1..N, none
 * the default stream), and the printed 95% half-width is checked to hold
 * the exact throughput: a short warm-up, short batches or a wrong
 * standard error show as coverage below 95%, a transient as bias. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "bench/bench_approx.h"

static double rc_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void ba_est_seeds(ba_sample *sm, const skel_dag *d, skel_approx_opts ao, const double *mu,
                  const double *lambda, const int *ps_node, double x, int nseeds)
{
    ao.estimate = 1;
    for (int k = 1; k <= nseeds; k++) {
        diag err = { 0 };
        skel_approx_result ar;
        ao.est_seed = (unsigned long)k;
        double c0 = rc_cpu();
        skel_approx *a = skel_approx_new(d, &ao, &err);
        int ok = a && skel_approx_eval(a, mu, lambda, ps_node, &ar, &err) == 0 && ar.converged;
        sm->cov_cpu += rc_cpu() - c0;
        skel_approx_free(a);
        sm->cov_n++;
        if (!ok)
            continue;   /* counted, not held: a refusal is a miss */
        sm->cov_hit += fabs(ar.throughput - x) <= ar.half_width;
        sm->cov_items += (double)ar.items;
        sm->cov_bias += ar.throughput / x - 1;
    }
}

void ba_est_seeds_row(const char *name, const ba_sample *sm)
{
    double p = (double)sm->cov_hit / (double)sm->cov_n, n = (double)sm->cov_n;
    printf("%-8s the estimate on %ld fresh seeds (%d cases): 95%% half-width held the exact "
           "%.2f%% (se %.2f), mean error %+.3f%%, mean items %.0f, mean CPU ms %.2f (with "
           "the workspace; load-dependent)\n", name, sm->cov_n, sm->n, 100 * p,
           100 * sqrt(p * (1 - p) / n), 100 * sm->cov_bias / n, sm->cov_items / n,
           1e3 * sm->cov_cpu / n);
}
