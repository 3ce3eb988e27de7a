/* bpel/translate.c: from the activity tree to a skeleton tree, construct by
 * construct (docs/bpel.md, ../shared/notes/bpel-mapping.md):
 *   sequence                      pipe of its activities
 *   flow without links            par of its branches (fork, join)
 *   flow with unconditional links nested pipe/par when the links form a
 *                                 series-parallel order (sp_flow)
 *   if / switch / pick            choice, weighted by the branch probabilities
 *   while / repeatUntil / forEach parallel="no"
 *                                 loop with the expected count as its mean
 *   forEach parallel="yes"        par of N copies of the body
 *   invoke / receive / reply ...  task; assign, empty ... nothing
 * Where the skeleton language cannot say it, the activity falls back to the
 * serial reduction by visit ratios (reduce.c), which keeps every task's load
 * per item: a flow with conditional links or links that are not
 * series-parallel (its activities then run in link order), a par/choice/loop that
 * would start the process, a choice right after a flow (no task joins the
 * flow's branches to decide), an empty branch of a choice (the other branches'
 * work is scaled by the probability that one of them runs), a loop with
 * fewer than one iteration on average, a loop over several stages where its
 * feedback would deadlock or be miscounted (see docs/skeleton-language.md),
 * and forks wider than SKEL_MAX_GROUPS. */
#include <math.h>
#include <stdlib.h>

#include "internal.h"
#include "../base/mem.h"

typedef struct tr {
    skel_tree *t;
    bpel_budget b;
    diag *err;
} tr;

/* Where an activity sits in the process: nothing before it (first), nothing
 * after it (last), right after a join (after_join). */
typedef struct place {
    int first, last, after_join;
} place;

static int has_work(const bpel_act *a)
{
    if (a->kind == BPEL_TASK)
        return 1;
    if (a->kind == BPEL_NOP || (a->kind == BPEL_LOOP && !(a->count > 0)))
        return 0;
    for (int i = 0; i < a->nchildren; i++)
        if (has_work(a->children[i]) && (a->kind != BPEL_CHOICE || a->children[i]->prob > 0))
            return 1;
    return 0;
}

/* ---- shapes of translated nodes, as skeleton/dag.c sees them ----------- */

/* Does the item fork on entry (end = 0) or join on exit (end = 1)? */
static int forks(const skel_node *n, int end)
{
    switch (n->kind) {
    case SKEL_PAR:
        return 1;
    case SKEL_PIPE:
        return forks(n->children[end ? n->nchildren - 1 : 0], end);
    case SKEL_LOOP:
        return forks(n->children[0], end);
    case SKEL_CHOICE:
        for (int c = 0; c < n->nchildren; c++)
            if (forks(n->children[c], end))
                return 1;
        return 0;
    default:
        return 0;
    }
}

/* Branches an item forks to on entry (an upper bound of the dag's groups). */
static long width(const skel_node *n)
{
    long w = 0;
    switch (n->kind) {
    case SKEL_PAR:
        for (int c = 0; c < n->nchildren; c++)
            w += width(n->children[c]);
        return w;
    case SKEL_PIPE:
    case SKEL_LOOP:
        return width(n->children[0]);
    case SKEL_CHOICE:
        for (int c = 0; c < n->nchildren; c++)
            if (width(n->children[c]) > w)
                w = width(n->children[c]);
        return w;
    default:
        return 1;
    }
}

/* ---- the translation ---------------------------------------------------- */

static int translate(tr *x, const bpel_act *a, double visits, place at, int depth,
                     skel_node **out);

static int serial(tr *x, const bpel_act *a, double visits, int depth, skel_node **out)
{
    return bpel_serial(x->t, a, visits, depth, out, &x->b, x->err);
}

/* A skeleton node of kind k over the nodes v[0..n) (v[0] alone if n == 1). */
static int combine(tr *x, skel_kind k, int line, skel_node **v, int n, skel_node **out)
{
    if (n == 1) {
        *out = v[0];
        return 0;
    }
    skel_node *s = skel_node_new(x->t, k, line, 0, x->err);
    if (!s)
        return -1;
    for (int i = 0; i < n; i++)
        if (skel_node_add(x->t, s, v[i], x->err) < 0)
            return -1;
    *out = s;
    return 0;
}

