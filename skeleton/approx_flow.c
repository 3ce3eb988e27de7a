/* skeleton/approx_flow.c: the approximation of skeletons with a loop over
 * several stages (docs/approximation.md "Par, choice and loop"; pars,
 * choices and loops over one stage are the windows', approx_flowm.c).
 *
 * The workspace of such a skeleton holds another one, built on the dag's
 * serial reduction (dag_serial.c: every such loop its body, run once),
 * which the windows cover. An evaluation divides each task's compute rate
 * by its visits per item (the loops' means) and each move's rate by the
 * visits of the move it stands for, evaluates the reduced graph, and
 * multiplies the tasks' computations back by their visits: the items
 * through the skeleton are the reduced graph's. The gate's cap is kept as
 * a bound only (gate_bound), but for a loop whose gate admits one item
 * over a pipe of tasks, choices, pars, farms of tasks and such loops: that
 * body is one server, one task of the reduced graph looping over itself, each
 * computation one pass through the body (its computations and moves one
 * after the other, a choice's branches mixed, a par's longest,
 * approx_pass.c), of Erlang or H2 phases fitted to the pass's first two
 * moments (the workspace is built again when the fit's phases change). */
#include "approx_int.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AX_FLOW_PASSES 50     /* evaluations for a one-server body's sharing (ps) */
#define AX_FLOW_DAMP 8        /* ... after which its stretches move half way (measured:
                                 12 of 4,541 evaluations of bench_approx's f-loop
                                 cases oscillated for 50 without) */
#define AX_FLOW_H2_TOL 0.05   /* an H2 pass's fit kept within this relative change
                                 of its scv (refit: the workspace was built again on
                                 every change, 1,851 times in those 4,541) */

struct ax_flow {
    skel_approx *inner;       /* on d->serial */
    int nr;                   /* tasks of d->serial */
    int *rlo, *rhi;           /* per reduced task: the original tasks [rlo, rhi) it
                                 stands for (several: a one-server loop's body) */
    int *emap;                /* per reduced edge: the original edge whose rate it takes */
    double *ediv;             /* per reduced edge: that move's visits per item */
    int *omap;                /* per original edge: the reduced edge it is part of
                                 (-1: none, a move inside one task or lost) */
    int *nmap;                /* per reduced edge: the original edges it is (several:
                                 into a one-server body a choice begins, one per
                                 branch) */
    double *esum;             /* per reduced edge: their time per item (one evaluation) */
    double *qin, *qout;       /* per original task of a one-server body: the share of
                                 the body's entries starting at it, of its exits
                                 leaving from it (a choice first: its branches'); 1
                                 else */
    double *odiv;             /* per original edge: the move's visits per item */
    double *extra;            /* per reduced task: its moves' time per item the
                                 reduction lost (one evaluation) */
    double *mu, *lambda;      /* the reduced rates of one evaluation */
    double *link_scv;         /* per reduced edge: opts.link_scv of its original edge */
    int *buffer;              /* per reduced edge: opts.buffer of its original edge */
    unsigned char *ein;       /* per reduced edge: into a one-server loop's task over a
                                 link that holds items (made a hand-off, body_pass) */
    double *olscv;            /* per original edge: its link scv, */
    int *obuf;                /* and buffer (the rebuild's) */
    double *tscv;             /* per original task: its work's scv */
    double *rscv;             /* per reduced task: the scv it was built with (a pass's
                                 fit for a one-server loop) */
    double *want;             /* per reduced task: the scv this evaluation fits */
    int *rphn;                /* per reduced task: a one-server pass's phases in a row
                                 it was built with (pass_layout; 0: rscv's fit), */
    double *rphw;             /* their rates over the pass's (AX_GPH per task), */
    int *wantn;               /* and this evaluation's */
    double *wantw;
    int *rnode;               /* per reduced task: its node (Sharing=ps) */
    double *slow;             /* per original task: its computations' stretch by its
                                 node's sharers (a one-server body's task under ps,
                                 body_slow; 1 else) */
    double *mueff;            /* per original task: mu / slow */
    double *share;            /* per original task: its share of the items
                                 (item_shares; one evaluation) */
    int *gtask;               /* ps: the ghosts (body tasks of one-server loops, each
                                 a sharer of its own node in the reduced graph's
                                 windows): per ghost its task, */
    int *gnode;               /* its node, */
    int *gown;                /* its reduced task (the owner), */
    double *gp;               /* its probability of computing given that the owner
                                 computes (a pass) */
    double *gov;              /* AX_GPH per ghost: its share of each of the owner's
                                 computing phases (ghost_layout), */
    int *gnph;                /* their number (1: none laid out), */
    int *gpar;                /* 1: its loop's body holds a par (ghost_par) */
    int ng;
    const int *onode;         /* per original task: its node (Sharing=ps; NULL:
                                 static), this evaluation's (a par's branches
                                 share theirs in a pass, approx_pass.c) */
};

static double task_visits(const skel_dag *d, int i)
{
    return i >= 0 && i < d->ntasks && d->serial_visits[i] > 0 ? d->serial_visits[i] : 1.0;
}

/* The original task a move of reduced task x leaves from (send) or
 * arrives at: a one-server body is left by its last task, entered at its
 * first. */
static int orig_end(const struct ax_flow *f, int x, int send)
{
    return x < 0 ? x : send ? f->rhi[x] - 1 : f->rlo[x];
}

/* The original edge a reduced one (x -> y) stands for: the same move, else
 * the first move into y (y's receive, whoever sent it), else the first out
 * of x. With loops alone reduced every reduced move is an original one;
 * the fallbacks keep the mapping total. */
static int edge_source(const struct ax_flow *f, const skel_dag *d, int rx, int ry)
{
    int x = orig_end(f, rx, 1), y = orig_end(f, ry, 0);
    int e = skel_dag_edge(d, x, y);
    for (int k = 0; e < 0 && k < d->nedges; k++)
        if (d->edges[k].to == y && d->edges[k].from != y)
            e = k;
    for (int k = 0; e < 0 && k < d->nedges; k++)
        if (d->edges[k].from == x && d->edges[k].to != x)
            e = k;
    return e;
}

