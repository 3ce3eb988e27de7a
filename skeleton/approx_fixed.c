/* skeleton/approx_fixed.c: the fixed point coupling the windows: the
 * measures of a solved window, its partners' parameters, the sweeps, the
 * extrapolation of a slow fixed point, the one-item-at-a-time bound.
 * Private header approx_int.h. */
#include "approx_int.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
        p += ax_is_ready(a, x, l, e, send) ? a->marg[l] : 0;
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
        if (c[k].src == AX_MU && c[k].done && (c[k].pos == w->pa || c[k].pos == w->pb))
            thr[c[k].pos != w->pa] += pi[c[k].from] * a->rate[k];
    for (int i = 0; i < 2 && (i == 0 || w->pb >= 0); i++) {
        int p = i ? w->pb : w->pa, x = a->wtask[w->t0 + p];
        marginal(a, w, p);
        double b = 0;
        for (int l = 0; l < a->nloc[x]; l++)
            b += a->busy[a->loff[x] + l] ? a->marg[l] : 0;
        a->bsum[x] += b;
        a->xsum[x] += thr[i];
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
    ax_fen_add(a->fen_send, a->nedges, m, a->rho_send[e] - a->rho_send[m]);
    ax_fen_add(a->fen_recv, a->nedges, m, a->rho_recv[e] - a->rho_recv[m]);
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
    ax_solve_window(a, w);
    ax_lat_measure(a, w);
    window_tasks(a, w);
    ax_window_pairs(a, w);
    if (w->edge < 0)
        return 0;
    int e = w->edge;
    double te = 0, fs = 0, fr = 0;
    const ax_ctr *c = a->ctr + w->c0;
    const double *pi = a->pi + w->p0;
    const unsigned char *lv = a->leave + w->l0;
    for (int k = 0; k < w->nc; k++) {
        double fl = pi[c[k].from] * a->rate[k];
        if ((c[k].src == AX_LAMBDA || c[k].src == AX_HANDOFF) && c[k].idx == e)
            te += fl;             /* the move (a buffer's: the sender's hand-off) */
        fs += lv[k] & 1 ? fl : 0;
        fr += lv[k] & 2 ? fl : 0;
    }
    marginal(a, w, w->pa);
    double ps = ready(a, a->wtask[w->t0 + w->pa], e, 1);
    marginal(a, w, w->pb);
    double pr = ready(a, a->wtask[w->t0 + w->pb], e, 0);
    double os = a->rho_send[e], orv = a->rho_recv[e];
    double ch = side_update(&a->rho_send[e], &a->alpha_send[e], &a->gamma_send[e], ps, fs, te,
                            a->lambda[e], a->as_bit[e]);
    ch = fmax(ch, side_update(&a->rho_recv[e], &a->alpha_recv[e], &a->gamma_recv[e], pr, fr,
                              te, a->lambda[e], a->as_bit[e]));
    ax_fen_add(a->fen_send, a->nedges, e, a->rho_send[e] - os);
    ax_fen_add(a->fen_recv, a->nedges, e, a->rho_recv[e] - orv);
    for (int m = a->ehead[e]; m >= 0; m = a->enext[m])
        copy_edge(a, m, e);
    if (w->g >= 0 && a->edir[e])
        ch = fmax(ch, ax_count_update(a, w, pi));
    return ch;
}

double ax_sweep(skel_approx *a, int backward)
{
    double ch = 0;
    memset(a->xsum, 0, (size_t)a->ntasks * sizeof *a->xsum);
    memset(a->xcnt, 0, (size_t)a->ntasks * sizeof *a->xcnt);
    memset(a->bsum, 0, (size_t)a->ntasks * sizeof *a->bsum);
    for (int k = 0; k < a->npair; k++)
        a->pjs[k] = a->pxs[k] = 0;
    ax_lat_sweep(a);
    for (int k = 0; k < a->nwin; k++) {
        const ax_win *w = &a->win[backward ? a->nwin - 1 - k : k];
        if (ax_past_deadline(a, w->n > AX_DENSE_MAX ? 0 : k)) {   /* a large one: ms each */
            a->late = 1;
            return INFINITY;
        }
        if (!ax_represented(a, w))
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
    ch = fmax(ch, ax_lat_update(a));
    return fmax(ch, ax_pairs_update(a));
}


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
        ax_fen_add(a->fen_send, a->nedges, e, a->rho_send[e]);
        ax_fen_add(a->fen_recv, a->nedges, e, a->rho_recv[e]);
    }
}

/* A fixed point converging slowly along one direction (a farm's: the
 * delays drift by 0.02% a sweep, the same way, for hundreds of sweeps):
 * from three snapshots two sweeps apart (the same sweep direction), when
 * the steps d1, d2 are parallel (cosine above 0.99) and shrink by a steady
 * ratio r, jump to the limit of the geometric series, x + d2 r / (1 - r)
 * (Aitken's delta-squared, vector form). Returns 1 if it jumped. */
int ax_extrapolate(skel_approx *a)
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

/* No pipelined execution is slower than one item at a time through every
 * task and every move, a buffered one's hand-off and take included (one
 * item never shares a node, so this holds under processor sharing too), so below 1 / (sum of all mean times) the fixed
 * point erred. A little below (the mean-value sharing of a node by three
 * or more tasks: measured -1.7%) the bound is the better answer and is
 * given; far below (deals wider than a window: each waits for the next in
 * a cycle the round robin never makes, down to 1e-17) say so rather than
 * answer. */
double ax_one_at_a_time(const skel_approx *a)
{
    double t = 0;
    for (int i = 0; i < a->ntasks; i++) {   /* a loop computes mean times (d->visits) */
        double v = a->d->visits && a->d->visits[i] > 1 ? a->d->visits[i] : 1;
        t += v / a->mu[i];
    }
    for (int e = 0; e < a->nedges; e++)
        t += 1 / a->lambda[e] + (a->links.want_buffer[e] > 0 ? 2 / a->handoff : 0);
    return t;
}

/* The sweep's estimate of the job's throughput has fallen below half the
 * one-item-at-a-time bound: the fixed point is collapsing (a deal wider
 * than its windows), and it would go on for all its sweeps, each solving
 * sub-chains of thousands of states, before sanity refused it. */
int ax_collapsing(const skel_approx *a, double t)
{
    double x = 0;
    for (int i = 0; i < a->ntasks; i++)
        x += a->entry[i] && a->xcnt[i] ? a->xsum[i] / a->xcnt[i] : 0;
    return x < 0.5 / t;
}
