/* pepa_solve_gmres: pi Q = 0 by restarted GMRES(m) with an ILU(0)
 * preconditioner.
 *
 * The system. We iterate on the singular system itself,
 *     A x = 0,   A = -Q^T,
 * from a positive x0, and normalise at the end (the "standard deflation"
 * of the one-dimensional null space by the normalisation, done after the
 * fact). For an irreducible chain A is a singular M-matrix of index one:
 * the Krylov corrections lie in range(A), which does not meet null(A), so
 * GMRES removes the range component of x0 and keeps its null component,
 * pi; x never collapses to 0. ILU(0) of a singular M-matrix has positive
 * pivots except a last one that would be 0 in exact LU; we set that one to
 * the state's exit rate.
 * Why not replace an equation: with pi_r = 1 in place of the balance of
 * state r, A stays an M-matrix, but its conditioning hinges on one state
 * and GMRES(30) stagnated at residuals of 1e-4 on a 100 x 100 grid chain
 * that the singular form solves in 150 iterations; a row of ones has
 * positive off-diagonal entries and a dense pattern, where ILU(0) may
 * break down.
 *
 * Right preconditioning (A M^-1 y = -A x0, x = x0 + M^-1 y) so that GMRES
 * minimises ||x Q||_2, which bounds ||x Q||_inf; modified Gram-Schmidt;
 * Givens rotations. At each restart the iterate is normalised and its
 * residual ||pi Q||_inf computed exactly: that, not GMRES's estimate,
 * decides convergence. */
#include "solve.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/clock.h"

#define GMRES_M 30          /* Krylov dimension between restarts */

/* ILU(0) factors of A on A's own pattern, diagonal included, rows sorted.
 * L (unit diagonal, not stored) is the part left of dg[i], U the rest. */
typedef struct ilu0 {
    uint32_t n;
    uint64_t *rowp;
    uint32_t *col;
    double *val;
    uint64_t *dg;       /* position of the diagonal in each row */
} ilu0;

static void ilu0_free(ilu0 *f)
{
    free(f->dg);
    free(f->val);
    free(f->col);
    free(f->rowp);
}

/* Copy A into f (inserting the diagonal), then factor in place, row by row
 * (Saad's IKJ ILU(0)): fill outside the pattern is dropped. */
static int ilu0_build(const pepa_ctmc *q, ilu0 *f, diag *err)
{
    uint32_t n = q->n;
    uint64_t nz = q->nnz + n;
    memset(f, 0, sizeof *f);
    f->n = n;
    f->rowp = malloc(((size_t)n + 1) * sizeof *f->rowp);
    f->col = malloc((size_t)nz * sizeof *f->col);
    f->val = malloc((size_t)nz * sizeof *f->val);
    f->dg = malloc((size_t)n * sizeof *f->dg);
    uint64_t *pos = malloc((size_t)n * sizeof *pos);   /* column -> position + 1 */
    if (!f->rowp || !f->col || !f->val || !f->dg || !pos) {
        free(pos);
        ilu0_free(f);
        return diag_set(err, "GMRES: out of memory for the ILU(0) factors (%llu entries)",
                        (unsigned long long)nz);
    }
    uint64_t p = 0;
    for (uint32_t i = 0; i < n; i++) {
        f->rowp[i] = p;
        int done = 0;
        for (uint64_t k = q->rowp[i]; k < q->rowp[i + 1]; k++) {
            if (!done && q->col[k] > i) {
                f->dg[i] = p;
                f->col[p] = i;
                f->val[p++] = q->out[i];
                done = 1;
            }
            f->col[p] = q->col[k];
            f->val[p++] = -q->val[k];
        }
        if (!done) {
            f->dg[i] = p;
            f->col[p] = i;
            f->val[p++] = q->out[i];
        }
    }
    f->rowp[n] = p;

    memset(pos, 0, (size_t)n * sizeof *pos);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t b = f->rowp[i], e = f->rowp[i + 1];
        for (uint64_t k = b; k < e; k++)
            pos[f->col[k]] = k + 1;
        for (uint64_t k = b; k < f->dg[i]; k++) {
            uint32_t c = f->col[k];
            double lik = f->val[k] / f->val[f->dg[c]];
            f->val[k] = lik;
            for (uint64_t t = f->dg[c] + 1; t < f->rowp[c + 1]; t++) {
                uint64_t at = pos[f->col[t]];
                if (at)
                    f->val[at - 1] -= lik * f->val[t];
            }
        }
        for (uint64_t k = b; k < e; k++)
            pos[f->col[k]] = 0;
        double d = f->val[f->dg[i]];
        if (i + 1 == n && !(d > 1e-12 * q->out[i]) && isfinite(d))
            d = f->val[f->dg[i]] = q->out[i];   /* the singular pivot */
        if (!(d > 0.0) || !isfinite(d)) {
            free(pos);
            ilu0_free(f);
            return diag_set(err, "GMRES: ILU(0) pivot %g at state %u (is the chain "
                            "irreducible?)", d, i);
        }
    }
    free(pos);
    return 0;
}

