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

/* One more sharer, computing with probability q, into the Poisson-binomial
 * pb of *m sharers (its mean alone past AX_PB_MAX). */
void ax_pb_add(double *pb, int *m, double *mean, double q)
{
    *mean += q;
    if (*m < AX_PB_MAX) {
        pb[*m + 1] = 0;
        for (int j = *m + 1; j > 0; j--)
            pb[j] = pb[j] * (1 - q) + pb[j - 1] * q;
        pb[0] *= 1 - q;
    }
    (*m)++;
}

/* E[1 / (c + N)], N of the Poisson-binomial pb of m sharers (of that
 * mean): the share of a node a task gets with c - 1 others computing. */
double ax_pb_inv(const double *pb, int m, double mean, int c)
{
    double f = 0;
    for (int j = 0; j <= m && m <= AX_PB_MAX; j++)
        f += pb[j] / (c + j);
    return m > AX_PB_MAX ? 1 / (c + mean) : f;
}

#define AX_PBS_MEMO 32        /* pbs_inv's answers kept per set of sharers (measured
                                 on bench_approx part (f)'s case f-loop-39: pbs_inv
                                 11% of the samples unkept) */

typedef struct ax_pbs {      /* the sharers of a node beside one computation: */
    double pb[AX_PB_MAX + 2]; /* those taken by a probability (Poisson-binomial, m
                                 of them, of mean mean), */
    int m;
    double mean;
    int nown;                 /* the ghosts' owners in the window taken by their
                                 state (at most AX_GOWN): their positions, */
    int opos[AX_GOWN];
    double oq[AX_GOWN][AX_GPH];   /* their ghosts' share there per phase of the
                                 owner (its computing phase in the state), */
    double oqm[AX_GOWN];      /* and while it computes, its phase not known */
    int mkey[AX_PBS_MEMO];    /* pbs_inv's answers by the owners' phases and c
                                 (direct-mapped; -1 empty): a window's transitions
                                 repeat few of them */
    double mval[AX_PBS_MEMO];
} ax_pbs;

typedef struct ax_shr {      /* processor sharing in one window (share_factors) */
    unsigned same[AX_WMAX];   /* per position: the window's positions on its node, */
    ax_pbs out[AX_WMAX];      /* the sharers outside them, */
    double fac[AX_WMAX][AX_WMAX + 1];   /* by its node's computing positions, the
                                 factor of its rate, no owner computing, */
    int task[AX_WMAX];        /* its task, */
    ax_code rad[AX_WMAX];     /* and its radix in a state's code */
    const ax_code *code;      /* the window's states' codes */
    ax_code nl;
    int ng;                   /* ghosts of owners in the window sharing a node with
                                 some of its positions (at most AX_WMAX): */
    int gpos[AX_WMAX], gk[AX_WMAX];   /* the owner's position, the ghost, */
    unsigned gmask[AX_WMAX];  /* the window's positions on the ghost's node, */
    ax_pbs gout[AX_WMAX];     /* the sharers there outside them, */
    double gbar[AX_WMAX];     /* and the ghost's stretch with every sharer by its
                                 probability (the stretch its owner's rate holds) */
} ax_shr;

/* The computing phase of the task at position p in window state s (-1:
 * not known). */
static int state_phase(const skel_approx *a, const ax_shr *sh, ax_code s, int p)
{
    int x = sh->task[p];
    return ax_local_phase(a, x, (int)(sh->code[s] % sh->nl / sh->rad[p] % a->nloc[x]));
}

/* 1 when owner o's loop body holds a par (ghost_par). */
static int owner_par(const skel_approx *a, int o)
{
    for (int k = 0; a->ghost_par && k < a->nghost; k++)
        if (a->ghost_of[k] == o)
            return a->ghost_par[k];
    return 0;
}

