/* skeleton/search.c: the placement search (docs/mapping.md).
 *
 * The chain's structure does not depend on the placement, so it is derived
 * once; each placement sets the rates, re-rates the chain through a rate
 * plan (each transition = coefficient x one rate parameter) and solves it
 * warm from the previous solution. Placements are explored depth first
 * over tasks t0, t1, ... (branch and bound): a partial placement is cut
 * when an upper bound on every completion is below the K-th best solved
 * throughput. The bounds, all sound:
 *   - per-task cycle bound: receive -> compute -> send, each step at least
 *     the inverse of the fastest rate it may have; X_0 = X_i / v_i with the
 *     visit ratio v_i where it is known (pipes, deals, one-task stages);
 *   - stage bound: by flow conservation a stage's members together carry
 *     every item, so X_0 <= sum of their cycle bounds / the stage's ratio;
 *   - sub-pipeline windows: up to WIN_MAX consecutive one-to-one tasks
 *     solved alone with saturated ends (see window_thr).
 * Rates of a partial placement are bounded from above: a node's share only
 * falls as tasks are added, and a move to an unplaced task takes the
 * fastest link from the placed end. Nodes that can be swapped without
 * changing any rate (same speed, same links to every other node) are
 * interchangeable: of the unused ones of a class only the first is tried. */
#define _POSIX_C_SOURCE 200809L
#include "skeleton.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/clock.h"
#include "../pepa/enum.h"
#include "../pepa/index.h"
#include "../pepa/solve.h"
#include "../pepa/space.h"
#include "../pepa/system.h"

#define TIE 1e-9                      /* relative difference reported as a tie */
#define MAX_TOP 100000                /* placements one result may rank */
#define MAX_MATRIX_NODES 2048         /* nodes for the latency matrices */
#define DEFAULT_MAX_STATES 2000000ul
/* Chains this small are solved exactly by dense elimination: cheaper than
 * setting up an iterative solver. */
#define DENSE_MAX 64

/* One step of a task's flow: the edges over which it may exchange the item. */
typedef struct step {
    int n;
    int *edges;
} step;

typedef struct tflow {
    int nsrc, ndst;
    step *src, *dst;
} tflow;

#define WIN_MAX 4
#define WIN_STATES 81                 /* 3^WIN_MAX */
#define WIN_RATES (2 * WIN_MAX + 1)
#define WIN_CACHE 4096

typedef struct window {
    int start, len;
    int in_edge, out_edge;            /* -1: no receive / no send at the ends */
    int link[WIN_MAX];                /* edge from task start+k to start+k+1 */
} window;

typedef struct wcache {
    int win;                          /* -1: empty */
    double key[WIN_RATES];
    double thr;
} wcache;

typedef struct search {
    skel_model *m;
    const skel_dag *d;
    const skel_platform *p;
    const skel_search_opts *o;
    diag *err;
    int nt, nn, ne, top;
    pepa_system *sys;
    pepa_space *sp;
    double *pi, *thr, *mu, *lambda;
    int *comp;                 /* per task: action id of comp_i */
    int warm;                  /* pi holds a solution */
    /* The rate plan: every transition of the chain as coefficient x one
     * rate parameter (mu_i, then lambda_e), so that re-rating is one pass
     * over an array instead of a re-enumeration of every state. */
    int use_plan;
    size_t ntr;
    uint32_t *tr_src;
    uint64_t *tr_slot;         /* entry of q->val, or NO_SLOT for a self-loop */
    int *tr_param;
    double *tr_coef;
    double *params, *pthr;     /* nt + ne: rate and throughput of each parameter */
    double *dense;             /* n * (2n + 1) for chains of at most DENSE_MAX states */
    /* platform, for bounds */
    double *lat, *bw;          /* nn * nn; lat INFINITY: no link */
    double maxspeed;
    double *mx_from, *mx_to;   /* ne * nn: fastest rate of edge e from / to a node */
    double *mx_any;            /* ne */
    tflow *flows;
    double *visit;             /* per task: X_i / X_0, or 0 when unknown */
    int *cls;                  /* per node: its class representative */
    /* sub-pipeline windows (see window_thr) */
    int nwin;
    struct window *win;
    double *bmu, *blam;        /* rate upper bounds of the current partial placement */
    double *bcyc;              /* per task: its cycle bound on X_i */
    int nstages;               /* stages found by flow conservation */
    int **stage, *stage_n;     /* their tasks */
    double *stage_v;           /* sum of their X_i / X_0 */
    int ngroups;               /* farm steps of tasks with a known visit ratio */
    const step **group;        /* the step (its members share the sender's items) */
    double *group_scale;       /* X_0 <= (sum of members' X_i) * scale */
    double *wq;                /* WIN_STATES^2 scratch for a window's chain */
    struct wcache *cache;      /* WIN_CACHE entries, direct mapped */
    unsigned long long win_solved, win_hits;
    /* the search state */
    int *place, *load;
    double *raw;               /* raw[k]: placements below a node of depth k */
    double *cbound;            /* nt * nn: children's bounds, per depth */
    int *cnode;                /* nt * nn */
    /* results */
    skel_search_entry *ranked;
    int nranked;
    double t0, last_progress;
    int timed_out;
    double missed;             /* max bound of what the budget left out */
    unsigned long long evaluated;
    double pruned, symmetric, unexplored, total;
    unsigned long ticks;
} search;

static double elapsed(const search *s)
{
    return clock_now() - s->t0;
}

/* Seconds of a move between a and b (node indices or SKEL_LOCAL), INFINITY
 * when the platform has no such link. */
static double move_secs(const search *s, int a, int b, double data)
{
    if (a == SKEL_LOCAL || b == SKEL_LOCAL || a == b)
        return s->p->local_latency < 0 ? INFINITY : s->p->local_latency;
    size_t k = (size_t)a * (size_t)s->nn + (size_t)b;
    double bw = s->bw[k];
    return s->lat[k] + (bw > 0 && data > 0 ? data / bw : 0);
}

static double edge_data(const search *s, int e)
{
    int f = s->m->edges[e].from;
    return f >= 0 ? s->m->data[f] : 0;
}

/* Endpoint of edge e at one end: a node, SKEL_LOCAL, or -3 when unplaced. */
#define UNPLACED (-3)
static int end_node(const search *s, int t, int io)
{
    if (t == SKEL_IN || t == SKEL_OUT)
        return io;
    return s->place[t] >= 0 ? s->place[t] : UNPLACED;
}

/* Upper bound on edge e's rate given the tasks placed so far. */
static double edge_ub(const search *s, int e)
{
    skel_edge ed = s->m->edges[e];
    int a = end_node(s, ed.from, s->p->input);
    int b = end_node(s, ed.to, s->p->output);
    if (a != UNPLACED && b != UNPLACED)
        return 1.0 / move_secs(s, a, b, edge_data(s, e));
    if (a == UNPLACED && b == UNPLACED)
        return s->mx_any[e];
    if (a == SKEL_LOCAL || b == SKEL_LOCAL)
        return s->p->local_latency < 0 ? 0 : 1.0 / s->p->local_latency;
    if (a != UNPLACED)
        return s->mx_from[(size_t)e * (size_t)s->nn + (size_t)a];
    return s->mx_to[(size_t)e * (size_t)s->nn + (size_t)b];
}

