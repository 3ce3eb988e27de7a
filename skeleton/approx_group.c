/* skeleton/approx_group.c: counted deals. A deal whose members are
 * sub-skeletons (an xdeal of sub-pipelines, Yaikhom et al.'s model2.des)
 * is too large for one window with its producer, members and consumer,
 * and cut into independent delays it loses the round robin's order: each
 * waits for the next in a cycle the order never makes, and the fixed
 * point collapses (docs/approximation.md). Here each member gets one
 * window holding the producer, the consumer, the member's own tasks
 * exactly, and one more component: N, the deal's items in flight. The
 * round robin makes N and the two ends' rounds determine every member's
 * items (the items in flight are the N after the consumer's next round,
 * one per member in turn), so the producer's move into another member j
 * and the consumer's move out of it are made at the delay j's own window
 * measures for its count of items (the rate at which a wait for the move
 * ends, as a flow-equivalent server's), and no order is lost. Private
 * header approx_int.h. */
#include "approx_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"

int ax_ncomp(const ax_win *w)
{
    return w->nt + w->nk + (w->g >= 0);
}

/* Window w of a counted deal holds its member's tasks, then the producer,
 * then the consumer, then (after any links) the count. */
int ax_member_items(const skel_approx *a, const ax_win *w, const int *loc, int j)
{
    const ax_group *g = &a->grp[w->g];
    int lc = loc[w->nt - 1], n = loc[w->nt + w->nk];
    int next = a->rx[a->loff[g->c] + lc] % g->k;   /* its next receive */
    int d = (j - next + g->k) % g->k;
    return n > d ? (n - d - 1) / g->k + 1 : 0;
}

/* The tasks reached from f (its successors, theirs, ...), breadth first
 * into order, each counted in hits if given. Returns their number. */
static int reach(const skel_approx *a, int f, int *hits, int *order, unsigned char *seen)
{
    int head = 0, tail = 1;
    memset(seen, 0, (size_t)a->ntasks);
    order[0] = f;
    seen[f] = 1;
    while (head < tail) {
        int x = order[head++];
        if (hits)
            hits[x]++;
        for (int e = a->d->out_lo[x]; e < a->d->out_hi[x]; e++) {
            int y = a->d->edges[e].to;
            if (y >= 0 && !seen[y]) {
                seen[y] = 1;
                order[tail++] = y;
            }
        }
    }
    return tail;
}

typedef struct ax_cand {      /* a deal being examined */
    int p, c, k;
    int *hits, *order, *mem;  /* per task: steps reaching it, BFS order, member */
    unsigned char *seen;
} ax_cand;

/* Every step of producer q->p's deal is one task (not a farm in a step:
 * such a deal is neither counted nor cut). */
static int single_steps(const skel_approx *a, const ax_cand *q)
{
    const skel_flow *D = &a->d->dst[q->p];
    for (int k = 0; k < q->k; k++)
        if (D->start[k + 1] - D->start[k] != 1)
            return 0;
    return 1;
}

/* The members of the deal of producer q->p (member k: the tasks reached
 * from its step k's task alone) and its consumer (the first task, breadth
 * first, that every step reaches): 0; -2 when members overlap; -1 when
 * there is no consumer (the members then known) or a step's task is the
 * outside world. */
static int members(const skel_approx *a, ax_cand *q)
{
    const skel_flow *D = &a->d->dst[q->p];
    memset(q->hits, 0, (size_t)a->ntasks * sizeof *q->hits);
    for (int x = 0; x < a->ntasks; x++)
        q->mem[x] = -1;
    for (int k = 0; k < q->k; k++)
        if (D->tasks[D->start[k]] < 0)
            return -1;
    for (int k = 0; k < q->k; k++)
        reach(a, D->tasks[D->start[k]], q->hits, q->order, q->seen);
    q->c = -1;
    for (int k = q->k - 1; k >= 0; k--) {     /* ends with step 0's order */
        int n = reach(a, D->tasks[D->start[k]], NULL, q->order, q->seen);
        for (int i = 0; i < n; i++) {
            int h = q->hits[q->order[i]];
            if (h > 1 && h < q->k)
                return -2;
            q->mem[q->order[i]] = h == 1 ? k : -1;
            if (k == 0 && q->c < 0 && h == q->k)
                q->c = q->order[i];
        }
    }
    return q->c >= 0 && q->mem[q->p] < 0 ? 0 : -1;
}

/* Every move touching a member stays within it, or is the producer's
 * into its first task, or its last task's into the consumer (plain
 * rendezvous: a link's component is not counted), and the consumer takes
 * step k from member k. */
