/* skeleton/dag_serial.c: the serial reduction of loops over several
 * stages (docs/approximation.md "Par, choice and loop"), the task graph
 * the approximation solves in their place.
 *
 * A copy of the tree where every loop over several stages becomes its
 * body, run once, so that the depth-first task numbers are unchanged; with
 * each task's visits per item by these loops (their means multiply), the
 * workspace divides its compute rate by them (approx_flow.c). Everything
 * else (par, choice, a loop over one stage, farms, deals) is copied as it
 * is. This is the visit-ratio reduction of bpel/reduce.c: it keeps each
 * task's load per item, and loses the gate (at most cap items inside the
 * body) and the feedback's order. Also the questions asked of a step with
 * alternatives (gen.c, approx_flowm.c). */
#include <stdlib.h>

#include "internal.h"

static skel_node *serial_copy(skel_tree *t, const skel_node *n, double v, double *vis,
                              diag *err);

static skel_node *copy_task(skel_tree *t, const skel_node *n, double v, double *vis, diag *err)
{
    skel_node *c = skel_task_new(t, n->name, n->rate, n->line, n->col, err);
    if (c) {
        c->data = n->data;
        c->scv = n->scv;
        vis[n->index] = v;
    }
    return c;
}

/* A loop over several stages: its body's items pass a gate (skel_gate). */
static int gated(const skel_node *n)
{
    return n->kind == SKEL_LOOP && !skel_node_one_stage(n->children[0]);
}

/* An inner node of the same kind, with its choice weights and loop mean. */
static skel_node *copy_inner(skel_tree *t, const skel_node *n, double v, double *vis, diag *err)
{
    skel_node *c = skel_node_new(t, n->kind, n->line, n->col, err);
    if (!c)
        return NULL;
    c->sugar = n->sugar;
    c->mean = n->mean;
    c->cap = n->cap;
    for (int k = 0; k < n->nchildren; k++) {
        skel_node *cc = serial_copy(t, n->children[k], v, vis, err);
        if (!cc || skel_node_add(t, c, cc, err) < 0)
            return NULL;
        cc->prob = n->children[k]->prob;
    }
    return c;
}

static skel_node *serial_copy(skel_tree *t, const skel_node *n, double v, double *vis,
                              diag *err)
{
    if (n->kind == SKEL_TASK)
        return copy_task(t, n, v, vis, err);
    if (gated(n))   /* its body, every task visited mean times as often */
        return serial_copy(t, n->children[0], v * n->mean, vis, err);
    return copy_inner(t, n, v, vis, err);
}

/* Whether the subtree at n holds a loop over several stages. */
static int has_gate(const skel_node *n)
{
    if (gated(n))
        return 1;
    for (int k = 0; k < n->nchildren; k++)
        if (has_gate(n->children[k]))
            return 1;
    return 0;
}

int skel_dag_serial_attach(skel_dag *d, const skel_tree *t, diag *err)
{
    const skel_node *root = skel_tree_root(t);
    if (!root || !has_gate(root))
        return 0;
    int n = skel_tree_ntasks(t);
    skel_tree *s = skel_tree_new(skel_tree_file(t));
    d->serial_visits = calloc((size_t)n + 1, sizeof *d->serial_visits);
    if (!s || !d->serial_visits) {
        skel_tree_free(s);
        return diag_set(err, "out of memory");
    }
    skel_node *c = serial_copy(s, root, 1.0, d->serial_visits, err);
    if (c && skel_tree_finish(s, c, err) == 0 && skel_tree_ntasks(s) == n)
        d->serial = skel_dag_build(s, d->style, err);
    else if (c)
        diag_set(err, "internal error: the serial reduction changed the tasks");
    skel_tree_free(s);
    return d->serial ? 0 : -1;
}

/* ---- par/choice/loop steps (gen.c, approx_flowm.c) ---------------------- */

/* Alternatives of step k. */
int skel_flow_nalts(const skel_flow *f, int k)
{
    int n = 1;
    for (int j = f->start[k]; f->alt && j < f->start[k + 1]; j++)
        if (f->alt[j] >= n)
            n = f->alt[j] + 1;
    return n;
}

/* The only member of alternative alt of step k, or -4 when it has more. */
int skel_flow_sole(const skel_flow *f, int k, int alt)
{
    int x = -4, n = 0;
    for (int j = f->start[k]; j < f->start[k + 1]; j++)
        if ((f->alt ? f->alt[j] : 0) == alt) {
            x = f->tasks[j];
            n++;
        }
    return n == 1 ? x : -4;
}

double skel_flow_alt_weight(const skel_flow *f, int k, int alt)
{
    for (int j = f->start[k]; f->weight && j < f->start[k + 1]; j++)
        if (f->alt[j] == alt)
            return f->weight[j];
    return 1.0;
}