/* z = M^-1 v: forward with unit L, backward with U. z may be v. */
static void ilu0_apply(const ilu0 *f, const double *v, double *z)
{
    uint32_t n = f->n;
    for (uint32_t i = 0; i < n; i++) {
        double s = v[i];
        for (uint64_t k = f->rowp[i]; k < f->dg[i]; k++)
            s -= f->val[k] * z[f->col[k]];
        z[i] = s;
    }
    for (uint32_t i = n; i-- > 0;) {
        double s = z[i];
        for (uint64_t k = f->dg[i] + 1; k < f->rowp[i + 1]; k++)
            s -= f->val[k] * z[f->col[k]];
        z[i] = s / f->val[f->dg[i]];
    }
}

/* y = A x, A = -Q^T: y = -(x Q). */
static void a_mul(const pepa_ctmc *q, const double *x, double *y)
{
    for (uint32_t j = 0; j < q->n; j++) {
        double s = q->out[j] * x[j];
        for (uint64_t k = q->rowp[j]; k < q->rowp[j + 1]; k++)
            s -= q->val[k] * x[q->col[k]];
        y[j] = s;
    }
}

static double dot(uint32_t n, const double *a, const double *b)
{
    double s = 0.0;
    for (uint32_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* pi = max(x, 0) / sum; returns the residual of pi, or -1 if x has no
 * positive mass (then pi is untouched). */
static double gm_normalise(const pepa_ctmc *q, const double *x, double *pi)
{
    double s = 0.0;
    for (uint32_t i = 0; i < q->n; i++)
        s += x[i] > 0.0 ? x[i] : 0.0;
    if (!(s > 0.0) || !isfinite(s))
        return -1.0;
    for (uint32_t i = 0; i < q->n; i++)
        pi[i] = x[i] > 0.0 ? x[i] / s : 0.0;
    return pepa_ctmc_residual(q, pi);
}

typedef struct gm_work {
    double *x, *w, *v;              /* v: (m+1) vectors of n */
    double h[GMRES_M + 1][GMRES_M]; /* Hessenberg, by [row][column] */
    double cs[GMRES_M], sn[GMRES_M], g[GMRES_M + 1], y[GMRES_M];
} gm_work;

/* One GMRES(m) cycle from x. Updates x, *its; returns the final estimate
 * of ||b - A x||_2, or -1 on breakdown into NaN. */
static double gm_cycle(const pepa_ctmc *q, const ilu0 *f, gm_work *g,
                       double inner_tol, long *its, long max_it, double deadline)
{
    uint32_t n = q->n;
    double *x = g->x, *w = g->w;
    a_mul(q, x, w);
    for (uint32_t i = 0; i < n; i++)
        w[i] = -w[i];
    double beta = sqrt(dot(n, w, w));
    if (!isfinite(beta))
        return -1.0;
    if (beta == 0.0)
        return 0.0;
    for (uint32_t i = 0; i < n; i++)
        g->v[i] = w[i] / beta;
    memset(g->g, 0, sizeof g->g);
    g->g[0] = beta;
    int k = 0;
    double est = beta;
    while (k < GMRES_M && *its < max_it) {
        double *vk = g->v + (size_t)k * n, *vn = g->v + (size_t)(k + 1) * n;
        ilu0_apply(f, vk, vn);           /* vn as scratch for M^-1 v_k */
        a_mul(q, vn, w);
        for (int i = 0; i <= k; i++) {   /* modified Gram-Schmidt */
            double *vi = g->v + (size_t)i * n;
            double hik = dot(n, w, vi);
            g->h[i][k] = hik;
            for (uint32_t t = 0; t < n; t++)
                w[t] -= hik * vi[t];
        }
        double hn = sqrt(dot(n, w, w));
        g->h[k + 1][k] = hn;
        if (hn > 0.0)
            for (uint32_t t = 0; t < n; t++)
                vn[t] = w[t] / hn;
        for (int i = 0; i < k; i++) {    /* previous rotations */
            double a = g->h[i][k], b = g->h[i + 1][k];
            g->h[i][k] = g->cs[i] * a + g->sn[i] * b;
            g->h[i + 1][k] = -g->sn[i] * a + g->cs[i] * b;
        }
        double a = g->h[k][k], b = g->h[k + 1][k];
        double rho = hypot(a, b);
        if (!isfinite(rho))
            return -1.0;
        g->cs[k] = rho > 0.0 ? a / rho : 1.0;
        g->sn[k] = rho > 0.0 ? b / rho : 0.0;
        g->h[k][k] = rho;
        g->h[k + 1][k] = 0.0;
        g->g[k + 1] = -g->sn[k] * g->g[k];
        g->g[k] = g->cs[k] * g->g[k];
        est = fabs(g->g[k + 1]);
        k++;
        (*its)++;
        if (est <= inner_tol || hn == 0.0)
            break;
        if (deadline > 0.0 && clock_now() > deadline)
            break;
    }
    /* y = H^-1 g (upper triangular k x k), x += M^-1 (V y) */
    for (int i = k - 1; i >= 0; i--) {
        double s = g->g[i];
        for (int j = i + 1; j < k; j++)
            s -= g->h[i][j] * g->y[j];
        g->y[i] = g->h[i][i] != 0.0 ? s / g->h[i][i] : 0.0;
    }
    memset(w, 0, (size_t)n * sizeof *w);
    for (int i = 0; i < k; i++) {
        const double *vi = g->v + (size_t)i * n;
        for (uint32_t t = 0; t < n; t++)
            w[t] += g->y[i] * vi[t];
    }
    ilu0_apply(f, w, w);
    for (uint32_t t = 0; t < n; t++)
        x[t] += w[t];
    return est;
}

int pepa_solve_gmres(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
                     pepa_solve_result *res, diag *err)
{
    uint32_t n = q->n;
    res->iterations = 0;
    res->residual = INFINITY;
    res->converged = 0;
    int trivial = pepa_solve_trivial(q, opts, pi, res, err);
    if (trivial)
        return trivial < 0 ? -1 : 0;
    for (uint32_t j = 0; j < n; j++)
        if (!(q->out[j] > 0.0))
            return diag_set(err, "state %u has no outgoing transition (absorbing): "
                            "GMRES needs an irreducible chain", j);
    double s = 0.0;
    if (opts->warm) {
        for (uint32_t i = 0; i < n; i++) {
            if (!(pi[i] >= 0.0) || !isfinite(pi[i]))
                return diag_set(err, "warm start: pi[%u] = %g is not a probability", i, pi[i]);
            s += pi[i];
        }
        if (!(s > 0.0) || !isfinite(s))
            return diag_set(err, "warm start: the initial vector sums to %g", s);
    }

    ilu0 f;
    if (ilu0_build(q, &f, err))
        return -1;
    gm_work *g = calloc(1, sizeof *g);
    double *x = malloc((size_t)n * sizeof *x);
    double *w = malloc((size_t)n * sizeof *w);
    double *v = malloc((size_t)n * (GMRES_M + 1) * sizeof *v);
    int rc = 0;
    if (!g || !x || !w || !v) {
        rc = diag_set(err, "GMRES: out of memory for %d Krylov vectors of %u states",
                      GMRES_M + 1, n);
        goto done;
    }
    g->x = x;
    g->w = w;
    g->v = v;
    for (uint32_t i = 0; i < n; i++)
        x[i] = opts->warm ? pi[i] / s : 1.0 / n;

    double t0 = clock_now();
    double deadline = opts->time_limit > 0.0 ? t0 + opts->time_limit : 0.0;
    long its = 0;
    double resid = -1.0;
    /* GMRES's estimate is ||x Q||_2 >= ||x Q||_inf; x sums to about 1.
     * Tighten by what each restart's exact check shows. */
    double inner = 0.5 * opts->tol;
    for (;;) {
        double est = gm_cycle(q, &f, g, inner, &its, opts->max_iter, deadline);
        if (est < 0.0) {
            rc = diag_set(err, "GMRES broke down (not a finite number) after %ld iterations",
                          its);
            break;
        }
        resid = gm_normalise(q, x, pi);
        if (resid < 0.0) {
            rc = diag_set(err, "GMRES: the iterate has no positive entry after %ld "
                          "iterations", its);
            break;
        }
        if (resid <= opts->tol)
            break;
        if (isnan(resid)) {
            rc = diag_set(err, "GMRES diverged (not a finite number) after %ld iterations", its);
            break;
        }
        if (its >= opts->max_iter) {
            rc = diag_set(err, "GMRES did not converge in %ld iterations: residual %.3g > "
                          "tolerance %.3g", its, resid, opts->tol);
            break;
        }
        if (deadline > 0.0 && clock_now() > deadline) {
            rc = diag_set(err, "GMRES: time limit %g s reached after %ld iterations, "
                          "residual %.3g > tolerance %.3g", opts->time_limit, its, resid,
                          opts->tol);
            break;
        }
        if (est > 0.0 && est <= inner)     /* estimate was optimistic: tighten */
            inner = est * 0.5 * opts->tol / resid;
    }
    res->iterations = its;
    if (resid >= 0.0) {
        res->residual = resid;
        res->converged = resid <= opts->tol;
    }
done:
    free(v);
    free(w);
    free(x);
    free(g);
    ilu0_free(&f);
    return rc;
}
