/* skeleton/search_winps.c: sub-pipeline windows that see processor
 * sharing (Sharing=ps; docs/mapping.md, "Sub-pipeline windows with
 * sharing").
 *
 * The full-speed window (search_window.c, search_window_thr) lets every
 * task of a window compute at its node's whole speed, so it cannot tell a
 * placement that puts 3-6 tasks on one node from one that spreads them.
 * Here the window's tasks that share a node share it, and the result is still an
 * upper bound on the job's throughput. The argument:
 *
 * Let Z be the chain the search solves for any completion of the partial
 * placement, pi a stationary distribution of it (pi Q = 0), and x(z) the
 * phases (receive, compute, send) of the window's tasks in state z. For
 * any function h of the window's states, H(z) = h(x(z)) has
 * sum_z pi(z) (QH)(z) = 0. The throughput of the window's first task is
 * X_0 = sum_z pi(z) r(z), r(z) its computation's rate in z, so
 *   X_0 = sum_z pi(z) (r(z) + (QH)(z)) <= max_z (r(z) + (QH)(z)).
 * Only moves that change x contribute to QH: a window task's computation,
 * a move between two window tasks, the window's in- and out-move. In z
 * each happens at a rate of at most its upper bound (bmu, blam) -- the
 * window's ends at 0 when the partner outside is not ready -- and the
 * computations of the window's tasks on one node j run at bmu_k s_k with
 * s_k = 1 / (tasks of j computing in z), whose sum over the window's tasks
 * is at most 1 (tasks outside the window, or placed later, only add to
 * the count). A sum of rate x a with rate in [0, ub] is at most
 * max(0, ub a); a sum of bmu_k s_k a_k with s_k >= 0, sum s_k <= 1 is at
 * most max(0, max_k bmu_k a_k). So for every z
 *   r(z) + (QH)(z) <= Phi(x(z), h) = sum over the moves of x(z): each end
 *   or link move max(0, ub (h(y) - h(x))); each node max(0, max over its
 *   computing window tasks of bmu_k (rew_k + h(y_k) - h(x)))
 * (rew_k = 1 for the first task's computation), and X_0 <= max_x Phi(x, h)
 * for ANY h: the bound does not depend on how well h was computed, only
 * on the arithmetic of Phi (WPS_MARGIN). Phi is the Bellman operator of
 * the window as a control problem (each node serving any of its computing
 * tasks, every rate throttled at will); h is taken from policy iteration:
 * processor sharing first, then the greedy policy of the last h, each
 * policy's relative values solved exactly (dense, up to WIN_DENSE states)
 * or by Gauss-Seidel, keeping the least bound. When max Phi comes within
 * WPS_OPTIMUM (1e-9) of a policy's throughput no h does better: stop.
 * The buffers (~350 KB) are allocated on the first bound asked for
 * (wps_alloc): a search whose budget never reaches these windows (the
 * plugin's, under COSTLY_LEFT) does not pay for them. */
#define _POSIX_C_SOURCE 200809L
#include "search_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WPS_ITERS 8           /* policies evaluated at most */
#define WPS_MARGIN 1e-9       /* rounding of Phi's sum of at most 2 WIN_MAX terms */
#define WPS_OMEGA 0.5         /* under-relaxation of the sweeps on h (wps_eval_gs) */
#define WPS_OPTIMUM 1e-9      /* a bound within this of a policy's throughput: optimal */
#define WPS_TIE 1e-12         /* a node's current task within this of the best: kept */
/* Gauss-Seidel on h stops when no value moves by WPS_TOL items in a
 * sweep: an h off by d moves Phi by at most (a rate) x d, 1e-3 at the
 * 1e4 of a 0.1 ms local move, 0.02 % of a throughput of 5, and only
 * loosens the bound (1e-9 took 3.95 s of CPU for pipe(8)'s proof, 1e-7
 * 3.08 s, the same 289 chains). */
#define WPS_TOL 1e-7

/* One move out of a window state: its target, its rate's upper bound,
 * and for a computation its task, its node group and its reward (1 for
 * the window's first task); grp -1 for a move. */
