/* pepa_solve_direct: pi Q = 0, sum pi = 1 by sparse LU (SuiteSparse UMFPACK).
 *
 * The n balance equations Q^T pi = 0 of an irreducible chain have rank
 * n - 1: one of them is redundant, so it is replaced by the normalisation
 * sum pi = 1 and the system A pi = e_r becomes nonsingular. The replaced
 * equation r is the one of the state with the largest exit rate: it is the
 * row of Q^T with the largest entries, the one most exposed to cancellation
 * in stiff chains (rates many orders of magnitude apart), and the ones put
 * in its place are well scaled against UMFPACK's row scaling.
 *
 * Our arrays hold Q^T by rows, which read by columns is Q itself; so we
 * build M = A^T (Q with column r replaced by ones, diagonal added) by
 * columns without a transpose and ask UMFPACK for M^T pi = e_r. */
#include "solve.h"

#include <math.h>
#include <stdlib.h>

#ifdef HAVE_UMFPACK
#include <suitesparse/umfpack.h>

static const char *umf_status(double status)
{
    switch ((int)status) {
    case UMFPACK_OK:
        return "ok";
    case UMFPACK_WARNING_singular_matrix:
        return "the matrix is singular (is the chain irreducible?)";
    case UMFPACK_ERROR_out_of_memory:
        return "out of memory";
    case UMFPACK_ERROR_invalid_matrix:
        return "invalid matrix";
    case UMFPACK_ERROR_n_nonpositive:
        return "empty matrix";
    case UMFPACK_ERROR_ordering_failed:
        return "fill-reducing ordering failed";
    default:
        return "internal error";
    }
}

/* Build M in compressed columns. Returns 0, or -1 when out of memory. */
static int build_m(const pepa_ctmc *q, uint32_t r, SuiteSparse_long **pp, SuiteSparse_long **pi,
                   double **px)
{
    uint32_t n = q->n;
    size_t nz = (size_t)q->nnz - (size_t)(q->rowp[r + 1] - q->rowp[r]) + 2 * (size_t)n;
    SuiteSparse_long *Ap = malloc(((size_t)n + 1) * sizeof *Ap);
    SuiteSparse_long *Ai = malloc(nz * sizeof *Ai);
    double *Ax = malloc(nz * sizeof *Ax);
    if (!Ap || !Ai || !Ax) {
        free(Ax);
        free(Ai);
        free(Ap);
        return -1;
    }
    SuiteSparse_long p = 0;
    for (uint32_t j = 0; j < n; j++) {
        Ap[j] = p;
        if (j == r) {                       /* the normalisation */
            for (uint32_t i = 0; i < n; i++) {
                Ai[p] = i;
                Ax[p++] = 1.0;
            }
            continue;
        }
        int diag_done = 0;                  /* insert Q(j,j) in row order */
        for (uint64_t k = q->rowp[j]; k < q->rowp[j + 1]; k++) {
            if (!diag_done && q->col[k] > j) {
                Ai[p] = j;
                Ax[p++] = -q->out[j];
                diag_done = 1;
            }
            Ai[p] = q->col[k];
            Ax[p++] = q->val[k];
        }
        if (!diag_done) {
            Ai[p] = j;
            Ax[p++] = -q->out[j];
        }
    }
    Ap[n] = p;
    *pp = Ap;
    *pi = Ai;
    *px = Ax;
    return 0;
}

/* Clip round-off negatives (relative to the largest entry), renormalise.
 * A clearly negative entry means the answer is not a distribution. */
static int clip_normalise(uint32_t n, double *pi, diag *err)
{
    double mx = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        if (!isfinite(pi[i]))
            return diag_set(err, "direct solver: pi[%u] is not a finite number", i);
        if (fabs(pi[i]) > mx)
            mx = fabs(pi[i]);
    }
    double sum = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        if (pi[i] < 0.0) {
            if (pi[i] < -1e-8 * mx)
                return diag_set(err, "direct solver: pi[%u] = %g is negative "
                                "(is the chain irreducible?)", i, pi[i] / mx);
            pi[i] = 0.0;
        }
        sum += pi[i];
    }
    if (!(sum > 0.0))
        return diag_set(err, "direct solver: the solution sums to %g", sum);
    for (uint32_t i = 0; i < n; i++)
        pi[i] /= sum;
    return 0;
}

int pepa_solve_direct(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
                      pepa_solve_result *res, diag *err)
{
    int rc = pepa_solve_direct_capped(q, opts, PEPA_DIRECT_MAX_BYTES, PEPA_DIRECT_MAX_FLOPS, pi,
                                      res, err);
    return rc == 0 ? 0 : -1;
}

