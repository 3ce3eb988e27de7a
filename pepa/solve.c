/* pepa_solve: option defaults, method names, and the choice of a method.
 * The numerical work is in solve_direct.c, solve_gs.c and solve_gmres.c. */
#include "solve.h"
#include "internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/clock.h"

static const char *const method_names[] = {
    [PEPA_METHOD_AUTO] = "auto",
    [PEPA_METHOD_DIRECT] = "direct",
    [PEPA_METHOD_GS] = "gs",
    [PEPA_METHOD_SOR] = "sor",
    [PEPA_METHOD_GMRES] = "gmres",
};

static const char *const decision_names[] = {
    [PEPA_DECIDE_ASKED] = "asked",
    [PEPA_DECIDE_DIRECT] = "direct",
    [PEPA_DECIDE_SIZE] = "size",
    [PEPA_DECIDE_WARM] = "warm",
    [PEPA_DECIDE_TIMED] = "time-limit",
    [PEPA_DECIDE_PROBE] = "probe",
    [PEPA_DECIDE_FAR] = "far",
    [PEPA_DECIDE_ANALYSIS] = "analysis",
    [PEPA_DECIDE_INACCURATE] = "inaccurate",
    [PEPA_DECIDE_FAILED] = "failed",
};

const char *pepa_decision_name(pepa_decision d)
{
    if ((unsigned)d < sizeof decision_names / sizeof decision_names[0])
        return decision_names[d];
    return "unknown";
}

void pepa_solve_opts_init(pepa_solve_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->method = PEPA_METHOD_AUTO;
    opts->tol = PEPA_DEFAULT_TOL;
    opts->max_iter = 100000;
    opts->omega = 1.0;
}

const char *pepa_method_name(pepa_method m)
{
    if ((unsigned)m < sizeof method_names / sizeof method_names[0])
        return method_names[m];
    return "unknown";
}

int pepa_method_parse(const char *name, pepa_method *m)
{
    if (!name)
        return -1;
    for (unsigned i = 0; i < sizeof method_names / sizeof method_names[0]; i++)
        if (strcmp(name, method_names[i]) == 0) {
            *m = (pepa_method)i;
            return 0;
        }
    return -1;
}

int pepa_solve_trivial(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
                       pepa_solve_result *res, diag *err)
{
    if (q->n == 0)
        return diag_set(err, "the chain has no states");
    if (q->n > 1)
        return 0;
    pi[0] = 1.0;
    if (opts->error)
        opts->error[0] = 0.0;
    res->residual = 0.0;
    res->converged = 1;
    return 1;
}

static int direct_allowed(const pepa_ctmc *q)
{
#ifdef HAVE_UMFPACK
    return q->n <= PEPA_AUTO_DIRECT_STATES && q->nnz <= PEPA_AUTO_DIRECT_NNZ;
#else
    (void)q;
    return 0;
#endif
}

pepa_method pepa_solve_choose(const pepa_ctmc *q)
{
    return direct_allowed(q) ? PEPA_METHOD_DIRECT : PEPA_METHOD_GS;
}

/* AUTO, iterative part: Gauss-Seidel, then GMRES from its iterate. The
 * messages of abandoned attempts are dropped; the budget (max_iter,
 * time_limit) is shared by the attempts. */
static int solve_iterative(const pepa_ctmc *q, const pepa_solve_opts *o, double *pi,
                           pepa_solve_result *res, diag *err, double t0)
{
    pepa_solve_opts g = *o;
    g.method = PEPA_METHOD_GS;
    if (g.max_iter > PEPA_AUTO_GS_SWEEPS)
        g.max_iter = PEPA_AUTO_GS_SWEEPS;
    res->method = PEPA_METHOD_GS;
    diag last;
    diag_clear(&last);
    int rc = pepa_solve_gs(q, &g, pi, res, &last);
    int soft = rc != 0 && res->iterations >= g.max_iter && isfinite(res->residual);
    if (rc == 0 || !soft)               /* done, or an error no method avoids */
        return rc == 0 ? 0 : diag_set(err, "%s", last.msg);
    long its = res->iterations;
    double left = o->time_limit > 0.0 ? o->time_limit - (clock_now() - t0) : 0.0;
    if (its >= o->max_iter || (o->time_limit > 0.0 && left <= 0.0))
        return diag_set(err, "%s", last.msg);
    pepa_solve_opts k = *o;
    k.method = PEPA_METHOD_GMRES;
    k.warm = 1;
    k.max_iter = o->max_iter - its;
    k.time_limit = left;
    res->method = PEPA_METHOD_GMRES;
    rc = pepa_solve_gmres(q, &k, pi, res, err);
    res->iterations += its;
    return rc;
}

