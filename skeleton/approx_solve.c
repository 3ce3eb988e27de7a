/* skeleton/approx_solve.c: solving one window: the rates of its
 * transitions (outside partners' delays, processor sharing on a node),
 * then dense elimination, sparse LU, or warm-started Gauss-Seidel.
 * Private header approx_int.h. */
#include "approx_int.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../pepa/ctmc.h"
#include "../pepa/solve.h"

/* Fenwick trees over rho_send and rho_recv: a farm's member sees the
 * delays of all the others, hundreds, summed in O(log n). */
void ax_fen_add(double *f, int n, int i, double d)
{
    for (i++; i <= n; i += i & -i)
        f[i] += d;
}

static double fen_prefix(const double *f, int i)    /* v[0] + ... + v[i - 1] */
{
    double s = 0;
    for (; i > 0; i -= i & -i)
        s += f[i];
    return s;
}

#define AX_DIRECT_SUM 16      /* shorter ranges of delays summed directly */

static double sum_of(const double *v, const double *f, int lo, int n)
{
    if (n > AX_DIRECT_SUM)
        return fen_prefix(f, lo + n) - fen_prefix(f, lo);
    double s = 0;
    for (int k = lo; k < lo + n; k++)
        s += v[k];
    return s;
}

static double ctr_base(const skel_approx *a, const ax_ctr *c)
{
    switch (c->src) {
    case AX_MU:
        return a->mu[c->idx];
    case AX_LAMBDA:
        return a->lambda[c->idx];
    case AX_RHO_SEND:
        return sum_of(a->rho_send, a->fen_send, c->idx, c->cnt);
    case AX_RHO_RECV:
        return sum_of(a->rho_recv, a->fen_recv, c->idx, c->cnt);
    case AX_ALPHA_SEND:
        return a->alpha_send[c->idx];
    case AX_ALPHA_RECV:
        return a->alpha_recv[c->idx];
    case AX_GAMMA_SEND:
        return a->gamma_send[c->idx];
    case AX_GAMMA_RECV:
        return a->gamma_recv[c->idx];
    case AX_XFER:
        return a->lambda[c->idx];
    case AX_CNT_SEND:
    case AX_CNT_RECV:
        return a->cnt[a->cnt0[c->idx] + c->pos];
    case AX_LAT:
        return a->lat[c->idx].rate;
    default:                  /* AX_HANDOFF, AX_TAKE */
        return a->handoff;
    }
}

/* pi Q = 0, sum pi = 1 by Gaussian elimination with partial pivoting on
 * Q^T, its last equation replaced by the normalisation. */
static void solve_dense(skel_approx *a, const ax_win *w, double *pi)
{
    int n = w->n;
    double *m = a->dense;
    memset(m, 0, (size_t)n * (size_t)n * sizeof *m);
    const ax_ctr *c = a->ctr + w->c0;
    for (int k = 0; k < w->nc; k++) {
        m[(size_t)c[k].to * (size_t)n + (size_t)c[k].from] += a->rate[k];
        m[(size_t)c[k].from * (size_t)n + (size_t)c[k].from] -= a->rate[k];
    }
    for (int j = 0; j < n; j++) {
        m[(size_t)(n - 1) * (size_t)n + (size_t)j] = 1.0;
        pi[j] = j == n - 1 ? 1.0 : 0.0;
    }
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(m[i * n + k]) > fabs(m[p * n + k]))
                p = i;
        if (p != k) {
            for (int j = 0; j < n; j++) {
                double t = m[k * n + j];
                m[k * n + j] = m[p * n + j];
                m[p * n + j] = t;
            }
            double t = pi[k];
            pi[k] = pi[p];
            pi[p] = t;
        }
        double piv = m[k * n + k];
        if (piv == 0)
            continue;
        for (int i = k + 1; i < n; i++) {
            double f = m[i * n + k] / piv;
            if (f == 0)
                continue;
            for (int j = k; j < n; j++)
                m[i * n + j] -= f * m[k * n + j];
            pi[i] -= f * pi[k];
        }
    }
    for (int k = n - 1; k >= 0; k--) {
        double s = pi[k];
        for (int j = k + 1; j < n; j++)
            s -= m[k * n + j] * pi[j];
        pi[k] = m[k * n + k] != 0 ? s / m[k * n + k] : 0;
    }
}

/* A larger window, from its previous distribution (or the uniform one):
 * the engine's Gauss-Seidel (accelerated), to a residual 1e-14 of its
 * largest rate, is 10-100 times faster than a new factorisation each sweep
 * (a link's phases fill the LU in: pipe(30) with Buffer=4 and SCV=0.25,
 * 1.1 s against 149 s; model2.des's counted windows of 6,192 states: 7.6
 * CPU s against 0.3). Returns 1 when converged. */
static int solve_warm(const skel_approx *a, const ax_win *w, const pepa_ctmc *q,
                      const double *pi, double *x)
{
    double top = 0;
    for (int k = 0; k < w->nc; k++)
        top = fmax(top, a->rate[k]);
    memcpy(x, pi, (size_t)w->n * sizeof *x);
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    o.method = PEPA_METHOD_GS;
    o.warm = 1;
    o.tol = 1e-14 * top;
    o.max_iter = 300;
    pepa_solve_result res;
    diag err = { 0 };
    return pepa_solve(q, &o, x, &res, &err) == 0;
}

