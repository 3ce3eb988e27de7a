/* skeleton/dag.c: the task graph of a skeleton tree (Yaikhom et al. 2007 §4.1,
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
 * (two equal deals pair off rank by rank, as Yaikhom et al. 2007 observes). When a
 * farm is involved, senders keep the entry flow of Y and receivers accept
 * from any task of exit(X): a farm imposes no order, so nothing can be
 * waited for that never comes. Algorithm 1 as printed merges lists by
 * union only, which deadlocks a deal of deals of unequal widths.
 *
 * par, choice and loop (docs/skeleton-language.md) make one-step flows with
 * alternatives and groups (skeleton.h):
 *   par       entry: the product of the branches' entries (a sender forks
 *             the item to every branch); exit: one group per branch (the
 *             receiver joins them)
 *   choice    entry: the branches' alternatives, weighted by their
 *             probabilities; exit: any branch's exit
 *   loop      over one stage of tasks (a task, a deal or farm of tasks):
 *             each task computes the item again with probability 1 - 1/mean;
 *             over several stages: the body's last tasks send the item back
 *             to its first ones with that probability, through a gate that
 *             admits cap items (skel_gate)
 * Round-robin order is not kept across these boundaries: a deal right at
 * the entry or exit of a branch is reached on demand, like a farm. */
#include "dag_int.h"
#include "../base/mem.h"

#include <stdlib.h>
#include <string.h>

void dag_flow_free(skel_flow *f)
{
    free(f->start);
    free(f->tasks);
    free(f->alt);
    free(f->grp);
    free(f->weight);
    memset(f, 0, sizeof *f);
}

static int flow_alloc(skel_flow *f, int nsteps, int ntasks, diag *err)
{
    f->nsteps = nsteps;
    f->start = malloc((size_t)(nsteps + 1) * sizeof *f->start);
    f->tasks = malloc((size_t)(ntasks > 0 ? ntasks : 1) * sizeof *f->tasks);
    if (!f->start || !f->tasks) {
        dag_flow_free(f);
        return diag_set(err, "out of memory");
    }
    f->start[0] = 0;
    return 0;
}

int dag_flow_len(const skel_flow *f) { return f->start[f->nsteps]; }

static int flow_single(skel_flow *f, int task, diag *err)
{
    if (flow_alloc(f, 1, 1, err) < 0)
        return -1;
    f->tasks[0] = task;
    f->start[1] = 1;
    return 0;
}

int dag_flow_copy(skel_flow *to, const skel_flow *from, diag *err)
{
    if (flow_alloc(to, from->nsteps, dag_flow_len(from), err) < 0)
        return -1;
    size_t n = (size_t)dag_flow_len(from);
    memcpy(to->start, from->start, (size_t)(from->nsteps + 1) * sizeof *to->start);
    memcpy(to->tasks, from->tasks, n * sizeof *to->tasks);
    to->pattern = from->pattern;
    if (!from->alt)
        return 0;
    to->alt = malloc((n ? n : 1) * sizeof *to->alt);
    to->grp = malloc((n ? n : 1) * sizeof *to->grp);
    to->weight = malloc((n ? n : 1) * sizeof *to->weight);
    if (!to->alt || !to->grp || !to->weight) {
        dag_flow_free(to);
        return diag_set(err, "out of memory");
    }
    memcpy(to->alt, from->alt, n * sizeof *to->alt);
    memcpy(to->grp, from->grp, n * sizeof *to->grp);
    memcpy(to->weight, from->weight, n * sizeof *to->weight);
    return 0;
}

static int ordered(const skel_flow *f)
{
    return !f->alt && dag_flow_len(f) == f->nsteps;
}

