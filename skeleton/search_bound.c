/* skeleton/search_bound.c: sound upper bounds on the throughput of every
 * completion of a partial placement (see search.c for the list), and the
 * set-up of the structures they read: flows, visit ratios, stages, the
 * platform's latency matrices. The sub-pipeline windows are
 * search_window.c's, the capacity bound search_capacity.c's. */
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
        double x = search_window_thr(s, k) / s->visit[w->start];
        if (x < best)
            best = x;
        while (k + 1 < s->nwin && s->win[k + 1].start == w->start)
            k++;
    }
    return isfinite(best) ? best : 0;
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