/* Owner o's ghosts on node into slot u of b, at position op: their share
 * of each of o's phases, and mean the share while o computes, its phase
 * not known. A body holding a par: mean in every phase (its branches
 * compute at once, which the phases' shares do not hold). */
static void owner_shares(const skel_approx *a, ax_pbs *b, int op, int o, int node, double mean)
{
    int u = b->nown++, par = owner_par(a, o);
    b->opos[u] = op;
    b->oqm[u] = fmin(1, mean);
    for (int j = 0; j < AX_GPH; j++) {
        double q = 0;
        for (int k = 0; k < a->nghost && !par; k++)
            q += a->ghost_of[k] == o && a->ghost_node[k] == node ? ax_ghost_phase(a, k, j) : 0;
        b->oq[u][j] = par ? b->oqm[u] : fmin(1, q);
    }
}

/* E[1 / (c + N)], N the sharers of b computing in the source state of
 * transition t (its owners by their phase there). */
static double pbs_inv(const skel_approx *a, const ax_shr *sh, ax_pbs *b, const ax_ctr *t,
                      int c)
{
    int ph[AX_GOWN], key = 0;
    for (int u = 0; u < b->nown; u++) {
        int op = b->opos[u], j = t->busy >> op & 1 ? state_phase(a, sh, t->from, op) : -2;
        ph[u] = j;
        key = key * (AX_GPH + 2) + (j >= 0 && j < AX_GPH ? j : j == -2 ? AX_GPH + 1 : AX_GPH);
    }
    key = key * (AX_WMAX + 2) + c;
    int slot = key % AX_PBS_MEMO;
    if (b->mkey[slot] == key)
        return b->mval[slot];
    double q[AX_PB_MAX + 2], mean = b->mean;
    int m = b->m;
    memcpy(q, b->pb, sizeof q);
    for (int u = 0; u < b->nown; u++)
        if (ph[u] != -2)
            ax_pb_add(q, &m, &mean, ph[u] >= 0 && ph[u] < AX_GPH ? b->oq[u][ph[u]] : b->oqm[u]);
    b->mkey[slot] = key;
    return b->mval[slot] = ax_pb_inv(q, m, mean, c);
}

/* A set of sharers, empty. */
static void pbs_clear(ax_pbs *b)
{
    b->pb[0] = 1;
    b->m = b->nown = 0;
    b->mean = 0;
    for (int k = 0; k < AX_PBS_MEMO; k++)
        b->mkey[k] = -1;
}

/* The ghosts on x's node (approx_flow.c's one-server bodies), per owner:
 * an owner in window w and among the first AX_GOWN is kept for a state's
 * condition (its position and its ghosts' share of each of its phases:
 * the state knows which body task computes), any other enters pb while x
 * computes, P(owner computes | x computes) times its share given that x
 * computes, from the owner's phases in which it does (ax_ghost_given): a
 * stage that hands the loop its item computes its next one while the
 * body's first task does. */
static void share_ghosts(skel_approx *a, const ax_win *w, int p, ax_shr *sh)
{
    int x = a->wtask[w->t0 + p];
    ax_pbs *b = &sh->out[p];
    for (int k = 0; k < a->nghost; k++) {
        int o = a->ghost_of[k];
        if (k > 0 && a->ghost_of[k - 1] == o)
            continue;             /* one owner's ghosts once */
        double q = ax_ghost_given(a, o, a->node[x], x);   /* while x computes */
        int op = q >= 0 ? ax_win_pos(a, w, o) : -1;
        if (q >= 0 && op >= 0 && b->nown < AX_GOWN)
            owner_shares(a, b, op, o, a->node[x], q);
        else if (q >= 0)
            ax_pb_add(b->pb, &b->m, &b->mean, fmin(1, q * ax_cond_busy(a, x, o)));
    }
}

