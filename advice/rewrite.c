/* advice/rewrite.c: new skeleton trees derived from a finished one - a
 * task replicated as a deal or farm, two pipe stages merged, rates
 * changed - built with the tree API (skel_tree_new ... skel_tree_finish),
 * so the new tree is checked and numbered like a parsed one. A copied node
 * keeps all its own fields, so constructs this module does not know are
 * carried over as they are. */
#include "advice.h"

#include <stdlib.h>
#include <string.h>

typedef enum op { OP_REPLICATE, OP_MERGE, OP_RATES } op;

typedef struct edit {
    op what;
    int task;                /* REPLICATE, MERGE */
    skel_kind kind;          /* REPLICATE */
    int n;                   /* REPLICATE */
    const double *rate;      /* RATES */
} edit;

static skel_node *copy_task(skel_tree *dst, const skel_node *s, double rate, diag *err)
{
    skel_node *c = skel_task_new(dst, s->name ? s->name : "task", rate, s->line, s->col, err);
    if (c)
        c->data = s->data;
    return c;
}

/* A copy of node s's own fields (whatever the construct keeps there: a
 * branch weight, a loop's mean ...) without its place in the old tree. */
static skel_node *copy_fields(skel_tree *dst, const skel_node *s, skel_kind kind, diag *err)
{
    skel_node *c = kind == SKEL_TASK
                       ? skel_task_new(dst, s->name ? s->name : "task", s->rate, s->line, s->col, err)
                       : skel_node_new(dst, kind, s->line, s->col, err);
    if (!c)
        return NULL;
    const char *name = c->name;     /* the new tree's copy */
    *c = *s;
    c->kind = kind;
    c->name = name;
    c->index = -1;
    c->nchildren = 0;
    c->children = NULL;
    c->parent = NULL;
    return c;
}

static double task_rate(const edit *e, const skel_node *s)
{
    return e->what == OP_RATES && e->rate[s->index] > 0 ? e->rate[s->index] : s->rate;
}

/* n copies of task s under a new deal or farm (written deal(n, ...)),
 * which takes s's place (and what its parent keeps on it). */
static skel_node *group(skel_tree *dst, const skel_node *s, const edit *e, diag *err)
{
    skel_node *g = copy_fields(dst, s, e->kind, err);
    if (!g)
        return NULL;
    g->rate = g->data = 0;
    g->sugar = 1;
    g->declared = e->n;
    for (int k = 0; k < e->n; k++) {
        skel_node *c = copy_task(dst, s, s->rate, err);
        if (!c || skel_node_add(dst, g, c, err) < 0)
            return NULL;
    }
    return g;
}

static skel_node *copy(skel_tree *dst, const skel_node *s, const edit *e, diag *err)
{
    if (s->kind == SKEL_TASK) {
        if (e->what == OP_REPLICATE && s->index == e->task)
            return group(dst, s, e, err);
        skel_node *c = copy_fields(dst, s, SKEL_TASK, err);
        if (c)
            c->rate = task_rate(e, s);
        return c;
    }
    skel_node *c = copy_fields(dst, s, s->kind, err);
    if (!c)
        return NULL;
    for (int i = 0; i < s->nchildren; i++) {
        const skel_node *k = s->children[i];
        if (k->kind == SKEL_TASK && e->what == OP_REPLICATE && k->index == e->task &&
            s->kind == e->kind) {
            /* the task is a member of a deal/farm of the kind wanted: widen it */
            for (int r = 0; r < e->n; r++) {
                skel_node *t = copy_task(dst, k, k->rate, err);
                if (!t || skel_node_add(dst, c, t, err) < 0)
                    return NULL;
            }
            continue;
        }
        if (k->kind == SKEL_TASK && e->what == OP_MERGE && k->index == e->task) {
            const skel_node *next = s->children[i + 1];
            skel_node *t = copy_task(dst, next, 1 / (1 / k->rate + 1 / next->rate), err);
            if (!t || skel_node_add(dst, c, t, err) < 0)
                return NULL;
            i++;
            continue;
        }
        skel_node *t = copy(dst, k, e, err);
        if (!t || skel_node_add(dst, c, t, err) < 0)
            return NULL;
    }
    if (s->declared)
        c->declared = c->nchildren;
    return c;
}

static skel_tree *rewrite(const skel_tree *t, const edit *e, diag *err)
{
    skel_tree *n = skel_tree_new(skel_tree_file(t));
    if (!n) {
        diag_set(err, "out of memory");
        return NULL;
    }
    skel_node *root = copy(n, skel_tree_root(t), e, err);
    if (!root || skel_tree_finish(n, root, err) < 0) {
        skel_tree_free(n);
        return NULL;
    }
    return n;
}

skel_tree *adv_replicate(const skel_tree *t, int task, skel_kind kind, int n, diag *err)
{
    if (!skel_tree_task(t, task)) {
        diag_set(err, "no task t%d (the skeleton has t0..t%d)", task, skel_tree_ntasks(t) - 1);
        return NULL;
    }
    if (kind != SKEL_DEAL && kind != SKEL_FARM) {
        diag_set(err, "a task is replicated as a deal or a farm");
        return NULL;
    }
    if (n < 1 || n > SKEL_MAX_CHILDREN) {
        diag_set(err, "replicas: %d is not in 1..%d", n, SKEL_MAX_CHILDREN);
        return NULL;
    }
    edit e = { .what = OP_REPLICATE, .task = task, .kind = kind, .n = n };
    return rewrite(t, &e, err);
}

skel_tree *adv_merge(const skel_tree *t, int task, diag *err)
{
    const skel_node *a = skel_tree_task(t, task), *b = skel_tree_task(t, task + 1);
    const skel_node *par = a ? a->parent : NULL;
    int ok = a && b && par && par == b->parent && par->kind == SKEL_PIPE;
    for (int i = 0; ok && i < par->nchildren; i++)
        if (par->children[i] == a)
            ok = i + 1 < par->nchildren && par->children[i + 1] == b;
    if (!ok) {
        diag_set(err, "t%d and t%d are not two consecutive stages of one pipe", task, task + 1);
        return NULL;
    }
    edit e = { .what = OP_MERGE, .task = task };
    return rewrite(t, &e, err);
}

skel_tree *adv_with_rates(const skel_tree *t, const double *rate, diag *err)
{
    edit e = { .what = OP_RATES, .rate = rate };
    return rewrite(t, &e, err);
}

int adv_free_nodes(const skel_platform *p, int ntasks, const int *place, int *free_nodes)
{
    int n = 0;
    for (int j = 0; j < p->nnodes; j++) {
        int used = 0;
        for (int i = 0; i < ntasks && !used; i++)
            used = place[i] == j;
        if (used)
            continue;
        /* insertion by speed, stable */
        int q = n++;
        while (q > 0 && p->nodes[free_nodes[q - 1]].speed < p->nodes[j].speed) {
            free_nodes[q] = free_nodes[q - 1];
            q--;
        }
        free_nodes[q] = j;
    }
    return n;
}
