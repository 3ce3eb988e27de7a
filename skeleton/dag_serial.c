/* skeleton/dag_serial.c: the serial reduction of loops over several
 * stages (docs/approximation.md "Par, choice and loop"), the task graph
 * the approximation solves in their place.
 *
 * A copy of the tree where every loop over several stages becomes its
 * body, run once; with each task's visits per item by these loops (their
 * means multiply), the workspace divides its compute rate by them
 * (approx_flow.c). Everything else (par, choice, a loop over one stage,
 * farms, deals) is copied as it is. This is the visit-ratio reduction of
 * bpel/reduce.c: it keeps each task's load per item, and loses the gate
 * (at most cap items inside the body) and the feedback's order. So a loop
 * whose gate admits one item and whose body is a pipe of tasks, choices,
 * pars, farms of tasks and such loops becomes one task looping over itself
 * instead
 * (one_server): the body is one server, and the gate is kept; its subtree
 * is kept in d->pass for the pass's time (approx_pass.c). serial_of maps
 * the tasks (d->serial_of). Also the questions asked of a step with
 * alternatives (gen.c, approx_flowm.c). */
#include <stdlib.h>

#include "internal.h"
#include "../base/mem.h"

typedef struct serial_ctx {
    skel_tree *t;             /* the reduction being built */
    const skel_tree *src;     /* the tree reduced */
    double *vis;              /* per original task: its visits per item */
    skel_node **copy;         /* per original task: the task standing for it */
    skel_pass *pass;          /* the one-server loops' subtrees (d->pass) */
    int npass, cap_pass;
    int *pass_at;             /* d->pass_at */
    diag *err;
} serial_ctx;

static skel_node *serial_copy(serial_ctx *c, const skel_node *n, double v);

static skel_node *copy_task(serial_ctx *c, const skel_node *n, double v)
{
    skel_node *k = skel_task_new(c->t, n->name, n->rate, n->line, n->col, c->err);
    if (k) {
        k->data = n->data;
        k->scv = n->scv;
        c->vis[n->index] = v;
        c->copy[n->index] = k;
    }
    return k;
}

/* A loop over several stages: its body's items pass a gate (skel_gate). */
static int gated(const skel_node *n)
{
    return n->kind == SKEL_LOOP && !skel_node_one_stage(n->children[0]);
}

static int one_server(const skel_node *n);
static int server_part(const skel_node *n);

/* Whether an element of a one-server body enters and leaves by one task:
 * a task, a one-server loop over such ends, or a pipe that begins and ends
 * with such (a par's fork and join are one task each). */
static int single_ends(const skel_node *n)
{
    if (n->kind == SKEL_PIPE)
        return single_ends(n->children[0]) && single_ends(n->children[n->nchildren - 1]);
    if (n->kind == SKEL_LOOP)
        return one_server(n) && single_ends(n->children[0]);
    return n->kind == SKEL_TASK;
}

/* A farm of tasks: in a one-server body (one item inside) every worker is
 * idle when the item comes, so the sender's offers race and the winner
 * takes it (gen.c: a farm's step is a choice over its members), a choice
 * whose branches' odds are the moves' rates (approx_pass.c). */
static int task_farm(const skel_node *n)
{
    for (int k = 0; n->kind == SKEL_FARM && k < n->nchildren; k++)
        if (n->children[k]->kind != SKEL_TASK)
            return 0;
    return n->kind == SKEL_FARM;
}

/* The share of its parent's entries element n takes: a choice's branch its
 * probability, a farm's worker 1/K (the race's odds, rate-dependent, are
 * approx_pass.c's: the pass, the workers' computations per stay,
 * ax_pass_visits; this is their mean over symmetric senders, which the
 * reduced graph's move counts keep: their sum is the farm's), else 1. */
static double pass_prob(const skel_node *n)
{
    const skel_node *p = n->parent;
    return !p ? 1 : p->kind == SKEL_CHOICE ? n->prob : p->kind == SKEL_FARM ? 1.0 / p->nchildren
                                                                            : 1;
}

/* skel_pass_ends_of's walk (internal.h), w the probability of reaching
 * pass[at]. */
static void ends_add(const skel_pass *pass, int at, int last, double w, skel_pass_ends *e)
{
    const skel_pass *n = &pass[at];
    if (e->n < 0)
        return;
    if (n->kind == SKEL_TASK) {
        if (e->n == SKEL_PASS_ENDS) {
            e->n = -1;
            return;
        }
        e->task[e->n] = n->lo;
        e->p[e->n++] = w;
    } else if (n->kind == SKEL_LOOP) {
        ends_add(pass, at + 1, last, w, e);
    } else if (n->kind == SKEL_PIPE) {
        int c = at + 1;
        for (int k = at + 1; last && k < at + n->size; k += pass[k].size)
            c = k;
        ends_add(pass, c, last, w, e);
    } else if (n->kind == SKEL_CHOICE || n->kind == SKEL_FARM) {   /* a farm's: 1/K, pass_prob */
        for (int c = at + 1; c < at + n->size; c += pass[c].size)
            ends_add(pass, c, last, w * pass[c].prob, e);
    } else
        e->n = -1;
}