typedef struct wmove {
    int to, task, grp, rew;
    double ub;
} wmove;

typedef struct wps {
    const window *w;
    wchain c;
    int grp[WIN_MAX];         /* per task: the first window task on its node */
} wps;

/* Task i's node: placed, pinned, or -1. */
static int node_of(const search *s, int i)
{
    return s->place[i] >= 0 ? s->place[i] : s->o->pins ? s->o->pins[i] : -1;
}

/* The node groups of window w into grp; whether two of its tasks share a node. */
static int wps_groups(const search *s, const window *w, int *grp)
{
    int shared = 0;
    for (int k = 0; k < w->len; k++) {
        int j = node_of(s, w->start + k);
        grp[k] = k;
        for (int q = 0; q < k && j >= 0 && grp[k] == k; q++)
            if (node_of(s, w->start + q) == j) {
                grp[k] = grp[q];
                shared = 1;
            }
    }
    return shared;
}

/* The moves out of state x into mv (at most len), as search_wchain_out
 * makes them but with a lone compute phase's self-loop kept (its reward). */
static int wps_moves(const search *s, const wps *p, int x, wmove *mv)
{
    const window *w = p->w;
    const wchain *c = &p->c;
    int at[WIN_MAX], m = 0;
    for (int k = 0; k < c->len; k++)
        at[k] = (x / c->radix[k]) % c->nph[k];
    for (int k = 0; k < c->len; k++) {
        int ph = c->ph[k][at[k]], next = (at[k] + 1) % c->nph[k];
        wmove v = { x + (next - at[k]) * c->radix[k], k, -1, 0, 0 };
        if (ph == PH_C) {
            v.ub = s->bmu[w->start + k];
            v.grp = p->grp[k];
            v.rew = k == 0;
        } else if (ph == PH_R && k == 0) {
            v.ub = s->blam[w->in_edge];
        } else if (ph == PH_S && k + 1 == c->len) {
            v.ub = s->blam[w->out_edge];
        } else if (ph == PH_R && c->ph[k - 1][at[k - 1]] == PH_S) {
            v.to += ((at[k - 1] + 1) % c->nph[k - 1] - at[k - 1]) * c->radix[k - 1];
            v.ub = s->blam[w->link[k - 1]];
        }
        if (v.ub > 0)
            mv[m++] = v;
    }
    return m;
}

/* A move's rate under the policy's shares. */
static double wps_rate(const wmove *v, const double *share, int x)
{
    return v->grp < 0 ? v->ub : v->ub * share[(size_t)x * WIN_MAX + (size_t)v->task];
}

/* Processor sharing among the window's computing tasks of each node. */
static void wps_policy_ps(const search *s, const wps *p, double *share)
{
    wmove mv[WIN_MAX];
    for (int x = 0; x < p->c.n; x++) {
        int m = wps_moves(s, p, x, mv), busy[WIN_MAX] = { 0 };
        for (int q = 0; q < m; q++)
            if (mv[q].grp >= 0)
                busy[mv[q].grp]++;
        for (int q = 0; q < m; q++)
            if (mv[q].grp >= 0)
                share[(size_t)x * WIN_MAX + (size_t)mv[q].task] = 1.0 / busy[mv[q].grp];
    }
}

/* Phi(x, h) (the file's comment). */
static double wps_phi(const search *s, const wps *p, const double *h, int x)
{
    wmove mv[WIN_MAX];
    double node[WIN_MAX] = { 0 }, sum = 0;
    int m = wps_moves(s, p, x, mv);
    for (int q = 0; q < m; q++) {
        double a = mv[q].ub * (mv[q].rew + h[mv[q].to] - h[x]);
        if (mv[q].grp < 0)
            sum += a > 0 ? a : 0;
        else if (a > node[mv[q].grp])
            node[mv[q].grp] = a;
    }
    for (int k = 0; k < p->c.len; k++)
        sum += node[k];
    return sum;
}

