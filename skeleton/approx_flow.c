/* skeleton/approx_flow.c: the approximation of skeletons with a loop over
 * several stages (docs/approximation.md "Par, choice and loop"; pars,
 * choices and loops over one stage are the windows', approx_flowm.c).
 *
 * The workspace of such a skeleton holds another one, built on the dag's
 * serial reduction (dag_serial.c: every such loop its body, run once, the
 * same task numbers), which the windows cover. An evaluation divides each
 * task's compute rate by its visits per item (the loops' means) and each
 * move's rate by the visits of the move it stands for, evaluates the
 * reduced graph, and multiplies the tasks' computations back by their
 * visits: the items through the skeleton are the reduced graph's. The
 * gate's cap is kept as a bound only (gate_bound). */
#include "approx_int.h"

#include <math.h>
#include <stdlib.h>

struct ax_flow {
    skel_approx *inner;       /* on d->serial */
    int *emap;                /* per reduced edge: the original edge whose rate it takes */
    double *ediv;             /* per reduced edge: that move's visits per item */
    double *odiv;             /* per original edge: the move's visits per item */
    double *extra;            /* per task: its moves' time per item the reduction
                                 lost (one evaluation) */
    double *mu, *lambda;      /* the reduced rates of one evaluation */
    double *link_scv;         /* per reduced edge: opts.link_scv of its original edge */
    int *buffer;              /* per reduced edge: opts.buffer of its original edge */
};

static double task_visits(const skel_dag *d, int i)
{
    return i >= 0 && i < d->ntasks && d->serial_visits[i] > 0 ? d->serial_visits[i] : 1.0;
}

/* The original edge a reduced one (x -> y) stands for: the same move, else
 * the first move into y (y's receive, whoever sent it), else the first out
 * of x. With loops alone reduced every reduced move is an original one;
 * the fallbacks keep the mapping total. */
static int edge_source(const skel_dag *d, int x, int y)
{
    int e = skel_dag_edge(d, x, y);
    for (int k = 0; e < 0 && k < d->nedges; k++)
        if (d->edges[k].to == y && d->edges[k].from != y)
            e = k;
    for (int k = 0; e < 0 && k < d->nedges; k++)
        if (d->edges[k].from == x && d->edges[k].to != x)
            e = k;
    return e;
}

/* Visits per item of original move e: the fewer of its ends' loop visits
 * (serial_visits holds loop means only; a choice's probabilities stay in
 * the reduced graph); a loop's feedback move (to an earlier task) once
 * fewer than the body's. */
static double move_visits(const skel_dag *d, int e)
{
    int x = d->edges[e].from, y = d->edges[e].to;
    double va = task_visits(d, x), vb = task_visits(d, y), v = va < vb ? va : vb;
    if (x >= 0 && y >= 0 && y < x)
        v = v > 1 ? v - 1 : 0;
    return v;
}

static int map_edges(struct ax_flow *f, const skel_dag *d, const skel_approx_opts *o, diag *err)
{
    const skel_dag *s = d->serial;
    for (int e = 0; e < d->nedges; e++)
        f->odiv[e] = move_visits(d, e);
    for (int r = 0; r < s->nedges; r++) {
        int e = edge_source(d, s->edges[r].from, s->edges[r].to);
        if (e < 0)
            return diag_set(err, "internal error: no move for t%d -> t%d of the serial "
                                 "reduction", s->edges[r].from, s->edges[r].to);
        f->emap[r] = e;
        f->ediv[r] = f->odiv[e];
        f->link_scv[r] = o && o->link_scv ? o->link_scv[e] : 1.0;
        f->buffer[r] = o && o->buffer ? o->buffer[e] : 0;
    }
    return 0;
}