/* The stages of a pipe being built. */
typedef struct stages {
    skel_node **v;
    int n, cap;
} stages;

/* Append s as a stage; a pipe adds nothing, its stages become ours. */
static int add_stages(tr *x, stages *l, skel_node *s)
{
    int k = s->kind == SKEL_PIPE ? s->nchildren : 1;
    if (l->n + k > l->cap) {
        int cap = 2 * (l->n + k);
        if (mem_grow((void **)&l->v, (size_t)cap, sizeof *l->v) < 0)
            return diag_set(x->err, "out of memory");
        l->cap = cap;
    }
    for (int j = 0; j < k; j++) {
        l->v[l->n] = s->kind == SKEL_PIPE ? s->children[j] : s;
        l->v[l->n++]->parent = NULL;
    }
    return 0;
}

static int seq(tr *x, const bpel_act *a, double visits, place at, int depth, skel_node **out)
{
    int lo = -1, hi = -1, rc = 0;
    for (int i = 0; i < a->nchildren; i++)
        if (has_work(a->children[i])) {
            if (lo < 0)
                lo = i;
            hi = i;
        }
    if (lo < 0)
        return 0;
    stages l = { 0 };
    for (int i = lo; i <= hi && rc == 0; i++) {
        if (!has_work(a->children[i]))
            continue;
        place in = { at.first && l.n == 0, at.last && i == hi,
                     l.n > 0 && forks(l.v[l.n - 1], 1) };
        skel_node *s = NULL;
        rc = translate(x, a->children[i], visits, in, depth + 1, &s);
        if (rc == 0 && s)
            rc = add_stages(x, &l, s);
    }
    if (rc == 0)
        rc = bpel_merge_stages(x->t, l.v, &l.n, x->err);
    if (rc == 0 && l.n > 0)
        rc = combine(x, SKEL_PIPE, a->line, l.v, l.n, out);
    free(l.v);
    return rc;
}

/* A flow without links, or N copies of a parallel forEach's body. */
static int par(tr *x, const bpel_act *a, double visits, place at, int depth, skel_node **out)
{
    int copies = a->kind == BPEL_DEAL ? (int)a->count : a->nchildren;
    skel_node **v = malloc((size_t)(copies ? copies : 1) * sizeof *v);
    if (!v)
        return diag_set(x->err, "out of memory");
    int n = 0, rc = 0;
    long w = 0;
    place in = { 0, at.last, 0 };   /* each branch receives from the fork */
    for (int i = 0; i < copies && rc == 0; i++) {
        const bpel_act *b = a->kind == BPEL_DEAL ? a->children[0] : a->children[i];
        skel_node *s = NULL;
        if (!has_work(b))
            continue;
        rc = translate(x, b, visits, in, depth + 1, &s);
        if (rc == 0 && s) {
            v[n++] = s;
            w += width(s);
        }
    }
    if (rc == 0 && w > SKEL_MAX_GROUPS) {
        free(v);
        return serial(x, a, visits, depth, out);
    }
    if (rc == 0 && n > 0)
        rc = combine(x, SKEL_PAR, a->line, v, n, out);
    free(v);
    return rc;
}

/* The branches with work; an empty branch scales the others' work. */
static int choice(tr *x, const bpel_act *a, double visits, place at, int depth,
                  skel_node **out)
{
    double runs = 0;
    for (int i = 0; i < a->nchildren; i++)
        if (a->children[i]->prob > 0 && has_work(a->children[i]))
            runs += a->children[i]->prob;
    if (!(runs > 0))
        return 0;
    skel_node **v = malloc((size_t)a->nchildren * sizeof *v);
    if (!v)
        return diag_set(x->err, "out of memory");
    int n = 0, rc = 0;
    place in = { 0, at.last, 0 };
    for (int i = 0; i < a->nchildren && rc == 0; i++) {
        const bpel_act *b = a->children[i];
        skel_node *s = NULL;
        if (!(b->prob > 0) || !has_work(b))
            continue;
        rc = translate(x, b, visits * runs, in, depth + 1, &s);
        if (rc == 0 && s) {
            s->prob = b->prob / runs;
            v[n++] = s;
        }
    }
    if (rc == 0 && n > 0)
        rc = combine(x, SKEL_CHOICE, a->line, v, n, out);
    free(v);
    return rc;
}