/* Whether gate g lies inside tasks [lo, hi), smaller (a nested loop's). */
static int gate_inside(const skel_gate *g, int lo, int hi)
{
    return g->lo >= lo && g->hi <= hi && g->hi - g->lo < hi - lo;
}

/* The feedback moves per item of the move from x back to y: the
 * innermost loops holding both (each entry makes mean - 1; several loops
 * over that one range: their means multiply), their entries counted at y's
 * visits over q without the loops nested inside them that begin at y.
 * y is the body's first task, or a later branch's (a choice first in the
 * body: y's visits carry its branch's probability p, and the feedback
 * into that branch makes (mean - 1) p). -1 when no loop holds both. */
static double feedback_visits(const skel_dag *d, int y, int x, double q)
{
    int lo = -1, hi = d->ntasks + 1;
    for (int k = 0; k < d->ngates; k++) {
        const skel_gate *g = &d->gates[k];
        if (g->lo <= y && g->hi > x && g->hi - g->lo < hi - lo) {
            lo = g->lo;
            hi = g->hi;
        }
    }
    double v = task_visits(d, y) / q, m = 1;
    for (int k = 0; k < d->ngates && lo >= 0; k++) {
        const skel_gate *g = &d->gates[k];
        if (g->lo == lo && g->hi == hi)
            m *= g->mean;
        else if (gate_inside(g, lo, hi) && g->lo == y)
            v /= g->mean;
    }
    return lo >= 0 ? v - v / m : -1;
}

/* Whether original task i is in a one-server body other than reduced task
 * other's. */
static int in_server(const skel_dag *d, int i, int other)
{
    return i >= 0 && d->serial_loop[d->serial_of[i]] > 0 && d->serial_of[i] != other;
}

/* The entries per item of one-server body rx at its task i (begin) or
 * its exits from i: i's visits over its share q, without the means of
 * the loops in that body (its own included) that begin or end at i (a
 * move between two one-server loops in a row took min(m1, m2) per item,
 * review 25: -28.3% on ll.skel). */
static double body_ends(const struct ax_flow *f, const skel_dag *d, int i, int rx, double q,
                        int begin)
{
    double v = task_visits(d, i) / q;
    for (int g = 0; g < d->ngates; g++) {
        const skel_gate *k = &d->gates[g];
        if (k->lo >= f->rlo[rx] && k->hi <= f->rhi[rx] && (begin ? k->lo : k->hi - 1) == i)
            v /= k->mean;
    }
    return v;
}

/* Visits per item of original move e: the fewer of its ends' loop visits
 * (serial_visits holds loop means only; a choice's probabilities stay in
 * the reduced graph); a loop's feedback move (to an earlier task) its
 * entries' mean - 1 each (once fewer than the body's before nested loops:
 * an inner loop's feedback, entered m times per item by an outer loop of
 * mean m, took m - 1 feedback moves too many). A move into or out of a
 * one-server body counts at the body's entries or exits per item
 * (body_ends; the other end's visits if fewer), times the move's own share
 * (a choice first in the body: the body's first task's visits carry its
 * branch's probability, and each branch is entered from outside); a move
 * inside a body at its ends' visits as they are (divided by a share, 0
 * inside, they were infinite: a NaN bound on an outer gate). */
static double move_visits(const struct ax_flow *f, const skel_dag *d, int e)
{
    int x = d->edges[e].from, y = d->edges[e].to;
    int rx = x >= 0 ? d->serial_of[x] : -1, ry = y >= 0 ? d->serial_of[y] : -1;
    double px = 1, py = 1, qy = 1, va = task_visits(d, x), vb = task_visits(d, y);
    if (in_server(d, x, ry)) {   /* leaves a body: counted at its exits */
        px = f->qout[x];
        x = f->rhi[rx] - 1;
        va = body_ends(f, d, x, rx, f->qout[x] > 0 ? f->qout[x] : 1, 0);
    }
    if (in_server(d, y, rx)) {   /* enters a body: counted at its entries */
        py = f->qin[y];
        y = f->rlo[ry];
        qy = f->qin[y] > 0 ? f->qin[y] : 1;
        vb = body_ends(f, d, y, ry, qy, 1);
    }
    double v = va < vb ? va : vb;
    if (x >= 0 && y >= 0 && y < x) {
        double fb = feedback_visits(d, y, x, qy);
        v = fb >= 0 ? fb : v > 1 ? v - 1 : 0;
    }
    return v * px * py;
}

/* The reduced tasks' original ranges, scv and (default) fits. */
static void map_tasks(struct ax_flow *f, const skel_dag *d, const skel_approx_opts *o,
                      const double *rscv)
{
    for (int x = 0; x < f->nr; x++) {
        f->rlo[x] = d->ntasks;
        f->rhi[x] = 0;
    }
    for (int i = 0; i < d->ntasks; i++) {
        int x = d->serial_of[i];
        f->rlo[x] = i < f->rlo[x] ? i : f->rlo[x];
        f->rhi[x] = i + 1 > f->rhi[x] ? i + 1 : f->rhi[x];
        f->tscv[i] = o && o->scv ? o->scv[i] : 1.0;
    }
    for (int x = 0; x < f->nr; x++) {
        f->rscv[x] = rscv ? rscv[x] : d->serial_loop[x] > 0 ? 1.0 : f->tscv[f->rlo[x]];
        int at = d->serial_loop[x] > 0 ? d->pass_at[f->rlo[x]] : -1;
        for (int i = f->rlo[x]; i < f->rhi[x]; i++) {
            f->qin[i] = at >= 0 ? ax_pass_end_prob(d, at, i, 0) : 1;
            f->qout[i] = at >= 0 ? ax_pass_end_prob(d, at, i, 1) : 1;
        }
    }
}