/* Mean over steps of the least time one exchange can take. */
static double steps_time(const search *s, const step *st, int n)
{
    if (n == 0)
        return 0;
    double sum = 0;
    for (int k = 0; k < n; k++) {
        double rate = 0;
        for (int j = 0; j < st[k].n; j++)
            rate += s->blam[st[k].edges[j]];
        if (!(rate > 0))
            return INFINITY;
        sum += 1.0 / rate;
    }
    return sum / n;
}

static double window_thr(search *s, int wi);

/* Upper bound on X_0 over every completion of the current partial
 * placement (0: infeasible, a link missing). */
static double bound(search *s)
{
    for (int i = 0; i < s->nt; i++) {
        int j = s->place[i];
        if (j >= 0)
            s->bmu[i] = s->m->work[i] * s->p->nodes[j].speed / s->load[j];
        else if (s->o->pins && s->o->pins[i] >= 0)
            s->bmu[i] = s->m->work[i] * s->p->nodes[s->o->pins[i]].speed /
                        (s->load[s->o->pins[i]] + 1);
        else
            s->bmu[i] = s->m->work[i] * s->maxspeed;
    }
    for (int e = 0; e < s->ne; e++)
        s->blam[e] = edge_ub(s, e);
    if (s->d->extended) {
        /* par/choice/loop: the flows' cycle bounds do not apply. A task
         * computing v_i times per item is busy at most all the time, so
         * items pass at most bmu_i / v_i per second; t0 computes v_0 times
         * per item, and never faster than bmu_0. */
        for (int e = 0; e < s->ne; e++)
            if (!(s->blam[e] > 0))
                return 0;
        const double *v = s->d->visits;
        double items = INFINITY;
        for (int i = 0; i < s->nt; i++)
            if (v[i] > 0 && s->bmu[i] / v[i] < items)
                items = s->bmu[i] / v[i];
        double x0 = v[0] > 0 ? items * v[0] : INFINITY;
        return x0 < s->bmu[0] ? x0 : s->bmu[0];
    }
    double best = INFINITY;
    for (int i = 0; i < s->nt; i++) {
        double cycle = 1.0 / s->bmu[i] + steps_time(s, s->flows[i].src, s->flows[i].nsrc) +
                       steps_time(s, s->flows[i].dst, s->flows[i].ndst);
        s->bcyc[i] = 1.0 / cycle;
        if (!(s->visit[i] > 0))
            continue;
        double x = s->bcyc[i] / s->visit[i];
        if (x < best)
            best = x;
    }
    for (int g = 0; g < s->nstages; g++) {
        double sum = 0;
        for (int k = 0; k < s->stage_n[g]; k++)
            sum += s->bcyc[s->stage[g][k]];
        if (sum / s->stage_v[g] < best)
            best = sum / s->stage_v[g];
    }
    /* A farm's workers share their sender's items: together they process
     * at least X_0 * v / ndst, each at most its cycle bound. */
    for (int g = 0; g < s->ngroups; g++) {
        double sum = 0;
        for (int k = 0; k < s->group[g]->n; k++) {
            skel_edge ed = s->m->edges[s->group[g]->edges[k]];
            sum += s->bcyc[ed.to];
        }
        if (sum * s->group_scale[g] < best)
            best = sum * s->group_scale[g];
    }
    /* Without pruning the bounds only order the search and bound what a
     * budget leaves out: the cycle bounds are enough. */
    for (int k = 0; k < s->nwin && !s->o->no_windows && !s->o->no_prune; k++) {
        const window *w = &s->win[k];
        if (w->len == WIN_MAX && s->place[w->start + w->len - 1] < 0)
            continue;
        double x = window_thr(s, k) / s->visit[s->win[k].start];
        if (x < best)
            best = x;
    }
    return isfinite(best) ? best : 0;
}

/* ---- sub-pipeline windows ------------------------------------------------- */

/* A window is up to WIN_MAX consecutive pipeline tasks joined by one-to-one
 * links. Solved alone, with its input always available and its output
 * always accepted, its throughput bounds the whole skeleton's: each task's
 * completion times are a max-plus function of the exponential durations
 * (receive, compute, send), increasing in every one of them, and cutting
 * the window loose only removes waits; faster rates only shorten
 * durations. The chains are tiny (3^len states) and cached by their rates. */
/* Task i's only partner on one side, through a one-step, one-member flow
 * (SKEL_IN / SKEL_OUT included); -4 when there is none, -5 when several. */
static int sole_partner(const skel_flow *f)
{
    if (f->pattern == SKEL_PAT_NONE || f->nsteps == 0)
        return -4;
    if (f->nsteps != 1 || f->start[1] - f->start[0] != 1)
        return -5;
    return f->tasks[0];
}

static int setup_windows(search *s)
{
    if (!(s->win = calloc(2 * (size_t)s->nt, sizeof *s->win)) ||
        !(s->wq = malloc((size_t)WIN_STATES * (2 * WIN_STATES + 1) * sizeof *s->wq)) ||
        !(s->cache = malloc((size_t)WIN_CACHE * sizeof *s->cache)) ||
        !(s->bmu = malloc((size_t)s->nt * sizeof *s->bmu)) ||
        !(s->blam = malloc((size_t)(s->ne ? s->ne : 1) * sizeof *s->blam)))
        return diag_set(s->err, "out of memory");
    for (int k = 0; k < WIN_CACHE; k++)
        s->cache[k].win = -1;
    if (s->d->extended)
        return 0;             /* no windows: bound() has its own rule */
    for (int j = 0; j < s->nt; j++) {
        if (!(s->visit[j] > 0))
            continue;
        int src = sole_partner(&s->d->src[j]);
        if (src == -5)
            continue;
        window w = { .start = j, .len = 1, .in_edge = -1, .out_edge = -1 };
        if (src != -4 && (w.in_edge = skel_dag_edge(s->d, src, j)) < 0)
            continue;
        int last = j;
        while (w.len < WIN_MAX && last + 1 < s->nt && sole_partner(&s->d->dst[last]) == last + 1 &&
               sole_partner(&s->d->src[last + 1]) == last) {
            int e = skel_dag_edge(s->d, last, last + 1);
            if (e < 0)
                break;
            w.link[w.len - 1] = e;
            w.len++;
            last++;
        }
        /* The last task's send: none, or one partner. */
        int dst;
        while (w.len > 1 && (dst = sole_partner(&s->d->dst[last])) == -5) {
            w.len--;
            last--;
        }
        dst = sole_partner(&s->d->dst[last]);
        if (dst == -5 || w.len < 2)
            continue;
        if (dst != -4 && (w.out_edge = skel_dag_edge(s->d, last, dst)) < 0)
            continue;
        s->win[s->nwin++] = w;
        /* A longest window is solved only once all its tasks are placed
         * (81 states); its shorter prefix bounds the partial placements. */
        if (w.len == WIN_MAX && WIN_MAX > 2) {
            window p = w;
            p.len = WIN_MAX - 1;
            p.out_edge = w.link[WIN_MAX - 2];
            s->win[s->nwin++] = p;
        }
    }
    return 0;
}

/* Steady state of a dense generator q (n x n, row i = from state i) into
 * pi, by Gaussian elimination on pi Q = 0 with sum pi = 1. Returns -1 when
 * singular. a is n * (n + 1) scratch. */
