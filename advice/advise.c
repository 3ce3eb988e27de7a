/* advice/advise.c: the replication and merge options of one placed
 * skeleton, each solved with the Markov model (Yaikhom et al. 2007 §4.4, Zavanella 1999
 * §3-4). Replica 0 stays on the replicated task's node; the others take
 * the fastest free nodes, one each, so that no option slows a task that
 * is already placed. */
#include "advice.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TIE 1e-9

const char *adv_kind_name(adv_kind k)
{
    switch (k) {
    case ADV_DEAL: return "deal";
    case ADV_FARM: return "farm";
    case ADV_MERGE: return "merge";
    case ADV_GROUP: return "group";
    }
    return "?";
}

void adv_report_free(adv_report *r)
{
    adv_eval_free(&r->current);
    for (int i = 0; i < r->noptions; i++)
        free(r->options[i].nodes);
    free(r->options);
    memset(r, 0, sizeof *r);
}

static adv_option *add_option(adv_report *r, int cap)
{
    if (r->noptions >= cap)
        return NULL;
    adv_option *o = &r->options[r->noptions++];
    memset(o, 0, sizeof *o);
    return o;
}

/* Solve tree u placed at pl and record it as option o. */
static int solve_option(const skel_tree *u, const skel_platform *p, const int *pl,
                        const adv_opts *ao, adv_option *o, diag *err)
{
    adv_eval ev;
    if (adv_evaluate(u, ao->style, p, pl, &ev, err) < 0)
        return -1;
    o->throughput = ev.throughput;
    o->bottleneck = ev.bottleneck;
    adv_eval_free(&ev);
    return 0;
}

static int replicate(const skel_tree *t, const skel_platform *p, const int *place,
                     const int *free_nodes, int task, adv_kind kind, int n, const adv_opts *ao,
                     adv_option *o, diag *err)
{
    int nt = skel_tree_ntasks(t);
    skel_tree *u = adv_replicate(t, task, kind == ADV_DEAL ? SKEL_DEAL : SKEL_FARM, n, err);
    int *pl = malloc((size_t)(nt + n) * sizeof *pl);
    o->nodes = malloc((size_t)n * sizeof *o->nodes);
    int rc = -1;
    if (!u || !pl || !o->nodes) {
        if (u)
            diag_set(err, "out of memory");
        goto done;
    }
    for (int i = 0; i < nt; i++)
        pl[i < task ? i : i == task ? i : i + n - 1] = place[i];
    for (int r = 0; r < n; r++)
        pl[task + r] = o->nodes[r] = r == 0 ? place[task] : free_nodes[r - 1];
    o->kind = kind;
    o->degree = o->nnodes = n;
    o->task = task;
    rc = solve_option(u, p, pl, ao, o, err);
done:
    free(pl);
    skel_tree_free(u);
    return rc;
}

/* Tasks j and j+1 are consecutive stages of one pipe. */
static int stage_pair(const skel_tree *t, int j)
{
    const skel_node *a = skel_tree_task(t, j), *b = skel_tree_task(t, j + 1);
    if (!a || !b || !a->parent || a->parent != b->parent || a->parent->kind != SKEL_PIPE)
        return 0;
    for (int i = 0; i + 1 < a->parent->nchildren; i++)
        if (a->parent->children[i] == a)
            return a->parent->children[i + 1] == b;
    return 0;
}

/* Stages j and j+1 as one sequential task (MERGE), or both tasks on one
 * node sharing it (GROUP), on the faster of their two nodes. */