static int map_edges(struct ax_flow *f, const skel_dag *d, const skel_approx_opts *o, diag *err)
{
    const skel_dag *s = d->serial;
    for (int e = 0; e < d->nedges; e++) {
        int x = d->edges[e].from, y = d->edges[e].to;
        x = x >= 0 ? d->serial_of[x] : x;
        y = y >= 0 ? d->serial_of[y] : y;
        f->omap[e] = x != y ? skel_dag_edge(s, x, y) : -1;
        if (f->omap[e] >= 0)
            f->nmap[f->omap[e]]++;
        f->odiv[e] = move_visits(f, d, e);
        f->olscv[e] = o && o->link_scv ? o->link_scv[e] : 1.0;
        f->obuf[e] = o && o->buffer ? o->buffer[e] : 0;
    }
    for (int r = 0; r < s->nedges; r++) {
        int e = edge_source(f, d, s->edges[r].from, s->edges[r].to);
        if (e < 0)
            return diag_set(err, "internal error: no move for t%d -> t%d of the serial "
                                 "reduction", s->edges[r].from, s->edges[r].to);
        f->emap[r] = e;
        f->ediv[r] = f->odiv[e];
        f->link_scv[r] = f->olscv[e];
        f->buffer[r] = f->obuf[e];
        for (int k = 0; k < d->nedges && f->nmap[r] > 1; k++)   /* a choice's branches' */
            f->ediv[r] += f->omap[k] == r && k != e ? f->odiv[k] : 0;
        f->ein[r] = f->buffer[r] > 0 && s->edges[r].to >= 0 && d->serial_loop[s->edges[r].to] > 0;
        if (f->ein[r]) {   /* gen.c's gate counts the item in as it is handed off */
            f->buffer[r] = 0;
            f->link_scv[r] = 1;
        }
    }
    return 0;
}

static int flow_alloc(struct ax_flow *f, const skel_dag *d)
{
    size_t ne = (size_t)d->serial->nedges + 1, nt = (size_t)d->ntasks + 1;
    size_t nr = (size_t)f->nr + 1, no = (size_t)d->nedges + 1;
    f->emap = malloc(ne * sizeof *f->emap);
    f->ediv = malloc(ne * sizeof *f->ediv);
    f->esum = malloc(ne * sizeof *f->esum);
    f->nmap = calloc(ne, sizeof *f->nmap);
    f->omap = malloc(no * sizeof *f->omap);
    f->qin = malloc(nt * sizeof *f->qin);
    f->qout = malloc(nt * sizeof *f->qout);
    f->lambda = malloc(ne * sizeof *f->lambda);
    f->link_scv = malloc(ne * sizeof *f->link_scv);
    f->buffer = malloc(ne * sizeof *f->buffer);
    f->ein = malloc(ne * sizeof *f->ein);
    f->mu = malloc(nr * sizeof *f->mu);
    f->extra = malloc(nr * sizeof *f->extra);
    f->rlo = malloc(nr * sizeof *f->rlo);
    f->rhi = malloc(nr * sizeof *f->rhi);
    f->rscv = malloc(nr * sizeof *f->rscv);
    f->want = malloc(nr * sizeof *f->want);
    f->rphn = calloc(nr, sizeof *f->rphn);
    f->rphw = calloc(nr * AX_GPH, sizeof *f->rphw);
    f->wantn = calloc(nr, sizeof *f->wantn);
    f->wantw = calloc(nr * AX_GPH, sizeof *f->wantw);
    f->rnode = malloc(nr * sizeof *f->rnode);
    f->odiv = malloc(no * sizeof *f->odiv);
    f->olscv = malloc(no * sizeof *f->olscv);
    f->obuf = malloc(no * sizeof *f->obuf);
    f->tscv = malloc(nt * sizeof *f->tscv);
    f->slow = calloc(nt, sizeof *f->slow);
    f->mueff = calloc(nt, sizeof *f->mueff);
    f->share = calloc(nt, sizeof *f->share);
    f->gtask = calloc(nt, sizeof *f->gtask);
    f->gnode = calloc(nt, sizeof *f->gnode);
    f->gown = calloc(nt, sizeof *f->gown);
    f->gp = calloc(nt, sizeof *f->gp);
    f->gov = calloc(nt * AX_GPH, sizeof *f->gov);
    f->gnph = calloc(nt, sizeof *f->gnph);
    f->gpar = calloc(nt, sizeof *f->gpar);
    return f->esum && f->nmap && f->omap && f->qin && f->qout && f->rphn && f->rphw && f->wantn && f->wantw && f->gov && f->gnph && f->gpar && f->slow && f->mueff && f->share && f->gtask && f->gnode && f->gown && f->gp && f->emap &&
           f->ediv && f->lambda && f->link_scv && f->buffer && f->ein && f->mu && f->extra &&
           f->rlo && f->rhi && f->rscv && f->want && f->rnode && f->odiv && f->olscv &&
           f->obuf && f->tscv ? 0 : -1;
}

/* The reduced workspace for opts o (per original task and edge) and, per
 * reduced task, the scv to build it with (NULL: a one-server loop's pass
 * exponential until an evaluation fits it) or its phases in a row (rn,
 * rw: pass_layout's; NULL: none). */
static struct ax_flow *flow_new(const skel_dag *d, const skel_approx_opts *o,
                                const double *rscv, const int *rn, const double *rw, diag *err)
{
    struct ax_flow *f = calloc(1, sizeof *f);
    if (!f)
        return ax_oom(err), NULL;
    f->nr = d->serial->ntasks;
    if (flow_alloc(f, d) < 0) {
        ax_oom(err);
        goto fail;
    }
    map_tasks(f, d, o, rscv);
    if (rn) {
        memcpy(f->rphn, rn, (size_t)f->nr * sizeof *f->rphn);
        memcpy(f->rphw, rw, (size_t)f->nr * AX_GPH * sizeof *f->rphw);
    }
    for (int i = 0; i < d->ntasks; i++)
        f->slow[i] = 1;           /* the ghosts' gp start at 0 (calloc) */
    skel_approx_opts io = o ? *o : (skel_approx_opts){ 0 };
    io.link_scv = f->link_scv;
    io.buffer = f->buffer;
    io.scv = f->rscv;
    io.phase_n = f->rphn;
    io.phase_w = f->rphw;
    if (map_edges(f, d, o, err) < 0 || !(f->inner = skel_approx_new(d->serial, &io, err)))
        goto fail;
    return f;
fail:
    ax_flow_free(f);
    return NULL;
}