static int dense_steady(const double *q, int n, double *a, double *pi)
{
    int m = n + 1;
    for (int r = 0; r < n; r++) {
        for (int c = 0; c < n; c++)
            a[r * m + c] = r == n - 1 ? 1.0 : q[c * n + r];
        a[r * m + n] = r == n - 1 ? 1.0 : 0.0;
    }
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(a[r * m + c]) > fabs(a[piv * m + c]))
                piv = r;
        if (a[piv * m + c] == 0)
            return -1;
        if (piv != c)
            for (int k = 0; k <= n; k++) {
                double t = a[c * m + k];
                a[c * m + k] = a[piv * m + k];
                a[piv * m + k] = t;
            }
        for (int r = c + 1; r < n; r++) {
            double f = a[r * m + c] / a[c * m + c];
            if (f != 0)
                for (int k = c; k <= n; k++)
                    a[r * m + k] -= f * a[c * m + k];
        }
    }
    for (int r = n - 1; r >= 0; r--) {
        double v = a[r * m + n];
        for (int k = r + 1; k < n; k++)
            v -= a[r * m + k] * pi[k];
        pi[r] = v / a[r * m + r];
    }
    return 0;
}

enum { PH_R, PH_C, PH_S };

/* Throughput of window w alone at rates bmu/blam (its first task's
 * compute), 0 when a rate is 0 (a missing link), cached. */
static double window_thr(search *s, int wi)
{
    const window *w = &s->win[wi];
    int len = w->len, nk = 0;
    double key[WIN_RATES];
    for (int k = 0; k < len; k++)
        key[nk++] = s->bmu[w->start + k];
    key[nk++] = w->in_edge >= 0 ? s->blam[w->in_edge] : -1;
    key[nk++] = w->out_edge >= 0 ? s->blam[w->out_edge] : -1;
    for (int k = 0; k + 1 < len; k++)
        key[nk++] = s->blam[w->link[k]];
    for (int k = 0; k < nk; k++)
        if (key[k] == 0)
            return 0;
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)wi;
    for (int k = 0; k < nk; k++) {
        uint64_t bits;
        memcpy(&bits, &key[k], sizeof bits);
        h = (h ^ bits) * 1099511628211ULL;
    }
    wcache *c = &s->cache[(h ^ (h >> 29)) % WIN_CACHE];
    if (c->win == wi && memcmp(c->key, key, (size_t)nk * sizeof *key) == 0) {
        s->win_hits++;
        return c->thr;
    }
    /* Phases of each task: R (if it receives), C, S (if it sends). */
    int nph[WIN_MAX], ph[WIN_MAX][3], radix[WIN_MAX], n = 1;
    for (int k = 0; k < len; k++) {
        nph[k] = 0;
        if (k > 0 || w->in_edge >= 0)
            ph[k][nph[k]++] = PH_R;
        ph[k][nph[k]++] = PH_C;
        if (k + 1 < len || w->out_edge >= 0)
            ph[k][nph[k]++] = PH_S;
        radix[k] = n;
        n *= nph[k];
    }
    double *q = s->wq, *a = s->wq + (size_t)n * (size_t)n;
    double pi[WIN_STATES];
    memset(q, 0, (size_t)n * (size_t)n * sizeof *q);
    for (int x = 0; x < n; x++) {
        int at[WIN_MAX];
        for (int k = 0; k < len; k++)
            at[k] = (x / radix[k]) % nph[k];
        for (int k = 0; k < len; k++) {
            int p = ph[k][at[k]], next = (at[k] + 1) % nph[k];
            int y = x + (next - at[k]) * radix[k];
            if (p == PH_C)
                q[x * n + y] += s->bmu[w->start + k];
            else if (p == PH_R && k == 0)
                q[x * n + y] += s->blam[w->in_edge];
            else if (p == PH_S && k + 1 == len)
                q[x * n + y] += s->blam[w->out_edge];
            else if (p == PH_R && ph[k - 1][at[k - 1]] == PH_S) {
                /* the move from task k-1 to task k: both advance */
                int pn = (at[k - 1] + 1) % nph[k - 1];
                y += (pn - at[k - 1]) * radix[k - 1];
                q[x * n + y] += s->blam[w->link[k - 1]];
            }
        }
    }
    for (int x = 0; x < n; x++) {
        double out = 0;
        for (int y = 0; y < n; y++)
            if (y != x)
                out += q[x * n + y];
        q[x * n + x] = -out;  /* a self-loop (a lone compute phase) changes nothing */
    }
    double thr = INFINITY;
    if (dense_steady(q, n, a, pi) == 0) {
        int cph = ph[0][0] == PH_C ? 0 : 1;
        double pc = 0;
        for (int x = 0; x < n; x++)
            if ((x / radix[0]) % nph[0] == cph)
                pc += pi[x];
        thr = s->bmu[w->start] * pc;
    }
    s->win_solved++;
    if (!isfinite(thr) || thr < 0)
        thr = INFINITY;       /* no usable answer: no constraint */
    c->win = wi;
    memcpy(c->key, key, (size_t)nk * sizeof *key);
    c->thr = thr;
    return thr;
}

/* ---- set-up ---------------------------------------------------------------- */

static int build_flow(search *s, const skel_flow *f, int task, int is_src, step **out, int *n)
{
    *n = f->pattern == SKEL_PAT_NONE ? 0 : f->nsteps;
    *out = NULL;
    if (*n == 0)
        return 0;
    if (!(*out = calloc((size_t)*n, sizeof **out)))
        return diag_set(s->err, "out of memory");
    for (int k = 0; k < *n; k++) {
        int lo = f->start[k], hi = f->start[k + 1];
        step *st = &(*out)[k];
        if (!(st->edges = malloc((size_t)(hi - lo > 0 ? hi - lo : 1) * sizeof *st->edges)))
            return diag_set(s->err, "out of memory");
        for (int j = lo; j < hi; j++) {
            int other = f->tasks[j];
            int e = is_src ? skel_dag_edge(s->d, other, task) : skel_dag_edge(s->d, task, other);
            if (e < 0)
                return diag_set(s->err, "internal error: task t%d has no edge to its partner", task);
            st->edges[st->n++] = e;
        }
    }
    return 0;
}

/* Visit ratios X_i / X_0, propagated from t0 along sends whose every step
 * has one partner (so the share of each partner is fixed). */
static void visit_ratios(search *s)
{
    for (int pass = 0, changed = 1; changed && pass <= s->nt; pass++) {
        changed = 0;
        for (int j = 1; j < s->nt; j++) {
            if (s->visit[j] > 0)
                continue;
            double v = 0;
            int known = 1;
            for (int e = 0; e < s->ne && known; e++) {
                skel_edge ed = s->m->edges[e];
                if (ed.to != j)
                    continue;
                if (ed.from < 0 || !(s->visit[ed.from] > 0)) {
                    known = 0;
                    break;
                }
                const tflow *fl = &s->flows[ed.from];
                int count = 0;
                for (int k = 0; k < fl->ndst; k++)
                    for (int q = 0; q < fl->dst[k].n; q++)
                        if (fl->dst[k].edges[q] == e) {
                            if (fl->dst[k].n != 1)
                                known = 0;
                            count++;
                        }
                if (known && fl->ndst > 0)
                    v += s->visit[ed.from] * count / fl->ndst;
            }
            if (known && v > 0) {
                s->visit[j] = v;
                changed = 1;
            }
        }
    }
}

