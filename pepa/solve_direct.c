/* pepa_solve_direct: pi Q = 0, sum pi = 1 by sparse LU (SuiteSparse
 * UMFPACK; for large chains under an explicit request, nested dissection
 * and the multifrontal LU of lu.h).
 *
 * The n balance equations Q^T pi = 0 of an irreducible chain have rank
 * n - 1: one of them is redundant. We pin pi_r = 1 for one state r, drop
 * r's equation and unknown, solve the remaining (n-1) x (n-1) system,
 * which is nonsingular, and normalise. Which state is pinned matters: see
 * guess_pin() and most_probable() below. Pinning keeps the matrix exactly
 * as sparse as Q (replacing an equation by the normalisation adds a dense
 * row or column, which UMFPACK's COLAMD sets aside, but a fill-reducing
 * ordering of A + A^T, the symmetric strategy, does not).
 *
 * UMFPACK orders the columns to reduce fill (its default: AMD or COLAMD,
 * and METIS when that gives less fill) and chooses the symmetric or the
 * unsymmetric strategy from the pattern. What remains is the fill of the
 * chain itself: a PEPA chain is a product space, and the LU of a
 * d-dimensional grid fills in like n^(2 - 2/d) at best, so a 12,870-state
 * closed queueing network of 9 stations (8 dimensions) needs 38 M factor
 * entries while a 17,846-state chain of a few dimensions needs 2 M. The
 * symbolic analysis predicts this before any work (the caps below).
 *
 * Our arrays hold Q^T by rows, which read by columns is Q itself; so we
 * build M = (Q without row and column r, diagonal added) by columns
 * without a transpose and ask UMFPACK for M^T x = b, b_j = -Q(r,j) (the
 * multifrontal LU factorises M^T itself).
 *
 * Error estimate (opts->error): iterative refinement. The residual of x in
 * the reduced system, solved with the same factors, gives a correction d
 * whose size estimates the forward error of x (Higham, Accuracy and
 * Stability of Numerical Algorithms, 2002, ch. 12); x + d is returned and
 * |d| reported as the error bound, which over-estimates the error of
 * x + d. From double factors one step; from the multifrontal LU's single
 * precision factors, steps until d reaches double precision's floor (see
 * solve_refine), or the LU factorises again in double. */
#include "solve.h"
#include "internal.h"
#include "lu.h"
#include "../base/clock.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#ifdef HAVE_UMFPACK
#include <suitesparse/umfpack.h>

/* A phase's clock (pepa_solve_phases): when it was started, wall and
 * CPU seconds. */
typedef struct lap {
    double wall, cpu;
} lap;

static lap lap_start(void)
{
    lap l = {clock_now(), clock_cpu()};
    return l;
}

/* The time since *l added to acc (wall, CPU); *l restarted. */
static void lap_add(lap *l, double acc[2])
{
    lap now = lap_start();
    acc[0] += now.wall - l->wall;
    acc[1] += now.cpu - l->cpu;
    *l = now;
}

/* From this size on, an explicit request factorises by nested dissection
 * and the multifrontal LU (see factorise). */
#define PIN_MF_STATES 10000

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

/* The reduced matrix: state i's index without r. */
static inline SuiteSparse_long red(uint32_t i, uint32_t r)
{
    return (SuiteSparse_long)(i < r ? i : i - 1);
}

/* Sort a column's rows (and values) into order, as UMFPACK wants them:
 * a column holds a state's predecessors, a few to a few tens, and is in
 * order already where the places keep the states' order (build_m). */
static void sort_column(int64_t *i, double *x, int64_t len)
{
    for (int64_t a = 1; a < len; a++)
        for (int64_t c = a; c > 0 && i[c - 1] > i[c]; c--) {
            int64_t t = i[c];
            double v = x[c];
            i[c] = i[c - 1], x[c] = x[c - 1];
            i[c - 1] = t, x[c - 1] = v;
        }
}