skel_approx *ax_flow_new(const skel_dag *d, const skel_approx_opts *opts, diag *err)
{
    skel_approx *a = ax_alloc(d, opts, err);
    if (!a)
        return NULL;
    a->util = calloc((size_t)a->ntasks + 1, sizeof *a->util);
    a->thr = calloc((size_t)a->ntasks + 1, sizeof *a->thr);
    if (!a->util || !a->thr) {
        ax_oom(err);
        skel_approx_free(a);
        return NULL;
    }
    if (!(a->flow = flow_new(d, opts, NULL, NULL, NULL, err))) {
        skel_approx_free(a);
        return NULL;
    }
    return a;
}

void ax_flow_free(struct ax_flow *f)
{
    if (!f)
        return;
    skel_approx_free(f->inner);
    void *v[] = { f->esum, f->nmap, f->omap, f->qin, f->qout, f->emap, f->ediv, f->mu, f->odiv, f->extra, f->lambda, f->link_scv,
                  f->buffer, f->rlo, f->rhi, f->olscv, f->obuf, f->tscv, f->rscv, f->want,
                  f->rnode, f->ein, f->slow, f->mueff, f->share, f->gtask, f->gnode, f->gown,
                  f->gp, f->gov, f->gnph, f->gpar, f->rphn, f->rphw, f->wantn, f->wantw };
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
        free(v[k]);
    free(f);
}

/* Flow a's reduced workspace built again for link kinds scv and buffer
 * (per original edge) and task scv rscv or phases rn, rw (per reduced
 * task). */
static int flow_rebuild(skel_approx *a, const double *scv, const int *buffer, const double *rscv,
                        const int *rn, const double *rw, diag *err)
{
    skel_approx_opts o = a->o;
    o.link_scv = scv;
    o.buffer = buffer;
    o.handoff = a->handoff;
    struct ax_flow *g = flow_new(a->d, &o, rscv, rn, rw, err);
    if (!g)
        return -1;
    struct ax_flow *f = a->flow;
    size_t nt = (size_t)a->d->ntasks;
    memcpy(g->slow, f->slow, nt * sizeof *g->slow);     /* this evaluation's sharing */
    memcpy(g->mueff, f->mueff, nt * sizeof *g->mueff);
    memcpy(g->gtask, f->gtask, nt * sizeof *g->gtask);
    memcpy(g->gnode, f->gnode, nt * sizeof *g->gnode);
    memcpy(g->gown, f->gown, nt * sizeof *g->gown);
    memcpy(g->gp, f->gp, nt * sizeof *g->gp);
    memcpy(g->gov, f->gov, nt * AX_GPH * sizeof *g->gov);
    memcpy(g->gnph, f->gnph, nt * sizeof *g->gnph);
    memcpy(g->gpar, f->gpar, nt * sizeof *g->gpar);
    g->ng = f->ng;
    g->onode = f->onode;
    ax_flow_free(f);
    a->flow = g;
    return 0;
}

int ax_flow_links(skel_approx *a, const double *scv, const int *buffer, diag *err)
{
    struct ax_flow *f = a->flow;
    int same = 1;
    for (int e = 0; e < a->d->nedges && same; e++)
        same = f->olscv[e] == scv[e] && f->obuf[e] == buffer[e];
    if (!same && flow_rebuild(a, scv, buffer, f->rscv, f->rphn, f->rphw, err) < 0)
        return -1;
    a->flow->inner->handoff = a->handoff;
    return 0;
}

void ax_flow_deadline(struct ax_flow *f, double deadline)
{
    skel_approx_set_deadline(f->inner, deadline);
}

/* Add the time of every move of task x (from or to it, t seconds) to the
 * per-task sums, the outside world's moves once. */
static void add_move(double *sum, int ntasks, int x, int y, double t)
{
    if (x >= 0 && x < ntasks)
        sum[x] += t;
    if (y >= 0 && y < ntasks)
        sum[y] += t;
}

/* The time an item spends inside one-server loop x's body before its
 * first computation: over an entry link that holds items, its transit and
 * take (the gate counts it in as it is handed off); mean returned,
 * variance in *v, the entry moves weighted by their visits. */
static double body_entry(const struct ax_flow *f, const skel_dag *d, int x,
                         const double *lambda, double h, double *v)
{
    double w = 0, t = 0, var = 0;
    for (int e = 0; e < d->nedges; e++) {
        int a = d->edges[e].from, b = d->edges[e].to;
        if (b < f->rlo[x] || b >= f->rhi[x] || (a >= f->rlo[x] && a < f->rhi[x]) ||
            f->obuf[e] <= 0)
            continue;
        double s = 1 / lambda[e];
        w += f->odiv[e];
        t += f->odiv[e] * (s + 1 / h);
        var += f->odiv[e] * (f->olscv[e] * s * s + 1 / (h * h));
    }
    *v = w > 0 ? var / w : 0;
    return w > 0 ? t / w : 0;
}

/* One pass of an item through one-server loop x's body (gate cap 1, a
 * pipe of tasks, choices, pars and nested one-server loops): its mean
 * (returned) and scv (*scv), from the first two moments of the whole stay
 * S, its entry (body_entry), then its time inside (approx_pass.c); a pass
 * is the geometric sum's term of the same two moments (a pass's time as
 * gen.c's chain makes it, exactly, when the feedback is instant and P of
 * the fitted phases). */
static double body_pass(const struct ax_flow *f, const skel_dag *d, int x, const double *mu,
                        const double *lambda, double h, double *scv)
{
    double m = d->serial_loop[x], vin, vs;
    ax_pass_in in = { d, mu, f->tscv, lambda, f->olscv, f->obuf, h, f->onode, f->rlo[x],
                      f->rhi[x] };
    double ein = body_entry(f, d, x, lambda, h, &vin);
    double es = ein + ax_pass_stay(&in, d->pass_at[f->rlo[x]], &vs);
    double p = es / m, c = (vin + vs - m * (m - 1) * p * p) / m / (p * p);
    *scv = c < SKEL_MIN_SCV ? SKEL_MIN_SCV : c > SKEL_MAX_SCV ? SKEL_MAX_SCV : c;
    return p;
}