static int loop(tr *x, const bpel_act *a, double visits, place at, int depth, skel_node **out)
{
    const bpel_act *b = a->children[0];
    if (!(a->count > 1))   /* at most one iteration on average: a visit ratio */
        return translate(x, b, visits * a->count, at, depth + 1, out);
    skel_node *body = NULL;
    place in = { 0, 0, 0 };   /* the feedback is before and after it */
    if (translate(x, b, visits, in, depth + 1, &body) < 0)
        return -1;
    if (!body)
        return 0;
    if (!skel_node_one_stage(body) && (at.last || at.after_join || forks(body, 0) || forks(body, 1)))
        return serial(x, a, visits, depth, out);   /* the body made above is not used */
    skel_node *l = skel_node_new(x->t, SKEL_LOOP, a->line, 0, x->err);
    if (!l || skel_node_add(x->t, l, body, x->err) < 0)
        return -1;
    l->mean = a->count;
    *out = l;
    return 0;
}

/* ---- flows with links: series-parallel decomposition ------------------- */

/* pipe(v[0], v[1]), either may be NULL, through add_stages. */
static int series_of(tr *x, int line, skel_node *v[2], skel_node **out)
{
    if (!v[0] || !v[1]) {
        *out = v[0] ? v[0] : v[1];
        return 0;
    }
    stages l = { 0 };
    int rc = add_stages(x, &l, v[0]);
    if (rc == 0)
        rc = add_stages(x, &l, v[1]);
    if (rc == 0)
        rc = combine(x, SKEL_PIPE, line, l.v, l.n, out);
    free(l.v);
    return rc;
}

/* Children set[0..n) of flow a (indices in link order), as nested pipe and
 * par: split off the first k (in link order) when each of them is waited
 * for by each of the rest (series), else split the weakly connected
 * components (parallel). Returns 1 when the order is not series-parallel
 * (or a par would start the process), 0 with *out set, -1 on error. */
static int sp_flow(tr *x, const bpel_act *a, const int *set, int n, double visits, place at,
                   int depth, skel_node **out)
{
    int nc = a->nchildren, rc = 0;
    const unsigned char *r = a->reach;
    *out = NULL;
    if (depth > BPEL_MAX_DEPTH + 8)
        return diag_at(x->err, skel_tree_file(x->t), a->line, 0, "links nested too deeply");
    if (n == 1)
        return translate(x, a->children[set[0]], visits, at, depth + 1, out);
    for (int k = 1; k < n; k++) {
        int series = 1;
        for (int i = 0; i < k && series; i++)
            for (int j = k; j < n && series; j++)
                series = r[set[i] * nc + set[j]];
        if (!series)
            continue;
        skel_node *v[2] = { NULL, NULL };
        place head = { at.first, 0, at.after_join };
        rc = sp_flow(x, a, set, k, visits, head, depth + 1, &v[0]);
        if (rc != 0)
            return rc;
        place tail = { at.first && !v[0], at.last, v[0] ? forks(v[0], 1) : at.after_join };
        rc = sp_flow(x, a, set + k, n - k, visits, tail, depth + 1, &v[1]);
        if (rc != 0)
            return rc;
        return series_of(x, a->line, v, out);
    }
    /* parallel: label each child with its component */
    int *comp = malloc((size_t)n * sizeof *comp), *sub = malloc((size_t)n * sizeof *sub);
    skel_node **v = malloc((size_t)n * sizeof *v);
    if (!comp || !sub || !v) {
        free(v);
        free(sub);
        free(comp);
        return diag_set(x->err, "out of memory");
    }
    for (int i = 0; i < n; i++)
        comp[i] = i;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if ((r[set[i] * nc + set[j]] || r[set[j] * nc + set[i]]) && comp[j] > comp[i]) {
                    comp[j] = comp[i];
                    changed = 1;
                }
    }
    int nv = 0;
    rc = 1;   /* one component and no series split: not series-parallel */
    for (int c = 0; c < n; c++) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (comp[i] == c)
                sub[m++] = set[i];
        if (m == n || m == 0)
            continue;
        place branch = { 0, at.last, 0 };
        skel_node *b = NULL;
        rc = sp_flow(x, a, sub, m, visits, branch, depth + 1, &b);
        if (rc != 0)
            break;
        if (b)
            v[nv++] = b;
    }
    if (rc == 0 && nv > 1 && at.first)
        rc = 1;   /* nothing would fork it */
    if (rc == 0 && nv > 0)
        rc = combine(x, SKEL_PAR, a->line, v, nv, out);
    free(v);
    free(sub);
    free(comp);
    return rc;
}