/* Is pi a usable initial guess (non-negative, positive sum)? */
static int check_warm(uint32_t n, const double *pi)
{
    double sum = 0.0;
    for (uint32_t j = 0; j < n; j++) {
        if (!(pi[j] >= 0.0) || !isfinite(pi[j]))
            return 0;
        sum += pi[j];
    }
    return sum > 0.0;
}

/* AUTO's probe (pepa_solve_probe) against its caps: 1 when it refuses
 * the LU, the sub-chain that decided in res. */
static int probe_over(const pepa_ctmc *q, pepa_solve_result *res)
{
    double bytes, flops;
    return pepa_solve_probe(q, PEPA_AUTO_DIRECT_BYTES, PEPA_AUTO_DIRECT_FLOPS,
                            &res->probe_states, &bytes, &flops);
}

/* AUTO: see the rule in solve.h. */
static int solve_auto(const pepa_ctmc *q, const pepa_solve_opts *o, double *pi,
                      pepa_solve_result *res, diag *err, double t0)
{
    /* Under a time limit (the placement search inside the Slurm plugin),
     * nothing that cannot be stopped, beyond chains whose factorisation
     * costs milliseconds: UMFPACK's symbolic analysis alone took 0.7 s of
     * CPU, three quarters of a decision, on a 26,244-state chain, and the
     * iterations check the clock. */
    int timed = o->time_limit > 0.0 && q->n > PEPA_AUTO_TIMED_DIRECT_STATES;
    res->decision = !direct_allowed(q) ? PEPA_DECIDE_SIZE
                    : o->warm          ? PEPA_DECIDE_WARM
                    : timed            ? PEPA_DECIDE_TIMED
                    : !o->no_probe && probe_over(q, res) ? PEPA_DECIDE_PROBE
                                                         : PEPA_DECIDE_DIRECT;
    if (res->decision != PEPA_DECIDE_DIRECT)
        return solve_iterative(q, o, pi, res, err, t0);
    diag dd;
    diag_clear(&dd);
    int rd = pepa_solve_direct_capped(q, o, PEPA_AUTO_DIRECT_BYTES, PEPA_AUTO_DIRECT_FLOPS, pi,
                                      res, &dd);
    res->method = PEPA_METHOD_DIRECT;
    if (rd == 0) {
        res->decision = PEPA_DECIDE_DIRECT;
        return 0;
    }
    /* refused as too costly (the decision says so), short of the
     * tolerance (stiff rates: an answer with a finite residual), or failed
     * without an answer: iterate, from the LU's answer when there is one */
    int answered = rd < 0 && isfinite(res->residual);
    if (rd < 0)
        res->decision = answered ? PEPA_DECIDE_INACCURATE : PEPA_DECIDE_FAILED;
    pepa_solve_opts w = *o;
    w.warm = answered && check_warm(q->n, pi);
    res->iterations = 0;
    return solve_iterative(q, &w, pi, res, err, t0);
}

/* The smallest and largest rate of the chain, for messages. */
static void rate_range(const pepa_ctmc *q, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = 0.0;
    for (uint64_t k = 0; k < q->nnz; k++) {
        *lo = q->val[k] < *lo ? q->val[k] : *lo;
        *hi = q->val[k] > *hi ? q->val[k] : *hi;
    }
}

/* A state of the solved (irreducible) chain with probability 0 though
 * probability flows into it, at a rate whose balance inflow / exit rate
 * is below double range: its true probability cannot be represented, and
 * the throughput of its activities (pi times a huge rate, 1e-616 * 1e308)
 * would print as 0 beside its neighbours' 1e-308. (An iterative answer
 * also has exact zeros, negatives clipped at the tolerance; their balance
 * is representable.) Returns the state, or UINT32_MAX when there is none. */
static uint32_t underflowed_state(const pepa_ctmc *q, const double *pi)
{
    for (uint32_t j = 0; j < q->n; j++) {
        if (pi[j] != 0.0)
            continue;
        double in = 0.0;
        for (uint64_t k = q->rowp[j]; k < q->rowp[j + 1]; k++)
            in += pi[q->col[k]] * q->val[k];
        if (in > 0.0 && in / q->out[j] < DBL_MIN)
            return j;
    }
    return UINT32_MAX;
}