/* The passes per item of one-server loop x: its first task's visits
 * without the loops nested in its body around that task. */
static double server_passes(const struct ax_flow *f, const skel_dag *d, int x)
{
    int lo = f->rlo[x], hi = f->rhi[x];
    double v = task_visits(d, lo) / f->qin[lo];   /* a choice first: its branch's share */
    for (int g = 0; g < d->ngates; g++)
        if (d->gates[g].lo == lo && gate_inside(&d->gates[g], lo, hi))
            v /= d->gates[g].mean;
    return v;
}

/* The fit's scv for a pass of scv c: Erlang-k's 1/k below 1 (the phases
 * the machine makes of c), c itself above (H2). */
static double fit_scv(double c)
{
    return c > 1 ? c : 1.0 / skel_erlang_phases(c);
}

/* Whether body [lo, hi) holds a nested loop. */
static int nested(const skel_dag *d, int lo, int hi)
{
    for (int g = 0; g < d->ngates; g++)
        if (gate_inside(&d->gates[g], lo, hi))
            return 1;
    return 0;
}

/* Whether one-server loop x's body holds only exponential work and
 * rendezvous moves of exponential time, which a pass in phases keeps. */
static int layable(const struct ax_flow *f, const skel_dag *d, int x)
{
    for (int i = f->rlo[x]; i < f->rhi[x]; i++)
        if (f->tscv[i] != 1)
            return 0;
    for (int e = 0; e < d->nedges; e++) {
        int a = d->edges[e].from, b = d->edges[e].to;
        int in = (a >= f->rlo[x] && a < f->rhi[x]) || (b >= f->rlo[x] && b < f->rhi[x]);
        if (in && (f->olscv[e] != 1 || f->obuf[e] > 0))
            return 0;
    }
    return 1;
}

/* One-server loop x's pass laid out at mean times (mu per original task,
 * stretched): its entry's share of a pass (a pass is the stay over the
 * loop's mean), then the body and the feedback move's share as
 * approx_pass.c walks them. -1: too many segments. */
static int pass_layout(const struct ax_flow *f, const skel_dag *d, int x, const double *mu,
                       const double *lambda, double h, ax_lay *l)
{
    double v, pre = body_entry(f, d, x, lambda, h, &v) / d->serial_loop[x];
    ax_pass_in in = { d, mu, f->tscv, lambda, f->olscv, f->obuf, h, f->onode, f->rlo[x],
                      f->rhi[x] };
    return ax_pass_layout(&in, d->pass_at[f->rlo[x]], pre, l);
}

/* Under processor sharing, the pass of a one-server loop x with a nested
 * loop as its layout's phases in a row (exponential, of the segments'
 * mean lengths) rather than the fit of its two moments, so that the
 * windows know which body task or nested loop computes (approx_share.c's
 * pairs by phase): an Erlang phase of the fit spreads a nested loop's
 * stay over the pass. Only there: one-level loops keep the fit, whose
 * fewer local states leave the windows room (bench_approx part (f)'s own
 * loop cases: p95 3.74% with the fit, 4.22% with the phases; nested
 * sweeps' largest 5.1-5.3% with the fit, 3.9-4.1% with the phases;
 * docs/approximation.md). Its rates kept when within AX_FLOW_H2_TOL of
 * those built (not rebuilt). 0: not laid out. */
static int want_phases(struct ax_flow *f, const skel_dag *d, int x, const double *mu,
                       const double *lambda, double h)
{
    ax_lay l;
    f->wantn[x] = 0;
    memset(f->wantw + (size_t)x * AX_GPH, 0, AX_GPH * sizeof *f->wantw);
    if (!f->ng || !nested(d, f->rlo[x], f->rhi[x]) || !layable(f, d, x) ||
        pass_layout(f, d, x, mu, lambda, h, &l) < 0)
        return 0;
    double t = 0, t2 = 0, *w = f->wantw + (size_t)x * AX_GPH;
    const double *b = f->rphw + (size_t)x * AX_GPH;
    for (int j = 0; j < l.n; j++)
        t += l.len[j], t2 += l.len[j] * l.len[j];
    int same = f->rphn[x] == l.n;
    for (int j = 0; j < l.n; j++) {
        w[j] = t / l.len[j];
        same = same && fabs(w[j] / b[j] - 1) < AX_FLOW_H2_TOL;
    }
    f->wantn[x] = l.n;
    f->want[x] = same ? f->rscv[x] : t2 / (t * t);
    if (same)
        memcpy(w, b, AX_GPH * sizeof *w);
    return 1;
}

/* Move e's rate as a race: into a farm first in a one-server body from
 * outside, every worker idle (one item inside), the sender's offers race,
 * so each of them takes the sum of its moves' rates to the farm's workers
 * (approx_pass.c pass_farm); 0 for any other move. */
static double race_rate(const struct ax_flow *f, const skel_dag *d, int e, const double *lambda)
{
    int x = d->edges[e].from, y = d->edges[e].to, r = f->omap[e];
    if (r < 0 || y < 0 || !d->visits || d->visits[y] != 0 || f->nmap[r] < 2 ||
        !in_server(d, y, x >= 0 ? d->serial_of[x] : -1))
        return 0;
    double sum = 0;
    for (int k = 0; k < d->nedges; k++) {
        int b = d->edges[k].to;
        sum += d->edges[k].from == x && f->omap[k] == r && b >= 0 && d->visits[b] == 0
                   ? lambda[k] : 0;
    }
    return sum;
}

/* The reduced graph's rates. Its moves take the visits' share of the
 * moves they stand for, so a task's moves per item in the reduced graph
 * are not all its own (the loop's feedback move is gone): what a task's
 * own moves take per item beyond its reduced moves is added to its work,
 * so that every task keeps its time per item (its load). Measured when
 * every par and choice was reduced too: without it, choices 10.1% /
 * 49.1% (median / max) off, with it 2.8% / 7.2%. A one-server loop's
 * task computes a pass (body_pass), its internal moves inside it. */