/* Column a (state j) of pepa_solve_umf_matrix from i[0] and x[0], its
 * diagonal put in row order; the rates from outside the subset summed
 * into *outside. Returns the column's length. */
static int64_t umf_column(const pepa_ctmc *q, uint32_t j, uint32_t a, uint32_t m,
                          const uint32_t *place, int64_t *i, double *x, double *outside)
{
    int64_t len = 0;
    int diag_done = 0;
    for (uint64_t k = q->rowp[j]; k < q->rowp[j + 1]; k++) {
        uint32_t row = place[q->col[k]];
        if (row >= m) {
            *outside += q->val[k];
            continue;
        }
        if (!diag_done && row > a) {
            i[len] = a;
            x[len++] = -q->out[j];
            diag_done = 1;
        }
        i[len] = row;
        x[len++] = q->val[k];
    }
    if (!diag_done) {
        i[len] = a;
        x[len++] = -q->out[j];
    }
    return len;
}

void pepa_solve_umf_matrix(const pepa_ctmc *q, uint32_t m, const uint32_t *order,
                           const uint32_t *place, int64_t *p, int64_t *i, double *x, double *b)
{
    int64_t nz = 0;
    for (uint32_t a = 0; a < m; a++) {
        double outside = 0.0;
        int64_t len = umf_column(q, order[a], a, m, place, i + nz, x + nz, &outside);
        sort_column(i + nz, x + nz, len);
        p[a] = nz;
        nz += len;
        if (b)
            b[a] = 0.0 - outside;           /* +0 where nothing comes in */
    }
    p[m] = nz;
}

/* Build M in compressed columns, and b: pepa_solve_umf_matrix over every
 * state but r, in their order. Returns 0, or -1 when out of memory. */
static int build_m(const pepa_ctmc *q, uint32_t r, SuiteSparse_long **pp, SuiteSparse_long **pi,
                   double **px, double *b)
{
    uint32_t n = q->n;
    size_t nz = (size_t)q->nnz + (size_t)n;
    SuiteSparse_long *Ap = malloc((size_t)n * sizeof *Ap);
    SuiteSparse_long *Ai = malloc(nz * sizeof *Ai);
    double *Ax = malloc(nz * sizeof *Ax);
    uint32_t *order = malloc((size_t)n * sizeof *order), *place = malloc((size_t)n * sizeof *place);
    int rc = Ap && Ai && Ax && order && place ? 0 : -1;
    if (rc == 0) {
        for (uint32_t j = 0; j < n; j++) {
            place[j] = j == r ? UINT32_MAX : (uint32_t)red(j, r);
            if (j != r)
                order[red(j, r)] = j;
        }
        pepa_solve_umf_matrix(q, n - 1, order, place, Ap, Ai, Ax, b);
        *pp = Ap, *pi = Ai, *px = Ax;
        Ap = Ai = NULL, Ax = NULL;
    }
    free(place);
    free(order);
    free(Ax);
    free(Ai);
    free(Ap);
    return rc;
}

/* rr = b - M^T x, M in compressed columns of order m. */
static void reduced_residual(SuiteSparse_long m, const SuiteSparse_long *Ap,
                             const SuiteSparse_long *Ai, const double *Ax, const double *x,
                             const double *b, double *rr)
{
    for (SuiteSparse_long j = 0; j < m; j++) {
        double s = b[j];
        for (SuiteSparse_long p = Ap[j]; p < Ap[j + 1]; p++)
            s -= Ax[p] * x[Ai[p]];
        rr[j] = s;
    }
}

/* x (m entries, pinned r = 1 left out) -> pi; d likewise -> err, both
 * scaled by the same sum. */
