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
#include "approx_int.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"

int ax_oom(diag *err)
{
    return diag_set(err, "out of memory");
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
    a->shr = malloc(ax_shr_size());
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
        !a->gamma_send || !a->gamma_recv || !a->rate || !a->shr || !a->prev || !a->dense ||
        !a->marg || !a->xsum || !a->bsum || !a->xcnt || !a->util || !a->thr || !a->bynode || !a->pairs || !a->fen_send || !a->fen_recv || !a->grp0 ||
        !a->grpn || !a->pbusy)
        return ax_oom(err);
    return 0;
}

/* The whole model may be tried as one window of at most cut_whole_states
 * reachable states (the exact chain, at its cost): not already so, not
 * under a deadline (the search and the plugin have their own answers and
 * cannot wait for a chain), within one window's tasks, not refused by the
 * caller (cut_whole_states 1: the decomposition alone). */
static int whole_allowed(const skel_approx *a)
{
    return !a->whole && a->o.deadline <= 0 && a->ntasks <= AX_WMAX &&
           a->o.cut_whole_states != 1;
}

/* A deal the windows cut whatever their size (a deal of deals: model4.des,
 * an xdeal of sub-pipelines dealing to a deal; approx_group.c cut_deal)
 * keeps the cyclic error of docs/approximation.md (bench_approx:
 * task, deal(3), deal(2), task -14%, nested-44 -24.6%, model4.des refused).
 * The whole model is then tried as one window first, before any window
 * is built. */
static int whole_first(const skel_approx *a)
{
    return a->cut && whole_allowed(a);
}


/* The reachable states up to which the whole model is tried as one window
 * before any window is built (0: not tried). A deal the windows cut, or a
 * par: up to cut_whole_states (above). Any other deal: up to AX_DEAL_WHOLE,
 * as a small model without a deal is one window (whole_states): a deal's
 * windows hold its round robin whole, but the windows of a pipeline of
 * deals see the deals they do not hold as independent delays (model1.des,
 * task, deal(3), task, deal(2), task, 7,560 states, on a platform of
 * bench_approx part (a): +5.0% with its windows, exact so). Not when the
 * caller sizes the windows (deal_states: the search; whole_states 1: no
 * model whole, bench_approx's "before"). */
static unsigned long whole_first_max(const skel_approx *a, const skel_dag *d)
{
    if (!whole_allowed(a))
        return 0;
    if (whole_first(a) || ax_has_fork(d))
        return a->o.cut_whole_states;
    if (skel_dag_has_rounds(d) && !a->given_deal && a->given_whole != 1) {   /* the caller's windows */
        unsigned long cap = a->o.max_states < AX_DEAL_WHOLE ? a->o.max_states : AX_DEAL_WHOLE;
        return a->o.cut_whole_states < cap ? a->o.cut_whole_states : cap;   /* a sub-chain */
    }
    return 0;
}

/* The caller's zeros replaced by the defaults; every state budget at most
 * INT_MAX (the windows count their states in ints). */
static void opts_defaults(skel_approx_opts *o)
{
    o->max_iter = o->max_iter > 0 ? o->max_iter : 200;
    o->tol = o->tol > 0 ? o->tol : 1e-6;
    o->max_states = o->max_states ? o->max_states : 16384;
    o->window_states = o->window_states ? o->window_states : AX_DENSE_MAX;
    /* a caller capping deal windows (the search) keeps pairs elsewhere too */
    int own_grow = o->grow_states || o->deal_states;
    o->grow_states = o->grow_states ? o->grow_states : o->deal_states ? 1 : AX_GROW;
    /* a caller choosing the windows' size (the search) gets no siblings unasked */
    if (!o->sibling_states)
        o->sibling_states = own_grow ? o->grow_states : AX_SIB;
    o->deal_states = o->deal_states ? o->deal_states : 2500;
    o->whole_states = o->whole_states ? o->whole_states : AX_SIB;
    o->cut_whole_states = o->cut_whole_states ? o->cut_whole_states : AX_WHOLE;
    o->layer_states = o->layer_states ? o->layer_states : AX_LAYER;
    o->count_tasks = o->count_tasks > 0 ? o->count_tasks : AX_COUNT_TASKS;
    unsigned long *cap[] = { &o->max_states, &o->window_states, &o->grow_states,
                             &o->sibling_states, &o->deal_states, &o->whole_states,
                             &o->cut_whole_states, &o->layer_states };
    for (size_t k = 0; k < sizeof cap / sizeof *cap; k++)
        if (*cap[k] > INT_MAX)
            *cap[k] = INT_MAX;
}