static void reduce_rates(struct ax_flow *f, const skel_dag *d, const double *mu,
                         const double *lambda, double h)
{
    const skel_dag *s = d->serial;
    for (int x = 0; x < f->nr; x++)
        f->extra[x] = 0;
    for (int r = 0; r < s->nedges; r++)
        f->esum[r] = 0;
    for (int e = 0; e < d->nedges; e++) {
        int x = d->edges[e].from, y = d->edges[e].to;
        double race = race_rate(f, d, e, lambda), t = f->odiv[e] / (race > 0 ? race : lambda[e]);
        x = x >= 0 ? d->serial_of[x] : x;
        y = y >= 0 ? d->serial_of[y] : y;
        if (x != y || x < 0)
            add_move(f->extra, f->nr, x, y, t);
        if (f->omap[e] >= 0)
            f->esum[f->omap[e]] += t;
    }
    for (int r = 0; r < s->nedges; r++) {
        double t = f->ediv[r] / lambda[f->emap[r]];
        f->lambda[r] = (f->ein[r] ? h : lambda[f->emap[r]]) / f->ediv[r];
        if (f->nmap[r] > 1) {   /* into a choice's branches: their mixture */
            t = f->esum[r];
            f->lambda[r] = f->ein[r] ? h / f->ediv[r] : 1 / t;
        }
        add_move(f->extra, f->nr, s->edges[r].from, s->edges[r].to, -t);
    }
    for (int x = 0; x < f->nr; x++) {
        int i = f->rlo[x];
        double m = d->serial_loop[x], add = f->extra[x] > 0 ? f->extra[x] : 0;
        f->want[x] = f->rscv[x];
        if (m > 0) {
            double c, p = body_pass(f, d, x, mu, lambda, h, &c);
            f->mu[x] = 1 / (server_passes(f, d, x) / m * p + add / m);
            f->want[x] = fit_scv(c);
            if (f->want[x] > 1 && f->rscv[x] > 1 &&
                fabs(f->want[x] / f->rscv[x] - 1) < AX_FLOW_H2_TOL)
                f->want[x] = f->rscv[x];   /* H2 phases close enough: not rebuilt */
            want_phases(f, d, x, mu, lambda, h);
        } else
            f->mu[x] = 1 / (task_visits(d, i) / mu[i] + add);
    }
}

/* The items per second gate g admits at most: cap items inside its body,
 * each staying there, at the least, for the body's computations and moves
 * per item one after the other (mean times round the loop): Little's law
 * on the body. The reduction lets as many items in as the body has tasks;
 * a one-server loop's task keeps its gate (no bound: INFINITY). */
static double gate_bound(const struct ax_flow *f, const skel_dag *d, const skel_gate *g,
                         const double *mu, const double *lambda, const double *share)
{
    double t = 0;
    /* only a gate whose whole body is the one server: an outer loop whose
     * body merely starts with one keeps its bound */
    if (d->serial_loop[d->serial_of[g->lo]] > 0 && d->serial_of[g->lo] == d->serial_of[g->hi - 1])
        return INFINITY;
    for (int x = g->lo; x < g->hi; x++)
        t += share[x] * task_visits(d, x) / mu[x];
    for (int e = 0; e < d->nedges; e++) {
        int x = d->edges[e].from, y = d->edges[e].to;
        double sx = x >= 0 ? share[x] : 1, sy = y >= 0 ? share[y] : 1;
        if ((x >= g->lo && x < g->hi) || (y >= g->lo && y < g->hi))
            t += (x == y ? sx : sx * sy) * f->odiv[e] / lambda[e];
    }
    return t > 0 ? g->cap / t : INFINITY;
}

/* The members of the farm worker i belongs to: those of the step of its
 * first sender's flow that holds it, of i's alternative and group; 0 when
 * no sender of the skeleton sends to it (the outside world). */
static int farm_members(const skel_dag *d, int i)
{
    int p = -1;
    for (int e = 0; e < d->nedges && p < 0; e++)
        p = d->edges[e].to == i && d->edges[e].from != i ? d->edges[e].from : -1;
    const skel_flow *fl = p >= 0 ? &d->dst[p] : NULL;
    for (int k = 0; fl && k < fl->nsteps; k++) {
        int n = 0, at = -1;
        for (int m = fl->start[k]; m < fl->start[k + 1]; m++)
            at = fl->tasks[m] == i ? m : at;
        for (int m = fl->start[k]; at >= 0 && m < fl->start[k + 1]; m++)
            n += !fl->alt || (fl->alt[m] == fl->alt[at] && fl->grp[m] == fl->grp[at]);
        if (at >= 0)
            return n;
    }
    return 0;
}

/* Per original task its share of the items (f->share): a farm's worker
 * (visits not fixed, dag.c) 1/K of its farm's K members, as a gate of
 * cap 1 hands its one item to any idle one; where its sender's step does
 * not name the farm (a later task of a farm's pipe member, a farm first
 * in the stream style) the part of the reduced graph's items its task
 * computes (x, of thru items per second); 1 else. The gate's bound counted
 * every worker, and every move to or from one, at the full visits: K
 * times too much (review 25: loop(2) over farm(3), b, c, d -37.5%,
 * reported converged). The flow share alone, which favours the faster
 * worker, was +12.2% (farm(2), ps) where 1/K is +7.8%. */
static void item_shares(struct ax_flow *f, const skel_dag *d, const double *x, double thru)
{
    for (int i = 0; i < d->ntasks; i++) {
        int k = d->visits && d->visits[i] == 0 ? farm_members(d, i) : 0;
        double s = k > 1 ? 1.0 / k : x[d->serial_of[i]] / thru;
        f->share[i] = d->visits && d->visits[i] == 0 && s > 0 && s < 1 ? s : 1;
    }
}

/* Per reduced task its node under Sharing=ps (NULL: static): a one-server
 * loop's task one of its own (no task of the reduced graph is there), its
 * body's tasks sharing their own nodes as ghosts (flow_ghosts). */