static void expand(uint32_t n, uint32_t r, const double *x, double *pi)
{
    for (uint32_t i = n - 1; i > r; i--)
        pi[i] = x[i - 1];
    if (pi != x)
        for (uint32_t i = 0; i < r; i++)
            pi[i] = x[i];
    pi[r] = 1.0;
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

/* What a factorisation may cost, and which may run. */
typedef struct caps {
    double bytes, flops;
    int umfpack_only;       /* the reference (pepa_solve_direct_umfpack) */
    const pepa_ctmc *q;     /* the chain (its pattern's symmetry: far_over) */
    int threads;            /* of the multifrontal LU (opts->lu_threads) */
    pepa_solve_result *res; /* out: the LU's threads (lu_threads, lu_unstarted) */
} caps;

/* Over the caps: the message, and 1. */
static int over_caps(double bytes, double flops, double max_bytes, double max_flops, diag *err)
{
    diag_set(err, "direct solver: the LU factors of this chain would need about %.0f MB "
             "and %.2g flops (limits %.0f MB, %.2g flops); use gs, sor or gmres",
             bytes / 1e6, flops, max_bytes / 1e6, max_flops);
    return 1;
}

/* The symbolic analysis is cheap (about a pass over the matrix) and
 * predicts the LU's memory and flops; high-dimensional chains (product
 * state spaces, as PEPA builds) can fill in heavily even when small. So we
 * look before we leap: returns 0 with the numeric factors, 1 (with a
 * message) when over the caps, -1 on failure. */
static int factor(SuiteSparse_long m, const SuiteSparse_long *Ap, const SuiteSparse_long *Ai,
                  const double *Ax, const caps *c, const double *control, void **num, diag *err)
{
    double info[UMFPACK_INFO];
    void *sym = NULL;
    int rc = 0;
    c->res->orderings++;
    lap t = lap_start();
    SuiteSparse_long st = umfpack_dl_symbolic(m, m, Ap, Ai, Ax, &sym, control, info);
    lap_add(&t, c->res->phases.analyse);
    if (st != UMFPACK_OK)
        return diag_set(err, "direct solver: UMFPACK symbolic analysis failed: %s",
                        umf_status((double)st));
    double bytes = info[UMFPACK_PEAK_MEMORY_ESTIMATE] * info[UMFPACK_SIZE_OF_UNIT];
    double flops = info[UMFPACK_FLOPS_ESTIMATE];
    if (bytes > c->bytes || flops > c->flops) {
        c->res->decision = PEPA_DECIDE_ANALYSIS;
        rc = over_caps(bytes, flops, c->bytes, c->flops, err);
    } else {
        st = umfpack_dl_numeric(Ap, Ai, Ax, sym, num, control, info);
        lap_add(&t, c->res->phases.factor);
        if (st != UMFPACK_OK)
            rc = diag_set(err, "direct solver: UMFPACK factorisation failed: %s",
                          umf_status((double)st));
    }
    umfpack_dl_free_symbolic(&sym);
    return rc;
}

/* The factors of M^T: UMFPACK's (num) or the multifrontal ones (mf, in
 * precision prec). */
typedef struct factors {
    void *num;
    pepa_lu *mf;
    pepa_lu_prec prec;
    double *control;
} factors;

/* x = M^-T b. Returns 0 or -1. */
static int lu_solve(const factors *f, const SuiteSparse_long *Ap, const SuiteSparse_long *Ai,
                    const double *Ax, const double *b, double *x, diag *err)
{
    if (f->mf) {
        pepa_lu_solve(f->mf, b, x);
        return 0;
    }
    double info[UMFPACK_INFO];
    SuiteSparse_long st = umfpack_dl_solve(UMFPACK_At, Ap, Ai, Ax, x, b, f->num, f->control,
                                           info);
    if (st != UMFPACK_OK && st != UMFPACK_WARNING_singular_matrix)
        return diag_set(err, "direct solver: UMFPACK solve failed: %s", umf_status((double)st));
    return 0;
}

/* Refinement of a solution from single-precision factors: each step
 * gains about -log10(cond * 6e-8) digits, and the steps end at the
 * accuracy of the residual, computed in double, whatever the factors'
 * precision (Higham, ch. 12; Carson and Higham, SIAM J. Sci. Comput. 40,
 * 2018). So it stops once the correction is below REFINE_EPS of the
 * solution, or once a step gains less than a factor 1 / REFINE_RATE
 * after steps that did gain: that is the floor, when it is below
 * REFINE_FLOOR (a 10^4 grid split in two by rates 0.1: 6e-14).
 * Otherwise (no gain from the start: the chain is too ill-conditioned
 * for single precision; or REFINE_MAX steps) the caller factorises in
 * double. */
#define REFINE_MAX 12
#define REFINE_RATE 0.25
#define REFINE_EPS 0x1p-50
#define REFINE_FLOOR 1e-11

/* x += d, |d| in d; the largest |d| and |x| (NaN if any d is). */
static void add_correction(SuiteSparse_long m, double *x, double *d, double *nd, double *nx)
{
    *nd = *nx = 0.0;
    for (SuiteSparse_long j = 0; j < m; j++) {
        x[j] += d[j];
        d[j] = fabs(d[j]);
        *nd = d[j] > *nd || isnan(d[j]) ? d[j] : *nd;
        *nx = fmax(*nx, fabs(x[j]));
    }
}

/* Solve M^T x = b, then refine (see the top): from double factors one
 * step, from single ones until REFINE_EPS; x += d each step, |d| of the
 * last in d. rr is scratch (m entries). Returns 0, 2 (single precision
 * did not converge: factorise in double) or -1. */
static int solve_refine(SuiteSparse_long m, const SuiteSparse_long *Ap, const SuiteSparse_long *Ai,
                        const double *Ax, const factors *f, const double *b, double *x,
                        double *d, double *rr, diag *err)
{
    if (lu_solve(f, Ap, Ai, Ax, b, x, err))
        return -1;
    double prev = INFINITY, nd, nx;
    for (int k = 0;; k++) {
        reduced_residual(m, Ap, Ai, Ax, x, b, rr);
        if (lu_solve(f, Ap, Ai, Ax, rr, d, err))
            return -1;
        add_correction(m, x, d, &nd, &nx);
        if (!f->mf || f->prec == PEPA_LU_DOUBLE)
            return 0;
        if (!isfinite(nd) || !isfinite(nx) || k == REFINE_MAX)
            return 2;
        if (nd <= REFINE_EPS * nx)
            return 0;
        if (nd > REFINE_RATE * prev)            /* no gain: the floor, or no convergence */
            return k >= 2 && nd <= REFINE_FLOOR * nx ? 0 : 2;
        prev = nd;
    }
}

/* The tolerance the LU's answer is held to. The residual is in rates, so
 * a chain with rates of 1e40 cannot show 1e-12 whatever its accuracy: its
 * round-off floor is about PEPA_ROUNDOFF_FACTOR eps times the largest
 * exit rate. That bound is a worst case which answers usually beat by
 * far (test_direct_large meets 1e-14 with rates of a few tens), so it
 * replaces the tolerance only where it is ROUNDOFF_MARGIN times above:
 * where no method could meet the tolerance. */
#define ROUNDOFF_MARGIN 100.0
static double accept_tol(const pepa_ctmc *q, double tol)
{
    double maxout = pepa_ctmc_max_exit(q);
    double floor = PEPA_ROUNDOFF_FACTOR * DBL_EPSILON * maxout;
    return floor > ROUNDOFF_MARGIN * tol ? floor : tol;
}

/* The answer: pi from x (in place), normalised and checked; the error
 * estimate scaled alike when asked for. Normalising by S = sum x spreads
 * the error of S over every entry: pi_j = x_j / S errs by about
 * (|d_j| + pi_j sum |d|) / S, plus the rounding of the division. */
static int finish(const pepa_ctmc *q, uint32_t r, double *pi, double *d,
                  const pepa_solve_opts *opts, pepa_solve_result *res, diag *err)
{
    uint32_t n = q->n;
    expand(n, r, pi, pi);
    double sum = 0.0, dsum = 0.0;
    for (uint32_t i = 0; i < n; i++)
        sum += isfinite(pi[i]) ? fabs(pi[i]) : 0.0;
    for (uint32_t i = 0; i + 1 < n; i++)
        dsum += d[i];
    int rc = clip_normalise(n, pi, err);
    if (rc)
        return rc;
    if (opts->error) {
        expand(n, r, d, opts->error);
        opts->error[r] = 0.0;
        for (uint32_t i = 0; i < n; i++)
            opts->error[i] = opts->error[i] / sum + pi[i] * (dsum / sum + 4.0 * DBL_EPSILON);
    }
    res->residual = pepa_ctmc_residual(q, pi);
    res->converged = res->residual <= accept_tol(q, opts->tol);
    if (!res->converged)
        return diag_set(err, "direct solver: residual %.3g above tolerance %.3g "
                        "(ill-conditioned chain?)", res->residual, opts->tol);
    return 0;
}

/* f->mf's ordering (AUTO's) over the caps: the other ordering's
 * analysis in its place if that one fits. AUTO weighs flops only and
 * may not have tried the other (a 30^3 grid walk: AMD kept by its flops
 * at 129 MB, METIS's 97 MB; UMFPACK's, the next try, 1 GB); where it
 * did, its analysis (taken by mf_factor: tried, lu, flops, bytes) is
 * used, not made again. Returns 0 when it fits, 1 when not (f->mf left
 * as it was). */
static int mf_other_order(SuiteSparse_long m, const SuiteSparse_long *Ap,
                          const SuiteSparse_long *Ai, const caps *c, int tried, pepa_lu *lu,
                          double flops, double bytes, factors *f)
{
    if (!tried) {
        pepa_lu_order other =
            pepa_lu_ordering(f->mf) == PEPA_LU_AMD ? PEPA_LU_METIS : PEPA_LU_AMD;
        diag none;                      /* its failure is no failure: the caps' message stands */
        diag_clear(&none);
        c->res->orderings++;
        lap t = lap_start();
        lu = pepa_lu_analyse(m, Ap, Ai, other, &flops, &bytes, &none);
        lap_add(&t, c->res->phases.analyse);
    }
    if (!lu || bytes > c->bytes || flops > c->flops) {
        pepa_lu_free(lu);
        return 1;
    }
    pepa_lu_free(f->mf);
    f->mf = lu;
    return 0;
}

/* The multifrontal LU of M^T (lu.h), ordered by AMD or by nested
 * dissection, whichever lu.h's PEPA_LU_AUTO finds cheaper (or the other
 * where only that one is within the caps), in single precision (half the
 * memory, twice the speed; solve_refine brings the answer to double), in
 * double when a pivot is lost in single: returns 0 with the factors, 1
 * over the caps, -1 on failure. */
/* What the factorisation just done ran on, into res (a pivot lost in
 * single precision leaves the double one on one thread). */
static void mf_threads(const pepa_lu *lu, pepa_solve_result *res)
{
    const char *why = pepa_lu_par_unavailable(lu);
    res->lu_threads = pepa_lu_split_fronts(lu) > 0 ? 2 : 1;
    res->lu_unstarted += (long)pepa_lu_unstarted_fronts(lu);
    if (why && !res->lu_par_unavailable[0])
        snprintf(res->lu_par_unavailable, sizeof res->lu_par_unavailable, "%s", why);
}

/* mf_factor's answer when the first ordering is over the caps (1, or
 * MF_FAR: so far over, on a symmetric pattern, that nothing else is
 * tried; far over on a less symmetric one, 1 without the other
 * multifrontal ordering: UMFPACK's analysis follows). */
#define MF_FAR 3

/* Over PEPA_DIRECT_FAR times a cap? */
static int far_over(double bytes, double flops, const caps *c)
{
    return bytes > PEPA_DIRECT_FAR * c->bytes || flops > PEPA_DIRECT_FAR * c->flops;
}

/* Far over, on a pattern UMFPACK too would order as A + A^T: refused at
 * once (see PEPA_DIRECT_FAR). The symmetry costs a pass over the chain,
 * so it is measured only when far over. */
static int refuse_at_once(int far, const caps *c)
{
    return far && pepa_solve_pattern_symmetry(c->q) >= PEPA_UMFPACK_SYMMETRIC;
}

static int mf_factor(SuiteSparse_long m, const SuiteSparse_long *Ap, const SuiteSparse_long *Ai,
                     const double *Ax, const caps *c, factors *f, diag *err)
{
    double flops, bytes, fo, bo;
    pepa_lu *other;
    lap t = lap_start();
    f->mf = pepa_lu_analyse(m, Ap, Ai, PEPA_LU_AUTO, &flops, &bytes, err);
    lap_add(&t, c->res->phases.analyse);
    if (!f->mf)
        return -1;
    int tried = pepa_lu_take_other(f->mf, &other, &fo, &bo);
    c->res->orderings += 1 + tried;
    if (bytes > c->bytes || flops > c->flops) {
        int far = far_over(bytes, flops, c);
        if (far || mf_other_order(m, Ap, Ai, c, tried, other, fo, bo, f)) {
            if (far)
                pepa_lu_free(other);
            int now = refuse_at_once(far, c);   /* else UMFPACK's analysis decides */
            c->res->decision = now ? PEPA_DECIDE_FAR : PEPA_DECIDE_ANALYSIS;
            over_caps(bytes, flops, c->bytes, c->flops, err);
            return now ? MF_FAR : 1;
        }
    } else {
        pepa_lu_free(other);            /* not needed: not held through the factorisation */
    }
    pepa_lu_set_threads(f->mf, c->threads);
    f->prec = PEPA_LU_SINGLE;
    t = lap_start();
    diag single = {0};
    int rc = pepa_lu_factor(f->mf, Ap, Ai, Ax, 1, PEPA_LU_SINGLE, &single);
    mf_threads(f->mf, c->res);
    if (rc != 0 && !pepa_lu_pivot_lost(f->mf))
        diag_set(err, "%s", single.msg);        /* out of memory or internal: double would not help */
    else if (rc != 0) {
        f->prec = PEPA_LU_DOUBLE;       /* a pivot lost in single precision */
        rc = pepa_lu_factor(f->mf, Ap, Ai, Ax, 1, PEPA_LU_DOUBLE, err);
        mf_threads(f->mf, c->res);      /* the factors kept: one thread */
    }
    lap_add(&t, c->res->phases.factor);
    return rc;
}

/* The factors of M^T: below PIN_MF_STATES, or when the caps are AUTO's
 * (its look at the cost must be cheap: inside the Slurm plugin it runs
 * against the decision's budget), UMFPACK with AMD/COLAMD; otherwise
 * the multifrontal LU, ordered by AMD or nested dissection (METIS) as
 * lu.h's PEPA_LU_AUTO chooses. On the product spaces PEPA builds, nested
 * dissection fills in far less than AMD (a 30^3 grid walk: 5.8e9 flops
 * against 1.1e10) but costs 0.15-0.26 s itself, more than it saves on the
 * grid and production.pepa, not on the closed networks; the
 * multifrontal LU runs at 20-30 GFlop/s where UMFPACK ran at 3-5, and
 * twice that in single precision, refined in double (bench_solve
 * direct). Returns 0, 1 (over the caps) or -1. */
static int factorise(SuiteSparse_long m, const SuiteSparse_long *Ap, const SuiteSparse_long *Ai,
                     const double *Ax, const caps *c, factors *f, diag *err)
{
    int large = m >= PIN_MF_STATES && c->flops > PEPA_AUTO_DIRECT_FLOPS;
    if (large && !c->umfpack_only) {
        pepa_decision decided = c->res->decision;
        diag over;
        diag_clear(&over);
        int rc = mf_factor(m, Ap, Ai, Ax, c, f, &over);
        if (rc != 1) {                      /* done, failed, or far over: refused */
            if (rc && err)
                *err = over;
            return rc == MF_FAR ? 1 : rc;
        }
        /* Over the caps: the factors take the pattern of A + A^T, which on
         * a chain of one-way moves fills in far more than UMFPACK's
         * unsymmetric ordering; that one may fit, and then nothing was
         * refused (its own analysis sets the decision when it refuses). */
        pepa_lu_free(f->mf);
        f->mf = NULL;
        c->res->decision = decided;
    }
    umfpack_dl_defaults(f->control);
    if (large)                              /* the reference: as before the multifrontal LU */
        f->control[UMFPACK_ORDERING] = UMFPACK_ORDERING_METIS;
    f->control[UMFPACK_PRL] = 0;            /* library code: never print */
    /* Our own refinement step is the one that counts (it gives the error
     * estimate); UMFPACK's own steps before it would cost two more solves. */
    f->control[UMFPACK_IRSTEP] = 0;
    return factor(m, Ap, Ai, Ax, c, f->control, &f->num, err);
}

/* One pinned solve: x (n - 1 entries, in pi) and its error bound d.
 * Returns 0, 1 (over the caps) or -1. */
static int pinned(const pepa_ctmc *q, uint32_t r, const caps *c, double *x, double *d, diag *err)
{
    uint32_t n = q->n;
    SuiteSparse_long m = (SuiteSparse_long)n - 1, *Ap = NULL, *Ai = NULL;
    double *Ax = NULL;
    double *b = malloc((size_t)n * sizeof *b), *rr = malloc((size_t)n * sizeof *rr);
    if (!b || !rr || build_m(q, r, &Ap, &Ai, &Ax, b)) {
        free(rr);
        free(b);
        return diag_set(err, "direct solver: out of memory building the matrix (%u states)", n);
    }
    double control[UMFPACK_CONTROL];
    factors f = {.control = control};
    pepa_solve_phases *ph = &c->res->phases;
    int rc = factorise(m, Ap, Ai, Ax, c, &f, err);
    lap t = lap_start();
    if (rc == 0)
        rc = solve_refine(m, Ap, Ai, Ax, &f, b, x, d, rr, err);
    lap_add(&t, ph->refine);
    if (rc == 2) {                          /* single precision fell short */
        f.prec = PEPA_LU_DOUBLE;
        rc = pepa_lu_factor(f.mf, Ap, Ai, Ax, 1, PEPA_LU_DOUBLE, err);
        lap_add(&t, ph->factor);
        if (rc == 0)
            rc = solve_refine(m, Ap, Ai, Ax, &f, b, x, d, rr, err);
        lap_add(&t, ph->refine);
    }
    umfpack_dl_free_numeric(&f.num);
    pepa_lu_free(f.mf);
    free(Ax);
    free(Ai);
    free(Ap);
    free(rr);
    free(b);
    return rc;
}

/* The state to pin. Its probability must not be tiny beside the others:
 * the solution is scaled by 1 / pi_r, and the reduced system's condition
 * grows with it (browser.pepa pinned at its fastest state, pi_r / max pi
 * = 3e-15, lost three digits). A state's probability is its inflow over
 * its exit rate, so the slowest state is a good first guess; when the
 * solution says otherwise (pi_r < PIN_RATIO max pi), pin again at the
 * most probable state. */
#define PIN_RATIO 1e-3
/* Gauss-Seidel sweeps that pick the state to pin (see guess_pin). */
#define PIN_SWEEPS 20

static uint32_t slowest(const pepa_ctmc *q)
{
    uint32_t r = 0;
    for (uint32_t j = 1; j < q->n; j++)
        if (q->out[j] < q->out[r])
            r = j;
    return r;
}

/* A factorisation is dear (all of the solve's cost), so the state to pin
 * is chosen before it rather than after: a few Gauss-Seidel sweeps from
 * the uniform vector cost a few passes over the chain and already point
 * at a probable state (in a 30^3 grid walk, whose probabilities span ten
 * orders of magnitude, the slowest state is the least probable, and
 * pinning it meant factorising twice). pi is scratch. When the sweeps
 * cannot run (an absorbing state), the slowest state. */
static uint32_t guess_pin(const pepa_ctmc *q, double *pi)
{
    pepa_solve_opts g;
    pepa_solve_opts_init(&g);
    g.method = PEPA_METHOD_GS;
    g.max_iter = PIN_SWEEPS;
    g.tol = 0x1p-1000;                 /* never "converged": exactly PIN_SWEEPS sweeps */
    g.threads = 1;
    g.plain = 1;
    pepa_solve_result r;
    diag e;
    diag_clear(&e);
    pepa_solve_gs(q, &g, pi, &r, &e);
    if (!isfinite(r.residual))
        return slowest(q);
    uint32_t best = 0;
    for (uint32_t i = 1; i < q->n; i++)
        if (pi[i] > pi[best])
            best = i;
    return pi[best] > 0.0 && isfinite(pi[best]) ? best : slowest(q);
}

static uint32_t most_probable(uint32_t n, uint32_t r, const double *x, double *xmax)
{
    uint32_t best = r;
    *xmax = 1.0;
    for (uint32_t i = 0; i + 1 < n; i++)
        if (x[i] > *xmax) {
            *xmax = x[i];
            best = i < r ? i : i + 1;
        }
    return best;
}

static int direct(const pepa_ctmc *q, const pepa_solve_opts *opts, const caps *c, double *pi,
                  pepa_solve_result *res, diag *err)
{
    uint32_t n = q->n;
    res->iterations = 1;
    res->residual = INFINITY;
    res->converged = 0;
    res->orderings = 0;
    res->decision = PEPA_DECIDE_ASKED;  /* until refused */
    memset(&res->phases, 0, sizeof res->phases);
    int trivial = pepa_solve_trivial(q, opts, pi, res, err);
    if (trivial)
        return trivial < 0 ? -1 : 0;
    double *d = malloc((size_t)n * sizeof *d), xmax;
    if (!d)
        return diag_set(err, "direct solver: out of memory (%u states)", n);
    lap t = lap_start();
    uint32_t r = guess_pin(q, pi);
    lap_add(&t, res->phases.pin);
    int rc = pinned(q, r, c, pi, d, err);
    uint32_t best = rc == 0 ? most_probable(n, r, pi, &xmax) : r;
    if (rc == 0 && xmax * PIN_RATIO > 1.0) {
        r = best;
        rc = pinned(q, r, c, pi, d, err);
    }
    if (rc == 0)
        rc = finish(q, r, pi, d, opts, res, err);
    free(d);
    return rc;
}

int pepa_solve_direct_capped(const pepa_ctmc *q, const pepa_solve_opts *opts, double max_bytes,
                             double max_flops, double *pi, pepa_solve_result *res, diag *err)
{
    caps c = {max_bytes, max_flops, 0, q, opts->lu_threads, res};
    return direct(q, opts, &c, pi, res, err);
}

int pepa_solve_direct_umfpack(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
                              pepa_solve_result *res, diag *err)
{
    caps c = {PEPA_DIRECT_MAX_BYTES, PEPA_DIRECT_MAX_FLOPS, 1, q, 1, res};
    return direct(q, opts, &c, pi, res, err) == 0 ? 0 : -1;
}

#else /* !HAVE_UMFPACK */

int pepa_solve_direct_umfpack(const pepa_ctmc *q, const pepa_solve_opts *opts, double *pi,
                              pepa_solve_result *res, diag *err)
{
    return pepa_solve_direct_capped(q, opts, 0.0, 0.0, pi, res, err);
}

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