void skel_pass_ends_of(const skel_pass *pass, int at, int last, skel_pass_ends *e)
{
    e->n = 0;
    ends_add(pass, at, last, 1, e);
}

/* Append the subtree at n to the preorder pass[0 .. *np) of *cap slots;
 * -1 out of memory. */
static int pass_append(skel_pass **pass, int *np, int *cap, const skel_node *n)
{
    int at = *np;
    if (at == *cap) {
        int nc = *cap ? 2 * *cap : 16;
        if (mem_grow((void **)pass, (size_t)nc, sizeof **pass) < 0)
            return -1;
        *cap = nc;
    }
    (*pass)[(*np)++] = (skel_pass){ n->kind, n->lo, n->hi, pass_prob(n), n->mean, 1 };
    for (int k = 0; k < n->nchildren; k++)
        if (pass_append(pass, np, cap, n->children[k]) < 0)
            return -1;
    (*pass)[at].size = *np - at;
    return 0;
}

/* Whether n's ends are tasks, at most SKEL_PASS_ENDS a side
 * (skel_pass_ends_of on n's subtree laid out as d->pass will hold it).
 * Out of memory n is refused: the loop is then reduced as one that is
 * not one server, an answer, less close. */
static int ends_ok(const skel_node *n)
{
    skel_pass *pass = NULL;
    int np = 0, cap = 0, ok = pass_append(&pass, &np, &cap, n) == 0;
    skel_pass_ends a, b;
    if (ok) {
        skel_pass_ends_of(pass, 0, 0, &a);
        skel_pass_ends_of(pass, 0, 1, &b);
        ok = a.n > 0 && b.n > 0;
    }
    free(pass);
    return ok;
}

/* Whether element n forks or joins by its neighbours' tasks: a par, or a
 * choice with a par as a branch (its branches move from the task before
 * the choice and to the task after it). */
static int needs_single(const skel_node *n)
{
    if (n->kind == SKEL_PAR)
        return 1;
    for (int k = 0; n->kind == SKEL_CHOICE && k < n->nchildren; k++)
        if (n->children[k]->kind == SKEL_PAR)
            return 1;
    return 0;
}

/* Whether child k of pipe n may be there: a par (or a choice of a par)
 * between two elements of single ends; anything else anywhere (a choice
 * first, last or by another: approx_pass.c's ends). */
static int pipe_place(const skel_node *n, int k)
{
    if (!needs_single(n->children[k]))
        return 1;
    return k > 0 && k < n->nchildren - 1 && single_ends(n->children[k - 1]) &&
           single_ends(n->children[k + 1]);
}

/* Whether n can be part of a one-server body: a task, a one-server loop,
 * or a pipe, choice or par of such, each par between two elements of
 * single ends, a par's branches and a choice's (but a par) entered and
 * left at tasks (so every move of a pass is between known tasks,
 * approx_pass.c); a farm of tasks anywhere, as a choice. */
static int server_part(const skel_node *n)
{
    if (n->kind == SKEL_TASK || n->kind == SKEL_LOOP)
        return n->kind == SKEL_TASK || one_server(n);
    if (task_farm(n))
        return 1;
    if (n->kind != SKEL_PIPE && n->kind != SKEL_CHOICE && n->kind != SKEL_PAR)
        return 0;
    for (int k = 0; k < n->nchildren; k++) {
        const skel_node *x = n->children[k];
        if (!server_part(x))
            return 0;
        if (n->kind == SKEL_PIPE ? !pipe_place(n, k)
                                 : !ends_ok(x) && !(n->kind == SKEL_CHOICE && x->kind == SKEL_PAR))
            return 0;
    }
    return 1;
}

/* A gated loop whose gate admits one item and whose body is a pipe of
 * tasks, of such loops (nested: the inner gate then holds the one item
 * the outer one lets in), and of choices, pars and farms of tasks of those
 * (server_part; a choice or farm may begin it): the body is then one server, an item's passes
 * through it one after the other, and the loop is one task looping over
 * itself (each computation a pass, approx_flow.c's rates) with its gates
 * kept exactly. */
static int one_server(const skel_node *n)
{
    const skel_node *b = n->children[0];
    if (!gated(n) || n->cap > 1 || b->kind != SKEL_PIPE || b->nchildren < 2)
        return 0;
    return server_part(b) && ends_ok(b);
}

/* The visits per item of the tasks of one-server element n, entered v
 * times per item (nested loops' means and choices' probabilities
 * multiply), all standing for task s. */