static const int *reduce_nodes(struct ax_flow *f, const skel_dag *d, const int *ps_node)
{
    if (!ps_node)
        return NULL;
    for (int x = 0; x < f->nr; x++)
        f->rnode[x] = d->serial_loop[x] > 0 ? INT_MIN + x : ps_node[f->rlo[x]];
    return f->rnode;
}

/* 1 when the body of the one-server loop standing for reduced task x
 * holds a par: its branches compute at the same time, which the ghosts'
 * per-phase shares and their owner's factor (approx_solve.c) do not
 * model (test_flow_par_body: 1.12% mean, 7.88% largest with them). */
static int body_has_par(const struct ax_flow *f, const skel_dag *d, int x)
{
    int p = d->pass ? d->pass_at[f->rlo[x]] : -1;
    for (int q = p; p >= 0 && q < p + d->pass[p].size; q++)
        if (d->pass[q].kind == SKEL_PAR)
            return 1;
    return 0;
}

/* The ghosts under Sharing=ps: every task of a one-server loop's body, on
 * its node, their shares and stretches warm from the last evaluation (a
 * stretch reset at each would change a pass's fit and rebuild the
 * workspace twice an evaluation: refit). */
static void flow_ghosts(struct ax_flow *f, const skel_dag *d, const int *ps_node,
                        const double *mu)
{
    f->ng = 0;
    f->onode = ps_node;
    for (int i = 0; ps_node && i < d->ntasks; i++)
        if (d->serial_loop[d->serial_of[i]] > 0) {
            f->gtask[f->ng] = i;
            f->gnode[f->ng] = ps_node[i];
            f->gpar[f->ng] = body_has_par(f, d, d->serial_of[i]);
            f->gown[f->ng++] = d->serial_of[i];
        }
    for (int i = 0; i < d->ntasks; i++)
        f->mueff[i] = mu[i] / (ps_node ? f->slow[i] : 1);
}

/* Refit: the workspace built again when a one-server loop's pass needs
 * other phases than those it has. */
static int refit(skel_approx *a, diag *err)
{
    struct ax_flow *f = a->flow;
    size_t nr = (size_t)f->nr;
    for (int x = 0; x < f->nr; x++)
        if (f->want[x] != f->rscv[x] || f->wantn[x] != f->rphn[x] ||
            memcmp(f->wantw + (size_t)x * AX_GPH, f->rphw + (size_t)x * AX_GPH,
                   AX_GPH * sizeof *f->rphw) != 0) {
            double *want = malloc(nr * (1 + AX_GPH) * sizeof *want);
            int *wn = malloc(nr * sizeof *wn);
            int rc = want && wn ? 0 : ax_oom(err);
            if (rc == 0) {
                memcpy(want, f->want, nr * sizeof *want);
                memcpy(want + nr, f->wantw, nr * AX_GPH * sizeof *want);
                memcpy(wn, f->wantn, nr * sizeof *wn);
                rc = flow_rebuild(a, f->olscv, f->obuf, want, wn, want + nr, err);
            }
            free(want);
            free(wn);
            if (rc < 0)
                return -1;
            a->flow->inner->handoff = a->handoff;
            reduce_rates(a->flow, a->d, a->flow->mueff, a->lambda, a->handoff);
            return 0;
        }
    return 0;
}

/* The tasks' computations and utilisations back from the reduced graph's,
 * scaled; a one-server body's task from the items through the skeleton,
 * computing for its stretched time. */
static void flow_results(skel_approx *a, const double *mu, double thru, double scale)
{
    struct ax_flow *f = a->flow;
    const double *u = skel_approx_task_util(f->inner), *x = skel_approx_task_throughput(f->inner);
    for (int i = 0; i < a->ntasks; i++) {
        int r = a->d->serial_of[i];
        if (a->d->serial_loop[r] > 0) {
            a->thr[i] = thru * task_visits(a->d, i);
            a->util[i] = a->thr[i] / mu[i];
        } else {
            a->util[i] = u[r] * scale;
            a->thr[i] = x[r] * task_visits(a->d, i) * scale;
        }
    }
}

/* The stretch of body task i's computations by its node's sharers that
 * compute while it does, 1 / E[1 / (1 + N)]: the reduced graph's tasks
 * there, each with its probability given that its loop's task s computes
 * in the phases task i's work is laid out over (ghost_layout; approx_
 * share.c's pairs by phase), and the other one-server bodies' ghosts,
 * given that s computes, taken independent. */
static double body_slow(const struct ax_flow *f, const int *ps_node, int i)
{
    double pb[AX_PB_MAX + 2] = { 1 }, mean = 0;
    const skel_approx *in = f->inner;
    int m = 0, g = 0, n = ps_node[i];
    for (int k = 0; k < f->ng; k++)
        g = f->gtask[k] == i ? k : g;
    int s = f->gown[g];
    for (int y = 0; y < f->nr; y++)
        if (f->rnode[y] == n)
            ax_pb_add(pb, &m, &mean, ax_cond_phase(in, s, y, f->gov + (size_t)g * AX_GPH,
                                                   f->gnph[g]));
    for (int k = 0; k < f->ng; k++)
        if (f->gown[k] != s && (k == 0 || f->gown[k - 1] != f->gown[k])) {
            double q = ax_ghost_share(in, f->gown[k], n);
            if (q > 0)
                ax_pb_add(pb, &m, &mean, fmin(1, q * ax_cond_busy(in, s, f->gown[k])));
        }
    return 1 / ax_pb_inv(pb, m, mean, 1);
}

/* The ghosts' probabilities of computing during their owner's pass and
 * their tasks' stretches from an evaluation's results (a->util: at the
 * stretch it was made with); returns the largest relative change of a
 * stretch. */
static double flow_restretch(skel_approx *a, const double *mu, const int *ps_node, int damp)
{
    struct ax_flow *f = a->flow;
    const double *u = skel_approx_task_util(f->inner);
    double ch = 0;
    for (int k = 0; k < f->ng; k++) {
        double us = u[f->gown[k]];
        f->gp[k] = us > 0 ? fmin(1, a->util[f->gtask[k]] / us) : 0;
    }
    for (int k = 0; k < f->ng; k++) {
        int i = f->gtask[k];
        double s = body_slow(f, ps_node, i);
        s = damp ? (s + f->slow[i]) / 2 : s;
        ch = fmax(ch, fabs(s - f->slow[i]) / s);
        f->slow[i] = s;
        f->mueff[i] = mu[i] / s;
    }
    return ch;
}