/* Per position p: E[1 / (c + N)] for c = 1 .. nmax, N the number of the
 * tasks sharing p's node outside window w that compute, each with its
 * probability of computing given that p's task computes (approx_share.c),
 * taken independent of one another (Poisson-binomial; its mean above
 * AX_PB_MAX sharers), and its ghosts (owners outside the window; those
 * inside by their phase in the state, pbs_inv). */
static void share_outside(skel_approx *a, const ax_win *w, int p, int nmax, ax_shr *sh)
{
    int x = a->wtask[w->t0 + p];
    ax_pbs *b = &sh->out[p];
    for (int k = a->grp0[x]; k < a->grp0[x] + a->grpn[x]; k++) {
        int y = a->bynode[k];
        if (ax_win_pos(a, w, y) < 0)
            ax_pb_add(b->pb, &b->m, &b->mean, ax_cond_busy(a, x, y));
    }
    share_ghosts(a, w, p, sh);
    for (int c = 1; c <= nmax; c++)
        sh->fac[p][c] = ax_pb_inv(b->pb, b->m, b->mean, c);
}

/* Ghost k's sharers (its owner o computing in window w, on node n): the
 * node's tasks outside w by their probability given o's phases in which
 * the ghost computes (approx_flow.c body_slow's), other owners' ghosts
 * there by their state where w holds the owner, else by their pair; into
 * b, and every one of them by its probability into *bar (the ghost's
 * mean stretch, which o's rate holds). */
static void ghost_sharers(const skel_approx *a, const ax_win *w, int k, ax_pbs *b, double *bar)
{
    double all[AX_PB_MAX + 2] = { 1 }, amean = 0;
    int am = 0, o = a->ghost_of[k], n = a->ghost_node[k];
    int nph = a->ghost_ov ? a->ghost_nph[k] : 1;
    const double *ov = a->ghost_ov ? a->ghost_ov + (size_t)k * AX_GPH : NULL;
    pbs_clear(b);
    for (int y = 0; y < a->ntasks; y++) {
        double q = a->node[y] == n ? ax_cond_phase(a, o, y, ov, nph) : -1;
        if (q >= 0)
            ax_pb_add(all, &am, &amean, q);
        if (q >= 0 && ax_win_pos(a, w, y) < 0)
            ax_pb_add(b->pb, &b->m, &b->mean, q);
    }
    for (int g = 0; g < a->nghost; g++) {
        int o2 = a->ghost_of[g];
        if (o2 == o || (g > 0 && a->ghost_of[g - 1] == o2))
            continue;
        double q = ax_ghost_share(a, o2, n);
        int op = q > 0 ? ax_win_pos(a, w, o2) : -1;
        q = q > 0 ? fmin(1, q * ax_cond_busy(a, o, o2)) : 0;
        ax_pb_add(all, &am, &amean, q);
        if (op >= 0 && b->nown < AX_GOWN)
            owner_shares(a, b, op, o2, n, ax_ghost_share(a, o2, n));
        else
            ax_pb_add(b->pb, &b->m, &b->mean, q);
    }
    *bar = 1 / ax_pb_inv(all, am, amean, 1);
}

/* The ghosts of window w's owners on a node some of its positions are
 * on: the owner's pass slows while a sharer in the window computes, as
 * the sharer slows while the ghost does, so that their overlap lasts as
 * long as in the chain (the windows took the ghost's mean stretch). */
static void share_owned(skel_approx *a, const ax_win *w, ax_shr *sh)
{
    sh->ng = 0;
    /* at most AX_WMAX ghosts kept (sh's arrays): one past them leaves its
     * owner's rate to the windows' mean stretch, as every ghost did before
     * owner_factor; a ghost of a body holding a par likewise (ghost_par) */
    for (int k = 0; k < a->nghost && sh->ng < AX_WMAX; k++) {
        int op = a->ghost_par && a->ghost_par[k] ? -1 : ax_win_pos(a, w, a->ghost_of[k]);
        unsigned mask = 0;
        for (int q = 0; op >= 0 && q < w->nt; q++)
            mask |= (unsigned)(a->node[a->wtask[w->t0 + q]] == a->ghost_node[k]) << q;
        int g = sh->ng;
        if (!mask)
            continue;
        sh->gpos[g] = op;
        sh->gk[g] = k;
        sh->gmask[g] = mask;
        ghost_sharers(a, w, k, &sh->gout[g], &sh->gbar[g]);
        sh->ng++;
    }
}

