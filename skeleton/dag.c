/* skeleton/dag.c: the task graph of a skeleton tree (seed 002 §4.1,
 * Algorithm 1): for every task its source flow S_i (from whom it receives)
 * and destination flow D_i (to whom it sends), and the distinct edges.
 *
 * Every subtree has an entry flow (how items reach its first tasks) and an
 * exit flow (how items leave its last tasks):
 *   task      [i]
 *   pipe      entry of its first component, exit of its last
 *   deal      the components' flows interleaved round robin: step k*n+c is
 *             step k of component c (period n * lcm of their periods), so a
 *             deal of deals of unequal widths follows the true item order
 *   farm      one step offering every member (any of them, on demand)
 * Adjacent components X, Y of a pipe are connected by projecting the item
 * stream: when both flows are ordered (every step one task), item k goes
 * from exit(X)[k mod |exit|] to entry(Y)[k mod |entry|], which gives each
 * sender and each receiver its own cycle over lcm(|exit|, |entry|) items
 * (two equal deals pair off rank by rank, as seed 002 observes). When a
 * farm is involved, senders keep the entry flow of Y and receivers accept
 * from any task of exit(X): a farm imposes no order, so nothing can be
 * waited for that never comes. Algorithm 1 as printed merges lists by
 * union only, which deadlocks a deal of deals of unequal widths. */
#include "skeleton.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct builder {
    const skel_tree *tree;
    skel_dag *dag;
    char *src_set, *dst_set;   /* per task: flow assigned already */
    diag *err;
} builder;

static void flow_free(skel_flow *f)
{
    free(f->start);
    free(f->tasks);
    memset(f, 0, sizeof *f);
}

static int flow_alloc(skel_flow *f, int nsteps, int ntasks, diag *err)
{
    f->nsteps = nsteps;
    f->start = malloc((size_t)(nsteps + 1) * sizeof *f->start);
    f->tasks = malloc((size_t)(ntasks > 0 ? ntasks : 1) * sizeof *f->tasks);
    if (!f->start || !f->tasks) {
        flow_free(f);
        return diag_set(err, "out of memory");
    }
    f->start[0] = 0;
    return 0;
}

static int flow_len(const skel_flow *f) { return f->start[f->nsteps]; }

static int flow_single(skel_flow *f, int task, diag *err)
{
    if (flow_alloc(f, 1, 1, err) < 0)
        return -1;
    f->tasks[0] = task;
    f->start[1] = 1;
    return 0;
}

static int flow_copy(skel_flow *to, const skel_flow *from, diag *err)
{
    if (flow_alloc(to, from->nsteps, flow_len(from), err) < 0)
        return -1;
    memcpy(to->start, from->start, (size_t)(from->nsteps + 1) * sizeof *to->start);
    memcpy(to->tasks, from->tasks, (size_t)flow_len(from) * sizeof *to->tasks);
    to->pattern = from->pattern;
    return 0;
}

static int ordered(const skel_flow *f)
{
    return flow_len(f) == f->nsteps;
}

/* One step holding every distinct task of the flows (first use order). */
static int flow_union(skel_flow *out, const skel_flow *fs, int n, diag *err)
{
    int total = 0;
    for (int c = 0; c < n; c++)
        total += flow_len(&fs[c]);
    if (flow_alloc(out, 1, total, err) < 0)
        return -1;
    int m = 0;
    for (int c = 0; c < n; c++)
        for (int k = 0; k < flow_len(&fs[c]); k++) {
            int t = fs[c].tasks[k], seen = 0;
            for (int j = 0; j < m && !seen; j++)
                seen = out->tasks[j] == t;
            if (!seen)
                out->tasks[m++] = t;
        }
    out->start[1] = m;
    return 0;
}

