/* skeleton/approx_est.c: the answer of last resort for a deal of deals
 * the windows cannot answer (docs/approximation.md, "Deals of deals the
 * windows cannot hold"): the per-task cycle bound, scaled by a measured
 * blocking factor, never below the one-item-at-a-time bound.
 *
 * Why a bound and not a decomposition: a deal dealing on to another deal
 * has no window that keeps both round robins whole beyond a few members
 * (deal(8) into deal(6): 629,856 states for the producer and the first
 * deal's members alone), and every window that cuts them makes the fixed
 * point sink (the cyclic error, -40% to a collapse); a zero-time relay
 * between the two deals (so that counting applies to both halves)
 * serialises the moves the two layers make in parallel, -44% on deal(8)
 * into deal(6) before any approximation (simulate, 2026-11-27). The bound
 * costs microseconds at any size and keeps the order's only sure effect:
 * no task does more than its cycle allows. What the order costs beyond
 * it (the members blocking each other) is the factor, measured on random
 * deals of deals whose exact chain fits (bench_approx dd, part (e)).
 * Private header approx_int.h. */
#include "approx_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Mean seconds of one of task i's receives (dir 0) or sends (dir 1): the
 * mean over its moves, which a round robin takes in turn (0 without). */
static double move_secs(const skel_approx *a, const double *lambda, int i, int dir)
{
    double t = 0;
    int n = 0;
    for (int e = 0; e < a->nedges; e++) {
        const skel_edge *ed = &a->d->edges[e];
        if (dir ? ed->from == i : ed->to == i) {
            t += 1 / lambda[e];
            n++;
        }
    }
    return n ? t / n : 0;
}

/* Items per task computation (a deal's member: 1/K); 1 where the dag
 * does not fix it (a farm's worker, counted as one alone). */
static double visits_of(const skel_approx *a, int i)
{
    const double *v = a->d->visits;
    return v && v[i] > 0 ? v[i] : 1;
}

/* Task i's cycle, per item it handles: 1/mu_i computing, and a receive
 * and a send moving (rendezvous: both ends are held). */
static double cycle_of(const skel_approx *a, const double *mu, const double *lambda, int i)
{
    return 1 / mu[i] + move_secs(a, lambda, i, 0) + move_secs(a, lambda, i, 1);
}

/* The job's items per second through two exponential servers of rates x
 * and y in tandem without a buffer: 1 / (1/x + 1/y - 1/(x + y)). */
static double pair_thr(double x, double y)
{
    return 1 / (1 / x + 1 / y - 1 / (x + y));
}

/* The per-task cycle bound: task i passes at most 1 / (v_i cycle_i) of
 * the job's items per second; under processor sharing a node computes at
 * most one second per second. With pairs, each move's two ends as a
 * tandem of two servers at those rates (the blocking between them). */
double ax_est_bound(const skel_approx *a, const double *mu, const double *lambda,
                    const int *ps_node, int pairs)
{
    double best = INFINITY;
    for (int i = 0; i < a->ntasks; i++) {
        double x = 1 / (visits_of(a, i) * cycle_of(a, mu, lambda, i)), load = 0;
        best = x < best ? x : best;
        for (int j = 0; ps_node && j < a->ntasks; j++)
            load += ps_node[j] == ps_node[i] ? visits_of(a, j) / mu[j] : 0;
        best = ps_node && 1 / load < best ? 1 / load : best;
    }
    for (int e = 0; pairs && e < a->nedges; e++) {
        int i = a->d->edges[e].from, j = a->d->edges[e].to;
        if (i < 0 || j < 0)
            continue;
        double x = pair_thr(1 / (visits_of(a, i) * cycle_of(a, mu, lambda, i)),
                            1 / (visits_of(a, j) * cycle_of(a, mu, lambda, j)));
        best = x < best ? x : best;
    }
    return best;
}

/* Mean time of one item alone through every task and move (as
 * ax_one_at_a_time, links as rendezvous): a lower bound. */
static double alone_secs(const skel_approx *a, const double *mu, const double *lambda)
{
    double t = 0;
    for (int i = 0; i < a->ntasks; i++)
        t += visits_of(a, i) > 1 ? visits_of(a, i) / mu[i] : 1 / mu[i];
    for (int e = 0; e < a->nedges; e++)
        t += 1 / lambda[e];
    return t;
}

int ax_est_eval(skel_approx *a, const double *mu, const double *lambda, const int *ps_node,
                skel_approx_result *r)
{
    double up = ax_est_bound(a, mu, lambda, ps_node, 1), low = 1 / alone_secs(a, mu, lambda);
    double x = AX_EST_BLOCK * up;
    memset(r, 0, sizeof *r);
    r->throughput = x > low ? x : low;
    r->converged = 1;
    r->estimate = 1;
    for (int i = 0; i < a->ntasks; i++) {
        a->thr[i] = r->throughput * visits_of(a, i);
        a->util[i] = a->thr[i] / mu[i];
    }
    r->bottleneck = skel_argmax_tied(a->util, a->ntasks);
    return 0;
}

/* The workspace of the estimate alone (a deal of deals whose windows
 * cannot hold a move's round robins: approx_layer.c short_window). */
skel_approx *ax_est_new(const skel_dag *d, const skel_approx_opts *opts, diag *err)
{
    skel_approx *a = ax_alloc(d, opts, err);
    if (!a)
        return NULL;
    a->est = 1;
    a->util = calloc((size_t)a->ntasks + 1, sizeof *a->util);
    a->thr = calloc((size_t)a->ntasks + 1, sizeof *a->thr);
    if (!a->util || !a->thr) {
        skel_approx_free(a);
        return ax_oom(err), NULL;
    }
    return a;
}