/* The greedy policy of h: each node serves its computing window task of
 * the largest bmu_k (rew_k + h(y_k) - h(x)), the one it serves on a tie
 * (within WPS_TIE: so that rounding does not make the policies cycle).
 * Returns whether a share changed. */
static int wps_improve(const search *s, const wps *p, const double *h, double *share)
{
    wmove mv[WIN_MAX];
    int changed = 0;
    for (int x = 0; x < p->c.n; x++) {
        int m = wps_moves(s, p, x, mv), pick[WIN_MAX];
        double best[WIN_MAX], cur[WIN_MAX], *sh = share + (size_t)x * WIN_MAX;
        for (int k = 0; k < p->c.len; k++) {
            pick[k] = -1;
            best[k] = cur[k] = -INFINITY;
        }
        for (int q = 0; q < m; q++) {
            int g = mv[q].grp;
            double a = mv[q].ub * (mv[q].rew + h[mv[q].to] - h[x]);
            if (g >= 0 && a > best[g]) {
                pick[g] = mv[q].task;
                best[g] = a;
            }
            if (g >= 0 && sh[mv[q].task] == 1)
                cur[g] = a;
        }
        for (int q = 0; q < m; q++) {
            int g = mv[q].grp, t = mv[q].task;
            if (g < 0)
                continue;
            double v = pick[g] == t ? 1 : 0;
            if (cur[g] >= best[g] - WPS_TIE * fabs(best[g]))
                v = sh[t] == 1 ? 1 : 0;       /* keep the task it serves */
            if (sh[t] != v) {
                sh[t] = v;
                changed = 1;
            }
        }
    }
    return changed;
}

/* The policy's throughput g and relative values h (h(0) = 0) of a small
 * window at once: for every state x, sum_y q(x,y) (h(y) - h(x)) - g =
 * -r(x), in the unknowns g, h(1), ..., h(n-1). */
static int wps_eval_dense(search *s, const wps *p, const double *share, double *h, double *g)
{
    int n = p->c.n, m = n + 1;
    double *a = s->wq, *u = s->wq + (size_t)n * (size_t)m;
    wmove mv[WIN_MAX];
    memset(a, 0, (size_t)n * (size_t)m * sizeof *a);
    for (int x = 0; x < n; x++) {
        int nm = wps_moves(s, p, x, mv);
        a[x * m] = -1;
        for (int q = 0; q < nm; q++) {
            double r = wps_rate(&mv[q], share, x);
            a[x * m + n] -= r * mv[q].rew;
            if (mv[q].to == x)
                continue;
            if (mv[q].to > 0)
                a[x * m + mv[q].to] += r;
            if (x > 0)
                a[x * m + x] -= r;
        }
    }
    if (search_dense_solve(a, n, u) < 0)
        return -1;
    *g = u[0];
    h[0] = 0;
    for (int x = 1; x < n; x++)
        h[x] = u[x];
    return 0;
}

/* The policy's moves out of every state, laid out for the sweeps:
 * state x's are wps_first[x] .. wps_first[x + 1] - 1 (self-loops left
 * out), with their rates and the reward rate of x in wps_r[x]. */
static void wps_lay_out(search *s, const wps *p, const double *share)
{
    wmove mv[WIN_MAX];
    int at = 0;
    for (int x = 0; x < p->c.n; x++) {
        int nm = wps_moves(s, p, x, mv);
        s->wps_first[x] = at;
        s->wps_r[x] = 0;
        for (int q = 0; q < nm; q++) {
            double r = wps_rate(&mv[q], share, x);
            s->wps_r[x] += r * mv[q].rew;
            if (mv[q].to != x && r > 0) {
                s->wps_to[at] = mv[q].to;
                s->wps_q[at++] = r;
            }
        }
    }
    s->wps_first[p->c.n] = at;
}

/* The same for a larger window: g from the steady state (Gauss-Seidel),
 * then h by Gauss-Seidel on the same equations from the last policy's h,
 * shifted to h(0) = 0 after each sweep and under-relaxed by WPS_OMEGA
 * (the chain without its self-loops can be periodic: the plain sweep
 * then cycles, on pipe(8)'s windows of 5 with a change of 0.038 a sweep
 * for 20,000 sweeps). An h not converged still gives a sound bound (only
 * a looser one). */