static int linked_flow(tr *x, const bpel_act *a, double visits, place at, int depth,
                       skel_node **out)
{
    if (a->conditional || !a->reach)
        return serial(x, a, visits, depth, out);
    int *set = malloc((size_t)a->nchildren * sizeof *set);
    if (!set)
        return diag_set(x->err, "out of memory");
    for (int i = 0; i < a->nchildren; i++)
        set[i] = i;
    int budget = x->b.tasks;
    int rc = sp_flow(x, a, set, a->nchildren, visits, at, depth, out);
    free(set);
    if (rc == 1) {   /* the nodes made so far are not used */
        x->b.tasks = budget;
        return serial(x, a, visits, depth, out);
    }
    return rc;
}

static int translate(tr *x, const bpel_act *a, double visits, place at, int depth,
                     skel_node **out)
{
    *out = NULL;
    if (depth > BPEL_MAX_DEPTH + 8)
        return diag_at(x->err, skel_tree_file(x->t), a->line, 0, "activities nested too deeply");
    if (!has_work(a))
        return 0;
    switch (a->kind) {
    case BPEL_SEQ:
        return seq(x, a, visits, at, depth, out);
    case BPEL_PAR:
        if (a->linked)
            return linked_flow(x, a, visits, at, depth, out);
        if (at.first)
            return serial(x, a, visits, depth, out);
        return par(x, a, visits, at, depth, out);
    case BPEL_DEAL:
        if (at.first || a->count > SKEL_MAX_GROUPS)
            return serial(x, a, visits, depth, out);
        return par(x, a, visits, at, depth, out);
    case BPEL_CHOICE:
        if (at.first || at.after_join)
            return serial(x, a, visits, depth, out);
        return choice(x, a, visits, at, depth, out);
    case BPEL_LOOP:
        if (at.first && a->count > 1)
            return serial(x, a, visits, depth, out);
        return loop(x, a, visits, at, depth, out);
    case BPEL_TASK:
    case BPEL_NOP:
        break;
    }
    return serial(x, a, visits, depth, out);
}

skel_tree *bpel_translate(const bpel_act *root, const char *file, diag *err)
{
    tr x = { .t = skel_tree_new(file), .err = err };
    if (!x.t) {
        diag_set(err, "out of memory");
        return NULL;
    }
    skel_node *top = NULL;
    place whole = { 1, 1, 0 };
    if (translate(&x, root, 1.0, whole, 0, &top) < 0)
        goto fail;
    if (!top) {
        /* Only zero-cost activities: one source task keeps the model
         * meaningful (instances arrive and leave). */
        if (!(top = skel_task_new(x.t, "process", BPEL_DEFAULT_ARRIVAL, root->line, 0, err)))
            goto fail;
    }
    if (skel_tree_finish(x.t, top, err) < 0)
        goto fail;
    return x.t;
fail:
    skel_tree_free(x.t);
    return NULL;
}
