/* skeleton/dag_loop.c: loops in the task graph (the method: the comment at
 * the top of dag.c). A loop over one stage of tasks marks each task to
 * compute the item again; a loop over several stages is kept pending while
 * the tree is walked (it needs the flows around its body) and gets a gate
 * (skel_gate); dag_close_loops then adds every feedback, inner loops first,
 * and the tasks' own "compute again" to their flows. */
#include "dag_int.h"
#include "../base/mem.h"

#include <stdlib.h>
#include <string.h>

/* Whether alternative alt of f goes into tasks [lo, hi). */
static int alt_inside(const form *f, int alt, int lo, int hi)
{
    for (int j = 0; j < f->n; j++)
        if (f->v[j].alt == alt)
            return f->v[j].task >= lo && f->v[j].task < hi;
    return 0;
}

/* Weight the alternatives of step that leave tasks [lo, hi) by keep; those
 * into them stay whole: an inner loop's feedback, closed first, is not an
 * exit of the loop around it (weighting it too made, in loop(1.5) over
 * task b then loop(2) over c, e, the outer loop's mean 2 and the inner's
 * 1.5). Returns the share of the step's weight that leaves. */
static double form_keep_exits(form *step, double keep, int lo, int hi)
{
    double all = 0, out = 0;
    for (int a = 0; a < step->nalt; a++) {
        double w = dag_alt_weight(step, a);
        all += w;
        if (alt_inside(step, a, lo, hi))
            continue;
        out += w;
        for (int j = 0; j < step->n; j++)
            step->v[j].w *= step->v[j].alt == a ? keep : 1;
    }
    return all > 0 ? out / all : 1;
}

/* Rebuild every step of f as: its alternatives that leave tasks [lo, hi)
 * weighted by keep, then those of extra weighted by scale times the share
 * that leaves (a loop's feedback over body [lo, hi), or the task itself
 * for "compute again", an empty range). */
static int flow_extend(skel_flow *f, double keep, const form *extra, double scale, int lo,
                       int hi, diag *err)
{
    form all = { 0 };
    int *start = malloc((size_t)(f->nsteps + 1) * sizeof *start);
    int rc = start ? 0 : diag_set(err, "out of memory");
    if (rc == 0)
        start[0] = 0;
    for (int k = 0; k < f->nsteps && rc == 0; k++) {
        form step = { 0 };
        rc = dag_form_of_step(&step, f, k, err);
        double out = form_keep_exits(&step, keep, lo, hi);
        if (rc == 0)
            rc = dag_form_append(&step, extra, scale * out, err);
        for (int j = 0; j < step.n && rc == 0; j++)
            rc = dag_form_push(&all, step.v[j].task, step.v[j].alt, step.v[j].grp, step.v[j].w,
                               err);
        start[k + 1] = all.n;
        dag_form_free(&step);
    }
    skel_flow g = { 0 };
    if (rc == 0)
        rc = dag_flow_of_form(&g, &all, err);
    if (rc == 0) {
        free(g.start);
        g.start = start;
        g.nsteps = f->nsteps;
        start = NULL;
        dag_flow_free(f);
        *f = g;
    } else {
        dag_flow_free(&g);
    }
    free(start);
    dag_form_free(&all);
    return rc;
}

/* Whether a flow with alternatives leaves by the branches of a par (some
 * member in a group past the first) rather than of a choice (one group,
 * its members alternatives). */
static int ends_in_par(const skel_flow *f)
{
    for (int j = 0; j < dag_flow_len(f); j++)
        if (f->grp[j] > 0)
            return 1;
    return 0;
}

/* loop: the body's own entry and exit; the feedback is added by
 * close_loops once every flow is known. */