/* The empty approximation of d both builders start from: the caller's
 * options copied as given (each builder fills its own defaults). */
skel_approx *ax_alloc(const skel_dag *d, const skel_approx_opts *opts, diag *err)
{
    skel_approx *a = calloc(1, sizeof *a);
    if (!a)
        return ax_oom(err), NULL;
    a->d = d;
    a->ntasks = d->ntasks;
    a->nedges = d->nedges;
    if (opts)
        a->o = *opts;
    /* every builder's, the estimate's too: a relink that falls back to
     * the estimate would otherwise sample hand-offs of mean 1/0 */
    a->handoff = opts && opts->handoff > 0 ? opts->handoff : 1.0;
    return a;
}

static skel_approx *approx_new(const skel_dag *d, const skel_approx_opts *opts,
                               unsigned long whole, unsigned long known_big, diag *err);

/* The budgets as given (a rebuild passes them on), then the defaults;
 * whole: one window of every task within this many reachable states (0:
 * the windows), which then bounds every window and deal. */
static void set_budgets(skel_approx *a, unsigned long whole)
{
    a->fresh = 1;
    a->given_max = a->o.max_states;
    a->given_deal = a->o.deal_states;
    a->given_whole = a->o.whole_states;
    opts_defaults(&a->o);
    a->whole = whole != 0;
    a->whole_max = whole;
    if (whole)          /* no deal counted or its links simplified: all exact */
        a->o.max_states = a->o.deal_states = whole;
}

/* The whole model as one window, built before the windowed workspace (not
 * built for nothing) where whole_first_max allows: NULL when not tried or
 * it does not fit. Not within known_big states, which a rebuild for new
 * link kinds just found too few (relink): the same exploration again
 * would fail again. */
static skel_approx *whole_window_first(skel_approx *a, const skel_approx_opts *opts,
                                       unsigned long known_big)
{
    unsigned long first = whole_first_max(a, a->d);
    if (!first || first <= known_big)
        return NULL;
    diag werr = { 0 };
    skel_approx *b = approx_new(a->d, opts, first, 0, &werr);
    a->whole_builds++;
    if (b)
        b->whole_builds = a->whole_builds;
    return b;
}

/* The per-task and per-edge arrays, and the caller's SCVs and handoff. */
static int alloc_tasks(skel_approx *a, const skel_approx_opts *opts, diag *err)
{
    size_t nt = (size_t)a->ntasks + 1, ne = (size_t)a->nedges + 1;
    a->lstart = malloc(nt * sizeof *a->lstart);
    a->nloc = malloc(nt * sizeof *a->nloc);
    a->loff = malloc(nt * sizeof *a->loff);
    a->entry = malloc(nt * sizeof *a->entry);
    a->scv = malloc(nt * sizeof *a->scv);
    a->as_bit = calloc(ne, 1);
    a->srep = malloc(nt * sizeof *a->srep);
    a->use_s = malloc(ne * sizeof *a->use_s);
    a->use_r = malloc(ne * sizeof *a->use_r);
    if (!a->lstart || !a->nloc || !a->loff || !a->entry || !a->scv || !a->as_bit || !a->srep ||
        !a->use_s || !a->use_r)
        return ax_oom(err);
    for (int i = 0; i < a->ntasks; i++)
        a->scv[i] = opts && opts->scv ? opts->scv[i] : 1;
    return 0;
}

/* The windowed workspace: the links' components, the machines, the
 * counted deals, the classes, the windows and the evaluation's arrays. */
static int build_workspace(skel_approx *a, const skel_approx_opts *opts, diag *err)
{
    ax_mark_entries(a);
    if (ax_links_build(&a->links, a->d, opts ? opts->link_scv : NULL,
                       opts ? opts->buffer : NULL, (long)a->o.max_states, err) < 0 ||
        ax_build_machines(a, err) < 0 || ax_lat_index(a, err) < 0)
        return -1;
    ax_edge_uses(a);
    if (ax_groups_find(a, err) < 0)   /* may simplify a deal's links: before the classes */
        return -1;
    ax_par_blocks(a);
    ax_struct_classes(a);
    a->fes_past = 0;
    int fes = a->whole || a->o.no_fes ? 0 : ax_fes_build(a, ax_par_cap(a), err);
    if (fes < 0)
        return -1;
    diag_clear(err);          /* a block of another shape: the windows */
    return (!fes && ax_build_windows(a, err) < 0) || alloc_eval(a, err) < 0 ||
                   ax_est_alloc(a, err) < 0
               ? -1
               : 0;
}

