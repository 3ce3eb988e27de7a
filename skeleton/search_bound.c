/* skeleton/search_bound.c: sound upper bounds on the throughput of every
 * completion of a partial placement (see search.c for the list), and the
 * set-up of the structures they read: flows, visit ratios, stages,
 * sub-pipeline windows, the platform's latency matrices. */
#define _POSIX_C_SOURCE 200809L
#include "search_int.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Mean over steps of the least time one exchange can take: the move's
 * mean time in a rendezvous (whatever its phases), the hand-off or the
 * take into a buffered link (the transit overlaps the task's work). */
static double steps_time(const search *s, const step *st, int n)
{
    if (n == 0)
        return 0;
    double sum = 0;
    for (int k = 0; k < n; k++) {
        double rate = 0;
        for (int j = 0; j < st[k].n; j++) {
            int e = st[k].edges[j];
            if (!(s->blam[e] > 0))
                return INFINITY;
            rate += s->m->buffer[e] > 0 ? s->handoff : s->blam[e];
        }
        sum += 1.0 / rate;
    }
    return sum / n;
}

/* A buffered link holds at most N items, each at least its mean transit
 * 1/lambda (Little's law): X_e <= N lambda_e. A task with a known visit
 * ratio and one partner to send to carries X v_i over that edge. */
static double link_bound(const search *s)
{
    double best = INFINITY;
    for (int i = 0; i < s->nt; i++) {
        if (!(s->visit[i] > 0) || s->flows[i].ndst != 1 || s->flows[i].dst[0].n != 1)
            continue;
        int e = s->flows[i].dst[0].edges[0];
        if (s->m->buffer[e] > 0 && s->m->buffer[e] * s->blam[e] / s->visit[i] < best)
            best = s->m->buffer[e] * s->blam[e] / s->visit[i];
    }
    return best;
}

static double window_thr(search *s, int wi);

/* Under Sharing=ps a node is work-conserving: its tasks together use at
 * most its speed, sum over its tasks of X_i / (work_i Speed_j) <= 1. With
 * X_i = ratio_i X (ratio 0: unknown, left out, which only weakens it) that
 * bounds X; the placed tasks are a subset of the final ones. A complete
 * placement estimated by the large-scale search is charged the same way
 * (bound_pl): without it co-located tasks would each count at full speed. */
static double node_bound(const search *s, const double *ratio)
{
    const int *pl = s->bound_pl ? s->bound_pl : s->place;
    double best = INFINITY;
    for (int j = 0; j < s->nn; j++) {
        double sum = 0;
        for (int i = 0; i < s->nt; i++)
            if (pl[i] == j && ratio[i] > 0)
                sum += ratio[i] / (s->m->work[i] * s->p->nodes[j].speed);
        if (sum > 0 && 1 / sum < best)
            best = 1 / sum;
    }
    return best;
}

/* Under Sharing=ps, what a farm's workers (the members of step st) can
 * process together when the job runs at x: each at most its cycle bound,
 * and those on one node j at most what the node has left after the tasks
 * of known visit ratio there, Speed_j (1 - x sum_i v_i / (work_i
 * Speed_j)), times the fastest rate among them (the node is
 * work-conserving, as in node_bound); unplaced ones, their cycle bounds. */
static double group_ps(const search *s, const step *st, double x)
{
    const int *pl = s->bound_pl ? s->bound_pl : s->place;
    double sum = 0;
    for (int k = 0; k < st->n; k++) {
        int i = s->m->edges[st->edges[k]].to, j = pl[i], first = 1;
        for (int q = 0; q < k && j >= 0 && first; q++)
            first = pl[s->m->edges[st->edges[q]].to] != j;
        if (j < 0) {
            sum += s->bcyc[i];
            continue;
        }
        if (!first)
            continue;         /* counted with the first member on its node */
        double cyc = 0, w = 0, load = 0, speed = s->p->nodes[j].speed;
        for (int q = k; q < st->n; q++) {
            int t = s->m->edges[st->edges[q]].to;
            if (pl[t] == j) {
                cyc += s->bcyc[t];
                w = s->m->work[t] > w ? s->m->work[t] : w;
            }
        }
        for (int t = 0; t < s->nt; t++)
            if (pl[t] == j && s->visit[t] > 0)
                load += s->visit[t] / (s->m->work[t] * speed);
        double cap = w * speed * (1 - x * load > 0 ? 1 - x * load : 0);
        sum += cyc < cap ? cyc : cap;
    }
    return sum;
}

/* The largest x <= hi with x <= scale * group_ps(x) (group_ps falls as x
 * grows: bisection). */
static double group_bound(const search *s, const step *st, double scale, double hi)
{
    if (!(hi < INFINITY))
        hi = scale * group_ps(s, st, 0);
    if (hi <= scale * group_ps(s, st, hi))
        return hi;
    double lo = 0;
    for (int it = 0; it < 40; it++) {
        double mid = 0.5 * (lo + hi);
        if (mid <= scale * group_ps(s, st, mid))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Upper bounds on every rate (bmu, blam) over the completions of the
 * current partial placement: under Sharing=static a node's share only
 * falls as tasks are added; under ps a task computes at most at its
 * node's full speed. */
void search_rate_bounds(search *s)
{
    for (int i = 0; i < s->nt; i++) {
        int j = s->place[i];
        if (j >= 0)
            s->bmu[i] = s->m->work[i] * s->p->nodes[j].speed / (s->ps ? 1 : s->load[j]);
        else if (s->o->pins && s->o->pins[i] >= 0)
            s->bmu[i] = s->m->work[i] * s->p->nodes[s->o->pins[i]].speed /
                        (s->ps ? 1 : s->load[s->o->pins[i]] + 1);
        else
            s->bmu[i] = s->m->work[i] * s->maxspeed;
    }
    for (int e = 0; e < s->ne; e++)
        s->blam[e] = edge_ub(s, e);
}

/* Upper bound on the job's throughput X over every completion of the
 * current partial placement (0: infeasible, a link missing). */
double search_bound(search *s)
{
    search_rate_bounds(s);
    return search_bound_rates(s);
}

/* Windows solved by Gauss-Seidel cost milliseconds: under a deadline they
 * are used only while COSTLY_LEFT seconds or more are left (dozens of
 * them between two looks at the clock would overrun a 50 ms budget, not
 * a budget of minutes). */
int search_costly_ok(const search *s)
{
    return s->deadline.at <= 0 || clock_deadline_left(s->deadline) >= COSTLY_LEFT;
}

/* The bound for the rate upper bounds in s->bmu (tasks) and s->blam
 * (edges); with a complete placement's own rates, the best sound bound on
 * its throughput the search has without the chain. */
double search_bound_rates(search *s)
{
    if (s->d->extended) {
        /* par/choice/loop: the flows' cycle bounds do not apply. A task
         * computing v_i times per item is busy at most all the time, so
         * items pass at most bmu_i / v_i per second; and the job's
         * throughput, sum_i entry_i X_i, is at most sum_i entry_i bmu_i. */
        for (int e = 0; e < s->ne; e++)
            if (!(s->blam[e] > 0))
                return 0;
        const double *v = s->d->visits;
        double items = INFINITY;
        for (int i = 0; i < s->nt; i++)
            if (v[i] > 0 && s->bmu[i] / v[i] < items)
                items = s->bmu[i] / v[i];
        if (s->ps && node_bound(s, v) < items)
            items = node_bound(s, v);
        if (search_capacity(s) < items)
            items = search_capacity(s);
        double all = 0;
        for (int i = 0; i < s->nt; i++)
            all += s->m->entry[i] * s->bmu[i];
        return items < all ? items : all;
    }
    double best = s->ps ? node_bound(s, s->visit) : INFINITY;
    double cap = search_capacity(s);
    best = cap < best ? cap : best;
    if (!s->plain_links && link_bound(s) < best)
        best = link_bound(s);
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
     * at least X * v / ndst, each at most its cycle bound. */
    for (int g = 0; g < s->ngroups; g++) {
        if (s->ps) {
            best = group_bound(s, s->group[g], s->group_scale[g], best);
            continue;
        }
        double sum = 0;
        for (int k = 0; k < s->group[g]->n; k++) {
            skel_edge ed = s->m->edges[s->group[g]->edges[k]];
            sum += s->bcyc[ed.to];
        }
        if (sum * s->group_scale[g] < best)
            best = sum * s->group_scale[g];
    }
    /* Without pruning the bounds only order the search and bound what a
     * budget leaves out: the cycle bounds are enough. Windows are solved
     * with exponential work and rendezvous moves: less variable work
     * (Erlang) or a buffer can beat them, so they bound only models whose
     * work and moves are all exponential and rendezvous. */
    int costly = search_costly_ok(s);
    for (int k = 0; k < s->nwin && !s->o->no_windows && !s->o->no_prune && s->exp_work &&
                    s->plain_links; k++) {
        /* Of the windows from one task, longest first, the first whose
         * last task is placed (or of at most WIN_ALWAYS tasks: cheap,
         * and for unplaced tasks the fastest rates still bound): a
         * longer window has more waits, so its bound is the lower, and
         * with its last task unplaced it would only be solved for
         * rates no completion has. */
        const window *w = &s->win[k];
        if (w->len > WIN_ALWAYS && s->place[w->start + w->len - 1] < 0)
            continue;
        /* Near a deadline only the windows solved by elimination. */
        if (w->len > WIN_DENSE_LEN && !costly)
            continue;
        double x = window_thr(s, k) / s->visit[w->start];
        if (x < best)
            best = x;
        while (k + 1 < s->nwin && s->win[k + 1].start == w->start)
            k++;
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
 * durations. Under Sharing=ps a computation is an exponential amount of
 * work done at Speed/(tasks computing) <= Speed: the window's full-speed
 * rates only shorten it too. The chains are tiny (3^len states) and cached by their rates. */
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

/* The longest window to build. A window of len tasks has 3^len states,
 * so one of nt - 1 or nt tasks costs about what the whole chain it would
 * prune costs: by default windows stop at nt - 2 (a ninth of the chain),
 * never below the dense WIN_DENSE_LEN nor above WIN_MAX. Measured idle
 * (bench_scale's third table, 256 nodes in 4 classes): pipe(6) 0.07 s
 * with windows of 4 against 0.14 s with 7; pipe(7) 0.46 s (4), 0.53 s (5),
 * 1.12 s (7); pipe(8) 5.56 s (4), 3.66 s (6), 4.42 s (7). */
static int window_most(const search *s)
{
    if (s->o->window_max >= 2 && s->o->window_max <= WIN_MAX)
        return s->o->window_max;
    int most = s->nt - 2;
    return most < WIN_DENSE_LEN ? WIN_DENSE_LEN : most > WIN_MAX ? WIN_MAX : most;
}

int search_setup_windows(search *s)
{
    size_t ws = WIN_STATES;
    if (!(s->win = calloc((size_t)WIN_MAX * (size_t)s->nt, sizeof *s->win)) ||
        !(s->wq = malloc((size_t)WIN_DENSE * (2 * WIN_DENSE + 1) * sizeof *s->wq)) ||
        !(s->wpi = malloc(ws * sizeof *s->wpi)) || !(s->wout = malloc(ws * sizeof *s->wout)) ||
        !(s->wrate = malloc(ws * WIN_MAX * sizeof *s->wrate)) ||
        !(s->wfirst = malloc((ws + 1) * sizeof *s->wfirst)) ||
        !(s->wfrom = malloc(ws * WIN_MAX * sizeof *s->wfrom)) ||
        !(s->wfill = malloc(ws * sizeof *s->wfill)) ||
        !(s->cache = malloc((size_t)WIN_CACHE * sizeof *s->cache)) ||
        !(s->bmu = malloc((size_t)s->nt * sizeof *s->bmu)) ||
        !(s->blam = malloc((size_t)(s->ne ? s->ne : 1) * sizeof *s->blam)))
        return diag_set(s->err, "out of memory");
    for (int k = 0; k < WIN_CACHE; k++)
        s->cache[k].win = -1;
    if (s->d->extended)
        return 0;             /* no windows: search_bound() has its own rule */
    for (int j = 0; j < s->nt; j++) {
        if (!(s->visit[j] > 0))
            continue;
        int src = sole_partner(&s->d->src[j]);
        if (src == -5)
            continue;
        window w = { .start = j, .len = 1, .in_edge = -1, .out_edge = -1 };
        if (src != -4 && (w.in_edge = skel_dag_edge(s->d, src, j)) < 0)
            continue;
        int last = j, most = window_most(s);
        while (w.len < most && last + 1 < s->nt && sole_partner(&s->d->dst[last]) == last + 1 &&
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
        /* The window and its prefixes down to WIN_ALWAYS tasks, longest
         * first: search_bound_rates uses the longest whose tasks are
         * placed. */
        s->win[s->nwin++] = w;
        for (int len = w.len - 1; len >= WIN_ALWAYS && len >= 2; len--) {
            window p = w;
            p.len = len;
            p.out_edge = w.link[len - 1];
            s->win[s->nwin++] = p;
        }
    }
    return 0;
}

/* Solves the augmented n x (n + 1) system a in place (Gaussian
 * elimination, partial pivoting) into u; -1 when singular. */
int search_dense_solve(double *a, int n, double *u)
{
    int m = n + 1;
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(a[r * m + c]) > fabs(a[piv * m + c]))
                piv = r;
        if (a[piv * m + c] == 0)
            return -1;
        for (int k = 0; piv != c && k <= n; k++) {
            double t = a[c * m + k];
            a[c * m + k] = a[piv * m + k];
            a[piv * m + k] = t;
        }
        for (int r = c + 1; r < n; r++) {
            double f = a[r * m + c] / a[c * m + c];
            for (int k = c; f != 0 && k <= n; k++)
                a[r * m + k] -= f * a[c * m + k];
        }
    }
    for (int r = n - 1; r >= 0; r--) {
        double v = a[r * m + n];
        for (int k = r + 1; k < n; k++)
            v -= a[r * m + k] * u[k];
        u[r] = v / a[r * m + r];
    }
    return 0;
}

/* Steady state of a dense generator q (n x n, row i = from state i) into
 * pi, by Gaussian elimination on pi Q = 0 with sum pi = 1. Returns -1 when
 * singular. a is n * (n + 1) scratch. */
int search_dense_steady(const double *q, int n, double *a, double *pi)
{
    int m = n + 1;
    for (int r = 0; r < n; r++) {
        for (int c = 0; c < n; c++)
            a[r * m + c] = r == n - 1 ? 1.0 : q[c * n + r];
        a[r * m + n] = r == n - 1 ? 1.0 : 0.0;
    }
    return search_dense_solve(a, n, pi);
}

void search_wchain_shape(const window *w, wchain *c)
{
    c->len = w->len;
    c->n = 1;
    for (int k = 0; k < w->len; k++) {
        c->nph[k] = 0;
        if (k > 0 || w->in_edge >= 0)
            c->ph[k][c->nph[k]++] = PH_R;
        c->ph[k][c->nph[k]++] = PH_C;
        if (k + 1 < w->len || w->out_edge >= 0)
            c->ph[k][c->nph[k]++] = PH_S;
        c->radix[k] = c->n;
        c->n *= c->nph[k];
    }
}

/* The moves out of state x (at most len): targets into to, rates into
 * rate; returns how many. A task advances alone through its computation
 * and the window's ends; a move between tasks k-1 and k advances both.
 * share: NULL (every task computes at bmu), or the policy of a
 * processor-sharing window (search_winps.c): task k computes at bmu times
 * share[x WIN_MAX + k]. */
int search_wchain_out(const search *s, const window *w, const wchain *c, const double *share, int x,
                      int *to, double *rate)
{
    int at[WIN_MAX], m = 0;
    for (int k = 0; k < c->len; k++)
        at[k] = (x / c->radix[k]) % c->nph[k];
    for (int k = 0; k < c->len; k++) {
        int p = c->ph[k][at[k]], next = (at[k] + 1) % c->nph[k];
        int y = x + (next - at[k]) * c->radix[k];
        double r = 0;
        if (p == PH_C)
            r = s->bmu[w->start + k] * (share ? share[(size_t)x * WIN_MAX + (size_t)k] : 1);
        else if (p == PH_R && k == 0)
            r = s->blam[w->in_edge];
        else if (p == PH_S && k + 1 == c->len)
            r = s->blam[w->out_edge];
        else if (p == PH_R && c->ph[k - 1][at[k - 1]] == PH_S) {
            int pn = (at[k - 1] + 1) % c->nph[k - 1];
            y += (pn - at[k - 1]) * c->radix[k - 1];
            r = s->blam[w->link[k - 1]];
        }
        if (r > 0 && y != x) {   /* a self-loop (a lone compute phase) changes nothing */
            to[m] = y;
            rate[m++] = r;
        }
    }
    return m;
}

/* Steady state of a window of at most WIN_DENSE states, by elimination. */
static int window_dense(search *s, const window *w, const wchain *c, const double *share, double *pi)
{
    int n = c->n, to[WIN_MAX];
    double rate[WIN_MAX], *q = s->wq, *a = s->wq + (size_t)n * (size_t)n;
    memset(q, 0, (size_t)n * (size_t)n * sizeof *q);
    for (int x = 0; x < n; x++) {
        int m = search_wchain_out(s, w, c, share, x, to, rate);
        for (int k = 0; k < m; k++) {
            q[x * n + to[k]] += rate[k];
            q[x * n + x] -= rate[k];
        }
    }
    return search_dense_steady(q, n, a, pi);
}

/* Steady state of a larger window by Gauss-Seidel over its incoming
 * moves (at most len per state, so a sweep of 3^7 states costs ~15,000
 * products), until no probability changes by more than WIN_TOL of itself
 * in a sweep; -1 when that does not happen in WIN_SWEEPS sweeps. */
static int window_gs(search *s, const window *w, const wchain *c, const double *share, double *pi)
{
    int n = c->n, *first = s->wfirst, *from = s->wfrom, to[WIN_MAX];
    double *out = s->wout, *rin = s->wrate, rate[WIN_MAX];
    memset(first, 0, ((size_t)n + 1) * sizeof *first);
    for (int x = 0; x < n; x++) {
        int m = search_wchain_out(s, w, c, share, x, to, rate);
        out[x] = 0;
        for (int k = 0; k < m; k++) {
            first[to[k] + 1]++;
            out[x] += rate[k];
        }
    }
    for (int y = 0; y < n; y++)
        first[y + 1] += first[y];
    int *fill = s->wfill;
    memcpy(fill, first, (size_t)n * sizeof *fill);
    for (int x = 0; x < n; x++) {
        int m = search_wchain_out(s, w, c, share, x, to, rate);
        for (int k = 0; k < m; k++) {
            from[fill[to[k]]] = x;
            rin[fill[to[k]]++] = rate[k];
        }
    }
    for (int y = 0; y < n; y++)
        pi[y] = 1.0 / n;
    for (int sweep = 0; sweep < WIN_SWEEPS; sweep++) {
        double change = 0, sum = 0;
        for (int y = 0; y < n; y++) {
            if (!(out[y] > 0))
                return -1;
            double v = 0;
            for (int t = first[y]; t < first[y + 1]; t++)
                v += pi[from[t]] * rin[t];
            v /= out[y];
            double d = fabs(v - pi[y]) / (v > 0 ? v : 1);
            change = d > change ? d : change;
            pi[y] = v;
            sum += v;
        }
        for (int y = 0; y < n; y++)
            pi[y] /= sum;
        if (change < WIN_TOL)
            return 0;
    }
    return -1;
}

/* Steady state of window w's chain c under share (NULL: full speed) into
 * pi: by elimination up to WIN_DENSE states, else by Gauss-Seidel. */
int search_window_steady(search *s, const window *w, const wchain *c, const double *share, double *pi)
{
    return c->n <= WIN_DENSE ? window_dense(s, w, c, share, pi) : window_gs(s, w, c, share, pi);
}

/* Window wi's rates as a cache key into key (WIN_RATES at most); returns
 * how many, 0 when one is 0 (a missing link: the window's throughput is 0). */
int search_window_key(const search *s, int wi, double *key)
{
    const window *w = &s->win[wi];
    int nk = 0;
    for (int k = 0; k < w->len; k++)
        key[nk++] = s->bmu[w->start + k];
    key[nk++] = w->in_edge >= 0 ? s->blam[w->in_edge] : -1;
    key[nk++] = w->out_edge >= 0 ? s->blam[w->out_edge] : -1;
    for (int k = 0; k + 1 < w->len; k++)
        key[nk++] = s->blam[w->link[k]];
    for (int k = 0; k < nk; k++)
        if (key[k] == 0)
            return 0;
    return nk;
}

/* The cache's entry for id and key (nk doubles): *hit when it holds
 * them, else the entry to fill (direct mapped: it replaces another). */
wcache *search_wcache(search *s, int id, const double *key, int nk, int *hit)
{
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)id;
    for (int k = 0; k < nk; k++) {
        uint64_t bits;
        memcpy(&bits, &key[k], sizeof bits);
        h = (h ^ bits) * 1099511628211ULL;
    }
    wcache *c = &s->cache[(h ^ (h >> 29)) % WIN_CACHE];
    *hit = c->win == id && memcmp(c->key, key, (size_t)nk * sizeof *key) == 0;
    return c;
}

/* Throughput of window w alone at rates bmu/blam (its first task's
 * compute), 0 when a rate is 0 (a missing link), cached. A window solved
 * iteratively is inflated by WIN_MARGIN: its iterate stops when a sweep
 * changes no probability by WIN_TOL of itself, and the margin is 10^5
 * times that (numerical, like every solve here; test_bound_above_exact
 * checks the bound against exact throughputs). */
static double window_thr(search *s, int wi)
{
    const window *w = &s->win[wi];
    double key[WIN_KEY];
    int nk = search_window_key(s, wi, key), hit;
    if (nk == 0)
        return 0;
    wcache *c = search_wcache(s, wi, key, nk, &hit);
    if (hit) {
        s->win_hits++;
        return c->thr;
    }
    wchain ch;
    search_wchain_shape(w, &ch);
    double *pi = s->wpi, thr = INFINITY;
    if (search_window_steady(s, w, &ch, NULL, pi) == 0) {
        int cph = ch.ph[0][0] == PH_C ? 0 : 1;
        double pc = 0;
        for (int x = 0; x < ch.n; x++)
            if ((x / ch.radix[0]) % ch.nph[0] == cph)
                pc += pi[x];
        thr = s->bmu[w->start] * pc * (ch.n <= WIN_DENSE ? 1 : 1 + WIN_MARGIN);
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

int search_build_flow(search *s, const skel_flow *f, int task, int is_src, step **out, int *n)
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

/* Visit ratios X_i / X, propagated from the known ones along sends whose every step
 * has one partner (so the share of each partner is fixed). */
void search_visit_ratios(search *s)
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
 * once, so sum X over D = sum X over G. Starting from the first stage
 * this finds the stages of a pipeline of farms and deals; a stage of one
 * task gets its visit ratio, and every stage bounds the job's throughput X
 * by the sum of its members' cycle bounds (sound whatever the split inside
 * the stage). */
static int record_stage(search *s, const int *tasks, int n, double v, int g)
{
    int *m = malloc((size_t)n * sizeof *m);
    if (!m)
        return diag_set(s->err, "out of memory");
    memcpy(m, tasks, (size_t)n * sizeof *m);
    s->stage[g] = m;
    s->stage_n[g] = n;
    s->stage_v[g] = v;
    return 0;
}

int search_stage_groups(search *s, int *ng_out)
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
    /* G starts as the first stage: together its tasks compute once per
     * item entering (X = the sum of their X_i), a bound of its own when
     * it has several. */
    int ncur = 0, gen = 0;
    for (int i = 0; i < nt; i++)
        if (s->m->entry[i] > 0)
            cur[ncur++] = i;
    double v = 1;
    int rc = ncur > 1 ? record_stage(s, cur, ncur, v, ng) : 0;
    ng += ncur > 1;
    while (rc == 0 && ng < cap && ncur > 0) {
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
        if ((rc = record_stage(s, nxt, nnext, v, ng)) < 0)
            break;
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
    return rc;
}

int search_setup_platform(search *s)
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
        /* Edges carrying as many bytes have the same fastest rates: copy
         * (nodes squared per distinct size, not per edge). */
        int same = e - 1;
        while (same >= 0 && edge_data(s, same) != data)
            same--;
        if (same >= 0) {
            memcpy(s->mx_from + (size_t)e * nn, s->mx_from + (size_t)same * nn, nn * sizeof *s->mx_from);
            memcpy(s->mx_to + (size_t)e * nn, s->mx_to + (size_t)same * nn, nn * sizeof *s->mx_to);
            s->mx_any[e] = s->mx_any[same];
            continue;
        }
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

/* ---- the capacity bound ----------------------------------------------------- */

/* A node delivers at most Speed_j of work a second whatever the sharing
 * (ps is work-conserving; under static each of its n tasks has Speed_j / n),
 * and an item of task i costs 1/work_i of it on average (work_i: its rate
 * at Speed=1, whatever its phases). So for any set of tasks, the sum of
 * X_i / work_i is at most the speed of the nodes they run on: one node
 * each at most, their own where placed. The sets are disjoint: a stage's
 * members together carry X stage_v (so they consume at least X stage_v /
 * their largest work_i), a farm step's members at least X / scale, a task
 * of known visit ratio X v_i. It bounds what the other bounds cannot see:
 * a farm of 1000 workers on 30 nodes has 1000 fast cycles but only the
 * nodes' speed to share. */
typedef struct cap_node {
    double speed;
    int node;
} cap_node;

static int cap_faster(const void *a, const void *b)
{
    const cap_node *x = a, *y = b;
    return x->speed > y->speed ? -1 : x->speed < y->speed ? 1 : x->node - y->node;
}

/* Add the set of n tasks (members[k], each through to_task's edge when
 * edges is non-zero) with coefficient coef unless one is already in a set. */
static void cap_add(search *s, unsigned char *used, const int *members, int n, int edges, double v)
{
    double w = 0;
    for (int k = 0; k < n; k++) {
        int i = edges ? s->m->edges[members[k]].to : members[k];
        if (i < 0 || used[i] || !(s->m->work[i] > 0))
            return;
        w = s->m->work[i] > w ? s->m->work[i] : w;
    }
    int at = s->cap_first[s->ncap];
    for (int k = 0; k < n; k++) {
        int i = edges ? s->m->edges[members[k]].to : members[k];
        used[i] = 1;
        s->cap_task[at++] = i;
    }
    s->cap_coef[s->ncap] = v / w;
    s->cap_all += v / w;
    s->cap_first[++s->ncap] = at;
}

static int cap_sort_nodes(search *s)
{
    cap_node *cn = malloc((size_t)s->nn * sizeof *cn);
    if (!cn)
        return diag_set(s->err, "out of memory");
    int n = 0;
    for (int j = 0; j < s->nn; j++)
        if (!s->o->allowed || s->o->allowed[j])
            cn[n++] = (cap_node){ s->p->nodes[j].speed, j };
    qsort(cn, (size_t)n, sizeof *cn, cap_faster);
    for (int k = 0; k < n; k++)
        s->cap_order[k] = cn[k].node;
    s->cap_order[n] = -1;
    free(cn);
    return 0;
}

int search_setup_capacity(search *s)
{
    size_t nt = (size_t)s->nt;
    unsigned char *used = calloc(nt, 1);
    if (!used || !(s->cap_first = calloc(nt + 1, sizeof *s->cap_first)) ||
        !(s->cap_task = malloc(nt * sizeof *s->cap_task)) ||
        !(s->cap_coef = malloc(nt * sizeof *s->cap_coef)) ||
        !(s->cap_order = malloc(((size_t)s->nn + 1) * sizeof *s->cap_order)) ||
        !(s->cap_mark = calloc((size_t)s->nn, sizeof *s->cap_mark))) {
        free(used);
        return diag_set(s->err, "out of memory");
    }
    for (int g = 0; g < s->nstages; g++)
        if (s->stage_n[g] > 1)
            cap_add(s, used, s->stage[g], s->stage_n[g], 0, s->stage_v[g]);
    for (int g = 0; g < s->ngroups; g++)
        cap_add(s, used, s->group[g]->edges, s->group[g]->n, 1, 1 / s->group_scale[g]);
    const double *v = s->d->extended ? s->d->visits : s->visit;
    for (int i = 0; i < s->nt; i++)
        if (v[i] > 0)
            cap_add(s, used, &i, 1, 0, v[i]);
    free(used);
    return cap_sort_nodes(s);
}

/* The speed n tasks can have together under placement pl: their nodes
 * (placed or pinned) once each, and for each of the others one of the
 * fastest usable nodes not yet counted. */
static double cap_speed(search *s, const int *tasks, int n, const int *pl)
{
    if (++s->cap_stamp == 0) {
        memset(s->cap_mark, 0, (size_t)s->nn * sizeof *s->cap_mark);
        s->cap_stamp = 1;
    }
    double sum = 0;
    int others = 0;
    for (int k = 0; k < n; k++) {
        int i = tasks[k], j = pl[i] >= 0 ? pl[i] : s->o->pins ? s->o->pins[i] : -1;
        if (j < 0)
            others++;
        else if (s->cap_mark[j] != s->cap_stamp) {
            s->cap_mark[j] = s->cap_stamp;
            sum += s->p->nodes[j].speed;
        }
    }
    for (int q = 0; others > 0 && s->cap_order[q] >= 0; q++) {
        int j = s->cap_order[q];
        if (s->cap_mark[j] != s->cap_stamp) {
            sum += s->p->nodes[j].speed;
            others--;
        }
    }
    return sum;
}

/* Upper bound on X from the nodes' capacity: each set alone, and all of
 * them together (INFINITY when no task has a known share). */
double search_capacity(search *s)
{
    if (s->ncap == 0)
        return INFINITY;
    const int *pl = s->bound_pl ? s->bound_pl : s->place;
    double best = cap_speed(s, s->cap_task, s->cap_first[s->ncap], pl) / s->cap_all;
    for (int g = 0; g < s->ncap; g++) {
        int lo = s->cap_first[g], n = s->cap_first[g + 1] - lo;
        double x = cap_speed(s, s->cap_task + lo, n, pl) / s->cap_coef[g];
        best = x < best ? x : best;
    }
    return best;
}
