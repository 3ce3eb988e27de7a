/* bench_approx part "cov": the coverage of the estimate of last resort's
 * printed 95% half-width under its sequential stopping rule
 * (skeleton/approx_est.c ax_est_batches; docs/approximation.md "The
 * estimate's cost").
 *
 * The rule is fed a sampler of known rate 1 (tests/unit/estgen.c, the
 * one test_approx_est's coverage check feeds it): each run of n items
 * takes n + sqrt(n) cv Z seconds (Z standard normal, independent: per-item
 * coefficient of variation cv), and the half-width it prints at the look
 * where it stops is checked to hold 1, over `runs` seeded runs per cv
 * (as the review of 2026-11-27 measured the rule: 20,000 runs at cv 1.0,
 * 1.3 and 1.6). Printed per cv: the coverage, its binomial standard
 * error, the coverage of the runs that stopped before the cap, the mean
 * items counted; and, for the constant itself, how often every look's
 * interval (at AX_EST_CRIT standard errors) holds 1 at once, and the
 * constant for which that is 95% (the repeated confidence intervals'
 * defining property: then the look where any rule stops holds it at
 * least 95% of the time). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench_approx.h"
#include "skeleton/approx_int.h"
#include "tests/unit/estgen.h"

#define COV_LOOKS AX_EST_NLOOKS
#define COV_SUBS (AX_EST_ITEMS / AX_EST_SUB)

/* One run's largest |rate - 1| over its standard error at the looks,
 * drawn afresh from the same seed as its stopped run. */
static double cov_worst(uint64_t seed, double cv)
{
    estgen_run r = { seed, cv, 0, 0 };
    double dt[COV_SUBS], worst = 0;
    for (int m = 0; m < COV_SUBS; m++)
        dt[m] = estgen_pass(&r, AX_EST_SUB, 0);
    for (int k = 0; k < COV_LOOKS; k++) {
        double se, x = ax_est_look(dt, (int)(ax_est_looks[k] / AX_EST_SUB), AX_EST_SUB, &se);
        double z = fabs(x - 1) / se;
        worst = z > worst ? z : worst;
    }
    return worst;
}

static int cmp_double(const void *x, const void *y)
{
    double p = *(const double *)x, q = *(const double *)y;
    return (p > q) - (p < q);
}

/* One cv: its row; rho > 0: with a control of that correlation (cv is
 * then the time's, the residual's cv times sqrt(1 - rho^2)). */
static void cov_row(double cv, double rho, long runs, uint64_t base, double *worst)
{
    long hit = 0, early = 0, early_hit = 0, all = 0;
    double items_sum = 0;
    for (long k = 0; k < runs; k++) {
        uint64_t seed = 0x2545F4914F6CDD1DULL * (uint64_t)(k + 1 + base) + (uint64_t)(1000 * cv);
        estgen_run r = { seed, cv, rho, 0 };
        double half, w = 1, prev;
        long items;
        ax_est_cv ctl = { &r.z, &w, 1 };
        double x = ax_est_batches(estgen_pass, &r, rho > 0 ? &ctl : NULL, &prev, 0, &half, &items);
        int in = fabs(x - 1) <= half;
        hit += in;
        early += items < AX_EST_ITEMS;
        early_hit += items < AX_EST_ITEMS && in;
        items_sum += (double)items;
        worst[k] = rho > 0 ? 0 : cov_worst(seed, cv);
        all += worst[k] <= AX_EST_CRIT;
    }
    qsort(worst, (size_t)runs, sizeof *worst, cmp_double);
    double p = (double)hit / (double)runs;
    printf("%5.2f %4.2f %7ld %8.2f%% %6.2f %9.2f%% (%6ld) %9.0f %10.2f%% %9.3f\n", cv, rho, runs, 100 * p,
           100 * sqrt(p * (1 - p) / (double)runs), early ? 100.0 * early_hit / early : 0,
           early, items_sum / runs, 100.0 * all / runs, worst[(long)(0.95 * runs)]);
}

/* Part "cov": runs per cv (the review's 20,000 by default); base: the
 * seeds' offset (0: those that chose the constants; another value, fresh
 * seeds). The cvs span where the rule stops at each look: 1% at 2.8
 * standard errors is reached at the first look (5,000 items) below cv
 * 0.25, at the cap (100,000) below cv 1.13. */
int ba_coverage(long runs, long base)
{
    static const double cvs[] = { 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.65, 0.8, 1.0, 1.15, 1.3,
                                  1.6, 2.0 };
    double *worst = malloc((size_t)runs * sizeof *worst);
    if (!worst)
        return 1;
    printf("\nbench_approx: the estimate's printed 95%% half-width (%.3f standard errors) "
           "under its stopping rule, sampler of rate 1, %ld runs per per-item cv, seeds from %ld\n",
           AX_EST_CRIT, runs, base);
    printf("%5s %4s %7s %9s %6s %10s %8s %9s %11s %9s\n", "cv", "rho", "runs", "coverage", "se",
           "early-stop", "(runs)", "items", "all-looks", "c(95%)");
    for (size_t k = 0; k < sizeof cvs / sizeof cvs[0]; k++)
        cov_row(cvs[k], 0, runs, (uint64_t)base, worst);
    printf("with a control variate of correlation rho (%.3f standard errors; all-looks not "
           "measured)\n", AX_EST_CRIT_CV);
    for (size_t k = 0; k < sizeof cvs / sizeof cvs[0]; k++)
        cov_row(cvs[k] / sqrt(1 - 0.81), 0.9, runs, (uint64_t)base, worst);
    free(worst);
    return 0;
}