static int wps_eval_gs(search *s, const wps *p, const double *share, double *h, double *g)
{
    int n = p->c.n;
    double *pi = s->wpi, *prev = s->wout;
    if (search_window_steady(s, p->w, &p->c, share, pi) < 0)
        return -1;
    wps_lay_out(s, p, share);
    *g = 0;
    for (int x = 0; x < n; x++)
        *g += pi[x] * s->wps_r[x];
    for (int sweep = 0; sweep < WIN_SWEEPS; sweep++) {
        memcpy(prev, h, (size_t)n * sizeof *h);
        for (int x = 0; x < n; x++) {
            double out = 0, v = s->wps_r[x] - *g;
            for (int q = s->wps_first[x]; q < s->wps_first[x + 1]; q++) {
                out += s->wps_q[q];
                v += s->wps_q[q] * h[s->wps_to[q]];
            }
            if (!(out > 0))
                return -1;
            h[x] += WPS_OMEGA * (v / out - h[x]);
        }
        double shift = h[0], change = 0;
        for (int x = 0; x < n; x++) {
            h[x] -= shift;
            double d = fabs(h[x] - prev[x]);
            change = d > change ? d : change;
        }
        if (change < WPS_TOL)
            break;
    }
    return 0;
}

/* Policy iteration for window p from the policy in s->wps_share and h in
 * s->wps_h; into *bound the least max_x Phi(x, h) found (it may hold one
 * already), into *floor the best policy's throughput. Every policy is
 * one the window may follow, so no h bounds below *floor: it stops when
 * *floor >= below (hopeless), when *bound < below (enough), at an optimum
 * (*bound within WPS_OPTIMUM of *floor), or when the policy is greedy already.
 * below <= 0: no target, the least bound it can find. Returns whether
 * it stopped by below, i.e. whether more could be had. */
static int wps_solve(search *s, const wps *p, double below, double *bound, double *floor)
{
    double *share = s->wps_share, *h = s->wps_h;
    for (int it = 0; it < WPS_ITERS; it++) {
        double g = 0, phi = 0;
        int rc = p->c.n <= WIN_DENSE ? wps_eval_dense(s, p, share, h, &g)
                                     : wps_eval_gs(s, p, share, h, &g);
        if (rc < 0)
            return 0;
        for (int x = 0; x < p->c.n; x++) {
            double v = wps_phi(s, p, h, x);
            phi = isfinite(v) && isfinite(h[x]) ? fmax(phi, v) : INFINITY;   /* no bound from a
                                                       non-finite h: fmax and the max(0, a)
                                                       of wps_phi would drop a NaN */
        }
        phi *= 1 + WPS_MARGIN;
        *bound = phi < *bound ? phi : *bound;
        *floor = g > *floor ? g : *floor;
        if (*bound <= *floor * (1 + WPS_OPTIMUM) || !wps_improve(s, p, h, share))
            return 0;
        if (below > 0 && (*floor >= below || *bound < below))
            return 1;
    }
    return 0;
}

/* Window wi's bound with sharing, cached by its rates and its nodes;
 * INFINITY when no node holds two of its tasks (the full-speed window is
 * then the same bound). The cache keeps the bound and the floor of what
 * it could become; an entry that stopped short (by below) is taken up
 * again from processor sharing when a higher below could use more. */
static double wps_window(search *s, int wi, double below)
{
    wps p = { .w = &s->win[wi] };
    if (!wps_groups(s, p.w, p.grp))
        return INFINITY;
    double key[WIN_KEY];
    int nk = search_window_key(s, wi, key), hit;
    if (nk == 0)
        return 0;
    for (int k = 0; k < p.w->len; k++)
        key[nk++] = p.grp[k];
    wcache *c = search_wcache(s, s->nwin + wi, key, nk, &hit);
    if (hit && (!c->more || (below > 0 && (c->thr < below || c->lo >= below)))) {
        s->win_hits++;
        return c->thr;
    }
    double bound = hit ? c->thr : INFINITY, floor = hit ? c->lo : 0;
    search_wchain_shape(p.w, &p.c);
    wps_policy_ps(s, &p, s->wps_share);
    memset(s->wps_h, 0, (size_t)p.c.n * sizeof *s->wps_h);
    int more = wps_solve(s, &p, below, &bound, &floor);
    s->wps_solved++;
    c->win = s->nwin + wi;
    memcpy(c->key, key, (size_t)nk * sizeof *key);
    c->thr = bound;
    c->lo = floor;
    c->more = more;
    return bound;
}