/* Stages by flow conservation: if the tasks of a set G send only to the
 * set D, and D receives only from G, every item G sends is received by D
 * once, so sum X over D = sum X over G. Starting from {t0} this finds the
 * stages of a pipeline of farms and deals; a stage of one task gets its
 * visit ratio, and every stage bounds X_0 by the sum of its members'
 * cycle bounds (sound whatever the split inside the stage). */
static int stage_groups(search *s, int *ng_out)
{
    int nt = s->nt, ng = 0, cap = nt + 1;
    int *mark = calloc((size_t)nt, sizeof *mark);
    int *cur = malloc((size_t)nt * sizeof *cur), *nxt = malloc((size_t)nt * sizeof *nxt);
    if (!mark || !cur || !nxt) {
        free(nxt);
        free(cur);
        free(mark);
        return diag_set(s->err, "out of memory");
    }
    int ncur = 1, gen = 0;
    cur[0] = 0;
    double v = 1;
    while (ng < cap) {
        /* D: every partner G sends to */
        gen++;
        int nnext = 0, ok = 1;
        for (int a = 0; a < ncur; a++)
            mark[cur[a]] = -gen;          /* members of G */
        for (int a = 0; a < ncur && ok; a++) {
            const skel_flow *f = &s->d->dst[cur[a]];
            if (f->pattern == SKEL_PAT_NONE)
                continue;
            for (int k = f->start[0]; k < f->start[f->nsteps]; k++) {
                int t = f->tasks[k];
                if (t < 0) {
                    ok = 0;               /* items leave: not conserved in D */
                    break;
                }
                if (mark[t] != gen) {
                    if (mark[t] == -gen) {
                        ok = 0;           /* a cycle back into G */
                        break;
                    }
                    mark[t] = gen;
                    nxt[nnext++] = t;
                }
            }
        }
        /* every task of D receives only from G */
        for (int b = 0; b < nnext && ok; b++) {
            const skel_flow *f = &s->d->src[nxt[b]];
            for (int k = f->start[0]; k < f->start[f->nsteps] && ok; k++)
                ok = f->tasks[k] >= 0 && mark[f->tasks[k]] == -gen;
        }
        for (int a = 0; a < ncur; a++)
            mark[cur[a]] = 0;
        if (!ok || nnext == 0)
            break;
        for (int b = 0; b < nnext; b++)
            mark[nxt[b]] = 0;
        /* record D */
        int *m = malloc((size_t)nnext * sizeof *m);
        if (!m) {
            free(nxt);
            free(cur);
            free(mark);
            return diag_set(s->err, "out of memory");
        }
        memcpy(m, nxt, (size_t)nnext * sizeof *m);
        s->stage[ng] = m;
        s->stage_n[ng] = nnext;
        s->stage_v[ng] = v;
        ng++;
        if (nnext == 1 && !(s->visit[nxt[0]] > 0))
            s->visit[nxt[0]] = v;
        memcpy(cur, nxt, (size_t)nnext * sizeof *cur);
        ncur = nnext;
    }
    free(nxt);
    free(cur);
    free(mark);
    *ng_out = ng;
    return 0;
}

int skel_search_classes(const skel_platform *p, const unsigned char *keep, int *cls, diag *err)
{
    (void)err;
    for (int a = 0; a < p->nnodes; a++) {
        cls[a] = a;
        if ((keep && keep[a]) || a == p->input || a == p->output)
            continue;
        for (int r = 0; r < a; r++) {
            if (cls[r] != r || (keep && keep[r]) || r == p->input || r == p->output ||
                p->nodes[r].speed != p->nodes[a].speed)
                continue;
            int same = 1;
            for (int c = 0; c < p->nnodes && same; c++) {
                if (c == a || c == r)
                    continue;
                double la, ba, lr, br;
                int ea = skel_platform_link(p, a, c, &la, &ba, NULL);
                int er = skel_platform_link(p, r, c, &lr, &br, NULL);
                same = ea == er && (ea < 0 || (la == lr && ba == br));
            }
            if (same) {
                cls[a] = r;
                break;
            }
        }
    }
    return 0;
}

static int setup_platform(search *s)
{
    size_t nn = (size_t)s->nn, ne = (size_t)(s->ne ? s->ne : 1);
    if (s->nn > MAX_MATRIX_NODES)
        return diag_set(s->err, "%s: %d nodes: the search handles at most %d", s->p->file, s->nn,
                        MAX_MATRIX_NODES);
    if (!(s->lat = malloc(nn * nn * sizeof *s->lat)) || !(s->bw = malloc(nn * nn * sizeof *s->bw)) ||
        !(s->mx_from = calloc(ne * nn, sizeof *s->mx_from)) ||
        !(s->mx_to = calloc(ne * nn, sizeof *s->mx_to)) || !(s->mx_any = calloc(ne, sizeof *s->mx_any)))
        return diag_set(s->err, "out of memory");
    for (int a = 0; a < s->nn; a++) {
        if (s->p->nodes[a].speed > s->maxspeed && (!s->o->allowed || s->o->allowed[a]))
            s->maxspeed = s->p->nodes[a].speed;
        for (int b = 0; b < s->nn; b++) {
            double l, w;
            size_t k = (size_t)a * nn + (size_t)b;
            if (skel_platform_link(s->p, a, b, &l, &w, NULL) < 0)
                l = INFINITY, w = 0;
            s->lat[k] = l;
            s->bw[k] = w;
        }
    }
    for (int e = 0; e < s->ne; e++) {
        double data = edge_data(s, e);
        for (int a = 0; a < s->nn; a++)
            for (int b = 0; b < s->nn; b++) {
                double r = 1.0 / move_secs(s, a, b, data);
                size_t ka = (size_t)e * nn + (size_t)a, kb = (size_t)e * nn + (size_t)b;
                if (r > s->mx_from[ka])
                    s->mx_from[ka] = r;
                if (r > s->mx_to[kb])
                    s->mx_to[kb] = r;
                if (r > s->mx_any[e])
                    s->mx_any[e] = r;
            }
    }
    return 0;
}

static int setup_chain(search *s)
{
    diag *err = s->err;
    if (!(s->sys = pepa_system_new(s->m->pepa, err)))
        return -1;
    pepa_derive_opts dopts = { 0 };
    dopts.max_states = s->o->max_states ? s->o->max_states : DEFAULT_MAX_STATES;
    dopts.threads = s->o->threads;
    if (s->o->budget > 0)
        dopts.time_limit = s->o->budget;
    if (!(s->sp = pepa_derive(s->sys, &dopts, err)))
        return -1;
    if (s->sp->deadlocks)
        return diag_set(err, "the model of the skeleton deadlocks (%u states can do nothing)",
                        s->sp->deadlocks);
    pepa_chain_class cls;
    if (pepa_space_classify(s->sp, &cls, err) < 0)
        return -1;
    if (cls.bottom != 1)
        return diag_set(err, "the model of the skeleton has %u closed classes of states: no unique "
                        "steady state", cls.bottom);
    if (s->sp->n <= DENSE_MAX &&
        !(s->dense = malloc((size_t)s->sp->n * (2 * (size_t)s->sp->n + 1) * sizeof *s->dense)))
        return diag_set(err, "out of memory");
    if (!(s->pi = calloc(s->sp->n, sizeof *s->pi)) ||
        !(s->thr = calloc((size_t)s->sys->nactions, sizeof *s->thr)) ||
        !(s->comp = malloc((size_t)s->nt * sizeof *s->comp)))
        return diag_set(err, "out of memory");
    for (int i = 0; i < s->nt; i++) {
        char name[32];
        snprintf(name, sizeof name, "comp_%d", i);
        if ((s->comp[i] = pepa_model_find_action(s->m->pepa, name)) < 0)
            return diag_set(err, "internal error: the model has no action %s", name);
    }
    return 0;
}

