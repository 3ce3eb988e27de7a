/* skeleton/approx.c: the throughput approximation (skeleton.h,
 * docs/approximation.md).
 *
 * Every task of the generated model is a cycle of local states (gen.c):
 * per round, receive from one member of a source step, compute, send to one
 * member of a destination step. Two tasks interact only through the move
 * between them, a rendezvous at the link's rate. The approximation keeps
 * each communicating pair exact and replaces every other partner by an
 * exponential delay:
 *
 *   window e = (a -> b):  the product of a's and b's local states; a's and
 *   b's moves with each other at lambda_e; their computations at mu; their
 *   moves with the outside world at lambda; their moves with any other task
 *   c at the delay rate rho measured for that move in c's own window.
 *
 *   rho_send[e] = T_e / P(a ready to send on e),
 *   rho_recv[e] = T_e / P(b ready to receive on e),
 *
 * T_e the move's throughput in window e: the rate at which the wait for
 * the move ends, so the mean time a task spends waiting for a partner is
 * the one the partner's window gives (the decomposition equations of
 * tandem lines with blocking; the partner's own compute and wait are exact
 * inside the window). Sweeps alternate forward and backward over the
 * windows until no delay changes by more than tol. A task alone, or two
 * tasks alone, make one window with no delay: the answer is exact.
 *
 * The job's throughput is the computations per second of the tasks the
 * items enter (every item is computed once by one of them), each task's
 * being the mean of its windows' estimates. */
#include "skeleton.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"

#define AX_DENSE_MAX 96       /* sub-chains solved by elimination up to this size */
#define AX_WMAX 12            /* tasks in one window */

typedef enum ax_src { AX_MU, AX_LAMBDA, AX_RHO_SEND, AX_RHO_RECV } ax_src;

typedef struct ax_ltr {       /* a local transition of one task */
    int from, to;
    int edge;                 /* -1: compute */
    int send;                 /* on edge: 1 sends, 0 receives */
} ax_ltr;

typedef struct ax_ctr {       /* a transition of a sub-chain */
    int from, to;
    ax_src src;
    int idx;                  /* task (AX_MU) or edge */
} ax_ctr;

typedef struct ax_win {
    int t0, nt;               /* its tasks: wtask[t0 .. t0 + nt) */
    int edge;                 /* the move it measures; -1: a lone task */
    int n;                    /* states */
    int c0, nc;               /* its transitions: ctr[c0 .. c0 + nc), by target */
    size_t p0;                /* its distribution: pi[p0 .. p0 + n) */
} ax_win;

struct skel_approx {
    const skel_dag *d;
    int ntasks, nedges;
    skel_approx_opts o;
    int *lstart;              /* per task: its local transitions [lstart[i], lstart[i+1]) */
    int *nloc;                /* per task: local states */
    ax_ltr *ltr;
    int nltr;
    int *wtask;               /* tasks of the windows */
    int nwtask;
    ax_win *win;
    int nwin;
    ax_ctr *ctr;
    int nctr;
    double *pi;               /* every window's distribution (warm starts) */
    size_t npi;
    int *entry;               /* per task: items enter the skeleton here */
    /* per evaluation */
    double *rho_send, *rho_recv;   /* per edge */
    double *rate;             /* per transition of the window being solved */
    double *out;              /* per state: total outgoing rate */
    double *dense;            /* AX_DENSE_MAX^2 */
    double *marg;             /* per local state of one task */
    int maxloc;
    double *xsum;             /* per task: sum of the windows' estimates */
    int *xcnt;
    double *util, *thr;       /* per task, the results */
    const double *mu, *lambda;
    int fresh;                /* no delays yet */
};

static int ax_oom(diag *err)
{
    return diag_set(err, "out of memory");
}

/* ---- local state machines ---------------------------------------------- */