/* Whether the sharing windows apply: Sharing=ps, windows on and sound
 * (exponential work, rendezvous moves, no par/choice/loop), and time. */
static int wps_applies(const search *s)
{
    return s->ps && !s->d->extended && !s->o->no_windows &&
           s->o->shared_windows >= 0 && !s->o->no_prune && s->exp_work && s->plain_links &&
           search_costly_ok(s);
}

/* The least bound of the windows of at most most tasks (or of more than
 * WIN_DENSE_LEN when long), down to below: of each task's windows, as in
 * search_bound_rates, the longest whose last task is placed (or of at
 * most WIN_ALWAYS tasks). */
static double wps_pass(search *s, double below, int long_only)
{
    double best = INFINITY;
    /* each window's bound is valid alone: past the deadline the least so
     * far is (a call can take a second on pipe(30), COSTLY_LEFT's margin) */
    for (int k = 0; k < s->nwin && !(best < below) &&
                    (s->deadline.at <= 0 || clock_deadline_left(s->deadline) > 0);
         k++) {
        const window *w = &s->win[k];
        if ((!long_only && w->len > WIN_DENSE_LEN) ||
            (w->len > WIN_ALWAYS && s->place[w->start + w->len - 1] < 0))
            continue;
        if (!long_only || w->len > WIN_DENSE_LEN) {
            double x = wps_window(s, k, below * s->visit[w->start]) / s->visit[w->start];
            best = x < best ? x : best;
        }
        while (k + 1 < s->nwin && s->win[k + 1].start == w->start)
            k++;
    }
    return best;
}

/* The buffers of the windows' policies and values, WIN_STATES states of
 * at most WIN_MAX moves each, on first use: 0, or -1 out of memory (none
 * kept: the search goes on without this bound, which only prunes). */
static int wps_alloc(search *s)
{
    size_t ws = WIN_STATES;
    if (s->wps_first)   /* the last allocated: all are */
        return 0;
    s->wps_share = calloc(ws * WIN_MAX, sizeof *s->wps_share);
    s->wps_h = malloc(ws * sizeof *s->wps_h);
    s->wps_r = malloc(ws * sizeof *s->wps_r);
    s->wps_q = malloc(ws * WIN_MAX * sizeof *s->wps_q);
    s->wps_to = malloc(ws * WIN_MAX * sizeof *s->wps_to);
    if (s->wps_share && s->wps_h && s->wps_r && s->wps_q && s->wps_to &&
        (s->wps_first = malloc((ws + 1) * sizeof *s->wps_first)))
        return 0;
    search_winps_free(s);
    return -1;
}

/* The windows solved densely first (a fraction of a millisecond each),
 * the longer ones (milliseconds) only when those did not get below. */
double search_bound_shared(search *s, double below)
{
    if (!wps_applies(s) || wps_alloc(s) < 0)
        return INFINITY;
    search_rate_bounds(s);
    double best = wps_pass(s, below, 0);
    if (best < below)
        return best;
    double x = wps_pass(s, below, 1);
    return x < best ? x : best;
}

/* The buffers wps_alloc made (none: nothing), in the search's one
 * cleanup path and on a failed allocation. */
void search_winps_free(search *s)
{
    free(s->wps_share);
    free(s->wps_h);
    free(s->wps_r);
    free(s->wps_q);
    free(s->wps_to);
    free(s->wps_first);
    s->wps_share = s->wps_h = s->wps_r = s->wps_q = NULL;
    s->wps_to = s->wps_first = NULL;
}