static int setup(search *s)
{
    size_t nt = (size_t)s->nt, nn = (size_t)s->nn;
    if (!(s->flows = calloc(nt, sizeof *s->flows)) || !(s->visit = calloc(nt, sizeof *s->visit)) ||
        !(s->cls = malloc(nn * sizeof *s->cls)) || !(s->place = malloc(nt * sizeof *s->place)) ||
        !(s->load = calloc(nn, sizeof *s->load)) || !(s->raw = malloc((nt + 1) * sizeof *s->raw)) ||
        !(s->cbound = malloc(nt * nn * sizeof *s->cbound)) ||
        !(s->cnode = malloc(nt * nn * sizeof *s->cnode)) ||
        !(s->mu = malloc(nt * sizeof *s->mu)) ||
        !(s->lambda = malloc((size_t)(s->ne ? s->ne : 1) * sizeof *s->lambda)) ||
        !(s->ranked = calloc((size_t)s->top, sizeof *s->ranked)))
        return diag_set(s->err, "out of memory");
    for (int i = 0; i < s->top; i++) {
        skel_search_entry *e = &s->ranked[i];
        if (!(e->placement = malloc(nt * sizeof *e->placement)) ||
            !(e->task_util = malloc(nt * sizeof *e->task_util)) ||
            !(e->node_util = malloc(nn * sizeof *e->node_util)))
            return diag_set(s->err, "out of memory");
    }
    for (int i = 0; i < s->nt; i++)
        s->place[i] = -1;
    for (int i = 0; i < s->nt && !s->d->extended; i++) {
        if (build_flow(s, &s->d->src[i], i, 1, &s->flows[i].src, &s->flows[i].nsrc) < 0 ||
            build_flow(s, &s->d->dst[i], i, 0, &s->flows[i].dst, &s->flows[i].ndst) < 0)
            return -1;
    }
    s->visit[0] = 1;           /* the others start unknown (0) */
    visit_ratios(s);
    if (!(s->stage = calloc(nt + 1, sizeof *s->stage)) ||
        !(s->stage_n = calloc(nt + 1, sizeof *s->stage_n)) ||
        !(s->stage_v = calloc(nt + 1, sizeof *s->stage_v)))
        return diag_set(s->err, "out of memory");
    if (!s->d->extended && stage_groups(s, &s->nstages) < 0)
        return -1;
    visit_ratios(s);           /* again, from the one-task stages */
    if (setup_windows(s) < 0)
        return -1;
    int ng = 0;
    for (int i = 0; i < s->nt; i++)
        ng += s->flows[i].ndst;
    if (!(s->bcyc = malloc(nt * sizeof *s->bcyc)) ||
        !(s->group = malloc((size_t)(ng ? ng : 1) * sizeof *s->group)) ||
        !(s->group_scale = malloc((size_t)(ng ? ng : 1) * sizeof *s->group_scale)))
        return diag_set(s->err, "out of memory");
    for (int i = 0; i < s->nt; i++) {
        if (!(s->visit[i] > 0))
            continue;
        for (int k = 0; k < s->flows[i].ndst; k++) {
            const step *st = &s->flows[i].dst[k];
            int tasks_only = st->n > 1;
            for (int q = 0; q < st->n && tasks_only; q++)
                tasks_only = s->m->edges[st->edges[q]].to >= 0;
            if (!tasks_only)
                continue;
            s->group[s->ngroups] = st;
            s->group_scale[s->ngroups++] = s->flows[i].ndst / s->visit[i];
        }
    }
    /* Nodes named by a pin, and nodes no task may use, are not
     * interchangeable with any other. */
    unsigned char *keep = calloc(nn, 1);
    if (!keep)
        return diag_set(s->err, "out of memory");
    for (int i = 0; s->o->pins && i < s->nt; i++)
        if (s->o->pins[i] >= 0)
            keep[s->o->pins[i]] = 1;
    int usable = 0;
    for (int j = 0; j < s->nn; j++) {
        if (s->o->allowed && !s->o->allowed[j])
            keep[j] = 1;
        else
            usable++;
    }
    skel_search_classes(s->p, keep, s->cls, s->err);
    free(keep);
    if (s->o->no_symmetry)
        for (int j = 0; j < s->nn; j++)
            s->cls[j] = j;
    s->raw[s->nt] = 1;
    for (int k = s->nt - 1; k >= 0; k--)
        s->raw[k] = s->raw[k + 1] * (s->o->pins && s->o->pins[k] >= 0 ? 1 : usable);
    return 0;
}

/* ---- the rate plan ---------------------------------------------------------- */

#define NO_SLOT UINT64_MAX
#define PLAN_MAX_TRANSITIONS ((size_t)16000000)   /* 384 MB of plan at most */