/* skel_approx_new; whole: one window of every task (the fallback of
 * skel_approx_eval, or tried first), of at most this many reachable
 * states (0: the windows); known_big: see whole_window_first (0: none). */
static skel_approx *approx_new(const skel_dag *d, const skel_approx_opts *opts,
                               unsigned long whole, unsigned long known_big, diag *err)
{
    if (d->serial)
        return ax_flow_new(d, opts, err);
    if (d->ngates)   /* a dag without its tree's reduction */
        return diag_set(err, "approximation: a loop over several stages without its serial "
                             "reduction (skel_dag.serial) is not covered"), NULL;
    if (opts && opts->estimate)
        return ax_est_new(d, opts, err);
    skel_approx *a = ax_alloc(d, opts, err), *b = NULL;
    if (!a)
        return NULL;
    set_budgets(a, whole);
    if (ax_cut_find(a, err) < 0)
        goto done;
    if ((b = whole_window_first(a, opts, known_big)))
        goto done;      /* a, not built, gives way to b */
    if (alloc_tasks(a, opts, err) == 0 && build_workspace(a, opts, err) == 0)
        return a;
    /* no window holds a move's round robins: the estimate, but not under a
     * deadline (the search and the plugin rank by their own cycle bound,
     * as before the estimate: an estimate workspace made map 3x slower) */
    if (a->short_cut && !(opts && opts->deadline > 0)) {
        diag_clear(err);
        b = ax_est_new(d, opts, err);
    }
done:
    skel_approx_free(a);
    return b;
}

skel_approx *skel_approx_new(const skel_dag *d, const skel_approx_opts *opts, diag *err)
{
    return approx_new(d, opts, 0, 0, err);
}

/* What alloc_tasks allocated: the per-task and per-edge arrays. */
static void free_tasks(skel_approx *a)
{
    free(a->lstart);
    free(a->nloc);
    free(a->loff);
    free(a->entry);
    free(a->scv);
    free(a->as_bit);
    free(a->srep);
    free(a->use_s);
    free(a->use_r);
}

/* The local machines (approx_machine.c) and processor sharing's tables
 * (approx_share.c). */
static void free_machines(skel_approx *a)
{
    free(a->busy);
    free(a->rx);
    free(a->nch);
    free(a->ltr);
    free(a->pkey);
    free(a->pcond);
    free(a->nodeq);
    free(a->noder);
    free(a->pjs);
    free(a->pxs);
    free(a->lph);
    free(a->pph);
    free(a->pphs);
}

/* The counted deals (approx_group.c). */
static void free_groups(skel_approx *a)
{
    free(a->grp);
    free(a->mcap);
    free(a->gmem);
    free(a->dblk);
    free(a->gmk);
    free(a->egrp);
    free(a->ekm);
    free(a->edir);
    free(a->cnt0);
    free(a->cnt);
}

/* The windows and their chains (approx_window.c, approx_chain.c). */
static void free_windows(skel_approx *a)
{
    free(a->leave);
    free(a->wlink);
    free(a->wtask);
    free(a->win);
    free(a->ctr);
    free(a->pi);
    free(a->bit);
    free(a->code);
}

/* What alloc_eval allocated for the fixed point: its delays and sums. */
static void free_eval(skel_approx *a)
{
    free(a->rho_send);
    free(a->rho_recv);
    free(a->alpha_send);
    free(a->alpha_recv);
    free(a->gamma_send);
    free(a->gamma_recv);
    free(a->rate);
    free(a->shr);
    free(a->prev);
    free(a->dense);
    free(a->marg);
    free(a->xsum);
    free(a->bsum);
    free(a->xcnt);
    free(a->util);
    free(a->thr);
}

/* The rest of alloc_eval's: the tasks by node (Sharing=ps), the rate
 * classes, the delays' Fenwick trees and their history. */
static void free_eval_groups(skel_approx *a)
{
    free(a->bynode);
    free(a->fen_send);
    free(a->fen_recv);
    free(a->pairs);
    free(a->grp0);
    free(a->grpn);
    free(a->pbusy);
    free(a->rep);
    free(a->erep);
    free(a->ehead);
    free(a->enext);
    free(a->rr);
    free(a->nrr);
    free(a->hist);
}