int dag_walk_loop(builder *b, const skel_node *node, skel_flow *in, skel_flow *out,
                  int has_succ, skel_flow *entry, skel_flow *exit_)
{
    const skel_node *body = node->children[0];
    double again = 1 - 1 / node->mean;
    if (skel_node_one_stage(body)) {
        for (int i = body->lo; i < body->hi; i++)
            b->leave[i] *= 1 - again;
    } else {
        /* The gate counts one move per item: no fork into the body, no
         * join out of it or right before it (close_loops). */
        if (out[0].alt)
            return dag_refuse(b, node, ends_in_par(&out[0])
                              ? "the body of this %s ends in a par: put the task that joins "
                                "its branches last in the body"
                              : "the body of this %s ends in a choice: put a task that takes "
                                "the item from either branch last in the body",
                              dag_word(node));
        for (int j = 0; in[0].alt && j < dag_flow_len(&in[0]); j++)
            if (in[0].grp[j] > 0)
                return dag_refuse(b, node, "the body of this %s starts with a par: put the task "
                                  "that forks the item first in the body", dag_word(node));
        if (node->cap >= body->hi - body->lo)
            return diag_at(b->err, skel_tree_file(b->tree), node->line, node->col,
                           "cap=%d: a loop over %d tasks holds at most %d items at once "
                           "(with as many items as tasks the feedback deadlocks)",
                           node->cap, body->hi - body->lo, body->hi - body->lo - 1);
        if (!has_succ && b->dag->style == SKEL_STYLE_PRODUCER)
            return dag_refuse(b, node, "a %s over several stages cannot end the skeleton in the "
                              "producer style: put the task that consumes the items after it",
                              dag_word(node));
        if (b->nloops == b->cap_loops) {
            int nc = b->cap_loops ? 2 * b->cap_loops : 4;
            if (mem_grow((void **)&b->loops, (size_t)nc, sizeof *b->loops) < 0)
                return diag_set(b->err, "out of memory");
            b->cap_loops = nc;
        }
        pending *l = &b->loops[b->nloops];
        memset(l, 0, sizeof *l);
        l->node = node;
        l->lo = body->lo;
        l->hi = body->hi;
        l->again = again;
        if (dag_flow_copy(&l->entry, &in[0], b->err) < 0)
            return -1;
        if (dag_flow_copy(&l->exit_, &out[0], b->err) < 0) {
            dag_flow_free(&l->entry);
            return -1;
        }
        b->nloops++;
        skel_dag *d = b->dag;
        if (mem_grow((void **)&d->gates, (size_t)d->ngates + 1, sizeof *d->gates) < 0)
            return diag_set(b->err, "out of memory");
        d->gates[d->ngates++] = (skel_gate){ body->lo, body->hi, node->cap > 0 ? node->cap : 1,
                                      node->line, node->col, node->mean };
    }
    *entry = in[0];
    *exit_ = out[0];
    memset(&in[0], 0, sizeof in[0]);
    memset(&out[0], 0, sizeof out[0]);
    return 0;
}

/* The feedback of loops over several stages (inner loops first): the
 * body's last tasks send the item back to its first ones with probability
 * again, and those receive it from either side. Then the loops over one
 * stage: a task computes the item again with probability 1 - leave. */
int dag_close_loops(builder *b)
{
    skel_dag *d = b->dag;
    for (int k = 0; k < b->nloops; k++) {
        pending *l = &b->loops[k];
        form back = { 0 }, from = { 0 };
        int rc = dag_form_of(&back, &l->entry, b->err);
        if (rc == 0)
            rc = dag_form_of(&from, &l->exit_, b->err);
        for (int j = 0; j < from.n && rc == 0; j++)
            rc = flow_extend(&d->dst[from.v[j].task], 1 - l->again, &back, l->again, l->lo,
                             l->hi, b->err);
        for (int j = 0; j < back.n && rc == 0; j++) {
            int y = back.v[j].task, seen = 0;
            for (int i = 0; i < j; i++)
                seen = seen || back.v[i].task == y;
            if (seen)
                continue;
            const skel_flow *sy = &d->src[y];
            for (int i = 0; sy->grp && i < dag_flow_len(sy) && rc == 0; i++)
                if (sy->grp[i] > 0)
                    rc = dag_refuse(b, l->node, "a %s over several stages cannot follow a par "
                                    "directly: put the task that joins its branches before it",
                                    dag_word(l->node));
            form other = { 0 };   /* an entry that is also an exit computes again */
            for (int i = 0; i < from.n && rc == 0; i++)
                if (from.v[i].task != y)
                    rc = dag_form_push(&other, from.v[i].task, from.v[i].alt, from.v[i].grp, 1.0,
                                       b->err);
            if (rc == 0 && other.n > 0)
                rc = flow_extend(&d->src[y], 1.0, &other, 1.0, 0, 0, b->err);
            dag_form_free(&other);
        }
        dag_form_free(&from);
        dag_form_free(&back);
        if (rc < 0)
            return -1;
    }
    for (int i = 0; i < d->ntasks; i++) {
        if (b->leave[i] >= 1)
            continue;
        form self = { 0 };
        int rc = dag_form_push(&self, i, 0, 0, 1.0, b->err);
        if (rc == 0 && d->dst[i].nsteps == 0) {
            form none = { 0 };
            rc = dag_form_push(&none, SKEL_NONE, 0, 0, 1.0, b->err);
            dag_flow_free(&d->dst[i]);
            if (rc == 0)
                rc = dag_flow_of_form(&d->dst[i], &none, b->err);
            dag_form_free(&none);
        }
        if (rc == 0)
            rc = flow_extend(&d->dst[i], b->leave[i], &self, 1 - b->leave[i], 0, 0, b->err);
        dag_form_free(&self);
        if (rc < 0)
            return -1;
    }
    return 0;
}