static int closed(const skel_approx *a, const ax_cand *q)
{
    const skel_flow *S = &a->d->src[q->c], *D = &a->d->dst[q->p];
    if (S->nsteps != q->k)
        return 0;
    for (int k = 0; k < q->k; k++)
        if (S->start[k + 1] - S->start[k] != 1 || S->tasks[S->start[k]] < 0 ||
            q->mem[S->tasks[S->start[k]]] != k)
            return 0;
    for (int e = 0; e < a->nedges; e++) {
        int f = a->d->edges[e].from, t = a->d->edges[e].to;
        int mf = f >= 0 ? q->mem[f] : -1, mt = t >= 0 ? q->mem[t] : -1;
        if (mf < 0 && mt < 0)
            continue;
        if (a->links.n[e] > 0 || (mf >= 0 && mt >= 0 && mf != mt))
            return 0;
        if ((mf < 0 && f != q->p) || (mt < 0 && t != q->c))
            return 0;
        if (mf < 0 && D->tasks[D->start[mt]] != t)
            return 0;
    }
    return 1;
}

/* Deal q's whole window (producer, consumer, members, their links) as
 * window w, its tasks in a->wtask from nwtask and its links in a->wlink
 * from nwlink (scratch, not kept): 1, 0 when too many tasks or links for
 * one window, -1 on an error. */
static int whole_window(skel_approx *a, const ax_cand *q, ax_win *w, diag *err)
{
    int nt = 2;
    for (int x = 0; x < a->ntasks; x++)
        nt += q->mem[x] >= 0;
    if (nt > AX_WMAX)
        return 0;
    if (mem_grow((void **)&a->wtask, (size_t)a->nwtask + (size_t)nt, sizeof *a->wtask) < 0 ||
        mem_grow((void **)&a->wlink, (size_t)a->nwlink + AX_WLINK, sizeof *a->wlink) < 0)
        return ax_oom(err);
    *w = (ax_win){ .t0 = a->nwtask, .nt = nt, .k0 = a->nwlink, .g = -1 };
    int *wt = a->wtask + a->nwtask, n = 0;
    wt[n++] = q->p;
    wt[n++] = q->c;
    for (int x = 0; x < a->ntasks; x++)
        if (q->mem[x] >= 0)
            wt[n++] = x;
    w->nk = ax_links_in(&a->links, a->d, wt, nt, a->wlink + w->k0, AX_WLINK);
    return w->nk >= 0;
}

/* Deal q's whole window holds at most budget reachable states: the deal
 * is exact there, not counted. 1 fits, 0 not (or too wide), -1 on an
 * error. */
static int fits_whole(skel_approx *a, const ax_cand *q, unsigned long budget, diag *err)
{
    ax_win w;
    int r = whole_window(a, q, &w, err);
    if (r <= 0)
        return r;
    ax_cbuf b = { 0 };
    r = ax_explore(a, &w, &b, (int)budget, err);
    free(b.v);
    return r < 0 ? -1 : r > 0;
}

/* The link of deal q's whole window with the most states (ties: the
 * first edge), or -1. */
static int largest_link(skel_approx *a, const ax_cand *q, diag *err)
{
    ax_win w;
    int r = whole_window(a, q, &w, err), best = -1;
    for (int k = 0; r > 0 && k < w.nk; k++) {
        int e = a->wlink[w.k0 + k];
        if (best < 0 || a->links.n[e] > a->links.n[best] ||
            (a->links.n[e] == a->links.n[best] && e < best))
            best = e;
    }
    return r < 0 ? -2 : best;
}

/* Deal q's whole window, too large for budget with its links' phases and
 * buffers, gets them simplified, largest first (phases to one exponential
 * transit of the same mean, then a buffer to a rendezvous: ax_links_
 * simplify) until it fits. Cut instead, the deal loses its round robin's
 * order (the cyclic wait of docs/approximation.md): bench_approx part (d)'s
 * linked deals and xdeals were 19-64% off so. The other links stay whole. */
static int simplify_links(skel_approx *a, const ax_cand *q, diag *err)
{
    ax_win w;
    int r = whole_window(a, q, &w, err);
    if (r <= 0)
        return r;
    unsigned long budget = ax_deal_budget(a, w.nk);
    for (;;) {
        int fit = fits_whole(a, q, budget, err), e = fit ? -1 : largest_link(a, q, err);
        if (fit != 0 || e < 0)
            return fit < 0 || e == -2 ? -1 : 0;
        if (ax_links_simplify(&a->links, a->d, e, (long)a->o.max_states, err) < 0)
            return -1;
    }
}

