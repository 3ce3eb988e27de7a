/* pepa_solve: option defaults, method names, and the choice of a method.
 * The numerical work is in solve_direct.c, solve_gs.c and solve_gmres.c. */
#include "solve.h"

#include <math.h>
#include <string.h>

#include "../base/clock.h"

static const char *const method_names[] = {
    [PEPA_METHOD_AUTO] = "auto",
    [PEPA_METHOD_DIRECT] = "direct",
    [PEPA_METHOD_GS] = "gs",
    [PEPA_METHOD_SOR] = "sor",
    [PEPA_METHOD_GMRES] = "gmres",
};

void pepa_solve_opts_init(pepa_solve_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->method = PEPA_METHOD_AUTO;
    opts->tol = 1e-10;
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

pepa_method pepa_solve_choose(const pepa_ctmc *q)
{
    (void)q;
    return PEPA_METHOD_GS;
}

static int direct_allowed(const pepa_ctmc *q)
{
#ifdef HAVE_UMFPACK
    return q->n <= PEPA_DIRECT_MAX_STATES && q->nnz <= PEPA_DIRECT_MAX_NNZ;
#else
    (void)q;
    return 0;
#endif
}

/* AUTO: see the rule in solve.h. The messages of abandoned attempts are
 * dropped; the budget (max_iter, time_limit) is shared by the attempts. */
static int solve_auto(const pepa_ctmc *q, const pepa_solve_opts *o, double *pi,
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
    if (rc == 0 || !soft) {             /* done, or an error no method avoids */
        if (rc != 0)
            diag_set(err, "%s", last.msg);
        return rc;
    }
    long its = res->iterations;

    /* GMRES from the Gauss-Seidel iterate */
    double left = o->time_limit > 0.0 ? o->time_limit - (clock_now() - t0) : 0.0;
    if (its < o->max_iter && (o->time_limit == 0.0 || left > 0.0)) {
        pepa_solve_opts k = *o;
        k.method = PEPA_METHOD_GMRES;
        k.warm = 1;
        k.max_iter = o->max_iter - its;
        if (k.max_iter > PEPA_AUTO_GMRES_ITERS && direct_allowed(q))
            k.max_iter = PEPA_AUTO_GMRES_ITERS;     /* keep some for the LU */
        k.time_limit = left;
        res->method = PEPA_METHOD_GMRES;
        diag_clear(&last);
        rc = pepa_solve_gmres(q, &k, pi, res, &last);
        res->iterations += its;
        if (rc == 0)
            return 0;
    }

    /* last resort for small chains: the LU, if affordable */
    left = o->time_limit > 0.0 ? o->time_limit - (clock_now() - t0) : 0.0;
    if (direct_allowed(q) && (o->time_limit == 0.0 || left > 0.0)) {
        pepa_solve_result d;
        memset(&d, 0, sizeof d);
        diag dd;
        diag_clear(&dd);
        int rd = pepa_solve_direct_capped(q, o, PEPA_AUTO_DIRECT_BYTES, PEPA_AUTO_DIRECT_FLOPS,
                                          pi, &d, &dd);
        if (rd == 0) {
            *res = d;
            res->method = PEPA_METHOD_DIRECT;
            return 0;
        }
        /* refused or failed: report the iterative attempt, pi untouched
         * unless UMFPACK ran */
        if (rd < 0) {
            *res = d;
            res->method = PEPA_METHOD_DIRECT;
            return diag_set(err, "%s", dd.msg);
        }
    }
    return diag_set(err, "%s", last.msg);
}

/* A converged solution must still be a probability vector. Rates many
 * hundred orders of magnitude apart (1e308 next to 1e-308) underflow in
 * any method: the iterate collapses to zeros whose residual is 0. */
static int check_distribution(const pepa_ctmc *q, const double *pi, diag *err)
{
    double sum = 0.0, lo = INFINITY, hi = 0.0;
    for (uint32_t j = 0; j < q->n; j++) {
        if (!isfinite(pi[j]) || pi[j] < -1e-9)
            return diag_set(err, "the steady-state solution is not a probability vector "
                                 "(state %u has %g): the model's rates are beyond double precision", j, pi[j]);
        sum += pi[j];
    }
    if (fabs(sum - 1.0) <= 1e-6)
        return 0;
    for (uint64_t k = 0; k < q->nnz; k++) {
        lo = q->val[k] < lo ? q->val[k] : lo;
        hi = q->val[k] > hi ? q->val[k] : hi;
    }
    return diag_set(err, "the steady-state solution sums to %g, not 1: rates from %g to %g are too far "
                         "apart for double precision", sum, lo, hi);
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
        o.tol = 1e-10;
    if (o.max_iter == 0)
        o.max_iter = 100000;
    if (o.omega == 0.0)
        o.omega = 1.0;

    memset(res, 0, sizeof *res);
    res->residual = INFINITY;
    res->method = o.method == PEPA_METHOD_AUTO ? pepa_solve_choose(q) : o.method;
    if (!(o.tol > 0.0) || !isfinite(o.tol))
        return diag_set(err, "solver tolerance %g is not a positive number", o.tol);
    if (o.max_iter < 0)
        return diag_set(err, "solver iteration limit %ld is negative", o.max_iter);
    if (!(o.time_limit >= 0.0))
        return diag_set(err, "solver time limit %g is negative", o.time_limit);
    if (o.threads < 0)
        return diag_set(err, "solver thread count %d is negative", o.threads);
    if (q->n == 0)
        return diag_set(err, "the chain has no states");

    double t0 = clock_now();
    int rc;
    switch (o.method) {
    case PEPA_METHOD_AUTO:
        rc = solve_auto(q, &o, pi, res, err, t0);
        break;
    case PEPA_METHOD_DIRECT:
        rc = pepa_solve_direct(q, &o, pi, res, err);
        break;
    case PEPA_METHOD_GS:
    case PEPA_METHOD_SOR:
        rc = pepa_solve_gs(q, &o, pi, res, err);
        break;
    case PEPA_METHOD_GMRES:
        rc = pepa_solve_gmres(q, &o, pi, res, err);
        break;
    default:
        rc = diag_set(err, "unknown steady-state method %d", (int)o.method);
        break;
    }
    res->seconds = clock_now() - t0;
    if (rc == 0 && !res->converged)     /* a method must not claim success */
        rc = diag_set(err, "%s: residual %.3g above tolerance %.3g",
                      pepa_method_name(res->method), res->residual, o.tol);
    if (rc == 0)
        rc = check_distribution(q, pi, err);
    return rc;
}
