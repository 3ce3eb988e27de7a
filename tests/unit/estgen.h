/* estgen: the synthetic sampler that test_approx_est (its coverage
 * check) and bench_approx's part "cov" (bench/bench_approx_cov.c) both
 * feed to the estimate's stopping rule (skeleton/approx_est.c
 * ax_est_batches), written once and free of Check, so that the suite
 * checks the sampler the bench measures. */
#ifndef SKELSCHED_TESTS_ESTGEN_H
#define SKELSCHED_TESTS_ESTGEN_H

#include <stdint.h>

/* A sampler of rate 1 whose runs of n items take n + sqrt(n) cv Z seconds
 * (Z standard normal, independent: per-item coefficient of variation cv);
 * with rho > 0 a control z of mean 0 whose change is correlated rho with
 * the time's. */
typedef struct estgen_run {
    uint64_t seed;    /* its stream (ax_uniform's state) */
    double cv, rho;   /* rho: the time's correlation with the control */
    double z;         /* the control's sum (mean 0) */
} estgen_run;

/* A standard normal from stream s (Box-Muller). */
double estgen_normal(uint64_t *s);

/* ax_est_batches' sampler on an estgen_run (ctx): the time after n more
 * items, from last. */
double estgen_pass(void *ctx, long n, double last);

#endif