/* A converged solution must still be a probability vector, every state of
 * it representable. Rates many hundred orders of magnitude apart (1e308
 * next to 1e-308) underflow in any method: an iterate collapses to zeros
 * whose residual is 0, or a state's probability to 0 in an LU. */
static int check_distribution(const pepa_ctmc *q, const double *pi, diag *err)
{
    double sum = 0.0, lo, hi;
    for (uint32_t j = 0; j < q->n; j++) {
        if (!isfinite(pi[j]) || pi[j] < -1e-9)
            return diag_set(err, "the steady-state solution is not a probability vector "
                                 "(state %u has %g): the model's rates are beyond double precision", j, pi[j]);
        sum += pi[j];
    }
    uint32_t z = fabs(sum - 1.0) > 1e-6 ? UINT32_MAX : underflowed_state(q, pi);
    if (fabs(sum - 1.0) <= 1e-6 && z == UINT32_MAX)
        return 0;
    rate_range(q, &lo, &hi);     /* only for the message: a pass over every rate */
    if (z == UINT32_MAX)
        return diag_set(err, "the steady-state solution sums to %g, not 1: rates from %g to %g are too far "
                             "apart for double precision", sum, lo, hi);
    return diag_set(err, "the probability of state %u underflows to 0 though it is reached: rates from "
                         "%g to %g are too far apart for double precision", z, lo, hi);
}

static int dispatch(const pepa_ctmc *q, const pepa_solve_opts *o, double *pi,
                    pepa_solve_result *res, diag *err, double t0)
{
    switch (o->method) {
    case PEPA_METHOD_AUTO:
        return solve_auto(q, o, pi, res, err, t0);
    case PEPA_METHOD_DIRECT:
        return pepa_solve_direct(q, o, pi, res, err);
    case PEPA_METHOD_GS:
    case PEPA_METHOD_SOR:
        return pepa_solve_gs(q, o, pi, res, err);
    case PEPA_METHOD_GMRES:
        return pepa_solve_gmres(q, o, pi, res, err);
    default:
        return diag_set(err, "unknown steady-state method %d", (int)o->method);
    }
}

/* The second convergence of an iterative answer (see "Error estimate" in
 * solve.h), to PEPA_ERROR_TOL_FACTOR * tol but not below the round-off
 * floor of the residual, about eps * the largest exit rate. o->error holds
 * the first answer meanwhile. A second run that does not do better leaves
 * the first answer, and the difference still says how far off it is. */
static void refine_iterative(const pepa_ctmc *q, const pepa_solve_opts *o, double *pi,
                             pepa_solve_result *res, double t0)
{
    double maxout = pepa_ctmc_max_exit(q);
    pepa_solve_opts f = *o;
    f.method = res->method;
    f.warm = 1;
    f.error = NULL;
    f.tol = fmax(o->tol * PEPA_ERROR_TOL_FACTOR, PEPA_ROUNDOFF_FACTOR * DBL_EPSILON * maxout);
    f.max_iter = o->max_iter > res->iterations ? o->max_iter - res->iterations : 1;
    f.time_limit = o->time_limit > 0.0 ? fmax(o->time_limit - (clock_now() - t0), 1e-3) : 0.0;
    memcpy(o->error, pi, (size_t)q->n * sizeof *pi);
    pepa_solve_result r2 = { 0 };
    diag tmp;
    diag_clear(&tmp);
    dispatch(q, &f, pi, &r2, &tmp, t0);
    res->iterations += r2.iterations;
    int better = isfinite(r2.residual) && r2.residual <= res->residual && check_warm(q->n, pi);
    if (better)
        res->residual = r2.residual;
    for (uint32_t j = 0; j < q->n; j++) {
        double first = o->error[j];
        o->error[j] = isfinite(pi[j]) ? fabs(first - pi[j]) : res->residual / q->out[j];
        if (!better)
            pi[j] = first;
    }
}

static int solve_whole(const pepa_ctmc *q, const pepa_solve_opts *o, double *pi,
                       pepa_solve_result *res, diag *err)
{
    double t0 = clock_now();
    int rc = dispatch(q, o, pi, res, err, t0);
    if (rc == 0 && !res->converged)     /* a method must not claim success */
        rc = diag_set(err, "%s: residual %.3g above tolerance %.3g",
                      pepa_method_name(res->method), res->residual, o->tol);
    if (rc == 0 && o->error && res->method != PEPA_METHOD_DIRECT)
        refine_iterative(q, o, pi, res, t0);
    res->seconds = clock_now() - t0;
    if (rc == 0)
        rc = check_distribution(q, pi, err);
    return rc;
}