/* Position of source i in row j of q (rows are sorted by source). */
static uint64_t find_slot(const pepa_ctmc *q, uint32_t j, uint32_t i)
{
    uint64_t lo = q->rowp[j], hi = q->rowp[j + 1];
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (q->col[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < q->rowp[j + 1] && q->col[lo] == i ? lo : NO_SLOT;
}

/* Set the model's rates to the parameter vector r (nt mu, then ne lambda)
 * and re-rate the chain the reference way. */
static int reference_rate(search *s, const double *r)
{
    if (skel_model_set_rates(s->m, r, r + s->nt, s->err) < 0 ||
        pepa_system_rerate(s->sys, s->err) < 0 || pepa_space_rate(s->sp, s->err) < 0)
        return -1;
    return 0;
}

static void plan_apply(search *s, const double *r)
{
    pepa_ctmc *q = s->sp->q;
    memset(q->val, 0, q->nnz * sizeof *q->val);
    memset(q->out, 0, (size_t)q->n * sizeof *q->out);
    for (size_t t = 0; t < s->ntr; t++) {
        if (s->tr_slot[t] == NO_SLOT)
            continue;
        double v = s->tr_coef[t] * r[s->tr_param[t]];
        q->val[s->tr_slot[t]] += v;
        q->out[s->tr_src[t]] += v;
    }
}

static int plan_grow(search *s, size_t *cap)
{
    size_t nc = *cap ? 2 * *cap : 4096;
    uint32_t *a = realloc(s->tr_src, nc * sizeof *a);
    if (!a)
        return -1;
    s->tr_src = a;
    uint64_t *b = realloc(s->tr_slot, nc * sizeof *b);
    if (!b)
        return -1;
    s->tr_slot = b;
    int *c = realloc(s->tr_param, nc * sizeof *c);
    if (!c)
        return -1;
    s->tr_param = c;
    double *d = realloc(s->tr_coef, nc * sizeof *d);
    if (!d)
        return -1;
    s->tr_coef = d;
    *cap = nc;
    return 0;
}

/* Build the plan at probe rates, then check it against the reference
 * re-rating at other rates. A model where a transition's rate is not one
 * parameter times a constant keeps the slow, general path. */
static int plan_build(search *s)
{
    int np = s->nt + s->ne, rc = -1;
    const pepa_system *sys = s->sys;
    int *act_param = malloc((size_t)sys->nactions * sizeof *act_param);
    double *p2 = malloc((size_t)np * sizeof *p2);
    pepa_enum *en = pepa_enum_new(sys);
    size_t cap = 0;
    if (!(s->params = malloc((size_t)np * sizeof *s->params)) ||
        !(s->pthr = malloc((size_t)np * sizeof *s->pthr)) || !act_param || !p2 || !en) {
        diag_set(s->err, "out of memory");
        goto out;
    }
    for (int a = 0; a < sys->nactions; a++)
        act_param[a] = -1;
    for (int i = 0; i < s->nt; i++)
        act_param[s->comp[i]] = i;
    for (int e = 0; e < s->ne; e++) {
        char name[64], x[16], y[16];
        skel_edge ed = s->m->edges[e];
        if (ed.from == SKEL_IN)
            snprintf(x, sizeof x, "in");
        else
            snprintf(x, sizeof x, "%d", ed.from);
        if (ed.to == SKEL_OUT)
            snprintf(y, sizeof y, "out");
        else
            snprintf(y, sizeof y, "%d", ed.to);
        snprintf(name, sizeof name, "move_%s_%s", x, y);
        int a = pepa_model_find_action(s->m->pepa, name);
        if (a < 0) {
            rc = 0;           /* not the generator's naming: keep the general path */
            goto out;
        }
        act_param[a] = s->nt + e;
    }
    /* Probe rates: distinct, irregular values. */
    for (int k = 0; k < np; k++) {
        s->params[k] = 1.0 + 0.37 * (k % 11) + 0.011 * k;
        p2[k] = 2.5 - 0.13 * (k % 7) + 0.007 * k;
    }
    if (reference_rate(s, s->params) < 0)
        goto out;
    const pepa_ctmc *q = s->sp->q;
    uint64_t target[PEPA_MAX_WORDS];
    for (uint32_t i = 0; i < s->sp->n; i++) {
        const uint64_t *src = pepa_space_state(s->sp, i);
        const pepa_tr *tr;
        const uint64_t *mask;
        long ntr = pepa_enum_state(en, src, &tr, &mask, s->err);
        if (ntr < 0)
            goto out;
        for (long t = 0; t < ntr; t++) {
            int prm = act_param[tr[t].action];
            if (prm < 0 || s->ntr >= PLAN_MAX_TRANSITIONS) {
                rc = 0;
                goto out;
            }
            uint64_t slot = NO_SLOT;
            for (int w = 0; w < s->sp->nw; w++)
                target[w] = src[w] ^ mask[(size_t)t * (size_t)s->sp->nw + (size_t)w];
            if (!pepa_same_state(target, src, s->sp->nw)) {
                int64_t j = pepa_space_find(s->sp, target);
                if (j < 0 || (slot = find_slot(q, (uint32_t)j, i)) == NO_SLOT) {
                    rc = 0;
                    goto out;
                }
            }
            if (s->ntr == cap && plan_grow(s, &cap) < 0) {
                diag_set(s->err, "out of memory");
                goto out;
            }
            s->tr_src[s->ntr] = i;
            s->tr_slot[s->ntr] = slot;
            s->tr_param[s->ntr] = prm;
            s->tr_coef[s->ntr] = tr[t].rate / s->params[prm];
            s->ntr++;
        }
    }
    /* Check: the plan at p2 against the reference at p2. */
    if (reference_rate(s, p2) < 0)
        goto out;
    double *val = malloc((q->nnz ? q->nnz : 1) * sizeof *val);
    double *outr = malloc((size_t)q->n * sizeof *outr);
    if (!val || !outr) {
        free(outr);
        free(val);
        diag_set(s->err, "out of memory");
        goto out;
    }
    memcpy(val, q->val, q->nnz * sizeof *val);
    memcpy(outr, q->out, (size_t)q->n * sizeof *outr);
    plan_apply(s, p2);
    int same = 1;
    for (uint64_t k = 0; k < q->nnz && same; k++)
        same = fabs(val[k] - q->val[k]) <= 1e-12 * fabs(val[k]);
    for (uint32_t k = 0; k < q->n && same; k++)
        same = fabs(outr[k] - q->out[k]) <= 1e-12 * fabs(outr[k]);
    /* Leave the chain as the reference rated it. */
    memcpy(q->val, val, q->nnz * sizeof *val);
    memcpy(q->out, outr, (size_t)q->n * sizeof *outr);
    free(outr);
    free(val);
    s->use_plan = same;
    rc = 0;
out:
    if (!s->use_plan)
        s->ntr = 0;
    pepa_enum_free(en);
    free(p2);
    free(act_param);
    return rc;
}

/* ---- evaluation ------------------------------------------------------------- */

static int solve_dense(search *s)
{
    const pepa_ctmc *q = s->sp->q;
    int n = (int)q->n;
    double *g = s->dense, *a = s->dense + (size_t)n * (size_t)n;
    memset(g, 0, (size_t)n * (size_t)n * sizeof *g);
    for (int j = 0; j < n; j++) {
        for (uint64_t k = q->rowp[j]; k < q->rowp[j + 1]; k++)
            g[(size_t)q->col[k] * (size_t)n + (size_t)j] += q->val[k];
        g[(size_t)j * (size_t)n + (size_t)j] = -q->out[j];
    }
    if (dense_steady(g, n, a, s->pi) < 0)
        return -1;
    for (int j = 0; j < n; j++)
        if (!(s->pi[j] >= -1e-12) || !isfinite(s->pi[j]))
            return -1;
    return 0;
}

static int solve_now(search *s)
{
    if (s->dense && solve_dense(s) == 0)
        return 0;
    pepa_solve_opts so;
    pepa_solve_opts_init(&so);
    so.tol = 1e-12;
    so.warm = s->warm;
    pepa_solve_result res;
    diag tmp;
    diag_clear(&tmp);
    if (pepa_solve(s->sp->q, &so, s->pi, &res, &tmp) == 0)
        return 0;
    /* A warm start that went astray: start again from scratch. */
    so.warm = 0;
    so.tol = 1e-10;
    return pepa_solve(s->sp->q, &so, s->pi, &res, s->err);
}

/* Solve the complete placement s->place and rank it. */
static int evaluate(search *s)
{
    if (skel_place_rates(s->m, s->p, s->place, s->mu, s->lambda, s->err) < 0 ||
        skel_model_set_rates(s->m, s->mu, s->lambda, s->err) < 0)
        return -1;
    if (s->use_plan) {
        memcpy(s->params, s->mu, (size_t)s->nt * sizeof *s->mu);
        memcpy(s->params + s->nt, s->lambda, (size_t)s->ne * sizeof *s->lambda);
        plan_apply(s, s->params);
    } else if (pepa_system_rerate(s->sys, s->err) < 0 || pepa_space_rate(s->sp, s->err) < 0) {
        return -1;
    }
    if (solve_now(s) < 0)
        return -1;
    s->warm = 1;
    if (s->use_plan) {
        /* Throughput of comp_i: pi-weighted rate of its transitions,
         * self-loops included. */
        for (int i = 0; i < s->nt; i++)
            s->pthr[i] = 0;
        for (size_t t = 0; t < s->ntr; t++)
            if (s->tr_param[t] < s->nt)
                s->pthr[s->tr_param[t]] += s->pi[s->tr_src[t]] * s->tr_coef[t];
        for (int i = 0; i < s->nt; i++)
            s->thr[s->comp[i]] = s->pthr[i] * s->mu[i];
    } else if (pepa_space_throughput(s->sp, s->pi, s->thr, s->err) < 0) {
        return -1;
    }
    s->evaluated++;
    double x = s->thr[s->comp[0]];
    /* Where it goes: after every entry at least as good (ties keep the
     * order found, the canonical placement first). */
    int pos = s->nranked;
    while (pos > 0 && s->ranked[pos - 1].throughput < x)
        pos--;
    if (pos >= s->top)
        return 0;
    skel_search_entry spare = s->ranked[s->nranked < s->top ? s->nranked : s->top - 1];
    int last = s->nranked < s->top ? s->nranked : s->top - 1;
    memmove(&s->ranked[pos + 1], &s->ranked[pos], (size_t)(last - pos) * sizeof *s->ranked);
    if (s->nranked < s->top)
        s->nranked++;
    skel_search_entry *e = &s->ranked[pos];
    *e = spare;
    memcpy(e->placement, s->place, (size_t)s->nt * sizeof *s->place);
    e->throughput = x;
    e->bottleneck = 0;
    for (int j = 0; j < s->nn; j++)
        e->node_util[j] = 0;
    for (int i = 0; i < s->nt; i++) {
        double xi = s->thr[s->comp[i]];
        int j = s->place[i];
        e->task_util[i] = xi / s->mu[i];
        /* Work done over capacity: comp_i needs 1/(work_i speed_j) of the node's time. */
        e->node_util[j] += xi / (s->m->work[i] * s->p->nodes[j].speed);
        if (e->task_util[i] > e->task_util[e->bottleneck])
            e->bottleneck = i;
    }
    return 0;
}

static double threshold(const search *s)
{
    return s->nranked < s->top ? 0 : s->ranked[s->top - 1].throughput * (1 - TIE);
}

static void tick(search *s)
{
    double t = elapsed(s);
    if (s->o->budget > 0 && t > s->o->budget && s->nranked > 0)
        s->timed_out = 1;
    if (s->o->progress && t - s->last_progress >= 0.1) {
        s->last_progress = t;
        double done = (double)s->evaluated + s->pruned + s->symmetric + s->unexplored;
        s->o->progress(s->o->progress_ctx, s->total > 0 ? done / s->total : 1, t);
    }
}

/* ---- exhaustive branch and bound ------------------------------------------ */

static int dfs(search *s, int k)
{
    if (k == s->nt) {
        int rc = evaluate(s);
        tick(s);
        return rc;
    }
    if ((++s->ticks & 255) == 0)
        tick(s);
    double *cb = s->cbound + (size_t)k * (size_t)s->nn;
    int *cn = s->cnode + (size_t)k * (size_t)s->nn;
    int nc = 0;
    int pin = s->o->pins ? s->o->pins[k] : -1;
    for (int x = pin >= 0 ? pin : 0; x < (pin >= 0 ? pin + 1 : s->nn); x++) {
        if (s->o->allowed && !s->o->allowed[x])
            continue;
        if (s->load[x] == 0 && s->cls[x] != x) {
            /* An unused node whose class has an earlier unused member: the
             * placements below are images of that member's. */
            int r = s->cls[x], earlier_free = 0;
            for (int y = r; y < x && !earlier_free; y++)
                earlier_free = s->cls[y] == r && s->load[y] == 0;
            if (earlier_free) {
                s->symmetric += s->raw[k + 1];
                continue;
            }
        }
        s->place[k] = x;
        s->load[x]++;
        double b = bound(s);
        s->load[x]--;
        s->place[k] = -1;
        /* insertion by decreasing bound: the most promising first */
        int q = nc++;
        while (q > 0 && cb[q - 1] < b) {
            cb[q] = cb[q - 1];
            cn[q] = cn[q - 1];
            q--;
        }
        cb[q] = b;
        cn[q] = x;
    }
    for (int c = 0; c < nc; c++) {
        if (s->timed_out) {
            if (cb[c] > s->missed)
                s->missed = cb[c];
            s->unexplored += s->raw[k + 1];
            continue;
        }
        if (!(cb[c] > 0) || (!s->o->no_prune && cb[c] < threshold(s))) {
            s->pruned += s->raw[k + 1];
            continue;
        }
        s->place[k] = cn[c];
        s->load[cn[c]]++;
        int rc = dfs(s, k + 1);
        s->load[cn[c]]--;
        s->place[k] = -1;
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* ---- listed candidates ------------------------------------------------------ */

/* Canonical image of a placement: each node of a class with several
 * members becomes the first member not yet used by an earlier task. */
static void canonical(const search *s, const int *pl, int *out, int *map)
{
    for (int j = 0; j < s->nn; j++)
        map[j] = -1;
    for (int i = 0; i < s->nt; i++) {
        int x = pl[i];
        if (map[x] < 0) {
            /* the first member of x's class not yet taken */
            int r = s->cls[x], y;
            for (y = r; y < s->nn; y++) {
                if (s->cls[y] != r)
                    continue;
                int taken = 0;
                for (int z = 0; z < s->nn && !taken; z++)
                    taken = map[z] == y;
                if (!taken)
                    break;
            }
            map[x] = y;
        }
        out[i] = map[x];
    }
}

static int run_candidates(search *s)
{
    const skel_search_opts *o = s->o;
    size_t nc = (size_t)o->ncandidates, nt = (size_t)s->nt;
    int *canon = malloc((nc ? nc : 1) * nt * sizeof *canon);
    int *order = malloc((nc ? nc : 1) * sizeof *order);
    double *cb = malloc((nc ? nc : 1) * sizeof *cb);
    int *map = malloc((size_t)s->nn * sizeof *map);
    int rc = -1;
    if (!canon || !order || !cb || !map) {
        diag_set(s->err, "out of memory");
        goto out;
    }
    s->total = (double)nc;
    for (size_t c = 0; c < nc; c++) {
        const int *pl = o->candidates + c * nt;
        for (size_t i = 0; i < nt; i++) {
            if (pl[i] < 0 || pl[i] >= s->nn) {
                diag_set(s->err, "candidate %zu: task t%zu is not on a node of %s", c + 1, i,
                         s->p->file);
                goto out;
            }
            if (o->allowed && !o->allowed[pl[i]]) {
                diag_set(s->err, "candidate %zu puts t%zu on %s, which the job may not use", c + 1, i,
                         s->p->nodes[pl[i]].name);
                goto out;
            }
            if (o->pins && o->pins[i] >= 0 && o->pins[i] != pl[i]) {
                diag_set(s->err, "candidate %zu puts t%zu on %s, but it is pinned to %s", c + 1, i,
                         s->p->nodes[pl[i]].name, s->p->nodes[o->pins[i]].name);
                goto out;
            }
        }
        canonical(s, pl, canon + c * nt, map);
        memcpy(s->place, pl, nt * sizeof *s->place);
        for (size_t i = 0; i < nt; i++)
            s->load[pl[i]]++;
        double b = bound(s);
        for (size_t i = 0; i < nt; i++)
            s->load[pl[i]]--;
        size_t q = c;
        while (q > 0 && cb[q - 1] < b) {
            cb[q] = cb[q - 1];
            order[q] = order[q - 1];
            q--;
        }
        cb[q] = b;
        order[q] = (int)c;
    }
    for (size_t q = 0; q < nc; q++) {
        size_t c = (size_t)order[q];
        if (s->timed_out) {
            if (cb[q] > s->missed)
                s->missed = cb[q];
            s->unexplored++;
            continue;
        }
        if (!(cb[q] > 0) || (!o->no_prune && cb[q] < threshold(s))) {
            s->pruned++;
            continue;
        }
        /* An image of a candidate already solved (or listed twice). */
        int seen = 0;
        for (size_t r = 0; r < q && !seen; r++) {
            size_t c2 = (size_t)order[r];
            seen = memcmp(canon + c2 * nt, canon + c * nt, nt * sizeof *canon) == 0;
        }
        if (seen) {
            s->symmetric++;
            continue;
        }
        memcpy(s->place, o->candidates + c * nt, nt * sizeof *s->place);
        if (evaluate(s) < 0)
            goto out;
        tick(s);
    }
    rc = 0;
out:
    free(map);
    free(cb);
    free(order);
    free(canon);
    return rc;
}

/* ---- driver ------------------------------------------------------------------ */

static void search_free(search *s)
{
    for (int g = 0; s->stage && g < s->nstages; g++)
        free(s->stage[g]);
    free(s->stage_v);
    free(s->stage_n);
    free(s->stage);
    free(s->group_scale);
    free(s->group);
    free(s->bcyc);
    free(s->dense);
    free(s->blam);
    free(s->bmu);
    free(s->cache);
    free(s->wq);
    free(s->win);
    free(s->pthr);
    free(s->params);
    free(s->tr_coef);
    free(s->tr_param);
    free(s->tr_slot);
    free(s->tr_src);
    free(s->lambda);
    free(s->mu);
    free(s->cnode);
    free(s->cbound);
    free(s->raw);
    free(s->load);
    free(s->place);
    free(s->cls);
    free(s->visit);
    for (int i = 0; s->flows && i < s->nt; i++) {
        for (int k = 0; k < s->flows[i].nsrc; k++)
            free(s->flows[i].src[k].edges);
        for (int k = 0; k < s->flows[i].ndst; k++)
            free(s->flows[i].dst[k].edges);
        free(s->flows[i].src);
        free(s->flows[i].dst);
    }
    free(s->flows);
    free(s->mx_any);
    free(s->mx_to);
    free(s->mx_from);
    free(s->bw);
    free(s->lat);
    free(s->comp);
    free(s->thr);
    free(s->pi);
    pepa_space_free(s->sp);
    pepa_system_free(s->sys);
}

void skel_search_result_free(skel_search_result *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->nranked; i++) {
        free(r->ranked[i].node_util);
        free(r->ranked[i].task_util);
        free(r->ranked[i].placement);
    }
    free(r->ranked);
    free(r);
}

skel_search_result *skel_search(skel_model *m, const skel_dag *d, const skel_platform *p,
                                const skel_search_opts *opts, diag *err)
{
    skel_search_opts none = { 0 };
    search s = { 0 };
    s.t0 = clock_now();
    s.m = m;
    s.d = d;
    s.p = p;
    s.o = opts ? opts : &none;
    s.err = err;
    s.nt = m->ntasks;
    s.nn = p->nnodes;
    s.ne = m->nedges;
    s.top = s.o->top > 0 ? (s.o->top < MAX_TOP ? s.o->top : MAX_TOP) : 10;
    skel_search_result *r = NULL;
    if (s.nt < 1 || s.nn < 1) {
        diag_set(err, s.nt < 1 ? "the skeleton has no tasks" : "%s: no nodes", p->file);
        return NULL;
    }
    if (d->ntasks != s.nt || d->nedges != s.ne) {
        diag_set(err, "internal error: the model was not built from this task graph");
        return NULL;
    }
    for (int i = 0; s.o->pins && i < s.nt; i++) {
        if (s.o->pins[i] >= s.nn) {
            diag_set(err, "pin of t%d: no node %d in %s", i, s.o->pins[i], p->file);
            return NULL;
        }
        if (s.o->pins[i] >= 0 && s.o->allowed && !s.o->allowed[s.o->pins[i]]) {
            diag_set(err, "t%d is pinned to %s, which the job may not use", i,
                     p->nodes[s.o->pins[i]].name);
            return NULL;
        }
    }
    int usable = 0;
    for (int j = 0; j < s.nn; j++)
        usable += !s.o->allowed || s.o->allowed[j];
    if (!usable) {
        diag_set(err, "no node of %s may be used", p->file);
        return NULL;
    }
    if (s.o->candidates && s.o->ncandidates < 1) {
        diag_set(err, "no candidate placements");
        return NULL;
    }
    if (setup(&s) < 0 || setup_platform(&s) < 0 || setup_chain(&s) < 0 ||
        (!s.o->no_plan && plan_build(&s) < 0))
        goto fail;
    if (s.o->candidates) {
        if (run_candidates(&s) < 0)
            goto fail;
    } else {
        s.total = s.raw[0];
        if (dfs(&s, 0) < 0)
            goto fail;
    }
    if (s.nranked == 0) {
        diag_set(err, "no feasible placement: every one needs a link %s does not describe "
                 "(add Link= or DefaultLatency= and LocalLatency=)", p->file);
        goto fail;
    }
    if (!(r = calloc(1, sizeof *r))) {
        diag_set(err, "out of memory");
        goto fail;
    }
    r->ntasks = s.nt;
    r->nnodes = s.nn;
    double best = s.ranked[0].throughput;
    /* Ranks: ties within TIE share one; unused buffers are released. */
    for (int i = 0; i < s.nranked; i++) {
        skel_search_entry *e = &s.ranked[i];
        e->rank = i == 0 ? 1 : (fabs(s.ranked[i - 1].throughput - e->throughput) <=
                                TIE * s.ranked[i - 1].throughput ? s.ranked[i - 1].rank : i + 1);
        if (fabs(best - e->throughput) <= TIE * best)
            r->ties++;
    }
    for (int i = s.nranked; i < s.top; i++) {
        free(s.ranked[i].node_util);
        free(s.ranked[i].task_util);
        free(s.ranked[i].placement);
    }
    r->nranked = s.nranked;
    r->ranked = s.ranked;
    s.ranked = NULL;
    /* Proven when nothing was left out, or everything left out is bounded
     * below the best. */
    r->optimal = !s.timed_out || s.missed < best * (1 - TIE);
    r->bound = r->optimal ? 0 : s.missed;
    r->gap = r->optimal || s.missed <= best ? 0 : (s.missed - best) / best;
    r->evaluated = s.evaluated;
    r->pruned = s.pruned;
    r->symmetric = s.symmetric;
    r->total = s.total;
    r->states = s.sp->n;
    r->transitions = (unsigned long long)s.sp->q->nnz;
    search_free(&s);
    r->seconds = clock_now() - s.t0;
    return r;
fail:
    for (int i = 0; s.ranked && i < s.top; i++) {
        free(s.ranked[i].node_util);
        free(s.ranked[i].task_util);
        free(s.ranked[i].placement);
    }
    free(s.ranked);
    search_free(&s);
    return NULL;
}