/* Round-robin interleaving of n flows (a deal of sub-skeletons). */
static int flow_interleave(builder *b, const skel_node *node, skel_flow *out,
                           const skel_flow *fs, int n)
{
    long period = 1;
    long tasks = 0;
    for (int c = 0; c < n; c++) {
        period = skel_lcm(period, fs[c].nsteps, SKEL_MAX_PERIOD);
        if (period < 0)
            break;
    }
    if (period < 0 || period > SKEL_MAX_PERIOD / n)
        return diag_at(b->err, skel_tree_file(b->tree), node->line, node->col,
                       "the round-robin cycle of this deal is longer than %d items",
                       SKEL_MAX_PERIOD);
    for (int c = 0; c < n; c++)
        tasks += period / fs[c].nsteps * flow_len(&fs[c]);
    if (flow_alloc(out, (int)period * n, (int)tasks, b->err) < 0)
        return -1;
    int s = 0, m = 0;
    for (long k = 0; k < period; k++)
        for (int c = 0; c < n; c++) {
            const skel_flow *f = &fs[c];
            int step = (int)(k % f->nsteps);
            for (int j = f->start[step]; j < f->start[step + 1]; j++)
                out->tasks[m++] = f->tasks[j];
            out->start[++s] = m;
        }
    return 0;
}

/* Shortest period p (dividing n) of the sequence v. */
static int min_period(const int *v, int n)
{
    for (int p = 1; p < n; p++) {
        if (n % p)
            continue;
        int ok = 1;
        for (int k = p; k < n && ok; k++)
            ok = v[k] == v[k - p];
        if (ok)
            return p;
    }
    return n;
}

static int assign(builder *b, int task, int is_src, skel_flow *f)
{
    char *set = is_src ? b->src_set : b->dst_set;
    skel_flow *slot = is_src ? &b->dag->src[task] : &b->dag->dst[task];
    if (set[task]) {
        flow_free(f);
        return diag_set(b->err, "internal error: task t%d has two %s flows", task,
                        is_src ? "source" : "destination");
    }
    set[task] = 1;
    *slot = *f;
    memset(f, 0, sizeof *f);
    return 0;
}

/* Ordered exit E and ordered entry N: project the item stream. */
static int connect_ordered(builder *b, const skel_node *at, const skel_flow *E,
                           const skel_flow *N)
{
    long L = skel_lcm(E->nsteps, N->nsteps, SKEL_MAX_PERIOD);
    if (L < 0)
        return diag_at(b->err, skel_tree_file(b->tree), at->line, at->col,
                       "the round-robin cycle between these components is longer than %d items",
                       SKEL_MAX_PERIOD);
    int *seq = malloc((size_t)L * sizeof *seq);
    if (!seq)
        return diag_set(b->err, "out of memory");
    /* side 0: each distinct sender of E; side 1: each receiver of N. */
    for (int side = 0; side < 2; side++) {
        const skel_flow *me = side == 0 ? E : N, *other = side == 0 ? N : E;
        for (int k0 = 0; k0 < me->nsteps; k0++) {
            int x = me->tasks[k0], first = 1;
            for (int j = 0; j < k0 && first; j++)
                first = me->tasks[j] != x;
            if (!first)
                continue;
            int n = 0;
            for (long k = 0; k < L; k++)
                if (me->tasks[k % me->nsteps] == x)
                    seq[n++] = other->tasks[k % other->nsteps];
            int p = min_period(seq, n);
            skel_flow f = { 0 };
            if (flow_alloc(&f, p, p, b->err) < 0) {
                free(seq);
                return -1;
            }
            for (int k = 0; k < p; k++) {
                f.tasks[k] = seq[k];
                f.start[k + 1] = k + 1;
            }
            if (assign(b, x, side == 1, &f) < 0) {
                free(seq);
                return -1;
            }
        }
    }
    free(seq);
    return 0;
}