/* The estimate of last resort's (approx_est.c). */
static void free_est(skel_approx *a)
{
    free(a->est_free);
    free(a->est_slow);
    free(a->est_cnt);
    free(a->est_z);
    free(a->est_w);
    free(a->est_prev);
    free(a->est_pilot);
    free(a->est_pdt);
    free(a->est_iv);
    free(a->est_ivoff);
    free(a->est_ivn);
    free(a->est_ev);
    free(a->est_roff);
    free(a->est_ring);
    free(a->est_ecnt);
    free(a->est_scv);
}

void skel_approx_free(skel_approx *a)
{
    if (!a)
        return;
    ax_flow_free(a->flow);
    ax_fes_free(a->fes);
    ax_links_free(&a->links);
    free_tasks(a);
    free_machines(a);
    free_groups(a);
    free_windows(a);
    free_eval(a);
    free_eval_groups(a);
    free_est(a);
    ax_lat_free(a);
    free(a);
}

void skel_approx_set_deadline(skel_approx *a, double deadline)
{
    a->o.deadline = deadline;
    if (a->flow)
        ax_flow_deadline(a->flow, deadline);
}

const double *skel_approx_task_util(const skel_approx *a)
{
    return a->util;
}

const double *skel_approx_task_throughput(const skel_approx *a)
{
    return a->thr;
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

static int sanity(skel_approx *a, skel_approx_result *r, diag *err)
{
    double t = ax_one_at_a_time(a);
    if (isfinite(r->throughput) && r->throughput >= (1 - 1e-6) / t)
        return 0;
    if (isfinite(r->throughput) && r->throughput >= 0.9 / t) {
        r->throughput = 1 / t;
        r->at_bound = 1;
        return 0;
    }
    a->refused = 1;
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

/* Every delay at its move's rate, every window uniform, its rates unset
 * (never equal: the first sweep solves every window). */
static void cold_start(skel_approx *a, const double *lambda)
{
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
        ax_fen_add(a->fen_send, a->nedges, e, a->rho_send[e]);
        ax_fen_add(a->fen_recv, a->nedges, e, a->rho_recv[e]);
    }
    for (int w = 0; w < a->nwin; w++)
        for (int s = 0; s < a->win[w].n; s++)
            a->pi[a->win[w].p0 + (size_t)s] = 1.0 / a->win[w].n;
    ax_count_start(a);
    ax_lat_start(a);
    a->fresh = 0;
}

/* The workspace rebuilt with other link kinds (per edge; relink), or as
 * one window of the whole model (whole; known_big: see whole_window_first).
 * The rates and warm start go. */
static int rebuild(skel_approx *a, const double *scv, const int *buffer, unsigned long whole,
                   unsigned long known_big, diag *err)
{
    skel_approx_opts o = a->o;
    o.max_states = a->given_max;      /* not a whole window's */
    o.deal_states = a->given_deal;
    o.whole_states = a->given_whole;
    o.scv = a->scv;
    o.link_scv = scv;
    o.buffer = buffer;
    o.handoff = a->handoff;
    skel_approx *b = approx_new(a->d, &o, whole, known_big, err);
    unsigned long builds = a->whole_builds + (whole ? 1 : 0);   /* through the swap */
    if (!b) {
        a->whole_builds = builds;
        return -1;
    }
    skel_approx tmp = *a;
    *a = *b;
    *b = tmp;
    a->whole_builds += builds;
    a->ghost_node = tmp.ghost_node;   /* the caller's sharers (approx_flow.c) */
    a->ghost_p = tmp.ghost_p;
    a->ghost_of = tmp.ghost_of;
    a->ghost_ov = tmp.ghost_ov;
    a->ghost_nph = tmp.ghost_nph;
    a->ghost_par = tmp.ghost_par;
    a->nghost = tmp.nghost;
    ax_est_keep_links(a, b);          /* the links the caller placed, for the estimate */
    skel_approx_free(b);
    return 0;
}

/* The answer is the model's exact chain: built as one window of every
 * task, or (a skeleton without a deal: no counted deal, no simplified
 * link) every window grew to hold every task (a small model within
 * whole_states). */
static int answered_whole(const skel_approx *a)
{
    if (a->whole)
        return 1;
    if (a->ngrp > 0 || skel_dag_has_rounds(a->d) || a->nwin < 1)
        return 0;
    for (int w = 0; w < a->nwin; w++)
        if (a->win[w].built && a->win[w].nt < a->ntasks)
            return 0;
    return 1;
}

/* The sweeps from the current delays to the fixed point (or the sweeps'
 * cap, the deadline, a collapse), then the results. */
static int fixed_point(skel_approx *a, skel_approx_result *r, diag *err)
{
    memset(r, 0, sizeof *r);
    a->late = 0;
    a->nhist = 0;
    a->solve_work = 0;
    double bound = ax_one_at_a_time(a);
    do {
        r->change = ax_sweep(a, r->iterations & 1);
        r->iterations++;
        if (r->iterations % 2 == 0 && r->change < 1e-2 && r->change > a->o.tol && !a->late &&
            ax_extrapolate(a))
            r->change = INFINITY;         /* not converged on a jump */
    } while (r->change > a->o.tol && r->iterations < a->o.max_iter && !a->late &&
             !(r->iterations >= 10 && ax_collapsing(a, bound)));
    r->work = (double)r->iterations * a->nctr + a->solve_work;
    if (a->late) {
        a->fresh = 1;          /* a sweep cut in the middle: start the next one afresh */
        return diag_set(err, "approximation: out of time after %d sweeps", r->iterations);
    }
    r->converged = r->change <= a->o.tol;
    r->whole = answered_whole(a);
    finish(a, r);
    return sanity(a, r, err);
}

/* Evaluate, the workspace's windows as they are. */
static int eval_windows(skel_approx *a, const double *mu, const double *lambda,
                        const int *ps_node, skel_approx_result *r, diag *err)
{
    a->refused = 0;
    if (check_rates(a, mu, lambda, err) < 0)
        return -1;
    if (a->est)
        return ax_est_eval(a, mu, lambda, ps_node, r, err);
    if (a->fes)
        return ax_fes_eval(a, mu, lambda, ps_node, r, err);
    a->mu = mu;
    a->lambda = lambda;
    a->node = ps_node;
    if (ps_node)
        group_by_node(a);
    ax_rate_classes(a);
    if (ax_build_needed(a, err) < 0)
        return -1;
    if (ax_lat_mark(a, err) < 0)      /* the windows built so far: which lattices they cut */
        return -1;
    if (a->fresh || a->o.cold)
        cold_start(a, lambda);
    if (ax_build_pairs(a, err) < 0)
        return -1;
    return fixed_point(a, r, err);
}

/* A deal whose windows lose its round robin's order (cut by a caller's
 * small deal_states, or in a way cut_deal does not foresee) makes the
 * fixed point sink below the one-item-at-a-time bound or wander without
 * converging (docs/approximation.md). Then, without a deadline (not in
 * the search or the plugin, which have their own answers), the whole
 * model is one window when it has at most AX_WHOLE states reachable from
 * the start: the exact chain, at its cost (a deal cut_deal found had it
 * tried at skel_approx_new already). */
static int whole_fallback(skel_approx *a, int rc, const skel_approx_result *r)
{
    return a->deal && !a->cut && whole_allowed(a) && (rc < 0 ? !a->late : !r->converged);
}

/* A deal of deals' windows (approx_layer.c), grown within layer_states
 * (65,536) reachable states, whose fixed point sinks below the bound or
 * does not converge are grown again within AX_LAYER_LOW (16,384): larger
 * windows hold more of the round robins (bench_approx dd, 30 random deals
 * of deals: p95 28.6% -> 3.5%), but can hold a deal's members and their
 * destinations without the tasks those send to, where the cut order makes
 * the fixed point collapse (model4.des: refused within 65,536, 0.16% off
 * within 16,384). The workspace keeps the smaller windows. */
static int layer_fallback(const skel_approx *a, int rc, const skel_approx_result *r)
{
    return a->cut && !a->whole && a->o.layer_states > AX_LAYER_LOW &&
           (rc < 0 ? !a->late : !r->converged);
}

static int retry_layers(skel_approx *a, const double *mu, const double *lambda,
                        const int *ps_node, skel_approx_result *r, int rc, diag *err)
{
    unsigned long was = a->o.layer_states;
    diag first = { 0 }, werr = { 0 };
    if (rc < 0 && err) {
        first = *err;
        diag_clear(err);              /* diag_set keeps the first message: make room */
    }
    a->o.layer_states = AX_LAYER_LOW;
    a->o.cut_whole_states = 1;        /* the whole model failed already: not again */
    if (rebuild(a, a->links.want_scv, a->links.want_buffer, a->whole_max, 0, &werr) < 0) {
        a->o.layer_states = was;
        if (rc < 0)
            diag_set(err, "%s; within %d states: %s", first.msg, AX_LAYER_LOW, werr.msg);
        return rc;
    }
    return eval_windows(a, mu, lambda, ps_node, r, err);
}

/* The whole model as one window, after the windows' fixed point failed
 * (whole_fallback); rc and r are the windows' answer. */
static int whole_retry(skel_approx *a, const double *mu, const double *lambda,
                       const int *ps_node, skel_approx_result *r, int rc, diag *err)
{
    diag werr = { 0 }, first = { 0 };
    if (rc < 0 && err) {
        first = *err;
        diag_clear(err);
    }
    if (rebuild(a, a->links.want_scv, a->links.want_buffer, a->o.cut_whole_states, 0, &werr) < 0) {
        if (rc < 0)
            diag_set(err, "%s; as one sub-chain: %s", first.msg, werr.msg);
        return rc;
    }
    return eval_windows(a, mu, lambda, ps_node, r, err);
}

/* A deal whose windows refused (below the one-item-at-a-time bound) or, a
 * deal of deals, did not converge (those of the random deals of deals
 * that ended so were 3.5-52% off, bench_approx dd) after every fallback:
 * answered by the estimate of last resort (approx_est.c), the method line
 * says so. Not past a deadline (the search and the plugin rank by their
 * own bound), nor for bad rates or any other error (out of memory, out
 * of time: only the refusal, a->refused, or no convergence). */
static int last_resort(skel_approx *a, const double *mu, const double *lambda,
                       const int *ps_node, skel_approx_result *r, int rc, diag *err)
{
    int unconverged = rc == 0 && a->cut && !a->whole && !r->converged;
    if ((rc == 0 && !unconverged) || (rc < 0 && !a->refused) || !a->deal || a->late ||
        a->o.deadline > 0)
        return rc;
    if (check_rates(a, mu, lambda, err) < 0)
        return -1;
    diag_clear(err);
    return ax_est_eval(a, mu, lambda, ps_node, r, err);
}

int skel_approx_eval(skel_approx *a, const double *mu, const double *lambda,
                     const int *ps_node, skel_approx_result *r, diag *err)
{
    if (a->flow)   /* the original rates checked, before the reduction divides them */
        return check_rates(a, mu, lambda, err) < 0 ? -1
                                                    : ax_flow_eval(a, mu, lambda, ps_node, r, err);
    int rc = eval_windows(a, mu, lambda, ps_node, r, err);
    if (layer_fallback(a, rc, r))
        rc = retry_layers(a, mu, lambda, ps_node, r, rc, err);
    if (whole_fallback(a, rc, r))
        rc = whole_retry(a, mu, lambda, ps_node, r, rc, err);
    rc = last_resort(a, mu, lambda, ps_node, r, rc, err);
    r->whole_explored = a->whole_builds;
    r->fes_past = r->whole || r->estimate ? 0 : a->fes_past;
    return rc;
}

/* The workspace rebuilt for other link kinds (per edge): a link's
 * component changes the windows' states. A whole model that no longer
 * fits its bound with them (a buffer multiplies its states) is built
 * anew: the windows, with no whole window within the bound it just
 * passed (the same exploration, up to AX_DEAL_WHOLE or AX_WHOLE states,
 * would fail again; a larger bound whole_first_max allows is tried). */
static int relink(skel_approx *a, const double *scv, const int *buffer, diag *err)
{
    diag werr = { 0 };
    if (rebuild(a, scv, buffer, a->whole_max, 0, &werr) == 0)
        return 0;
    if (!a->whole)
        return diag_set(err, "%s", werr.msg);
    return rebuild(a, scv, buffer, 0, a->whole_max, err);
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
    /* a flow's links are those of its reduced workspace (approx_flow.c) */
    int linked = a->flow  ? ax_flow_links(a, scv, buffer, err) == 0
                 : a->est ? 1
                          : ax_links_same(&a->links, scv, buffer) || relink(a, scv, buffer, err) == 0;
    /* after relink, whose rebuild swaps the workspace */
    linked = linked && ax_est_links(a, scv, buffer, err) == 0;
    if (linked &&
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