static void server_visits(serial_ctx *c, const skel_node *n, double v, skel_node *s)
{
    if (n->kind == SKEL_TASK) {
        c->vis[n->index] = v;
        c->copy[n->index] = s;
        return;
    }
    double w = n->kind == SKEL_LOOP ? v * n->mean : v;
    for (int k = 0; k < n->nchildren; k++)
        server_visits(c, n->children[k], w * pass_prob(n->children[k]), s);
}

/* Append the subtree at n to the passes' preorder (approx_pass.c). */
static int pass_add(serial_ctx *c, const skel_node *n)
{
    return pass_append(&c->pass, &c->npass, &c->cap_pass, n) < 0
               ? diag_set(c->err, "out of memory")
               : 0;
}

/* An inner node of the same kind, with its choice weights and loop mean. */
static skel_node *copy_inner(serial_ctx *c, const skel_node *n, double v)
{
    skel_node *k = skel_node_new(c->t, n->kind, n->line, n->col, c->err);
    if (!k)
        return NULL;
    k->sugar = n->sugar;
    k->mean = n->mean;
    k->cap = n->cap;
    for (int j = 0; j < n->nchildren; j++) {
        skel_node *cc = serial_copy(c, n->children[j], v);
        if (!cc || skel_node_add(c->t, k, cc, c->err) < 0)
            return NULL;
        cc->prob = n->children[j]->prob;
    }
    return k;
}

/* one_server's loop: a loop over one task named after its body's first. */
static skel_node *copy_server(serial_ctx *c, const skel_node *n, double v)
{
    const skel_node *first = skel_tree_task(c->src, n->lo);
    skel_node *k = skel_node_new(c->t, SKEL_LOOP, n->line, n->col, c->err);
    skel_node *s = k ? skel_task_new(c->t, first->name, first->rate, first->line, first->col,
                                     c->err)
                     : NULL;
    if (!s || skel_node_add(c->t, k, s, c->err) < 0)
        return NULL;
    k->mean = n->mean;
    server_visits(c, n, v, s);
    c->pass_at[n->lo] = c->npass;
    return pass_add(c, n) < 0 ? NULL : k;
}

static skel_node *serial_copy(serial_ctx *c, const skel_node *n, double v)
{
    if (n->kind == SKEL_TASK)
        return copy_task(c, n, v);
    if (one_server(n))
        return copy_server(c, n, v);
    if (gated(n))   /* its body, every task visited mean times as often */
        return serial_copy(c, n->children[0], v * n->mean);
    return copy_inner(c, n, v);
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

/* serial_of and serial_loop from the finished reduction s. */
static int serial_maps(skel_dag *d, const skel_tree *t, const skel_tree *s, skel_node **copy,
                       diag *err)
{
    int n = skel_tree_ntasks(t), ns = skel_tree_ntasks(s);
    d->serial_of = malloc((size_t)(n + 1) * sizeof *d->serial_of);
    d->serial_loop = calloc((size_t)ns + 1, sizeof *d->serial_loop);
    if (!d->serial_of || !d->serial_loop)
        return diag_set(err, "out of memory");
    for (int i = 0; i < n; i++) {
        int x = copy[i]->index;
        d->serial_of[i] = x;
        /* the outermost one_server loop around task i: the one reduced */
        for (const skel_node *o = skel_tree_task(t, i); o; o = o->parent)
            if (o->kind == SKEL_LOOP && one_server(o))
                d->serial_loop[x] = o->mean;
    }
    return 0;
}

int skel_dag_serial_attach(skel_dag *d, const skel_tree *t, diag *err)
{
    const skel_node *root = skel_tree_root(t);
    if (!root || !has_gate(root))
        return 0;
    int n = skel_tree_ntasks(t);
    serial_ctx c = { .t = skel_tree_new(skel_tree_file(t)), .src = t, .err = err };
    d->serial_visits = calloc((size_t)n + 1, sizeof *d->serial_visits);
    d->pass_at = malloc(((size_t)n + 1) * sizeof *d->pass_at);
    c.copy = calloc((size_t)n + 1, sizeof *c.copy);
    c.vis = d->serial_visits;
    c.pass_at = d->pass_at;
    if (!c.t || !d->serial_visits || !c.copy || !d->pass_at) {
        skel_tree_free(c.t);
        free(c.copy);
        return diag_set(err, "out of memory");
    }
    for (int i = 0; i <= n; i++)
        d->pass_at[i] = -1;
    skel_node *r = serial_copy(&c, root, 1.0);
    d->pass = c.pass;   /* freed with d */
    if (r && skel_tree_finish(c.t, r, err) == 0 && serial_maps(d, t, c.t, c.copy, err) == 0)
        d->serial = skel_dag_build(c.t, d->style, err);
    skel_tree_free(c.t);
    free(c.copy);
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
