/* skeleton/approx_machine.c: the approximation's local state machines:
 * each task's rounds, phases and moves (as gen.c generates them), and the
 * questions asked of them (readiness, choices, partner). Private header
 * approx_int.h; the method is in docs/approximation.md. */
#include "approx_int.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"

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

/* Flow f of task i has par/choice/loop steps: alternatives or groups, or
 * a member that is i itself (compute again) or none (consumed). */
static int flow_steps(const skel_flow *f, int i)
{
    for (int j = 0; j < (f->nsteps ? f->start[f->nsteps] : 0); j++)
        if (f->tasks[j] == i || f->tasks[j] == SKEL_NONE)
            return 1;
    return f->alt != NULL;
}

int ax_ltr_into(skel_approx *a, int *cap, int i, ax_ltr t, int comp0, diag *err)
{
    return add_into(a, cap, i, t, comp0, err);
}

/* Task i's rounds (gen.c): [R_k] -> C_k (its phases) -> [S_k] -> round k+1. */
static int task_machine(skel_approx *a, int *cap, int i, diag *err)
{
    const skel_flow *S = &a->d->src[i], *D = &a->d->dst[i];
    long ns = S->nsteps, nd = D->nsteps;
    long l = (ns ? ns : 1) / gcd_l(ns ? ns : 1, nd ? nd : 1) * (nd ? nd : 1);
    int K = work_phases(a, i), per = K + (ns > 0) + (nd > 0);
    if (flow_steps(S, i) || flow_steps(D, i)) {   /* par/choice/loop: approx_flowm.c */
        a->deal |= l > 1;
        a->rounds |= l > 1;
        return ax_flow_machine(a, cap, i, l, err);
    }
    if (l * per > 4096)
        return diag_set(err, "approximation: task t%d has %ld local states (at most 4096)", i,
                        l * per);
    a->nloc[i] = (int)(l * per);
    a->deal |= l > 1;
    a->rounds |= l > 1;
    a->loff[i] = a->nbusy;
    a->nbusy += a->nloc[i];
    if (mem_grow((void **)&a->busy, (size_t)a->nbusy, sizeof *a->busy) < 0 ||
        mem_grow((void **)&a->rx, (size_t)a->nbusy, sizeof *a->rx) < 0)
        return ax_oom(err);
    memset(a->busy + a->loff[i], 0, (size_t)a->nloc[i]);
    for (int x = 0; x < a->nloc[i]; x++)          /* round k's first state waits for item k */
        a->rx[a->loff[i] + x] = x / per + (x % per > 0);
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

int ax_build_machines(skel_approx *a, diag *err)
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


int ax_partner(const skel_approx *a, const ax_ltr *t)
{
    skel_edge e = a->d->edges[t->edge];
    return t->send ? e.to : e.from;
}

/* Is task x in local state l ready for edge e on its side? (In one
 * local state only, as use_s / use_r say, without a scan of x's moves: a
 * farm's producer has thousands.) */
int ax_is_ready(const skel_approx *a, int x, int l, int e, int send)
{
    int u = send ? a->use_s[e] : a->use_r[e];
    if (u != -2)
        return u == l;
    for (int k = a->lstart[x]; k < a->lstart[x + 1]; k++)
        if (a->ltr[k].from == l && a->ltr[k].edge == e && a->ltr[k].send == send)
            return 1;
    return 0;
}

/* Moves (distinct edges) and computations x may make from state l: an
 * H2 branch fork (two transitions pushed one after the other) is one
 * choice. */
int ax_nchoices(const skel_approx *a, int x, int l)
{
    return a->nch[a->loff[x] + l];
}


/* Per edge and side, the local state in which its task moves on it (-1:
 * none, -2: several, as a task of several rounds may). */
void ax_edge_uses(skel_approx *a)
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


void ax_mark_entries(skel_approx *a)
{
    for (int i = 0; i < a->ntasks; i++)
        a->entry[i] = a->d->style == SKEL_STYLE_PRODUCER && a->d->src[i].nsteps == 0;
    for (int e = 0; e < a->nedges; e++)
        if (a->d->edges[e].from == SKEL_IN && a->d->edges[e].to >= 0)
            a->entry[a->d->edges[e].to] = 1;
}