/* The symbolic analysis is cheap (about a pass over the matrix) and
 * predicts the LU's memory and flops; high-dimensional chains (product
 * state spaces, as PEPA builds) fill in nearly completely even when small:
 * a 12,870-state closed queueing network of 9 stations takes 80 s and
 * 0.9 GB. So we look before we leap. */
int pepa_solve_direct_capped(const pepa_ctmc *q, const pepa_solve_opts *opts, double max_bytes,
                             double max_flops, double *pi, pepa_solve_result *res, diag *err)
{
    uint32_t n = q->n;
    res->iterations = 1;
    res->residual = INFINITY;
    res->converged = 0;
    if (n == 0)
        return diag_set(err, "the chain has no states");
    if (n == 1) {
        pi[0] = 1.0;
        res->residual = 0.0;
        res->converged = 1;
        return 0;
    }
    uint32_t r = 0;
    for (uint32_t j = 1; j < n; j++)
        if (q->out[j] > q->out[r])
            r = j;

    SuiteSparse_long *Ap, *Ai;
    double *Ax;
    double *b = calloc(n, sizeof *b);
    if (!b || build_m(q, r, &Ap, &Ai, &Ax)) {
        free(b);
        return diag_set(err, "direct solver: out of memory building the matrix (%u states)", n);
    }
    b[r] = 1.0;

    double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
    umfpack_dl_defaults(control);
    control[UMFPACK_PRL] = 0;               /* library code: never print */
    void *sym = NULL, *num = NULL;
    int rc = 0;
    SuiteSparse_long st = umfpack_dl_symbolic(n, n, Ap, Ai, Ax, &sym, control, info);
    if (st != UMFPACK_OK) {
        rc = diag_set(err, "direct solver: UMFPACK symbolic analysis failed: %s",
                      umf_status((double)st));
        goto done;
    }
    double bytes = info[UMFPACK_PEAK_MEMORY_ESTIMATE] * info[UMFPACK_SIZE_OF_UNIT];
    double flops = info[UMFPACK_FLOPS_ESTIMATE];
    if (bytes > max_bytes || flops > max_flops) {
        diag_set(err, "direct solver: the LU factors of this chain would need about %.0f MB "
                 "and %.2g flops (limits %.0f MB, %.2g flops); use gs, sor or gmres",
                 bytes / 1e6, flops, max_bytes / 1e6, max_flops);
        rc = 1;
        goto done;
    }
    st = umfpack_dl_numeric(Ap, Ai, Ax, sym, &num, control, info);
    if (st != UMFPACK_OK) {
        rc = diag_set(err, "direct solver: UMFPACK factorisation failed: %s",
                      umf_status((double)st));
        goto done;
    }
    st = umfpack_dl_solve(UMFPACK_At, Ap, Ai, Ax, pi, b, num, control, info);
    if (st != UMFPACK_OK) {
        rc = diag_set(err, "direct solver: UMFPACK solve failed: %s", umf_status((double)st));
        goto done;
    }
    rc = clip_normalise(n, pi, err);
    if (rc == 0) {
        res->residual = pepa_ctmc_residual(q, pi);
        res->converged = res->residual <= opts->tol;
        if (!res->converged)
            rc = diag_set(err, "direct solver: residual %.3g above tolerance %.3g "
                          "(ill-conditioned chain? estimated reciprocal condition %.3g)",
                          res->residual, opts->tol, info[UMFPACK_RCOND]);
    }
done:
    umfpack_dl_free_numeric(&num);
    umfpack_dl_free_symbolic(&sym);
    free(Ax);
    free(Ai);
    free(Ap);
    free(b);
    return rc;
}

#else /* !HAVE_UMFPACK */

int pepa_solve_direct(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
                      pepa_solve_result *res, diag *err)
{
    return pepa_solve_direct_capped(q, opts, 0.0, 0.0, pi, res, err);
}

int pepa_solve_direct_capped(const pepa_ctmc *q, const pepa_solve_opts *opts, double max_bytes,
                             double max_flops, double *pi, pepa_solve_result *res, diag *err)
{
    (void)q;
    (void)opts;
    (void)max_bytes;
    (void)max_flops;
    (void)pi;
    res->iterations = 0;
    res->residual = INFINITY;
    res->converged = 0;
    return diag_set(err, "the direct solver is not available: skelsched was built "
                    "without UMFPACK (SuiteSparse); use gs, sor or gmres");
}

#endif