/* Record deal q as counted group number ngrp. */
static int add_group(skel_approx *a, const ax_cand *q, diag *err)
{
    int g = a->ngrp;
    if (mem_grow((void **)&a->grp, (size_t)g + 1, sizeof *a->grp) < 0 ||
        mem_grow((void **)&a->mcap, (size_t)(g ? a->grp[g - 1].m0 + a->grp[g - 1].k : 0) +
                 (size_t)q->k, sizeof *a->mcap) < 0)
        return ax_oom(err);
    ax_group *G = &a->grp[a->ngrp++];
    *G = (ax_group){ .p = q->p, .c = q->c, .k = q->k,
                     .m0 = g ? a->grp[g - 1].m0 + a->grp[g - 1].k : 0 };
    for (int k = 0; k < q->k; k++)
        a->mcap[G->m0 + k] = 0;
    for (int x = 0; x < a->ntasks; x++)
        if (q->mem[x] >= 0) {
            a->gmem[x] = g;
            a->gmk[x] = q->mem[x];
            a->mcap[G->m0 + q->mem[x]]++;     /* a task holds one item at most */
            G->ncap++;
        }
    return 0;
}

/* The moves of group g: into a member (+1), out of it (-1), within (0),
 * and the count delays of the first two. */
static int group_edges(skel_approx *a, int g, diag *err)
{
    for (int e = 0; e < a->nedges; e++) {
        int f = a->d->edges[e].from, t = a->d->edges[e].to;
        int mf = f >= 0 && a->gmem[f] == g, mt = t >= 0 && a->gmem[t] == g;
        if (!mf && !mt)
            continue;
        a->egrp[e] = g;
        a->ekm[e] = a->gmk[mf ? f : t];
        a->edir[e] = mf && mt ? 0 : mt ? 1 : -1;
        if (!a->edir[e])
            continue;
        a->cnt0[e] = a->ncnt;
        a->ncnt += a->mcap[a->grp[g].m0 + a->ekm[e]] + 1;
        if (mem_grow((void **)&a->cnt, (size_t)a->ncnt, sizeof *a->cnt) < 0)
            return ax_oom(err);
    }
    return 0;
}

/* Deal q cut by the windows whatever their size: its members overlap (a
 * deal(4) dealing on to a deal(2): one worker of the second takes from
 * two of the first), or a member's task deals on to tasks outside its
 * member (a deal whose members send to the output is not: nothing after
 * it needs their order) (model4.des's deal(3) to a deal(2), an xdeal of sub-pipelines
 * dealing to a deal). No single task then closes the round robin behind
 * the members, so no window holds its producer, members and what takes
 * their items whole, and counting (which needs that task) does not apply:
 * the windows see the members' streams as independent, each waiting for
 * the next in an order the round robin never makes. 1 when so. */
static int cut_deal(const skel_approx *a, ax_cand *q)
{
    if (!single_steps(a, q))
        return 0;
    if (members(a, q) == -2)
        return 1;
    for (int x = 0; x < a->ntasks; x++) {
        const skel_flow *X = &a->d->dst[x];
        for (int j = 0; q->mem[x] >= 0 && X->nsteps > 1 && j < X->start[X->nsteps]; j++)
            if (X->tasks[j] >= 0 && q->mem[X->tasks[j]] != q->mem[x])
                return 1;
    }
    return 0;
}

/* Producer p deals to members that are sub-skeletons, or to count_tasks
 * or more single tasks, too large for one window together: counted (outer
 * deals first: a task of a counted member is not a producer of another).
 * Cut, a deal of single tasks loses its order as one of sub-skeletons
 * does (task, deal(8), task: -28%; deal(10): -85%); counted, -4%. */
static int try_group(skel_approx *a, ax_cand *q, diag *err)
{
    int sz[AX_WMAX] = { 0 }, big = 0;
    if (a->whole || !single_steps(a, q))
        return 0;                             /* one window of the whole model; a farm
                                                 in a step */
    unsigned long lim = a->o.deal_states < a->o.max_states ? a->o.deal_states : a->o.max_states;
    if (members(a, q) < 0)
        return 0;
    for (int x = 0; x < a->ntasks; x++)
        if ((q->mem[x] >= 0 || x == q->c) && a->dblk[x] < 0)
            a->dblk[x] = q->p;
    if (simplify_links(a, q, err) < 0)
        return -1;
    if (!closed(a, q))
        return 0;
    for (int x = 0; x < a->ntasks; x++) {
        int m = q->mem[x];
        if (m >= 0 && (a->gmem[x] >= 0 || m >= AX_WMAX || ++sz[m] > AX_WMAX - 2))
            return 0;                         /* in another counted deal, or too wide */
        big |= m >= 0 && sz[m] > 1;
    }
    if (!big && q->k < a->o.count_tasks)
        return 0;                             /* a deal of a few tasks: the whole
                                                 window, or windows that cut it */
    int fit = fits_whole(a, q, lim, err);
    if (fit != 0)
        return fit < 0 ? -1 : 0;
    for (int x = 0; x < a->ntasks; x++)
        if (a->dblk[x] == q->p)
            a->dblk[x] = -1;                  /* counted: windows of its own */
    return add_group(a, q, err) < 0 ? -1 : group_edges(a, a->ngrp - 1, err);
}

