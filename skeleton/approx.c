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
#include "approx_link.h"
#include "internal.h"
#include "skeleton.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/clock.h"
#include "../base/mem.h"
#include "../pepa/ctmc.h"
#include "../pepa/solve.h"

#define AX_DENSE_MAX 128      /* sub-chains solved by elimination up to this size
                                 (a window of three tasks and two partner bits: 108) */
#define AX_GROW 81            /* default grow_states: windows of four pipeline tasks
                                 (bench_approx: pipelines' p95 7.5% -> 4.9% against
                                 three, farms' 6.3% -> 3.4%) */
#define AX_PAIR_CORE 3        /* co-located pairs are measured among a window's first
                                 three tasks (its move's and the first neighbour) */
#define AX_WMAX 16            /* tasks in one window */
#define AX_PB_MAX 48          /* outside sharers of a node counted exactly */
#define AX_HIST 3             /* snapshots kept for the extrapolation */
#define AX_NCLASS 8           /* rate classes kept per structural class of members */
#define AX_WLINK 16           /* link components in one window (approx_link.h) */
#define AX_WPOS (AX_WMAX + AX_WLINK)
#define AX_LINK_GROW 1200     /* a window with links grows within this many states
                                 (measured on bench_approx part (d): pipelines'
                                 mean error 2.48% -> 2.03%, max 21.5% -> 18.3%) */

typedef enum ax_src {
    AX_MU, AX_LAMBDA,                 /* a computation, a move at its link's rate */
    AX_RHO_SEND, AX_RHO_RECV,         /* a move with an outside partner, as a delay */
    AX_ALPHA_SEND, AX_ALPHA_RECV,     /* an outside partner becomes ready for it */
    AX_GAMMA_SEND, AX_GAMMA_RECV,     /* ... or stops being ready (it chose another) */
    AX_XFER,                          /* a phase of a link's transfer, at lambda */
    AX_HANDOFF, AX_TAKE               /* a buffer takes an item from its sender, gives
                                         one to its receiver (at handoff) */
} ax_src;

typedef struct ax_ltr {       /* a local transition of one task */
    int from, to;
    int edge;                 /* -1: compute (one phase of it) */
    int send;                 /* on edge: 1 sends, 0 receives */
    int done;                 /* compute: the item's last phase */
    double w;                 /* its rate over mu (compute) or lambda (move):
                                 Erlang and H2 phase rates, branch probabilities */
} ax_ltr;

typedef int64_t ax_code;      /* a window state's product code (its tasks' local
                                 states, then its bits), or its index */

typedef struct ax_ctr {       /* a transition of a sub-chain */
    ax_code from, to;
    ax_src src;
    int idx;                  /* task (AX_MU) or edge */
    int cnt;                  /* delays: edges idx .. idx + cnt - 1 (a farm's
                                 members, one transition); else 0 */
    int leave;                /* 1: the window's sender stops being ready for its
                                 move, 2: its receiver does (flags) */
    int pos;                  /* AX_MU: the computing task's position in the window */
    int done;                 /* AX_MU: an item completes */
    unsigned busy;            /* AX_MU: window positions computing in the source state */
    double w;                 /* rate factor (ax_ltr.w, a product for a rendezvous) */
} ax_ctr;

typedef struct ax_bit {       /* an outside partner kept as ready / not ready */
    int edge;
    int partner_sends;        /* the partner is the edge's sender */
} ax_bit;

typedef struct ax_win {
    int t0, nt;               /* its tasks: wtask[t0 .. t0 + nt) */
    int edge;                 /* the move it measures; -1: a lone task */
    int n;                    /* states reachable from the start */
    ax_code nl;               /* local combinations (the bits' radix) */
    int b0, nb;               /* its partners kept as a state bit: bit[b0 .. b0 + nb) */
    int c0, nc;               /* its transitions: ctr[c0 .. c0 + nc), by target */
    int k0, nk;               /* its links' components: wlink[k0 .. k0 + nk), after
                                 its tasks in the product */
    size_t p0;                /* its distribution: pi[p0 .. p0 + n) */
    int a0, a1;               /* the move's tasks (a1 -1: a lone task) */
    int built;                /* 0: not yet (a farm member's, built when needed) */
} ax_win;

typedef struct ax_nt {       /* a task and its node (grouping by node) */
    int node, task;
} ax_nt;

struct skel_approx {
    const skel_dag *d;
    int ntasks, nedges;
    skel_approx_opts o;
    int *lstart;              /* per task: its local transitions [lstart[i], lstart[i+1]) */
    int *nloc;                /* per task: local states */
    int *loff;                /* per task: its local states' flags busy[loff[i] ..] */
    unsigned char *busy;      /* per local state: the task computes (any phase) */
    int *nch;                 /* per local state: its choices (nchoices) */
    int nbusy;
    int deal;                 /* some task has several rounds (a deal) */
    double *scv;              /* per task: its work's scv (1: exponential) */
    ax_ltr *ltr;
    int nltr;
    ax_links links;           /* the moves with a buffer or phases (approx_link.h) */
    int *wlink;               /* links of the windows */
    int nwlink;
    double handoff;           /* a buffer's hand-off and take rate */
    int *wtask;               /* tasks of the windows */
    int nwtask;
    ax_bit *bit;              /* partners of the windows */
    ax_code *code;            /* per window state: its product code */
    int nbit;
    ax_win *win;
    int nwin;
    ax_ctr *ctr;
    int nctr, ctrcap;
    int maxc;                 /* transitions of the largest window built */
    double *pi;               /* every window's distribution (warm starts) */
    size_t npi;
    int *entry;               /* per task: items enter the skeleton here */
    /* per evaluation */
    double *rho_send, *rho_recv;   /* per edge */
    double *fen_send, *fen_recv;   /* their Fenwick trees, nedges + 1 */
    unsigned char *as_bit;    /* per edge: some window keeps a partner of it as a bit */
    double *alpha_send, *alpha_recv, *gamma_send, *gamma_recv;   /* per edge */
    double *rate;             /* per transition of the window being solved */
    double *prev;             /* per transition of every window: its last rate */
    double *dense;            /* AX_DENSE_MAX^2 */
    double *marg;             /* per local state of one task */
    int maxloc;
    double *xsum;             /* per task: sum of the windows' estimates */
    double *bsum;             /* per task: sum of their probabilities of computing */
    int *xcnt;
    double *util, *thr;       /* per task, the results */
    const double *mu, *lambda;
    const int *node;          /* Sharing=ps: per task its node; NULL: static */
    int *bynode;              /* tasks sorted by node (ps) */
    ax_nt *pairs;             /* scratch for sorting them */
    int *grp0, *grpn;         /* per task: its node's tasks bynode[grp0 .. + grpn) */
    double *pbusy;            /* per task: probability it computes (ps partners) */
    double *pb;               /* Poisson-binomial scratch, AX_PB_MAX + 2 */
    int64_t *pkey;            /* ps: ordered pairs (x, y) of tasks on one node that
                                 some solved window holds, x * ntasks + y, sorted */
    double *pcond;            /* per pair: P(y computes | x computes) */
    double *pjs, *pxs;        /* per pair: the sweep's sums of P(both), P(x computes) */
    int npair, paircap;
    int *srep;                /* per task: first member of its structural class
                                 (interchangeable but for the rates) */
    int *use_s, *use_r;       /* per edge: the sender's / receiver's local state
                                 that moves on it (-2: several) */
    int *rep, *erep;          /* per evaluation: each task's / edge's representative */
    int *ehead, *enext;       /* per rep edge: the chain of edges copying it */
    int *rr, *nrr;            /* per structural class: its rate classes' reps */
    double *hist;             /* AX_HIST snapshots of the delays (extrapolation) */
    int nhist;
    int fresh;                /* no delays yet */
    int late;                 /* the deadline passed during an evaluation */
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

/* A transition into local state t of task i; into the start of its
 * computation under H2 work it forks to the branch of the next item,
 * probability p for the first (skel_h2; gen.c picks it as the previous
 * item completes, which nothing observes before this one starts). */
static int add_into(skel_approx *a, int *cap, int i, ax_ltr t, int comp0, diag *err)
{
    if (t.to != comp0 || !(a->scv[i] > 1))
        return add_ltr(a, cap, t, err);
    double p, ra, rb;
    skel_h2(a->scv[i], &p, &ra, &rb);
    ax_ltr u = t;
    t.w *= p;
    u.w *= 1 - p;
    u.to = comp0 + 1;
    return add_ltr(a, cap, t, err) < 0 ? -1 : add_ltr(a, cap, u, err);
}

/* The moves of one step of flow f of task i, from local state s to t. */
static int step_moves(skel_approx *a, int *cap, int i, const skel_flow *f, int k, int send,
                      int s, int t, int comp0, diag *err)
{
    for (int j = f->start[k]; j < f->start[k + 1]; j++) {
        int x = f->tasks[j];
        if (x == i || x == SKEL_NONE)
            return diag_set(err, "approximation: task t%d repeats or drops items "
                                 "(loop/choice), not covered", i);
        int e = send ? skel_dag_edge(a->d, i, x) : skel_dag_edge(a->d, x, i);
        if (e < 0)
            return diag_set(err, "internal error: no edge for a move of task t%d", i);
        if (add_into(a, cap, i, (ax_ltr){ s, t, e, send, 0, 1.0 }, comp0, err) < 0)
            return -1;
    }
    return 0;
}

/* Phases of task i's work: Erlang-k (k phases of rate k mu), H2 (two
 * branches, rates ra mu and rb mu), or one (gen.c's proc_graph). */
static int work_phases(const skel_approx *a, int i)
{
    return a->scv[i] > 1 ? 2 : skel_erlang_phases(a->scv[i]);
}

/* The computation of round k: phases from c, then to t (next: the first
 * state of the next round, a computation when the task receives nothing). */
static int compute(skel_approx *a, int *cap, int i, int c, int t, int next_comp, diag *err)
{
    int K = work_phases(a, i), rc = 0;
    for (int ph = 0; ph < K; ph++)
        a->busy[a->loff[i] + c + ph] = 1;
    if (a->scv[i] > 1) {
        double p, ra, rb;
        skel_h2(a->scv[i], &p, &ra, &rb);
        rc = add_into(a, cap, i, (ax_ltr){ c, t, -1, 0, 1, ra }, next_comp, err);
        return rc < 0 ? -1 : add_into(a, cap, i, (ax_ltr){ c + 1, t, -1, 0, 1, rb }, next_comp, err);
    }
    for (int ph = 0; ph < K - 1 && rc == 0; ph++)
        rc = add_ltr(a, cap, (ax_ltr){ c + ph, c + ph + 1, -1, 0, 0, (double)K }, err);
    return rc < 0 ? -1 : add_into(a, cap, i, (ax_ltr){ c + K - 1, t, -1, 0, 1, (double)K },
                                  next_comp, err);
}

/* Task i's rounds (gen.c): [R_k] -> C_k (its phases) -> [S_k] -> round k+1. */
static int task_machine(skel_approx *a, int *cap, int i, diag *err)
{
    const skel_flow *S = &a->d->src[i], *D = &a->d->dst[i];
    long ns = S->nsteps, nd = D->nsteps;
    long l = (ns ? ns : 1) / gcd_l(ns ? ns : 1, nd ? nd : 1) * (nd ? nd : 1);
    int K = work_phases(a, i), per = K + (ns > 0) + (nd > 0);
    if (l * per > 4096)
        return diag_set(err, "approximation: task t%d has %ld local states (at most 4096)", i,
                        l * per);
    a->nloc[i] = (int)(l * per);
    a->deal |= l > 1;
    a->loff[i] = a->nbusy;
    a->nbusy += a->nloc[i];
    if (mem_grow((void **)&a->busy, (size_t)a->nbusy, sizeof *a->busy) < 0)
        return ax_oom(err);
    memset(a->busy + a->loff[i], 0, (size_t)a->nloc[i]);
    for (long k = 0; k < l; k++) {
        int r = (int)(k * per), c = r + (ns > 0), s = c + K, next = (int)((k + 1) % l * per);
        int nc = ns ? -1 : next;          /* the next round starts by computing */
        if (ns && step_moves(a, cap, i, S, (int)(k % ns), 0, r, c, c, err) < 0)
            return -1;
        if (compute(a, cap, i, c, nd ? s : next, nd ? -1 : nc, err) < 0)
            return -1;
        if (nd && step_moves(a, cap, i, D, (int)(k % nd), 1, s, next, nc, err) < 0)
            return -1;
    }
    return 0;
}

/* Per local state, its choices (nchoices): a farm's producer has a
 * thousand, so they are counted once, not per window. */
static int count_choices(skel_approx *a, diag *err)
{
    if (!(a->nch = calloc((size_t)a->nbusy + 1, sizeof *a->nch)))
        return ax_oom(err);
    for (int i = 0; i < a->ntasks; i++)
        for (int k = a->lstart[i]; k < a->lstart[i + 1]; k++) {
            const ax_ltr *t = &a->ltr[k], *u = k > a->lstart[i] ? t - 1 : NULL;
            a->nch[a->loff[i] + t->from] += !(u && u->from == t->from && u->edge == t->edge);
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
    return count_choices(a, err);
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
    int start;                /* the window being built starts here */
    int win_t0;               /* its tasks: wtask[win_t0 ..] */
} ax_cbuf;

static int push_ctr(ax_cbuf *b, ax_ctr c, diag *err)
{
    ax_ctr *last = b->n > b->start ? &b->v[b->n - 1] : NULL;
    if (c.src == AX_RHO_SEND || c.src == AX_RHO_RECV) {
        if (last && last->from == c.from && last->to == c.to && last->src == c.src &&
            last->idx + last->cnt == c.idx && last->w == c.w) {
            last->cnt++;          /* the next member of the same choice */
            return 0;
        }
        c.cnt = 1;
    }
    if (b->n == b->cap) {
        int nc = b->cap ? 2 * b->cap : 256;
        if (mem_grow((void **)&b->v, (size_t)nc, sizeof *b->v) < 0)
            return ax_oom(err);
        b->cap = nc;
    }
    b->v[b->n++] = c;
    return 0;
}

/* The rendezvous of send t with the receives on its edge of the task at
 * position q (in local state lq): one transition per receive (an H2
 * receiver forks), at the product of their weights (and wl, the link's). */
static int rendezvous(const skel_approx *a, const ax_ltr *t, int q, int lq, ax_code s,
                      ax_code to, const ax_code *stride, double wl, ax_cbuf *b, diag *err)
{
    int y = a->wtask[b->win_t0 + q];
    for (int k = a->lstart[y]; k < a->lstart[y + 1]; k++) {
        const ax_ltr *r = &a->ltr[k];
        if (r->from != lq || r->edge != t->edge || r->send)
            continue;
        ax_ctr c = { s, to + (r->to - r->from) * stride[q], AX_LAMBDA, t->edge, 0, 0, 0, 0, 0,
                     t->w * r->w * wl };
        if (push_ctr(b, c, err) < 0)
            return -1;
    }
    return 0;
}

/* Bit of window w for edge e, or -1. */
static int win_bit(const skel_approx *a, const ax_win *w, int e)
{
    for (int k = 0; k < w->nb; k++)
        if (a->bit[w->b0 + k].edge == e)
            return k;
    return -1;
}

/* A move of the task at position p with partner y outside window w. */
static int outside_move(const skel_approx *a, const ax_win *w, const ax_ltr *t, ax_code s,
                        ax_code to, ax_cbuf *b, diag *err)
{
    int k = win_bit(a, w, t->edge);
    if (k < 0)
        return push_ctr(b, (ax_ctr){ s, to, t->send ? AX_RHO_SEND : AX_RHO_RECV, t->edge, 0, 0,
                                     0, 0, 0, t->w }, err);
    int mask = (int)(s / w->nl);
    if (!(mask >> k & 1))
        return 0;                     /* the partner is not ready */
    return push_ctr(b, (ax_ctr){ s, to - w->nl * (1 << k), AX_LAMBDA, t->edge, 0, 0, 0, 0, 0,
                                 t->w }, err);
}

/* ---- links with a buffer or phases in a window (approx_link.h) ---------- */

static int is_ready(const skel_approx *a, int x, int l, int e, int send);

/* Position of edge e's link among window w's components, or -1. */
static int win_link(const skel_approx *a, const ax_win *w, int e)
{
    for (int k = 0; k < w->nk; k++)
        if (a->wlink[w->k0 + k] == e)
            return w->nt + k;
    return -1;
}

/* Move t (edge e) of a task whose link is the window's component at
 * position k. Buffered: the sender's hand-off, or the receiver's take,
 * meets the link alone. A rendezvous with phases meets the link and the
 * partner (at position q; q < 0: the outside world, always ready), made
 * once, by the sender, when both tasks are in the window. */
static int link_move(const skel_approx *a, const ax_ltr *t, int q, const int *loc, int k,
                     ax_code s, ax_code to, const ax_code *stride, ax_cbuf *b, diag *err)
{
    int e = t->edge, n, buffered = a->links.buffer[e] > 0;
    if (!buffered && q >= 0 && !t->send)
        return 0;
    ax_lact want = buffered && !t->send ? AX_LINK_TAKE : AX_LINK_MOVE;
    ax_src src = !buffered ? AX_LAMBDA : t->send ? AX_HANDOFF : AX_TAKE;
    const ax_ltrans *lt = ax_link_from(&a->links, e, loc[k], &n);
    for (int j = 0; j < n; j++) {
        ax_code to2 = to + (lt[j].to - loc[k]) * stride[k];
        int rc = 0;
        if (lt[j].act != want)
            continue;
        if (!buffered && q >= 0)
            rc = rendezvous(a, t, q, loc[q], s, to2, stride, lt[j].w, b, err);
        else
            rc = push_ctr(b, (ax_ctr){ s, to2, src, e, 0, 0, 0, 0, 0, t->w * lt[j].w }, err);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Is the sender (send) or receiver of edge e ready for it: the outside
 * world always; a task of window w when its local state offers it. */
static int end_ready(const skel_approx *a, const ax_win *w, int e, int send, const int *loc)
{
    int x = send ? a->d->edges[e].from : a->d->edges[e].to, p = x < 0 ? -1 : win_pos(a, w, x);
    return x < 0 || (p >= 0 && is_ready(a, x, loc[p], e, send));
}

/* The phases of the link at position k that advance on their own: a
 * buffer's items in transit always; a rendezvous's only while both ends
 * offer the move (gen.c: the tasks offer xfer only there). */
static int link_xfer(const skel_approx *a, const ax_win *w, int k, ax_code s, const int *loc,
                     const ax_code *stride, ax_cbuf *b, diag *err)
{
    int e = a->wlink[w->k0 + k - w->nt], n;
    if (!a->links.buffer[e] && !(end_ready(a, w, e, 1, loc) && end_ready(a, w, e, 0, loc)))
        return 0;
    const ax_ltrans *lt = ax_link_from(&a->links, e, loc[k], &n);
    for (int j = 0; j < n; j++)
        if (lt[j].act == AX_LINK_XFER &&
            push_ctr(b, (ax_ctr){ s, s + (lt[j].to - loc[k]) * stride[k], AX_XFER, e, 0, 0, 0, 0,
                                  0, lt[j].w }, err) < 0)
            return -1;
    return 0;
}

/* The transitions of window w out of state s (locals in loc, radix in stride). */
static int state_trans(const skel_approx *a, const ax_win *w, ax_code s, const int *loc,
                       const ax_code *stride, ax_cbuf *b, diag *err)
{
    unsigned busy = 0;
    for (int p = 0; p < w->nt; p++)
        busy |= (unsigned)a->busy[a->loff[a->wtask[w->t0 + p]] + loc[p]] << p;
    for (int p = 0; p < w->nt; p++) {
        int x = a->wtask[w->t0 + p];
        for (int k = a->lstart[x]; k < a->lstart[x + 1]; k++) {
            const ax_ltr *t = &a->ltr[k];
            if (t->from != loc[p])
                continue;
            ax_code to = s + (t->to - loc[p]) * stride[p];
            int rc = 0;
            if (t->edge < 0) {
                rc = push_ctr(b, (ax_ctr){ s, to, AX_MU, x, 0, 0, p, t->done, busy, t->w }, err);
            } else {
                int y = partner(a, t), q = y >= 0 ? win_pos(a, w, y) : -1;
                int lk = w->nk ? win_link(a, w, t->edge) : -1;
                if (lk >= 0)
                    rc = link_move(a, t, q, loc, lk, s, to, stride, b, err);
                else if (y < 0)               /* the outside world is always ready */
                    rc = push_ctr(b, (ax_ctr){ s, to, AX_LAMBDA, t->edge, 0, 0, 0, 0, 0, t->w },
                                  err);
                else if (q < 0)
                    rc = outside_move(a, w, t, s, to, b, err);
                else if (t->send)             /* the rendezvous, made once by the sender */
                    rc = rendezvous(a, t, q, loc[q], s, to, stride, 1.0, b, err);
            }
            if (rc < 0)
                return -1;
        }
    }
    for (int k = w->nt; k < w->nt + w->nk; k++)
        if (link_xfer(a, w, k, s, loc, stride, b, err) < 0)
            return -1;
    int mask = (int)(s / w->nl);
    for (int k = 0; k < w->nb; k++) {         /* outside partners change readiness */
        const ax_bit *bt = &a->bit[w->b0 + k];
        int on = mask >> k & 1;
        ax_code to = s + (on ? -1 : 1) * w->nl * (1 << k);
        ax_src src = on ? (bt->partner_sends ? AX_GAMMA_SEND : AX_GAMMA_RECV)
                        : (bt->partner_sends ? AX_ALPHA_SEND : AX_ALPHA_RECV);
        if (push_ctr(b, (ax_ctr){ s, to, src, bt->edge, 0, 0, 0, 0, 0, 1.0 }, err) < 0)
            return -1;
    }
    return 0;
}

/* Is task x in local state l ready for edge e on its side? (In one
 * local state only, as use_s / use_r say, without a scan of x's moves: a
 * farm's producer has thousands.) */
static int is_ready(const skel_approx *a, int x, int l, int e, int send)
{
    int u = send ? a->use_s[e] : a->use_r[e];
    if (u != -2)
        return u == l;
    for (int k = a->lstart[x]; k < a->lstart[x + 1]; k++)
        if (a->ltr[k].from == l && a->ltr[k].edge == e && a->ltr[k].send == send)
            return 1;
    return 0;
}

/* Flag the transitions of window w (home edge e, sender at position 0)
 * that take the sender or the receiver out of readiness for e. */
static void mark_leaves(const skel_approx *a, const ax_win *w, ax_ctr *c, int n0)
{
    int x0 = a->wtask[w->t0], x1 = w->nt > 1 ? a->wtask[w->t0 + 1] : -1;
    for (int k = 0; k < w->nc && w->edge >= 0; k++) {
        ax_code f = c[k].from % w->nl, t = c[k].to % w->nl;
        int n1 = x1 >= 0 ? a->nloc[x1] : 1;
        int f0 = (int)(f % n0), t0 = (int)(t % n0), f1 = (int)(f / n0 % n1),
            t1 = (int)(t / n0 % n1);
        if (is_ready(a, x0, f0, w->edge, 1) && !is_ready(a, x0, t0, w->edge, 1))
            c[k].leave |= 1;
        if (x1 >= 0 && is_ready(a, x1, f1, w->edge, 0) && !is_ready(a, x1, t1, w->edge, 0))
            c[k].leave |= 2;
    }
}

/* Local states of window w's component at position p: its tasks', then
 * its links'. */
static int comp_n(const skel_approx *a, const ax_win *w, int p)
{
    return p < w->nt ? a->nloc[a->wtask[w->t0 + p]] : a->links.n[a->wlink[w->k0 + p - w->nt]];
}

/* Window states found so far: product code -> index, open addressing. */
typedef struct ax_hash {
    ax_code *key;             /* -1: empty */
    int *val;
    size_t mask;
} ax_hash;

static int hash_init(ax_hash *h, size_t cap)
{
    size_t n = 64;
    while (n < 2 * cap)
        n *= 2;
    h->mask = n - 1;
    h->key = malloc(n * sizeof *h->key);
    h->val = malloc(n * sizeof *h->val);
    if (!h->key || !h->val)
        return -1;
    memset(h->key, 0xff, n * sizeof *h->key);
    return 0;
}

static void hash_free(ax_hash *h)
{
    free(h->key);
    free(h->val);
}

/* The slot of code c (found, or the empty one where it goes). */
static size_t hash_slot(const ax_hash *h, ax_code c)
{
    size_t i = (size_t)((uint64_t)c * 0x9E3779B97F4A7C15ULL >> 17) & h->mask;
    while (h->key[i] != -1 && h->key[i] != c)
        i = (i + 1) & h->mask;
    return i;
}

/* The radix of window w's product codes: per position (its tasks, then
 * its links), its stride. */
static int window_radix(const skel_approx *a, ax_win *w, ax_code *stride)
{
    ax_code n = 1;
    for (int p = 0; p < w->nt + w->nk; p++) {
        stride[p] = n;
        int m = comp_n(a, w, p);
        if (n > (INT64_C(1) << 46) / m)
            return -1;
        n *= m;
    }
    w->nl = n;
    return 0;
}

/* Breadth-first from the start over window w's states (at most limit),
 * its transitions into b by product codes, then renumbered to indices in
 * reachability order; a->code from a->npi gets the states' codes. A
 * window of several tasks of a deal holds only the phase combinations
 * the round robin makes (others would form closed classes of their own,
 * and no unique steady state), so far fewer than the product. Returns
 * the number of states, 0 above limit, -1 on an error. */
static int explore(skel_approx *a, ax_win *w, ax_cbuf *b, int limit, diag *err)
{
    ax_code stride[AX_WPOS];
    int loc[AX_WPOS], head = 0, tail = 1;
    ax_hash h;
    if (window_radix(a, w, stride) < 0)
        return 0;
    if (hash_init(&h, (size_t)limit + 1) < 0 ||
        mem_grow((void **)&a->code, a->npi + (size_t)limit + 1, sizeof *a->code) < 0) {
        hash_free(&h);
        return ax_oom(err);
    }
    ax_code *queue = a->code + a->npi;
    h.key[hash_slot(&h, 0)] = 0;
    h.val[hash_slot(&h, 0)] = 0;
    queue[0] = 0;
    w->c0 = b->start = b->n;
    b->win_t0 = w->t0;
    while (head < tail && tail <= limit) {
        ax_code s = queue[head++];
        int k0 = b->n;
        for (int p = 0; p < w->nt + w->nk; p++)
            loc[p] = (int)(s % w->nl / stride[p] % comp_n(a, w, p));
        if (state_trans(a, w, s, loc, stride, b, err) < 0) {
            hash_free(&h);
            return -1;
        }
        for (int k = k0; k < b->n && tail <= limit; k++) {
            size_t i = hash_slot(&h, b->v[k].to);
            if (h.key[i] == -1) {
                h.key[i] = b->v[k].to;
                h.val[i] = tail;
                queue[tail++] = b->v[k].to;
            }
        }
    }
    int n = tail <= limit ? tail : 0;
    w->nc = b->n - w->c0;
    if (n) {
        mark_leaves(a, w, b->v + w->c0, a->nloc[a->wtask[w->t0]]);
        for (int k = w->c0; k < b->n; k++) {
            b->v[k].from = h.val[hash_slot(&h, b->v[k].from)];
            b->v[k].to = h.val[hash_slot(&h, b->v[k].to)];
        }
    }
    hash_free(&h);
    return n;
}

/* Window w's sub-chain: its reachable states (at most max_states). */
static int window_chain(skel_approx *a, ax_win *w, ax_cbuf *b, diag *err)
{
    int lim = (int)(a->o.max_states < INT32_MAX / 4 ? a->o.max_states : INT32_MAX / 4);
    int n = explore(a, w, b, lim, err);
    if (n < 0)
        return -1;
    if (n == 0) {
        b->n = w->c0;
        return diag_set(err, "approximation: a sub-chain of more than %lu states",
                        a->o.max_states);
    }
    w->n = n;
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

/* Moves (distinct edges) and computations x may make from state l: an
 * H2 branch fork (two transitions pushed one after the other) is one
 * choice. */
static int nchoices(const skel_approx *a, int x, int l)
{
    return a->nch[a->loff[x] + l];
}

/* Keep the outside partners of window w's tasks as ready/not-ready bits
 * (so that a partner that just took an item is known not to be ready at
 * once) while the states stay within window_states. A move its task
 * chooses among others (a farm's) stays a delay, and so does every move
 * when some task has several rounds (a deal): kept as independent bits,
 * the round-robin partners of a deal wait for each other in a cycle that
 * the real order never makes, and the fixed point sinks towards zero
 * (measured: -88% on pipe(task, deal(2), task), -80% on a nested xdeal). */
static int choose_bits(skel_approx *a, ax_win *w, unsigned long nl, diag *err)
{
    w->b0 = a->nbit;
    w->nb = 0;
    for (int p = 0; p < w->nt; p++) {
        int x = a->wtask[w->t0 + p];
        for (int k = a->lstart[x]; k < a->lstart[x + 1]; k++) {
            const ax_ltr *t = &a->ltr[k];
            int y = t->edge < 0 ? -1 : partner(a, t);
            if (y < 0 || a->links.n[t->edge] > 0 || win_pos(a, w, y) >= 0 ||
                win_bit(a, w, t->edge) >= 0 ||
                nchoices(a, x, t->from) > 1 || a->deal || w->nb >= 16 ||
                nl << (w->nb + 1) > a->o.window_states)
                continue;
            if (mem_grow((void **)&a->bit, (size_t)a->nbit + 1, sizeof *a->bit) < 0)
                return ax_oom(err);
            a->bit[a->nbit++] = (ax_bit){ t->edge, !t->send };
            a->as_bit[t->edge] = 1;
            w->nb++;
        }
    }
    return 0;
}

/* The states of a window of tasks wt[0 .. nt): theirs times those of the
 * links it holds (approx_link.h); infinite past AX_WLINK links. */
static double window_states(const skel_approx *a, const int *wt, int nt)
{
    int lk[AX_WLINK], nk = ax_links_in(&a->links, a->d, wt, nt, lk, AX_WLINK);
    double n = nk < 0 ? INFINITY : (double)ax_links_states(&a->links, lk, nk);
    for (int p = 0; p < nt; p++)
        n *= a->nloc[wt[p]];
    return n;
}

/* Grow the window by its tasks' partners, nearest first, while the
 * product of their local states stays within budget: deal_states with a
 * deal (its producer, workers and consumer then wait for each other inside
 * one exact sub-chain, in the real round-robin order), else grow_states
 * (a pipeline's window of three tasks sees the neighbour's own blocking
 * exactly, not through a two-state partner: the median error on the random
 * pipelines went from 2.0% to 1.4%). Without a deal, the other members of a
 * choice (a farm's other workers) are not added: they stay one summed delay,
 * and the window grows towards the stage after the farm instead (measured
 * on the bench's first 240 cases: farms' max error 13.8% with the
 * siblings, 7.9% without). The links the window then holds
 * (approx_link.h) count apart: within AX_LINK_GROW states with them. */
static void grow_window(const skel_approx *a, int *wt, int *nt, unsigned long *states,
                        unsigned long budget)
{
    for (int q = 0; q < *nt && *nt < AX_WMAX; q++) {
        int x = wt[q];
        for (int k = a->lstart[x]; k < a->lstart[x + 1] && *nt < AX_WMAX; k++) {
            const ax_ltr *t = &a->ltr[k];
            int y = t->edge < 0 ? -1 : partner(a, t), in = 0;
            for (int p = 0; p < *nt; p++)
                in |= wt[p] == y;
            if (y < 0 || in || (!a->deal && nchoices(a, x, t->from) > 1))
                continue;
            wt[*nt] = y;
            double ts = 1;          /* the tasks' states (window_states: with links) */
            for (int p = 0; p <= *nt; p++)
                ts *= a->nloc[wt[p]];
            if (ts > (double)budget ||
                window_states(a, wt, *nt + 1) > fmax((double)budget, AX_LINK_GROW))
                continue;
            *states = (unsigned long)window_states(a, wt, *nt + 1);
            wt[(*nt)++] = y;
        }
    }
}

/* With a deal: grow window w (its tasks last in wtask) by its tasks'
 * partners, nearest first, while its states reachable from the start stay
 * within budget. The round robin keeps them far below the product of the
 * local states (a task, deal(4) and a task: 11,664 combinations, of which
 * the order reaches a few hundred), so a deal's producer, workers and
 * consumer wait for each other in one exact sub-chain, in the real order,
 * rather than as independent delays that make a cyclic wait the order
 * never makes. */
static int grow_reach(skel_approx *a, ax_win *w, ax_cbuf *b, int budget, diag *err)
{
    for (int q = 0; q < w->nt && w->nt < AX_WMAX; q++) {
        int x = a->wtask[w->t0 + q];
        for (int k = a->lstart[x]; k < a->lstart[x + 1] && w->nt < AX_WMAX; k++) {
            const ax_ltr *t = &a->ltr[k];
            int y = t->edge < 0 ? -1 : partner(a, t);
            if (y < 0 || win_pos(a, w, y) >= 0)
                continue;
            if (mem_grow((void **)&a->wtask, (size_t)a->nwtask + 1, sizeof *a->wtask) < 0)
                return ax_oom(err);
            a->wtask[a->nwtask++] = y;
            w->nt++;
            w->nk = ax_links_in(&a->links, a->d, a->wtask + w->t0, w->nt, a->wlink + w->k0,
                                AX_WLINK);
            int n = w->nk < 0 ? 0 : explore(a, w, b, budget, err);
            b->n = w->c0;
            if (n < 0)
                return -1;
            if (n == 0)
                w->nt--, a->nwtask--;
        }
    }
    return 0;
}

/* The links window w's tasks hold (approx_link.h): wlink from nwlink,
 * kept by finish_window. */
static int window_links(skel_approx *a, ax_win *w, diag *err)
{
    if (mem_grow((void **)&a->wlink, (size_t)a->nwlink + AX_WLINK, sizeof *a->wlink) < 0)
        return ax_oom(err);
    w->k0 = a->nwlink;
    w->nk = ax_links_in(&a->links, a->d, a->wtask + w->t0, w->nt, a->wlink + w->k0, AX_WLINK);
    if (w->nk < 0)
        return diag_set(err, "approximation: a sub-chain of tasks t%d, t%d holds more than %d "
                             "buffered or phased moves", w->a0, w->a1, AX_WLINK);
    return 0;
}

/* Window w, its tasks, links and bits chosen: its sub-chain and
 * distribution's place. */
static int finish_window(skel_approx *a, ax_win *w, ax_cbuf *b, diag *err)
{
    if (window_chain(a, w, b, err) < 0 || sort_by_target(b, w, err) < 0)
        return -1;
    a->nwlink += w->nk;
    w->p0 = a->npi;
    a->npi += (size_t)w->n;
    a->maxc = w->nc > a->maxc ? w->nc : a->maxc;
    w->built = 1;
    return 0;
}

static int build_deal_window(skel_approx *a, ax_win *w, ax_cbuf *b, diag *err)
{
    if (mem_grow((void **)&a->wtask, (size_t)a->nwtask + 2, sizeof *a->wtask) < 0)
        return ax_oom(err);
    w->t0 = a->nwtask;
    w->nt = 2;
    a->wtask[a->nwtask++] = w->a0;
    a->wtask[a->nwtask++] = w->a1;
    unsigned long lim = a->o.deal_states < a->o.max_states ? a->o.deal_states : a->o.max_states;
    if (window_links(a, w, err) < 0 || grow_reach(a, w, b, (int)lim, err) < 0 ||
        window_links(a, w, err) < 0)
        return -1;
    return finish_window(a, w, b, err);
}

/* Build window w: its tasks (grown), partner bits, sub-chain. */
static int build_window(skel_approx *a, ax_win *w, ax_cbuf *b, diag *err)
{
    if (a->deal && w->a1 >= 0)
        return build_deal_window(a, w, b, err);
    int nt = w->a1 < 0 ? 1 : 2, wt[AX_WMAX] = { w->a0, w->a1 };
    double n0 = window_states(a, wt, nt);
    unsigned long nl = n0 < (double)ULONG_MAX ? (unsigned long)n0 : ULONG_MAX;
    if (w->a1 >= 0)
        grow_window(a, wt, &nt, &nl, a->o.grow_states);
    if (mem_grow((void **)&a->wtask, (size_t)a->nwtask + (size_t)nt, sizeof *a->wtask) < 0)
        return ax_oom(err);
    w->t0 = a->nwtask;
    w->nt = nt;
    for (int p = 0; p < nt; p++)
        a->wtask[a->nwtask++] = wt[p];
    if (window_links(a, w, err) < 0 || choose_bits(a, w, nl, err) < 0)
        return -1;
    return finish_window(a, w, b, err);
}

/* A window per move; a structurally interchangeable member's is built
 * only when an evaluation's rates make it differ from its class (a farm
 * of a thousand workers: two windows, not two thousand, each of which
 * would scan the producer's thousand moves). */
static int add_window(skel_approx *a, int *wcap, int t0, int t1, int edge, ax_cbuf *b,
                      diag *err)
{
    if (a->nwin == *wcap) {
        int nc = *wcap ? 2 * *wcap : 16;
        if (mem_grow((void **)&a->win, (size_t)nc, sizeof *a->win) < 0)
            return ax_oom(err);
        *wcap = nc;
    }
    ax_win *w = &a->win[a->nwin++];
    memset(w, 0, sizeof *w);
    w->a0 = t0;
    w->a1 = t1;
    w->edge = edge;
    if (a->srep[t0] != t0 || (t1 >= 0 && a->srep[t1] != t1))
        return 0;
    return build_window(a, w, b, err);
}

/* The deadline has passed: checked every 16th step k (clock_now is a
 * system call's worth). */
static int past_deadline(const skel_approx *a, int k)
{
    return a->o.deadline > 0 && (k & 15) == 0 && clock_now() > a->o.deadline;
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
        if (past_deadline(a, e))
            rc = diag_set(err, "approximation: out of time building its %d sub-chains",
                          a->nedges);
        if (ed.from < 0 || ed.to < 0 || rc != 0)
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
    a->ctrcap = b.cap;
    return rc;
}

/* ---- interchangeable members ------------------------------------------- */

/* Per edge and side, the local state in which its task moves on it (-1:
 * none, -2: several, as a task of several rounds may). */
static void edge_uses(skel_approx *a)
{
    for (int e = 0; e < a->nedges; e++)
        a->use_s[e] = a->use_r[e] = -1;
    for (int k = 0; k < a->nltr; k++) {
        const ax_ltr *t = &a->ltr[k];
        int *u = t->edge < 0 ? NULL : t->send ? a->use_s : a->use_r;
        if (u && u[t->edge] != t->from)
            u[t->edge] = u[t->edge] == -1 ? t->from : -2;
    }
}

/* x and y have the same local machine and work, the same partners, each
 * meeting both in the same local state (the same choice of a farm's
 * producer and consumer): with equal rates, swapping them changes
 * nothing, so their windows give the same delays. */
static int same_shape(const skel_approx *a, int x, int y)
{
    int n = a->lstart[x + 1] - a->lstart[x];
    if (a->nloc[x] != a->nloc[y] || n != a->lstart[y + 1] - a->lstart[y] ||
        a->scv[x] != a->scv[y] || a->entry[x] != a->entry[y])
        return 0;
    for (int k = 0; k < n; k++) {
        const ax_ltr *t = &a->ltr[a->lstart[x] + k], *u = &a->ltr[a->lstart[y] + k];
        if (t->from != u->from || t->to != u->to || t->send != u->send || t->done != u->done ||
            t->w != u->w || (t->edge < 0) != (u->edge < 0))
            return 0;
        if (t->edge < 0)
            continue;
        const int *o = t->send ? a->use_r : a->use_s;   /* the partner's side */
        if (partner(a, t) != partner(a, u) || o[t->edge] != o[u->edge] || o[t->edge] == -2 ||
            a->links.scv[t->edge] != a->links.scv[u->edge] ||
            a->links.buffer[t->edge] != a->links.buffer[u->edge])
            return 0;
    }
    return 1;
}

/* Structural classes (srep), found among the members of each choice, up
 * to AX_NCLASS shapes per choice. */
static void struct_classes(skel_approx *a)
{
    for (int x = 0; x < a->ntasks; x++)
        a->srep[x] = -1;
    for (int p = 0; p < a->ntasks; p++) {
        int reps[AX_NCLASS], nr = 0;
        for (int k = a->lstart[p]; k < a->lstart[p + 1]; k++) {
            const ax_ltr *t = &a->ltr[k];
            if (k == a->lstart[p] || t->from != t[-1].from || t->send != t[-1].send)
                nr = 0;                   /* a new step */
            int x = t->edge < 0 ? -1 : partner(a, t);
            if (x < 0 || a->srep[x] >= 0)
                continue;
            a->srep[x] = x;
            for (int j = 0; j < nr && a->srep[x] == x; j++)
                a->srep[x] = same_shape(a, x, reps[j]) ? reps[j] : x;
            if (a->srep[x] == x && nr < AX_NCLASS)
                reps[nr++] = x;
        }
    }
    for (int x = 0; x < a->ntasks; x++)
        a->srep[x] = a->srep[x] < 0 ? x : a->srep[x];
}

/* Members of one shape with the same compute and move rates (and, under
 * processor sharing, alone on their nodes or on the same node). */
static int same_rates(const skel_approx *a, int x, int y)
{
    if (a->mu[x] != a->mu[y] ||
        (a->node && a->node[x] != a->node[y] && (a->grpn[x] > 1 || a->grpn[y] > 1)))
        return 0;
    for (int k = 0; k < a->lstart[x + 1] - a->lstart[x]; k++) {
        int e = a->ltr[a->lstart[x] + k].edge, f = a->ltr[a->lstart[y] + k].edge;
        if (e >= 0 && a->lambda[e] != a->lambda[f])
            return 0;
    }
    return 1;
}

/* A member whose partner is itself represented stays its own (every
 * edge then has at most one represented end, and a representative edge). */
static void keep_partners(skel_approx *a)
{
    for (int x = 0; x < a->ntasks; x++)
        for (int k = a->lstart[x]; k < a->lstart[x + 1] && a->rep[x] != x; k++) {
            int y = a->ltr[k].edge < 0 ? -1 : partner(a, &a->ltr[k]);
            if (y >= 0 && a->rep[y] != y)
                a->rep[x] = x;
        }
}

/* This evaluation's classes: interchangeable members are evaluated as one
 * representative window (the others' delays are copies of its own), which
 * removes a farm's O(n) windows per sweep and its slow symmetric mode. */
static void rate_classes(skel_approx *a)
{
    for (int x = 0; x < a->ntasks; x++)
        a->nrr[x] = 0;
    for (int x = 0; x < a->ntasks; x++) {
        int s = a->srep[x], *rr = a->rr + (size_t)s * AX_NCLASS;
        a->rep[x] = x;
        for (int j = 0; j < a->nrr[s] && a->rep[x] == x; j++)
            a->rep[x] = same_rates(a, x, rr[j]) ? rr[j] : x;
        if (a->rep[x] == x && a->nrr[s] < AX_NCLASS)
            rr[a->nrr[s]++] = x;
    }
    keep_partners(a);
    for (int e = 0; e < a->nedges; e++)
        a->erep[e] = e, a->ehead[e] = -1;
    for (int x = 0; x < a->ntasks; x++)
        for (int k = 0; a->rep[x] != x && k < a->lstart[x + 1] - a->lstart[x]; k++) {
            int e = a->ltr[a->lstart[x] + k].edge;
            if (e >= 0)
                a->erep[e] = a->ltr[a->lstart[a->rep[x]] + k].edge;
        }
    for (int e = 0; e < a->nedges; e++)
        if (a->erep[e] != e) {
            a->enext[e] = a->ehead[a->erep[e]];
            a->ehead[a->erep[e]] = e;
        }
}

/* Window w measures a represented member's move: not solved. */
static int represented(const skel_approx *a, const ax_win *w)
{
    return w->edge >= 0 ? a->erep[w->edge] != w->edge : a->rep[w->a0] != w->a0;
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
    int maxc = a->maxc > 0 ? a->maxc : 1;
    a->pi = malloc((a->npi + 1) * sizeof *a->pi);
    a->rho_send = malloc(ne * sizeof *a->rho_send);
    a->rho_recv = malloc(ne * sizeof *a->rho_recv);
    a->alpha_send = malloc(ne * sizeof *a->alpha_send);
    a->alpha_recv = malloc(ne * sizeof *a->alpha_recv);
    a->gamma_send = malloc(ne * sizeof *a->gamma_send);
    a->gamma_recv = malloc(ne * sizeof *a->gamma_recv);
    a->rate = malloc((size_t)maxc * sizeof *a->rate);
    a->prev = malloc((size_t)(a->nctr + 1) * sizeof *a->prev);
    a->dense = malloc((size_t)AX_DENSE_MAX * AX_DENSE_MAX * sizeof *a->dense);
    a->marg = malloc((size_t)(a->maxloc + 1) * sizeof *a->marg);
    a->xsum = malloc(nt * sizeof *a->xsum);
    a->bsum = malloc(nt * sizeof *a->bsum);
    a->xcnt = malloc(nt * sizeof *a->xcnt);
    a->util = calloc(nt, sizeof *a->util);
    a->thr = calloc(nt, sizeof *a->thr);
    a->bynode = malloc(nt * sizeof *a->bynode);
    a->fen_send = malloc((ne + 1) * sizeof *a->fen_send);
    a->fen_recv = malloc((ne + 1) * sizeof *a->fen_recv);
    a->pairs = malloc(nt * sizeof *a->pairs);
    a->grp0 = malloc(nt * sizeof *a->grp0);
    a->grpn = malloc(nt * sizeof *a->grpn);
    a->pbusy = malloc(nt * sizeof *a->pbusy);
    a->pb = malloc((AX_PB_MAX + 2) * sizeof *a->pb);
    a->rep = malloc(nt * sizeof *a->rep);
    a->nrr = malloc(nt * sizeof *a->nrr);
    a->rr = malloc(nt * AX_NCLASS * sizeof *a->rr);
    a->erep = malloc(ne * sizeof *a->erep);
    a->ehead = malloc(ne * sizeof *a->ehead);
    a->enext = malloc(ne * sizeof *a->enext);
    a->hist = malloc((size_t)AX_HIST * 4 * ne * sizeof *a->hist);
    if (!a->rep || !a->nrr || !a->rr || !a->erep || !a->ehead || !a->enext || !a->hist)
        return ax_oom(err);
    if (!a->pi || !a->rho_send || !a->rho_recv || !a->alpha_send || !a->alpha_recv ||
        !a->gamma_send || !a->gamma_recv || !a->rate || !a->prev || !a->dense ||
        !a->marg || !a->xsum || !a->bsum || !a->xcnt || !a->util || !a->thr || !a->bynode || !a->pairs || !a->fen_send || !a->fen_recv || !a->grp0 ||
        !a->grpn || !a->pbusy || !a->pb)
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
    a->o.max_iter = a->o.max_iter > 0 ? a->o.max_iter : 200;
    a->o.tol = a->o.tol > 0 ? a->o.tol : 1e-6;
    a->o.max_states = a->o.max_states ? a->o.max_states : 4096;
    a->o.window_states = a->o.window_states ? a->o.window_states : AX_DENSE_MAX;
    /* a caller capping deal windows (the search) keeps pairs elsewhere too */
    a->o.grow_states = a->o.grow_states ? a->o.grow_states : a->o.deal_states ? 1 : AX_GROW;
    a->o.deal_states = a->o.deal_states ? a->o.deal_states : 2500;
    size_t nt = (size_t)a->ntasks + 1;
    a->lstart = malloc(nt * sizeof *a->lstart);
    a->nloc = malloc(nt * sizeof *a->nloc);
    a->loff = malloc(nt * sizeof *a->loff);
    a->entry = malloc(nt * sizeof *a->entry);
    a->scv = malloc(nt * sizeof *a->scv);
    a->as_bit = calloc((size_t)a->nedges + 1, 1);
    a->srep = malloc(nt * sizeof *a->srep);
    a->use_s = malloc(((size_t)a->nedges + 1) * sizeof *a->use_s);
    a->use_r = malloc(((size_t)a->nedges + 1) * sizeof *a->use_r);
    if (!a->lstart || !a->nloc || !a->loff || !a->entry || !a->scv || !a->as_bit || !a->srep ||
        !a->use_s || !a->use_r) {
        ax_oom(err);
        goto fail;
    }
    for (int i = 0; i < a->ntasks; i++)
        a->scv[i] = opts && opts->scv ? opts->scv[i] : 1;
    a->handoff = opts && opts->handoff > 0 ? opts->handoff : 1.0;
    mark_entries(a);
    if (ax_links_build(&a->links, d, opts ? opts->link_scv : NULL, opts ? opts->buffer : NULL,
                       (long)a->o.max_states, err) < 0 || build_machines(a, err) < 0)
        goto fail;
    edge_uses(a);
    struct_classes(a);
    if (build_windows(a, err) < 0 || alloc_eval(a, err) < 0)
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
    free(a->loff);
    free(a->busy);
    free(a->nch);
    free(a->scv);
    free(a->bynode);
    free(a->fen_send);
    free(a->fen_recv);
    free(a->as_bit);
    free(a->pairs);
    free(a->grp0);
    free(a->grpn);
    free(a->pbusy);
    free(a->pb);
    free(a->pkey);
    free(a->pcond);
    free(a->pjs);
    free(a->pxs);
    free(a->srep);
    free(a->use_s);
    free(a->use_r);
    free(a->rep);
    free(a->erep);
    free(a->ehead);
    free(a->enext);
    free(a->rr);
    free(a->nrr);
    free(a->hist);
    free(a->ltr);
    ax_links_free(&a->links);
    free(a->wlink);
    free(a->wtask);
    free(a->win);
    free(a->ctr);
    free(a->pi);
    free(a->entry);
    free(a->rho_send);
    free(a->rho_recv);
    free(a->alpha_send);
    free(a->alpha_recv);
    free(a->gamma_send);
    free(a->gamma_recv);
    free(a->bit);
    free(a->code);
    free(a->rate);
    free(a->prev);
    free(a->dense);
    free(a->marg);
    free(a->xsum);
    free(a->bsum);
    free(a->xcnt);
    free(a->util);
    free(a->thr);
    free(a);
}

void skel_approx_set_deadline(skel_approx *a, double deadline)
{
    a->o.deadline = deadline;
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

/* Fenwick trees over rho_send and rho_recv: a farm's member sees the
 * delays of all the others, hundreds, summed in O(log n). */
static void fen_add(double *f, int n, int i, double d)
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

/* A window holding a link's component, from its previous distribution
 * (or the uniform one): the engine's Gauss-Seidel (accelerated), to a
 * residual 1e-14 of its largest rate, is 10-100 times faster than a new
 * factorisation each sweep (a link's phases fill the LU in: pipe(30) with
 * Buffer=4 and SCV=0.25, 1.1 s against 149 s). Returns 1 when converged. */
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

/* A larger window: the engine's sparse direct solver (UMFPACK when built
 * with it), or, holding a link, solve_warm first. Plain Gauss-Seidel was
 * tried here and does not converge on these cyclic sub-chains (pipelines
 * oscillated). Allocates; on a failure the previous distribution stays. */
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
    if (q && ((w->nk > 0 && solve_warm(a, w, q, pi, x)) || pepa_solve(q, &o, x, &res, &err) == 0))
        memcpy(pi, x, (size_t)w->n * sizeof *pi);
    pepa_ctmc_free(q);
    free(x);
    free(dst);
    free(src);
}

/* ---- processor sharing: a node's tasks given that one computes ---------- */

/* What rate a computing task gets depends on how many of its node's other
 * tasks compute while it does: P(y computes | x computes), not y's
 * marginal. Tasks of a pipeline are correlated through the tasks between
 * them: after t3 hands an item to t4 and takes one from t2, t2 and t4
 * start computing together. Where some window holds both x and y among
 * its first AX_PAIR_CORE tasks (the path between them inside it), that
 * window's joint distribution gives the conditional probability; other
 * pairs stay independent (y's marginal). */

static int cmp_i64(const void *x, const void *y)
{
    int64_t p = *(const int64_t *)x, q = *(const int64_t *)y;
    return (p > q) - (p < q);
}

/* Index of the pair (x, y) in pkey, or -1. */
static int pair_find(const skel_approx *a, int x, int y)
{
    int64_t k = (int64_t)x * a->ntasks + y;
    int lo = 0, hi = a->npair;
    while (lo < hi) {
        int m = (lo + hi) / 2;
        if (a->pkey[m] < k)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < a->npair && a->pkey[lo] == k ? lo : -1;
}

/* P(y computes | x computes), y on x's node: measured for the pair or for
 * their representatives (interchangeable members), else y's marginal. */
static double cond_busy(const skel_approx *a, int x, int y)
{
    int k = pair_find(a, x, y);
    if (k < 0 && a->rep[x] != a->rep[y])
        k = pair_find(a, a->rep[x], a->rep[y]);
    return k >= 0 ? a->pcond[k] : a->pbusy[y];
}

static int pair_add(skel_approx *a, int x, int y)
{
    if (a->npair + 2 > a->paircap) {
        int nc = a->paircap ? 2 * a->paircap : 64;
        if (mem_grow((void **)&a->pkey, (size_t)nc, sizeof *a->pkey) < 0)
            return -1;
        a->paircap = nc;
    }
    a->pkey[a->npair++] = (int64_t)x * a->ntasks + y;
    a->pkey[a->npair++] = (int64_t)y * a->ntasks + x;
    return 0;
}

/* Is the pair at positions p < q of window w measured there? */
static int core_pair(const skel_approx *a, const ax_win *w, int p, int q)
{
    return q < AX_PAIR_CORE && a->node[a->wtask[w->t0 + p]] == a->node[a->wtask[w->t0 + q]];
}

/* This evaluation's pairs (sorted, unique), from the windows it solves.
 * None with a deal: its windows hold its whole round robin, not a path
 * of three tasks (measured with pairs there: the random deals' max 0.85%
 * -> 1.14%). */
static int build_pairs(skel_approx *a, diag *err)
{
    a->npair = 0;
    for (int k = 0; a->node && !a->o.independent_sharers && !a->deal && k < a->nwin; k++) {
        const ax_win *w = &a->win[k];
        for (int p = 0; w->built && !represented(a, w) && p < w->nt; p++)
            for (int q = p + 1; q < w->nt; q++)
                if (core_pair(a, w, p, q) &&
                    pair_add(a, a->wtask[w->t0 + p], a->wtask[w->t0 + q]) < 0)
                    return ax_oom(err);
    }
    if (a->npair)
        qsort(a->pkey, (size_t)a->npair, sizeof *a->pkey, cmp_i64);
    int n = 0;
    for (int k = 0; k < a->npair; k++)
        if (n == 0 || a->pkey[k] != a->pkey[n - 1])
            a->pkey[n++] = a->pkey[k];
    a->npair = n;
    size_t m = (size_t)(n ? n : 1);
    if (mem_grow((void **)&a->pcond, m, sizeof *a->pcond) < 0 ||
        mem_grow((void **)&a->pjs, m, sizeof *a->pjs) < 0 ||
        mem_grow((void **)&a->pxs, m, sizeof *a->pxs) < 0)
        return ax_oom(err);
    for (int k = 0; k < n; k++)
        a->pcond[k] = a->pbusy[a->pkey[k] % a->ntasks];
    return 0;
}

/* Window w's joint probabilities of computing of its measured pairs,
 * into the sweep's sums. */
static void window_pairs(skel_approx *a, const ax_win *w)
{
    int px[AX_PAIR_CORE * AX_PAIR_CORE], py[AX_PAIR_CORE * AX_PAIR_CORE], np = 0;
    for (int p = 0; a->npair && p < w->nt; p++)
        for (int q = p + 1; q < w->nt; q++)
            if (core_pair(a, w, p, q))
                px[np] = p, py[np++] = q;
    if (!np)
        return;
    int x[AX_PAIR_CORE], n[AX_PAIR_CORE];
    double jb[AX_PAIR_CORE * AX_PAIR_CORE] = { 0 }, mb[AX_PAIR_CORE] = { 0 };
    for (int p = 0; p < AX_PAIR_CORE && p < w->nt; p++)
        x[p] = a->wtask[w->t0 + p], n[p] = a->nloc[x[p]];
    const double *pi = a->pi + w->p0;
    const ax_code *code = a->code + w->p0;
    for (int s = 0; s < w->n; s++) {
        ax_code c = code[s] % w->nl;
        unsigned busy = 0;
        for (int p = 0; p < AX_PAIR_CORE && p < w->nt; p++) {
            busy |= (unsigned)a->busy[a->loff[x[p]] + c % n[p]] << p;
            c /= n[p];
        }
        for (int p = 0; p < AX_PAIR_CORE && p < w->nt; p++)
            mb[p] += busy >> p & 1 ? pi[s] : 0;
        for (int k = 0; k < np; k++)
            jb[k] += (busy >> px[k] & 1) && (busy >> py[k] & 1) ? pi[s] : 0;
    }
    for (int k = 0; k < np; k++) {
        int kx = pair_find(a, x[px[k]], x[py[k]]), ky = pair_find(a, x[py[k]], x[px[k]]);
        if (kx < 0 || ky < 0)
            continue;             /* not built for this evaluation: cannot happen */
        a->pjs[kx] += jb[k], a->pxs[kx] += mb[px[k]];
        a->pjs[ky] += jb[k], a->pxs[ky] += mb[py[k]];
    }
}

/* The conditional probabilities from the sweep's sums; their change. */
static double pairs_update(skel_approx *a)
{
    double ch = 0;
    for (int k = 0; k < a->npair; k++) {
        double c = a->pxs[k] > 0 ? a->pjs[k] / a->pxs[k] : a->pbusy[a->pkey[k] % a->ntasks];
        ch = fmax(ch, fabs(c - a->pcond[k]));
        a->pcond[k] = c;
    }
    return ch;
}

/* E[1 / (c + N)] for c = 1 .. nmax into f[c], N the number of the tasks
 * sharing x's node outside window w that compute, taken independent with
 * their measured probabilities (Poisson-binomial; its mean above
 * AX_PB_MAX sharers). */
static void share_outside(skel_approx *a, const ax_win *w, int x, int nmax, double *f)
{
    double *pb = a->pb, mean = 0;
    int m = 0;
    pb[0] = 1;
    for (int k = a->grp0[x]; k < a->grp0[x] + a->grpn[x]; k++) {
        int y = a->bynode[k];
        if (win_pos(a, w, y) >= 0)
            continue;
        double q = cond_busy(a, x, y);
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

static void solve_window(skel_approx *a, const ax_win *w)
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
    if (w->n <= AX_DENSE_MAX)
        solve_dense(a, w, pi);
    else
        solve_sparse(a, w, pi);
}

/* ---- measures and the fixed point --------------------------------------- */

/* Marginal distribution of the task at position p of window w. */
static void marginal(skel_approx *a, const ax_win *w, int p)
{
    int x = a->wtask[w->t0 + p];
    ax_code stride = 1;
    for (int q = 0; q < p; q++)
        stride *= a->nloc[a->wtask[w->t0 + q]];
    memset(a->marg, 0, (size_t)a->nloc[x] * sizeof *a->marg);
    const double *pi = a->pi + w->p0;
    const ax_code *code = a->code + w->p0;
    for (int s = 0; s < w->n; s++)
        a->marg[code[s] % w->nl / stride % a->nloc[x]] += pi[s];
}

/* Probability that task x (marginal in a->marg) is ready for edge e on its
 * side. */
static double ready(const skel_approx *a, int x, int e, int send)
{
    double p = 0;
    for (int l = 0; l < a->nloc[x]; l++)
        p += is_ready(a, x, l, e, send) ? a->marg[l] : 0;
    return p;
}

/* The window's own tasks (its first two positions): completions per
 * second (the flow of their items' last phases) and the probability that
 * each computes, into their sums over the sweep's windows. */
static void window_tasks(skel_approx *a, const ax_win *w)
{
    double thr[2] = { 0, 0 };
    const ax_ctr *c = a->ctr + w->c0;
    const double *pi = a->pi + w->p0;
    for (int k = 0; k < w->nc; k++)
        if (c[k].src == AX_MU && c[k].done && c[k].pos < 2)
            thr[c[k].pos] += pi[c[k].from] * a->rate[k];
    for (int p = 0; p < w->nt && p < 2; p++) {
        int x = a->wtask[w->t0 + p];
        marginal(a, w, p);
        double b = 0;
        for (int l = 0; l < a->nloc[x]; l++)
            b += a->busy[a->loff[x] + l] ? a->marg[l] : 0;
        a->bsum[x] += b;
        a->xsum[x] += thr[p];
        a->xcnt[x]++;
    }
}

static double rel_change(double old, double v)
{
    return fabs(v - old) / fmax(fabs(v), 1e-300);
}

/* The partner parameters of one side of edge e: ready with probability
 * pr, leaving readiness at flow f of which te through e. Their change:
 * of alpha and gamma only where a window keeps the partner as a state bit
 * (bit); elsewhere they are unused, and for an idle farm worker (pr near
 * 1) alpha = f / (1 - pr) moves in the rounding noise. */
static double side_update(double *rho, double *alpha, double *gamma, double pr, double f,
                          double te, double lambda, int bit)
{
    double r = pr > 0 ? te / pr : lambda;
    double al = pr < 1 ? f / (1 - pr) : lambda, ga = pr > 0 ? fmax(0, f - te) / pr : 0;
    double ch = rel_change(*rho, r);
    if (bit)
        ch = fmax(ch, fmax(rel_change(*alpha, al), fabs(ga - *gamma) / fmax(al + ga, 1e-300)));
    *rho = r;
    *alpha = al;
    *gamma = ga;
    return ch;
}

/* Edge m, a represented member's, takes the parameters of e. */
static void copy_edge(skel_approx *a, int m, int e)
{
    fen_add(a->fen_send, a->nedges, m, a->rho_send[e] - a->rho_send[m]);
    fen_add(a->fen_recv, a->nedges, m, a->rho_recv[e] - a->rho_recv[m]);
    a->rho_send[m] = a->rho_send[e];
    a->rho_recv[m] = a->rho_recv[e];
    a->alpha_send[m] = a->alpha_send[e];
    a->alpha_recv[m] = a->alpha_recv[e];
    a->gamma_send[m] = a->gamma_send[e];
    a->gamma_recv[m] = a->gamma_recv[e];
}

/* Solve window w and update the partner parameters of its move; returns
 * their change. */
static double update_window(skel_approx *a, const ax_win *w)
{
    solve_window(a, w);
    window_tasks(a, w);
    window_pairs(a, w);
    if (w->edge < 0)
        return 0;
    int e = w->edge;
    double te = 0, fs = 0, fr = 0;
    const ax_ctr *c = a->ctr + w->c0;
    const double *pi = a->pi + w->p0;
    for (int k = 0; k < w->nc; k++) {
        double fl = pi[c[k].from] * a->rate[k];
        if ((c[k].src == AX_LAMBDA || c[k].src == AX_HANDOFF) && c[k].idx == e)
            te += fl;             /* the move (a buffer's: the sender's hand-off) */
        fs += c[k].leave & 1 ? fl : 0;
        fr += c[k].leave & 2 ? fl : 0;
    }
    marginal(a, w, 0);
    double ps = ready(a, a->wtask[w->t0], e, 1);
    marginal(a, w, 1);
    double pr = ready(a, a->wtask[w->t0 + 1], e, 0);
    double os = a->rho_send[e], orv = a->rho_recv[e];
    double ch = side_update(&a->rho_send[e], &a->alpha_send[e], &a->gamma_send[e], ps, fs, te,
                            a->lambda[e], a->as_bit[e]);
    ch = fmax(ch, side_update(&a->rho_recv[e], &a->alpha_recv[e], &a->gamma_recv[e], pr, fr,
                              te, a->lambda[e], a->as_bit[e]));
    fen_add(a->fen_send, a->nedges, e, a->rho_send[e] - os);
    fen_add(a->fen_recv, a->nedges, e, a->rho_recv[e] - orv);
    for (int m = a->ehead[e]; m >= 0; m = a->enext[m])
        copy_edge(a, m, e);
    return ch;
}

static double sweep(skel_approx *a, int backward)
{
    double ch = 0;
    memset(a->xsum, 0, (size_t)a->ntasks * sizeof *a->xsum);
    memset(a->xcnt, 0, (size_t)a->ntasks * sizeof *a->xcnt);
    memset(a->bsum, 0, (size_t)a->ntasks * sizeof *a->bsum);
    for (int k = 0; k < a->npair; k++)
        a->pjs[k] = a->pxs[k] = 0;
    for (int k = 0; k < a->nwin; k++) {
        const ax_win *w = &a->win[backward ? a->nwin - 1 - k : k];
        if (past_deadline(a, k)) {
            a->late = 1;
            return INFINITY;
        }
        if (!represented(a, w))
            ch = fmax(ch, update_window(a, w));
    }
    for (int i = 0; i < a->ntasks; i++)    /* a represented member: its rep's */
        if (a->rep[i] != i) {
            a->xsum[i] = a->xsum[a->rep[i]];
            a->bsum[i] = a->bsum[a->rep[i]];
            a->xcnt[i] = a->xcnt[a->rep[i]];
        }
    /* the sharers' probabilities of computing, the mean of their windows'
     * (each window's alone would alternate from window to window) */
    for (int i = 0; i < a->ntasks; i++) {
        double b = a->xcnt[i] ? a->bsum[i] / a->xcnt[i] : a->pbusy[i];
        if (a->node)
            ch = fmax(ch, fabs(b - a->pbusy[i]));
        a->pbusy[i] = b;
    }
    return fmax(ch, pairs_update(a));
}

/* ---- extrapolation ------------------------------------------------------ */

/* The delays, in logarithms, as one vector v (4 per edge). */
static void delays_get(const skel_approx *a, double *v)
{
    for (int e = 0; e < a->nedges; e++) {
        v[4 * e] = log(a->rho_send[e]);
        v[4 * e + 1] = log(a->rho_recv[e]);
        v[4 * e + 2] = log(a->alpha_send[e]);
        v[4 * e + 3] = log(a->alpha_recv[e]);
    }
}

static void delays_set(skel_approx *a, const double *v)
{
    memset(a->fen_send, 0, (size_t)(a->nedges + 1) * sizeof *a->fen_send);
    memset(a->fen_recv, 0, (size_t)(a->nedges + 1) * sizeof *a->fen_recv);
    for (int e = 0; e < a->nedges; e++) {
        a->rho_send[e] = exp(v[4 * e]);
        a->rho_recv[e] = exp(v[4 * e + 1]);
        a->alpha_send[e] = exp(v[4 * e + 2]);
        a->alpha_recv[e] = exp(v[4 * e + 3]);
        fen_add(a->fen_send, a->nedges, e, a->rho_send[e]);
        fen_add(a->fen_recv, a->nedges, e, a->rho_recv[e]);
    }
}

/* A fixed point converging slowly along one direction (a farm's: the
 * delays drift by 0.02% a sweep, the same way, for hundreds of sweeps):
 * from three snapshots two sweeps apart (the same sweep direction), when
 * the steps d1, d2 are parallel (cosine above 0.99) and shrink by a steady
 * ratio r, jump to the limit of the geometric series, x + d2 r / (1 - r)
 * (Aitken's delta-squared, vector form). Returns 1 if it jumped. */
static int extrapolate(skel_approx *a)
{
    size_t n = 4 * (size_t)a->nedges;
    double *x0 = a->hist, *x1 = x0 + n, *x2 = x1 + n, d11 = 0, d12 = 0, d22 = 0;
    if (a->nhist < AX_HIST) {
        delays_get(a, a->hist + (size_t)a->nhist++ * n);
        return 0;
    }
    memmove(x0, x1, 2 * n * sizeof *x0);
    delays_get(a, x2);
    for (size_t k = 0; k < n; k++) {
        double p = x1[k] - x0[k], q = x2[k] - x1[k];
        d11 += p * p, d12 += p * q, d22 += q * q;
    }
    double r = d11 > 0 ? d12 / d11 : 0;
    if (!(d11 > 0 && d22 > 0) || d12 * d12 < 0.98 * d11 * d22 || r < 0.5 || r > 0.9999)
        return 0;
    double f = r / (1 - r);
    for (size_t k = 0; k < n; k++)
        x2[k] += f * (x2[k] - x1[k]);
    delays_set(a, x2);
    a->nhist = 0;
    return 1;
}

/* Build the windows this evaluation solves that were left unbuilt (their
 * members' rates differ from their class's): the sub-chain arrays grow. */
static int build_needed(skel_approx *a, diag *err)
{
    ax_cbuf b = { a->ctr, a->nctr, a->ctrcap, 0, 0 };
    int rc = 0;
    size_t npi = a->npi;
    int nctr = a->nctr;
    for (int k = 0; k < a->nwin && rc == 0; k++)
        if (!a->win[k].built && !represented(a, &a->win[k]))
            rc = build_window(a, &a->win[k], &b, err);
    a->ctr = b.v;
    a->nctr = b.n;
    a->ctrcap = b.cap;
    if (rc < 0 || (a->npi == npi && a->nctr == nctr))
        return rc;
    if (mem_grow((void **)&a->pi, a->npi + 1, sizeof *a->pi) < 0 ||
        mem_grow((void **)&a->prev, (size_t)a->nctr + 1, sizeof *a->prev) < 0 ||
        mem_grow((void **)&a->rate, (size_t)a->maxc + 1, sizeof *a->rate) < 0)
        return ax_oom(err);
    for (int k = 0; k < a->nwin; k++)
        for (int s = 0; a->win[k].p0 >= npi && s < a->win[k].n; s++)
            a->pi[a->win[k].p0 + (size_t)s] = 1.0 / a->win[k].n;
    for (int k = nctr; k < a->nctr; k++)
        a->prev[k] = NAN;
    return 0;
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
        a->util[i] = a->pbusy[i];
        if (a->entry[i])
            r->throughput += a->thr[i];
    }
    r->bottleneck = skel_argmax_tied(a->util, a->ntasks);
}

/* No pipelined execution is slower than one item at a time through every
 * task and every move, a buffered one's hand-off and take included (one
 * item never shares a node, so this holds under processor sharing too), so below 1 / (sum of all mean times) the fixed
 * point erred. A little below (the mean-value sharing of a node by three
 * or more tasks: measured -1.7%) the bound is the better answer and is
 * given; far below (deals wider than a window: each waits for the next in
 * a cycle the round robin never makes, down to 1e-17) say so rather than
 * answer. */
static double one_at_a_time(const skel_approx *a)
{
    double t = 0;
    for (int i = 0; i < a->ntasks; i++)
        t += 1 / a->mu[i];
    for (int e = 0; e < a->nedges; e++)
        t += 1 / a->lambda[e] + (a->links.buffer[e] > 0 ? 2 / a->handoff : 0);
    return t;
}

/* The sweep's estimate of the job's throughput has fallen below half the
 * one-item-at-a-time bound: the fixed point is collapsing (a deal wider
 * than its windows), and it would go on for all its sweeps, each solving
 * sub-chains of thousands of states, before sanity refused it. */
static int collapsing(const skel_approx *a, double t)
{
    double x = 0;
    for (int i = 0; i < a->ntasks; i++)
        x += a->entry[i] && a->xcnt[i] ? a->xsum[i] / a->xcnt[i] : 0;
    return x < 0.5 / t;
}

static int sanity(skel_approx *a, skel_approx_result *r, diag *err)
{
    double t = one_at_a_time(a);
    if (isfinite(r->throughput) && r->throughput >= (1 - 1e-6) / t)
        return 0;
    if (isfinite(r->throughput) && r->throughput >= 0.9 / t) {
        r->throughput = 1 / t;
        r->at_bound = 1;
        return 0;
    }
    return diag_set(err, "approximation: the fixed point gave %g items/s, below the "
                         "one-item-at-a-time bound %g (a deal wider than a sub-chain: "
                         "use the exact chain or simulation)", r->throughput, 1 / t);
}

static int cmp_nt(const void *x, const void *y)
{
    const ax_nt *p = x, *q = y;
    if (p->node != q->node)
        return p->node < q->node ? -1 : 1;
    return (p->task > q->task) - (p->task < q->task);
}

/* Group the tasks by node (Sharing=ps): bynode, then per task its group. */
static void group_by_node(skel_approx *a)
{
    ax_nt *v = a->pairs;
    int n = a->ntasks;
    for (int i = 0; i < n; i++)
        v[i] = (ax_nt){ a->node[i], i };
    qsort(v, (size_t)n, sizeof *v, cmp_nt);
    for (int k = 0; k < n; k++)
        a->bynode[k] = v[k].task;
    for (int lo = 0, hi; lo < n; lo = hi) {
        for (hi = lo + 1; hi < n && a->node[a->bynode[hi]] == a->node[a->bynode[lo]]; hi++)
            ;
        for (int k = lo; k < hi; k++) {
            a->grp0[a->bynode[k]] = lo;
            a->grpn[a->bynode[k]] = hi - lo;
        }
    }
}

int skel_approx_eval(skel_approx *a, const double *mu, const double *lambda,
                     const int *ps_node, skel_approx_result *r, diag *err)
{
    if (check_rates(a, mu, lambda, err) < 0)
        return -1;
    a->mu = mu;
    a->lambda = lambda;
    a->node = ps_node;
    if (ps_node)
        group_by_node(a);
    rate_classes(a);
    if (build_needed(a, err) < 0)
        return -1;
    if (a->fresh || a->o.cold) {
        for (int k = 0; k < a->nctr; k++)
            a->prev[k] = NAN;         /* never equal: the first sweep solves all */
        for (int e = 0; e < a->nedges; e++) {
            a->rho_send[e] = a->rho_recv[e] = a->alpha_send[e] = a->alpha_recv[e] = lambda[e];
            a->gamma_send[e] = a->gamma_recv[e] = 0;
        }
        for (int i = 0; i < a->ntasks; i++)
            a->pbusy[i] = 0.5;
        memset(a->fen_send, 0, (size_t)(a->nedges + 1) * sizeof *a->fen_send);
        memset(a->fen_recv, 0, (size_t)(a->nedges + 1) * sizeof *a->fen_recv);
        for (int e = 0; e < a->nedges; e++) {
            fen_add(a->fen_send, a->nedges, e, a->rho_send[e]);
            fen_add(a->fen_recv, a->nedges, e, a->rho_recv[e]);
        }
        for (int w = 0; w < a->nwin; w++)
            for (int s = 0; s < a->win[w].n; s++)
                a->pi[a->win[w].p0 + (size_t)s] = 1.0 / a->win[w].n;
        a->fresh = 0;
    }
    if (build_pairs(a, err) < 0)
        return -1;
    memset(r, 0, sizeof *r);
    a->late = 0;
    a->nhist = 0;
    double bound = one_at_a_time(a);
    do {
        r->change = sweep(a, r->iterations & 1);
        r->iterations++;
        if (r->iterations % 2 == 0 && r->change < 1e-2 && r->change > a->o.tol && !a->late &&
            extrapolate(a))
            r->change = INFINITY;         /* not converged on a jump */
    } while (r->change > a->o.tol && r->iterations < a->o.max_iter && !a->late &&
             !(r->iterations >= 10 && collapsing(a, bound)));
    r->work = (double)r->iterations * a->nctr;
    if (a->late) {
        a->fresh = 1;          /* a sweep cut in the middle: start the next one afresh */
        return diag_set(err, "approximation: out of time after %d sweeps", r->iterations);
    }
    r->converged = r->change <= a->o.tol;
    finish(a, r);
    return sanity(a, r, err);
}

/* The workspace rebuilt for other link kinds (per edge): a link's
 * component changes the windows' states. The rates and warm start go. */
static int relink(skel_approx *a, const double *scv, const int *buffer, diag *err)
{
    skel_approx_opts o = a->o;
    o.scv = a->scv;
    o.link_scv = scv;
    o.buffer = buffer;
    o.handoff = a->handoff;
    skel_approx *b = skel_approx_new(a->d, &o, err);
    if (!b)
        return -1;
    skel_approx tmp = *a;
    *a = *b;
    *b = tmp;
    skel_approx_free(b);
    return 0;
}

int skel_approx_place(skel_approx *a, const skel_model *m, const skel_platform *p,
                      const int *node_of_task, skel_approx_result *r, diag *err)
{
    double *mu = malloc((size_t)(m->ntasks + 1) * sizeof *mu);
    double *lambda = malloc((size_t)(m->nedges + 1) * sizeof *lambda);
    double *scv = malloc((size_t)(m->nedges + 1) * sizeof *scv);
    int *buffer = malloc((size_t)(m->nedges + 1) * sizeof *buffer), rc = -1;
    if (!mu || !lambda || !scv || !buffer) {
        ax_oom(err);
        goto done;
    }
    ax_links_kinds(a->d, p, node_of_task, scv, buffer);
    a->handoff = p->local_latency > 0 ? 1 / p->local_latency : 1.0;   /* gen.c's */
    if ((ax_links_same(&a->links, scv, buffer) || relink(a, scv, buffer, err) == 0) &&
        skel_place_rates(m, p, node_of_task, mu, lambda, err) == 0)
        rc = skel_approx_eval(a, mu, lambda, p->sharing == SKEL_SHARE_PS ? node_of_task : NULL,
                              r, err);
done:
    free(buffer);
    free(scv);
    free(lambda);
    free(mu);
    return rc;
}