static int merge(const skel_tree *t, const skel_platform *p, const int *place, int j,
                 adv_kind kind, const adv_opts *ao, adv_option *o, diag *err)
{
    int nt = skel_tree_ntasks(t);
    skel_tree *u = kind == ADV_MERGE ? adv_merge(t, j, err) : NULL;
    int *pl = malloc((size_t)nt * sizeof *pl);
    o->nodes = malloc(2 * sizeof *o->nodes);
    int rc = -1;
    if ((kind == ADV_MERGE && !u) || !pl || !o->nodes) {
        if (u || kind != ADV_MERGE)
            diag_set(err, "out of memory");
        goto done;
    }
    int a = place[j], b = place[j + 1];
    int keep = p->nodes[b].speed > p->nodes[a].speed ? b : a;
    for (int i = 0; i < nt; i++)
        if (kind == ADV_GROUP || i < j || i > j + 1)
            pl[kind == ADV_GROUP || i < j ? i : i - 1] = place[i];
    pl[j] = keep;
    if (kind == ADV_GROUP)
        pl[j + 1] = keep;
    o->kind = kind;
    o->degree = 2;
    o->task = j;
    o->nodes[0] = keep;
    o->nodes[1] = keep == a ? b : a;
    o->nnodes = a == b ? 1 : 2;
    rc = solve_option(u ? u : t, p, pl, ao, o, err);
done:
    free(pl);
    skel_tree_free(u);
    return rc;
}

int adv_advise(const skel_tree *t, const skel_platform *p, const int *place, const adv_opts *o,
               adv_report *out, diag *err)
{
    memset(out, 0, sizeof *out);
    out->reach = -1;
    int nt = skel_tree_ntasks(t);
    if (o->task >= nt)
        return diag_set(err, "no task t%d (the skeleton has t0..t%d)", o->task, nt - 1);
    int *free_nodes = malloc((size_t)(p->nnodes > 0 ? p->nnodes : 1) * sizeof *free_nodes);
    if (!free_nodes)
        return diag_set(err, "out of memory");
    if (adv_evaluate(t, o->style, p, place, &out->current, err) < 0)
        goto fail;
    out->task = o->task >= 0 ? o->task : out->current.bottleneck;
    out->nfree = adv_free_nodes(p, nt, place, free_nodes);
    int kmax = o->max_replicas > 0 ? o->max_replicas : 4;
    if (kmax > out->nfree + 1)
        kmax = out->nfree + 1;
    int cap = 2 * (kmax > 1 ? kmax - 1 : 0) + (o->no_merge ? 0 : 2 * nt);
    if (!(out->options = calloc((size_t)(cap > 0 ? cap : 1), sizeof *out->options))) {
        diag_set(err, "out of memory");
        goto fail;
    }
    for (int kind = ADV_DEAL; kind <= ADV_FARM; kind++)
        for (int n = 2; n <= kmax; n++)
            if (replicate(t, p, place, free_nodes, out->task, (adv_kind)kind, n, o,
                          add_option(out, cap), err) < 0)
                goto fail;
    /* Zavanella 1999 §3: S(i) = t_i + g (d_i + d_i+1), here the compute time on
     * the node plus the time of the move out */
    const adv_eval *c = &out->current;
    double smax = 0;
    for (int i = 0; i < nt; i++)
        smax = fmax(smax, 1 / c->mu[i] + c->send_time[i]);
    for (int j = 0; !o->no_merge && j + 1 < nt; j++) {
        if (!stage_pair(t, j))
            continue;
        double s = 1 / c->mu[j] + c->send_time[j] + 1 / c->mu[j + 1] + c->send_time[j + 1];
        if (!(s < smax))
            continue;
        for (int kind = ADV_MERGE; kind <= ADV_GROUP; kind++) {
            adv_option *op = add_option(out, cap);
            if (merge(t, p, place, j, (adv_kind)kind, o, op, err) < 0)
                goto fail;
            op->merge_sum = s;
            op->merge_max = smax;
        }
    }
    if (o->target > 0)
        for (int i = 0; i < out->noptions; i++) {
            const adv_option *op = &out->options[i];
            if (op->kind >= ADV_MERGE || op->throughput < o->target * (1 - TIE))
                continue;
            const adv_option *best = out->reach >= 0 ? &out->options[out->reach] : NULL;
            if (!best || op->degree < best->degree ||
                (op->degree == best->degree && op->throughput > best->throughput))
                out->reach = i;
        }
    free(free_nodes);
    return 0;
fail:
    free(free_nodes);
    adv_report_free(out);
    return -1;
}