static int cand_alloc(const skel_approx *a, ax_cand *q, diag *err)
{
    size_t n = (size_t)a->ntasks + 1;
    q->hits = malloc(n * sizeof *q->hits);
    q->order = malloc(n * sizeof *q->order);
    q->mem = malloc(n * sizeof *q->mem);
    q->seen = malloc(n);
    return q->hits && q->order && q->mem && q->seen ? 0 : ax_oom(err);
}

static void cand_free(ax_cand *q)
{
    free(q->hits);
    free(q->order);
    free(q->mem);
    free(q->seen);
}

int ax_cut_find(skel_approx *a, diag *err)
{
    ax_cand q = { 0 };
    int rc = cand_alloc(a, &q, err);
    a->cut = 0;
    for (int x = 0; x < a->ntasks && rc == 0; x++) {
        q.p = x;
        q.k = a->d->dst[x].nsteps;
        a->cut |= q.k > 1 && cut_deal(a, &q);
    }
    cand_free(&q);
    return rc;
}

int ax_groups_find(skel_approx *a, diag *err)
{
    size_t n = (size_t)a->ntasks + 1, ne = (size_t)a->nedges + 1;
    ax_cand q = { 0 };
    int rc = cand_alloc(a, &q, err);
    a->gmem = malloc(n * sizeof *a->gmem);
    a->dblk = malloc(n * sizeof *a->dblk);
    a->gmk = malloc(n * sizeof *a->gmk);
    a->egrp = malloc(ne * sizeof *a->egrp);
    a->ekm = malloc(ne * sizeof *a->ekm);
    a->edir = calloc(ne, sizeof *a->edir);
    a->cnt0 = malloc(ne * sizeof *a->cnt0);
    if (!a->gmem || !a->dblk || !a->gmk || !a->egrp || !a->ekm || !a->edir || !a->cnt0)
        rc = ax_oom(err);
    for (int x = 0; x < a->ntasks && rc == 0; x++)
        a->gmem[x] = a->gmk[x] = a->dblk[x] = -1;
    for (int e = 0; e < a->nedges && rc == 0; e++)
        a->egrp[e] = a->ekm[e] = a->cnt0[e] = -1;
    for (int x = 0; x < a->ntasks && rc == 0 && a->deal; x++) {
        q.p = x;
        q.k = a->d->dst[x].nsteps;
        if (q.k > 1 && a->gmem[x] < 0)
            rc = try_group(a, &q, err);
    }
    cand_free(&q);
    return rc;
}

/* Per count of member j's items, the flow of window w's move (into or out
 * of j) and the probability its end outside j (producer or consumer) is
 * ready for it. */
static void count_flows(skel_approx *a, const ax_win *w, const double *pi, double *t,
                        double *r)
{
    int e = w->edge, j = w->km, in = a->edir[e] > 0, loc[AX_WPOS];
    int pos = in ? w->nt - 2 : w->nt - 1, x = a->wtask[w->t0 + pos];
    const ax_ctr *c = a->ctr + w->c0;
    const ax_code *code = a->code + w->p0;
    for (int s = 0; s < w->n; s++) {
        ax_decode(a, w, code[s], loc);
        if (ax_is_ready(a, x, loc[pos], e, in))
            r[ax_member_items(a, w, loc, j)] += pi[s];
    }
    for (int k = 0; k < w->nc; k++)
        if (c[k].src == AX_LAMBDA && c[k].idx == e) {
            ax_decode(a, w, code[c[k].from], loc);
            t[ax_member_items(a, w, loc, j)] += pi[c[k].from] * a->rate[k];
        }
}

double ax_count_update(skel_approx *a, const ax_win *w, const double *pi)
{
    int e = w->edge, in = a->edir[e] > 0, cap = a->mcap[a->grp[w->g].m0 + w->km];
    double t[AX_WMAX + 2] = { 0 }, r[AX_WMAX + 2] = { 0 }, ch = 0;
    double *v = a->cnt + a->cnt0[e], mean = in ? a->rho_send[e] : a->rho_recv[e];
    count_flows(a, w, pi, t, r);
    for (int n = 0; n <= cap; n++) {
        double x = r[n] > 0 ? t[n] / r[n] : mean;   /* unreached here: the mean */
        if (r[n] > 0)
            ch = fmax(ch, fabs(x - v[n]) / fmax(fabs(x), 1e-300));
        v[n] = x;
    }
    return ch;
}

void ax_count_start(skel_approx *a)
{
    for (int e = 0; e < a->nedges; e++)
        for (int n = 0; a->cnt0[e] >= 0 && n <= a->mcap[a->grp[a->egrp[e]].m0 + a->ekm[e]]; n++)
            a->cnt[a->cnt0[e] + n] = a->lambda[e];
}
