/* skeleton/approx_share.c: processor sharing across windows (Sharing=ps):
 * a node's tasks outside a window, given that the window's task computes.
 * Private header approx_int.h; docs/approximation.md, "Co-located pairs".
 *
 * What rate a computing task gets depends on how many of its node's other
 * tasks compute while it does: P(y computes | x computes), not y's
 * marginal. Tasks of a pipeline are correlated through the tasks between
 * them: after t3 hands an item to t4 and takes one from t2, t2 and t4
 * start computing together. Where some window holds both x and y among
 * its first AX_PAIR_CORE tasks (the path between them inside it), that
 * window's joint distribution gives the conditional probability; other
 * pairs stay independent (y's marginal). */
#include "approx_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"

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

/* Position of task y in its node's group (bynode from grp0[y]). */
static int group_pos(const skel_approx *a, int y)
{
    int k = 0;
    while (a->bynode[a->grp0[y] + k] != y)
        k++;
    return k;
}

/* P(y computes | x computes), y on x's node: measured for the pair or for
 * their representatives (interchangeable members), else the node's
 * on/off model (node_model), else y's marginal. */
double ax_cond_busy(const skel_approx *a, int x, int y)
{
    int k = pair_find(a, x, y);
    if (k < 0 && a->rep[x] != a->rep[y])
        k = pair_find(a, a->rep[x], a->rep[y]);
    if (k >= 0)
        return a->pcond[k];
    if (a->nodeq && a->node[x] == a->node[y] && a->grpn[x] <= AX_NODE_Q)
        return a->nodeq[(size_t)x * AX_NODE_Q + (size_t)group_pos(a, y)];
    return a->pbusy[y];
}

/* The elementary symmetric polynomials e[0 ..] of r[0 .. n) but
 * positions skip1 and skip2 (-1: none). */
static void elem_sym(const double *r, int n, int skip1, int skip2, double *e)
{
    e[0] = 1;
    int m = 0;
    for (int j = 0; j < n; j++) {
        if (j == skip1 || j == skip2)
            continue;
        e[++m] = 0;
        for (int k = m; k > 0; k--)
            e[k] += e[k - 1] * r[j];
    }
}

/* sum over k of (k + c)! e[k], e of m + 1 entries. */
static double fact_sum(const double *e, int m, int c)
{
    double f = 1, s = 0;
    for (int k = 1; k <= c; k++)
        f *= k;
    for (int k = 0; k <= m; k++) {
        s += f * e[k];
        f *= k + c + 1;
    }
    return s;
}

/* The node of n tasks (bynode[g0 ..]) as its tasks' on/off cycles under
 * processor sharing: task i idle at rate alpha_i, computing alone at
 * mu_i, k computing at mu_i / k each. A closed network of one customer per
 * class, a delay station and a PS one: product form, insensitive to the
 * distributions, pi(S) ~ |S|! prod over S of r_i (r_i = alpha_i / mu_i).
 * r is fitted so that each task computes with its marginal pbusy (a few
 * Gauss-Seidel rounds from the last sweep's r, noder), then P(y | x)
 * into nodeq. Two tasks on a node compute together longer than
 * independence says, since each slows the other: m5 under ps read the
 * marginals and was +5.1% (docs/approximation.md). Returns the largest
 * change of nodeq: the fit is part of the fixed point, and a sweep that
 * still moves it is not converged (review 28 item 5). */
static double node_model(skel_approx *a, int g0, int n)
{
    double r[AX_NODE_Q], e[AX_NODE_Q + 1], ch = 0;
    const int *t = a->bynode + g0;
    for (int i = 0; i < n; i++)
        r[i] = a->noder[t[i]] > 0 ? a->noder[t[i]] : 1;
    for (int round = 0; round < AX_NODE_ROUNDS; round++)
        for (int i = 0; i < n; i++) {
            double b = fmin(fmax(a->pbusy[t[i]], 1e-9), 1 - 1e-9);
            elem_sym(r, n, i, -1, e);
            r[i] = b / (1 - b) * fact_sum(e, n - 1, 0) / fact_sum(e, n - 1, 1);
        }
    for (int i = 0; i < n; i++) {
        a->noder[t[i]] = r[i];
        elem_sym(r, n, i, -1, e);
        double px = fact_sum(e, n - 1, 1);
        for (int j = 0; j < n; j++) {
            double q = a->pbusy[t[j]];
            if (j != i) {
                elem_sym(r, n, i, j, e);
                q = r[j] * fact_sum(e, n - 2, 2) / px;
            }
            double *v = a->nodeq + (size_t)t[i] * AX_NODE_Q + (size_t)j;
            ch = fmax(ch, fabs(fmin(1, q) - *v));
            *v = fmin(1, q);
        }
    }
    return ch;
}