/* One step holding every distinct task of the flows (first use order). */
static int flow_union(skel_flow *out, const skel_flow *fs, int n, diag *err)
{
    int total = 0;
    for (int c = 0; c < n; c++)
        total += dag_flow_len(&fs[c]);
    if (flow_alloc(out, 1, total, err) < 0)
        return -1;
    int m = 0;
    for (int c = 0; c < n; c++)
        for (int k = 0; k < dag_flow_len(&fs[c]); k++) {
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
        tasks += period / fs[c].nsteps * dag_flow_len(&fs[c]);
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

/* ---- one-step forms with alternatives and groups (par, choice, loop) ---- */

void dag_form_free(form *f)
{
    free(f->v);
    memset(f, 0, sizeof *f);
}

int dag_form_push(form *f, int task, int alt, int grp, double w, diag *err)
{
    if (f->n == f->cap) {
        int nc = f->cap ? 2 * f->cap : 16;
        if (mem_grow((void **)&f->v, (size_t)nc, sizeof *f->v) < 0)
            return diag_set(err, "out of memory");
        f->cap = nc;
    }
    f->v[f->n++] = (member){ task, alt, grp, w };
    if (alt >= f->nalt)
        f->nalt = alt + 1;
    return 0;
}

/* Step k of a flow as a form (a plain step: one alternative, one group). */
int dag_form_of_step(form *out, const skel_flow *f, int k, diag *err)
{
    for (int j = f->start[k]; j < f->start[k + 1]; j++)
        if (dag_form_push(out, f->tasks[j], f->alt ? f->alt[j] : 0, f->grp ? f->grp[j] : 0,
                          f->weight ? f->weight[j] : 1.0, err) < 0)
            return -1;
    return 0;
}

/* A flow seen in one step: extended flows have one; a plain cycle becomes
 * the union of its members (its order is not kept). */
int dag_form_of(form *out, const skel_flow *f, diag *err)
{
    if (f->alt)
        return dag_form_of_step(out, f, 0, err);
    skel_flow u = { 0 };
    if (flow_union(&u, f, 1, err) < 0)
        return -1;
    int rc = dag_form_of_step(out, &u, 0, err);
    dag_flow_free(&u);
    return rc;
}

static int groups_of(const form *f, int alt)
{
    int g = 0;
    for (int j = 0; j < f->n; j++)
        if (f->v[j].alt == alt && f->v[j].grp >= g)
            g = f->v[j].grp + 1;
    return g;
}

double dag_alt_weight(const form *f, int alt)
{
    for (int j = 0; j < f->n; j++)
        if (f->v[j].alt == alt)
            return f->v[j].w;
    return 0;
}

/* Every alternative of a with every alternative of b: both happen. */
static int form_product(form *out, const form *a, const form *b, const skel_node *at,
                        builder *bd)
{
    if ((long)a->nalt * b->nalt > SKEL_MAX_ALTS)
        return diag_at(bd->err, skel_tree_file(bd->tree), at->line, at->col,
                       "this par combines more than %d alternatives of its branches' choices",
                       SKEL_MAX_ALTS);
    for (int x = 0; x < a->nalt; x++)
        for (int y = 0; y < b->nalt; y++) {
            int alt = x * b->nalt + y, ga = groups_of(a, x);
            double w = dag_alt_weight(a, x) * dag_alt_weight(b, y);
            if (ga + groups_of(b, y) > SKEL_MAX_GROUPS)
                return diag_at(bd->err, skel_tree_file(bd->tree), at->line, at->col,
                               "an item would fork to or join more than %d branches here",
                               SKEL_MAX_GROUPS);
            for (int j = 0; j < a->n; j++)
                if (a->v[j].alt == x && dag_form_push(out, a->v[j].task, alt, a->v[j].grp, w,
                                                      bd->err) < 0)
                    return -1;
            for (int j = 0; j < b->n; j++)
                if (b->v[j].alt == y && dag_form_push(out, b->v[j].task, alt, ga + b->v[j].grp, w,
                                                      bd->err) < 0)
                    return -1;
        }
    return 0;
}

/* The alternatives of f, weighted by scale, after those of out. */
int dag_form_append(form *out, const form *f, double scale, diag *err)
{
    int base = out->nalt;
    for (int j = 0; j < f->n; j++)
        if (dag_form_push(out, f->v[j].task, base + f->v[j].alt, f->v[j].grp, f->v[j].w * scale,
                          err) < 0)
            return -1;
    return 0;
}

/* A one-step flow from a form; plain when it has one alternative of one
 * group, so that par/choice/loop of one branch change nothing. */
int dag_flow_of_form(skel_flow *out, const form *f, diag *err)
{
    if (flow_alloc(out, 1, f->n, err) < 0)
        return -1;
    int plain = 1;
    for (int j = 0; j < f->n; j++) {
        out->tasks[j] = f->v[j].task;
        plain = plain && f->v[j].alt == 0 && f->v[j].grp == 0;
    }
    out->start[1] = f->n;
    if (plain)
        return 0;
    size_t n = (size_t)(f->n ? f->n : 1);
    out->alt = malloc(n * sizeof *out->alt);
    out->grp = malloc(n * sizeof *out->grp);
    out->weight = malloc(n * sizeof *out->weight);
    if (!out->alt || !out->grp || !out->weight) {
        dag_flow_free(out);
        return diag_set(err, "out of memory");
    }
    for (int j = 0; j < f->n; j++) {
        out->alt[j] = f->v[j].alt;
        out->grp[j] = f->v[j].grp;
        out->weight[j] = f->v[j].w;
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
        dag_flow_free(f);
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

static int joins(const skel_flow *f)
{
    for (int j = 0; f->grp && j < dag_flow_len(f); j++)
        if (f->grp[j] > 0)
            return 1;
    return 0;
}

static int connect(builder *b, const skel_node *at, const skel_flow *E, const skel_flow *N)
{
    if (ordered(E) && ordered(N))
        return connect_ordered(b, at, E, N);
    /* Every branch's last task would decide on its own copy of the item. */
    int decides = 0;
    for (int j = 0; N->alt && j < dag_flow_len(N); j++)
        decides = decides || N->alt[j] > 0;
    if (joins(E) && decides)
        return diag_at(b->err, skel_tree_file(b->tree), at->line, at->col,
                       "a choice cannot follow a par directly: put the task that joins its "
                       "branches before it");
    skel_flow senders = { 0 }, receivers = { 0 };
    int rc = flow_union(&senders, E, 1, b->err);
    if (rc == 0)
        rc = flow_union(&receivers, N, 1, b->err);
    /* Senders keep the receiving side's own flow (its order, if any);
     * receivers accept from any sender. */
    for (int j = 0; rc == 0 && j < dag_flow_len(&senders); j++) {
        skel_flow f = { 0 };
        rc = dag_flow_copy(&f, N, b->err);
        if (rc == 0)
            rc = assign(b, senders.tasks[j], 0, &f);
    }
    for (int j = 0; rc == 0 && j < dag_flow_len(&receivers); j++) {
        skel_flow f = { 0 };
        rc = dag_flow_copy(&f, E->alt ? E : &senders, b->err);
        if (rc == 0)
            rc = assign(b, receivers.tasks[j], 1, &f);
    }
    dag_flow_free(&receivers);
    dag_flow_free(&senders);
    return rc;
}

int dag_refuse(builder *b, const skel_node *n, const char *fmt, const char *what)
{
    return diag_at(b->err, skel_tree_file(b->tree), n->line, n->col, fmt, what);
}

const char *dag_word(const skel_node *n)
{
    return n->kind == SKEL_PAR ? "par" : n->kind == SKEL_CHOICE ? "choice" : "loop";
}

/* The entry and exit flows of a par or choice from their forms (when rc
 * is 0); frees the forms either way. */
static int finish_forms(builder *b, int rc, form *fe, form *fx, skel_flow *entry,
                        skel_flow *exit_)
{
    if (rc == 0)
        rc = dag_flow_of_form(entry, fe, b->err);
    if (rc == 0 && (rc = dag_flow_of_form(exit_, fx, b->err)) < 0)
        dag_flow_free(entry);
    dag_form_free(fx);
    dag_form_free(fe);
    return rc;
}

/* par: fork to the product of the entries, join one group per branch. */
static int walk_par(builder *b, const skel_node *node, const skel_flow *in,
                    const skel_flow *out, skel_flow *entry, skel_flow *exit_)
{
    form fe = { 0 }, fx = { 0 };
    int rc = dag_form_push(&fe, SKEL_NONE, 0, 0, 1.0, b->err);   /* the unit of the product */
    if (rc == 0)
        rc = dag_form_push(&fx, SKEL_NONE, 0, 0, 1.0, b->err);
    for (int c = 0; c < node->nchildren && rc == 0; c++) {
        form ce = { 0 }, cx = { 0 }, pe = { 0 }, px = { 0 };
        rc = dag_form_of(&ce, &in[c], b->err);
        if (rc == 0)
            rc = dag_form_of(&cx, &out[c], b->err);
        /* A branch that is a choice of joins is joined as any one item. */
        for (int j = 0; rc == 0 && cx.nalt > 1 && j < cx.n; j++)
            cx.v[j].alt = cx.v[j].grp = 0;
        if (rc == 0)
            cx.nalt = 1;
        if (rc == 0)
            rc = form_product(&pe, &fe, &ce, node, b);
        if (rc == 0)
            rc = form_product(&px, &fx, &cx, node, b);
        dag_form_free(&fe);
        dag_form_free(&fx);
        fe = pe;
        fx = px;
        dag_form_free(&cx);
        dag_form_free(&ce);
    }
    /* drop the unit (group 0 of every alternative), renumber the groups */
    for (form *f = &fe; rc == 0 && f; f = f == &fe ? &fx : NULL) {
        int m = 0;
        for (int j = 0; j < f->n; j++)
            if (f->v[j].task != SKEL_NONE) {
                f->v[m] = f->v[j];
                f->v[m++].grp--;
            }
        f->n = m;
    }
    return finish_forms(b, rc, &fe, &fx, entry, exit_);
}

/* choice: the branches' entries weighted by their probabilities; any exit. */
static int walk_choice(builder *b, const skel_node *node, const skel_flow *in,
                       const skel_flow *out, skel_flow *entry, skel_flow *exit_)
{
    form fe = { 0 }, fx = { 0 };
    int rc = 0;
    for (int c = 0; c < node->nchildren && rc == 0; c++) {
        form ce = { 0 }, cx = { 0 };
        rc = dag_form_of(&ce, &in[c], b->err);
        if (rc == 0)
            rc = dag_form_of(&cx, &out[c], b->err);
        if (rc == 0)
            rc = dag_form_append(&fe, &ce, node->children[c]->prob, b->err);
        if (rc == 0)
            rc = dag_form_append(&fx, &cx, 1.0, b->err);
        dag_form_free(&cx);
        dag_form_free(&ce);
    }
    if (rc == 0 && fe.nalt > SKEL_MAX_ALTS)
        rc = diag_at(b->err, skel_tree_file(b->tree), node->line, node->col,
                     "this choice has more than %d alternatives", SKEL_MAX_ALTS);
    return finish_forms(b, rc, &fe, &fx, entry, exit_);
}

/* Entry and exit flows of the subtree at node; connects pipes inside.
 * has_pred / has_succ: some stage sends items into it / receives from it. */
static int walk(builder *b, const skel_node *node, int has_pred, int has_succ,
                skel_flow *entry, skel_flow *exit_)
{
    if (node->kind == SKEL_TASK) {
        if (flow_single(entry, node->index, b->err) < 0)
            return -1;
        if (flow_single(exit_, node->index, b->err) < 0) {
            dag_flow_free(entry);
            return -1;
        }
        return 0;
    }
    if ((node->kind == SKEL_PAR || node->kind == SKEL_CHOICE || node->kind == SKEL_LOOP) &&
        !has_pred)
        return dag_refuse(b, node, "a %s cannot start the skeleton: put the task that receives "
                          "or produces the items before it", dag_word(node));
    int n = node->nchildren, rc = -1;
    skel_flow *in = calloc((size_t)n, sizeof *in);
    skel_flow *out = calloc((size_t)n, sizeof *out);
    if (!in || !out) {
        free(out);
        free(in);
        return diag_set(b->err, "out of memory");
    }
    int done = 0;
    for (; done < n; done++) {
        int pred = has_pred, succ = has_succ;
        if (node->kind == SKEL_PIPE) {
            pred = pred || done > 0;
            succ = succ || done < n - 1;
        }
        if (walk(b, node->children[done], pred, succ, &in[done], &out[done]) < 0)
            goto out;
    }
    if (node->kind == SKEL_DEAL || node->kind == SKEL_FARM)
        for (int c = 0; c < n; c++)
            if (in[c].alt || out[c].alt) {
                dag_refuse(b, node->children[c], "a %s cannot be a member of a deal or farm "
                           "directly: put it inside a pipe between tasks",
                           dag_word(node->children[c]));
                goto out;
            }
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
            dag_flow_free(entry);
            goto out;
        }
        rc = 0;
        break;
    case SKEL_FARM:
        if (flow_union(entry, in, n, b->err) < 0)
            goto out;
        if (flow_union(exit_, out, n, b->err) < 0) {
            dag_flow_free(entry);
            goto out;
        }
        rc = 0;
        break;
    case SKEL_PAR:
        rc = walk_par(b, node, in, out, entry, exit_);
        break;
    case SKEL_CHOICE:
        rc = walk_choice(b, node, in, out, entry, exit_);
        break;
    case SKEL_LOOP:
        rc = dag_walk_loop(b, node, in, out, has_succ, entry, exit_);
        break;
    case SKEL_TASK:
        break;
    }
out:
    for (int c = done - 1; c >= 0; c--) {
        dag_flow_free(&out[c]);
        dag_flow_free(&in[c]);
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
        return dag_flow_len(f) == 1 ? SKEL_PAT_PIPE : SKEL_PAT_FARM;
    return SKEL_PAT_DEAL;
}

/* Computations per item of every task below node, m per item at node. */
static void visits(const skel_node *node, double m, double *v)
{
    switch (node->kind) {
    case SKEL_TASK:
        v[node->index] = m;
        return;
    case SKEL_FARM:
        m = 0;   /* who gets an item depends on the rates */
        break;
    case SKEL_DEAL:
        m /= node->nchildren;
        break;
    case SKEL_LOOP:
        m *= node->mean;
        break;
    default:
        break;
    }
    for (int c = 0; c < node->nchildren; c++)
        visits(node->children[c], node->kind == SKEL_CHOICE ? m * node->children[c]->prob : m, v);
}

static void builder_free(builder *b)
{
    for (int k = 0; k < b->nloops; k++) {
        dag_flow_free(&b->loops[k].exit_);
        dag_flow_free(&b->loops[k].entry);
    }
    free(b->loops);
    free(b->leave);
    free(b->dst_set);
    free(b->src_set);
}

static int add_edge(skel_dag *d, int *cap, int from, int to, diag *err)
{
    if (d->nedges == *cap) {
        int nc = *cap ? 2 * *cap : 16;
        if (mem_grow((void **)&d->edges, (size_t)nc, sizeof *d->edges) < 0)
            return diag_set(err, "out of memory");
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
        int in = 0;
        for (int k = 0; s->nsteps && k < dag_flow_len(s); k++)
            in = in || s->tasks[k] == SKEL_IN;
        if (in && add_edge(d, &cap, SKEL_IN, i, err) < 0)
            goto fail;
        d->out_lo[i] = d->nedges;
        for (int k = 0; t->nsteps && k < dag_flow_len(t); k++) {
            int y = t->tasks[k];
            if (y == SKEL_NONE || y == i)
                continue;          /* no partner: consumed, or computed again */
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
        !(b.src_set = calloc((size_t)n, 1)) || !(b.dst_set = calloc((size_t)n, 1)) ||
        !(b.leave = malloc((size_t)(n ? n : 1) * sizeof *b.leave))) {
        diag_set(err, "out of memory");
        goto fail;
    }
    for (int i = 0; i < n; i++)
        b.leave[i] = 1;
    d->style = style;
    d->ntasks = n;
    skel_flow entry = { 0 }, exit_ = { 0 };
    if (walk(&b, skel_tree_root(t), 0, 0, &entry, &exit_) < 0)
        goto fail;
    int rc = 0;
    if (style == SKEL_STYLE_STREAM) {
        /* Every first task receives from the outside, every last task
         * sends to it: Benoit et al. 2004's move_1 and move_{Ns+1}. */
        for (int side = 0; side < 2 && rc == 0; side++) {
            skel_flow any = { 0 };
            rc = flow_union(&any, side == 0 ? &entry : &exit_, 1, err);
            for (int j = 0; rc == 0 && j < dag_flow_len(&any); j++) {
                skel_flow f = { 0 };
                rc = flow_single(&f, side == 0 ? SKEL_IN : SKEL_OUT, err);
                if (rc == 0)
                    rc = assign(&b, any.tasks[j], side == 0, &f);
            }
            dag_flow_free(&any);
        }
    }
    dag_flow_free(&exit_);
    dag_flow_free(&entry);
    if (rc < 0 || dag_close_loops(&b) < 0)
        goto fail;
    for (int i = 0; i < n; i++) {
        d->src[i].pattern = classify(&d->src[i]);
        d->dst[i].pattern = classify(&d->dst[i]);
        d->extended = d->extended || d->src[i].alt || d->dst[i].alt;
    }
    if (make_edges(d, err) < 0)
        goto fail;
    if (!(d->visits = calloc((size_t)(n ? n : 1), sizeof *d->visits))) {
        diag_set(err, "out of memory");
        goto fail;
    }
    visits(skel_tree_root(t), 1.0, d->visits);
    if (skel_dag_serial_attach(d, t, err) < 0)
        goto fail;
    builder_free(&b);
    return d;
fail:
    builder_free(&b);
    skel_dag_free(d);
    return NULL;
}

void skel_dag_free(skel_dag *d)
{
    if (!d)
        return;
    skel_dag_free(d->serial);
    free(d->serial_visits);
    free(d->serial_of);
    free(d->serial_loop);
    free(d->pass);
    free(d->pass_at);
    free(d->visits);
    free(d->gates);
    free(d->out_hi);
    free(d->out_lo);
    free(d->edges);
    for (int i = 0; d->dst && i < d->ntasks; i++)
        dag_flow_free(&d->dst[i]);
    for (int i = 0; d->src && i < d->ntasks; i++)
        dag_flow_free(&d->src[i]);
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

int skel_dag_has_rounds(const skel_dag *d)
{
    for (int i = 0; i < d->ntasks; i++)
        if (d->src[i].nsteps > 1 || d->dst[i].nsteps > 1)
            return 1;
    return 0;
}