static struct ax_flow *flow_new(const skel_dag *d, const skel_approx_opts *o, diag *err)
{
    size_t ne = (size_t)d->serial->nedges + 1, nt = (size_t)d->ntasks + 1;
    struct ax_flow *f = calloc(1, sizeof *f);
    if (!f)
        return ax_oom(err), NULL;
    f->emap = malloc(ne * sizeof *f->emap);
    f->ediv = malloc(ne * sizeof *f->ediv);
    f->lambda = malloc(ne * sizeof *f->lambda);
    f->link_scv = malloc(ne * sizeof *f->link_scv);
    f->buffer = malloc(ne * sizeof *f->buffer);
    f->mu = malloc(nt * sizeof *f->mu);
    f->odiv = malloc(((size_t)d->nedges + 1) * sizeof *f->odiv);
    f->extra = malloc(nt * sizeof *f->extra);
    if (!f->emap || !f->ediv || !f->lambda || !f->link_scv || !f->buffer || !f->mu ||
        !f->odiv || !f->extra) {
        ax_oom(err);
        goto fail;
    }
    skel_approx_opts io = o ? *o : (skel_approx_opts){ 0 };
    io.link_scv = f->link_scv;
    io.buffer = f->buffer;
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
    if (!(a->flow = flow_new(d, opts, err))) {
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
    free(f->emap);
    free(f->ediv);
    free(f->mu);
    free(f->odiv);
    free(f->extra);
    free(f->lambda);
    free(f->link_scv);
    free(f->buffer);
    free(f);
}

int ax_flow_links(skel_approx *a, const double *scv, const int *buffer, diag *err)
{
    struct ax_flow *f = a->flow;
    int same = 1;
    for (int r = 0; r < a->d->serial->nedges && same; r++)
        same = f->link_scv[r] == scv[f->emap[r]] && f->buffer[r] == buffer[f->emap[r]];
    if (!same) {                      /* the reduced workspace built again with them */
        skel_approx_opts o = a->o;
        o.link_scv = scv;
        o.buffer = buffer;
        o.handoff = a->handoff;
        struct ax_flow *g = flow_new(a->d, &o, err);
        if (!g)
            return -1;
        ax_flow_free(f);
        a->flow = g;
    }
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

/* The reduced graph's rates. Its moves take the visits' share of the
 * moves they stand for, so a task's moves per item in the reduced graph
 * are not all its own (the loop's feedback move is gone): what a task's
 * own moves take per item beyond its reduced moves is added to its work,
 * so that every task keeps its time per item (its load). Measured when
 * every par and choice was reduced too: without it, choices 10.1% /
 * 49.1% (median / max) off, with it 2.8% / 7.2%. */
static void reduce_rates(struct ax_flow *f, const skel_dag *d, const double *mu,
                         const double *lambda)
{
    const skel_dag *s = d->serial;
    for (int i = 0; i < d->ntasks; i++)
        f->extra[i] = 0;
    for (int e = 0; e < d->nedges; e++)
        add_move(f->extra, d->ntasks, d->edges[e].from, d->edges[e].to, f->odiv[e] / lambda[e]);
    for (int r = 0; r < s->nedges; r++) {
        f->lambda[r] = lambda[f->emap[r]] / f->ediv[r];
        add_move(f->extra, d->ntasks, s->edges[r].from, s->edges[r].to, -1 / f->lambda[r]);
    }
    for (int i = 0; i < d->ntasks; i++)
        f->mu[i] = 1 / (task_visits(d, i) / mu[i] + (f->extra[i] > 0 ? f->extra[i] : 0));
}

/* The items per second gate g admits at most: cap items inside its body,
 * each staying there, at the least, for the body's computations and moves
 * per item one after the other (mean times round the loop): Little's law
 * on the body. The reduction lets as many items in as the body has tasks. */
static double gate_bound(const struct ax_flow *f, const skel_dag *d, const skel_gate *g,
                         const double *mu, const double *lambda)
{
    double t = 0;
    for (int x = g->lo; x < g->hi; x++)
        t += task_visits(d, x) / mu[x];
    for (int e = 0; e < d->nedges; e++) {
        int x = d->edges[e].from, y = d->edges[e].to;
        if ((x >= g->lo && x < g->hi) || (y >= g->lo && y < g->hi))
            t += f->odiv[e] / lambda[e];
    }
    return t > 0 ? g->cap / t : INFINITY;
}

int ax_flow_eval(skel_approx *a, const double *mu, const double *lambda, const int *ps_node,
                 skel_approx_result *r, diag *err)
{
    struct ax_flow *f = a->flow;
    reduce_rates(f, a->d, mu, lambda);
    if (skel_approx_eval(f->inner, f->mu, f->lambda, ps_node, r, err) < 0)
        return -1;
    r->whole = 0;   /* the reduction's chain, not the model's */
    double scale = 1;
    for (int g = 0; g < a->d->ngates; g++) {
        double b = gate_bound(f, a->d, &a->d->gates[g], mu, lambda);
        if (r->throughput * scale > b)
            scale = b / r->throughput;
    }
    r->throughput *= scale;
    const double *u = skel_approx_task_util(f->inner), *x = skel_approx_task_throughput(f->inner);
    for (int i = 0; i < a->ntasks; i++) {
        a->util[i] = u[i] * scale;
        a->thr[i] = x[i] * task_visits(a->d, i) * scale;
    }
    return 0;
}
