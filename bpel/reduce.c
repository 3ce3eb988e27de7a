/* The serial reduction of an activity, by visit ratios (docs/bpel.md), used
 * by translate.c where the structural mapping does not apply:
 * every task becomes a pipeline stage whose work is multiplied by the
 * expected number of times one process instance visits it (loop counts
 * multiply, choice probabilities multiply, parallel branches are all
 * visited once). A parallel forEach becomes a deal of N copies of its body.
 * For the steady-state throughput of a closed stream of instances through
 * tasks on distinct resources this keeps each resource's load exactly; what
 * it loses is the response time of one instance (branches of a flow are
 * served one after the other, not at the same time). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../base/mem.h"

/* A growable list of skeleton nodes not yet attached to a parent. */
typedef struct stages {
    int n, cap;
    skel_node **v;
} stages;

static int push(stages *s, skel_node *n, diag *err)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        if (cap > SKEL_MAX_TASKS * 2)
            return diag_set(err, "more than %d stages", SKEL_MAX_TASKS);
        if (mem_grow((void **)&s->v, (size_t)cap, sizeof *s->v) < 0)
            return diag_set(err, "out of memory");
        s->cap = cap;
    }
    s->v[s->n++] = n;
    return 0;
}

/* A task label the skeleton language can print and read back. */
void bpel_label(const bpel_act *a, char *out, size_t size)
{
    const char *src = a->name && *a->name ? a->name : a->path;
    size_t k = 0;
    for (; *src && k + 1 < size && k < 200; src++) {
        unsigned char c = (unsigned char)*src;
        out[k++] = (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') ? (char)c : '_';
    }
    out[k] = '\0';
}

static int reduce(skel_tree *t, const bpel_act *a, double visits, int depth, stages *out,
                  bpel_budget *b, diag *err);

/* The state space of a pipeline grows about threefold per stage, so long
 * pipelines are shortened: the adjacent pair of tasks with the least total
 * work becomes one task doing both (service times add). Per-item work is
 * kept; the pair no longer overlaps, so throughput is a lower bound. */
int bpel_merge_stages(skel_tree *t, skel_node **v, int *n, diag *err)
{
    while (*n > BPEL_MAX_STAGES) {
        int best = -1;
        double best_w = 0;
        for (int i = 0; i + 1 < *n; i++) {
            const skel_node *a = v[i], *b = v[i + 1];
            if (a->kind != SKEL_TASK || b->kind != SKEL_TASK)
                continue;
            double w = 1 / a->rate + 1 / b->rate;
            if (best < 0 || w < best_w) {
                best = i;
                best_w = w;
            }
        }
        if (best < 0)
            return 0;   /* no two tasks side by side: leave it */
        char name[SKEL_MAX_NAME + 1];
        snprintf(name, sizeof name, "%.120s+%.120s", v[best]->name, v[best + 1]->name);
        skel_node *m = skel_task_new(t, name, 1 / best_w, v[best]->line, 0, err);
        if (!m)
            return -1;
        v[best] = m;
        memmove(&v[best + 1], &v[best + 2], (size_t)(*n - best - 2) * sizeof *v);
        (*n)--;
    }
    return 0;
}

int bpel_serial(skel_tree *t, const bpel_act *a, double visits, int depth,
                      skel_node **node, bpel_budget *b, diag *err)
{
    stages s = { 0 };
    *node = NULL;
    if (reduce(t, a, visits, depth, &s, b, err) < 0 || bpel_merge_stages(t, s.v, &s.n, err) < 0)
        goto fail;
    if (s.n == 1) {
        *node = s.v[0];
    } else if (s.n > 1) {
        skel_node *p = skel_node_new(t, SKEL_PIPE, a->line, 0, err);
        if (!p)
            goto fail;
        for (int i = 0; i < s.n; i++)
            if (skel_node_add(t, p, s.v[i], err) < 0)
                goto fail;
        *node = p;
    }
    free(s.v);
    return 0;
fail:
    free(s.v);
    return -1;
}

static int reduce(skel_tree *t, const bpel_act *a, double visits, int depth, stages *out,
                  bpel_budget *b, diag *err)
{
    if (depth > BPEL_MAX_DEPTH + 8)
        return diag_at(err, skel_tree_file(t), a->line, 0, "activities nested too deeply");
    if (!(visits > 0))
        return 0;   /* never reached: no load */
    switch (a->kind) {
    case BPEL_NOP:
        return 0;
    case BPEL_TASK: {
        char name[256];
        bpel_label(a, name, sizeof name);
        double rate = a->rate / visits;
        if (!(rate > 0) || !isfinite(rate))
            return diag_at(err, skel_tree_file(t), a->line, 0,
                           "<%s> %s: rate %g over %g expected visits is out of range", a->elem,
                           a->path, a->rate, visits);
        if (++b->tasks > SKEL_MAX_TASKS)
            return diag_at(err, skel_tree_file(t), a->line, 0,
                           "the skeleton would have more than %d tasks (parallel forEach "
                           "copies its body N times)", SKEL_MAX_TASKS);
        skel_node *n = skel_task_new(t, name, rate, a->line, 0, err);
        return n ? push(out, n, err) : -1;
    }
    case BPEL_SEQ:
        for (int i = 0; i < a->nchildren; i++)
            if (reduce(t, a->children[i], visits, depth + 1, out, b, err) < 0)
                return -1;
        return 0;
    case BPEL_PAR:
        /* prob: the chance a branch runs (links with transition
         * conditions), 1 otherwise. */
    case BPEL_CHOICE:
        for (int i = 0; i < a->nchildren; i++)
            if (reduce(t, a->children[i], visits * a->children[i]->prob, depth + 1, out, b, err) < 0)
                return -1;
        return 0;
    case BPEL_LOOP:
        for (int i = 0; i < a->nchildren; i++)
            if (reduce(t, a->children[i], visits * a->count, depth + 1, out, b, err) < 0)
                return -1;
        return 0;
    case BPEL_DEAL: {
        /* Each instance runs all N branches; the deal hands each worker one
         * item in N, so each copy carries N branches' worth of visits. */
        int n = (int)a->count;
        skel_node *d = skel_node_new(t, SKEL_DEAL, a->line, 0, err);
        if (!d)
            return -1;
        for (int k = 0; k < n; k++) {
            skel_node *body = NULL;
            if (a->nchildren != 1)
                return diag_at(err, skel_tree_file(t), a->line, 0, "<forEach> has no body");
            if (bpel_serial(t, a->children[0], visits * n, depth + 1, &body, b, err) < 0)
                return -1;
            if (!body)
                return 0;   /* a body without work: nothing to deal */
            if (skel_node_add(t, d, body, err) < 0)
                return -1;
        }
        d->sugar = 1;
        return push(out, d, err);
    }
    }
    return 0;
}