/* The chain of the closed class alone (see "Transient states" in solve.h),
 * its answer spread back with zeros. */
static int solve_closed(const pepa_ctmc *q, const pepa_solve_opts *o, uint32_t kept, double *pi,
                        pepa_solve_result *res, diag *err)
{
    uint32_t n = q->n;
    uint32_t *map = malloc((size_t)n * sizeof *map);
    double *spi = malloc((size_t)kept * sizeof *spi);
    double *serr = o->error ? malloc((size_t)kept * sizeof *serr) : NULL;
    pepa_ctmc *sub = map && spi && (serr || !o->error) ? pepa_ctmc_sub(q, o->recurrent, map) : NULL;
    int rc = -1;
    if (!sub) {
        diag_set(err, "out of memory extracting the closed class (%u of %u states)", kept, n);
        goto done;
    }
    pepa_solve_opts so = *o;
    so.recurrent = NULL;
    so.error = serr;
    for (uint32_t j = 0; so.warm && j < n; j++)
        if (map[j] != UINT32_MAX)
            spi[map[j]] = pi[j];
    so.warm = so.warm && check_warm(kept, spi);
    rc = solve_whole(sub, &so, spi, res, err);
    for (uint32_t j = 0; j < n; j++) {
        pi[j] = map[j] != UINT32_MAX ? spi[map[j]] : 0.0;
        if (o->error)
            o->error[j] = map[j] != UINT32_MAX ? serr[map[j]] : 0.0;
    }
done:
    pepa_ctmc_free(sub);
    free(serr);
    free(spi);
    free(map);
    return rc;
}

static int check_opts(const pepa_ctmc *q, const pepa_solve_opts *o, diag *err)
{
    if (!(o->tol > 0.0) || !isfinite(o->tol))
        return diag_set(err, "solver tolerance %g is not a positive number", o->tol);
    if (o->max_iter < 0)
        return diag_set(err, "solver iteration limit %ld is negative", o->max_iter);
    if (!(o->time_limit >= 0.0))
        return diag_set(err, "solver time limit %g is negative", o->time_limit);
    if (o->threads < 0)
        return diag_set(err, "solver thread count %d is negative", o->threads);
    if (o->lu_threads < 0)
        return diag_set(err, "LU thread count %d is negative", o->lu_threads);
    if (q->n == 0)
        return diag_set(err, "the chain has no states");
    return 0;
}

/* The residual ||pi Q|| is in rates, so a fixed tolerance means nothing
 * once the time unit changes: with every rate 1e-40 times smaller, any
 * vector meets 1e-12 at once, a silent wrong answer. So the tolerance
 * shrinks with the largest exit rate when that is below 1. (Rates far
 * above 1 meet the round-off floor instead: see the direct method's
 * acceptance, solve_direct.c.) */
static double scaled_tol(const pepa_ctmc *q, double tol)
{
    double maxout = pepa_ctmc_max_exit(q);
    return maxout > 0.0 && maxout < 1.0 ? tol * maxout : tol;
}

int pepa_solve(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
               pepa_solve_result *res, diag *err)
{
    pepa_solve_opts o;
    if (opts)
        o = *opts;
    else
        pepa_solve_opts_init(&o);
    if (o.tol == 0.0)
        o.tol = PEPA_DEFAULT_TOL;
    if (o.max_iter == 0)
        o.max_iter = 100000;
    if (o.omega == 0.0)
        o.omega = 1.0;
    memset(res, 0, sizeof *res);
    res->residual = INFINITY;
    res->method = o.method == PEPA_METHOD_AUTO ? pepa_solve_choose(q) : o.method;
    if (check_opts(q, &o, err) < 0)
        return -1;
    o.tol = scaled_tol(q, o.tol);
    uint32_t kept = q->n;
    if (o.recurrent) {
        kept = 0;
        for (uint32_t j = 0; j < q->n; j++)
            kept += o.recurrent[j] != 0;
        if (kept == 0)
            return diag_set(err, "no state is marked recurrent");
    }
    if (kept < q->n)
        return solve_closed(q, &o, kept, pi, res, err);
    return solve_whole(q, &o, pi, res, err);
}