static int connect(builder *b, const skel_node *at, const skel_flow *E, const skel_flow *N)
{
    if (ordered(E) && ordered(N))
        return connect_ordered(b, at, E, N);
    skel_flow senders = { 0 }, receivers = { 0 };
    int rc = flow_union(&senders, E, 1, b->err);
    if (rc == 0)
        rc = flow_union(&receivers, N, 1, b->err);
    /* Senders keep the receiving side's own flow (its order, if any);
     * receivers accept from any sender. */
    for (int j = 0; rc == 0 && j < flow_len(&senders); j++) {
        skel_flow f = { 0 };
        rc = flow_copy(&f, N, b->err);
        if (rc == 0)
            rc = assign(b, senders.tasks[j], 0, &f);
    }
    for (int j = 0; rc == 0 && j < flow_len(&receivers); j++) {
        skel_flow f = { 0 };
        rc = flow_copy(&f, &senders, b->err);
        if (rc == 0)
            rc = assign(b, receivers.tasks[j], 1, &f);
    }
    flow_free(&receivers);
    flow_free(&senders);
    return rc;
}

/* Entry and exit flows of the subtree at node; connects pipes inside. */
static int walk(builder *b, const skel_node *node, skel_flow *entry, skel_flow *exit_)
{
    if (node->kind == SKEL_TASK) {
        if (flow_single(entry, node->index, b->err) < 0)
            return -1;
        if (flow_single(exit_, node->index, b->err) < 0) {
            flow_free(entry);
            return -1;
        }
        return 0;
    }
    int n = node->nchildren, rc = -1;
    skel_flow *in = calloc((size_t)n, sizeof *in);
    skel_flow *out = calloc((size_t)n, sizeof *out);
    if (!in || !out) {
        free(out);
        free(in);
        return diag_set(b->err, "out of memory");
    }
    int done = 0;
    for (; done < n; done++)
        if (walk(b, node->children[done], &in[done], &out[done]) < 0)
            goto out;
    switch (node->kind) {
    case SKEL_PIPE:
        for (int k = 1; k < n; k++)
            if (connect(b, node->children[k], &out[k - 1], &in[k]) < 0)
                goto out;
        *entry = in[0];
        *exit_ = out[n - 1];
        memset(&in[0], 0, sizeof in[0]);
        memset(&out[n - 1], 0, sizeof out[0]);
        rc = 0;
        break;
    case SKEL_DEAL:
        if (flow_interleave(b, node, entry, in, n) < 0)
            goto out;
        if (flow_interleave(b, node, exit_, out, n) < 0) {
            flow_free(entry);
            goto out;
        }
        rc = 0;
        break;
    case SKEL_FARM:
        if (flow_union(entry, in, n, b->err) < 0)
            goto out;
        if (flow_union(exit_, out, n, b->err) < 0) {
            flow_free(entry);
            goto out;
        }
        rc = 0;
        break;
    case SKEL_TASK:
        break;
    }
out:
    for (int c = done - 1; c >= 0; c--) {
        flow_free(&out[c]);
        flow_free(&in[c]);
    }
    free(out);
    free(in);
    return rc;
}

static skel_pattern classify(const skel_flow *f)
{
    if (!f->start || f->nsteps == 0)
        return SKEL_PAT_NONE;
    if (f->nsteps == 1)
        return flow_len(f) == 1 ? SKEL_PAT_PIPE : SKEL_PAT_FARM;
    return SKEL_PAT_DEAL;
}

static int add_edge(skel_dag *d, int *cap, int from, int to, diag *err)
{
    if (d->nedges == *cap) {
        int nc = *cap ? 2 * *cap : 16;
        skel_edge *e = realloc(d->edges, (size_t)nc * sizeof *e);
        if (!e)
            return diag_set(err, "out of memory");
        d->edges = e;
        *cap = nc;
    }
    d->edges[d->nedges].from = from;
    d->edges[d->nedges].to = to;
    d->nedges++;
    return 0;
}