/* The part of piece q in each of nph equal phases of [0, t), per phase's
 * length, added to ov. */
static void lay_phases(double *ov, int nph, double t, const ax_lay_piece *q)
{
    for (int j = 0; j < nph; j++) {
        double a = fmax(q->s0, t * j / nph), b = fmin(q->s1, t * (j + 1) / nph);
        ov[j] += b > a ? (b - a) * q->dens / (t / nph) : 0;
    }
}

/* Ghost k's share of each computing phase of its owner x's pass laid out
 * as l (NULL: not laid out; approx_share.c weighs the sharers of its node
 * by the phases in which it computes): its layout's segments when the
 * pass is built as them (want_phases), else the Erlang fit's equal phases
 * in a row over the layout; one phase under H2 or past AX_GPH. The stage
 * before the loop, which computes its next item as the pass begins,
 * shares the node with the body's first task far more than with the pass
 * on average (bench f-loop-6: P(it computes | that task computes) 0.42 in
 * the chain, 0.085 given the pass). */
static void ghost_layout(struct ax_flow *f, int k, const ax_lay *l)
{
    int x = f->gown[k], b = f->gtask[k];
    int nph = f->rphn[x] > 0 ? f->rphn[x] : f->rscv[x] > 1 ? 1 : skel_erlang_phases(f->rscv[x]);
    double *ov = f->gov + (size_t)k * AX_GPH, t = 0;
    f->gnph[k] = 1;
    if (nph < 2 || nph > AX_GPH || !l || (f->rphn[x] > 0 && l->n != nph))
        return;
    f->gnph[k] = nph;
    for (int j = 0; j < AX_GPH; j++)
        ov[j] = j < l->n && f->rphn[x] > 0 ? ax_lay_share(l, j, b) : 0;
    for (int j = 0; j < l->n; j++)
        t += l->len[j];
    for (int p = 0; p < l->np && f->rphn[x] == 0; p++)
        if (l->pc[p].task == b)
            lay_phases(ov, nph, t, &l->pc[p]);
}

/* The ghosts' shares of their owners' phases, each owner's pass laid out
 * once (its ghosts are consecutive, flow_ghosts). */
static void ghost_layouts(struct ax_flow *f, const skel_dag *d, const double *mu,
                          const double *lambda, double h)
{
    ax_lay l;
    int x = -1, ok = 0;
    for (int k = 0; k < f->ng; k++) {
        if (f->gown[k] != x) {
            x = f->gown[k];
            ok = pass_layout(f, d, x, mu, lambda, h, &l) == 0;
        }
        ghost_layout(f, k, ok ? &l : NULL);
    }
}

/* One evaluation of the reduced graph at this evaluation's stretches. */
static int flow_pass(skel_approx *a, const double *lambda, const int *ps_node,
                     skel_approx_result *r, diag *err)
{
    reduce_rates(a->flow, a->d, a->flow->mueff, lambda, a->handoff);
    if (refit(a, err) < 0)
        return -1;
    struct ax_flow *f = a->flow;
    const int *node = reduce_nodes(f, a->d, ps_node);
    f->inner->ghost_node = f->gnode;
    f->inner->ghost_p = f->gp;
    f->inner->ghost_of = f->gown;
    f->inner->ghost_ov = f->gov;
    f->inner->ghost_nph = f->gnph;
    f->inner->ghost_par = f->gpar;
    f->inner->nghost = node ? f->ng : 0;
    if (node)
        ghost_layouts(f, a->d, f->mueff, lambda, a->handoff);
    if (skel_approx_eval(f->inner, f->mu, f->lambda, node, r, err) < 0)
        return -1;
    r->whole = 0;   /* the reduction's chain, not the model's */
    double scale = 1;
    item_shares(f, a->d, skel_approx_task_throughput(f->inner), r->throughput);
    for (int g = 0; g < a->d->ngates; g++) {
        double b = gate_bound(f, a->d, &a->d->gates[g], f->mueff, lambda, f->share);
        if (ax_flow_check(b, 1, "a loop's gate bound", err) < 0)
            return -1;
        if (r->throughput * scale > b)
            scale = b / r->throughput;
    }
    r->throughput *= scale;
    if (ax_flow_check(r->throughput, 0, "the flows' throughput", err) < 0)
        return -1;
    flow_results(a, f->mueff, r->throughput, scale);
    return 0;
}

/* A rate the flows computed: positive and finite (a bound may be
 * INFINITY: none); else an error, never an answer reported converged (an
 * infinite visit count once made a gate's bound 0 and the answer 0
 * items/s, converged). */
int ax_flow_check(double v, int bound, const char *what, diag *err)
{
    if (v > 0 && (isfinite(v) || (bound && v == INFINITY)))
        return 0;
    return diag_set(err, "internal error: %s is %g items/s; no answer (report the skeleton)",
                    what, v);
}

/* Under Sharing=ps a one-server loop's body tasks share their own nodes
 * (ghosts in the reduced graph's windows) and are stretched by their
 * sharers there: evaluations until the stretches settle. */
int ax_flow_eval(skel_approx *a, const double *mu, const double *lambda, const int *ps_node,
                 skel_approx_result *r, diag *err)
{
    a->mu = mu;
    a->lambda = lambda;
    flow_ghosts(a->flow, a->d, ps_node, mu);
    for (int it = 0;; it++) {
        if (flow_pass(a, lambda, ps_node, r, err) < 0)
            return -1;
        if (!a->flow->ng)
            return 0;
        if (it == AX_FLOW_PASSES) {   /* the stretches never settled: not converged,
                                         whatever the last inner evaluation said */
            r->converged = 0;
            r->unsettled = 1;
            return 0;
        }
        if (flow_restretch(a, mu, ps_node, it >= AX_FLOW_DAMP) < 1e-6)
            return 0;
    }
}