/* Every node's model (node_model) from the marginals; nodes of more
 * than AX_NODE_Q tasks keep the marginals, and so does every pair of a
 * skeleton with a deal (nodeq NULL): a deal's members take their items in
 * turn, a structure the model does not hold (Yaikhom's model1.des on
 * test_deal_pipeline's platform, windows alone: -4.04% with the marginals,
 * -4.56% with the model). Returns the largest change of nodeq. */
static double node_models(skel_approx *a)
{
    double ch = 0;
    for (int k = 0; a->nodeq && k < a->ntasks; k += a->grpn[a->bynode[k]])
        if (a->grpn[a->bynode[k]] > 1 && a->grpn[a->bynode[k]] <= AX_NODE_Q)
            ch = fmax(ch, node_model(a, k, a->grpn[a->bynode[k]]));
    return ch;
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

/* The probability that owner o's ghosts on node compute given that o
 * does (they are phases of o: never two at once); -1: none there. */
double ax_ghost_share(const skel_approx *a, int o, int node)
{
    double q = -1;
    for (int k = 0; k < a->nghost; k++)
        if (a->ghost_of[k] == o && a->ghost_node[k] == node)
            q = (q < 0 ? 0 : q) + a->ghost_p[k];
    return q;
}

/* Do x and y share a node: their own, or one of them has ghosts on the
 * other's (a one-server loop's task and a task on a node of its body). */
static int share_node(const skel_approx *a, int x, int y)
{
    return a->node[x] == a->node[y] || ax_ghost_share(a, x, a->node[y]) >= 0 ||
           ax_ghost_share(a, y, a->node[x]) >= 0;
}

/* The positions of window w among which its pairs are measured: its
 * first AX_PAIR_CORE, or all of them in a window of every task when some
 * task has ghosts. Such a window has no boundary to distort a pair, and
 * the ghosts' stretches (approx_flow.c body_slow) and the windows' owners
 * outside (share_ghosts) read P(y computes | owner computes) of any pair,
 * which fell back to y's marginal beyond the first three tasks. */
static int pair_core(const skel_approx *a, const ax_win *w)
{
    return a->nghost > 0 && w->nt == a->ntasks ? w->nt : AX_PAIR_CORE;
}

/* Is the pair at positions p < q of window w measured there? */
static int core_pair(const skel_approx *a, const ax_win *w, int p, int q)
{
    return q < pair_core(a, w) && share_node(a, a->wtask[w->t0 + p], a->wtask[w->t0 + q]);
}

/* Per local state its computing phase (ghosts' owners: approx_flow.c lays
 * a pass's body out over them): the rank among its task's busy states, 0
 * for all under H2 (two branches, not phases in a row); -1 when not
 * computing. Once per workspace. */
static int phase_index(skel_approx *a, diag *err)
{
    if (a->lph)
        return 0;
    if (!(a->lph = malloc((size_t)a->nbusy + 1)))
        return ax_oom(err);
    for (int i = 0; i < a->ntasks; i++)
        for (int l = 0, r = 0; l < a->nloc[i]; l++) {
            int b = a->busy[a->loff[i] + l];
            a->lph[a->loff[i] + l] = (signed char)(!b ? -1 : a->scv[i] > 1 || r >= AX_GPH ? 0 : r);
            r += b;
        }
    return 0;
}

/* The computing phases of task x (its busy states; 1 under H2). */
static int phases_of(const skel_approx *a, int x)
{
    int k = 0;
    for (int l = 0; l < a->nloc[x]; l++)
        k += a->busy[a->loff[x] + l];
    return a->scv[x] > 1 ? 1 : k;
}

/* The phases' sums for this evaluation's pairs (ghosts only), empty. */
static int phase_sums(skel_approx *a, diag *err)
{
    size_t m = (size_t)(a->npair ? a->npair : 1) * 2 * AX_GPH;
    if (!a->nghost)
        return 0;
    if (phase_index(a, err) < 0 || mem_grow((void **)&a->pph, m, sizeof *a->pph) < 0 ||
        mem_grow((void **)&a->pphs, m, sizeof *a->pphs) < 0)
        return ax_oom(err);
    memset(a->pph, 0, m * sizeof *a->pph);
    memset(a->pphs, 0, m * sizeof *a->pphs);
    return 0;
}

/* This evaluation's pairs (sorted, unique), from the windows it solves.
 * None with a deal: its windows hold its whole round robin, not a path
 * of three tasks (measured with pairs there: the random deals' max 0.85%
 * -> 1.14%). */
int ax_build_pairs(skel_approx *a, diag *err)
{
    a->npair = 0;
    for (int k = 0; a->node && !a->o.independent_sharers && !a->deal && k < a->nwin; k++) {
        const ax_win *w = &a->win[k];
        for (int p = 0; w->built && !ax_represented(a, w) && p < w->nt; p++)
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
    if (n > 0) {              /* the windows measure pairs: no node model */
        free(a->nodeq);
        a->nodeq = NULL;
    } else if (a->node && !a->o.independent_sharers && !a->rounds) {
        size_t nt = (size_t)a->ntasks;
        if (mem_grow((void **)&a->nodeq, nt * AX_NODE_Q, sizeof *a->nodeq) < 0 ||
            mem_grow((void **)&a->noder, nt, sizeof *a->noder) < 0)
            return ax_oom(err);
        memset(a->noder, 0, nt * sizeof *a->noder);
        memset(a->nodeq, 0, nt * AX_NODE_Q * sizeof *a->nodeq);
        node_models(a);
    }
    return phase_sums(a, err);
}

/* Window w's joint probabilities of computing of its measured pairs,
 * into the sweep's sums. */
/* One window state's probability p into the phases' sums of the pairs
 * (px[k], py[k]) whose first or second is a ghosts' owner: by the owner's
 * phase in it (c: its local combination), with whether the other computes
 * (busy: the positions computing). */
static void phase_state(skel_approx *a, const ax_win *w, ax_code c, int nc, const int *px,
                        const int *py, int np, unsigned busy, double p)
{
    int ph[AX_WMAX];
    for (int q = 0; q < nc; q++) {
        int x = a->wtask[w->t0 + q];
        ph[q] = a->lph[a->loff[x] + c % a->nloc[x]];
        c /= a->nloc[x];
    }
    for (int k = 0; k < np; k++)
        for (int d = 0; d < 2; d++) {
            int o = d ? py[k] : px[k], y = d ? px[k] : py[k];
            int key = ph[o] >= 0 ? pair_find(a, a->wtask[w->t0 + o], a->wtask[w->t0 + y]) : -1;
            if (key < 0)
                continue;
            double *v = a->pphs + (size_t)key * 2 * AX_GPH;
            v[ph[o]] += busy >> y & 1 ? p : 0;
            v[AX_GPH + ph[o]] += p;
        }
}

void ax_window_pairs(skel_approx *a, const ax_win *w)
{
    int px[AX_WMAX * AX_WMAX], py[AX_WMAX * AX_WMAX], np = 0, nc = pair_core(a, w);
    for (int p = 0; a->npair && p < w->nt; p++)
        for (int q = p + 1; q < w->nt; q++)
            if (core_pair(a, w, p, q))
                px[np] = p, py[np++] = q;
    if (!np)
        return;
    nc = nc < w->nt ? nc : w->nt;
    int x[AX_WMAX], n[AX_WMAX];
    double jb[AX_WMAX * AX_WMAX] = { 0 }, mb[AX_WMAX] = { 0 };
    for (int p = 0; p < nc; p++)
        x[p] = a->wtask[w->t0 + p], n[p] = a->nloc[x[p]];
    const double *pi = a->pi + w->p0;
    const ax_code *code = a->code + w->p0;
    for (int s = 0; s < w->n; s++) {
        ax_code c = code[s] % w->nl;
        unsigned busy = 0;
        for (int p = 0; p < nc; p++) {
            busy |= (unsigned)a->busy[a->loff[x[p]] + c % n[p]] << p;
            c /= n[p];
        }
        for (int p = 0; p < nc; p++)
            mb[p] += busy >> p & 1 ? pi[s] : 0;
        for (int k = 0; k < np; k++)
            jb[k] += (busy >> px[k] & 1) && (busy >> py[k] & 1) ? pi[s] : 0;
        if (a->nghost)
            phase_state(a, w, code[s] % w->nl, nc, px, py, np, busy, pi[s]);
    }
    for (int k = 0; k < np; k++) {
        int kx = pair_find(a, x[px[k]], x[py[k]]), ky = pair_find(a, x[py[k]], x[px[k]]);
        if (kx < 0 || ky < 0)
            continue;             /* not built for this evaluation: cannot happen */
        a->pjs[kx] += jb[k], a->pxs[kx] += mb[px[k]];
        a->pjs[ky] += jb[k], a->pxs[ky] += mb[py[k]];
    }
}

/* The conditional probabilities from the sweep's sums and the nodes'
 * models from the marginals; their largest change. */
double ax_pairs_update(skel_approx *a)
{
    double ch = 0;
    for (int k = 0; k < a->npair; k++) {
        double c = a->pxs[k] > 0 ? a->pjs[k] / a->pxs[k] : a->pbusy[a->pkey[k] % a->ntasks];
        ch = fmax(ch, fabs(c - a->pcond[k]));
        a->pcond[k] = c;
    }
    ch = fmax(ch, node_models(a));
    size_t m = (size_t)a->npair * 2 * AX_GPH;
    if (a->nghost && a->npair) {
        memcpy(a->pph, a->pphs, m * sizeof *a->pph);
        memset(a->pphs, 0, m * sizeof *a->pphs);
    }
    return ch;
}

/* The measured phases of pair (o, x) (o computing in phase j, x computing,
 * then o in phase j) when o has nph phases and some window measured them;
 * NULL else. */
static const double *pair_phases(const skel_approx *a, int o, int x, int nph)
{
    int k = a->pph ? pair_find(a, o, x) : -1;
    if (k < 0 || nph < 2 || nph != phases_of(a, o))
        return NULL;
    const double *v = a->pph + (size_t)k * 2 * AX_GPH;
    double t = 0;
    for (int j = 0; j < nph; j++)
        t += v[j];
    return t > 0 ? v : NULL;
}

double ax_ghost_given(const skel_approx *a, int o, int node, int x)
{
    double q = -1;
    for (int k = 0; k < a->nghost; k++) {
        if (a->ghost_of[k] != o || a->ghost_node[k] != node)
            continue;
        const double *v = a->ghost_ov ? pair_phases(a, o, x, a->ghost_nph[k]) : NULL;
        double s = 0, t = 0;
        for (int j = 0; v && j < a->ghost_nph[k]; j++) {
            s += v[j] * a->ghost_ov[(size_t)k * AX_GPH + (size_t)j];
            t += v[j];
        }
        q = (q < 0 ? 0 : q) + (v ? s / t : a->ghost_p[k]);
    }
    return q;
}

double ax_cond_phase(const skel_approx *a, int o, int y, const double *ov, int nph)
{
    const double *v = pair_phases(a, o, y, nph);
    double s = 0, t = 0;
    for (int j = 0; v && j < nph; j++) {
        s += v[j] * ov[j];
        t += v[AX_GPH + j] * ov[j];
    }
    return v && t > 0 ? fmin(1, s / t) : ax_cond_busy(a, o, y);
}

double ax_ghost_phase(const skel_approx *a, int k, int j)
{
    int nph = a->ghost_ov ? a->ghost_nph[k] : 1;
    if (nph < 2 || nph != phases_of(a, a->ghost_of[k]) || j < 0 || j >= nph)
        return a->ghost_p[k];
    return a->ghost_ov[(size_t)k * AX_GPH + (size_t)j];
}

int ax_local_phase(const skel_approx *a, int x, int l)
{
    return a->lph ? a->lph[a->loff[x] + l] : -1;
}