static long gcd_l(long a, long b)
{
    while (b) {
        long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int add_ltr(skel_approx *a, int *cap, ax_ltr t, diag *err)
{
    if (a->nltr == *cap) {
        int nc = *cap ? 2 * *cap : 64;
        if (mem_grow((void **)&a->ltr, (size_t)nc, sizeof *a->ltr) < 0)
            return ax_oom(err);
        *cap = nc;
    }
    a->ltr[a->nltr++] = t;
    return 0;
}

/* The moves of one step of flow f of task i, from local state s to t. */
static int step_moves(skel_approx *a, int *cap, int i, const skel_flow *f, int k, int send,
                      int s, int t, diag *err)
{
    for (int j = f->start[k]; j < f->start[k + 1]; j++) {
        int x = f->tasks[j];
        if (x == i || x == SKEL_NONE)
            return diag_set(err, "approximation: task t%d repeats or drops items "
                                 "(loop/choice), not covered", i);
        int e = send ? skel_dag_edge(a->d, i, x) : skel_dag_edge(a->d, x, i);
        if (e < 0)
            return diag_set(err, "internal error: no edge for a move of task t%d", i);
        if (add_ltr(a, cap, (ax_ltr){ s, t, e, send }, err) < 0)
            return -1;
    }
    return 0;
}

/* Task i's rounds (gen.c): [R_k] -> C_k -> [S_k] -> round k+1. */
static int task_machine(skel_approx *a, int *cap, int i, diag *err)
{
    const skel_flow *S = &a->d->src[i], *D = &a->d->dst[i];
    long ns = S->nsteps, nd = D->nsteps;
    long l = (ns ? ns : 1) / gcd_l(ns ? ns : 1, nd ? nd : 1) * (nd ? nd : 1);
    int per = 1 + (ns > 0) + (nd > 0);
    if (l * per > 4096)
        return diag_set(err, "approximation: task t%d has %ld local states (at most 4096)", i,
                        l * per);
    a->nloc[i] = (int)(l * per);
    for (long k = 0; k < l; k++) {
        int r = (int)(k * per), c = r + (ns > 0), s = c + 1, next = (int)((k + 1) % l * per);
        if (ns && step_moves(a, cap, i, S, (int)(k % ns), 0, r, c, err) < 0)
            return -1;
        if (add_ltr(a, cap, (ax_ltr){ c, nd ? s : next, -1, 0 }, err) < 0)
            return -1;
        if (nd && step_moves(a, cap, i, D, (int)(k % nd), 1, s, next, err) < 0)
            return -1;
    }
    return 0;
}

static int build_machines(skel_approx *a, diag *err)
{
    int cap = 0;
    for (int i = 0; i < a->ntasks; i++) {
        a->lstart[i] = a->nltr;
        if (task_machine(a, &cap, i, err) < 0)
            return -1;
        if (a->nloc[i] > a->maxloc)
            a->maxloc = a->nloc[i];
    }
    a->lstart[a->ntasks] = a->nltr;
    return 0;
}

/* ---- windows ------------------------------------------------------------- */

static int partner(const skel_approx *a, const ax_ltr *t)
{
    skel_edge e = a->d->edges[t->edge];
    return t->send ? e.to : e.from;
}

/* Position of task x in window w, or -1. */
static int win_pos(const skel_approx *a, const ax_win *w, int x)
{
    for (int p = 0; p < w->nt; p++)
        if (a->wtask[w->t0 + p] == x)
            return p;
    return -1;
}

typedef struct ax_cbuf {
    ax_ctr *v;
    int n, cap;
} ax_cbuf;

static int push_ctr(ax_cbuf *b, ax_ctr c, diag *err)
{
    if (b->n == b->cap) {
        int nc = b->cap ? 2 * b->cap : 256;
        if (mem_grow((void **)&b->v, (size_t)nc, sizeof *b->v) < 0)
            return ax_oom(err);
        b->cap = nc;
    }
    b->v[b->n++] = c;
    return 0;
}

/* The receive on edge e of the task at position q in local state l, or NULL. */
static const ax_ltr *find_recv(const skel_approx *a, int x, int l, int e)
{
    for (int k = a->lstart[x]; k < a->lstart[x + 1]; k++)
        if (a->ltr[k].from == l && a->ltr[k].edge == e && !a->ltr[k].send)
            return &a->ltr[k];
    return NULL;
}

/* The transitions of window w out of state s (locals in loc, radix in stride). */
static int state_trans(const skel_approx *a, const ax_win *w, int s, const int *loc,
                       const int *stride, ax_cbuf *b, diag *err)
{
    for (int p = 0; p < w->nt; p++) {
        int x = a->wtask[w->t0 + p];
        for (int k = a->lstart[x]; k < a->lstart[x + 1]; k++) {
            const ax_ltr *t = &a->ltr[k];
            if (t->from != loc[p])
                continue;
            int to = s + (t->to - loc[p]) * stride[p], rc = 0;
            if (t->edge < 0) {
                rc = push_ctr(b, (ax_ctr){ s, to, AX_MU, x }, err);
            } else {
                int y = partner(a, t), q = y >= 0 ? win_pos(a, w, y) : -1;
                if (y < 0)                    /* the outside world is always ready */
                    rc = push_ctr(b, (ax_ctr){ s, to, AX_LAMBDA, t->edge }, err);
                else if (q < 0)               /* a partner outside the window */
                    rc = push_ctr(b, (ax_ctr){ s, to, t->send ? AX_RHO_SEND : AX_RHO_RECV,
                                               t->edge }, err);
                else if (t->send) {           /* the rendezvous, made once by the sender */
                    const ax_ltr *r = find_recv(a, y, loc[q], t->edge);
                    if (r)
                        rc = push_ctr(b, (ax_ctr){ s, to + (r->to - r->from) * stride[q],
                                                   AX_LAMBDA, t->edge }, err);
                }
            }
            if (rc < 0)
                return -1;
        }
    }
    return 0;
}

/* Enumerate window w's states (the product of its tasks' local states). */
static int window_chain(skel_approx *a, ax_win *w, ax_cbuf *b, diag *err)
{
    int stride[AX_WMAX], loc[AX_WMAX];
    unsigned long n = 1;
    for (int p = 0; p < w->nt; p++) {
        stride[p] = (int)n;
        n *= (unsigned long)a->nloc[a->wtask[w->t0 + p]];
    }
    if (n > a->o.max_states)
        return diag_set(err, "approximation: a sub-chain of %lu states (at most %lu)", n,
                        a->o.max_states);
    w->n = (int)n;
    w->c0 = b->n;
    for (int s = 0; s < w->n; s++) {
        for (int p = 0; p < w->nt; p++)
            loc[p] = s / stride[p] % a->nloc[a->wtask[w->t0 + p]];
        if (state_trans(a, w, s, loc, stride, b, err) < 0)
            return -1;
    }
    w->nc = b->n - w->c0;
    return 0;
}

/* Sort window w's transitions by target (Gauss-Seidel reads them so). */
static int sort_by_target(ax_cbuf *b, const ax_win *w, diag *err)
{
    ax_ctr *tmp = malloc((size_t)(w->nc ? w->nc : 1) * sizeof *tmp);
    int *cnt = calloc((size_t)w->n + 1, sizeof *cnt);
    if (!tmp || !cnt) {
        free(tmp);
        free(cnt);
        return ax_oom(err);
    }
    ax_ctr *v = b->v + w->c0;
    for (int k = 0; k < w->nc; k++)
        cnt[v[k].to + 1]++;
    for (int s = 0; s < w->n; s++)
        cnt[s + 1] += cnt[s];
    for (int k = 0; k < w->nc; k++)
        tmp[cnt[v[k].to]++] = v[k];
    memcpy(v, tmp, (size_t)w->nc * sizeof *v);
    free(tmp);
    free(cnt);
    return 0;
}

/* Grow window w (tasks wt[0..*nt)) by the partners of its tasks, nearest
 * first, while the product of local states stays within the window size:
 * the partners' own waits are then exact instead of delays. */
static void grow_window(const skel_approx *a, int *wt, int *nt, unsigned long states)
{
    for (int q = 0; q < *nt && *nt < AX_WMAX; q++) {
        int x = wt[q];
        for (int k = a->lstart[x]; k < a->lstart[x + 1] && *nt < AX_WMAX; k++) {
            const ax_ltr *t = &a->ltr[k];
            int y = t->edge < 0 ? -1 : (t->send ? a->d->edges[t->edge].to
                                                : a->d->edges[t->edge].from), in = 0;
            for (int p = 0; p < *nt; p++)
                in |= wt[p] == y;
            if (y < 0 || in || states * (unsigned long)a->nloc[y] > a->o.window_states)
                continue;
            states *= (unsigned long)a->nloc[y];
            wt[(*nt)++] = y;
        }
    }
}

static int add_window(skel_approx *a, int *wcap, int t0, int t1, int edge, ax_cbuf *b,
                      diag *err)
{
    if (a->nwin == *wcap) {
        int nc = *wcap ? 2 * *wcap : 16;
        if (mem_grow((void **)&a->win, (size_t)nc, sizeof *a->win) < 0)
            return ax_oom(err);
        *wcap = nc;
    }
    int wt[AX_WMAX] = { t0, t1 }, nt = t1 < 0 ? 1 : 2;
    unsigned long states = (unsigned long)a->nloc[t0] * (t1 < 0 ? 1UL : (unsigned long)a->nloc[t1]);
    grow_window(a, wt, &nt, states);
    if (mem_grow((void **)&a->wtask, (size_t)a->nwtask + (size_t)nt, sizeof *a->wtask) < 0)
        return ax_oom(err);
    ax_win *w = &a->win[a->nwin];
    w->t0 = a->nwtask;
    w->nt = nt;
    w->edge = edge;
    for (int p = 0; p < nt; p++)
        a->wtask[a->nwtask++] = wt[p];
    if (window_chain(a, w, b, err) < 0 || sort_by_target(b, w, err) < 0)
        return -1;
    w->p0 = a->npi;
    a->npi += (size_t)w->n;
    a->nwin++;
    return 0;
}

/* One window per move between two tasks; one per task with no such move. */
static int build_windows(skel_approx *a, diag *err)
{
    ax_cbuf b = { 0 };
    int wcap = 0, rc = 0;
    int *linked = calloc((size_t)a->ntasks, sizeof *linked);
    if (!linked)
        rc = ax_oom(err);
    for (int e = 0; e < a->nedges && rc == 0; e++) {
        skel_edge ed = a->d->edges[e];
        if (ed.from < 0 || ed.to < 0)
            continue;
        linked[ed.from] = linked[ed.to] = 1;
        rc = add_window(a, &wcap, ed.from, ed.to, e, &b, err);
    }
    for (int i = 0; i < a->ntasks && rc == 0; i++)
        if (!linked[i])
            rc = add_window(a, &wcap, i, -1, -1, &b, err);
    free(linked);
    a->ctr = b.v;
    a->nctr = b.n;
    return rc;
}

/* ---- the workspace ------------------------------------------------------ */

static void mark_entries(skel_approx *a)
{
    for (int i = 0; i < a->ntasks; i++)
        a->entry[i] = a->d->style == SKEL_STYLE_PRODUCER && a->d->src[i].nsteps == 0;
    for (int e = 0; e < a->nedges; e++)
        if (a->d->edges[e].from == SKEL_IN && a->d->edges[e].to >= 0)
            a->entry[a->d->edges[e].to] = 1;
}

static int alloc_eval(skel_approx *a, diag *err)
{
    size_t nt = (size_t)a->ntasks + 1, ne = (size_t)a->nedges + 1;
    int maxn = 1, maxc = 1;
    for (int w = 0; w < a->nwin; w++) {
        maxn = a->win[w].n > maxn ? a->win[w].n : maxn;
        maxc = a->win[w].nc > maxc ? a->win[w].nc : maxc;
    }
    a->pi = malloc((a->npi + 1) * sizeof *a->pi);
    a->rho_send = malloc(ne * sizeof *a->rho_send);
    a->rho_recv = malloc(ne * sizeof *a->rho_recv);
    a->rate = malloc((size_t)maxc * sizeof *a->rate);
    a->out = malloc((size_t)maxn * sizeof *a->out);
    a->dense = malloc((size_t)AX_DENSE_MAX * AX_DENSE_MAX * sizeof *a->dense);
    a->marg = malloc((size_t)(a->maxloc + 1) * sizeof *a->marg);
    a->xsum = malloc(nt * sizeof *a->xsum);
    a->xcnt = malloc(nt * sizeof *a->xcnt);
    a->util = calloc(nt, sizeof *a->util);
    a->thr = calloc(nt, sizeof *a->thr);
    if (!a->pi || !a->rho_send || !a->rho_recv || !a->rate || !a->out || !a->dense ||
        !a->marg || !a->xsum || !a->xcnt || !a->util || !a->thr)
        return ax_oom(err);
    return 0;
}

skel_approx *skel_approx_new(const skel_dag *d, const skel_approx_opts *opts, diag *err)
{
    if (d->extended || d->ngates)
        return diag_set(err, "approximation: par/choice/loop are not covered (use simulate "
                             "or the exact chain)"), NULL;
    skel_approx *a = calloc(1, sizeof *a);
    if (!a)
        return ax_oom(err), NULL;
    a->d = d;
    a->ntasks = d->ntasks;
    a->nedges = d->nedges;
    a->fresh = 1;
    if (opts)
        a->o = *opts;
    a->o.max_iter = a->o.max_iter > 0 ? a->o.max_iter : 500;
    a->o.tol = a->o.tol > 0 ? a->o.tol : 1e-9;
    a->o.max_states = a->o.max_states ? a->o.max_states : 4096;
    a->o.window_states = a->o.window_states ? a->o.window_states : 1;
    size_t nt = (size_t)a->ntasks + 1;
    a->lstart = malloc(nt * sizeof *a->lstart);
    a->nloc = malloc(nt * sizeof *a->nloc);
    a->entry = malloc(nt * sizeof *a->entry);
    if (!a->lstart || !a->nloc || !a->entry) {
        ax_oom(err);
        goto fail;
    }
    mark_entries(a);
    if (build_machines(a, err) < 0 || build_windows(a, err) < 0 || alloc_eval(a, err) < 0)
        goto fail;
    return a;
fail:
    skel_approx_free(a);
    return NULL;
}

void skel_approx_free(skel_approx *a)
{
    if (!a)
        return;
    free(a->lstart);
    free(a->nloc);
    free(a->ltr);
    free(a->wtask);
    free(a->win);
    free(a->ctr);
    free(a->pi);
    free(a->entry);
    free(a->rho_send);
    free(a->rho_recv);
    free(a->rate);
    free(a->out);
    free(a->dense);
    free(a->marg);
    free(a->xsum);
    free(a->xcnt);
    free(a->util);
    free(a->thr);
    free(a);
}

const double *skel_approx_task_util(const skel_approx *a)
{
    return a->util;
}

const double *skel_approx_task_throughput(const skel_approx *a)
{
    return a->thr;
}

/* ---- solving one window ------------------------------------------------- */

static double ctr_rate(const skel_approx *a, const ax_ctr *c)
{
    switch (c->src) {
    case AX_MU:
        return a->mu[c->idx];
    case AX_LAMBDA:
        return a->lambda[c->idx];
    case AX_RHO_SEND:
        return a->rho_send[c->idx];
    default:
        return a->rho_recv[c->idx];
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

/* Gauss-Seidel from the previous distribution, for larger windows. */
static void solve_gs(skel_approx *a, const ax_win *w, double *pi)
{
    const ax_ctr *c = a->ctr + w->c0;
    for (int s = 0; s < w->n; s++)
        a->out[s] = 0;
    for (int k = 0; k < w->nc; k++)
        a->out[c[k].from] += a->rate[k];
    for (int sweep = 0; sweep < 5000; sweep++) {
        double delta = 0, sum = 0;
        for (int s = 0, k = 0; s < w->n; s++) {
            double in = 0;
            for (; k < w->nc && c[k].to == s; k++)
                in += pi[c[k].from] * a->rate[k];
            double v = a->out[s] > 0 ? in / a->out[s] : pi[s];
            delta = fmax(delta, fabs(v - pi[s]));
            pi[s] = v;
            sum += v;
        }
        for (int s = 0; s < w->n; s++)
            pi[s] /= sum;
        if (delta <= 1e-14 * sum)
            break;
    }
}

static void solve_window(skel_approx *a, const ax_win *w)
{
    double *pi = a->pi + w->p0;
    const ax_ctr *c = a->ctr + w->c0;
    for (int k = 0; k < w->nc; k++)
        a->rate[k] = ctr_rate(a, &c[k]);
    if (w->n <= AX_DENSE_MAX)
        solve_dense(a, w, pi);
    else
        solve_gs(a, w, pi);
}

/* ---- measures and the fixed point --------------------------------------- */

/* Marginal distribution of the task at position p of window w. */
static void marginal(skel_approx *a, const ax_win *w, int p)
{
    int x = a->wtask[w->t0 + p], stride = 1;
    for (int q = 0; q < p; q++)
        stride *= a->nloc[a->wtask[w->t0 + q]];
    memset(a->marg, 0, (size_t)a->nloc[x] * sizeof *a->marg);
    const double *pi = a->pi + w->p0;
    for (int s = 0; s < w->n; s++)
        a->marg[s / stride % a->nloc[x]] += pi[s];
}

/* Probability that task x (marginal in a->marg) is ready for edge e on its
 * side; adds x's computations per second to its estimate. */
static double ready(skel_approx *a, int x, int e, int send)
{
    double p = 0, comp = 0;
    for (int k = a->lstart[x]; k < a->lstart[x + 1]; k++) {
        const ax_ltr *t = &a->ltr[k];
        if (t->edge < 0)
            comp += a->marg[t->from];
        else if (t->edge == e && t->send == send)
            p += a->marg[t->from];
    }
    a->xsum[x] += comp * a->mu[x];
    a->xcnt[x]++;
    return p;
}

static double rel_change(double old, double v)
{
    return fabs(v - old) / fmax(fabs(v), 1e-300);
}

/* Solve window w and update the delays of its move; returns their change. */
static double update_window(skel_approx *a, const ax_win *w)
{
    solve_window(a, w);
    if (w->edge < 0) {
        marginal(a, w, 0);
        ready(a, a->wtask[w->t0], -1, 0);
        return 0;
    }
    double te = 0;
    const ax_ctr *c = a->ctr + w->c0;
    const double *pi = a->pi + w->p0;
    for (int k = 0; k < w->nc; k++)
        if (c[k].src == AX_LAMBDA && c[k].idx == w->edge)
            te += pi[c[k].from] * a->rate[k];
    marginal(a, w, 0);
    double ps = ready(a, a->wtask[w->t0], w->edge, 1);
    marginal(a, w, 1);
    double pr = ready(a, a->wtask[w->t0 + 1], w->edge, 0);
    double rs = ps > 0 ? te / ps : a->lambda[w->edge];
    double rr = pr > 0 ? te / pr : a->lambda[w->edge];
    double ch = fmax(rel_change(a->rho_send[w->edge], rs), rel_change(a->rho_recv[w->edge], rr));
    a->rho_send[w->edge] = rs;
    a->rho_recv[w->edge] = rr;
    return ch;
}

static double sweep(skel_approx *a, int backward)
{
    double ch = 0;
    memset(a->xsum, 0, (size_t)a->ntasks * sizeof *a->xsum);
    memset(a->xcnt, 0, (size_t)a->ntasks * sizeof *a->xcnt);
    for (int k = 0; k < a->nwin; k++) {
        const ax_win *w = &a->win[backward ? a->nwin - 1 - k : k];
        ch = fmax(ch, update_window(a, w));
    }
    return ch;
}

static int check_rates(const skel_approx *a, const double *mu, const double *lambda, diag *err)
{
    for (int i = 0; i < a->ntasks; i++)
        if (!(mu[i] > 0) || !isfinite(mu[i]))
            return diag_set(err, "approximation: compute rate of t%d is %g", i, mu[i]);
    for (int e = 0; e < a->nedges; e++)
        if (!(lambda[e] > 0) || !isfinite(lambda[e]))
            return diag_set(err, "approximation: rate of move %d is %g", e, lambda[e]);
    return 0;
}

static void finish(skel_approx *a, skel_approx_result *r)
{
    r->throughput = 0;
    r->bottleneck = 0;
    for (int i = 0; i < a->ntasks; i++) {
        a->thr[i] = a->xcnt[i] ? a->xsum[i] / a->xcnt[i] : 0;
        a->util[i] = a->thr[i] / a->mu[i];
        if (a->entry[i])
            r->throughput += a->thr[i];
        if (a->util[i] > a->util[r->bottleneck])
            r->bottleneck = i;
    }
}

int skel_approx_eval(skel_approx *a, const double *mu, const double *lambda,
                     skel_approx_result *r, diag *err)
{
    if (check_rates(a, mu, lambda, err) < 0)
        return -1;
    a->mu = mu;
    a->lambda = lambda;
    if (a->fresh) {
        for (int e = 0; e < a->nedges; e++)
            a->rho_send[e] = a->rho_recv[e] = lambda[e];
        for (int w = 0; w < a->nwin; w++)
            for (int s = 0; s < a->win[w].n; s++)
                a->pi[a->win[w].p0 + (size_t)s] = 1.0 / a->win[w].n;
        a->fresh = 0;
    }
    memset(r, 0, sizeof *r);
    do {
        r->change = sweep(a, r->iterations & 1);
        r->iterations++;
    } while (r->change > a->o.tol && r->iterations < a->o.max_iter);
    r->converged = r->change <= a->o.tol;
    finish(a, r);
    return 0;
}

int skel_approx_place(skel_approx *a, const skel_model *m, const skel_platform *p,
                      const int *node_of_task, skel_approx_result *r, diag *err)
{
    double *mu = malloc((size_t)(m->ntasks + 1) * sizeof *mu);
    double *lambda = malloc((size_t)(m->nedges + 1) * sizeof *lambda);
    int rc = -1;
    if (!mu || !lambda)
        ax_oom(err);
    else if (skel_place_rates(m, p, node_of_task, mu, lambda, err) == 0)
        rc = skel_approx_eval(a, mu, lambda, r, err);
    free(lambda);
    free(mu);
    return rc;
}