/* Processor sharing (Sharing=ps) in window w: per position p, the window's
 * positions on p's node (same[p]) and, by how many of them compute, the
 * factor of p's rate (fac[p][c]): exact inside the window, the mean over
 * the outside sharers; the ghosts of its owners by their phase in the
 * state. Static sharing: factor 1. */
static void share_factors(skel_approx *a, const ax_win *w, ax_shr *sh)
{
    ax_code r = 1;
    sh->code = a->code + w->p0;
    sh->nl = w->nl;
    sh->ng = 0;
    for (int p = 0; p < w->nt; p++) {
        int x = a->wtask[w->t0 + p], n = 0;
        sh->task[p] = x;
        sh->rad[p] = r;
        r *= a->nloc[x];
        sh->same[p] = 1u << p;
        pbs_clear(&sh->out[p]);
        for (int q = 0; q < w->nt && a->node; q++)
            if (q != p && a->node[a->wtask[w->t0 + q]] == a->node[x])
                sh->same[p] |= 1u << q;
        for (unsigned m = sh->same[p]; m; m &= m - 1)
            n++;
        if (a->node)
            share_outside(a, w, p, n, sh);
        else
            sh->fac[p][1] = 1;
    }
    if (a->node && a->nghost)
        share_owned(a, w, sh);
}

static int popcount(unsigned m)
{
    int n = 0;
    for (; m; m &= m - 1)
        n++;
    return n;
}

/* The factor of owner o's computation t: each of its ghosts, by its share
 * of o's phase in the source state, stretched by its node's sharers
 * computing there (the window's by the state) over its mean stretch. */
static double owner_factor(const skel_approx *a, const ax_ctr *t, ax_shr *sh)
{
    double den = 1;
    int j = -2;
    for (int g = 0; g < sh->ng; g++) {
        if (sh->gpos[g] != t->pos)
            continue;
        if (j == -2)
            j = state_phase(a, sh, t->from, t->pos);
        int k = sh->gk[g];
        double q = j >= 0 ? ax_ghost_phase(a, k, j) : a->ghost_p[k];
        double s = 1 / pbs_inv(a, sh, &sh->gout[g], t, 1 + popcount(t->busy & sh->gmask[g]));
        den += q * (s / sh->gbar[g] - 1);
    }
    /* shares over 1 in all (a body's ghosts on one node) could bring den
     * to 0 or below: at most a tenfold speed-up */
    return 1 / fmax(den, 0.1);
}

static double ctr_rate(const skel_approx *a, const ax_ctr *c, ax_shr *sh)
{
    double r = ctr_base(a, c) * c->w;
    if (c->src != AX_MU)
        return r;
    int p = c->pos, n = popcount(c->busy & sh->same[p]);
    double f = sh->out[p].nown ? pbs_inv(a, sh, &sh->out[p], c, n) : sh->fac[p][n];
    return r * f * (sh->ng ? owner_factor(a, c, sh) : 1);
}

size_t ax_shr_size(void)
{
    return sizeof(ax_shr);
}

void ax_solve_window(skel_approx *a, const ax_win *w)
{
    double *pi = a->pi + w->p0, *prev = a->prev + w->c0;
    const ax_ctr *c = a->ctr + w->c0;
    ax_shr *sh = a->shr;
    share_factors(a, w, sh);
    int unchanged = 1;
    for (int k = 0; k < w->nc; k++) {
        a->rate[k] = ctr_rate(a, &c[k], sh);
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