static int make_edges(skel_dag *d, diag *err)
{
    int cap = 0;
    int *seen = calloc((size_t)d->ntasks + 2, sizeof *seen);   /* stamp per receiver */
    if (!seen)
        return diag_set(err, "out of memory");
    for (int i = 0; i < d->ntasks; i++) {
        const skel_flow *s = &d->src[i], *t = &d->dst[i];
        if (s->nsteps && s->tasks[0] == SKEL_IN && add_edge(d, &cap, SKEL_IN, i, err) < 0)
            goto fail;
        d->out_lo[i] = d->nedges;
        for (int k = 0; t->nsteps && k < flow_len(t); k++) {
            int y = t->tasks[k];
            int slot = y == SKEL_OUT ? d->ntasks : y;
            if (seen[slot] == i + 1)
                continue;
            seen[slot] = i + 1;
            if (add_edge(d, &cap, i, y, err) < 0)
                goto fail;
        }
        d->out_hi[i] = d->nedges;
    }
    free(seen);
    return 0;
fail:
    free(seen);
    return -1;
}

skel_dag *skel_dag_build(const skel_tree *t, skel_style style, diag *err)
{
    int n = skel_tree_ntasks(t);
    skel_dag *d = calloc(1, sizeof *d);
    builder b = { .tree = t, .dag = d, .err = err };
    if (!d || !(d->src = calloc((size_t)n, sizeof *d->src)) ||
        !(d->dst = calloc((size_t)n, sizeof *d->dst)) ||
        !(d->out_lo = calloc((size_t)n, sizeof *d->out_lo)) ||
        !(d->out_hi = calloc((size_t)n, sizeof *d->out_hi)) ||
        !(b.src_set = calloc((size_t)n, 1)) || !(b.dst_set = calloc((size_t)n, 1))) {
        diag_set(err, "out of memory");
        goto fail;
    }
    d->style = style;
    d->ntasks = n;
    skel_flow entry = { 0 }, exit_ = { 0 };
    if (walk(&b, skel_tree_root(t), &entry, &exit_) < 0)
        goto fail;
    int rc = 0;
    if (style == SKEL_STYLE_STREAM) {
        /* Every first task receives from the outside, every last task
         * sends to it: seed 000's move_1 and move_{Ns+1}. */
        for (int side = 0; side < 2 && rc == 0; side++) {
            skel_flow any = { 0 };
            rc = flow_union(&any, side == 0 ? &entry : &exit_, 1, err);
            for (int j = 0; rc == 0 && j < flow_len(&any); j++) {
                skel_flow f = { 0 };
                rc = flow_single(&f, side == 0 ? SKEL_IN : SKEL_OUT, err);
                if (rc == 0)
                    rc = assign(&b, any.tasks[j], side == 0, &f);
            }
            flow_free(&any);
        }
    }
    flow_free(&exit_);
    flow_free(&entry);
    if (rc < 0)
        goto fail;
    for (int i = 0; i < n; i++) {
        d->src[i].pattern = classify(&d->src[i]);
        d->dst[i].pattern = classify(&d->dst[i]);
    }
    if (make_edges(d, err) < 0)
        goto fail;
    free(b.dst_set);
    free(b.src_set);
    return d;
fail:
    free(b.dst_set);
    free(b.src_set);
    skel_dag_free(d);
    return NULL;
}

void skel_dag_free(skel_dag *d)
{
    if (!d)
        return;
    free(d->out_hi);
    free(d->out_lo);
    free(d->edges);
    for (int i = 0; d->dst && i < d->ntasks; i++)
        flow_free(&d->dst[i]);
    for (int i = 0; d->src && i < d->ntasks; i++)
        flow_free(&d->src[i]);
    free(d->dst);
    free(d->src);
    free(d);
}

int skel_dag_case(const skel_dag *d, int i)
{
    return 4 * (int)d->src[i].pattern + (int)d->dst[i].pattern;
}

int skel_dag_edge(const skel_dag *d, int from, int to)
{
    if (from >= 0 && from < d->ntasks) {
        for (int e = d->out_lo[from]; e < d->out_hi[from]; e++)
            if (d->edges[e].to == to)
                return e;
        return -1;
    }
    for (int e = 0; e < d->nedges; e++)
        if (d->edges[e].from == from && d->edges[e].to == to)
            return e;
    return -1;
}