/* A larger window: solve_warm, else (not converged in its 300 sweeps)
 * the engine's sparse direct solver (UMFPACK when built with it). Plain
 * Gauss-Seidel alone does not converge on some of these cyclic sub-chains
 * (pipelines oscillated). Allocates; on a failure the previous
 * distribution stays. */
static void solve_sparse(skel_approx *a, const ax_win *w, double *pi)
{
    const ax_ctr *c = a->ctr + w->c0;
    size_t m = (size_t)(w->nc ? w->nc : 1);
    uint32_t *src = malloc(m * sizeof *src), *dst = malloc(m * sizeof *dst);
    double *x = malloc((size_t)w->n * sizeof *x);
    pepa_ctmc *q = NULL;
    if (src && dst && x) {
        for (int k = 0; k < w->nc; k++) {
            src[k] = (uint32_t)c[k].from;
            dst[k] = (uint32_t)c[k].to;
        }
        q = pepa_ctmc_from_triples((uint32_t)w->n, (size_t)w->nc, src, dst, a->rate);
    }
    pepa_solve_opts o;
    pepa_solve_opts_init(&o);
    o.method = PEPA_METHOD_DIRECT;
    pepa_solve_result res;
    diag err = { 0 };
    if (q && (solve_warm(a, w, q, pi, x) || pepa_solve(q, &o, x, &res, &err) == 0))
        memcpy(pi, x, (size_t)w->n * sizeof *pi);
    pepa_ctmc_free(q);
    free(x);
    free(dst);
    free(src);
}

/* E[1 / (c + N)] for c = 1 .. nmax into f[c], N the number of the tasks
 * sharing x's node outside window w that compute, each with its
 * probability of computing given that x computes (approx_share.c), taken
 * independent of one another (Poisson-binomial; its mean above AX_PB_MAX
 * sharers). */
static void share_outside(skel_approx *a, const ax_win *w, int x, int nmax, double *f)
{
    double *pb = a->pb, mean = 0;
    int m = 0;
    pb[0] = 1;
    for (int k = a->grp0[x]; k < a->grp0[x] + a->grpn[x]; k++) {
        int y = a->bynode[k];
        if (ax_win_pos(a, w, y) >= 0)
            continue;
        double q = ax_cond_busy(a, x, y);
        mean += q;
        if (m < AX_PB_MAX) {
            pb[m + 1] = 0;
            for (int j = m + 1; j > 0; j--)
                pb[j] = pb[j] * (1 - q) + pb[j - 1] * q;
            pb[0] *= 1 - q;
        }
        m++;
    }
    for (int c = 1; c <= nmax; c++) {
        f[c] = 0;
        for (int j = 0; j <= m && m <= AX_PB_MAX; j++)
            f[c] += pb[j] / (c + j);
        if (m > AX_PB_MAX)
            f[c] = 1 / (c + mean);
    }
}

/* Processor sharing (Sharing=ps) in window w: per position p, the window's
 * positions on p's node (same[p]) and, by how many of them compute, the
 * factor of p's rate (fac[p][c]): exact inside the window, the mean over
 * the outside sharers. Static sharing: factor 1. */
static void share_factors(skel_approx *a, const ax_win *w, unsigned *same,
                          double fac[][AX_WMAX + 1])
{
    for (int p = 0; p < w->nt; p++) {
        int x = a->wtask[w->t0 + p], n = 0;
        same[p] = 1u << p;
        for (int q = 0; q < w->nt && a->node; q++)
            if (q != p && a->node[a->wtask[w->t0 + q]] == a->node[x])
                same[p] |= 1u << q;
        for (unsigned m = same[p]; m; m &= m - 1)
            n++;
        if (a->node)
            share_outside(a, w, x, n, fac[p]);
        else
            fac[p][1] = 1;
    }
}

static int popcount(unsigned m)
{
    int n = 0;
    for (; m; m &= m - 1)
        n++;
    return n;
}

static double ctr_rate(const skel_approx *a, const ax_ctr *c, const unsigned *same,
                       double fac[][AX_WMAX + 1])
{
    double r = ctr_base(a, c) * c->w;
    if (c->src == AX_MU)
        r *= fac[c->pos][popcount(c->busy & same[c->pos])];
    return r;
}

void ax_solve_window(skel_approx *a, const ax_win *w)
{
    double *pi = a->pi + w->p0, *prev = a->prev + w->c0;
    const ax_ctr *c = a->ctr + w->c0;
    unsigned same[AX_WMAX];
    double fac[AX_WMAX][AX_WMAX + 1];
    share_factors(a, w, same, fac);
    int unchanged = 1;
    for (int k = 0; k < w->nc; k++) {
        a->rate[k] = ctr_rate(a, &c[k], same, fac);
        unchanged &= a->rate[k] == prev[k];
        prev[k] = a->rate[k];
    }
    if (unchanged)
        return;                   /* a window with no partner outside is solved once */
    /* its cost in r->work's unit (a transition rated, ~70 ns), kept on the
     * high side: measured 0.07 ms for 108 states dense; a large one, warm
     * Gauss-Seidel first, 1.2 ms an evaluation of 1,116 states and 3,612
     * transitions (task, deal(4), task), counted 72,000 (~5 ms) */
    double n = w->n;
    a->solve_work += n <= AX_DENSE_MAX ? n * n * n / 1200 : 20.0 * w->nc;
    if (w->n <= AX_DENSE_MAX)
        solve_dense(a, w, pi);
    else
        solve_sparse(a, w, pi);
}
